from django.urls import path

from . import views, views_mastery, views_mining, views_trainer

app_name = "puzzles"
urlpatterns = [
    path("puzzles/", views.index, name="index"),
    path("puzzles/dashboard/", views_trainer.dashboard_index, name="dashboard_index"),
    path("puzzles/mining/", views_mining.jobs, name="mining"),
    path("puzzles/mining/<int:pk>/", views_mining.job, name="mining_job"),
    path("puzzles/attempt/<int:pk>/move", views_trainer.attempt_move, name="attempt_move"),
    path("puzzles/attempt/<int:pk>/hint", views_trainer.attempt_hint, name="attempt_hint"),
    path(
        "puzzles/attempt/<int:pk>/solution",
        views_trainer.attempt_solution,
        name="attempt_solution",
    ),
    path("puzzles/attempt/<int:pk>/retry", views_trainer.attempt_retry, name="attempt_retry"),
    path("puzzles/attempt/<int:pk>/vote", views_trainer.attempt_vote, name="attempt_vote"),
    path("puzzles/<variant:variant>/", views_trainer.stream, name="trainer"),
    path("puzzles/<variant:variant>/dashboard/", views_trainer.dashboard, name="dashboard"),
    path("puzzles/<variant:variant>/<int:pk>/", views_trainer.solve, name="solve"),
    path("puzzles/<variant:variant>/<int:pk>/proof/", views.proof, name="proof"),
    path(
        "puzzles/<variant:variant>/<int:pk>/defences/",
        views_mastery.mastery,
        name="mastery",
    ),
    path("puzzles/mastery/<int:pk>/move", views_mastery.mastery_move, name="mastery_move"),
    path("daily/", views.daily_index, name="daily_index"),
    path("daily/<variant:variant>/", views_trainer.daily, name="daily"),
    path("daily/<variant:variant>/archive/", views_trainer.daily_archive, name="daily_archive"),
    path("daily/<variant:variant>/<str:day>/", views_trainer.daily_day, name="daily_day"),
]
