from django.urls import path

from . import views, views_report, views_teach

app_name = "analysis"

urlpatterns = [
    path("", views.analyses, name="list"),
    path("states/", views.states, name="states"),
    path("upload/", views.upload_new, name="upload_new"),
    path("upload/<int:pk>/", views.upload, name="upload"),
    path("<int:pk>/", views_report.report, name="report"),
    path("<int:pk>/progress/", views_report.progress, name="report_progress"),
    path("<int:pk>/line/", views_report.line, name="line"),
    path("<int:pk>/line/<uuid:job_id>/", views_report.line_job, name="line_job"),
]

# a class's teachers: their students' personal puzzles (views_teach)
urlpatterns += [
    path("class/<int:pk>/", views_teach.class_puzzles, name="class_puzzles"),
    path("class/<int:pk>/add/", views_teach.class_add_puzzle, name="class_add_puzzle"),
]
