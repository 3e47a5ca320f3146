from django.contrib import admin

from .models import GameAnalysis, GameUpload, Moment


class MomentInline(admin.TabularInline):
    model = Moment
    extra = 0
    fields = ["ply", "side", "kind", "played", "goal", "verdict", "puzzle"]
    readonly_fields = fields
    can_delete = False


@admin.register(GameAnalysis)
class GameAnalysisAdmin(admin.ModelAdmin):
    list_display = ["pk", "source", "variant", "white_name", "black_name", "user", "state",
                    "progress", "engine_version", "asked"]  # fmt: skip
    list_filter = ["source", "state", "variant"]
    raw_id_fields = ["game", "versus_game", "upload", "user", "white_user", "black_user"]
    readonly_fields = ["evaluations", "marks"]
    inlines = [MomentInline]


@admin.register(GameUpload)
class GameUploadAdmin(admin.ModelAdmin):
    list_display = ["pk", "name", "user", "variant", "games", "created"]
    raw_id_fields = ["user"]
