from django.urls import path

from . import views

app_name = "explore"

urlpatterns = [
    path("", views.board, name="board"),
    path("setup", views.setup, name="setup"),
    path("move", views.move, name="move"),
    path("analyse", views.analyse, name="analyse"),
    path("job/<uuid:job_id>", views.job, name="job"),
    path("pdn", views.pdn, name="pdn"),
]
