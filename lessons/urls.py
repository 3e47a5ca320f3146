from django.urls import path

from . import views

app_name = "lessons"
urlpatterns = [
    path("", views.index, name="index"),
    path("<variant:variant>/", views.course, name="course"),
    path("<variant:variant>/build-tables", views.build_tables, name="build_tables"),
    # before the step's addresses: "test-out" is no step's slug
    path("<variant:variant>/<slug:lesson>/test-out/", views.test_out, name="test_out"),
    path(
        "<variant:variant>/<slug:lesson>/test-out/start",
        views.test_out_start,
        name="test_out_start",
    ),
    path(
        "<variant:variant>/<slug:lesson>/test-out/check",
        views.test_out_check,
        name="test_out_check",
    ),
    path("<variant:variant>/<slug:lesson>/<slug:step>/", views.step, name="step"),
    path("<variant:variant>/<slug:lesson>/<slug:step>/check", views.check, name="check"),
    path("<variant:variant>/<slug:lesson>/<slug:step>/hint", views.hint, name="hint"),
    path("<variant:variant>/<slug:lesson>/<slug:step>/answer", views.solution, name="solution"),
    path("<variant:variant>/<slug:lesson>/<slug:step>/retry", views.retry, name="retry"),
]
