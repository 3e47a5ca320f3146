"""Mining, the tagger: what a proven puzzle shows, how hard it is, what it is worth.

Motifs are small pure predicates over the solution line (:data:`MOTIF_PREDICATES`: sacrifices,
the final capture, crowning, blockade, breakthrough, shot, king shot), plus the capture rules that
shape its captures (:func:`rule_motifs`) and the named shots of :mod:`dama.shots`, all collected
by :func:`motifs`; :func:`difficulty` rates a line and :func:`quality` estimates its worth as the
daily puzzle. :func:`mined_puzzle` turns a proven verdict into a :class:`MinedPuzzle` with its
tags, difficulty and proof: what the writer (:mod:`dama.mine.write`) and the site store.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .._core import Core, core
from ..baseboard import Move
from ..board import Board
from ..shots import SHOTS, Line, named_shots
from ..solve import Verdict
from ..variants import Variant

#: the capture rules :func:`rule_motifs` recognises
RULE_MOTIFS = ("king_priority", "majority", "turkish_strike", "no_crown_in_passing")


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


def is_turkish_strike(b: Board, m: Move) -> bool:
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
    if is_turkish_strike(b, m):
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
