"""Mining, the proofs: which candidates of a position are puzzles.

:func:`examine` looks at one position and proposes puzzles: a ``capture`` puzzle when a capture
rule (Czech king priority, majority rule, Turkish strike, no crowning in passing) leaves exactly
one of several tempting captures, or the one capture is a long multi-jump; a ``gain:N`` puzzle
when the side to move wins material by force and it takes a real decision (a quiet move or a
sacrifice, or the choice among several captures); a ``win`` puzzle near the end of a game. Each is
proven ``unique`` with :func:`dama.solve.solve`, with the horizon set to the length of its
shortest solution, and free of duals on its main line (:func:`is_dual_free`), then tagged
(:func:`dama.mine.tag.mined_puzzle`). :func:`was_allowed` says whether the opponent's last move
allowed a puzzle (natural mining keeps only those).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from .._core import core
from ..board import Board
from ..solve import Limits, Verdict, material_search, shortest, solve
from ..variants import Variant, find_variant
from .generate import Position, board_at, material_balance
from .tag import MinedPuzzle, mined_puzzle, rule_motifs

#: limits of the proofs run while mining (a candidate that needs more is skipped); the horizon is
#: the longest solution looked for (the puzzle's own horizon is its minimal solution length)
MINING_LIMITS = Limits(moves=8, nodes=60_000, seconds=2.0)
MINING_LIMITS_10x10 = Limits(moves=6, nodes=25_000, seconds=1.5)

#: plies of the material look-ahead that picks candidate positions, by board size (a gain the
#: look-ahead cannot see is never proved, so this bounds how deep mined puzzles go)
LOOK_AHEAD = {8: 4, 10: 2}

#: the deepest puzzle horizon mined
MAX_HORIZON = 8

#: mining for long combinations (``mine(..., deep=True)``): a longer look-ahead picks the
#: candidates and the proofs may search much more (in natural Czech positions, with
#: ``min_length=5`` passing over the short gains before their proof, about 7 five-move puzzles
#: in 4.3 CPU-minutes where without it none came in 6)
DEEP_LOOK_AHEAD = {8: 6, 10: 4}
DEEP_LIMITS = Limits(moves=MAX_HORIZON, nodes=2_000_000, seconds=20.0)

#: the longest win puzzle mined
WIN_MOVES = 4

#: limits of the check that another move of the opponent avoided the puzzle
ALLOWED_LIMITS = Limits(nodes=20_000, seconds=1.0)


def main_line_duals(v: Verdict) -> int | None:
    """The solver turns of the main line, after the first move, at which more than one move (any
    of its equivalent routes counts as one) reaches the goal in the remaining moves, read from the
    proof tree; None when the proof does not reach every solver turn of the main line (a proof
    cut short by its size budget), so the rule cannot be checked.

    >>> b = Board("czech", "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15")
    >>> main_line_duals(solve(b, "gain:1", Limits(moves=2)))
    0
    """
    if v.kind != "unique":
        return None
    tree = v.tree
    sol = v.solution
    n = 0
    for i in range(2, len(sol), 2):
        accepted = tree.accepted(sol[:i])
        if not accepted:
            return None
        if len(accepted) > 1:
            n += 1
    return n


def is_dual_free(v: Verdict) -> bool:
    """The no-dual rule: ``v`` is unique (one first move, also at the horizon + 2) and at every
    later solver turn of the main line exactly one move reaches the goal in the remaining moves."""
    return v.kind == "unique" and main_line_duals(v) == 0


def _prove_tight(board: Board, goal: str, limits: Limits) -> Verdict | None:
    """The verdict at the puzzle's own length: the fewest solver moves that reach ``goal`` within
    ``limits`` (:func:`~dama.solve.shortest`), then the proof with the horizon set to that length
    (the uniqueness margin is that length + 2, not ``limits.moves`` + 2, which would search
    further for nothing). None when there is no solution, the limits ran out, or the verdict is
    not unique and free of duals on the main line (:func:`is_dual_free`)."""
    length = shortest(board, goal, limits)
    if not length:
        return None
    v = solve(board, goal, replace(limits, moves=length), all_cooks=False)
    return v if is_dual_free(v) else None


def _worth_keeping(p: MinedPuzzle, max_duals: int = 6) -> bool:
    """A real puzzle: few duals, and a gain puzzle that is more than running a man to crown."""
    if p.duals > max_duals:
        return False
    if p.goal.startswith("gain"):
        tags = set(p.motifs)
        captures = any("x" in t for t in p.solution[0::2])
        if not captures and not any(t.startswith("sacrifice") for t in tags):
            return False
    return True


def examine(
    board: Board,
    kinds: Iterable[str] = ("capture", "gain", "win"),
    source: str = "",
    limits: Limits = MINING_LIMITS,
    look_ahead: int = 4,
    near_end: bool = False,
    min_length: int = 1,
) -> list[MinedPuzzle]:
    """Proven-unique puzzles found in ``board`` (side to move = solver), at most one per goal kind.

    Cheap filters first (the rules that shaped a forced capture; a short material look-ahead that
    sees a gain or a win; ``near_end``: the side to move went on to win the game soon), then proofs.
    Each goal is proven at the length of its shortest solution (:func:`~dama.solve.shortest`).
    ``min_length`` > 1: only gain puzzles of that many solver moves or more; a gain reached in
    fewer is not proven but a larger one is tried.
    """
    kinds = set(kinds)
    if min_length > 1:
        # a capture puzzle is one move, a win puzzle at most :data:`WIN_MOVES`
        kinds -= {"capture"} if min_length <= WIN_MOVES else {"capture", "win"}
    c = core(board.variant)
    pos: Position = board.key()
    legal = c.moves(*pos)
    out: list[MinedPuzzle] = []
    if not legal:
        return out
    has_cap = bool(legal[0][2])
    if "capture" in kinds and has_cap and len(legal) == 1:
        m = board.legal_moves[0]
        rules = rule_motifs(board, m)
        if rules or len(m.captured) >= 3:
            v = solve(board, "capture")
            if v.kind == "unique":
                out.append(mined_puzzle(board, v, source))
    if len(legal) < 2 or not kinds & {"gain", "win"}:
        return out
    score = material_search(c, *pos, look_ahead) if "gain" in kinds or not near_end else 0
    gain = score - material_balance(pos)
    if score >= 50 or near_end:
        if "win" in kinds:
            v2 = _prove_tight(
                board, "win", replace(limits, moves=WIN_MOVES, nodes=min(limits.nodes, 40_000))
            )
            if v2 is not None and (v2.length >= 2 or has_cap):
                pz = mined_puzzle(board, v2, source)
                if _worth_keeping(pz):
                    out.append(pz)
        return out
    if "gain" in kinds and gain >= 1:
        tried: set[int] = set()
        n = min(gain, 6)
        while n >= 1 and n not in tried and len(tried) < 2:
            tried.add(n)
            goal = f"gain:{n}"
            length = shortest(board, goal, limits)
            if length == 0:
                n -= 1
                continue
            if length is None:
                break
            if length < min_length:
                # a short way to this gain: only a larger one can take min_length moves
                if n >= 6:
                    break
                n += 1
                continue
            # judged at its own length (the uniqueness margin is that length + 2)
            v = solve(board, goal, replace(limits, moves=length), all_cooks=False)
            if v.kind == "cooked" and n + 1 <= 6:
                n += 1
                continue
            if v.kind == "unique":
                if not is_dual_free(v):
                    break
                if v.length >= 2 or has_cap:
                    pz = mined_puzzle(board, v, source)
                    if _worth_keeping(pz):
                        out.append(pz)
            break
    return out


def was_allowed(
    variant: str | Variant,
    before: Position,
    after: Position,
    pz: MinedPuzzle,
    limits: Limits = ALLOWED_LIMITS,
    tries: int = 6,
) -> bool:
    """The opponent's last move allowed puzzle ``pz``: from ``before`` (the opponent to move; its
    move led to ``after``, the puzzle's position) another move exists after which the solver has
    no way to reach the puzzle's goal within its horizon. A forced move allows nothing.
    """
    v = find_variant(variant)
    c = core(v)
    played = None
    for m in c.moves(*before):
        if (*c.make(*before, m), not before[3]) == after:
            played = m
            break
    others = [m for m in c.moves(*before) if m != played]
    w, b, k, t = before
    others.sort(key=lambda m: material_search(c, *c.make(w, b, k, t, m), not t, 1))
    lim = replace(limits, moves=pz.horizon)
    for m in others[:tries]:
        nb = board_at(v, (*c.make(w, b, k, t, m), not t))
        if solve(nb, pz.goal, lim, all_cooks=False).kind == "no_solution":
            return True
    return False
