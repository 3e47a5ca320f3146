"""Mining puzzles: self-play games, candidate positions, proofs, difficulty, motifs, PDN.

Separate steps, each usable alone (like lichess-puzzler):

1. :func:`play_game` plays a seeded self-play game with a cheap player (random among the legal
   moves, often choosing by a 1-2 ply material look-ahead) so games contain real blunders and
   real combinations; :func:`pdn_positions` reads the positions of PDN games instead.
2. :func:`examine` looks at one position and proposes puzzles: a ``capture`` puzzle when a capture
   rule (Czech king priority, majority rule, Turkish strike, no crowning in passing) leaves exactly
   one of several tempting captures, or the one capture is a long multi-jump; a ``gain:N`` puzzle
   when the side to move wins material by force and it takes a real decision (a quiet move or a
   sacrifice, or the choice among several captures); a ``win`` puzzle near the end of a game.
   Every puzzle is proven ``unique`` with :func:`dama.solve.solve`, with the horizon set to the
   minimal solution length.
3. :func:`motifs` tags the solution line with small pure predicates; :func:`difficulty` rates it.
4. :func:`puzzles_pdn` writes :class:`MinedPuzzle` values as PDN positions with the tags
   ``Goal``, ``Horizon``, ``Solution``, ``Motifs``, ``Difficulty``, ``Source``;
   :func:`dama.pdn.read_tags` reads them back.

:func:`mine` runs the whole pipeline for a count of puzzles with a mix of goals.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ._core import Core, RawMove, core
from .baseboard import Move
from .board import Board
from .pdn import Game, GameError, position_pdn, read_games
from .shots import SHOTS, Line, named_shots
from .solve import Limits, Verdict, material_search, shortest, solve
from .variants import Variant, find_variant

__all__ = [
    "MAX_HORIZON",
    "MOTIF_PREDICATES",
    "MinedPuzzle",
    "SolutionLine",
    "difficulty",
    "engine_game",
    "examine",
    "is_dual_free",
    "main_line_duals",
    "mine",
    "motifs",
    "pdn_games",
    "pdn_positions",
    "play_game",
    "puzzle_pdn",
    "puzzles_pdn",
    "was_allowed",
]

Position = tuple[int, int, int, bool]
#: the capture rules :func:`rule_motifs` recognises
RULE_MOTIFS = ("king_priority", "majority", "turkish_strike", "no_crown_in_passing")

#: default share of each goal kind in :func:`mine`
DEFAULT_MIX = {"capture": 0.3, "gain": 0.55, "win": 0.15}
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


# -- the solution line and motif predicates -------------------------------------------------------


@dataclass(frozen=True)
class SolutionLine:
    """A puzzle's start position and its main line (solver first, then alternating)."""

    board: Board
    moves: tuple[Move, ...]
    goal: str = ""

    @classmethod
    def from_texts(cls, board: Board, texts: Iterable[str], goal: str = "") -> SolutionLine:
        b = board.copy(stack=False)
        out = []
        for t in texts:
            m = b.parse_move(t)
            out.append(m)
            b.push(m)
        return cls(board.copy(stack=False), tuple(out), goal)

    def boards(self) -> Iterator[tuple[Board, Move]]:
        """(position before, move) for each ply."""
        b = self.board.copy(stack=False)
        for m in self.moves:
            yield b.copy(stack=False), m
            b.push(m)

    def final(self) -> Board:
        b = self.board.copy(stack=False)
        for m in self.moves:
            b.push(m)
        return b

    @property
    def solver_moves(self) -> tuple[Move, ...]:
        return self.moves[0::2]


def _rule_core(variant: Variant, king_priority: bool, majority_rule: bool) -> Core:
    """A move generator of ``variant`` with a capture rule switched off (for the rule motifs)."""
    key = (variant.name, king_priority, majority_rule)
    got = _RULE_CORES.get(key)
    if got is None:
        got = Core(replace(variant, king_priority=king_priority, majority_rule=majority_rule))
        _RULE_CORES[key] = got
    return got


_RULE_CORES: dict[tuple[str, bool, bool], Core] = {}


def _max_capture_immediate(b: Board, piece: int) -> int:
    """Most pieces the ``piece`` (a bit) could take if captured pieces were removed at once."""
    g = b.geo
    nbr, rays = g.neighbour, g.rays
    own, opp = (b.white, b.black) if b.turn else (b.black, b.white)
    if b.variant.men_capture_backward:
        dirs: tuple[int, ...] = (0, 1, 2, 3)
    else:
        dirs = (0, 1) if b.turn else (2, 3)

    def man(sq: int, occ: int, opp: int) -> int:
        best = 0
        for d in dirs:
            v = nbr[sq][d]
            if v < 0 or not (opp >> v) & 1:
                continue
            land = nbr[v][d]
            if land < 0 or (occ >> land) & 1:
                continue
            vb = 1 << v
            best = max(best, 1 + man(land, occ & ~vb, opp & ~vb))
        return best

    def king(sq: int, occ: int, opp: int) -> int:
        best = 0
        for ray in rays[sq]:
            i, n = 0, len(ray)
            while i < n and not (occ >> ray[i]) & 1:
                i += 1
            if i + 1 >= n or not (opp >> ray[i]) & 1:
                continue
            vb = 1 << ray[i]
            i += 1
            while i < n and not (occ >> ray[i]) & 1:
                best = max(best, 1 + king(ray[i], occ & ~vb, opp & ~vb))
                i += 1
        return best

    occ = b.white | b.black
    if not own & piece:
        return 0
    f = king if b.kings & piece else man
    return f(piece.bit_length() - 1, occ & ~piece, opp)


def _turkish_strike(b: Board, m: Move) -> bool:
    """Capture ``m`` is cut short by the Turkish rule: removing each jumped piece at once would
    let the capturing piece take more."""
    w, bl, k, t = b.key()
    start = 1 << b.geo.bit_of[m.start]
    free = _rule_core(b.variant, False, False).captures(w, bl, k, t)
    free_max = max((c.bit_count() for f, _, c in free if f == start), default=0)
    return _max_capture_immediate(b, start) > free_max


def rule_motifs(b: Board, m: Move) -> set[str]:
    """The capture rules that shaped capture ``m`` played in ``b`` (empty for a quiet move).

    ``king_priority``: a man could have captured but a king must (Czech); ``majority``: smaller
    captures were possible and are not allowed; ``turkish_strike``: removing pieces at once would
    allow more captures (a jumped piece still blocks); ``no_crown_in_passing``: a man crosses the
    far row during the capture and is not crowned.
    """
    out: set[str] = set()
    if not m.captured:
        return out
    v = b.variant
    w, bl, k, t = b.key()
    legal = core(v).captures(w, bl, k, t)
    if v.king_priority:
        free = _rule_core(v, False, v.majority_rule).captures(w, bl, k, t)
        if set(free) - set(legal):
            out.add("king_priority")
    if v.majority_rule:
        free = _rule_core(v, v.king_priority, False).captures(w, bl, k, t)
        if set(free) - set(legal):
            out.add("majority")
    if _turkish_strike(b, m):
        out.add("turkish_strike")
    g = b.geo
    is_man = not b.kings & (1 << g.bit_of[m.start])
    if is_man and v.men_capture_backward:
        crown = g.white_crown if b.turn else g.black_crown
        for route in m.routes:
            if (
                any(crown >> g.bit_of[s] & 1 for s in route[1:-1])
                and not crown >> g.bit_of[route[-1]] & 1
            ):
                out.add("no_crown_in_passing")
    return out


def turkish_setup(b: Board) -> bool:
    """Whether the side to move has a move after which a capture of the opponent is cut short by
    the Turkish rule (the pieces it jumps stay on the board until the capture ends): the position
    where a coup turc or a coup suisse can start. A cheap look, one ply and the replies, that
    mining for those rare shots uses to choose the positions worth proving.

    >>> turkish_setup(Board("international", "B:W35,38,39,40,K41,47,48,49,50:B1,2,4,13,15,24,25,31,36"))
    True
    >>> turkish_setup(Board("czech"))
    False
    """
    b = b.copy(stack=False)
    for m in b.legal_moves:
        b.push(m)
        try:
            if any(r.captured and _turkish_strike(b, r) for r in b.legal_moves):
                return True
        finally:
            b.pop()
    return False


#: cheap looks at a position for where a rare shot can start (see :func:`mine`'s ``focus``)
SHOT_SETUPS: dict[str, Callable[[Board], bool]] = {
    "coup_turc": turkish_setup,
    "coup_suisse": turkish_setup,
}


def motif_sacrifices(line: SolutionLine) -> int:
    """Solver moves answered by a defender capture (material offered)."""
    mv = line.moves
    return sum(1 for i in range(0, len(mv) - 1, 2) if mv[i + 1].captured)


def motif_final_capture(line: SolutionLine) -> int:
    """Pieces taken by the solver's last capture (0 when the solver never captures)."""
    for m in reversed(line.solver_moves):
        if m.captured:
            return len(m.captured)
    return 0


def motif_crowning(line: SolutionLine) -> bool:
    """A solver man is crowned in the line."""
    return any(m.crowns for m in line.solver_moves)


def motif_rules(line: SolutionLine) -> set[str]:
    """The capture rules that shape any capture of the line (see :func:`rule_motifs`)."""
    out: set[str] = set()
    for b, m in line.boards():
        out |= rule_motifs(b, m)
    return out


def motif_blockade(line: SolutionLine) -> bool:
    """The defender ends with pieces but no legal move."""
    fb = line.final()
    own = fb.white if fb.turn else fb.black
    return bool(own) and not fb.legal_moves


def motif_breakthrough(line: SolutionLine) -> bool:
    """Sacrifices that open the way for a man to crown (a breakthrough)."""
    return motif_sacrifices(line) > 0 and motif_crowning(line)


def motif_shot(line: SolutionLine) -> bool:
    """The classic shot: material given, then a multi-capture of two or more pieces."""
    return motif_sacrifices(line) > 0 and motif_final_capture(line) >= 2


def motif_king_shot(line: SolutionLine) -> bool:
    """The decisive multi-capture is made by a king."""
    for b, m in reversed(list(line.boards())[0::2]):
        if m.captured:
            return len(m.captured) >= 2 and bool(b.kings & (1 << b.geo.bit_of[m.start]))
    return False


#: name -> predicate; integer results become ``name:N`` tags (when > 0), booleans ``name``
MOTIF_PREDICATES: dict[str, Callable[[SolutionLine], object]] = {
    "sacrifice": motif_sacrifices,
    "capture": motif_final_capture,
    "crowning": motif_crowning,
    "blockade": motif_blockade,
    "breakthrough": motif_breakthrough,
    "shot": motif_shot,
    "king_shot": motif_king_shot,
}


def motifs(line: SolutionLine) -> tuple[str, ...]:
    """Every motif of ``line`` as tags, e.g. ``('sacrifice:2', 'capture:3', 'shot', 'majority')``.

    >>> b = Board("czech", "W:W28,K29:B18,11,4,24")
    >>> motifs(SolutionLine.from_texts(b, ["29x15x8"]))
    ('capture:2', 'king_shot', 'king_priority')
    """
    tags: list[str] = []
    for name, pred in MOTIF_PREDICATES.items():
        val = pred(line)
        if isinstance(val, bool):
            if val:
                tags.append(name)
        elif isinstance(val, int) and val > 0:
            tags.append(f"{name}:{val}")
    tags.extend(sorted(motif_rules(line)))
    tags.extend(named_shots(Line.from_moves(line.board, line.moves, rule_motifs)))
    return tuple(dict.fromkeys(tags))  # a motif that is also a shot's name once


#: named shots common enough in games to count less in :func:`quality` than the classical coups
COMMON_SHOTS = frozenset({"breakthrough", "lock"})


def quality(goal: str, horizon: int | None, motifs: Sequence[str]) -> int:
    """An estimate (0-100) of how much a puzzle is worth showing as the daily puzzle, before
    players have said what they think of it: a classical named shot, sacrifices and length count;
    a forced capture (the rules exercise of the ``capture`` goal) counts little.

    >>> quality("capture", 1, ["capture:1"])
    0
    >>> quality("gain:2", 3, ["sacrifice:2", "capture:3", "shot", "coup_philippe"])
    75
    """
    parts = [m.partition(":") for m in motifs]
    names = {name for name, _, _ in parts}
    sacrificed = max(
        (int(n) for name, _, n in parts if name == "sacrifice" and n.isdecimal()), default=0
    )
    shots = {s.name for s in SHOTS} & names
    q = 0
    if shots - COMMON_SHOTS:
        q += 40
    elif shots:
        q += 15
    q += 10 * min(3, sacrificed)
    q += 5 * min(4, max(0, (horizon or 1) - 1))
    q += 5 * ("shot" in names) + 5 * ("king_shot" in names)
    if goal == "win":
        q += 10
    if goal == "capture":
        q = q // 3
    return min(100, q)


def difficulty(line: SolutionLine, verdict: Verdict | None = None) -> int:
    """A rating between 800 and 2200 from the length, sacrifices, quietness, rule traps and the
    width of the proof tree.

    >>> b = Board("czech", "W:W28,K29:B18,11,4,24")
    >>> difficulty(SolutionLine.from_texts(b, ["29x15x8"], "capture"))
    1050
    """
    tags = motifs(line)
    n = len(line.solver_moves)
    r = 800.0
    if line.goal == "capture":
        m = line.moves[0]
        r += 100 * max(0, len(m.captured) - 1)
        r += 150 * sum(
            t in tags
            for t in ("king_priority", "majority", "turkish_strike", "no_crown_in_passing")
        )
        r += 50 * max(0, len(m.path) - len(m.captured))
        others = len(line.board.legal_moves)
        r += 0 if others > 1 else 0
    else:
        r += 250 * (n - 1)
        r += 120 * motif_sacrifices(line)
        if not line.moves[0].captured:
            r += 150
        r += 75 * sum(
            t in tags
            for t in ("majority", "turkish_strike", "no_crown_in_passing", "king_priority")
        )
        if line.goal == "win":
            r += 100
        if verdict is not None and verdict.proof:
            width = sum(p.size() for p in verdict.proof)
            r += min(250, 60 * max(0.0, _log2(width) - 2))
            r += min(150, 40 * verdict.duals)
        r += 30 * len(line.board.legal_moves) if n > 1 else 0
    return int(max(800, min(2200, round(r / 10) * 10)))


def _log2(x: int) -> float:
    return float(x.bit_length() - 1) if x > 0 else 0.0


# -- mined puzzles --------------------------------------------------------------------------------


@dataclass(frozen=True)
class MinedPuzzle:
    """A proven-unique puzzle with its tags, ready for PDN or the database."""

    variant: str
    fen: str
    goal: str
    horizon: int
    solution: tuple[str, ...]
    motifs: tuple[str, ...]
    difficulty: int
    source: str
    duals: int = 0
    nodes: int = 0
    engine_version: str = ""
    #: the verdict that proves it, as compact JSON (shipped in the ``Proof`` tag), or ""
    proof: str = ""

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["solution"] = list(self.solution)
        d["motifs"] = list(self.motifs)
        return d


def _board_at(variant: Variant, pos: Position) -> Board:
    b = Board(variant)
    b.white, b.black, b.kings, b.turn = pos
    b.clear_stack()
    return b


def _balance(pos: Position) -> int:
    w, b, k, t = pos
    own, opp = (w, b) if t else (b, w)
    return own.bit_count() + 2 * (own & k).bit_count() - opp.bit_count() - 2 * (opp & k).bit_count()


def mined_puzzle(board: Board, v: Verdict, source: str) -> MinedPuzzle:
    """A proven verdict of ``board`` as a puzzle: its motifs (with the named shots), difficulty and
    proof."""
    line = SolutionLine.from_texts(board, v.solution, v.goal)
    return MinedPuzzle(
        variant=board.variant.name,
        fen=board.fen(),
        goal=v.goal,
        horizon=v.horizon,
        solution=v.solution,
        motifs=motifs(line),
        difficulty=difficulty(line, v),
        source=source,
        duals=v.duals,
        nodes=v.nodes,
        engine_version=v.engine_version,
        proof=v.to_json(separators=(",", ":")),
    )


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
    gain = score - _balance(pos)
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


# -- self-play ------------------------------------------------------------------------------------


def choose_move(c: Core, pos: Position, rng: random.Random, skill: float = 0.6) -> RawMove | None:
    """The cheap player: with probability ``skill`` the best move by a 2-ply material look-ahead
    (ties broken at random), else a random move, larger captures preferred."""
    moves = c.moves(*pos)
    if not moves:
        return None
    if len(moves) == 1:
        return moves[0]
    w, b, k, t = pos
    if rng.random() < skill:
        depth = 1 if rng.random() < 0.5 else 2
        scored = [
            (-material_search(c, *c.make(w, b, k, t, m), not t, depth - 1), rng.random(), m)
            for m in moves
        ]
        return max(scored)[2]
    weights = [1 + 3 * m[2].bit_count() for m in moves]
    return rng.choices(moves, weights)[0]


def play_game(
    variant: str | Variant, rng: random.Random, max_plies: int = 160, skill: float = 0.6
) -> list[Position]:
    """The positions (before each move) of one self-play game, seeded by ``rng``; the game stops
    when a side cannot move or after ``max_plies``."""
    v = find_variant(variant)
    c = core(v)
    b = Board(v)
    pos: Position = b.key()
    out: list[Position] = []
    for _ in range(max_plies):
        m = choose_move(c, pos, rng, skill)
        out.append(pos)
        if m is None:
            break
        w, bl, k = c.make(*pos, m)
        pos = (w, bl, k, not pos[3])
    return out


#: random safe opening plies of the games mined for the corpus and by the workers (see
#: :func:`engine_game`)
VARIED = 4


#: tempting other moves examined in each position of a natural game mined for the corpus and by
#: the workers (see :func:`tempting_moves`)
SIDELINES = 4


def varied_label(varied: int) -> str:
    """The part of a mined puzzle's source naming its games' random opening plies (none for the
    two of the first corpus).

    >>> varied_label(2), varied_label(4)
    ('', ' varied 4')
    """
    return "" if varied == 2 else f" varied {varied}"


def engine_game(
    variant: str | Variant,
    seed: int,
    level: int = 4,
    max_plies: int = 160,
    nodes: int | None = None,
    varied: int = 2,
) -> list[Position]:
    """The positions (before each move) of a game :mod:`dama.search` plays against itself at
    ``level`` (>= 4 gives natural positions: both sides play sound moves, and a mistake is a
    real one), from one of the balanced openings :data:`dama.search.OPENINGS` picked by ``seed``,
    followed by ``varied`` plies chosen at random among moves a 2-ply look-ahead finds safe, so
    that the openings vary (two give about 600 different starts, which a few thousand games
    exhaust: the engine's own choices vary little; four give about 30,000). ``nodes`` bounds
    each move's search (faster, weaker: more mistakes to punish).
    """
    from .search import LEVELS, OPENINGS, best_move, search

    v = find_variant(variant)
    rng = random.Random(seed)
    c = core(v)
    b = Board(v)
    out: list[Position] = []
    for route in OPENINGS[v.name][rng.randrange(len(OPENINGS[v.name]))]:
        out.append(b.key())
        b.push(b.parse_move(route))
    for _ in range(varied):  # varied plies, among the moves a short look-ahead finds safe
        pos = b.key()
        moves = c.moves(*pos)
        if not moves:
            return out
        safe = [m for m in moves if -material_search(c, *c.make(*pos, m), not pos[3], 1) >= 0]
        out.append(pos)
        b.push(_move_of(b, rng.choice(safe or moves)))
    lv = LEVELS[level]
    while len(out) < max_plies:
        out.append(b.key())
        if b.outcome() is not None:
            break
        if nodes is not None:
            r = search(b, depth=lv.depth, nodes=nodes, seed=rng.randrange(1 << 30))
        else:
            r = best_move(b, level, seed=rng.randrange(1 << 30))
        b.push(r.move)
    return out


def tempting_moves(
    c: Core, pos: Position, played: Position | None, limit: int, rng: random.Random
) -> list[tuple[RawMove, Position]]:
    """Up to ``limit`` moves of the side to move in ``pos``, other than the one that led to
    ``played``, that give nothing away at a glance (after them the opponent's pending captures
    win no material), with the positions they lead to, in random order.

    These are the mistakes a player could make in a game's position: a move that looks safe and
    allows a shot is the classical puzzle (the opponent's last move allowed it). Mining them as
    well as the moves the engine played finds several times more puzzles per game played.
    """
    w, b, k, t = pos
    base = _balance(pos)
    out = []
    for m in c.moves(w, b, k, t):
        after = (*c.make(w, b, k, t, m), not t)
        if after == played:
            continue
        if material_search(c, *after, 0) + base <= 0:
            out.append((m, after))
    rng.shuffle(out)
    return out[:limit]


def _move_of(b: Board, m: RawMove) -> Move:
    g = b.geo
    for mv in b.legal_moves:
        cap = 0
        for sq in mv.captured:
            cap |= 1 << g.bit_of[sq]
        if (1 << g.bit_of[mv.start], 1 << g.bit_of[mv.end], cap) == m:
            return mv
    raise ValueError("not a legal move")  # pragma: no cover - moves come from the generator


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
        nb = _board_at(v, (*c.make(w, b, k, t, m), not t))
        if solve(nb, pz.goal, lim, all_cooks=False).kind == "no_solution":
            return True
    return False


def _pdn_part(
    text: str, v: Variant, part: tuple[int, int]
) -> Iterator[tuple[int, Game | GameError]]:
    """The entries ``i`` (from 1) of a PDN text with ``(i - 1) % n == k`` for ``part`` ``(k, n)``."""
    k, n = part
    for gi, game in enumerate(read_games(text, default_variant=v), 1):
        if (gi - 1) % n == k:
            yield gi, game


def pdn_positions(
    text: str, variant: str | Variant, part: tuple[int, int] = (0, 1)
) -> Iterator[tuple[str, Position]]:
    """(source label, position) for the position before every move of the main line of every
    game of ``variant`` in a PDN text (read by :func:`dama.pdn.read_games`; entries that are not
    readable games of the variant are skipped). ``part`` ``(k, n)``: only the entries ``i``
    (from 1) with ``(i - 1) % n == k``, so that ``n`` workers share a file."""
    v = find_variant(variant)
    for gi, game in _pdn_part(text, v, part):
        if isinstance(game, GameError) or game.variant != v:
            continue
        b = game.board()
        for node in game.moves:
            yield (f"pdn game {gi} ply {b.ply}", b.key())
            assert node.move is not None  # replayed by the reader
            b.push(node.move)


def pdn_games(
    text: str, variant: str | Variant, part: tuple[int, int] = (0, 1)
) -> tuple[int, list[str]]:
    """How many readable games of ``variant`` the entries of ``part`` of a PDN text hold (those
    :func:`pdn_positions` mines) and why the first three others cannot be mined."""
    v = find_variant(variant)
    games = 0
    problems: list[str] = []
    for gi, game in _pdn_part(text, v, part):
        if isinstance(game, GameError):
            problem = f"{gi}: {game.message}"
        elif game.variant != v:
            problem = f"{gi}: {game.variant.name}"
        else:
            games += 1
            continue
        if len(problems) < 3:
            problems.append(problem)
    return games, problems


def mine(
    variant: str | Variant,
    count: int,
    seed: int = 0,
    *,
    mix: dict[str, float] | None = None,
    positions: Iterable[tuple[str, Position]] | None = None,
    limits: Limits = MINING_LIMITS,
    progress: Callable[[int, int, dict[str, int]], None] | None = None,
    max_games: int = 100_000,
    natural: bool = False,
    level: int = 4,
    nodes: int | None = None,
    first_game: int = 1,
    skip: Callable[[str, str], bool] | None = None,
    varied: int = 2,
    sidelines: int = 0,
    sideline_plies: int = 1,
    focus: Callable[[Board], bool] | None = None,
    deep: bool = False,
    min_length: int = 1,
) -> Iterator[MinedPuzzle]:
    """Yield ``count`` proven-unique puzzles of ``variant``, from seeded self-play games (or from
    ``positions``, e.g. :func:`pdn_positions`), with goal kinds in the proportions ``mix``.

    ``natural``: the games are played by :func:`engine_game` at ``level`` (``nodes`` per move,
    ``varied`` random opening plies), games ``first_game`` to ``first_game + max_games - 1`` of
    ``seed``, and a ``gain`` puzzle is
    kept only when the opponent's last move allowed it (:func:`was_allowed`); PDN ``positions``
    are held to the same rule when ``natural`` is set. ``sidelines``: in each position of a
    natural game, also up to that many other moves the side to move could have played
    (:func:`tempting_moves`) are examined for a shot they allow; such a puzzle's source names the
    move (``... ply 12 after 32-28``); ``sideline_plies`` 2: and from each of those, as many
    tempting replies (``... ply 13 after 32-28 19-23``: two plausible moves off the game, for the
    rarest shots). ``skip(fen, goal)`` is True for a puzzle already known
    (mining is resumable: known puzzles are not yielded again). ``focus(board)``: only the
    positions it accepts are examined (e.g. :data:`SHOT_SETUPS`, for a rare shot). ``deep``:
    candidates picked by :data:`DEEP_LOOK_AHEAD` and proven within :data:`DEEP_LIMITS` (for
    puzzles of 5 and more moves; far slower a puzzle). ``min_length``: gain puzzles of fewer
    solver moves are passed over before their proof (see :func:`examine`).

    ``progress(games, found, per_kind)`` is called after each game. Positions are never repeated.
    """
    v = find_variant(variant)
    mix = dict(DEFAULT_MIX if mix is None else mix)
    total = sum(mix.values()) or 1.0
    quota = {kind: max(1, round(count * share / total)) for kind, share in mix.items() if share > 0}
    while sum(quota.values()) > count and quota:
        biggest = max(quota, key=lambda q: quota[q])
        quota[biggest] -= 1
    got = dict.fromkeys(quota, 0)
    seen: set[Position] = set()
    lines: set[tuple[str, str, str]] = set()
    found = 0
    rng = random.Random(seed)
    look_ahead = LOOK_AHEAD[v.size]
    if deep:
        look_ahead, limits = DEEP_LOOK_AHEAD[v.size], DEEP_LIMITS
    elif v.size == 10 and limits is MINING_LIMITS:
        # the 10x10 board: wider trees, so cheaper filters and smaller proofs per candidate
        limits = MINING_LIMITS_10x10

    c = core(v)

    def stream() -> Iterator[tuple[str, Position, bool, Position | None]]:
        if positions is not None:
            prev: tuple[str, Position] | None = None
            for label, pos in positions:
                game_label = label.rsplit(" ply ", 1)[0]
                yield (label, pos, False, prev[1] if prev and prev[0] == game_label else None)
                prev = (game_label, pos)
            return
        for gno in range(first_game, first_game + max_games):
            if natural:
                game = engine_game(v, seed * 1_000_003 + gno, level, 160, nodes, varied)
                source = f"engine {v.name} level {level}{varied_label(varied)} seed {seed}"
            else:
                game = play_game(v, rng, max_plies=200 if v.size == 10 else 160)
                source = f"selfplay {v.name} seed {seed}"
            won = not c.moves(*game[-1])
            for ply, p in enumerate(game):
                # the winner to move in the last moves of a decided game: a win puzzle candidate
                near_end = won and len(game) - ply <= 9 and (len(game) - ply) % 2 == 0
                yield (
                    f"{source} game {gno} ply {ply}",
                    p,
                    near_end,
                    game[ply - 1] if ply else None,
                )
                if sidelines and natural and ply + 1 < len(game):
                    b = _board_at(v, p)
                    side_rng = random.Random(seed * 1_000_003 + gno + ply)
                    for m, q in tempting_moves(c, p, game[ply + 1], sidelines, side_rng):
                        route = _move_of(b, m).route_str()
                        yield (f"{source} game {gno} ply {ply + 1} after {route}", q, False, p)
                        if sideline_plies < 2:
                            continue
                        b2 = _board_at(v, q)
                        for m2, q2 in tempting_moves(c, q, None, sidelines, side_rng):
                            route2 = _move_of(b2, m2).route_str()
                            label = f"{source} game {gno} ply {ply + 2} after {route} {route2}"
                            yield (label, q2, False, q)
            if progress is not None:
                progress(gno, found, dict(got))

    for label, p, near_end, before in stream():
        if found >= count:
            return
        if p in seen:
            continue
        seen.add(p)
        open_kinds = [kk for kk, q in quota.items() if got[kk] < q]
        if not open_kinds:
            return
        if open_kinds == ["win"] and not near_end:
            continue
        if natural and "gain" in open_kinds:
            # a gain the opponent's last move allowed: the solver ends up ahead of where it stood
            # before that move (not the recapture of an exchange in progress)
            ahead = (
                before is not None and material_search(c, *p, look_ahead) + _balance(before) >= 1
            )
            if not ahead:
                open_kinds = [kk for kk in open_kinds if kk != "gain"]
                if not open_kinds:
                    continue
        board = _board_at(v, p)
        if focus is not None and not focus(board):
            continue
        for pz in examine(board, open_kinds, label, limits, look_ahead, near_end, min_length):
            kind = pz.goal.split(":")[0]
            if got.get(kind, 0) >= quota.get(kind, 0):
                continue
            # near duplicates (the same shot a ply later) teach nothing new
            same = (kind, pz.solution[0], pz.solution[-1])
            if same in lines:
                continue
            if skip is not None and skip(pz.fen, pz.goal):
                continue
            if natural and kind == "gain" and (before is None or not was_allowed(v, before, p, pz)):
                continue
            lines.add(same)
            got[kind] += 1
            found += 1
            yield pz
            if found >= count:
                return


def random_capture_positions(
    variant: str | Variant, rng: random.Random, pieces: tuple[int, int] = (3, 9)
) -> Iterator[Position]:
    """Endless random placements (kings likely) in which the side to move must capture: a source
    of capture puzzles for rules that self-play rarely shows, such as the Turkish strike."""
    v = find_variant(variant)
    b = Board(v)
    g = b.geo
    while True:
        squares = rng.sample(range(1, g.squares + 1), rng.randint(*pieces) + rng.randint(1, 3))
        n_own = rng.randint(1, 2)
        turn = rng.random() < 0.5
        w = bl = k = 0
        for i, sq in enumerate(squares):
            bit = 1 << g.bit_of[sq]
            mine_side = i < n_own
            white = mine_side == turn
            crown = g.white_crown if white else g.black_crown
            king = mine_side and rng.random() < 0.7 or bool(bit & crown) or rng.random() < 0.1
            if white:
                w |= bit
            else:
                bl |= bit
            if king:
                k |= bit
        pos = (w, bl, k, turn)
        if core(v).captures(*pos):
            yield pos


def mine_rule_captures(
    variant: str | Variant, count: int, motif: str, seed: int = 0, max_tries: int = 200_000
) -> Iterator[MinedPuzzle]:
    """``capture`` puzzles whose one legal capture is shaped by the capture rule ``motif``
    (``turkish_strike``, ``majority``, ``king_priority``, ``no_crown_in_passing``), from random
    placements."""
    v = find_variant(variant)
    rng = random.Random(seed)
    found = 0
    for tries, pos in enumerate(random_capture_positions(v, rng)):
        if found >= count or tries >= max_tries:
            return
        b = _board_at(v, pos)
        legal = b.legal_moves
        if len(legal) != 1 or motif not in rule_motifs(b, legal[0]):
            continue
        verdict = solve(b, "capture")
        if verdict.kind == "unique":
            found += 1
            yield mined_puzzle(b, verdict, f"random placement {v.name} seed {seed} try {tries}")


# -- PDN ------------------------------------------------------------------------------------------


def puzzle_pdn(p: MinedPuzzle, extra_tags: Mapping[str, str] | None = None) -> str:
    """One puzzle as a PDN entry: the position in ``FEN``, the puzzle tags, then ``extra_tags``
    (a ``Title``, a ``Proof``, ...)."""
    v = find_variant(p.variant)
    tags = {
        "Event": "dama_learn puzzle",
        "GameType": str(v.gametype),
        "SetUp": "1",
        "FEN": p.fen,
        "Goal": p.goal,
        "Horizon": str(p.horizon),
        "Solution": " ".join(p.solution),
        "Motifs": " ".join(p.motifs),
        "Difficulty": str(p.difficulty),
        "Duals": str(p.duals),
        "Source": p.source,
        "Engine": p.engine_version,
        **({"Proof": p.proof} if p.proof else {}),
        **(extra_tags or {}),
    }
    return position_pdn(Board(v, p.fen), tags)


def puzzles_pdn(puzzles: Iterable[MinedPuzzle]) -> str:
    """Puzzles as one PDN text, games separated by a blank line."""
    return "\n".join(puzzle_pdn(p) for p in puzzles)


# -- command line ---------------------------------------------------------------------------------


def cli_mine(args: Any) -> int:
    """``python -m dama mine``: mine puzzles and write them as PDN, one game at a time (so a long
    run can be watched and interrupted); progress goes to stderr."""
    import sys
    import time

    from .errors import DamaError

    v = find_variant(args.variant)
    if args.count < 1:
        raise DamaError(f"--count must be at least 1, not {args.count}")
    mix = None
    if getattr(args, "mix", None):
        mix = {}
        for part in args.mix.split(","):
            name, _, share = part.partition("=")
            if name.strip() not in ("capture", "gain", "win"):
                raise DamaError(f"--mix: unknown goal {name.strip()!r} (capture, gain, win)")
            try:
                mix[name.strip()] = float(share)
            except ValueError:
                raise DamaError(f"--mix: {part!r} is not goal=share") from None
    positions = None
    if getattr(args, "from_pdn", None):
        try:
            with open(args.from_pdn, encoding="utf-8") as fh:
                text = fh.read()
        except OSError as e:
            raise DamaError(f"cannot read {args.from_pdn}: {e.strerror}") from None
        positions = pdn_positions(text, v)
    t0 = time.perf_counter()

    def progress(games: int, found: int, per_kind: dict[str, int]) -> None:
        if games % 25 == 0:
            kinds = " ".join(f"{k}={n}" for k, n in per_kind.items())
            sys.stderr.write(
                f"[{time.perf_counter() - t0:7.0f}s] games {games} puzzles {found} {kinds}\n"
            )
            sys.stderr.flush()

    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout  # noqa: SIM115
    try:
        n = 0
        rule = getattr(args, "rule", None)
        if rule and rule not in RULE_MOTIFS:
            raise DamaError(f"--rule: unknown capture rule {rule!r} ({', '.join(RULE_MOTIFS)})")
        found = (
            mine_rule_captures(v, args.count, rule, args.seed)
            if rule
            else mine(v, args.count, args.seed, mix=mix, positions=positions, progress=progress)
        )
        for pz in found:
            if n:
                out.write("\n")
            out.write(puzzle_pdn(pz))
            out.flush()
            n += 1
        sys.stderr.write(f"[{time.perf_counter() - t0:7.0f}s] done: {n} puzzles\n")
    finally:
        if out is not sys.stdout:
            out.close()
    return 0
