from django.urls import path

from . import views

app_name = "live"
urlpatterns = [
    path("start/<int:class_pk>/", views.start, name="start"),
    path("<int:pk>/", views.session_page, name="session"),
    path("<int:pk>/state/", views.state, name="state"),
    path("<int:pk>/results/", views.results, name="results"),
    path("<int:pk>/answer/", views.answer, name="answer"),
    path("<int:pk>/control/", views.control, name="control"),
]
