"""The play app's seam to the engine (``dama``): what only games against the computer need.

A game is kept as its start position and the routes played (lists of squares, as
``Move.routes`` has them); :func:`replay` plays them again on a board (with the move stack, so
the draw rules that count repetitions and quiet moves apply) and keeps the last few boards of
each process. The search is ``dama.search``'s :func:`best_move` at one of its ``LEVELS``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import get_language
from django.utils.translation import gettext as _

import dama
import dama.pdn
from core import board as core_board

#: a move as it is stored: its route, start to end
Route = list[int]

#: boards each process keeps, by (variant, start FEN, routes), with the moves in notation
BOARD_CACHE_SIZE = 256
_boards: OrderedDict[tuple[Any, ...], tuple[dama.Board, tuple[str, ...]]] = OrderedDict()
_boards_lock = threading.Lock()


def _search_module() -> Any:
    import dama.search

    return dama.search


# -- levels -------------------------------------------------------------------------------------


def level_numbers() -> list[int]:
    return sorted(_search_module().LEVELS)


def is_instant(level: int) -> bool:
    """Whether the level's search is bounded to a few milliseconds (played in the request)."""
    return bool(_search_module().LEVELS[level].instant)


#: the longest pause between two polls of a waiting page (milliseconds)
MAX_POLL_MS = 3000


def poll_ms(level: int, n: int = 0) -> int:
    """How long a page waits before its poll number ``n`` (from 0) asks whether a search at
    ``level`` is done: a second for the levels that search half a second or more, half a second
    for the quick ones, then a little longer each time, up to :data:`MAX_POLL_MS`. A class of 30
    playing at once waits its turn on the workers for many seconds: growing pauses ask a third as
    often as a fixed one, and a reply that comes at once is still seen within the first pause.

    >>> [poll_ms(8, n) for n in range(5)], [poll_ms(4, n) for n in range(7)]
    ([1000, 2000, 3000, 3000, 3000], [500, 1000, 1500, 2000, 2500, 3000, 3000])
    """
    seconds = _search_module().LEVELS[level].seconds or 0
    base = 1000 if seconds >= 0.5 else 500
    return min(base * (max(n, 0) + 1), MAX_POLL_MS)


def hint_level(level: int) -> int:
    """The level a hint is searched at: the strongest instant level in a game at an instant
    level (answered in the request), else the strongest level (on a worker)."""
    levels = _search_module().LEVELS
    if levels[level].instant:
        return max(n for n, lv in levels.items() if lv.instant)
    return max(levels)


def hint(board: dama.Board, level: int, seed: int | None = None) -> Found:
    """The engine's best move for the player at :func:`hint_level`, with that level's limits
    but none of its chosen blunders (a hint is the move the engine believes best)."""
    module = _search_module()
    limits = module.level_for(board.variant.name, hint_level(level))
    result = module.search(
        board, depth=limits.depth, seconds=limits.seconds, nodes=limits.nodes, seed=seed
    )
    return _found(board, result)


# -- positions ----------------------------------------------------------------------------------


def start_fen(variant: str) -> str:
    return core_board.start_board(variant).fen()


def check_start(variant: str, fen: str) -> str:
    """``fen`` as the engine writes it, when a game can start there; a ``ValidationError`` for a
    position that is not valid or where the game is already over."""
    board = core_board.board_from_fen(fen, variant)
    outcome = board.outcome()
    if outcome is not None:
        raise ValidationError(
            _("The game is already over in this position: %(why)s")
            % {"why": outcome.message(get_language())},
            code="over",
        )
    return board.fen()


def white_to_move(fen: str, variant: str) -> bool:
    return core_board.board_from_fen(fen, variant).turn == dama.WHITE


def white_turn(board: dama.Board) -> bool:
    return board.turn == dama.WHITE


def find(board: dama.Board, route: Sequence[int]) -> dama.Move:
    """The legal move on ``board`` with the stored ``route``."""
    wanted = tuple(route)
    for move in board.generate_legal_moves():
        if wanted in move.routes:
            return move
    raise ValidationError(_("A stored move is not legal: %(route)s") % {"route": wanted})


def _played(
    variant: str, fen: str, line: tuple[tuple[int, ...], ...]
) -> tuple[dama.Board, tuple[str, ...]]:
    """The board after ``line`` and the moves in notation, kept per process (not to be changed:
    :func:`replay` hands out copies). A game grows by one move at a time, so the board of the
    line one move shorter is most often kept already: one move is played, not the game."""
    key = (variant, fen, line)
    with _boards_lock:
        kept = _boards.get(key)
        if kept is not None:
            _boards.move_to_end(key)
            return kept
    found = None
    if line:
        with _boards_lock:
            found = _boards.get((variant, fen, line[:-1]))
    if found is not None:
        board, texts = found[0].copy(), found[1]
        move = find(board, line[-1])
        texts = (*texts, board.move_text(move))
        board.push(move)
    else:
        board = core_board.board_from_fen(fen, variant)
        played = []
        for route in line:
            move = find(board, route)
            played.append(board.move_text(move))
            board.push(move)
        texts = tuple(played)
    with _boards_lock:
        _boards[key] = (board, texts)
        if len(_boards) > BOARD_CACHE_SIZE:
            _boards.popitem(last=False)
    return board, texts


def _line(routes: Iterable[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(int(sq) for sq in r) for r in routes)


def replay(variant: str, fen: str, routes: Iterable[Sequence[int]]) -> dama.Board:
    """The board after ``routes`` from ``fen`` (a copy the caller may change)."""
    return _played(variant, fen, _line(routes))[0].copy()


# -- the end ------------------------------------------------------------------------------------


# the end of a game on the board: the one reading of it, in core.board
End = core_board.End
end_of = core_board.end_of
end_message = core_board.end_message


def cite(article: str) -> str:
    return core_board.cite(article) if article else ""


# -- moves --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Played:
    """A move read from the player (or found by the engine), ready to store and to show."""

    route: Route
    notation: str


def read_move(board: dama.Board, *, route: str = "", text: str = "") -> core_board.Entry:
    """What the player entered (see ``core.board.read_entry``)."""
    return core_board.read_entry(board, route=route, text=text)


def played(board: dama.Board, move: dama.Move) -> Played:
    return Played(list(move.routes[0]), board.move_text(move))


@dataclass(frozen=True)
class Found:
    """The engine's choice: the move and what the search saw."""

    route: Route
    notation: str
    score: int
    depth: int
    nodes: int
    seconds: float
    pv: list[str]


#: the computer's search memories (``dama.search.Memory``: its tables kept from move to move)
#: each process keeps, by game, for the games it searched last; at most this many positions
#: each (about 80 MB: two or three of level 8's moves); kept by the search module that made them
#: too, since one made by another module (a test's stand-in engine) is of no use to it
GAME_MEMORIES = 4
MEMORY_ENTRIES = 250_000
_memories: OrderedDict[tuple[Any, int], Any] = OrderedDict()
_memories_lock = threading.Lock()


def search(
    board: dama.Board, level: int, seed: int | None = None, game: int | None = None
) -> Found:
    """The engine's move at ``level`` (a worker's job unless the level is instant). With the
    game's id, a search at a level that is not instant goes on from the tables its last search
    in this game left in this process, when the process still has them (``GAME_MEMORIES``)."""
    module = _search_module()
    memory = None
    if game is not None and not module.LEVELS[level].instant:
        with _memories_lock:
            # taken out while in use, so that two searches never share one
            memory = _memories.pop((module, game), None)
        if memory is None:
            memory = module.Memory(MEMORY_ENTRIES)
    result = module.best_move(board, level, seed=seed, memory=memory)
    if memory is not None:
        with _memories_lock:
            _memories[(module, game)] = memory
            while len(_memories) > GAME_MEMORIES:
                _memories.popitem(last=False)
    return _found(board, result)


def _found(board: dama.Board, result: Any) -> Found:
    pv = []
    line = board.copy()
    for move in result.pv[:8]:
        if move not in line.generate_legal_moves():
            break
        pv.append(line.move_text(move))
        line.push(move)
    return Found(
        route=list(result.move.routes[0]),
        notation=board.move_text(result.move),
        score=int(result.score),
        depth=int(result.depth),
        nodes=int(result.nodes),
        seconds=float(result.seconds),
        pv=pv,
    )


def line_texts(variant: str, fen: str, routes: Iterable[Sequence[int]]) -> list[str]:
    """The moves of ``routes`` in the variant's notation."""
    return list(_played(variant, fen, _line(routes))[1])


# -- views of the board ------------------------------------------------------------------------


def game_board(
    board: dama.Board,
    *,
    flipped: bool,
    path: Iterable[int] = (),
    marks: dict[int, str] | None = None,
    animate: bool = False,
    arrows: Iterable[Sequence[int]] = (),
) -> core_board.BoardView:
    """The board of a game in play: the server answers each click (lesson mode), the quiet
    moves' destinations are shown (never a capture's: finding it is part of the game)."""
    return core_board.board_view(
        board,
        marks=marks,
        arrows=arrows,
        last_move=board.peek(),
        flipped=flipped,
        path=path,
        animate=animate,
        targets=True,
    )


def position_board(board: dama.Board, *, flipped: bool) -> core_board.BoardView:
    """An earlier position of a game, to look at: its last move marked, nothing to click."""
    return core_board.board_view(board, last_move=board.peek(), flipped=flipped)


def illegal_marks(code: str, squares: Iterable[int]) -> dict[int, str]:
    return core_board.explanation_marks(code, squares)


def frames(
    variant: str, fen: str, routes: Iterable[Sequence[int]], *, flipped: bool
) -> list[dict[str, Any]]:
    """The game as frames: the start, then the board after each move with its notation."""
    board = core_board.board_from_fen(fen, variant)
    out = [{"svg": core_board.draw(board, flipped=flipped), "move": "", "ply": 0}]
    for n, route in enumerate(routes, 1):
        move = find(board, route)
        notation = board.move_text(move)
        board.push(move)
        out.append(
            {
                "svg": core_board.draw(board, last_move=move, flipped=flipped),
                "move": notation,
                "ply": n,
            }
        )
    return out


# -- PDN ------------------------------------------------------------------------------------------


def pdn(
    variant: str, fen: str, routes: Iterable[Sequence[int]], tags: dict[str, str], result: str
) -> str:
    board = replay(variant, fen, routes)
    return dama.pdn.Game.from_board(board, tags, result=result or "*").pdn()
