"""The puzzle trainer's pages: the stream, a puzzle being solved, the daily puzzle and its archive,
the dashboard.

A puzzle page is one screen; the region that changes as the player moves is the ``trainer``
partial (django-template-partials). Every action is a POST to the attempt (``move``, ``hint``,
``solution``, ``retry``): htmx gets the partial, a plain form post is redirected back to the page.
"""

from __future__ import annotations

from datetime import date
from functools import lru_cache, wraps

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from core.variants import current_variant, get_variant, remember_variant

from . import daily as daily_mod
from . import engine
from .dashboard import dashboard as dashboard_data
from .models import Attempt, PlayerRating
from .player import Player
from .stream import (
    GOAL_FILTERS,
    can_solve,
    kept_filters,
    motif_choices,
    next_puzzle,
    owned_attempt,
    playable,
    set_for_attempt,
)
from .trainer import Conflict, Outcome, Result, goal_kind, goal_text

ACTIONS = ("move", "hint", "solution", "retry")
#: a solved puzzle offers "Meet every defence" when its proof holds this many defences or more
MASTERY_FROM = 2


def _int(value: str | None) -> int | None:
    return int(value) if value and value.isdecimal() and len(value) < 10 else None


def _then(request: HttpRequest) -> str:
    """Where ``?then=`` asks the page to go after the puzzle (instead of the stream's next
    puzzle): a path of this site only, e.g. the review session (``review``); else empty."""
    then = request.GET.get("then", "")
    if len(then) > 200 or not then.startswith("/") or then.startswith("//"):
        return ""
    return then if url_has_allowed_host_and_scheme(then, allowed_hosts=None) else ""


def _remember(request: HttpRequest, variant: str) -> None:
    if request.session.get("dama_variant") != variant:
        remember_variant(request, variant)


@never_cache
@require_GET
def stream(request: HttpRequest, variant: str) -> HttpResponse:
    """The puzzle stream: on to the next puzzle near the player's rating (``?goal=``, ``?motif=``
    filter it; ``?set=`` is kept for the puzzle page)."""
    info = get_variant(variant)
    _remember(request, variant)
    goal = request.GET.get("goal", "")
    motif = request.GET.get("motif", "")[:40]
    after = _int(request.GET.get("after"))
    exclude = (*daily_mod.todays_ids(), *((after,) if after else ()))
    puzzle = next_puzzle(Player.of(request), variant, goal=goal, motif=motif, exclude=exclude)
    if puzzle is None:
        return render(
            request,
            "puzzles/trainer_empty.html",
            {
                "variant": info,
                "goal": goal,
                "motif": motif,
                "filters": _filters(variant, goal, motif),
                "diagram": engine.diagram(variant),
            },
        )
    if daily_mod.is_todays(puzzle):
        # nothing else left to serve: today's daily puzzle is played only as the daily puzzle
        return redirect("puzzles:daily", variant=variant)
    query = {k: v for k, v in (("goal", goal), ("motif", motif)) if v}
    if _int(request.GET.get("set")):
        query["set"] = request.GET["set"]
    url = reverse("puzzles:solve", args=[variant, puzzle.pk])
    return redirect(url + ("?" + urlencode(query) if query else ""))


def motif_label(name: str) -> str:
    labels = {
        "blockade": _("blockade"),
        "breakthrough": _("breakthrough"),
        "capture": _("multi-jump"),
        "crowning": _("crowning"),
        "king_priority": _("king first"),
        "king_shot": _("king shot"),
        "majority": _("majority rule"),
        "no_crown_in_passing": _("no crowning in passing"),
        "sacrifice": _("sacrifice"),
        "shot": _("shot"),
        "turkish_strike": _("Turkish strike"),
        # the named shots of dama.shots (issue 17)
        "coup_royal": _("coup royal"),
        "coup_napoleon": _("coup Napoléon"),
        "coup_raphael": _("coup Raphaël"),
        "coup_philippe": _("coup Philippe"),
        "coup_de_la_bombe": _("bomb shot"),
        "coup_de_repos": _("free move (temps de repos)"),
        "coup_turc": _("coup turc"),
        "coup_suisse": _("coup suisse"),
        "double_deux": _("double-deux"),
        "coup_de_dame": _("giving a king"),
        "lock": _("lock"),
    }
    return labels.get(name, name.replace("_", " "))


def _filters(variant: str, goal: str, motif: str) -> SafeString:
    """The stream's filter control (HTML): links (real addresses of the stream) for each goal
    and each motif found in the site's pool of the variant, the current ones marked. The same
    for every player: rendered once and kept with the pool's rows (``stream.kept_filters``)."""
    key = (variant, goal, motif, get_language() or "")
    return kept_filters(
        key,
        lambda: mark_safe(  # the template's own (escaped) output
            render_to_string(
                "puzzles/_filters.html", {"filters": _make_filters(variant, goal, motif)}
            )
        ),
    )


def _make_filters(variant: str, goal: str, motif: str) -> dict:
    base = reverse("puzzles:trainer", args=[variant])
    goal = goal if goal in GOAL_FILTERS else ""

    def href(g: str, m: str) -> str:
        query = {k: v for k, v in (("goal", g), ("motif", m)) if v}
        return base + ("?" + urlencode(query) if query else "")

    goals = [
        ("", _("any")),
        ("capture", _("capture")),
        ("gain", _("gain material")),
        ("win", _("win the game")),
    ]
    motifs = motif_choices(variant)
    if motif and motif not in motifs:
        motifs.append(motif)
    return {
        "goals": [
            {"value": g, "label": label, "href": href(g, motif), "current": g == goal}
            for g, label in goals
        ],
        "motifs": [{"value": "", "label": _("any"), "href": href(goal, ""), "current": not motif}]
        + [
            {"value": m, "label": motif_label(m), "href": href(goal, m), "current": m == motif}
            for m in motifs
        ],
        "active": bool(goal or motif),
    }


def _puzzle(variant: str, pk: int):
    get_variant(variant)
    puzzle = playable(variant, pk)
    if puzzle is None:
        raise Http404(_("No such puzzle."))
    return puzzle


def _context(
    request: HttpRequest,
    attempt: Attempt,
    *,
    result: Result | None = None,
    extra: dict | None = None,
) -> dict:
    puzzle = attempt.puzzle
    variant = puzzle.variant
    player = Player.of(request)
    line = list(attempt.line)
    marks: dict[int, str] = {}
    path: tuple[int, ...] = ()
    animate = False
    refutation_board = None
    if result is not None:
        if result.kind == Outcome.CONTINUE:
            path = result.path
        if result.kind == Outcome.ILLEGAL:
            # the squares by what they are: the wrong landing, the required one, the jumped pieces
            marks = engine.illegal_marks(variant, puzzle.fen, line, result.played) or {
                sq: "wrong" for sq in result.squares
            }
        if result.kind in (Outcome.RIGHT, Outcome.SOLVED) and result.reply:
            animate = True
        if result.hint_square:
            marks[result.hint_square] = "hint"
        if result.kind == Outcome.WRONG and result.refutation.get("wrong"):
            refutation_board = engine.trainer_board(
                variant,
                puzzle.fen,
                [*line, result.refutation["wrong"]],
                arrows=[result.refutation["reply"]] if result.refutation.get("reply") else [],
            )
    board = engine.trainer_board(
        variant, puzzle.fen, line, path=path, marks=marks, animate=animate, goal=puzzle.goal
    )
    finished = attempt.is_finished
    frames, texts = (
        _replay(variant, puzzle.fen, tuple(attempt.solution()), get_language() or "")
        if finished
        else ((), ())
    )
    filters = {k: request.GET.get(k, "") for k in ("goal", "motif")}
    next_query = {k: v for k, v in filters.items() if v}
    next_query["after"] = str(puzzle.pk)
    if attempt.set_id:
        next_query["set"] = str(attempt.set_id)
    partial = _partial(request)
    rating_changed = result is not None and result.rating_change is not None
    stream_filters = None
    if attempt.source in (Attempt.Source.STREAM, Attempt.Source.REPLAY) and not partial:
        stream_filters = _filters(variant, filters["goal"], filters["motif"][:40])
    context = {
        "filters": stream_filters,
        "variant": get_variant(variant),
        "puzzle": puzzle,
        "attempt": attempt,
        "board": board,
        "result": result,
        "goal_text": goal_text(puzzle.white_to_move, puzzle.goal, puzzle.horizon, puzzle.motifs),
        "goal_kind": goal_kind(puzzle.goal),
        "finished": finished,
        "refutation_board": refutation_board,
        # the solution reaches the page only once the attempt is finished
        "frames": frames,
        "solution_text": puzzle.numbered(texts) if finished else "",
        # the rating line is outside the partial: read it for a whole page, or when it changed
        "meta_oob": partial and rating_changed,
        "rating": (
            PlayerRating.objects.rating_of(player, variant)
            if not partial or rating_changed
            else None
        ),
        "next_url": reverse("puzzles:trainer", args=[variant]) + "?" + urlencode(next_query),
        "action_urls": _action_urls(attempt.pk),
        "daily": None,
    }
    if finished and attempt.solved and attempt.source != Attempt.Source.DAILY:
        # every defence of the winning line, to meet one after another (``Mastery``)
        total = len(puzzle.judge().defences)
        if total >= MASTERY_FROM:
            context["mastery_url"] = reverse("puzzles:mastery", args=[variant, puzzle.pk])
            context["mastery_total"] = total
    if finished and player.is_account:  # an account says whether it liked the puzzle
        context["vote_url"] = reverse("puzzles:attempt_vote", args=[attempt.pk])
        context["vote"] = puzzle.vote_of(request.user)
    then = _then(request)
    if then:  # sent here by another page (the review session): back there, actions keep it
        suffix = "?" + urlencode({"then": then})
        context["next_url"] = then
        context["next_label"] = _("Continue")  # back to the page that sent the player here
        context["action_urls"] = {k: v + suffix for k, v in context["action_urls"].items()}
    if attempt.source == Attempt.Source.DAILY and attempt.daily_date:
        context["daily"] = {
            "date": attempt.daily_date,
            "streak": daily_mod.streak(player, variant),
            "is_today": attempt.daily_date == daily_mod.today(),
        }
        context["next_url"] = reverse("puzzles:trainer", args=[variant])
    if extra:
        context.update(extra)
    return context


@lru_cache(maxsize=512)
def _replay(
    variant: str, fen: str, solution: tuple[str, ...], language: str
) -> tuple[tuple[dict, ...], tuple[str, ...]]:
    """The solution's frames (a board after each move) and moves in notation: the same for
    every player who finishes the puzzle, so drawn once per process and language."""
    frames = engine.replay_frames(variant, fen, solution)
    return tuple(frames), tuple(engine.line_texts(variant, fen, solution))


def _action_urls(pk: int) -> dict[str, str]:
    """The addresses of the attempt's actions (one ``reverse``: they differ in the last part)."""
    move = reverse("puzzles:attempt_move", args=[pk])
    base = move[: -len("move")]
    return {action: base + action for action in ACTIONS}


def _partial(request: HttpRequest) -> bool:
    """An htmx request for the trainer region (a boosted link, as the stream's filters are,
    wants the whole page)."""
    return bool(request.htmx) and not request.htmx.boosted


def _render(request: HttpRequest, context: dict, status: int = 200) -> HttpResponse:
    template = "puzzles/trainer.html#trainer" if _partial(request) else "puzzles/trainer.html"
    return render(request, template, context, status=status)


@never_cache
@require_GET
def solve(request: HttpRequest, variant: str, pk: int) -> HttpResponse:
    """A puzzle to solve: the board, the side to move and the goal; the attempt is resumed.

    A teacher's puzzle is there only for its author and for the teachers and students of a class
    it is assigned to (404 for anyone else); ``?set=`` is logged on the attempt only when that
    set holds the puzzle and is assigned to a class of the player's (otherwise it is ignored).
    Today's daily puzzle is played only as the daily puzzle (this address leads there). The page
    shows its variant, but opening a puzzle by its address does not make it the player's variant
    (the stream and the daily page, which they choose, do), so the page writes no session (only
    a visitor's first attempt does: ``Player.visitor_token``).
    """
    puzzle = _puzzle(variant, pk)
    if not can_solve(request.user, puzzle):
        raise Http404(_("No such puzzle."))
    if daily_mod.is_todays(puzzle):
        return redirect("puzzles:daily", variant=variant)
    set_id = set_for_attempt(request.user, puzzle, _int(request.GET.get("set")))
    attempt = Attempt.open(
        Player.of(request), puzzle, set_id=set_id, replay=bool(request.GET.get("replay"))
    )
    return _render(request, _context(request, attempt))


def _owned_or_404(request: HttpRequest, pk: int) -> Attempt:
    attempt = owned_attempt(Player.of(request), pk)
    # a run's attempt is played on the run's page only (a hint or the solution here would be
    # a way round the run's rules)
    if attempt is None or attempt.source == Attempt.Source.RUN:
        raise Http404(_("No such attempt."))
    return attempt


def _back(attempt: Attempt, then: str = "") -> HttpResponse:
    if attempt.source == Attempt.Source.DAILY and attempt.daily_date:
        if attempt.daily_date == daily_mod.today():
            return redirect("puzzles:daily", variant=attempt.puzzle.variant)
        return redirect(
            "puzzles:daily_day", variant=attempt.puzzle.variant, day=attempt.daily_date.isoformat()
        )
    url = reverse("puzzles:solve", args=[attempt.puzzle.variant, attempt.puzzle_id])
    query = {k: v for k, v in (("set", attempt.set_id), ("then", then)) if v}
    if query:
        url += "?" + urlencode(query)
    return redirect(url)


def _conflict(request: HttpRequest, pk: int) -> HttpResponse:
    """The attempt changed while this request judged it (another tab, a double submit): nothing
    of this request was saved; show the attempt as it now stands (409)."""
    attempt = _owned_or_404(request, pk)
    if not request.htmx:
        return _back(attempt, _then(request))
    result = Result(
        Outcome.CONFLICT,
        _("This puzzle changed in another window or tab. Here is where it stands now."),
    )
    return _render(request, _context(request, attempt, result=result), status=result.status)


def _action(act):
    """A POST to an attempt: the player's own attempt (404 otherwise) is given to ``act``, which
    changes it by one model method and returns the :class:`Result` (or the attempt to show
    next, for a retry); the answer is the trainer region (htmx) or the page. A
    :class:`Conflict` (the attempt changed meanwhile) is answered with the attempt as it
    stands."""

    @never_cache
    @require_POST
    @wraps(act)
    def view(request: HttpRequest, pk: int) -> HttpResponse:
        attempt = _owned_or_404(request, pk)
        try:
            result = act(request, attempt, Player.of(request))
        except Conflict:
            return _conflict(request, pk)
        if isinstance(result, Attempt):  # a retry: maybe a new attempt
            attempt = result
            if not request.htmx:
                return _back(attempt, _then(request))
            result = Result(Outcome.RETRY, _("Back to the start position. Try again."))
        status = result.status
        if not request.htmx and result.kind not in (Outcome.BAD, Outcome.ILLEGAL, Outcome.FINISHED):
            status = 200  # a plain form post (no JavaScript): the answer on the page itself
        return _render(request, _context(request, attempt, result=result), status=status)

    return view


@_action
def attempt_move(request: HttpRequest, attempt: Attempt, player: Player) -> Result:
    return attempt.play(
        player, route=request.POST.get("route", "").strip(), text=request.POST.get("move", "")
    )


@_action
def attempt_hint(request: HttpRequest, attempt: Attempt, player: Player) -> Result:
    return Result(Outcome.HINT, hint_square=attempt.hint())


@_action
def attempt_solution(request: HttpRequest, attempt: Attempt, player: Player) -> Result:
    return Result(Outcome.SHOWN, _("The solution:"), rating_change=attempt.give_up(player))


@_action
def attempt_retry(request: HttpRequest, attempt: Attempt, player: Player) -> Attempt:
    return attempt.retry(player)


@never_cache
@require_POST
def attempt_vote(request: HttpRequest, pk: int) -> HttpResponse:
    """An account liked (``liked=1``) or did not like (``liked=0``) the puzzle of its finished
    attempt: the vote form again (htmx), or back to the puzzle."""
    player = Player.of(request)
    if not player.is_account:
        return HttpResponse(_("Log in to vote on puzzles."), status=403)
    attempt = _owned_or_404(request, pk)
    liked = request.POST.get("liked", "")
    if liked not in ("0", "1"):
        return HttpResponse(_("Say 1 (liked) or 0 (not liked)."), status=400)
    if not attempt.is_finished:
        return HttpResponse(_("Finish the puzzle before you vote on it."), status=400)
    attempt.puzzle.vote(request.user, liked == "1")
    if not request.htmx:
        return _back(attempt, _then(request))
    context = {
        "vote_url": reverse("puzzles:attempt_vote", args=[pk]),
        "vote": liked == "1",
        "voted": True,
    }
    return render(request, "puzzles/trainer.html#vote", context)


# -- the daily puzzle ------------------------------------------------------------------------------


def _daily(request: HttpRequest, variant: str, day: date) -> HttpResponse:
    info = get_variant(variant)
    player = Player.of(request)
    row = daily_mod.daily_puzzle(variant, day)
    if row is None:
        return render(
            request,
            "puzzles/daily.html",
            {"variant": info, "streak": daily_mod.streak(player, variant)},
        )
    attempt = Attempt.start(player, row.puzzle, source=Attempt.Source.DAILY, daily_date=day)
    return _render(request, _context(request, attempt))


@never_cache
@require_GET
def daily(request: HttpRequest, variant: str) -> HttpResponse:
    """Today's puzzle: the same for everyone, with the player's streak."""
    get_variant(variant)
    _remember(request, variant)
    return _daily(request, variant, daily_mod.today())


@never_cache
@require_GET
def daily_day(request: HttpRequest, variant: str, day: str) -> HttpResponse:
    """A past daily puzzle from the archive (solving it does not count for the streak)."""
    get_variant(variant)
    try:
        when = date.fromisoformat(day)
    except ValueError:
        raise Http404(_("No such date.")) from None
    if when > daily_mod.today():
        raise Http404(_("That daily puzzle is not out yet."))
    if when == daily_mod.today():
        return redirect("puzzles:daily", variant=variant)
    if not daily_mod.archive(variant).filter(date=when).exists():
        raise Http404(_("There was no daily puzzle that day."))
    return _daily(request, variant, when)


@require_GET
def daily_archive(request: HttpRequest, variant: str) -> HttpResponse:
    info = get_variant(variant)
    player = Player.of(request)
    rows = list(daily_mod.archive(variant)[:400])
    solved = daily_mod.solved_days(player, variant)
    tried = set(
        Attempt.objects.of(player)
        .filter(source=Attempt.Source.DAILY, puzzle__variant=variant, solved=True)
        .values_list("daily_date", flat=True)
    )
    entries = [
        {
            "row": r,
            "on_time": r.date in solved,
            "solved": r.date in tried,
            "goal": goal_text(
                r.puzzle.white_to_move, r.puzzle.goal, r.puzzle.horizon, r.puzzle.motifs
            ),
        }
        for r in rows
    ]
    return render(
        request,
        "puzzles/daily_archive.html",
        {"variant": info, "entries": entries, "streak": daily_mod.streak(player, variant)},
    )


# -- the dashboard ---------------------------------------------------------------------------------


@require_GET
def dashboard_index(request: HttpRequest) -> HttpResponse:
    return redirect("puzzles:dashboard", variant=current_variant(request))


@never_cache
@require_GET
def dashboard(request: HttpRequest, variant: str) -> HttpResponse:
    info = get_variant(variant)
    player = Player.of(request)
    data = dashboard_data(player, variant)
    rating = None
    if request.user.is_authenticated:
        rating = PlayerRating.objects.filter(user=request.user, variant=variant).first()
    return render(
        request,
        "puzzles/dashboard.html",
        {
            "variant": info,
            "data": data,
            "rating": rating,
            "session_rating": PlayerRating.objects.rating_of(player, variant),
            "streak": daily_mod.streak(player, variant),
        },
    )
