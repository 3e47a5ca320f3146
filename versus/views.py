"""Games between players: my games and ratings, a new challenge, a class's classmates to
challenge, the game page (a challenge to accept while open) and its actions, its state for the
poll, its PDN.

The game page is one screen whose region ``game`` (a partial) changes as the game goes on, or
(``?ply=N``) shows the position after the game's first N moves, to look at only: its move list's
entries are links to those, as on the game against the computer (``core.movelist``);
every action is a POST that calls one model method; htmx gets the region, a plain form post is
sent back to the page. A page follows the game over its socket (``versus.consumers``), or by
polling ``state`` (``?v=<version>``: 204 while nothing changed), or without JavaScript by
reloading itself.
"""

from __future__ import annotations

from functools import wraps

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from classroom.models import Classroom
from core import movelist
from core.numbers import MAX_ID, read_id, read_int
from core.replies import Reply, answer
from core.variants import VARIANTS, get_variant

from . import engine
from .forms import read_challenge
from .models import (
    MAX_BASE_MINUTES,
    MAX_DAYS,
    MAX_INCREMENT_SECONDS,
    Simul,
    VersusGame,
    VersusRating,
    games_of,
    simuls_of,
)


def _partial(request: HttpRequest) -> bool:
    return bool(request.htmx) and not request.htmx.boosted


def _game_or_404(request: HttpRequest, token: str) -> VersusGame:
    game = (
        VersusGame.objects.select_related(
            "white", "black", "challenger", "invited", "classroom", "simul__host"
        )
        .filter(token=token[:16])
        .first()
    )
    if game is None or not game.can_view(request.user):
        raise Http404(_("No such game."))
    return game


# -- my games, a new challenge, classmates ------------------------------------------------------


@never_cache
@require_GET
@login_required
def index(request: HttpRequest) -> HttpResponse:
    games = list(
        games_of(request.user).select_related("white", "black", "challenger", "invited")[:300]
    )
    rows = [{"game": g, "side": g.side_of(request.user)} for g in games]
    return render(
        request,
        "versus/index.html",
        {
            "open": [r for r in rows if r["game"].state == VersusGame.State.OPEN],
            "playing": [r for r in rows if r["game"].is_playing],
            "finished": [r for r in rows if r["game"].is_over and r["game"].result],
            "ratings": VersusRating.objects.filter(user=request.user).order_by("variant", "speed"),
            "simuls": simuls_of(request.user).select_related("host", "classroom")[:30],
            "teaches": Classroom.objects.taught_by(request.user).exists(),
        },
    )


def _classmate(request: HttpRequest, data) -> tuple[Classroom | None, object | None]:
    """The class and the classmate a challenge is for (``classroom``, ``opponent``), when both
    the user and the classmate are in that class; else a 404."""
    class_pk, opponent_pk = read_id(data.get("classroom")), read_id(data.get("opponent"))
    if class_pk is None and opponent_pk is None:
        return None, None
    classroom = Classroom.objects.filter(pk=class_pk).first() if class_pk else None
    if classroom is None or not _in_class(classroom, request.user):
        raise Http404(_("No such class."))
    if opponent_pk is None:
        return classroom, None
    opponent = get_user_model().objects.filter(pk=opponent_pk).first()
    if opponent is None or opponent.pk == request.user.pk or not _in_class(classroom, opponent):
        raise Http404(_("No such classmate."))
    return classroom, opponent


def _in_class(classroom: Classroom, user) -> bool:
    return classroom.is_student(user) or classroom.is_teacher(user)


def _new_context(request: HttpRequest, data, errors: dict | None = None) -> dict:
    classroom, opponent = _classmate(request, data)
    variant = data.get("variant") or request.session.get("dama_variant") or "czech"
    return {
        "variants": list(VARIANTS.values()),
        "chosen": {
            "variant": variant if variant in VARIANTS else "czech",
            "colour": data.get("colour", "random"),
            "time": data.get("time", "clock"),
            "base": data.get("base", "5"),
            "increment": data.get("increment", "3"),
            "days": data.get("days", "3"),
            "rated": data.get("rated", ""),
            "public": data.get("public", "1" if request.method == "GET" else ""),
        },
        "classroom": classroom,
        "opponent": opponent,
        "errors": errors or {},
        "limits": {"base": MAX_BASE_MINUTES, "increment": MAX_INCREMENT_SECONDS, "days": MAX_DAYS},
    }


@never_cache
@require_http_methods(["GET", "POST"])
@login_required
def new(request: HttpRequest) -> HttpResponse:
    """Choose the variant, colour and clock; then share the link (or the classmate is told)."""
    if request.method == "GET":
        return render(request, "versus/new.html", _new_context(request, request.GET))
    options, errors = read_challenge(request.POST)
    classroom, opponent = _classmate(request, request.POST)
    if not errors:
        try:
            game = VersusGame.challenge(
                request.user, invited=opponent, classroom=classroom, **options
            )
        except ValidationError as exc:
            errors = {"time": " ".join(exc.messages)}
    if errors:
        context = _new_context(request, request.POST, errors)
        return render(request, "versus/new.html", context, status=400)
    return redirect("versus:game", token=game.token)


@never_cache
@require_GET
@login_required
def classmates(request: HttpRequest, class_pk: int) -> HttpResponse:
    """The class's students (and teachers) to challenge, for those in the class (others: 404)."""
    classroom = Classroom.objects.filter(pk=class_pk).first() if class_pk < MAX_ID else None
    if classroom is None or not _in_class(classroom, request.user):
        raise Http404(_("No such class."))
    people = [u for u in classroom.students() if u.pk != request.user.pk]
    people += [t for t in classroom.teachers.all() if t.pk != request.user.pk and t not in people]
    games = VersusGame.objects.filter(classroom=classroom).exclude(state=VersusGame.State.OVER)
    return render(
        request,
        "versus/classmates.html",
        {
            "classroom": classroom,
            "people": people,
            "games": games.select_related("white", "black", "challenger", "invited")[:50],
            "simuls": Simul.objects.filter(classroom=classroom)
            .exclude(state=Simul.State.OVER)
            .select_related("host"),
            "teaches": classroom.is_teacher(request.user),
        },
    )


# -- the game -----------------------------------------------------------------------------------


def _end_message(game: VersusGame, board) -> tuple[str, str]:
    loser = _("White") if game.result == "0-2" else _("Black")
    if game.reason == "time":
        return _("%(side)s ran out of time.") % {"side": loser}, ""
    if game.reason == "resigned":
        return _("%(side)s resigned.") % {"side": loser}, ""
    if game.reason == "agreed":
        return _("The players agreed a draw."), ""
    if game.reason == "aborted":
        return _("The game was aborted before both sides had moved."), ""
    if game.reason == "no_start" and game.result:
        return _("%(side)s did not make a first move in time.") % {"side": loser}, ""
    if game.reason == "no_start":
        return _("The game was aborted: a first move did not come in time."), ""
    if game.reason == "cancelled":
        return _("The challenge was withdrawn."), ""
    return engine.end_message(board)


def _clock_text(ms: int | None) -> str:
    if ms is None:
        return ""
    seconds = ms // 1000
    if seconds >= 86_400:
        days, rest = divmod(seconds, 86_400)
        return _("%(days)sd %(hours)sh") % {"days": days, "hours": rest // 3600}
    if seconds >= 3600:
        return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
    return f"{seconds // 60}:{seconds % 60:02d}"


def _urls(game: VersusGame) -> dict[str, str]:
    names = ("state", "pdn", "game", *ACTIONS)
    return {name: reverse(f"versus:{name}", args=[game.token]) for name in names}


def _ply(request: HttpRequest, game: VersusGame) -> tuple[int | None, Reply | None]:
    """The earlier position the page asks to see (``?ply=N``: after the game's first N moves,
    0 the start), None for the game as it stands. N counts the moves the viewer may see (a
    spectator of a rated game in play sees it a few plies late): a number beyond those, or not a
    number, is a refusal to show (400)."""
    if "ply" not in request.GET:
        return None, None
    total = len(game.visible_moves(request.user))
    ply = movelist.read_ply(request.GET.get("ply"), total)
    if ply is None:
        message = _("There is no such move in this game: choose a number from 0 to %(last)s.")
        return None, Reply("bad", message % {"last": total})
    return (ply if ply < total else None), None


def _context(
    request: HttpRequest, game: VersusGame, reply: Reply | None = None, ply: int | None = None
) -> dict:
    """The game region: the game as the viewer may see it, or (``ply``) the position after its
    first ``ply`` moves, to look at only."""
    user = request.user
    side = game.side_of(user)
    moves = game.visible_moves(user)
    texts = engine.line_texts(game.variant, game.start_fen, moves)
    board = engine.replay(game.variant, game.start_fen, moves)
    page = reverse("versus:game", args=[game.token])
    url = movelist.ply_url(page, len(moves))
    shown = len(moves) if ply is None else ply
    my_turn = bool(side) and game.is_playing and side == game.side_to_move
    marks: dict[int, str] = {}
    path: tuple[int, ...] = ()
    if reply is not None and reply.kind == "illegal" and reply.code:
        marks = engine.illegal_marks(reply.code, reply.squares)
    if reply is not None and reply.kind == "continue":
        path = reply.path
    if ply is None:
        view = engine.game_board(board, flipped=side == "b", path=path, marks=marks)
    else:
        view = engine.position_board(
            engine.replay(game.variant, game.start_fen, moves[:ply]), flipped=side == "b"
        )
    end_message, end_article = _end_message(game, board) if game.is_over else ("", "")
    clocks = []
    for s, name in (("w", _("White")), ("b", _("Black"))):
        ms = game.remaining_ms(s)
        player = game.player(s)
        clocks.append(
            {
                "side": s,
                "name": name,
                "player": player.get_username() if player else "…",
                "ms": ms,
                "text": _clock_text(ms),
                "running": game.clock_running and game.side_to_move == s,
                "mine": s == side,
            }
        )
    if side == "b":
        clocks.reverse()
    last_move = texts[-1] if texts else ""
    opponent_moved = (
        bool(texts) and bool(side) and game.is_white_ply(len(texts) - 1) == (side == "b")
    )
    if game.is_over:
        announce = end_message
    elif opponent_moved:
        announce = _("Your opponent played %(move)s. Your move.") % {"move": last_move}
    elif last_move:
        announce = _("Last move %(move)s.") % {"move": last_move}
    else:
        announce = ""
    return {
        "game": game,
        "variant": get_variant(game.variant),
        "side": side,
        "board": view,
        # a player's board takes clicks on the opponent's move too: a premove (versus.js)
        "board_locked": not (bool(side) and game.is_playing) or ply is not None,
        "my_turn": my_turn,
        "reply": reply,
        "ply": ply,
        "viewing": movelist.ply_label(ply, texts, game.white_started) if ply else "",
        "numbered": movelist.numbered(texts, game.white_started, url, shown),
        "steps": movelist.steps(url, shown, len(moves)),
        "kinds": movelist.kinds(texts),
        "delayed": len(moves) < len(game.moves),
        "end_message": end_message,
        "end_article": end_article,
        "clocks": clocks,
        "announce": announce,
        "outcome": game.outcome_for(side) if side else "",
        "may_accept": game.may_accept(user),
        "share_url": request.build_absolute_uri(reverse("versus:game", args=[game.token])),
        "offered_draw": game.draw_offer == side and bool(side),
        "draw_to_answer": bool(game.draw_offer) and bool(side) and game.draw_offer != side,
        "asked_takeback": game.takeback_request == side and bool(side),
        "takeback_to_answer": bool(game.takeback_request)
        and bool(side)
        and game.takeback_request != side,
        "can_takeback": bool(side) and not game.rated and game.plies_back(side) > 0,
        "urls": _urls(game),
    }


def _render(request: HttpRequest, context: dict, status: int = 200) -> HttpResponse:
    template = "versus/game.html#game" if _partial(request) else "versus/game.html"
    return render(request, template, context, status=status)


@never_cache
@require_GET
def game(request: HttpRequest, token: str) -> HttpResponse:
    """The game, or (``?ply=N``) the position after its first N moves, to look at."""
    the_game = _game_or_404(request, token)
    the_game.judge_clock()
    ply, refused = _ply(request, the_game)
    status = refused.status if refused else 200
    return _render(request, _context(request, the_game, refused, ply), status=status)


@never_cache
@require_GET
def state(request: HttpRequest, token: str) -> HttpResponse:
    """The game region as the viewer may see it; 204 while the game is still at ``?v=``. A page
    looking at an earlier position (``?ply=N``) gets it again, with the game's news around it;
    a ply it may no longer see (a move taken back) gives the game as it stands."""
    the_game = _game_or_404(request, token)
    the_game.judge_clock()
    seen = read_int(request.GET.get("v"), 0, MAX_ID)
    if seen is not None and seen == the_game.version:
        return HttpResponse(status=204)
    if not _partial(request):
        return redirect("versus:game", token=token)
    ply, _refused = _ply(request, the_game)
    return render(request, "versus/game.html#game", _context(request, the_game, ply=ply))


def _action(act):
    @never_cache
    @require_POST
    @wraps(act)
    def view(request: HttpRequest, token: str) -> HttpResponse:
        the_game = _game_or_404(request, token)
        if not request.user.is_authenticated:
            return redirect(f"{reverse('login')}?next={reverse('versus:game', args=[token])}")

        def status(game: VersusGame, reply: Reply) -> int:
            stranger = not game.side_of(request.user) and not game.may_accept(request.user)
            return 403 if reply.kind == "refused" and stranger else reply.status

        return answer(
            request,
            the_game,
            act,
            reload=lambda: _game_or_404(request, token),
            show=lambda game, reply, code: _render(
                request, _context(request, game, reply), status=code
            ),
            page=reverse("versus:game", args=[token]),
            conflict=_(
                "The game changed meanwhile (the other player, or another tab). Here it is."
            ),
            status=status,
        )

    return view


def _yes(request: HttpRequest) -> bool:
    return request.POST.get("answer") == "yes"


ACTIONS = {
    "accept": _action(lambda request, g: g.accept(request.user)),
    "move": _action(
        lambda request, g: g.play(
            request.user,
            route=request.POST.get("route", "").strip()[:200],
            text=request.POST.get("move", "")[:200],
        )
    ),
    "draw": _action(lambda request, g: g.offer_draw(request.user)),
    "draw_answer": _action(lambda request, g: g.answer_draw(request.user, _yes(request))),
    "resign": _action(lambda request, g: g.resign(request.user)),
    "abort": _action(lambda request, g: g.abort(request.user)),
    "takeback": _action(lambda request, g: g.request_takeback(request.user)),
    "takeback_answer": _action(lambda request, g: g.answer_takeback(request.user, _yes(request))),
}


@require_GET
def pdn(request: HttpRequest, token: str) -> HttpResponse:
    """The game's PDN; of a rated game in play, only for its players."""
    the_game = _game_or_404(request, token)
    if the_game.rated and the_game.is_playing and not the_game.side_of(request.user):
        raise Http404(_("No such game."))
    response = HttpResponse(the_game.pdn(), content_type="application/x-pdn; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="versus-{the_game.pk}.pdn"'
    return response
