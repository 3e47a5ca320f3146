from django.contrib import admin

from .models import LiveAnswer, LiveSession, LiveStep


class LiveStepInline(admin.TabularInline):
    model = LiveStep
    extra = 0
    raw_id_fields = ("puzzle",)


@admin.register(LiveSession)
class LiveSessionAdmin(admin.ModelAdmin):
    list_display = ("__str__", "classroom", "teacher", "started", "ended", "question", "version")
    list_filter = ("variant",)
    date_hierarchy = "started"
    raw_id_fields = ("classroom", "teacher", "question_puzzle", "shown")
    inlines = [LiveStepInline]


@admin.register(LiveAnswer)
class LiveAnswerAdmin(admin.ModelAdmin):
    list_display = ("session", "question", "student", "notation", "correct", "created")
    list_filter = ("correct",)
    raw_id_fields = ("session", "student")
