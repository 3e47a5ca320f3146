from django.contrib import admin

from .models import Card, ReminderSetting


@admin.register(Card)
class CardAdmin(admin.ModelAdmin):
    list_display = ("user", "kind", "puzzle", "step", "variant", "origin", "due", "reps", "lapses")
    list_filter = ("kind", "variant", "origin")
    raw_id_fields = ("user", "puzzle")
    list_select_related = ("user", "puzzle")
    search_fields = ("user__username", "step")


@admin.register(ReminderSetting)
class ReminderSettingAdmin(admin.ModelAdmin):
    list_display = ("user", "daily_email", "last_sent")
    raw_id_fields = ("user",)
