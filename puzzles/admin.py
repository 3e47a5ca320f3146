from django.contrib import admin, messages
from django.http import HttpResponse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from .models import MiningJob, Puzzle

#: the fields the verification writes (read-only in the admin), in display order
PROOF_FIELDS = [
    "verdict",
    "revision",
    "engine_version",
    "nodes",
    "seconds",
    "depth",
    "verified_at",
    "worker",
    "attempts",
    "error",
    "queued_at",
    "started_at",
    "progress_nodes",
    "progress_depth",
    "progress_updated",
    "created",
    "updated",
]


@admin.register(Puzzle)
class PuzzleAdmin(admin.ModelAdmin):
    list_display = [
        "pk",
        "variant",
        "goal",
        "horizon",
        "title",
        "difficulty",
        "quality",
        "likes",
        "dislikes",
        "verdict",
        "engine_version",
        "verified_at",
        "proof_link",
    ]
    list_filter = ["variant", "verdict", "public", "for_exams", "goal", "engine_version"]
    search_fields = ["fen", "title", "source", "motifs"]
    raw_id_fields = ["author"]
    actions = ["verify_again", "download_pdn"]
    # what the verification writes: shown in the "Proof" section, never edited by hand
    readonly_fields = [*PROOF_FIELDS, "proof_link", "quality", "likes", "dislikes", "for_exams"]
    fieldsets = [
        (None, {"fields": ["variant", "fen", "goal", "horizon", "solution", "limits"]}),
        (
            _("About"),
            {
                "fields": [
                    "title",
                    "description",
                    "source",
                    "author",
                    "public",
                    "for_exams",
                    "motifs",
                    "difficulty",
                    "quality",
                    "likes",
                    "dislikes",
                ]
            },
        ),
        (
            _("Proof"),
            {"fields": ["verdict", "proof_link", *PROOF_FIELDS[1:]]},
        ),
    ]

    @admin.display(description=_("proof"))
    def proof_link(self, obj: Puzzle) -> str:
        if not obj.pk:
            return "-"
        return format_html('<a href="{}">{}</a>', obj.get_absolute_url(), _("proof page"))

    def save_model(self, request, obj, form, change):
        if not change and obj.author_id is None:
            obj.author = request.user
        super().save_model(request, obj, form, change)

    @admin.action(description=_("Prove the selected puzzles again"))
    def verify_again(self, request, queryset):
        count = queryset.enqueue(force=True)
        self.message_user(
            request,
            ngettext(
                "%(count)d puzzle queued for a new proof.",
                "%(count)d puzzles queued for a new proof.",
                count,
            )
            % {"count": count},
            messages.SUCCESS,
        )

    @admin.action(description=_("Download the selected puzzles as PDN"))
    def download_pdn(self, request, queryset):
        text = Puzzle.pdn_of(queryset)
        response = HttpResponse(text, content_type="application/x-pdn; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="puzzles.pdn"'
        return response


# -- the trainer (issue 6) -------------------------------------------------------------------------

from .models import (  # noqa: E402
    Attempt,
    DailyPuzzle,
    Mastery,
    PlayerRating,
    PuzzleRating,
    PuzzleVote,
    RatingHistory,
)


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = ["pk", "user", "puzzle", "source", "set_id", "solved", "failed", "rated"]
    list_filter = ["source", "solved", "failed", "rated", "puzzle__variant"]
    raw_id_fields = ["user", "puzzle"]
    date_hierarchy = "started_at"


@admin.register(Mastery)
class MasteryAdmin(admin.ModelAdmin):
    list_display = ["user", "puzzle", "met_count", "total"]
    raw_id_fields = ["user", "puzzle"]


@admin.register(DailyPuzzle)
class DailyPuzzleAdmin(admin.ModelAdmin):
    list_display = ["date", "variant", "puzzle"]
    list_filter = ["variant"]
    raw_id_fields = ["puzzle"]


@admin.register(PuzzleVote)
class PuzzleVoteAdmin(admin.ModelAdmin):
    list_display = ["puzzle", "user", "liked", "created"]
    list_filter = ["liked", "puzzle__variant"]
    raw_id_fields = ["puzzle", "user"]


@admin.register(PlayerRating)
class PlayerRatingAdmin(admin.ModelAdmin):
    list_display = ["user", "variant", "rating", "deviation", "games"]
    list_filter = ["variant"]
    raw_id_fields = ["user"]


@admin.register(PuzzleRating)
class PuzzleRatingAdmin(admin.ModelAdmin):
    list_display = ["puzzle", "rating", "deviation", "games"]
    raw_id_fields = ["puzzle"]


@admin.register(RatingHistory)
class RatingHistoryAdmin(admin.ModelAdmin):
    list_display = ["user", "variant", "rating", "deviation", "at"]
    list_filter = ["variant"]
    raw_id_fields = ["user", "attempt"]


@admin.register(MiningJob)
class MiningJobAdmin(admin.ModelAdmin):
    """Mining runs are started and followed on the staff's mining page; the admin lists them."""

    list_display = [
        "pk",
        "variant",
        "status",
        "tasks",
        "done_tasks",
        "found",
        "known",
        "created_at",
    ]
    list_filter = ["variant", "status"]
    readonly_fields = [
        "status",
        "done_tasks",
        "games_played",
        "found",
        "known",
        "cpu_seconds",
        "finished_seeds",
        "workers",
        "created_at",
        "updated_at",
    ]
    raw_id_fields = ["created_by"]
