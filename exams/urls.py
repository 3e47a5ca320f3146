from django.urls import path

from . import views

app_name = "exams"
urlpatterns = [
    path("exams/", views.index, name="index"),
    path("exams/sitting/<int:pk>/", views.sitting, name="sitting"),
    path("exams/sitting/<int:pk>/answer", views.answer, name="answer"),
    path("exams/sitting/<int:pk>/skip", views.skip, name="skip"),
    path("exams/sitting/<int:pk>/finish", views.finish, name="finish"),
    path("exams/sitting/<int:pk>/endgame", views.endgame, name="endgame"),
    path("exams/certificate/<str:code>.pdf", views.certificate_pdf, name="certificate_pdf"),
    path("exams/class/<int:classroom>/", views.class_exams, name="class_exams"),
    path("exams/class-exam/<int:pk>/", views.class_exam, name="class_exam"),
    path("exams/class-exam/<int:pk>/start", views.class_exam_start, name="class_exam_start"),
    path(
        "exams/class-exam/<int:pk>/certificates/",
        views.class_certificates,
        name="class_certificates",
    ),
    path(
        "exams/class-exam/<int:pk>/certificates/<uuid:job_id>/",
        views.class_certificates_job,
        name="class_certificates_job",
    ),
    path(
        "exams/class-exam/<int:pk>/certificates/<uuid:job_id>.pdf",
        views.class_certificates_pdf,
        name="class_certificates_pdf",
    ),
    path("certificates/<str:code>/", views.verify, name="verify"),
    # last: a variant's name is any word
    path("exams/<variant:variant>/", views.ladder, name="ladder"),
    path("exams/<variant:variant>/<int:number>/start", views.start, name="start"),
]
