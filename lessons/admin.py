from django.contrib import admin

from .models import DrillRun, StepProgress


@admin.register(StepProgress)
class StepProgressAdmin(admin.ModelAdmin):
    list_display = [
        "user",
        "course",
        "step",
        "stars",
        "attempts",
        "hints_used",
        "answer_shown",
        "completed_at",
        "tested_out_at",
    ]
    list_filter = ["course", "stars", "answer_shown"]
    search_fields = ["user__username", "step"]
    raw_id_fields = ["user"]
    readonly_fields = ["updated_at"]


@admin.register(DrillRun)
class DrillRunAdmin(admin.ModelAdmin):
    list_display = ["user", "course", "step", "status", "attempts", "updated_at"]
    list_filter = ["course", "status"]
    search_fields = ["user__username", "step"]
    raw_id_fields = ["user"]
