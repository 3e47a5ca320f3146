"""What the analysis board alone needs of the engine: the engine's best lines of a position
(several, as a multi-PV search gives them), a PDN text read into a tree of moves, and the tree
written back as PDN with its variations and the evaluations as comments.

``dama.search`` gives one best line (its principal variation) and no multi-PV. The other lines
are found here: every other legal move is scored by a short search of the position after it
(:data:`RANK_NODES`), and the best :data:`LINES` - 1 of them are searched again at the full
budget. The first line is the engine's own choice at the full budget.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import dama
from dama import pdn
from dama.search import MATE, MATE_BOUND, search

#: how many lines the board shows (the best moves, each with its line)
LINES = 3
#: the budget of each full line: nodes, and seconds at most (whichever comes first)
LINE_NODES = 150_000
LINE_SECONDS = 4.0
#: the budget of the short search that ranks the other moves
RANK_NODES = 3_000
#: the name of the budget: a cached result is reused only for the same one
BUDGET = f"lines{LINES}-n{LINE_NODES}-s{LINE_SECONDS:g}-r{RANK_NODES}"


def engine_version() -> str:
    return dama.__version__ if hasattr(dama, "__version__") else "dev"


def _white_view(board: dama.Board, score: int) -> int:
    return score if board.turn == dama.WHITE else -score


def _texts(board: dama.Board, moves: Sequence[dama.Move]) -> list[str]:
    b = board.copy()
    out = []
    for move in moves:
        out.append(b.move_text(move))
        b.push(move)
    return out


def analyse(
    variant: str, fen: str, progress: Callable[[float], bool] | None = None
) -> dict[str, Any]:
    """The engine's best lines of ``fen`` (a valid position of ``variant``): a dict of plain
    values, each line's ``moves`` (in the variant's notation), ``score`` (centi-men, White's
    view; a win is near +/- ``MATE``) and ``depth``. ``progress`` is told the share done and
    stops the search by answering False (a newer request replaced this one).

    >>> result = analyse("czech", "W:W22,K31:B18")
    >>> result["lines"][0]["moves"][0], result["lines"][0]["score"] > 300
    ('22x15', True)
    """
    started = time.monotonic()
    board = dama.Board.from_fen(fen, variant)
    legal = list(board.legal_moves)
    result: dict[str, Any] = {
        "budget": BUDGET,
        "engine": engine_version(),
        "lines": [],
        "legal": len(legal),
        "nodes": 0,
        "complete": True,
    }
    if not legal:
        result["seconds"] = round(time.monotonic() - started, 3)
        return result

    def tell(done: float) -> bool:
        return progress(done) if progress is not None else True

    best = search(board, nodes=LINE_NODES, seconds=LINE_SECONDS)
    result["nodes"] += best.nodes
    lines = [
        {
            "moves": _texts(board, best.pv),
            "score": _white_view(board, best.score),
            "depth": best.depth,
        }
    ]
    others = [m for m in legal if m != best.move]
    wanted = min(LINES, len(legal))
    stopped = bool(others) and not tell(1 / wanted)
    if others and not stopped:
        ranked = []
        for move in others:
            child = board.copy()
            child.push(move)
            if not child.legal_moves:  # the move wins at once: the other side cannot move
                ranked.append((MATE - 1, move, child))
                continue
            quick = search(child, nodes=RANK_NODES)
            result["nodes"] += quick.nodes
            ranked.append((-quick.score, move, child))
        ranked.sort(key=lambda item: -item[0])
        for n, (score, move, child) in enumerate(ranked[: wanted - 1], 2):
            line = [move]
            depth = 0
            if child.legal_moves:
                deep = search(child, nodes=LINE_NODES, seconds=LINE_SECONDS)
                result["nodes"] += deep.nodes
                score, line, depth = -deep.score, [move, *deep.pv], deep.depth + 1
            lines.append(
                {
                    "moves": _texts(board, line),
                    "score": _white_view(board, score),
                    "depth": depth,
                }
            )
            if n < wanted and not tell(n / wanted):
                stopped = True
                break
        white = board.turn == dama.WHITE
        lines[1:] = sorted(lines[1:], key=lambda line: -line["score"] if white else line["score"])
    result["lines"] = lines
    result["complete"] = not stopped
    result["seconds"] = round(time.monotonic() - started, 3)
    return result


def is_win(score: int) -> bool:
    return abs(score) > MATE_BOUND


def plies_to_win(score: int) -> int:
    return MATE - abs(score)


# -- PDN ----------------------------------------------------------------------------------------


def read_pdn(text: str, variant: str) -> tuple[str, str, list[tuple[int, str]]]:
    """The first game of a PDN ``text``: its variant (``variant`` when it names none), its start
    position's FEN and its moves as a tree (``(parent, move)`` pairs, parents numbered from 1,
    0 the start; a node's first child is its main line). A ``ValueError`` naming what is wrong."""
    game = pdn.read_game(text, default_variant=variant)
    game.replay()
    board = game.board()
    nodes: list[tuple[int, str]] = []

    def add(line: list[pdn.Node], parent: int, board: dama.Board) -> None:
        b = board.copy()
        for node in line:
            assert node.move is not None
            before = b.copy()
            nodes.append((parent, b.move_text(node.move)))
            me = len(nodes)
            for variation in node.variations:
                add(variation, parent, before)
            b.push(node.move)
            parent = me

    add(game.moves, 0, board)
    return game.variant.name, board.fen(), nodes


def write_pdn(
    variant: str,
    fen: str,
    moves: Sequence[tuple[int, str]],
    comments: dict[int, str],
    tags: dict[str, str] | None = None,
) -> str:
    """The tree ``moves`` (as :func:`read_pdn` gives it) from ``fen`` as PDN: the main line with
    the side lines as variations in parentheses, and ``comments`` (by node, 0 the start) after
    the moves."""
    children: dict[int, list[int]] = {}
    for n, (parent, _text) in enumerate(moves, 1):
        children.setdefault(parent, []).append(n)

    def line_from(first: int) -> list[pdn.Node]:
        out = []
        n: int | None = first
        while n is not None:
            node = pdn.Node(move_text=moves[n - 1][1], comment=comments.get(n, ""))
            parent = moves[n - 1][0]
            siblings = children[parent]
            if siblings[0] == n:
                node.variations = [line_from(other) for other in siblings[1:]]
            out.append(node)
            kids = children.get(n)
            n = kids[0] if kids else None
        return out

    board = dama.Board.from_fen(fen, variant)
    start = dama.Board(variant)
    game = pdn.Game(
        variant=board.variant,
        tags=dict(tags or {}),
        fen=None if start.key() == board.key() else board.fen(),
        moves=line_from(children[0][0]) if 0 in children else [],
        comment=comments.get(0, ""),
    )
    return game.pdn()
