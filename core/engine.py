"""The site's one seam to the rules engine ``dama`` (for the pages of the ``core`` app).

Engine objects become plain data for templates (``BoardView``); engine errors become
``ValidationError`` with a message in the visitor's language. Nothing else in ``core`` imports
``dama``; each other app has its own ``engine.py`` like this one.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

import dama
import dama.svg

from .variants import VARIANTS, get_variant


def svg_lang() -> str:
    """The language of diagram titles and descriptions: the page's."""
    return "cs" if (get_language() or "").startswith("cs") else "en"


def cite(article: str) -> str:
    """A rulebook citation in the page's language ("CUD 2006 art. 4.1" -> "CUD 2006 čl. 4.1")."""
    if svg_lang() == "cs":
        return (
            article.replace(" art. ", " čl. ")
            .replace("SDS international", "SDS mezinárodní dáma")
            .replace("SDS Brazilian", "SDS brazilská dáma")
            .replace("FMJD rules: ", "pravidla FMJD: pravidlo ")
            .replace("-move rule", " tahů")
        )
    return article


#: how many drawn boards each process keeps (an SVG is 10-20 kB)
SVG_CACHE_SIZE = 4096
_svg_cache: OrderedDict[tuple[Any, ...], str] = OrderedDict()
_svg_lock = threading.Lock()


def _frozen(value: Any) -> Any:
    """A hashable stand-in for a ``board_svg`` option: a move by the route and the captures the
    drawing uses, a mapping by its sorted items, a sequence by its items."""
    if isinstance(value, dama.Move):
        return ("move", value.routes[0], value.captured)
    if isinstance(value, Mapping):
        return ("map", tuple(sorted((k, str(v)) for k, v in value.items())))
    if isinstance(value, (set, frozenset)):
        return ("set", tuple(sorted(value)))
    if isinstance(value, (list, tuple)):
        return ("seq", tuple(_frozen(v) for v in value))
    return value


#: options whose empty or false value is the default (no marks, no arrows, no last move, not
#: flipped, natural size, the usual title): a drawing with them left out shares the entry
_SVG_EMPTY_DEFAULTS = frozenset({"highlight", "arrows", "last_move", "flipped", "size", "title"})


def board_svg(board: dama.Board, **options: Any) -> str:
    """``dama.svg.board_svg`` through a per-process cache: the drawing depends only on the
    position (FEN), the variant and the options, and the same few boards are drawn again and
    again (a puzzle's start, each step of a lesson). Apps draw boards through this."""
    key = (
        board.variant.name,
        board.fen(),
        tuple(
            sorted(
                (name, _frozen(v))
                for name, v in options.items()
                if not (name in _SVG_EMPTY_DEFAULTS and not v)
            )
        ),
    )
    with _svg_lock:
        svg = _svg_cache.get(key)
        if svg is not None:
            _svg_cache.move_to_end(key)
            return svg
    svg = dama.svg.board_svg(board, **options)
    with _svg_lock:
        _svg_cache[key] = svg
        if len(_svg_cache) > SVG_CACHE_SIZE:
            _svg_cache.popitem(last=False)
    return svg


def engine_version() -> str:
    return str(getattr(dama, "ENGINE_VERSION", getattr(dama, "__version__", "unknown")))


def engine_variant_names() -> tuple[str, ...]:
    return tuple(dama.VARIANT_NAMES)


def count_start_moves(variant: str) -> int:
    """How many legal moves White has in the starting position (used by the worker probe)."""
    get_variant(variant)
    return len(dama.Board(variant).legal_moves)


@dataclass
class BoardView:
    """Everything a template needs to draw a board and let the visitor move on it."""

    variant: str
    fen: str
    svg: SafeString
    moves: list[dict[str, Any]]
    white_to_move: bool
    size: int
    flipped: bool = False
    last_move: str = ""
    outcome: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def moves_json(self) -> str:
        return json.dumps(self.moves, separators=(",", ":"))

    @property
    def turn_text(self) -> str:
        return _("White to move") if self.white_to_move else _("Black to move")


def start_board(variant: str) -> dama.Board:
    get_variant(variant)
    return dama.Board(variant)


def board_from_fen(fen: str, variant: str) -> dama.Board:
    """The position ``fen`` in ``variant``; a ``ValidationError`` when either is not valid."""
    if variant not in VARIANTS:
        raise ValidationError(_("Unknown variant."), code="variant")
    if not isinstance(fen, str) or not fen.strip() or len(fen) > 400:
        raise ValidationError(_("The position is missing or too long."), code="fen")
    try:
        return dama.Board.from_fen(fen.strip(), variant)
    except ValueError as exc:
        raise ValidationError(
            _("The position is not valid: %(reason)s") % {"reason": exc}, code="fen"
        ) from None


def board_view(
    board: dama.Board,
    *,
    flipped: bool = False,
    last_move: dama.Move | None = None,
    notation: str = "",
) -> BoardView:
    variant = board.variant.name
    moves = [
        {
            "routes": [list(route) for route in move.routes],
            "text": board.move_text(move),
            "captured": list(move.captured),
        }
        for move in board.legal_moves
    ]
    outcome = board.outcome()
    return BoardView(
        variant=variant,
        fen=board.fen(),
        svg=mark_safe(
            board_svg(board, flipped=flipped, labels="auto", lang=svg_lang(), last_move=last_move)
        ),  # engine-made SVG
        moves=moves,
        white_to_move=board.turn == dama.WHITE,
        size=board.variant.size,
        flipped=flipped,
        last_move=notation,
        outcome=describe_outcome(outcome) if outcome is not None else "",
    )


def describe_outcome(outcome: Any) -> str:
    winner = getattr(outcome, "winner", None)
    if winner is None:
        return _("The game is drawn.")
    return _("White wins.") if winner == dama.WHITE else _("Black wins.")


def _explanation_text(explanation: Any) -> str:
    lang = (get_language() or "en")[:2]
    message = explanation.message_cs if lang == "cs" else explanation.message_en
    article = getattr(explanation, "article", "")
    return f"{message} ({article})" if article else message


def find_move(board: dama.Board, *, route: str = "", text: str = "") -> dama.Move:
    """The legal move the visitor entered, by clicked route ("22,18") or by notation ("22-18").

    Raises ``ValidationError`` saying what is wrong, with the engine's rule explanation when it
    has one.
    """
    if route:
        try:
            squares = tuple(int(part) for part in route.split(","))
        except ValueError:
            raise ValidationError(_("The clicked route is not valid."), code="route") from None
        for move in board.legal_moves:
            if squares in move.routes:
                return move
        if len(squares) < 2:
            raise ValidationError(_("Choose a piece and then where it goes."), code="route")
        text = ("x" if len(squares) > 2 else "-").join(str(s) for s in squares)
        explanation = board.explain_illegal(text)
        if explanation is not None:
            raise ValidationError(_explanation_text(explanation), code="illegal")
        raise ValidationError(
            _("%(move)s is not a legal move here.") % {"move": text}, code="illegal"
        )
    text = (text or "").strip()
    if not text:
        raise ValidationError(_("Type a move, for example 22-18 or c3-d4."), code="empty")
    if len(text) > 200:
        raise ValidationError(_("That is too long to be a move."), code="invalid")
    try:
        return board.parse_move(text)
    except dama.AmbiguousMoveError as exc:
        routes = exc.args[1] if len(exc.args) > 1 else []
        raise ValidationError(
            _("%(move)s could be several moves: write the whole route, one of %(routes)s.")
            % {"move": text, "routes": ", ".join(map(str, routes))},
            code="ambiguous",
        ) from None
    except dama.IllegalMoveError:
        explanation = board.explain_illegal(text)
        if explanation is not None:
            raise ValidationError(_explanation_text(explanation), code="illegal") from None
        raise ValidationError(
            _("%(move)s is not a legal move here.") % {"move": text}, code="illegal"
        ) from None
    except ValueError:
        raise ValidationError(
            _(
                "“%(move)s” is not a move. Write the start and end squares, like 22-18, 22x15 or c3-d4."
            )
            % {"move": text},
            code="invalid",
        ) from None


def play(
    fen: str, variant: str, *, route: str = "", text: str = ""
) -> tuple[dama.Board, dama.Move, str]:
    """Play the entered move on ``fen``: the new board, the move, and the move in notation."""
    board = board_from_fen(fen, variant)
    if board.outcome() is not None:
        raise ValidationError(_("The game is over in this position."), code="over")
    move = find_move(board, route=route, text=text)
    notation = board.move_text(move)
    board.push(move)
    return board, move, notation
