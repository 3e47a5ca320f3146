"""The puzzle solver: prove that a puzzle has exactly one solution, against every defence.

Goals
=====

A puzzle is a position, a goal and a horizon ``H`` counted in moves of the side to move (the
*solver*; the other side is the *defender*). Material is counted man = 1, king = 3.

``capture``
    "Find the forced multi-jump." The side to move must capture; the answer is one move. The
    puzzle is unique when exactly one distinct legal move exists (routes with the same start, end
    and captured pieces are one move; the learner may enter any of them). A position without a
    capture has no solution. The horizon is always 1.

``gain:N``
    Within ``H`` moves of the solver, against every defence, reach a position where the side to
    move there has no capture pending and the solver's material balance (own - opponent) has grown
    by at least ``N`` (``N`` >= 1). The position may arise after a solver move (the defender to
    move, with no capture) or after a defender reply (the solver to move, with no capture), as
    long as the solver has made at most ``H`` moves. A defender left without pieces or without a
    legal move also reaches the goal.

``win``
    Within ``H`` moves of the solver, against every defence, the defender is to move and has no
    piece or no legal move (a loss for the defender).

Uniqueness
    A puzzle is *unique* when exactly one first move reaches the goal within ``H + 2`` solver moves
    (the margin catches slower second solutions) and that move reaches it within ``H``. At later
    moves of the solver, every move that still reaches the goal within the remaining horizon is
    kept in the proof and accepted from a learner; ``duals`` counts these extra moves (over all the
    solver's turns in the proof tree, each turn with ``k`` accepted moves adds ``k - 1``).

With endgame databases (:mod:`dama.endgames`, ``$DAMA_ENDGAMES``), a ``win`` search ends at
every covered position: the databases give the exact number of solver moves to the win (or none),
so proofs stop there.

Draw rules are ignored inside a puzzle horizon: repetitions cannot help the defender in a few
moves, and the 15/25-move and endgame counts are far longer than any puzzle. A solver left without
a legal move fails.

Verdicts
========

:func:`solve` returns a :class:`Verdict` value, never raising for a normal outcome:

* ``unique``: ``solution`` is the main line (solver and defender alternating, each defender move
  the most stubborn one: the reply that delays the goal longest); ``proof`` is the proof tree
  (every defender reply, and after it every solver move that keeps the goal); ``length`` is the
  minimal number of solver moves;
* ``cooked``: ``alternatives`` holds each other working first move with a line for it;
* ``no_solution``: ``refutation`` is the best try (by a short material look-ahead) followed by the
  defence that refutes it, ``reason`` says why in words;
* ``undecided``: a limit (nodes, seconds, depth) ran out; ``searched`` says what was done.

Moves in verdicts are written as full numeric routes (``46x37x48x25``); proof nodes also carry the
start, end and sorted captured squares so any equivalent route can be matched. Every verdict records
:data:`dama.ENGINE_VERSION` and the :class:`Limits` used.

Search
======

An exact AND-OR depth-first search on the raw-int move generator of :mod:`dama._core`, with
iterative deepening on the horizon (the minimal solution length is found first), a transposition
table keyed by position and remaining solver moves (proven with an upper bound on the distance,
or disproven up to a horizon), move ordering (the move that worked or refuted before first; at the
last solver move only captures and crownings can gain material, so only they are tried) and the
compulsory-capture rule, which makes the trees narrow.

The search is also compiled with mypyc (:mod:`dama._loader`), and most of its time in native code
goes to Python objects, so it is written to make few: one table per side to move, compiled an open
addressing table in a list (:class:`_Table`: a lookup makes no object, where a dict would need a
key tuple of three boxed ints), each position's entry one object changed in place (proven, failed,
best move), not tracked by the garbage collector; run as Python the same entries in a dict keyed
by tuples. Captures are the generator's tuples passed on as they are; quiet moves are played as
they are found (no list), the best move first and then the generator's order, so both orders are
the same; a node without a possible capture asks for none. Only nodes that searched below
themselves are stored: a leaf (the goal reached, no move, no move left) would store only what it
finds again by itself at the same cost, one node (a solver node with no move left, never stored,
does not even look its position up). An entry is changed in place, so what the search below a node
stored for that same position (kings can go back and forth) is kept when the node stores its own
result.

>>> from dama import Board
>>> v = solve(Board("czech", "W:W28,K29:B18,11,4,24"), "capture")
>>> v.kind, v.solution
('unique', ('29x15x8',))
>>> v = solve(Board("czech", "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15"), "gain:1")
>>> v.kind, v.length, v.solution
('unique', 2, ('22-17', '13x22', '25x18x11'))
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import FunctionType
from typing import TYPE_CHECKING, Any, Final, cast, final

from ._core import ONE, Core, RawMove, bit_index, core, popcount
from .egtb import Lookup
from .errors import DamaError
from .notation import read_number
from .proof import ProofMove, ProofTree

if TYPE_CHECKING:
    from mypy_extensions import i64  # a machine word when compiled (see dama._core)

    from .baseboard import Move
    from .board import Board

try:  # read by mypyc alone (compiled, the decorator is dropped); dama does not need it
    from mypy_extensions import mypyc_attr
except ImportError:  # pragma: no cover - without mypy installed

    def mypyc_attr(*args: object, **kwargs: object) -> Callable[[type], type]:  # type: ignore[misc]
        return lambda cls: cls


__all__ = [
    "GOAL_KINDS",
    "VERDICT_KINDS",
    "Goal",
    "InvalidGoalError",
    "InvalidLimitsError",
    "Limits",
    "Progress",
    "Verdict",
    "is_unique",
    "parse_goal",
    "shortest",
    "solve",
]

GOAL_KINDS = ("capture", "gain", "win")
VERDICT_KINDS = ("unique", "cooked", "no_solution", "undecided")
#: default horizon (moves of the solver) of the gain and win goals
DEFAULT_MOVES = 5
#: the most material a ``gain:N`` goal may ask for (two digits: no position holds that much)
MAX_GAIN = 99

#: progress callback: (nodes searched, current horizon in plies, seconds elapsed)
Progress = Callable[[int, int, float], None]

_INF: Final = 1 << 30
#: beyond every horizon (at most 30 + 2 solver moves), and a small int (no allocation when boxed)
_FAR: Final = 255
_CHECK_EVERY: Final = 10_000
_MAX_PROOF_NODES = 5_000


class InvalidGoalError(DamaError):
    """A goal text that is not ``capture``, ``gain:N`` (N >= 1) or ``win``."""


class InvalidLimitsError(DamaError):
    """A horizon or limit out of range."""


# -- goals and limits -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Goal:
    """What the solver must achieve: ``Goal("capture")``, ``Goal("gain", 2)``, ``Goal("win")``.

    >>> str(parse_goal("gain:2")), parse_goal("WIN").kind
    ('gain:2', 'win')
    """

    kind: str
    n: int = 0

    def __post_init__(self) -> None:
        if self.kind not in GOAL_KINDS:
            raise InvalidGoalError(
                f"unknown goal {self.kind!r}: write capture, gain:N (N >= 1) or win"
            )
        if self.kind == "gain" and not 1 <= self.n <= MAX_GAIN:
            raise InvalidGoalError(
                f"gain:{self.n}: the material to gain must be at least 1 and at most {MAX_GAIN}"
            )
        if self.kind != "gain" and self.n != 0:
            raise InvalidGoalError(f"the goal {self.kind} takes no number")

    def __str__(self) -> str:
        return f"gain:{self.n}" if self.kind == "gain" else self.kind

    @property
    def default_moves(self) -> int:
        """The horizon used when none is given: 1 for capture, else :data:`DEFAULT_MOVES`."""
        return 1 if self.kind == "capture" else DEFAULT_MOVES


def parse_goal(text: str | Goal) -> Goal:
    """Read ``capture``, ``gain:N`` or ``win``; raises :class:`InvalidGoalError`.

    >>> parse_goal("gain:3")
    Goal(kind='gain', n=3)
    """
    if isinstance(text, Goal):
        return text
    if not isinstance(text, str):
        raise InvalidGoalError("the goal must be text: capture, gain:N or win")
    t = text.strip().lower()
    if t.startswith("gain"):
        _, sep, num = t.partition(":")
        n = read_number(num) if sep else None
        if n is None:
            raise InvalidGoalError(
                f"{text[:20]!r}: write gain:N with a whole number N from 1 to {MAX_GAIN}, "
                "e.g. gain:2"
            )
        return Goal("gain", n)
    if t in ("capture", "win"):
        return Goal(t)
    raise InvalidGoalError(f"unknown goal {text!r}: write capture, gain:N (N >= 1) or win")


@dataclass(frozen=True, slots=True)
class Limits:
    """The search limits, stored with every verdict.

    ``moves`` is the horizon ``H`` in moves of the solver (None: the goal's default); ``nodes`` and
    ``seconds`` bound the whole search; ``max_depth`` bounds the horizon searched, in plies (the
    uniqueness margin searches ``2 * (H + 2)`` plies).
    """

    moves: int | None = None
    nodes: int = 2_000_000
    seconds: float = 60.0
    max_depth: int = 40

    def __post_init__(self) -> None:
        if self.moves is not None and not 1 <= self.moves <= 30:
            raise InvalidLimitsError(f"the horizon must be 1-30 moves, not {self.moves}")
        if self.nodes < 1:
            raise InvalidLimitsError(f"the node limit must be at least 1, not {self.nodes}")
        if not self.seconds > 0:
            raise InvalidLimitsError(f"the time limit must be positive, not {self.seconds}")
        if self.max_depth < 1:
            raise InvalidLimitsError(f"max_depth must be at least 1 ply, not {self.max_depth}")

    def for_goal(self, goal: Goal) -> Limits:
        """These limits with the horizon filled in (always 1 for ``capture``)."""
        if goal.kind == "capture":
            return replace(self, moves=1)
        return self if self.moves is not None else replace(self, moves=goal.default_moves)

    def to_dict(self) -> dict[str, Any]:
        return {
            "moves": self.moves,
            "nodes": self.nodes,
            "seconds": self.seconds,
            "max_depth": self.max_depth,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Limits:
        return cls(
            moves=d.get("moves"),
            nodes=int(d.get("nodes", 2_000_000)),
            seconds=float(d.get("seconds", 60.0)),
            max_depth=int(d.get("max_depth", 40)),
        )


# -- verdicts ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """The result of :func:`solve`: a plain value, JSON-serialisable with :meth:`to_dict`."""

    kind: str
    variant: str
    fen: str
    goal: str
    #: the horizon H (moves of the solver) the verdict is about
    horizon: int
    limits: Limits
    engine_version: str
    #: minimal number of solver moves of the solution (0 when there is none)
    length: int = 0
    solution: tuple[str, ...] = ()
    proof: tuple[ProofMove, ...] = ()
    alternatives: tuple[tuple[str, ...], ...] = ()
    refutation: tuple[str, ...] = ()
    duals: int = 0
    nodes: int = 0
    seconds: float = 0.0
    #: the deepest horizon searched, in plies (two per solver move)
    depth: int = 0
    reason: str = ""
    searched: dict[str, Any] = field(default_factory=dict)
    proof_complete: bool = True

    @property
    def is_unique(self) -> bool:
        return self.kind == "unique"

    @cached_property
    def tree(self) -> ProofTree:
        """The proof as a :class:`~dama.proof.ProofTree` (accepted moves, stubborn replies).

        >>> from dama import Board
        >>> b = Board("czech", "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15")
        >>> v = solve(b, "gain:1", Limits(moves=2))
        >>> [m.text for m in v.tree.accepted(["22-17", "13x22"])]
        ['25x18x11']
        """
        return ProofTree(self.proof, self.solution, self.proof_complete)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "variant": self.variant,
            "fen": self.fen,
            "goal": self.goal,
            "horizon": self.horizon,
            "length": self.length,
            "solution": list(self.solution),
            "proof": [p.to_dict() for p in self.proof],
            "proof_complete": self.proof_complete,
            "alternatives": [list(a) for a in self.alternatives],
            "refutation": list(self.refutation),
            "duals": self.duals,
            "nodes": self.nodes,
            "seconds": self.seconds,
            "depth": self.depth,
            "reason": self.reason,
            "searched": dict(self.searched),
            "engine_version": self.engine_version,
            "limits": self.limits.to_dict(),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Verdict:
        return cls(
            kind=d["kind"],
            variant=d["variant"],
            fen=d["fen"],
            goal=d["goal"],
            horizon=int(d["horizon"]),
            limits=Limits.from_dict(d["limits"]),
            engine_version=d["engine_version"],
            length=int(d.get("length", 0)),
            solution=tuple(d.get("solution", ())),
            proof=ProofTree.from_dict(d).moves,
            alternatives=tuple(tuple(a) for a in d.get("alternatives", ())),
            refutation=tuple(d.get("refutation", ())),
            duals=int(d.get("duals", 0)),
            nodes=int(d.get("nodes", 0)),
            seconds=float(d.get("seconds", 0.0)),
            depth=int(d.get("depth", 0)),
            reason=d.get("reason", ""),
            searched=dict(d.get("searched", {})),
            proof_complete=bool(d.get("proof_complete", True)),
        )

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **kwargs)


# -- the search ----------------------------------------------------------------------------------


class _Abort(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _material(side: i64, kings: i64) -> i64:
    return popcount(side) + 2 * popcount(side & kings)


#: run as Python (not compiled), the tables are dicts (see :class:`_Table`)
_BY_DICT: Final = isinstance(_material, FunctionType)


@final
@mypyc_attr(acyclic=True)  # compiled: not tracked by the garbage collector (it holds no cycle)
class _Entry:
    """A position's entry in a :class:`_Table`: the position, the solver moves it needs at most
    (``d``; _FAR: not proven), the horizon it failed within (``f``; -1: none, _FAR: every one) and
    the move that last worked or refuted (``best``, or None). Changed in place: one object for
    each position."""

    __slots__ = ("w", "b", "k", "d", "f", "best")

    w: i64
    b: i64
    k: i64
    d: i64
    f: i64
    best: object

    def __init__(self, w: i64, b: i64, k: i64) -> None:
        self.w = w
        self.b = b
        self.k = k
        self.d = _FAR
        self.f = -1
        self.best = None


@final
class _Table:
    """A transposition table: positions to :class:`_Entry`.

    Compiled, by open addressing in a list (linear probing, at most half full): a lookup makes no
    Python object, where a dict would need a key (a tuple of three boxed ints). Run as Python, a
    dict keyed by tuples (:data:`_BY_DICT`): its lookup is one C call, where probing would be
    several lines of Python. Both are exact: the same entries, the same search."""

    slots: list[_Entry | None]
    shift: i64
    count: i64
    by_dict: bool
    map: dict[object, _Entry]

    def __init__(self) -> None:
        self.by_dict = _BY_DICT
        self.map = {}
        self.slots = [] if _BY_DICT else [None] * 1024
        self.shift = 21  # 31 - log2(len(slots)): a slot is the top bits of a 31-bit hash
        self.count = 0

    def find(self, w: i64, b: i64, k: i64) -> _Entry | None:
        """The entry of the position, or None."""
        if self.by_dict:
            return self.map.get((w, b, k))
        slots = self.slots
        mask: i64 = len(slots) - 1
        # a multiplicative hash of the position folded to 31 bits (no product exceeds 62 bits)
        x: i64 = w ^ (b << 5) ^ (k << 7)
        x = (x ^ (x >> 31)) & 0x7FFFFFFF
        i: i64 = ((x * 0x5BD1E995) & 0x7FFFFFFF) >> self.shift
        while True:
            e = slots[i]
            if e is None:
                return None
            if e.w == w and e.b == b and e.k == k:
                return e
            i = (i + 1) & mask

    def entry(self, w: i64, b: i64, k: i64) -> _Entry:
        """The entry of the position, made (not proven, never failed) when there is none."""
        if self.by_dict:
            key: object = (w, b, k)
            got = self.map.get(key)
            if got is None:
                got = _Entry(w, b, k)
                self.map[key] = got
            return got
        if 2 * (self.count + 1) > len(self.slots):
            self._grow()
        slots = self.slots
        mask: i64 = len(slots) - 1
        # a multiplicative hash of the position folded to 31 bits (no product exceeds 62 bits)
        x: i64 = w ^ (b << 5) ^ (k << 7)
        x = (x ^ (x >> 31)) & 0x7FFFFFFF
        i: i64 = ((x * 0x5BD1E995) & 0x7FFFFFFF) >> self.shift
        while True:
            e = slots[i]
            if e is None:
                e = _Entry(w, b, k)
                slots[i] = e
                self.count += 1
                return e
            if e.w == w and e.b == b and e.k == k:
                return e
            i = (i + 1) & mask

    def _grow(self) -> None:
        old = self.slots
        slots: list[_Entry | None] = [None] * (2 * len(old))
        self.slots = slots
        self.shift -= 1
        mask: i64 = len(slots) - 1
        shift = self.shift
        for e in old:
            if e is not None:
                x: i64 = e.w ^ (e.b << 5) ^ (e.k << 7)
                x = (x ^ (x >> 31)) & 0x7FFFFFFF
                i: i64 = ((x * 0x5BD1E995) & 0x7FFFFFFF) >> shift
                while slots[i] is not None:
                    i = (i + 1) & mask
                slots[i] = e


@final
class _Search:
    """The AND-OR search of one :func:`solve` call (its tables live as long as the call).

    Methods, not closures, over typed attributes: compiled by mypyc (:mod:`dama._loader`) the
    search runs as native code; run as Python it is the same code.
    """

    c: Core
    me: bool
    opp: bool
    is_gain: bool
    need: i64
    base: i64
    my_crown: i64
    opp_crown: i64
    max_nodes: i64
    deadline: float
    progress: Progress | None
    t0: float
    nodes: i64
    horizon: int
    next_check: i64
    #: the transposition tables, solver / defender to move
    or_table: _Table
    and_table: _Table
    #: the endgame databases (goal ``win`` only; None: not used), :mod:`dama.endgames`: a
    #: covered position is answered by them, the proof ends there
    eg: Lookup | None
    eg_max: i64

    def __init__(
        self,
        c: Core,
        me: bool,
        goal: Goal,
        base: int,
        limits: Limits,
        progress: Progress | None,
        t0: float,
    ) -> None:
        self.c = c
        self.me = me
        self.opp = not me
        self.is_gain = goal.kind == "gain"
        self.need = goal.n
        self.base = base
        self.my_crown = c.white_crown if me else c.black_crown
        self.opp_crown = c.black_crown if me else c.white_crown
        self.max_nodes = limits.nodes
        self.deadline = t0 + limits.seconds
        self.progress = progress
        self.t0 = t0
        self.nodes = 0
        self.horizon = 0
        self.next_check = min(_CHECK_EVERY, limits.nodes)
        self.or_table = _Table()
        self.and_table = _Table()
        self.eg = None
        self.eg_max = 0

    def balance(self, w: i64, b: i64, k: i64) -> i64:
        """The solver's material balance, relative to the start position."""
        if self.me:
            return _material(w, k) - _material(b, k) - self.base
        return _material(b, k) - _material(w, k) - self.base

    def check(self) -> None:
        self.next_check = min(self.nodes + _CHECK_EVERY, self.max_nodes)
        now = time.perf_counter()
        if self.progress is not None:
            self.progress(self.nodes, 2 * self.horizon, now - self.t0)
        if self.nodes >= self.max_nodes:
            raise _Abort("nodes")
        if now >= self.deadline:
            raise _Abort("seconds")

    def blocking(
        self, w: i64, b: i64, k: i64, moves: list[RawMove], skip: list[RawMove]
    ) -> list[RawMove]:
        """The solver's quiet ``moves`` (not in ``skip``) after which the defender has no
        legal move. A man's quiet move is stopped only by a piece on its landing square, so
        while the defender has no king, only a solver move onto the one square every defender
        quiet move lands on can block them all."""
        c, me, opp = self.c, self.me, self.opp
        theirs = (w if opp else b) & k
        cands = moves
        pending = c._captures(w, b, k, opp)
        if pending and not theirs and not any(p[2] & (p[2] - 1) for p in pending):
            # each pending single capture must go: its piece moved away or its square taken
            cands = [m for m in cands if all(m[0] == p[2] or m[1] == p[1] for p in pending)]
        # the first square of each defender quiet move: a man's landing square, a king's next
        # square along each open diagonal; one solver piece can take only one of them (a set of
        # squares as a bitboard)
        occ = w | b
        empty = c.valid & ~occ
        men = (w if opp else b) & ~k
        if opp:
            ends = ((men >> c.s_ul) | (men >> c.s_ur)) & empty
        else:
            ends = ((men << c.s_dl) | (men << c.s_dr)) & empty
        rays = c.rays
        x = theirs
        while x and not ends & (ends - 1):
            low = x & -x
            x ^= low
            for ray in rays[bit_index(low)]:
                if ray and not (occ >> ray[0]) & 1:
                    ends |= ONE << ray[0]  # not a local 1: see _core.ONE
        if ends & (ends - 1):
            return []
        if ends:
            cands = [m for m in cands if m[1] & ends]
        out = []
        frm: i64
        to: i64
        cap: i64
        for m in cands:
            if m in skip:
                continue
            frm, to, cap = m
            if k & frm:
                k2 = (k & ~frm & ~cap) | to
            else:
                k2 = k & ~cap
                if to & self.my_crown:
                    k2 |= to
            if me:
                w2, b2 = (w & ~frm) | to, b & ~cap
            else:
                w2, b2 = w & ~cap, (b & ~frm) | to
            if not c._count_quiets(w2, b2, k2, opp) and not c._captures(w2, b2, k2, opp):
                out.append(m)
        return out

    def or_node(self, w: i64, b: i64, k: i64, r: i64) -> i64:
        """Solver to move with ``r`` moves left: solver moves needed (an upper bound), or _INF."""
        self.nodes += 1
        if self.nodes >= self.next_check:
            self.check()
        c = self.c
        me = self.me
        own, them = (w, b) if me else (b, w)
        if r == 0:
            # no move left: the goal reached or not, here, whatever the table says (only
            # positions searched below themselves are stored, and those only from r = 1 on)
            can = own & k or c._man_can_capture(own & ~k, them, c.valid & ~(w | b), me)
            if can and c._captures(w, b, k, me):
                return _INF
            if self.is_gain and self.balance(w, b, k) >= self.need:
                return 0
            return _INF
        if self.eg is not None and popcount(w | b) <= self.eg_max:
            v = self.eg.value(w, b, k, me)
            if v >= 0:  # a win in v - 1 plies (odd) is v // 2 moves of the solver
                if v == 0 or v & 1 or v // 2 > r:
                    return _INF
                return v // 2
        table = self.or_table
        e = table.find(w, b, k)
        best: object = None
        if e is not None:
            if e.d <= r:
                return e.d
            if r <= e.f:
                return _INF
            best = e.best
        moves: list[object] | None = None
        if own & k or c._man_can_capture(own & ~k, them, c.valid & ~(w | b), me):
            moves = cast("list[object]", c._captures(w, b, k, me))
        if not moves:
            if self.is_gain and self.balance(w, b, k) >= self.need:
                return 0
            if r != 1 or not self.is_gain:  # every quiet move, played as it is found
                return self.or_quiets(w, b, k, r, e, best)
            moves = cast("list[object]", c._quiets(w, b, k, me))
            if not moves:
                return _INF
            # a last quiet move reaches the goal only by crowning a man or by leaving the
            # defender without a legal move
            quiet = cast("list[RawMove]", moves)
            crown = self.my_crown
            crowning = (
                [m for m in quiet if m[1] & crown and not m[0] & k]
                if self.balance(w, b, k) + 2 >= self.need
                else []
            )
            moves = cast("list[object]", crowning + self.blocking(w, b, k, quiet, crowning))
            if not moves:
                return _INF
        if best is not None and len(moves) > 1 and best in moves:
            i = moves.index(best)
            if i:  # the best move first, the others in order (moves is a new list: no copy)
                moves.insert(0, moves.pop(i))
        r1 = r - 1
        crown = self.my_crown
        frm: i64
        to: i64
        cap: i64
        for m in moves:
            frm, to, cap = cast("RawMove", m)  # made here, not by Core.make: no tuple per move
            if k & frm:
                k2 = (k & ~frm & ~cap) | to
            else:
                k2 = k & ~cap
                if to & crown:
                    k2 |= to
            if me:
                n = self.and_node((w & ~frm) | to, b & ~cap, k2, r1)
            else:
                n = self.and_node(w & ~cap, (b & ~frm) | to, k2, r1)
            if n < _INF:
                n += 1
                if e is None:  # (the search below may have stored this position, with kings)
                    e = table.entry(w, b, k)
                if n < e.d:
                    e.d = n
                e.best = m
                return n
        if e is None:
            e = table.entry(w, b, k)
        e.f = r
        return _INF

    def and_node(self, w: i64, b: i64, k: i64, r: i64) -> i64:
        """Defender to move, the solver with ``r`` moves left after it."""
        self.nodes += 1
        if self.nodes >= self.next_check:
            self.check()
        if self.eg is not None and popcount(w | b) <= self.eg_max:
            v = self.eg.value(w, b, k, self.opp)
            if v >= 0:  # the defender lost in v - 1 plies (even): (v - 1) // 2 solver moves
                if v == 0 or not v & 1 or (v - 1) // 2 > r:
                    return _INF
                return (v - 1) // 2
        table = self.and_table
        e = table.find(w, b, k)
        best: object = None
        if e is not None:
            if e.d <= r:
                return e.d
            if r <= e.f:
                return _INF
            best = e.best
        c = self.c
        opp = self.opp
        own, them = (w, b) if opp else (b, w)
        moves: list[object] | None = None
        if own & k or c._man_can_capture(own & ~k, them, c.valid & ~(w | b), opp):
            moves = cast("list[object]", c._captures(w, b, k, opp))
        if not moves:
            if self.is_gain and self.balance(w, b, k) >= self.need:
                return 0
            if r == 0:  # whether the defender can move at all: counted, no list
                if c._count_quiets(w, b, k, opp):
                    return _INF
                return 0
            return self.and_quiets(w, b, k, r, e, best)
        if best is not None and len(moves) > 1 and best in moves:
            i = moves.index(best)
            if i:  # the best move first, the others in order (moves is a new list: no copy)
                moves.insert(0, moves.pop(i))
        worst: i64 = 0
        crown = self.opp_crown
        frm: i64
        to: i64
        cap: i64
        for m in moves:
            frm, to, cap = cast("RawMove", m)
            if k & frm:
                k2 = (k & ~frm & ~cap) | to
            else:
                k2 = k & ~cap
                if to & crown:
                    k2 |= to
            if opp:
                n = self.or_node((w & ~frm) | to, b & ~cap, k2, r)
            else:
                n = self.or_node(w & ~cap, (b & ~frm) | to, k2, r)
            if n >= _INF:
                if e is None:
                    e = table.entry(w, b, k)
                e.f = r
                e.best = m
                return _INF
            if n > worst:
                worst = n
        if e is None:
            e = table.entry(w, b, k)
        if worst < e.d:
            e.d = worst
        return worst

    def or_quiets(self, w: i64, b: i64, k: i64, r: i64, e: _Entry | None, best: object) -> i64:
        """:meth:`or_node` when the solver has only quiet moves, all of them tried (as in
        :meth:`and_quiets`)."""
        c = self.c
        me = self.me
        occ = w | b
        empty = c.valid & ~occ
        own = w if me else b
        r1 = r - 1
        bf: i64 = 0
        bt: i64 = 0
        moved = False
        if best is not None:
            bm = cast("RawMove", best)
            bf = bm[0]
            bt = bm[1]
            n = self.or_play(w, b, k, r1, bf, bt)
            if n < _INF:
                n += 1
                if e is None:
                    e = self.or_table.entry(w, b, k)
                if n < e.d:
                    e.d = n
                e.best = best
                return n
            moved = True
        men = own & ~k
        s: i64
        t: i64
        di: i64 = 0
        while di < 2:
            if me:
                s = c.s_ul if di == 0 else c.s_ur
                t = (men >> s) & empty
            else:
                s = c.s_dl if di == 0 else c.s_dr
                t = (men << s) & empty
            di += 1
            while t:
                low = t & -t
                t ^= low
                frm = low << s if me else low >> s
                if frm == bf and low == bt:
                    continue
                moved = True
                n = self.or_play(w, b, k, r1, frm, low)
                if n < _INF:
                    n += 1
                    if e is None:
                        e = self.or_table.entry(w, b, k)
                    if n < e.d:
                        e.d = n
                    e.best = c.king_moves[bit_index(frm)][bit_index(low)]
                    return n
        kk = own & k
        while kk:
            low = kk & -kk
            kk ^= low
            kb = bit_index(low)
            for ray in c.rays[kb]:
                for t2 in ray:
                    if (occ >> t2) & 1:
                        break
                    to = ONE << t2  # not a local 1: see _core.ONE
                    if low == bf and to == bt:
                        continue
                    moved = True
                    n = self.or_play(w, b, k, r1, low, to)
                    if n < _INF:
                        n += 1
                        if e is None:
                            e = self.or_table.entry(w, b, k)
                        if n < e.d:
                            e.d = n
                        e.best = c.king_moves[kb][t2]
                        return n
        if moved:
            if e is None:
                e = self.or_table.entry(w, b, k)
            e.f = r
        return _INF

    def or_play(self, w: i64, b: i64, k: i64, r1: i64, frm: i64, to: i64) -> i64:
        """:meth:`and_node` after the solver's quiet move ``frm`` -> ``to``."""
        if k & frm:
            k2 = (k & ~frm) | to
        else:
            k2 = k
            if to & self.my_crown:
                k2 |= to
        if self.me:
            return self.and_node((w & ~frm) | to, b, k2, r1)
        return self.and_node(w, (b & ~frm) | to, k2, r1)

    def and_quiets(self, w: i64, b: i64, k: i64, r: i64, e: _Entry | None, best: object) -> i64:
        """:meth:`and_node` when the defender has only quiet moves: each played as it is found
        (no list, no tuple), in the order of :meth:`Core._quiets` after the best move (a quiet
        move of this position whenever there is one)."""
        c = self.c
        opp = self.opp
        occ = w | b
        empty = c.valid & ~occ
        own = w if opp else b
        worst: i64 = 0
        bf: i64 = 0
        bt: i64 = 0
        moved = False
        if best is not None:
            bm = cast("RawMove", best)
            bf = bm[0]
            bt = bm[1]
            n = self.and_play(w, b, k, r, bf, bt)
            if n >= _INF:
                if e is None:
                    e = self.and_table.entry(w, b, k)
                e.f = r
                e.best = best
                return _INF
            worst = n
            moved = True
        men = own & ~k
        s: i64
        t: i64
        di: i64 = 0
        while di < 2:
            if opp:
                s = c.s_ul if di == 0 else c.s_ur
                t = (men >> s) & empty
            else:
                s = c.s_dl if di == 0 else c.s_dr
                t = (men << s) & empty
            di += 1
            while t:
                low = t & -t
                t ^= low
                frm = low << s if opp else low >> s
                if frm == bf and low == bt:
                    continue
                moved = True
                n = self.and_play(w, b, k, r, frm, low)
                if n >= _INF:
                    if e is None:
                        e = self.and_table.entry(w, b, k)
                    e.f = r
                    e.best = c.king_moves[bit_index(frm)][bit_index(low)]
                    return _INF
                if n > worst:
                    worst = n
        kk = own & k
        while kk:
            low = kk & -kk
            kk ^= low
            kb = bit_index(low)
            for ray in c.rays[kb]:
                for t2 in ray:
                    if (occ >> t2) & 1:
                        break
                    to = ONE << t2  # not a local 1: see _core.ONE
                    if low == bf and to == bt:
                        continue
                    moved = True
                    n = self.and_play(w, b, k, r, low, to)
                    if n >= _INF:
                        if e is None:
                            e = self.and_table.entry(w, b, k)
                        e.f = r
                        e.best = c.king_moves[kb][t2]
                        return _INF
                    if n > worst:
                        worst = n
        if not moved:
            return 0
        if e is None:
            e = self.and_table.entry(w, b, k)
        if worst < e.d:
            e.d = worst
        return worst

    def and_play(self, w: i64, b: i64, k: i64, r: i64, frm: i64, to: i64) -> i64:
        """:meth:`or_node` after the defender's quiet move ``frm`` -> ``to``."""
        if k & frm:
            k2 = (k & ~frm) | to
        else:
            k2 = k
            if to & self.opp_crown:
                k2 |= to
        if self.opp:
            return self.or_node((w & ~frm) | to, b, k2, r)
        return self.or_node(w, (b & ~frm) | to, k2, r)

    def reached_or(self, w: int, b: int, k: int) -> bool:
        return (
            self.is_gain
            and self.balance(w, b, k) >= self.need
            and not self.c.captures(w, b, k, self.me)
        )

    def reached_and(self, w: int, b: int, k: int) -> bool:
        if self.c.captures(w, b, k, self.opp):
            return False
        if self.is_gain and self.balance(w, b, k) >= self.need:
            return True
        return not self.c.quiets(w, b, k, self.opp)

    # exact distances by iterative deepening (the tables make the repeats cheap)
    def or_exact(self, pos: tuple[int, int, int], rmax: int) -> int:
        for r in range(rmax + 1):
            if self.or_node(pos[0], pos[1], pos[2], r) < _INF:
                return r
        return _INF

    def and_exact(self, pos: tuple[int, int, int], rmax: int) -> int:
        for r in range(rmax + 1):
            if self.and_node(pos[0], pos[1], pos[2], r) < _INF:
                return r
        return _INF


def material_search(c: Core, w: int, b: int, k: int, turn: bool, depth: int) -> int:
    """Alpha-beta material score for the side to move, ``depth`` plies plus pending captures.

    A short look-ahead for move choice (the self-play player, the best try of a refuted puzzle);
    not part of any proof. A side with no legal move scores -100.
    """
    return _material_ab(c, w, b, k, turn, depth, -1000, 1000)


def _material_ab(
    c: Core, w: int, b: int, k: int, turn: bool, depth: int, alpha: int, beta: int
) -> int:
    moves = c.captures(w, b, k, turn)
    if not moves:
        if depth <= 0:
            own, oth = (w, b) if turn else (b, w)
            return _material(own, k) - _material(oth, k)
        moves = c.quiets(w, b, k, turn)
        if not moves:
            return -100
    for m in moves:
        w2, b2, k2 = c.make(w, b, k, turn, m)
        s = -_material_ab(c, w2, b2, k2, not turn, depth - 1, -beta, -alpha)
        if s > alpha:
            alpha = s
            if alpha >= beta:
                break
    return alpha


# -- building the verdict ------------------------------------------------------------------------


class _Render:
    """Raw moves to text and proof nodes (through :class:`Board` move generation)."""

    def __init__(self, board: Board) -> None:
        self.board = board.copy(stack=False)
        self.sq = board.geo.square_of
        self._cache: dict[tuple[int, int, int, bool], dict[RawMove, Move]] = {}

    def legal(self, w: int, b: int, k: int, turn: bool) -> dict[RawMove, Move]:
        key = (w, b, k, turn)
        got = self._cache.get(key)
        if got is None:
            bd = self.board
            bd.white, bd.black, bd.kings, bd.turn = w, b, k, turn
            g = bd.geo
            got = {}
            for m in bd.generate_legal_moves():
                cap = 0
                for s in m.captured:
                    cap |= 1 << g.bit_of[s]
                got[(1 << g.bit_of[m.start], 1 << g.bit_of[m.end], cap)] = m
            if len(self._cache) > 50_000:
                self._cache.clear()
            self._cache[key] = got
        return got

    def move(self, pos: tuple[int, int, int, bool], m: RawMove) -> Move:
        return self.legal(*pos)[m]

    def text(self, pos: tuple[int, int, int, bool], m: RawMove) -> str:
        return self.move(pos, m).route_str(0)

    def node(
        self,
        pos: tuple[int, int, int, bool],
        m: RawMove,
        replies: tuple[ProofMove, ...] = (),
        expanded: bool = True,
    ) -> ProofMove:
        mv = self.move(pos, m)
        return ProofMove(
            text=mv.route_str(0),
            start=mv.start,
            end=mv.end,
            captured=tuple(sorted(mv.captured)),
            routes=tuple(mv.route_str(i) for i in range(len(mv.routes))),
            replies=replies,
            expanded=expanded,
        )


def solve(
    board: Board,
    goal: Goal | str,
    limits: Limits | None = None,
    progress: Progress | None = None,
    *,
    all_cooks: bool = True,
) -> Verdict:
    """Prove the puzzle ``board`` (the side to move is the solver) for ``goal``.

    ``limits`` defaults to :class:`Limits` (horizon from the goal); ``progress(nodes, depth,
    elapsed)`` is called every ~10,000 nodes and at each new horizon. With ``all_cooks=False`` a
    cooked verdict stops at the first second solution (faster when only uniqueness matters). Raises
    :class:`InvalidGoalError` or :class:`InvalidLimitsError` for bad arguments only.
    """
    return _solve(board, goal, limits, progress, all_cooks)


def _solve(
    board: Board,
    goal: Goal | str,
    limits: Limits | None,
    progress: Progress | None,
    all_cooks: bool,
) -> Verdict:
    from . import ENGINE_VERSION

    g = parse_goal(goal)
    lim = (limits if limits is not None else Limits()).for_goal(g)
    if not isinstance(lim, Limits):  # pragma: no cover - defensive
        raise InvalidLimitsError("limits must be a Limits value")
    assert lim.moves is not None
    H = lim.moves
    t0 = time.perf_counter()
    c = core(board.variant)
    w, b, k, me = board.white, board.black, board.kings, board.turn
    root = (w, b, k, me)
    render = _Render(board)

    def verdict(kind: str, **kw: Any) -> Verdict:
        kw.setdefault("seconds", round(time.perf_counter() - t0, 4))
        return Verdict(
            kind=kind,
            variant=board.variant.name,
            fen=board.fen(),
            goal=str(g),
            horizon=H,
            limits=lim,
            engine_version=ENGINE_VERSION,
            **kw,
        )

    if g.kind == "capture":
        caps = c.captures(w, b, k, me)
        if progress is not None:
            progress(1, 1, time.perf_counter() - t0)
        if not caps:
            return verdict(
                "no_solution", nodes=1, depth=1, reason="the side to move has no capture"
            )
        caps = _sorted_moves(render, root, caps)
        first = caps[0]
        if len(caps) == 1:
            return verdict(
                "unique",
                length=1,
                solution=(render.text(root, first),),
                proof=(render.node(root, first),),
                nodes=1,
                depth=1,
            )
        alts = tuple((render.text(root, m),) for m in caps[1:])
        return verdict(
            "cooked",
            length=1,
            solution=(render.text(root, first),),
            proof=tuple(render.node(root, m) for m in caps),
            alternatives=alts,
            nodes=1,
            depth=1,
            reason=f"{len(caps)} different captures are legal",
        )

    s = _search_of(board, g, lim, progress, t0)
    root_moves = _sorted_moves(render, root, c.moves(w, b, k, me))
    if not root_moves:
        return verdict("no_solution", nodes=1, reason="the side to move has no legal move")
    max_h = max(1, lim.max_depth // 2)
    margin = min(H + 2, max_h)
    searched: dict[str, Any] = {"moves": len(root_moves)}
    working: list[RawMove] = []
    found_h = 0
    phase = "solution"
    try:
        found_h = _first_solutions(s, c, root, root_moves, min(H, max_h), working, all_cooks)
        searched["horizon"] = s.horizon
        if not working:
            if max_h < H:
                return verdict(
                    "undecided",
                    nodes=s.nodes,
                    depth=2 * max_h,
                    reason="depth",
                    searched={**searched, "phase": phase, "completed": max_h},
                )
            # the refutation of the best try, by a short material look-ahead
            line = _refutation(s, render, c, root, H)
            return verdict(
                "no_solution",
                nodes=s.nodes,
                depth=2 * H,
                refutation=line,
                reason=f"no first move reaches {g} within {H} moves against every defence",
                searched={**searched, "completed": H},
            )
        phase = "uniqueness"
        searched["solutions_at_minimal_length"] = [render.text(root, m) for m in working]
        others: list[RawMove] = []
        for m in root_moves:
            if m in working or (not all_cooks and len(working) + len(others) > 1):
                continue
            s.horizon = margin
            if s.and_node(*c.make(w, b, k, me, m), margin - 1) < _INF:
                others.append(m)
        if margin < H + 2 and len(working) + len(others) < 2:
            raise _Abort("depth")
        phase = "lines"
        first = working[0]
        cooks = [*working[1:], *others]
        solution = _main_line(s, render, c, root, first, H + 2 if cooks else H)
        if cooks:
            alternatives = tuple(_main_line(s, render, c, root, m, H + 2) for m in cooks)
            return verdict(
                "cooked",
                length=found_h,
                solution=solution,
                alternatives=alternatives,
                nodes=s.nodes,
                depth=2 * margin,
                reason=f"{1 + len(cooks)} first moves reach {g} within {H + 2} moves",
                searched={**searched, "completed": margin},
            )
        phase = "proof"
        budget = [_MAX_PROOF_NODES]
        proof = _proof(s, render, c, root, first, H, budget)
        return verdict(
            "unique",
            length=found_h,
            solution=solution,
            proof=(proof,),
            proof_complete=budget[0] >= 0,
            duals=ProofTree((proof,)).duals,
            nodes=s.nodes,
            depth=2 * margin,
            searched={**searched, "completed": margin},
        )
    except _Abort as e:
        return verdict(
            "undecided",
            nodes=s.nodes,
            depth=2 * s.horizon,
            reason=e.reason,
            solution=(render.text(root, working[0]),) if working else (),
            length=found_h,
            searched={"horizon": s.horizon, **searched, "phase": phase},
        )


def _search_of(board: Board, g: Goal, lim: Limits, progress: Progress | None, t0: float) -> _Search:
    """The search of ``g`` from ``board``, its material balance counted from there."""
    from .endgames import default_tables

    w, b, k, me = board.white, board.black, board.kings, board.turn
    base = _material(w, k) - _material(b, k) if me else _material(b, k) - _material(w, k)
    s = _Search(core(board.variant), me, g, base, lim, progress, t0)
    if g.kind == "win":
        s.eg = default_tables().lookup(board.variant)
        s.eg_max = s.eg.max_pieces if s.eg is not None else 0
    return s


def _first_solutions(
    s: _Search,
    c: Core,
    root: tuple[int, int, int, bool],
    root_moves: list[RawMove],
    last: int,
    working: list[RawMove],
    all_cooks: bool,
) -> int:
    """The solution phase: horizons 1 to ``last`` in turn until a first move reaches the goal
    against every defence; those moves are appended to ``working`` (only two without
    ``all_cooks``) and the horizon is returned (0: none within ``last``)."""
    w, b, k, me = root
    for h in range(1, last + 1):
        s.horizon = h
        s.check()
        for m in root_moves:
            if s.and_node(*c.make(w, b, k, me, m), h - 1) < _INF:
                working.append(m)
                if len(working) > 1 and not all_cooks:
                    break
        if working:
            return h
    return 0


def shortest(board: Board, goal: Goal | str, limits: Limits | None = None) -> int | None:
    """The fewest solver moves that reach ``goal`` against every defence, at most
    ``limits.moves`` (0: none within them), or None when the limits ran out first.

    Only the first phase of :func:`solve` (no uniqueness, no proof): a cheap test of whether a
    position holds a short solution, e.g. to pass over it when only long combinations are wanted.
    """
    g = parse_goal(goal)
    lim = (limits if limits is not None else Limits()).for_goal(g)
    assert lim.moves is not None
    root = (board.white, board.black, board.kings, board.turn)
    if g.kind == "capture":
        return 1 if core(board.variant).captures(*root) else 0
    s = _search_of(board, g, lim, None, time.perf_counter())
    last = min(lim.moves, max(1, lim.max_depth // 2))
    try:
        found = _first_solutions(s, s.c, root, s.c.moves(*root), last, [], False)
    except _Abort:
        return None
    return found if found or last == lim.moves else None


def is_unique(board: Board, goal: Goal | str, limits: Limits | None = None) -> bool:
    """The uniqueness predicate: True only for a ``unique`` verdict within ``limits``."""
    return solve(board, goal, limits).kind == "unique"


def _sorted_moves(
    render: _Render, pos: tuple[int, int, int, bool], moves: list[RawMove]
) -> list[RawMove]:
    """Moves in the stable order of :meth:`Board.generate_legal_moves` (captures first anyway)."""
    legal = render.legal(*pos)
    order = {m: i for i, m in enumerate(legal)}
    return sorted(moves, key=lambda m: order.get(m, _INF))


def _main_line(
    s: _Search,
    render: _Render,
    c: Core,
    root: tuple[int, int, int, bool],
    first: RawMove,
    horizon: int,
) -> tuple[str, ...]:
    """The line after ``first``: the shortest solver moves against the most stubborn defence."""
    me = root[3]
    line = [render.text(root, first)]
    w, b, k = c.make(*root, first)
    r = horizon - 1
    while True:
        # defender to move
        if s.reached_and(w, b, k):
            break
        best_d, best_m = -1, None
        for m in c.moves(w, b, k, not me):
            d = s.or_exact(c.make(w, b, k, not me, m), r)
            if d > best_d:
                best_d, best_m = d, m
        if best_m is None or best_d >= _INF:
            break
        line.append(render.text((w, b, k, not me), best_m))
        w, b, k = c.make(w, b, k, not me, best_m)
        r = best_d
        # solver to move
        if s.reached_or(w, b, k) or r <= 0:
            break
        best_d, best_m = _INF, None
        for m in c.moves(w, b, k, me):
            d = s.and_exact(c.make(w, b, k, me, m), r - 1)
            if d < best_d:
                best_d, best_m = d, m
        if best_m is None:
            break
        line.append(render.text((w, b, k, me), best_m))
        w, b, k = c.make(w, b, k, me, best_m)
        r = best_d
    return tuple(line)


def _proof(
    s: _Search,
    render: _Render,
    c: Core,
    pos: tuple[int, int, int, bool],
    move: RawMove,
    r: int,
    budget: list[int],
) -> ProofMove:
    """The proof node of solver ``move`` at ``pos`` with ``r`` solver moves left (``move`` included)."""
    me = pos[3]
    w, b, k = c.make(*pos, move)
    budget[0] -= 1
    if s.reached_and(w, b, k):
        return render.node(pos, move)
    if budget[0] < 0:
        return render.node(pos, move, expanded=False)
    dpos = (w, b, k, not me)
    replies = []
    for dm in _sorted_moves(render, dpos, c.moves(w, b, k, not me)):
        w2, b2, k2 = c.make(w, b, k, not me, dm)
        budget[0] -= 1
        if s.reached_or(w2, b2, k2):
            replies.append(render.node(dpos, dm))
            continue
        if budget[0] < 0:
            replies.append(render.node(dpos, dm, expanded=False))
            continue
        spos = (w2, b2, k2, me)
        answers = []
        for sm in _sorted_moves(render, spos, c.moves(w2, b2, k2, me)):
            if s.and_node(*c.make(w2, b2, k2, me, sm), r - 2) < _INF:
                answers.append(_proof(s, render, c, spos, sm, r - 1, budget))
        replies.append(render.node(dpos, dm, tuple(answers)))
    return render.node(pos, move, tuple(replies))


def _refutation(
    s: _Search,
    render: _Render,
    c: Core,
    root: tuple[int, int, int, bool],
    horizon: int,
) -> tuple[str, ...]:
    """The best try (by a short material look-ahead) and the defence that refutes it, on to the
    end of the horizon."""
    me = root[3]
    w, b, k = root[:3]
    line: list[str] = []
    r = horizon
    while r > 0:
        cand = c.moves(w, b, k, me)
        if not cand:
            break
        if len(cand) > 1:
            scored = [
                (-material_search(c, *c.make(w, b, k, me, m), not me, 2), i)
                for i, m in enumerate(cand)
            ]
            cand = [cand[i] for _, i in sorted(scored, key=lambda x: (-x[0], x[1]))]
        m = cand[0]
        line.append(render.text((w, b, k, me), m))
        w, b, k = c.make(w, b, k, me, m)
        if s.reached_and(w, b, k):
            break
        refuting = None
        for dm in c.moves(w, b, k, not me):
            if s.or_node(*c.make(w, b, k, not me, dm), r - 1) >= _INF:
                refuting = dm
                break
        if refuting is None:
            break
        line.append(render.text((w, b, k, not me), refuting))
        w, b, k = c.make(w, b, k, not me, refuting)
        r -= 1
    return tuple(line)
