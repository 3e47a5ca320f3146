from django.contrib import admin

from .models import Simul, VersusGame, VersusRating


@admin.register(VersusGame)
class VersusGameAdmin(admin.ModelAdmin):
    list_display = ("pk", "variant", "white", "black", "state", "rated", "result", "updated")
    list_filter = ("variant", "state", "rated", "result")
    search_fields = ("white__username", "black__username", "challenger__username")
    raw_id_fields = ("challenger", "invited", "white", "black", "classroom", "simul")
    readonly_fields = ("token", "version", "moves", "rating_change", "created", "updated")


@admin.register(VersusRating)
class VersusRatingAdmin(admin.ModelAdmin):
    list_display = ("user", "variant", "speed", "rating", "deviation", "games")
    list_filter = ("variant", "speed")
    raw_id_fields = ("user",)


@admin.register(Simul)
class SimulAdmin(admin.ModelAdmin):
    list_display = ("pk", "classroom", "host", "variant", "host_colour", "state", "created")
    list_filter = ("variant", "state")
    search_fields = ("host__username", "classroom__name")
    raw_id_fields = ("classroom", "host", "players")
    readonly_fields = ("version", "created", "started", "finished")
