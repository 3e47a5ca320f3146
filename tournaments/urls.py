from django.urls import path

from . import views

app_name = "tournaments"
urlpatterns = [
    path("class/<int:class_pk>/", views.class_tournaments, name="list"),
    path("class/<int:class_pk>/new/", views.create, name="create"),
    path("<int:pk>/", views.detail, name="detail"),
    path("<int:pk>/table/", views.table, name="table"),
    path("<int:pk>/next/", views.next_round, name="next"),
    path("<int:pk>/finish/", views.finish, name="finish"),
    path("<int:pk>/games/<int:pairing_id>/", views.result, name="result"),
]
