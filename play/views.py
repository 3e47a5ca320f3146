"""Playing the computer: a new game, the game page and its actions, the page that follows the
computer's move, my games, a replay, the PDN, a class's games for its teachers.

The game page is one screen whose region ``game`` (a partial) changes as the game goes on;
every action is a POST to the game that calls one model method. htmx gets the region, a plain
form post is sent back to the page (or gets the page with the answer, for a refused move).
"""

from __future__ import annotations

import contextlib
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

from core.variants import get_variant, remember_variant

from . import access, engine
from .forms import COLOURS, StartForm
from .models import Conflict, Game, Reply
from .owner import Owner
from .suggest import suggested_level

ACTIONS = ("move", "takeback", "resign", "hint")


def _game_or_404(request: HttpRequest, pk: int) -> Game:
    game = Owner.of(request).game(pk) if pk < 2**62 else None
    if game is None:
        raise Http404(_("No such game."))
    return game


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
        "source": data.get("from", "") if data.get("from") in Game.Source.values else "",
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
                engine.check_start(variant, context["fen"])
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
    if source not in Game.Source.values:
        source = Game.Source.POSITION if fen else Game.Source.NEW
    owner = Owner.of(request)
    game = Game.start(
        user=owner.user,
        variant=variant,
        level=form.cleaned_data["level"],
        player_white=form.cleaned_data["color"] == "white",
        fen=fen,
        source=source,
    )
    owner.remember(game)
    return redirect("play:game", pk=game.pk)


# -- the game --------------------------------------------------------------------------------------


def _context(request: HttpRequest, game: Game, reply: Reply | None = None) -> dict:
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
        "numbered": _numbered(texts, start_white),
        "can_take_back": any(game.is_player_ply(i) for i in range(len(game.moves)))
        and game.reason != "resigned",
        "urls": _urls(game.pk),
        **_poll(game, 0),
    }


def _numbered(texts: list[str], start_white: bool) -> list[dict]:
    """The moves in pairs: [{"n": 1, "white": "22-18", "black": "11-15"}, ...]."""
    rows: list[dict] = []
    if not start_white and texts:
        rows.append({"n": 1, "white": "…", "black": texts[0]})
        texts = texts[1:]
    n = len(rows)
    for i in range(0, len(texts), 2):
        n += 1
        rows.append(
            {"n": n, "white": texts[i], "black": texts[i + 1] if i + 1 < len(texts) else ""}
        )
    return rows


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
    the_game = _game_or_404(request, pk)
    the_game.ask_again_if_lost()
    return _render(request, _context(request, the_game))


@never_cache
@require_GET
def wait(request: HttpRequest, pk: int) -> HttpResponse:
    """Polled while the computer thinks (or a hint is searched): while game version ``v`` still
    waits, the next poll (poll number ``n``, a little later each time: :func:`engine.poll_ms`;
    204 without htmx), else the game region in place of the game."""
    the_game = _game_or_404(request, pk)
    seen = request.GET.get("v", "")
    waiting = the_game.state == Game.State.THINKING or the_game.hint_pending
    if seen.isdecimal() and int(seen) == the_game.version and waiting:
        the_game.ask_again_if_lost()
        if not _partial(request):
            return HttpResponse(status=204)
        n = request.GET.get("n", "")[:4]
        context = {
            "game": the_game,
            "urls": _urls(pk),
            **_poll(the_game, int(n) if n.isdecimal() else 0),
        }
        return render(request, "play/game.html#poll", context)
    if not _partial(request):
        return redirect("play:game", pk=pk)
    return reswap(retarget(_render(request, _context(request, the_game)), "#game"), "outerHTML")


def _poll(game: Game, n: int) -> dict:
    """The poll of a waiting page: poll number ``n``, after its pause."""
    level = engine.hint_level(game.level) if game.hint_pending else game.level
    n = min(n, 100)
    return {"poll_ms": engine.poll_ms(level, n), "poll_next": n + 1}


def _action(act):
    @never_cache
    @require_POST
    @wraps(act)
    def view(request: HttpRequest, pk: int) -> HttpResponse:
        the_game = _game_or_404(request, pk)
        try:
            reply = act(request, the_game)
        except Conflict:
            the_game = _game_or_404(request, pk)
            reply = Reply(
                "conflict",
                _("This game changed in another window or tab. Here is where it stands now."),
            )
            if not request.htmx:
                return redirect("play:game", pk=pk)
            return _render(request, _context(request, the_game, reply), status=409)
        if not request.htmx and reply.status == 200:
            return redirect("play:game", pk=pk)
        return _render(request, _context(request, the_game, reply), status=reply.status)

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
    elif the_game.is_over:
        end_message, end_article = engine.end_message(board)
    return render(
        request,
        "play/replay.html",
        {
            "game": the_game,
            "variant": get_variant(the_game.variant),
            "frames": frames,
            "numbered": _numbered(
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
    if game.is_over and game.reason != "resigned":
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
    return render(request, "play/games.html", {"games": rows, "owner_view": True})


@never_cache
@require_GET
@login_required
def class_games(request: HttpRequest, class_pk: int) -> HttpResponse:
    """The games of a class's students, for the class's teachers (others: 404)."""
    classroom = access.taught_class(request, class_pk)
    rows = list(Game.objects.filter(user__in=classroom.students()).select_related("user")[:300])
    return render(
        request,
        "play/games.html",
        {"games": rows, "classroom": classroom, "owner_view": False},
    )
