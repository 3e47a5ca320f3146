from django.urls import path

from . import views

app_name = "runs"
urlpatterns = [
    path("run/<int:pk>/", views.run_page, name="run"),
    path("run/<int:pk>/move", views.move, name="move"),
    path("run/<int:pk>/skip", views.skip, name="skip"),
    path("run/<int:pk>/finish", views.finish, name="finish"),
    path("race/lesson/<int:pk>/", views.race_panel, name="race_panel"),
    path("race/lesson/<int:pk>/start", views.race_start, name="race_start"),
    path("race/<int:pk>/join", views.race_join, name="race_join"),
    path("<variant:variant>/", views.index, name="index"),
    path("<variant:variant>/<str:kind>/start", views.start, name="start"),
    path("<variant:variant>/class/<int:class_id>/", views.class_table, name="class"),
]
