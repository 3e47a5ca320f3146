from django.urls import path

from . import views

app_name = "lessons"
urlpatterns = [
    path("", views.index, name="index"),
    path("<variant:variant>/", views.course, name="course"),
    path("<variant:variant>/<slug:lesson>/<slug:step>/", views.step, name="step"),
    path("<variant:variant>/<slug:lesson>/<slug:step>/check", views.check, name="check"),
    path("<variant:variant>/<slug:lesson>/<slug:step>/hint", views.hint, name="hint"),
    path("<variant:variant>/<slug:lesson>/<slug:step>/answer", views.solution, name="solution"),
]
