from django.urls import path

from .views import assignments, classes, corpus, editor, home, join, pdn, progress, sets, students

app_name = "classroom"
urlpatterns = [
    path("", home.dashboard, name="dashboard"),
    path("my/", home.my_classes, name="my_classes"),
    path("join/", join.join_with_code, name="join_with_code"),
    path("join/<str:code>/", join.join, name="join"),
    # classes
    path("classes/", classes.class_list, name="class_list"),
    path("classes/new/", classes.class_create, name="class_create"),
    path("classes/<int:pk>/", classes.class_detail, name="class_detail"),
    path("classes/<int:pk>/edit/", classes.class_edit, name="class_edit"),
    path("classes/<int:pk>/code/", classes.class_new_code, name="class_new_code"),
    path("classes/<int:pk>/teachers/", classes.co_teacher_add, name="co_teacher_add"),
    path(
        "classes/<int:pk>/teachers/<int:user_id>/remove/",
        classes.co_teacher_remove,
        name="co_teacher_remove",
    ),
    path("classes/<int:pk>/students/new/", students.students_create, name="students_create"),
    path(
        "classes/<int:pk>/students/new/<uuid:job_id>/",
        students.students_job,
        name="students_job",
    ),
    path(
        "classes/<int:pk>/students/<int:user_id>/", students.student_detail, name="student_detail"
    ),
    path(
        "classes/<int:pk>/students/<int:user_id>/password/",
        students.student_password,
        name="student_password",
    ),
    path(
        "classes/<int:pk>/students/<int:user_id>/remove/",
        students.student_remove,
        name="student_remove",
    ),
    path("classes/<int:pk>/progress/", progress.class_progress, name="progress"),
    path("classes/<int:pk>/progress.csv", progress.class_progress_csv, name="progress_csv"),
    path(
        "classes/<int:pk>/assignments/<int:assignment_id>/",
        assignments.assignment_detail,
        name="assignment",
    ),
    path(
        "classes/<int:pk>/assignments/<int:assignment_id>/remove/",
        assignments.assignment_remove,
        name="assignment_remove",
    ),
    # puzzle sets
    path("sets/", sets.set_list, name="set_list"),
    path("sets/new/", sets.set_create, name="set_create"),
    path("sets/<int:pk>/", sets.set_detail, name="set_detail"),
    path("sets/<int:pk>/edit/", sets.set_edit, name="set_edit"),
    path("sets/<int:pk>/delete/", sets.set_delete, name="set_delete"),
    path("sets/<int:pk>/order/", sets.set_order, name="set_order"),
    path("sets/<int:pk>/items/<int:item_id>/move/", sets.item_move, name="item_move"),
    path("sets/<int:pk>/items/<int:item_id>/remove/", sets.item_remove, name="item_remove"),
    path("sets/<int:pk>/corpus/", corpus.corpus, name="corpus"),
    path("sets/<int:pk>/import/", pdn.pdn_import, name="import"),
    path("sets/<int:pk>/puzzles/new/", editor.puzzle_editor, name="puzzle_new"),
    path("sets/<int:pk>/puzzles/<int:puzzle_id>/", editor.puzzle_editor, name="puzzle_edit"),
    path("sets/<int:pk>/editor/board/", editor.editor_board, name="editor_board"),
    path("sets/<int:pk>/editor/line/", editor.editor_line, name="editor_line"),
    path("sets/<int:pk>/editor/solve/", editor.editor_solve, name="editor_solve"),
    path(
        "sets/<int:pk>/editor/solve/<uuid:job_id>/",
        editor.editor_solve_job,
        name="editor_solve_job",
    ),
    path("sets/<int:pk>/assign/", assignments.set_assign, name="set_assign"),
    path("sets/<int:pk>/worksheet/", sets.worksheet, name="worksheet"),
    path("sets/<int:pk>/export.pdn", pdn.set_pdn, name="set_pdn"),
]
