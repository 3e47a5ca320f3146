from django.urls import path

from . import views

app_name = "review"
urlpatterns = [
    path("", views.index, name="index"),
    path("reminders", views.reminders, name="reminders"),
    path("class/<int:pk>/add-set", views.class_add_set, name="class_add_set"),
    path("<variant:variant>/", views.session, name="session"),
    path("<variant:variant>/skip", views.skip, name="skip"),
]
