"""``{% class_tournaments classroom %}``: the tournaments column of a class's progress page, each
student's place and points in the class's latest tournaments (two queries a tournament).
``{% tournament_of game %}``: the tournament and round a game between players belongs to, linked
(the games' pages of ``versus``, which does not import the tournaments)."""

from __future__ import annotations

from django import template

from ..models import Pairing, Tournament

register = template.Library()

#: the tournaments the progress page shows, newest first
SHOWN = 6


@register.inclusion_tag("tournaments/_class_progress.html")
def class_tournaments(classroom) -> dict:
    tournaments = list(
        Tournament.objects.of_class(classroom).exclude(status=Tournament.DRAFT)[:SHOWN]
    )
    places = []
    for tournament in tournaments:
        rows = tournament.standings()
        places.append({row.player: (row.rank, row.points, len(rows)) for row in rows})
    students = list(classroom.students())
    return {
        "classroom": classroom,
        "tournaments": tournaments,
        "rows": [
            (student, [by_player.get(student.pk) for by_player in places]) for student in students
        ],
    }


@register.inclusion_tag("tournaments/_game_tournament.html")
def tournament_of(game) -> dict:
    """The pairing of ``game`` with its round and tournament (nothing for a game not arranged by
    a tournament)."""
    if not getattr(game, "arranged", False):
        return {"pairing": None}
    found = Pairing.objects.filter(game=game).select_related("round__tournament").first()
    return {"pairing": found}
