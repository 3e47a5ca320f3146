from django.urls import path

from . import views, views_simul

app_name = "versus"

urlpatterns = [
    path("", views.index, name="index"),
    path("new/", views.new, name="new"),
    path("class/<int:class_pk>/", views.classmates, name="classmates"),
    path("simul/new/", views_simul.simul_new, name="simul_new"),
    path("simul/<int:pk>/", views_simul.simul, name="simul"),
    path("simul/<int:pk>/state", views_simul.simul_state, name="simul_state"),
    path("simul/<int:pk>/next", views_simul.simul_next, name="simul_next"),
    path("simul/<int:pk>/join", views_simul.simul_join, name="simul_join"),
    path("simul/<int:pk>/start", views_simul.simul_start, name="simul_start"),
    path("simul/<int:pk>/cancel", views_simul.simul_cancel, name="simul_cancel"),
    path("g/<str:token>/", views.game, name="game"),
    path("g/<str:token>/state", views.state, name="state"),
    path("g/<str:token>/pdn", views.pdn, name="pdn"),
    *[path(f"g/<str:token>/{name}", view, name=name) for name, view in views.ACTIONS.items()],
]
