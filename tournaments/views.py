"""The tournament pages: a class's tournaments, a new one, a tournament's pairings round by round
with its standings, the printable cross-table, and the teacher's actions (the next round, a
result, the end).

Who may do what: the class's teachers create tournaments and act in them; its students see them;
anyone else gets a 404 (they may not learn that the tournament exists), a student asking for a
teacher's action a 403.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from classroom.views.access import class_for
from core.numbers import MAX_ID

from .forms import ResultForm, TournamentForm, player_name
from .models import ARENA, ROUND_ROBIN, Pairing, Tournament
from .standings import TIE_BREAKS


def _tournament_for(request: HttpRequest, pk: int, *, teacher: bool = False) -> Tournament:
    tournament = get_object_or_404(Tournament.objects.select_related("classroom"), pk=pk)
    role = tournament.role_of(request.user)
    if not role:
        raise Http404(_("No such tournament."))
    if teacher and role != "teacher":
        raise PermissionDenied("the class's teachers only")
    return tournament


@login_required
@require_GET
def class_tournaments(request: HttpRequest, class_pk: int) -> HttpResponse:
    classroom = class_for(request, class_pk, students=True)
    return render(
        request,
        "tournaments/list.html",
        {
            "classroom": classroom,
            "tournaments": Tournament.objects.of_class(classroom),
            "is_teacher": classroom.is_teacher(request.user),
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def create(request: HttpRequest, class_pk: int) -> HttpResponse:
    """A teacher of the class creates a tournament and starts it: round 1 is paired."""
    classroom = class_for(request, class_pk)
    form = TournamentForm(request.POST if request.method == "POST" else None, classroom=classroom)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            tournament = Tournament.create(
                classroom,
                request.user,
                name=data["name"],
                kind=data["kind"],
                players=data["players"],
                rounds=data["rounds"],
                minutes=data["minutes"],
                increment=data["increment"],
                length=data["length"],
                bye_points=data["bye_points"],
                rated=data["rated"],
            )
            tournament.start()
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            return redirect(tournament)
    return render(
        request,
        "tournaments/create.html",
        {"classroom": classroom, "form": form},
        status=400 if form.errors else 200,
    )


def _rounds(tournament: Tournament) -> list[tuple[int, list[Pairing]]]:
    pairings = Pairing.objects.filter(round__tournament=tournament).select_related(
        "round", "white", "black", "game"
    )
    rounds: dict[int, list[Pairing]] = {}
    for p in pairings:
        p.white_name = player_name(p.white)  # type: ignore[attr-defined]
        p.black_name = player_name(p.black) if p.black else ""  # type: ignore[attr-defined]
        rounds.setdefault(p.round.number, []).append(p)
    return sorted(rounds.items(), reverse=True)


def _table_context(tournament: Tournament) -> dict:
    table = tournament.cross_table()
    names = {
        e.player_id: player_name(e.player) for e in tournament.entries.select_related("player")
    }
    rows = []
    for index, row in enumerate(table.rows):
        rows.append(
            {
                "row": row,
                "place": index + 1,
                "name": names.get(row.player, "?"),
                "cells": table.cells[index],
                "rounds": table.round_cells(index),
                "tie_breaks": list(row.tie_breaks.values()),
            }
        )
    return {
        "tournament": tournament,
        "classroom": tournament.classroom,
        "rows": rows,
        "tie_break_names": [TIE_BREAK_TITLES[name] for name in TIE_BREAKS[tournament.kind]],
        "square": tournament.kind == ROUND_ROBIN,
        "round_numbers": range(1, table.rounds + 1),
    }


TIE_BREAK_TITLES = {
    "truncated_solkoff": gettext_lazy("Truncated Solkoff"),
    "solkoff": gettext_lazy("Solkoff"),
    "sonneborn_berger": gettext_lazy("Sonneborn-Berger"),
    "wins": gettext_lazy("Wins"),
    "head_to_head": gettext_lazy("Between the tied"),
    "fewer_games": gettext_lazy("Fewer games"),
}


@login_required
@require_GET
def detail(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _tournament_for(request, pk)
    tournament.collect_results()
    context = _table_context(tournament)
    context.update(
        {
            "is_teacher": tournament.role_of(request.user) == "teacher",
            "rounds": _rounds(tournament),
            "can_pair_next": tournament.can_pair_next(),
            "result_form": ResultForm(),
            "is_arena": tournament.kind == ARENA,
            "my_games": tournament.games_in_play(request.user),
        }
    )
    return render(request, "tournaments/detail.html", context)


@login_required
@require_GET
def table(request: HttpRequest, pk: int) -> HttpResponse:
    """The cross-table and standings, for printing."""
    tournament = _tournament_for(request, pk)
    return render(request, "tournaments/table.html", _table_context(tournament))


def _act(request: HttpRequest, tournament: Tournament, action) -> HttpResponse:
    try:
        action()
    except ValidationError as exc:
        return render(
            request,
            "tournaments/refused.html",
            {"tournament": tournament, "classroom": tournament.classroom, "errors": exc.messages},
            status=400,
        )
    return redirect(tournament)


@login_required
@require_POST
def next_round(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _tournament_for(request, pk, teacher=True)
    return _act(request, tournament, tournament.pair_next_round)


@login_required
@require_POST
def finish(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _tournament_for(request, pk, teacher=True)
    return _act(request, tournament, tournament.finish)


@login_required
@require_POST
def result(request: HttpRequest, pk: int, pairing_id: int) -> HttpResponse:
    tournament = _tournament_for(request, pk, teacher=True)
    if pairing_id > MAX_ID:
        raise Http404(_("No such game."))
    pairing_row = get_object_or_404(Pairing, pk=pairing_id, round__tournament=tournament)
    form = ResultForm(request.POST)
    if not form.is_valid():
        return render(
            request,
            "tournaments/refused.html",
            {
                "tournament": tournament,
                "classroom": tournament.classroom,
                "errors": [_("Choose a result.")],
            },
            status=400,
        )
    return _act(
        request, tournament, lambda: tournament.record(pairing_row, form.cleaned_data["result"])
    )
