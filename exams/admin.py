from django.contrib import admin

from .models import Certificate, ClassExam, Exam, ReservedPuzzle


@admin.register(Exam)
class ExamAdmin(admin.ModelAdmin):
    list_display = ("user", "variant", "level", "kind", "started_at", "score", "passed")
    list_filter = ("variant", "level", "kind", "passed")
    raw_id_fields = ("user", "class_exam")


@admin.register(Certificate)
class CertificateAdmin(admin.ModelAdmin):
    list_display = ("code", "name", "variant", "level", "issued_on")
    search_fields = ("code", "name")
    raw_id_fields = ("user", "exam")


@admin.register(ClassExam)
class ClassExamAdmin(admin.ModelAdmin):
    list_display = ("classroom", "variant", "level", "starts_at")
    raw_id_fields = ("classroom", "created_by")


@admin.register(ReservedPuzzle)
class ReservedPuzzleAdmin(admin.ModelAdmin):
    list_display = ("puzzle", "variant", "reserved_at")
    list_filter = ("variant",)
    raw_id_fields = ("puzzle",)
