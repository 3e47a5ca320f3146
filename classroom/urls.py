from django.urls import path

from . import views

app_name = "classroom"
urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("my/", views.my_classes, name="my_classes"),
    path("join/", views.join_with_code, name="join_with_code"),
    path("join/<str:code>/", views.join, name="join"),
    # classes
    path("classes/new/", views.class_create, name="class_create"),
    path("classes/<int:pk>/", views.class_detail, name="class_detail"),
    path("classes/<int:pk>/edit/", views.class_edit, name="class_edit"),
    path("classes/<int:pk>/code/", views.class_new_code, name="class_new_code"),
    path("classes/<int:pk>/teachers/", views.co_teacher_add, name="co_teacher_add"),
    path(
        "classes/<int:pk>/teachers/<int:user_id>/remove/",
        views.co_teacher_remove,
        name="co_teacher_remove",
    ),
    path("classes/<int:pk>/students/new/", views.students_create, name="students_create"),
    path("classes/<int:pk>/students/<int:user_id>/", views.student_detail, name="student_detail"),
    path(
        "classes/<int:pk>/students/<int:user_id>/password/",
        views.student_password,
        name="student_password",
    ),
    path(
        "classes/<int:pk>/students/<int:user_id>/remove/",
        views.student_remove,
        name="student_remove",
    ),
    path("classes/<int:pk>/progress/", views.class_progress, name="progress"),
    path("classes/<int:pk>/progress.csv", views.class_progress_csv, name="progress_csv"),
    path(
        "classes/<int:pk>/assignments/<int:assignment_id>/",
        views.assignment_detail,
        name="assignment",
    ),
    path(
        "classes/<int:pk>/assignments/<int:assignment_id>/remove/",
        views.assignment_remove,
        name="assignment_remove",
    ),
    # puzzle sets
    path("sets/new/", views.set_create, name="set_create"),
    path("sets/<int:pk>/", views.set_detail, name="set_detail"),
    path("sets/<int:pk>/edit/", views.set_edit, name="set_edit"),
    path("sets/<int:pk>/delete/", views.set_delete, name="set_delete"),
    path("sets/<int:pk>/order/", views.set_order, name="set_order"),
    path("sets/<int:pk>/items/<int:item_id>/move/", views.item_move, name="item_move"),
    path("sets/<int:pk>/items/<int:item_id>/remove/", views.item_remove, name="item_remove"),
    path("sets/<int:pk>/corpus/", views.corpus, name="corpus"),
    path("sets/<int:pk>/import/", views.pdn_import, name="import"),
    path("sets/<int:pk>/puzzles/new/", views.puzzle_editor, name="puzzle_new"),
    path("sets/<int:pk>/puzzles/<int:puzzle_id>/", views.puzzle_editor, name="puzzle_edit"),
    path("sets/<int:pk>/editor/board/", views.editor_board, name="editor_board"),
    path("sets/<int:pk>/editor/line/", views.editor_line, name="editor_line"),
    path("sets/<int:pk>/editor/solve/", views.editor_solve, name="editor_solve"),
    path("sets/<int:pk>/assign/", views.set_assign, name="set_assign"),
    path("sets/<int:pk>/worksheet/", views.worksheet, name="worksheet"),
    path("sets/<int:pk>/export.pdn", views.set_pdn, name="set_pdn"),
]
