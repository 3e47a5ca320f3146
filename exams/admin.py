from django.contrib import admin

from .models import Certificate, ClassExam, Exam


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
