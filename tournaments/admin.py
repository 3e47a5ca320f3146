from django.contrib import admin

from .models import Entry, Pairing, Round, Tournament


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    raw_id_fields = ["player"]


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ["name", "classroom", "kind", "rounds", "status", "created"]
    list_filter = ["kind", "status"]
    raw_id_fields = ["classroom", "created_by"]
    inlines = [EntryInline]


@admin.register(Pairing)
class PairingAdmin(admin.ModelAdmin):
    list_display = ["round", "board", "white", "black", "result", "game_id"]
    raw_id_fields = ["round", "white", "black"]


admin.site.register(Round)
