"""The web's one seam to the rules engine ``dama`` for boards, shared by every app.

- **Language**: :func:`svg_lang` (the page's language as the engine names it) and :func:`cite`
  (a rulebook citation in it); the engine's messages come in it by ``message(get_language())``.
- **Positions**: :func:`board_from_fen` and :func:`play_line` turn a bad position or an illegal
  move of a line into a ``ValidationError``.
- **Drawing**: :func:`board_svg` (the engine's SVG through a per-process cache) and
  :func:`draw` (a board drawn in the page's language, safe to put in a template).
- **The board view**: :class:`BoardView`, what the board widget (``templates/core/board.html``,
  ``static/js/board.js``) needs, made by :func:`board_view`: the drawing, the side it is seen
  from (:func:`solver_flipped`), and the legal destinations when they give nothing away
  (:func:`quiet_targets`).
- **Marks with meaning**: :func:`explanation_marks` colours the squares an explanation names by
  what they are (the wrong square, the required piece or landing, the jumped pieces).
- **Entry**: :func:`read_entry` reads what a visitor entered on a board (a clicked route, posted
  landing by landing, or typed notation) as an :class:`Entry`: a move, the start of a capture that
  goes on, an illegal move with the engine's explanation, or input that is not a move at all.

Engine objects stay here and in the apps' own ``engine.py`` modules (what only that app needs:
lessons' judging, the puzzles' proofs, the classroom's editor and PDN); views and templates see
plain values.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

import dama
import dama.endgames
import dama.lang
import dama.svg

from .variants import VARIANTS, get_variant

# -- language ---------------------------------------------------------------------------------------


def svg_lang() -> str:
    """The page's language as the engine names it (``cs`` or ``en``): diagrams, messages."""
    return dama.lang.lang_code(get_language())


def cite(article: str) -> str:
    """A rulebook citation in the page's language ("CUD 2006 art. 4.1" -> "CUD 2006 čl. 4.1")."""
    return dama.lang.cite(article, get_language())


# -- the engine -------------------------------------------------------------------------------------


def engine_version() -> str:
    return str(dama.ENGINE_VERSION)


_ENDGAME_TABLES: dict[str, dama.endgames.Tables] = {}


def endgame_tables() -> dama.endgames.Tables:
    """The engine's endgame databases in ``settings.DAMA_ENDGAMES_DIR`` (opened once per
    directory; a probe of a material not built answers None). A lookup, allowed in a request."""
    from django.conf import settings

    d = str(settings.DAMA_ENDGAMES_DIR)
    t = _ENDGAME_TABLES.get(d)
    if t is None:
        t = _ENDGAME_TABLES[d] = dama.endgames.Tables.open(d)
    return t


def engine_build() -> dict[str, Any]:
    """Which build of the engine this process runs: compiled with mypyc or pure Python."""
    return dama.build_info()


def engine_variant_names() -> tuple[str, ...]:
    return tuple(dama.VARIANT_NAMES)


def count_start_moves(variant: str) -> int:
    """How many legal moves White has in the starting position (used by the worker probe)."""
    return len(start_board(variant).legal_moves)


# -- positions --------------------------------------------------------------------------------------


def start_board(variant: str) -> dama.Board:
    get_variant(variant)
    return dama.Board(variant)


def white_to_move(fen: str) -> bool:
    """Whether White moves in ``fen`` (a stored, valid position: its first letter says so).

    >>> white_to_move("B:W31:B20"), white_to_move("W:W31:B20")
    (False, True)
    """
    return fen.strip()[:1].upper() != "B"


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


def play_line(variant: str, fen: str, moves: Iterable[str]) -> tuple[dama.Board, list[str]]:
    """The position after ``moves`` (any notation) from ``fen``, and the moves in the variant's
    usual notation; a ``ValidationError`` naming the first move that is not legal in turn."""
    board = board_from_fen(fen, variant)
    texts = []
    for n, text in enumerate(moves, 1):
        try:
            move = board.parse_move(text)
        except ValueError as exc:
            raise ValidationError(
                _("Move %(n)s (%(move)s) is not legal: %(reason)s")
                % {"n": n, "move": text, "reason": exc},
                code="line",
            ) from None
        texts.append(board.move_text(move))
        board.push(move)
    return board, texts


def position_key(fen: str, variant: str) -> str:
    """The identity of a position for sealing it (``core.models.SealedPosition``): the side to
    move and the pieces, as the engine writes them, on the board's size; the same for the
    position turned round with the colours swapped (White's men on Black's squares, Black to
    move), which is the same game seen from the other side; and the same for the variants of one
    board size (Czech and Brazilian draughts share the 8x8 board and most positions play alike).
    A ``ValidationError`` when the position is not valid.

    >>> position_key("W:W21:B1", "czech") == position_key("B:W32:B12", "brazilian")
    True
    >>> position_key("W:W21:B1", "czech") == position_key("B:W21:B1", "czech")
    False
    """
    board = board_from_fen(fen, variant)
    text = board.fen(algebraic=False)
    turn, *sides = text.split(":")
    squares = board.geo.squares
    pieces = {side[:1]: side[1:] for side in sides}

    def turned(listed: str) -> str:
        names = [name for name in listed.split(",") if name]
        return ",".join(
            ("K" if n.startswith("K") else "") + str(squares + 1 - int(n.lstrip("K")))
            for n in names
        )

    other = "{turn}:W{white}:B{black}".format(
        turn="B" if turn == "W" else "W",
        white=turned(pieces.get("B", "")),
        black=turned(pieces.get("W", "")),
    )
    other = dama.Board(variant, other).fen(algebraic=False)
    digest = hashlib.sha256(f"{squares}|{min(text, other)}".encode()).hexdigest()
    return digest


def describe_outcome(board: dama.Board) -> str:
    """Who has won (or that the game is drawn) when the game has ended on ``board``, else ""."""
    outcome = board.outcome()
    if outcome is None:
        return ""
    if outcome.winner is None:
        return _("The game is drawn.")
    return _("White wins.") if outcome.winner == dama.WHITE else _("Black wins.")


# -- drawing ----------------------------------------------------------------------------------------

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
    again (a puzzle's start, each step of a lesson)."""
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


#: a move to draw: a move, a route (squares from start to end) or a move written in notation
Drawable = dama.Move | Sequence[int] | str


def _drawable(board: dama.Board, moves: Iterable[Drawable]) -> list[dama.Move | Sequence[int]]:
    """``moves`` ready to draw on ``board``; written ones that are not legal there are left out."""
    out: list[dama.Move | Sequence[int]] = []
    for move in moves:
        if not isinstance(move, str):
            out.append(move)
            continue
        try:
            out.append(board.parse_move(move))
        except ValueError:
            continue
    return out


def draw(
    board: dama.Board,
    *,
    marks: Mapping[int, str] | None = None,
    arrows: Iterable[Drawable] = (),
    last_move: dama.Move | Sequence[int] | None = None,
    flipped: bool = False,
    labels: str = "auto",
    size: int | None = None,
) -> SafeString:
    """``board`` drawn in the page's language: ``marks`` (square -> CSS class), ``arrows`` and the
    ``last_move`` marked; ``labels`` ``"numbers"`` writes every dark square's number."""
    svg = board_svg(
        board,
        highlight=dict(marks or {}),
        arrows=_drawable(board, arrows),
        last_move=last_move,
        flipped=flipped,
        labels=labels,
        lang=svg_lang(),
        size=size,
    )
    return mark_safe(svg)  # engine-made SVG


# -- marks with meaning ----------------------------------------------------------------------------

#: what each square an explanation names is, in the order ``dama.explain`` names them: ``piece``
#: the piece that moves, ``wrong`` where the entered move goes wrong, ``required`` the pieces or
#: landings the rules ask for instead, ``jumped`` the pieces jumped; the last role repeats for the
#: rest. Codes not listed name the piece and then where it went wrong.
_EXPLANATION_ROLES: dict[str, tuple[str, ...]] = {
    "empty_square": ("wrong",),
    "opponent_piece": ("wrong",),
    "same_square": ("wrong",),
    "no_such_move": ("wrong",),
    "capture_compulsory": ("wrong", "required"),
    "king_priority": ("wrong", "required"),
    "majority": ("wrong", "required"),
    "capture_not_finished": ("wrong", "required"),
    "king_landing": ("wrong", "jumped", "required"),
    "man_capture_backward": ("piece", "jumped", "wrong"),
    "already_jumped": ("jumped", "piece", "wrong"),
    "own_piece": ("jumped", "piece", "wrong"),
    "two_in_a_row": ("jumped", "jumped", "piece", "wrong"),
    "landing_occupied": ("wrong", "jumped", "piece"),
    "path_blocked": ("piece", "wrong", "wrong"),
    "square_occupied": ("wrong", "piece"),
}

#: the drawing's class of each role (``dama.svg`` gives the last three a colour and a shape each)
MARK_CLASSES = {"piece": "highlight", "wrong": "wrong", "required": "required", "jumped": "jumped"}


def explanation_marks(code: str, squares: Iterable[int]) -> dict[int, str]:
    """The marks (square -> class) of an explanation's ``squares``, by what each one is: the
    ``wrong`` landing or piece, the ``required`` landing or piece, the ``jumped`` pieces, and the
    piece that moved (``highlight``).

    >>> explanation_marks("capture_compulsory", [22, 27, 28])
    {22: 'wrong', 27: 'required', 28: 'required'}
    >>> explanation_marks("man_backward", [22, 26])
    {22: 'highlight', 26: 'wrong'}
    """
    roles = _EXPLANATION_ROLES.get(code, ("piece", "wrong"))
    marks: dict[int, str] = {}
    for n, sq in enumerate(squares):
        marks.setdefault(sq, MARK_CLASSES[roles[min(n, len(roles) - 1)]])
    return marks


# -- the board view -----------------------------------------------------------------------------------


def quiet_targets(board: dama.Board) -> dict[int, list[int]]:
    """Where each piece of the side to move can go by a quiet move (start -> destinations), or
    nothing when a capture is possible: a capture's landings may be the answer to find, quiet
    destinations are only the rules every learner may see."""
    moves = board.legal_moves
    if any(move.captured for move in moves):
        return {}
    targets: dict[int, list[int]] = {}
    for move in moves:
        targets.setdefault(move.start, []).append(move.end)
    return {start: sorted(ends) for start, ends in sorted(targets.items())}


def solver_flipped(board: dama.Board) -> bool:
    """Whether a board to solve is seen from Black's side: when Black is to move in it."""
    return board.turn == dama.BLACK


@dataclass
class BoardView:
    """Everything the board widget (``templates/core/board.html``) needs to draw a board and take
    moves on it.

    ``mode``: ``free`` (the legal moves are in the page, ``moves``), ``lesson`` (no legal move
    reaches the page: in an exercise or a puzzle they would give the answer away; the server
    answers each click) or ``square`` (a click posts the square). ``select``: a clicked capture is
    added to the text field. ``path``: the landings of a capture entered so far; ``animate``: the
    route of the last move, for a short slide of the piece; ``outcome``: who has won, on a free
    board; ``targets``: in lesson mode, the quiet moves' destinations of each piece (start ->
    squares) when the page may show them (see :func:`quiet_targets`); ``legend``: the marks with
    a meaning drawn (``wrong``, ``required``, ``jumped``), for the legend under the board.
    """

    variant: str
    fen: str
    svg: SafeString
    size: int
    white_to_move: bool
    mode: str = "lesson"
    select: bool = False
    moves: list[dict[str, Any]] = field(default_factory=list)
    flipped: bool = False
    last_move: str = ""
    path: tuple[int, ...] = ()
    animate: tuple[int, ...] = ()
    outcome: str = ""
    targets: dict[int, list[int]] = field(default_factory=dict)
    legend: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def moves_json(self) -> str:
        return json.dumps(self.moves, separators=(",", ":"))

    @property
    def targets_json(self) -> str:
        return json.dumps(self.targets, separators=(",", ":"))

    @property
    def turn_text(self) -> str:
        return _("White to move") if self.white_to_move else _("Black to move")

    @property
    def examples(self) -> str:
        """How moves are typed on this board, for its move box's help: the engine's examples in
        the variant's notation (``22-18, 22x15x6, c3-d4`` on 8x8, ``32-28, 32x23x12`` on 10x10)."""
        return ", ".join(dama.example_moves(self.variant))

    @property
    def example_move(self) -> str:
        """One move as it is typed on this board (``22-18``, ``32-28``, ``c3-d4``): a placeholder."""
        return dama.example_moves(self.variant)[0]

    @property
    def turn_code(self) -> str:
        return "w" if self.white_to_move else "b"

    @property
    def path_text(self) -> str:
        return ",".join(map(str, self.path))

    @property
    def animate_text(self) -> str:
        return ",".join(map(str, self.animate))


def _last_text(board: dama.Board) -> str:
    """The last move played on ``board`` in the variant's notation ("" when none was)."""
    last = board.peek()
    if last is None:
        return ""
    before = board.copy()
    before.pop()
    return before.move_text(last)


def board_view(
    board: dama.Board,
    *,
    mode: str = "lesson",
    select: bool = False,
    marks: Mapping[int, str] | None = None,
    arrows: Iterable[Drawable] = (),
    last_move: dama.Move | Sequence[int] | None = None,
    notation: str | None = None,
    flipped: bool = False,
    path: Iterable[int] = (),
    animate: bool = False,
    labels: str = "auto",
    targets: bool = False,
    extra: dict[str, Any] | None = None,
) -> BoardView:
    """The view of ``board`` (see :class:`BoardView`). ``last_move`` is marked on the drawing and
    written as ``notation`` (by default the last move played on ``board``, in the variant's
    notation); ``animate`` asks the page to slide it in. ``targets``: the caller's exercise may
    show where a picked piece can go (only quiet moves are ever shown, see :func:`quiet_targets`).
    """
    if notation is None:
        notation = _last_text(board) if last_move is not None else ""
    moves = (
        [
            {
                "routes": [list(route) for route in move.routes],
                "text": board.move_text(move),
                "captured": list(move.captured),
            }
            for move in board.legal_moves
        ]
        if mode == "free"
        else []
    )
    route = last_move.routes[0] if isinstance(last_move, dama.Move) else last_move
    return BoardView(
        variant=board.variant.name,
        fen=board.fen(),
        svg=draw(
            board, marks=marks, arrows=arrows, last_move=last_move, flipped=flipped, labels=labels
        ),
        size=board.variant.size,
        white_to_move=board.turn == dama.WHITE,
        mode=mode,
        select=select,
        moves=moves,
        flipped=flipped,
        last_move=notation,
        path=tuple(path),
        animate=tuple(route) if (animate and route) else (),
        outcome=describe_outcome(board) if mode == "free" else "",
        targets=quiet_targets(board) if (targets and mode == "lesson") else {},
        legend=tuple(
            cls for cls in ("wrong", "required", "jumped") if cls in (marks or {}).values()
        ),
        extra=extra or {},
    )


# -- what a visitor entered ---------------------------------------------------------------------------


@dataclass
class Entry:
    """What a visitor entered on a board, read against the position, in the page's language.

    ``status``: ``move`` (a legal ``move``: ``route`` as a proof writes it, ``notation`` in the
    variant's usual notation, ``named_route`` the full route when one was entered), ``continue``
    (a capture entered landing by landing goes on: ``path``), ``illegal`` (a move the rules do not
    allow: the engine's ``message``, ``article``, ``code`` and the ``squares`` it is about) or
    ``bad`` (not a move at all: ``message``, and ``article`` when the engine cites one).
    ``entered`` is the entry as move text.
    """

    status: str
    message: str = ""
    article: str = ""
    code: str = ""
    squares: tuple[int, ...] = ()
    path: tuple[int, ...] = ()
    entered: str = ""
    move: dama.Move | None = None
    route: str = ""
    notation: str = ""
    named_route: tuple[int, ...] = ()

    @property
    def key(self) -> tuple[int, int, tuple[int, ...]]:
        """The move's identity: start, end and the captured squares in order."""
        if self.move is None:
            return (0, 0, ())
        return (self.move.start, self.move.end, tuple(sorted(self.move.captured)))

    def error(self) -> ValidationError:
        """A ``ValidationError`` saying why this entry is not a move (the article cited after it)."""
        text = f"{self.message} ({self.article})" if self.article else self.message
        return ValidationError(text, code=self.status)


def read_entry(board: dama.Board, *, route: str = "", text: str = "") -> Entry:
    """Read a clicked ``route`` (``"22,15,6"``, posted landing by landing) or typed ``text``
    (``22-18``, ``22x15x6``, ``c3-d4``: :func:`dama.example_moves`) on ``board``; a route wins
    over text."""
    entry = board.read_entry(route=route, text=text)
    lang = get_language()
    kind = entry.kind
    if kind == dama.EntryKind.MOVE:
        assert entry.move is not None
        return Entry(
            "move",
            entered=entry.text,
            move=entry.move,
            route=entry.move.route_str(0),
            notation=board.move_text(entry.move),
            named_route=entry.route if entry.names_route else (),
        )
    if kind == dama.EntryKind.PARTIAL:
        return Entry(
            "continue",
            _("Landed on %(square)s. The capture goes on: click the next landing square.")
            % {"square": board.square_name(entry.squares[-1])},
            path=entry.squares,
        )
    explanation = entry.explanation
    if kind == dama.EntryKind.ILLEGAL:
        if explanation is None:
            return Entry(
                "illegal",
                _("%(move)s is not a legal move here.") % {"move": entry.text},
                entered=entry.text,
            )
        return Entry(
            "illegal",
            explanation.message(lang),
            article=explanation.citation(lang),
            code=explanation.code,
            squares=tuple(s for s in explanation.squares if 1 <= s <= board.geo.squares),
            entered=entry.text,
        )
    if explanation is not None and explanation.code != "syntax":  # a square not on the board
        return Entry("bad", explanation.message(lang), article=explanation.citation(lang))
    return Entry("bad", _unreadable(entry, board))


def _unreadable(entry: dama.Entry, board: dama.Board) -> str:
    """Why ``entry`` is not a move on ``board``, in the page's language (with the engine's
    examples of move text for that board)."""
    examples = ", ".join(dama.example_moves(board.variant))
    if entry.reason == "empty":
        return _("Type a move (%(examples)s) or click the board.") % {"examples": examples}
    if entry.reason == "too_long":
        return _("That is too long to be a move.")
    if entry.reason == "bad_route":
        return _("The clicked route is not valid.")
    if entry.reason == "one_square":
        return _("Choose a piece and then where it goes.")
    if entry.reason == "ambiguous":
        return _("%(move)s could be several moves: write the whole route, landing by landing.") % {
            "move": entry.text
        }
    return _("“%(move)s” is not a move. Write the start and end squares, like %(examples)s.") % {
        "move": entry.text,
        "examples": examples,
    }


def find_move(board: dama.Board, *, route: str = "", text: str = "") -> dama.Move:
    """The legal move entered on ``board`` (see :func:`read_entry`); a ``ValidationError`` saying
    why it is not one, or that the game is over."""
    if board.outcome() is not None:
        raise ValidationError(_("The game is over in this position."), code="over")
    entry = read_entry(board, route=route, text=text)
    if entry.move is None:
        raise entry.error()
    return entry.move


def play(
    fen: str, variant: str, *, route: str = "", text: str = ""
) -> tuple[dama.Board, dama.Move, str]:
    """Play the entered move on ``fen``: the new board, the move, and the move in notation."""
    board = board_from_fen(fen, variant)
    move = find_move(board, route=route, text=text)
    notation = board.move_text(move)
    board.push(move)
    return board, move, notation


# -- a game's end on the board (the games against the computer and between players) -------------


@dataclass(frozen=True)
class End:
    """How a game ended on the board: ``winner`` ``"w"``, ``"b"`` or ``""`` for a draw, the
    ``reason`` code (``no_pieces``, ``no_moves``, ``threefold``, ``move_rule``,
    ``endgame_count``), the PDN ``result`` and the rulebook ``article`` (in English, as stored)."""

    winner: str
    reason: str
    result: str
    article: str


def end_of(board: dama.Board) -> End | None:
    """The end of the game on ``board`` by its variant's rules, or None while it goes on."""
    outcome = board.outcome()
    if outcome is None:
        return None
    winner = "" if outcome.winner is None else ("w" if outcome.winner == dama.WHITE else "b")
    return End(winner, outcome.reason, outcome.result(), outcome.article)


def end_message(board: dama.Board) -> tuple[str, str]:
    """Why the game ended on ``board`` and the article, in the page's language (or "", "")."""
    outcome = board.outcome()
    if outcome is None:
        return "", ""
    lang = get_language()
    return outcome.message(lang), outcome.citation(lang)
