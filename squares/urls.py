from django.urls import path

from . import views

app_name = "squares"
urlpatterns = [
    path("", views.index, name="index"),
    path("run/<int:pk>/", views.run, name="run"),
    path("run/<int:pk>/answer", views.answer, name="answer"),
    path("<variant:variant>/", views.trainer, name="trainer"),
    path("<variant:variant>/start", views.start, name="start"),
]
