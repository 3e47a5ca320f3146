from django.urls import path

from . import views

app_name = "play"

urlpatterns = [
    path("", views.games, name="games"),
    path("<variant:variant>/", views.new, name="new"),
    path("game/<int:pk>/", views.game, name="game"),
    path("game/<int:pk>/wait", views.wait, name="wait"),
    path("game/<int:pk>/move", views.move, name="move"),
    path("game/<int:pk>/takeback", views.takeback, name="takeback"),
    path("game/<int:pk>/resign", views.resign, name="resign"),
    path("game/<int:pk>/hint", views.hint, name="hint"),
    path("game/<int:pk>/replay/", views.replay, name="replay"),
    path("game/<int:pk>/pdn", views.pdn, name="pdn"),
    path("class/<int:class_pk>/", views.class_games, name="class_games"),
]
