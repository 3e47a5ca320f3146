from django.urls import path

from . import views

app_name = "puzzles"
urlpatterns = [
    path("puzzles/", views.index, name="index"),
    path("puzzles/<variant:variant>/", views.trainer, name="trainer"),
    path("puzzles/<variant:variant>/<int:pk>/proof/", views.proof, name="proof"),
    path("daily/", views.daily_index, name="daily_index"),
    path("daily/<variant:variant>/", views.daily, name="daily"),
]
