from django.contrib import admin

from .models import Game


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("pk", "user", "variant", "level", "player_white", "state", "result", "updated")
    list_filter = ("variant", "level", "state", "result", "source")
    search_fields = ("user__username",)
    raw_id_fields = ("user",)
    readonly_fields = ("version", "moves", "last_search", "hint", "asked", "created", "updated")
