"""Playing the computer: a new game, the game page and its actions, the page that follows the
computer's move, my games, a replay, the PDN, a class's games for its teachers.

The game page is one screen whose region ``game`` (a partial) changes as the game goes on;
every action is a POST to the game that calls one model method. htmx gets the region, a plain
form post is sent back to the page (or gets the page with the answer, for a refused move).
"""

from __future__ import annotations

import contextlib
import math
from datetime import timedelta
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import reswap, retarget

from core import movelist
from core.numbers import MAX_ID, read_int
from core.replies import Reply, answer
from core.variants import get_variant, remember_variant

from . import access, engine, limits
from .forms import COLOURS, StartForm
from .models import TIME_CONTROLS, Game, check_start
from .owner import Owner
from .suggest import suggested_level

ACTIONS = ("move", "takeback", "resign", "hint")
#: the poll numbers counted (the pause stops growing long before)
MAX_POLLS = 100
#: where a new game may say it comes from (an exam's game is started by the exam alone)
SOURCES = tuple(source for source in Game.Source.values if source != Game.Source.EXAM)


def _game_or_404(request: HttpRequest, pk: int) -> Game:
    """The player's game ``pk``, its clock judged (:meth:`Game.flag`)."""
    game = Owner.of(request).game(pk) if pk < 2**62 else None
    if game is None:
        raise Http404(_("No such game."))
    game.flag()
    return game


def _ply(request: HttpRequest, game: Game) -> tuple[int | None, Reply | None]:
    """The earlier position the page asks to see (``?ply=N``: after the game's first N moves,
    0 the start), None for the game as it stands; a bad number is a refusal to show (400)."""
    if "ply" not in request.GET:
        return None, None
    ply = read_int(request.GET.get("ply"), 0, len(game.moves))
    if ply is None:
        message = _("There is no such move in this game: choose a number from 0 to %(last)s.")
        return None, Reply("bad", message % {"last": len(game.moves)})
    return (ply if ply < len(game.moves) else None), None


def _partial(request: HttpRequest) -> bool:
    return bool(request.htmx) and not request.htmx.boosted


# -- a new game ----------------------------------------------------------------------------------


def _start_form(request: HttpRequest, variant: str, data, errors: dict | None = None) -> dict:
    fen = (data.get("fen") or "").strip()[:400]
    level = data.get("level") or str(suggested_level(request, variant))
    colour = data.get("color") or ""
    if colour not in COLOURS:
        colour = ""
    if not colour:
        colour = "white"
        if fen:
            with contextlib.suppress(ValidationError):
                colour = "white" if engine.white_to_move(fen, variant) else "black"
    return {
        "variant": get_variant(variant),
        "levels": engine.level_numbers(),
        "level": level,
        "suggested": suggested_level(request, variant),
        "colour": colour,
        "fen": fen,
        "source": data.get("from", "") if data.get("from") in SOURCES else "",
        "clocks": list(TIME_CONTROLS.values()),
        "clock": data.get("clock") if data.get("clock") in TIME_CONTROLS else "",
        "errors": errors or {},
        "recent": Owner.of(request).games().filter(variant=variant)[:5],
    }


@never_cache
@require_http_methods(["GET", "POST"])
def new(request: HttpRequest, variant: str) -> HttpResponse:
    """Choose the level and the colour (and maybe a position), then play."""
    get_variant(variant)
    if request.session.get("dama_variant") != variant:
        remember_variant(request, variant)
    if request.method == "GET":
        context = _start_form(request, variant, request.GET)
        if context["fen"]:
            try:
                check_start(variant, context["fen"])
            except ValidationError as exc:
                context["errors"] = {"fen": " ".join(exc.messages)}
                return render(request, "play/new.html", context, status=400)
        return render(request, "play/new.html", context)
    form = StartForm(variant, request.POST)
    if not form.is_valid():
        context = _start_form(request, variant, request.POST, form.messages())
        return render(request, "play/new.html", context, status=400)
    data, fen = request.POST, form.cleaned_data["fen"]
    source = data.get("from", "")
    if source not in SOURCES:
        source = Game.Source.POSITION if fen else Game.Source.NEW
    owner = Owner.of(request)
    refused, wait = limits.refusal(owner)
    if refused:
        context = _start_form(request, variant, request.POST, {"limit": refused})
        response = render(request, "play/new.html", context, status=429)
        response["Retry-After"] = str(wait)
        return response
    game = Game.start(
        user=owner.user,
        variant=variant,
        level=form.cleaned_data["level"],
        player_white=form.cleaned_data["color"] == "white",
        fen=fen,
        source=source,
        clock=form.cleaned_data["clock"],
        **owner.search_keys(),
    )
    owner.remember(game)
    return redirect("play:game", pk=game.pk)


# -- the game --------------------------------------------------------------------------------------


def _context(
    request: HttpRequest, game: Game, reply: Reply | None = None, ply: int | None = None
) -> dict:
    """The game region: the game as it stands, or (``ply``) the position after its first
    ``ply`` moves, to look at only."""
    game.shown()
    if ply is not None:
        return _history_context(game, ply)
    board = game.board()
    flipped = not game.player_white
    marks: dict[int, str] = {}
    path: tuple[int, ...] = ()
    if reply is not None and reply.kind == "illegal":
        marks = engine.illegal_marks(reply.code, reply.squares) if reply.code else {}
    if reply is not None and reply.kind == "continue":
        path = reply.path
    hint = game.current_hint
    texts = engine.line_texts(game.variant, game.start_fen, game.moves)
    last_computer = ""
    if texts and not game.is_player_ply(len(texts) - 1):
        last_computer = texts[-1]
    view = engine.game_board(
        board,
        flipped=flipped,
        path=path,
        marks=marks,
        animate=bool(last_computer) and reply is None,
        arrows=[hint["route"]] if hint and game.player_to_move else (),
    )
    end_message, end_article = ("", "")
    if game.is_over:
        if game.reason == "resigned":
            end_message = _("You resigned: the computer wins.")
        elif game.reason == "time":
            end_message = _("Your time ran out: the computer wins.")
        else:
            end_message, end_article = engine.end_message(board)
    start_white = game.white_started
    return {
        "game": game,
        "variant": get_variant(game.variant),
        "board": view,
        "board_locked": not game.player_to_move,
        "reply": reply,
        "hint": hint,
        "last_computer": last_computer,
        "end_message": end_message,
        "end_article": end_article,
        "numbered": movelist.numbered(
            texts, start_white, _ply_url(game.pk, len(texts)), len(texts)
        ),
        "can_take_back": any(game.is_player_ply(i) for i in range(len(game.moves)))
        and game.reason not in ("resigned", "time"),
        "can_hint": not game.is_over and game.hints_allowed(),
        "urls": _urls(game.pk),
        "steps": _steps(game.pk, len(texts), len(texts)),
        "kinds": movelist.kinds(texts),
        "clocks": _clocks(game),
        **_poll(game, 0),
    }


def _history_context(game: Game, ply: int) -> dict:
    """The position after the game's first ``ply`` moves, on a board that takes no move, with
    the steps to the others and the way back to the game."""
    texts = engine.line_texts(game.variant, game.start_fen, game.moves)
    board = game.board_at(ply)
    return {
        "game": game,
        "variant": get_variant(game.variant),
        "board": engine.position_board(board, flipped=not game.player_white),
        "board_locked": True,
        "ply": ply,
        "viewing": movelist.ply_label(ply, texts, game.white_started) if ply else "",
        "numbered": movelist.numbered(
            texts, game.white_started, _ply_url(game.pk, len(texts)), ply
        ),
        "urls": _urls(game.pk),
        "steps": _steps(game.pk, ply, len(texts)),
        "kinds": movelist.kinds(texts),
        "clocks": _clocks(game),
        **_poll(game, 0),
    }


def _clocks(game: Game) -> dict | None:
    """Both clocks as the page shows them, the time left in milliseconds; None without a
    clock."""
    if not game.has_clock:
        return None
    player = game.player_time_left() or timedelta(0)
    computer = game.computer_time_left() or timedelta(0)
    return {
        "control": game.time_control,
        "player_ms": int(player.total_seconds() * 1000),
        "computer_ms": int(computer.total_seconds() * 1000),
        "player_text": _clock_text(player),
        "computer_text": _clock_text(computer),
    }


def _ply_url(pk: int, total: int) -> movelist.PlyUrl:
    """The address of the position after ``ply`` moves: the game itself for the last one."""
    return movelist.ply_url(reverse("play:game", args=[pk]), total)


def _steps(pk: int, shown: int, total: int) -> dict[str, str]:
    return movelist.steps(_ply_url(pk, total), shown, total)


def _clock_text(left: timedelta) -> str:
    """``m:ss``, the seconds rounded up (0:00 only when the time is gone)."""
    seconds = math.ceil(left.total_seconds())
    return f"{seconds // 60}:{seconds % 60:02d}"


def _urls(pk: int) -> dict[str, str]:
    move = reverse("play:move", args=[pk])
    base = move[: -len("move")]
    return {
        **{action: base + action for action in ACTIONS},
        "wait": reverse("play:wait", args=[pk]),
        "page": reverse("play:game", args=[pk]),
        "pdn": reverse("play:pdn", args=[pk]),
        "replay": reverse("play:replay", args=[pk]),
    }


def _render(request: HttpRequest, context: dict, status: int = 200) -> HttpResponse:
    template = "play/game.html#game" if _partial(request) else "play/game.html"
    return render(request, template, context, status=status)


@never_cache
@require_GET
def game(request: HttpRequest, pk: int) -> HttpResponse:
    """The game, or (``?ply=N``) the position after its first N moves, to look at."""
    the_game = _game_or_404(request, pk)
    the_game.ask_again_if_lost()
    ply, refused = _ply(request, the_game)
    status = refused.status if refused else 200
    return _render(request, _context(request, the_game, refused, ply), status=status)


@never_cache
@require_GET
def wait(request: HttpRequest, pk: int) -> HttpResponse:
    """Polled while the computer thinks (or a hint is searched): while game version ``v`` still
    waits, the next poll (poll number ``n``, a little later each time: :func:`engine.poll_ms`;
    204 without htmx), else the game region in place of the game."""
    the_game = _game_or_404(request, pk)
    ply, refused = _ply(request, the_game)
    seen = read_int(request.GET.get("v"), 0, MAX_ID)
    waiting = the_game.state == Game.State.THINKING or the_game.hint_pending
    if seen is not None and seen == the_game.version and waiting and not refused:
        the_game.ask_again_if_lost()
        if not _partial(request):
            return HttpResponse(status=204)
        context = {
            "game": the_game,
            "urls": _urls(pk),
            "ply": ply,
            **_poll(the_game, read_int(request.GET.get("n"), 0, MAX_POLLS) or 0),
        }
        return render(request, "play/game.html#poll", context)
    if not _partial(request):
        return redirect("play:game", pk=pk)
    status = refused.status if refused else 200
    response = _render(request, _context(request, the_game, refused, ply), status=status)
    return reswap(retarget(response, "#game"), "outerHTML")


def _poll(game: Game, n: int) -> dict:
    """The poll of a waiting page: poll number ``n``, after its pause."""
    level = engine.hint_level(game.level) if game.hint_pending else game.level
    n = min(n, MAX_POLLS)
    return {"poll_ms": engine.poll_ms(level, n), "poll_next": n + 1}


def _action(act):
    @never_cache
    @require_POST
    @wraps(act)
    def view(request: HttpRequest, pk: int) -> HttpResponse:
        return answer(
            request,
            _game_or_404(request, pk),
            act,
            reload=lambda: _game_or_404(request, pk),
            show=lambda game, reply, status: _render(
                request, _context(request, game, reply), status=status
            ),
            page=reverse("play:game", args=[pk]),
            conflict=_("This game changed in another window or tab. Here is where it stands now."),
        )

    return view


@_action
def move(request: HttpRequest, game: Game) -> Reply:
    return game.play(
        route=request.POST.get("route", "").strip()[:200], text=request.POST.get("move", "")[:200]
    )


@_action
def takeback(request: HttpRequest, game: Game) -> Reply:
    return game.takeback()


@_action
def resign(request: HttpRequest, game: Game) -> Reply:
    return game.resign()


@_action
def hint(request: HttpRequest, game: Game) -> Reply:
    return game.ask_hint()


# -- after the game ----------------------------------------------------------------------------


@require_GET
def pdn(request: HttpRequest, pk: int) -> HttpResponse:
    the_game = access.viewable_game(request, pk)
    response = HttpResponse(the_game.pdn(), content_type="application/x-pdn; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="game-{the_game.pk}.pdn"'
    return response


@never_cache
@require_GET
def replay(request: HttpRequest, pk: int) -> HttpResponse:
    the_game = access.viewable_game(request, pk)
    frames = engine.frames(
        the_game.variant, the_game.start_fen, the_game.moves, flipped=not the_game.player_white
    )
    board = the_game.board()
    end_message, end_article = ("", "")
    if the_game.reason == "resigned":
        end_message = _("The player resigned.")
    elif the_game.reason == "time":
        end_message = _("The player's time ran out.")
    elif the_game.is_over:
        end_message, end_article = engine.end_message(board)
    return render(
        request,
        "play/replay.html",
        {
            "game": the_game,
            "variant": get_variant(the_game.variant),
            "frames": frames,
            "numbered": movelist.numbered(
                [f["move"] for f in frames[1:]],
                the_game.white_started,
            ),
            "end_message": end_message,
            "end_article": end_article,
            "is_owner": Owner.of(request).game(pk) is not None,
            "pdn_url": reverse("play:pdn", args=[pk]),
            "play_on_url": _play_on_url(the_game, board),
        },
    )


def _play_on_url(game: Game, board) -> str:
    """A new game from where this one stopped; none after its end, for an exam's game, or
    from a sealed position."""
    if (game.is_over and game.reason not in ("resigned", "time")) or game.sealed_by:
        return ""
    try:
        check_start(game.variant, board.fen())
    except ValidationError:
        return ""
    from django.utils.http import urlencode

    query = {"fen": board.fen(), "color": "white" if game.player_white else "black"}
    query["level"] = str(game.level)
    return reverse("play:new", args=[game.variant]) + "?" + urlencode(query)


@never_cache
@require_GET
def games(request: HttpRequest) -> HttpResponse:
    """My games (an account's, or the ones this visitor's session holds)."""
    rows = list(Owner.of(request).games().select_related("user")[:200])
    for row in rows:
        row.flag()
    return render(request, "play/games.html", {"games": rows, "owner_view": True})


@never_cache
@require_GET
@login_required
def class_games(request: HttpRequest, class_pk: int) -> HttpResponse:
    """The games of a class's students, for the class's teachers (others: 404)."""
    classroom = access.taught_class(request, class_pk)
    rows = list(Game.objects.filter(user__in=classroom.students()).select_related("user")[:300])
    for row in rows:
        row.flag()
    return render(
        request,
        "play/games.html",
        {"games": rows, "classroom": classroom, "owner_view": False},
    )
