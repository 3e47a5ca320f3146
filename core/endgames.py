"""The site's seam to the endgame databases (``dama.endgames``) and the drill played on them.

- **The tables**: :func:`tables` opens the databases of ``settings.DAMA_ENDGAMES_DIR`` (default
  ``var/endgames``, docs/endgames.md) once per process and again when the directory changes (a
  worker built a slice in another process: ``core.board.endgame_tables`` keeps its first view);
  :func:`covers` says whether a position's slice is built. Without them every page works
  as before; a drill says its tables are missing.
- **The drill**: a position played out against the database's best defence. The learner's moves
  are kept by the caller (a lesson's :class:`lessons.models.DrillRun`, an exam's question) and
  handed to :func:`play` with the move entered now; the answer is a :class:`Turn`: the capture
  goes on, the input is refused (a 400), the move was played and the defence replied, the goal is
  reached (won within the count, or the draw held for the moves asked), or the move threw the goal
  away (with a move that kept it, from the database). Every answer is a lookup: no search runs
  in a request.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

import dama
from dama import endgames

from .board import board_from_fen, end_message, read_entry

#: the goals of a drill: win it within the variant's count, or hold the draw
WIN, DRAW = "win", "draw"
GOALS = (WIN, DRAW)
#: the answers of :func:`play`
CONTINUE, BAD, MOVED, PASSED, FAILED, MISSING = (
    "continue",
    "bad",
    "moved",
    "passed",
    "failed",
    "missing",
)
#: the variants' directories of the databases (``dama.endgames`` keeps a variant's slices in one)
VARIANT_DIRS = ("czech", "international", "brazilian")
#: the longest drill kept (plies): longer than any count allows
MAX_PLIES = 400


def directory() -> Path:
    """Where the site's endgame databases are (``settings.DAMA_ENDGAMES_DIR``)."""
    return Path(settings.DAMA_ENDGAMES_DIR)


_lock = threading.Lock()
_opened: dict[str, tuple[float, endgames.Tables]] = {}


def _stamp(path: Path) -> float:
    """When the directory or one of its variants' directories last changed (a slice added)."""
    stamps = [-1.0]
    for where in (path, *(path / name for name in VARIANT_DIRS)):
        try:
            stamps.append(where.stat().st_mtime)
        except OSError:
            continue
    return max(stamps)


def tables() -> endgames.Tables:
    """The databases of :func:`directory`, opened once per process and again when a slice was
    added there since."""
    path = directory()
    stamp = _stamp(path)
    key = str(path)
    with _lock:
        cached = _opened.get(key)
        if cached is None or cached[0] != stamp:
            cached = (stamp, endgames.Tables.open(path))
            _opened.clear()
            _opened[key] = cached
    return cached[1]


def stamp() -> float:
    """When the databases' directory last changed (a slice added): a key for what is worked
    out from them."""
    return _stamp(directory())


def forget() -> None:
    """Open the tables again on the next use (tests point the setting elsewhere)."""
    with _lock:
        _opened.clear()


def covers(variant: str, fen: str) -> bool:
    """Whether the slice of the position ``fen`` (and what it leads to) is built."""
    return bool(tables().covers(dama.Board(variant, fen)))


@dataclass(frozen=True)
class Verdict:
    """What the databases say of a position, for the side to move: ``result`` (win, draw,
    loss), ``moves`` (to the end with best play), and whether the win fits the count."""

    result: str
    moves: int
    fits: bool | None


def verdict(variant: str, fen: str) -> Verdict | None:
    """The databases' verdict on ``fen`` (None when its slice is not built)."""
    board = dama.Board(variant, fen)
    table = tables()
    probe = table.probe(board)
    if probe is None:
        return None
    return Verdict(probe.result, probe.moves, endgames.fits_count(board, probe))


# -- the drill ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Turn:
    """One answer of a drill. ``status``: :data:`CONTINUE` (a capture entered landing by landing
    goes on: ``path``), :data:`BAD` (not a legal move, or the drill is over: ``message`` and
    maybe ``article``, nothing stored), :data:`MOVED` (``played`` and the defence's ``reply``:
    store both), :data:`PASSED` (the goal is reached: ``played`` and maybe ``reply`` stored),
    :data:`FAILED` (``played`` lets the goal go: ``better`` kept it; ``message`` says why) or
    :data:`MISSING` (the slice is not built)."""

    status: str
    message: str = ""
    article: str = ""
    path: tuple[int, ...] = ()
    played: str = ""
    reply: str = ""
    better: str = ""
    squares: tuple[int, ...] = ()

    @property
    def stored(self) -> tuple[str, ...]:
        """The moves this answer adds to the drill's record."""
        return tuple(m for m in (self.played, self.reply) if m)

    @property
    def is_bad(self) -> bool:
        return self.status == BAD

    @property
    def ends(self) -> bool:
        return self.status in (PASSED, FAILED)


def replay(variant: str, fen: str, moves: Sequence[str]) -> dama.Board:
    """The drill's position after ``moves`` (its record) from ``fen``, with the history that the
    draw counts and repetitions need; a ``ValidationError`` for a position or record that is not
    legal (a forged one)."""
    board = board_from_fen(fen, variant)
    if len(moves) > MAX_PLIES:
        raise ValidationError(_("This drill is too long."), code="drill")
    for text in moves:
        try:
            board.push(board.parse_move(str(text)))
        except (dama.DamaError, ValueError):
            raise ValidationError(_("The drill's record is not valid."), code="drill") from None
    return board


def learner_is_white(fen: str) -> bool:
    return fen.strip()[:1].upper() != "B"


def done_plies(moves: Sequence[str]) -> int:
    """The learner's moves in a record (the learner moves first, the defence replies)."""
    return (len(moves) + 1) // 2


def _count_decides(board: dama.Board) -> bool:
    """Whether the endgame count's verdict on ``board`` is final: the material cannot change
    before the end (the winner has kings only and the defence one piece, whose capture ends the
    game), so no crowning or capture restarts the count on the way."""
    white, black = board.white, board.black
    loser = black if board.turn == dama.BLACK else white
    winner = white if board.turn == dama.BLACK else black
    return bin(loser).count("1") == 1 and not winner & ~board.kings


def _goal_kept(table: endgames.Tables, board: dama.Board, goal: str) -> tuple[bool, bool]:
    """Whether the learner, who has just moved (the defence to move on ``board``), still has the
    goal: a loss for the defence that fits the count (win), or a draw at least (draw); and
    whether it was the count that let the win go."""
    end = board.outcome()
    if end is not None:
        won = end.winner is not None and end.winner != board.turn
        return won or (goal == DRAW and end.winner is None), end.reason == "endgame_count"
    probe = table.probe(board)
    if probe is None:
        return False, False
    if goal == DRAW:
        return probe.result != "win", False
    if probe.result != "loss":
        return False, False
    # the distance counts to the end of the game whoever wins it: the learner's win in as many
    # plies as the defence's loss
    fits = endgames.fits_count(board, endgames.Probe("win", probe.plies))
    if fits is False and _count_decides(board):
        return False, True
    return True, False


def best_move(variant: str, fen: str, moves: Sequence[str]) -> str:
    """The database's best move for the side to move after ``moves`` ("" when none is known)."""
    board = replay(variant, fen, moves)
    if board.outcome() is not None:
        return ""
    found = tables().best_moves(board)
    return board.move_text(found[0]) if found else ""


def _message_failed(goal: str, played: str, better: str, count_lost: bool) -> str:
    if goal == DRAW:
        return _("%(better)s keeps the draw; your move %(played)s lets the other side win.") % {
            "better": better,
            "played": played,
        }
    if count_lost:
        return _(
            "%(better)s keeps the win within the count; after your move %(played)s the win "
            "takes too long and the game ends in a draw by the count."
        ) % {"better": better, "played": played}
    return _("%(better)s keeps the win; your move %(played)s lets it go to a draw.") % {
        "better": better,
        "played": played,
    }


def play(
    variant: str,
    fen: str,
    moves: Sequence[str],
    *,
    goal: str,
    hold: int = 0,
    route: str = "",
    text: str = "",
) -> Turn:
    """Play the learner's entered move (a clicked ``route`` or typed ``text``) in the drill of
    ``fen`` after ``moves``, and the defence's best reply. ``goal``: :data:`WIN` (passed when the
    game is won, which the count allows only in time) or :data:`DRAW` (passed when the learner
    has made ``hold`` moves keeping the draw, or the game is drawn)."""
    board = replay(variant, fen, moves)
    if board.outcome() is not None or len(moves) % 2:
        return Turn(BAD, _("This drill is over. Start it again to play once more."))
    table = tables()
    if table.probe(board) is None:
        return Turn(MISSING, _("The endgame database for this position is not built yet."))
    entry = read_entry(board, route=route, text=text)
    if entry.status == "continue":
        return Turn(CONTINUE, entry.message, path=entry.path)
    if entry.move is None:
        return Turn(BAD, entry.message, article=entry.article, squares=entry.squares)
    move = entry.move
    played = board.move_text(move)
    before = board.copy()
    board.push(move)
    kept, count_lost = _goal_kept(table, board, goal)
    if not kept:
        keeping = [m for m in table.best_moves(before) if m != move]
        better = before.move_text(keeping[0]) if keeping else ""
        return Turn(
            FAILED,
            _message_failed(goal, played, better, count_lost),
            played=played,
            better=better,
        )
    if board.outcome() is not None:
        return Turn(PASSED, _end_text(board), played=played)
    if goal == DRAW and done_plies([*moves, played]) >= hold:
        return Turn(PASSED, _("You held the draw."), played=played)
    replies = table.best_moves(board)
    if not replies:  # pragma: no cover - a position in the tables has a move or an end
        return Turn(BAD, _("The endgame database has no reply here."))
    reply = board.move_text(replies[0])
    board.push(replies[0])
    end = board.outcome()
    if end is not None:
        if end.winner is None and goal == DRAW:
            return Turn(PASSED, _end_text(board), played=played, reply=reply)
        return Turn(FAILED, _end_text(board), played=played, reply=reply)
    return Turn(MOVED, "", played=played, reply=reply)


def _end_text(board: dama.Board) -> str:
    message, article = end_message(board)
    return f"{message} ({article})" if article else message


def ensure(variant: str, fen: str) -> None:
    """Build the slice of ``fen`` and those it leads to, when missing (on a worker or in a test:
    a build is far too long for a request)."""
    tables().ensure(variant, dama.Board(variant, fen))
    forget()


# -- won endings for the exams ----------------------------------------------------------------------
def normal_fen(variant: str, fen: str) -> str:
    """``fen`` as the engine writes it (numeric squares), to compare positions."""
    return dama.Board(variant, fen).fen(algebraic=False)


def material(variant: str, fen: str) -> tuple[int, int, int, int]:
    """White's kings and men, Black's kings and men in ``fen``."""
    board = dama.Board(variant, fen)

    def count(bits: int) -> int:
        return bin(bits).count("1")

    return (
        count(board.white & board.kings),
        count(board.white & ~board.kings),
        count(board.black & board.kings),
        count(board.black & ~board.kings),
    )


def _random_fen(variant: str, material: tuple[int, int, int, int], rng) -> str | None:
    size = dama.Board(variant).geo.squares
    per_row = 5 if size == 50 else 4
    wk, wm, bk, bm = material
    squares = rng.sample(range(1, size + 1), wk + wm + bk + bm)
    white_men = squares[wk : wk + wm]
    black_men = squares[wk + wm + bk :]
    if any(s <= per_row for s in white_men) or any(s > size - per_row for s in black_men):
        return None  # a man on its crowning row
    white = [f"K{s}" for s in squares[:wk]] + [str(s) for s in white_men]
    black = [f"K{s}" for s in squares[wk + wm : wk + wm + bk]] + [str(s) for s in black_men]
    return f"W:W{','.join(white)}:B{','.join(black)}"


def won_ending(variant: str, material: tuple[int, int, int, int], rng) -> tuple[str, int] | None:
    """A random position of ``material``, White to move, that White wins within the count
    with at least one move that lets the win go and no capture at the start: (its FEN, the
    moves to the win); None when the one tried is not such a position."""
    fen = _random_fen(variant, material, rng)
    if fen is None:
        return None
    board = dama.Board(variant, fen)
    moves = board.legal_moves
    if board.outcome() is not None or not moves or any(m.captured for m in moves):
        return None
    table = tables()
    probe = table.probe(board)
    if probe is None or probe.result != "win" or endgames.fits_count(board, probe) is False:
        return None
    if len(table.best_moves(board)) == len(moves):
        return None
    return board.fen(algebraic=False), probe.moves
