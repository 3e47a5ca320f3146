from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("board/<variant:variant>/move", views.board_move, name="board_move"),
    path("language", views.set_language, name="set_language"),
    path("healthz", views.healthz, name="healthz"),
    path("jobs/probe", views.job_probe, name="job_probe"),
    path("jobs/<uuid:job_id>", views.job_detail, name="job_detail"),
]
