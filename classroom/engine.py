"""The classroom app's one seam to the rules engine ``dama``.

Only this module imports ``dama`` in ``classroom``. It turns engine errors into
``ValidationError`` and engine objects into plain data for the board editor (placing pieces,
the side to move, FEN), the solution board (playing a line), the engine's quick search for a
solution, worksheet diagrams with square numbers, and PDN import/export of puzzle sets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext_lazy, ngettext
from django.utils.translation import gettext as _

import dama
import dama.pdn
import dama.solve
from core import board as core_board
from core.board import BoardView, board_from_fen, board_view, draw, find_move, play_line
from core.numbers import read_int
from core.variants import get_variant

#: what a click in the board editor puts on a square: white/black man/king, or nothing
PIECES = {
    "w": dama.Piece(dama.WHITE, False),
    "W": dama.Piece(dama.WHITE, True),
    "b": dama.Piece(dama.BLACK, False),
    "B": dama.Piece(dama.BLACK, True),
    "": None,
}
#: the largest PDN file a teacher may import, in bytes, and the most entries read from one
MAX_IMPORT_BYTES = 512 * 1024
MAX_IMPORT_ENTRIES = 200
#: the largest ``Horizon`` tag read as a number (the teacher's limit, ``DAMA_AUTHOR_MAX_HORIZON``,
#: is lower and is checked with the puzzle, whose error names the horizon asked for)
MAX_TAG_HORIZON = 999
#: limits of the quick search a worker runs when a teacher asks the engine for the solution
QUICK_SOLVE_SECONDS = 3.0
QUICK_SOLVE_NODES = 300_000


def normalise_fen(fen: str, variant: str) -> str:
    """The engine's spelling of a position a teacher entered; ``ValidationError`` when invalid."""
    get_variant(variant)
    return board_from_fen(fen, variant).fen()


def start_fen(variant: str) -> str:
    get_variant(variant)
    return dama.Board(variant).fen()


def empty_fen(variant: str, white_to_move: bool = True) -> str:
    get_variant(variant)
    return "W:W:B" if white_to_move else "B:W:B"


white_to_move = core_board.white_to_move


def with_turn(fen: str, variant: str, white: bool) -> str:
    board = board_from_fen(fen, variant)
    board.turn = dama.WHITE if white else dama.BLACK
    return board.fen()


def toggle_piece(fen: str, variant: str, square: int, piece: str) -> str:
    """``fen`` with ``piece`` (``w``, ``W``, ``b``, ``B``, or ``""`` to empty) put on ``square``;
    clicking a square that already holds that piece empties it."""
    if piece not in PIECES:
        raise ValidationError(_("Choose a piece to place."), code="piece")
    board = board_from_fen(fen, variant)
    try:
        current = board.piece_at(square)
    except (ValueError, TypeError):
        raise ValidationError(_("That square is not on the board."), code="square") from None
    new = PIECES[piece]
    board.set_piece_at(square, None if current == new else new)
    return board.fen()


def editor_board(fen: str, variant: str) -> BoardView:
    """The board editor's view of a position: every square numbered, and how many men and kings
    each side has (``extra["counts"]``)."""
    board = board_from_fen(fen, variant)
    white_men, white_kings = board.count(dama.WHITE)
    black_men, black_kings = board.count(dama.BLACK)
    counts = {"w": white_men, "W": white_kings, "b": black_men, "B": black_kings}
    return board_view(board, labels="numbers", extra={"counts": counts})


# -- playing a line (the solution) on the board -----------------------------------------------------


def line_view(variant: str, fen: str, moves: list[str]) -> BoardView:
    """The board widget's view after ``moves`` from ``fen`` (legal moves for clicking)."""
    board, texts = play_line(variant, fen, moves)
    return board_view(
        board, mode="free", last_move=board.peek(), notation=texts[-1] if texts else ""
    )


def play_on_line(
    variant: str, fen: str, moves: list[str], *, route: str = "", text: str = ""
) -> list[str]:
    """``moves`` and then the move entered (clicked ``route`` or typed ``text``), in notation."""
    board, texts = play_line(variant, fen, moves)
    move = find_move(board, route=route, text=text)
    return [*texts, board.move_text(move)]


def quick_solve(
    variant: str,
    fen: str,
    goal: str,
    horizon: int | None,
    progress: Callable[[float], None] | None = None,
) -> dict[str, Any]:
    """The engine's search for a solution within a few seconds (on a worker: the editor's "Ask
    the engine" job, ``classroom.tasks.deep_solve``): the verdict as plain data (``kind``,
    ``solution``, ``alternatives``, ``refutation``, ``reason``). ``progress(fraction)`` hears how
    much of the search's budget (time or nodes, whichever runs out first) is spent."""
    board = board_from_fen(fen, variant)
    try:
        g = dama.solve.parse_goal(goal)
        limits = dama.solve.Limits.from_dict(
            {"moves": horizon, "seconds": QUICK_SOLVE_SECONDS, "nodes": QUICK_SOLVE_NODES}
        )
    except ValueError as exc:
        raise ValidationError(str(exc), code="goal") from None
    report = None
    if progress is not None:

        def report(nodes: int, depth: int, elapsed: float) -> None:
            progress(max(nodes / QUICK_SOLVE_NODES, elapsed / QUICK_SOLVE_SECONDS))

    verdict = dama.solve.solve(board, g, limits, progress=report)
    data = verdict.to_dict()
    return {k: data[k] for k in ("kind", "solution", "alternatives", "refutation", "reason")}


# -- diagrams ---------------------------------------------------------------------------------------


def diagram(
    variant: str,
    fen: str,
    *,
    numbers: bool = False,
    moves: Iterable[str] = (),
    arrows: Iterable[str] = (),
) -> SafeString:
    """A diagram of ``fen`` after ``moves`` (the last one marked), with arrows for ``arrows``;
    ``numbers`` writes every dark square's number (worksheets)."""
    board, _texts = play_line(variant, fen, moves)
    return draw(
        board, arrows=arrows, last_move=board.peek(), labels="numbers" if numbers else "auto"
    )


def describe_goal(goal: str, white: bool) -> str:
    """``White to play and win`` and the like, for students and worksheets."""
    try:
        g = dama.solve.parse_goal(goal)
    except ValueError:
        return goal
    if g.kind == "capture":
        return (
            _("White: find the forced capture.") if white else _("Black: find the forced capture.")
        )
    if g.kind == "gain":
        n = g.n
        if white:
            return _("White to play and win material (%(n)s or more).") % {"n": n}
        return _("Black to play and win material (%(n)s or more).") % {"n": n}
    return _("White to play and win.") if white else _("Black to play and win.")


# -- PDN --------------------------------------------------------------------------------------------


@dataclass
class ImportedEntry:
    """One PDN entry read as a puzzle draft, or the reason it could not be (``error``)."""

    index: int
    line: int
    variant: str = ""
    fen: str = ""
    goal: str = ""
    horizon: int | None = None
    solution: list[str] = field(default_factory=list)
    title: str = ""
    error: str = ""


#: the PDN reader's kinds of error (``dama.pdn.PdnLineError.code``) in the page's language, with
#: the reader's ``params``; an unknown kind falls back to the reader's English message
PDN_ERRORS = {
    "unclosed_comment": gettext_lazy("a comment opened here with { is never closed by }"),
    "malformed_tag": gettext_lazy(
        'the tag %(text)s is malformed: write tags like [Event "Club game"]'
    ),
    "not_a_move": gettext_lazy("“%(text)s” is not a move, a move number, a comment or a result"),
    "gametype_not_number": gettext_lazy(
        "GameType “%(value)s” must start with a number: 20 (international), 26 (Brazilian) or "
        "29 (Czech)"
    ),
    "gametype_unsupported": gettext_lazy(
        "GameType %(gametype)s is not played here: only 20 (international), 26 (Brazilian) and "
        "29 (Czech)"
    ),
    "gametype_board": gettext_lazy(
        "the GameType gives a %(width)sx%(height)s board, but GameType %(gametype)s is played on "
        "%(size)sx%(size)s"
    ),
    "unopened_variation": gettext_lazy("“)” closes a variation that was never opened"),
    "nag_before_move": gettext_lazy("the annotation %(nag)s comes before any move"),
    "variation_first": gettext_lazy("a variation “(” must follow the move it is an alternative to"),
    "variations_too_deep": gettext_lazy("variations are nested more than %(max)s deep"),
    "unclosed_variation": gettext_lazy("the variation opened here is never closed by “)”"),
    "empty_variation": gettext_lazy("an empty variation: “(” must be followed by moves"),
    "tag_in_moves": gettext_lazy("the tag [%(tag)s] is inside the moves"),
    "unplayable_move": gettext_lazy("%(number)s %(move)s is not playable: %(reason)s"),
    "bad_fen": gettext_lazy("the FEN tag is not a valid position: %(reason)s"),
    "text_after_result": gettext_lazy("there is text after the result"),
}


def pdn_error_text(error: Any) -> str:
    """What is wrong with a PDN entry (a ``dama.pdn.GameError`` or ``PdnLineError``), in the
    page's language; an unplayable move is explained by the engine in that language too."""
    code = getattr(error, "code", "")
    params = dict(getattr(error, "params", {}) or {})
    english = getattr(error, "reason", None) or getattr(error, "message", "") or str(error)
    if code not in PDN_ERRORS:
        return english
    explanation = getattr(error, "explanation", None)
    language = get_language() or "en"
    if code == "unplayable_move" and explanation is not None:
        params["reason"] = explanation.message(language)
    elif code in ("unplayable_move", "bad_fen") and not language.startswith("en"):
        # the engine's detail is English: say what to check instead
        params["reason"] = (
            _("the rules do not allow it")
            if code == "unplayable_move"
            else _("check the squares, the pieces and the side to move")
        )
    try:
        return str(PDN_ERRORS[code]) % params
    except (KeyError, TypeError, ValueError):
        return english


def read_pdn(
    data: bytes | str, variant: str, goal: str, horizon: int | None
) -> list[ImportedEntry]:
    """Each entry of a PDN file as a puzzle draft: the position of its FEN tag (or, for a game
    from the start position, the position after its moves), its moves as the intended solution,
    its ``Goal``/``Horizon`` tags or the given defaults. Broken entries come back with ``error``
    and their line; ``ValidationError`` when the file is too large or has too many entries."""
    size = len(data.encode("utf-8") if isinstance(data, str) else data)
    if size > MAX_IMPORT_BYTES:
        raise ValidationError(
            _("The file is %(size)s KB; at most %(max)s KB can be imported at once.")
            % {"size": size // 1024, "max": MAX_IMPORT_BYTES // 1024},
            code="too_big",
        )
    try:
        items = dama.pdn.read_games(data, default_variant=variant)
        entries = []
        for item in items:
            if len(entries) >= MAX_IMPORT_ENTRIES:
                raise ValidationError(
                    ngettext(
                        "The file has more than %(max)s entry; split it into smaller files.",
                        "The file has more than %(max)s entries; split it into smaller files.",
                        MAX_IMPORT_ENTRIES,
                    )
                    % {"max": MAX_IMPORT_ENTRIES},
                    code="too_many",
                )
            entries.append(_entry(item, goal, horizon))
    except dama.InvalidPdnError as exc:
        message = pdn_error_text(exc)
        line = getattr(exc, "line", None)
        if line is not None:
            message = _("line %(line)s: %(message)s") % {"line": line, "message": message}
        raise ValidationError(message, code="pdn") from None
    return entries


def _entry(item: Any, goal: str, horizon: int | None) -> ImportedEntry:
    if isinstance(item, dama.pdn.GameError):
        return ImportedEntry(index=item.index, line=item.line, error=pdn_error_text(item))
    game = item
    entry = ImportedEntry(index=game.index, line=game.line, variant=game.variant.name)
    try:
        if game.fen is None:  # a whole game: the position it ended in
            entry.fen = game.end_board().fen()
        else:
            entry.fen = game.board().fen()
            entry.solution = [node.move_text for node in game.moves]
    except ValueError as exc:
        entry.error = str(exc)
        return entry
    entry.goal = game.tags.get("Goal", "").strip() or goal
    tag = game.tags.get("Horizon", "").strip()
    entry.horizon = read_int(tag, 1, MAX_TAG_HORIZON) if tag else horizon
    if tag and entry.horizon is None:
        shown = tag[:12] + ("…" if len(tag) > 12 else "")
        entry.error = _(
            "the Horizon tag %(tag)s is not a number of moves (a whole number such as 3)"
        ) % {"tag": shown}
    entry.title = (game.tags.get("Title") or game.tags.get("Event") or "").strip()[:200]
    if entry.title == "?":
        entry.title = ""
    return entry
