"""Proof trees: what :func:`dama.solve.solve` proved, and the questions a trainer asks of it.

A proof tree starts with the solver's first move. After a solver move it lists *every* defender
reply; after a defender reply, every solver move that still reaches the goal within the horizon.
A move with no replies ends the line (the goal is reached), unless it is marked not ``expanded``
(the tree was cut at its size limit). Lines are written as the proof writes moves (full numeric
routes such as ``46x37x48x25``), solver and defender alternating, the solver first; a line's move
matches a proof move written with any of its routes.

A move's identity is its :data:`~dama.baseboard.MoveKey`: ``(start, end, captured set)``, the same
for a :class:`~dama.Move` (:meth:`Move.key <dama.Move.key>`) and a :class:`ProofMove`
(:meth:`ProofMove.key`), whichever route was entered.

The JSON form is the verdict's (``Verdict.to_dict()``): ``proof`` (the nodes), ``solution`` (the
main line) and ``proof_complete``; :meth:`ProofTree.from_dict` reads it from a whole verdict.

>>> from dama import Board
>>> from dama.solve import solve
>>> board = Board("czech", "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15")
>>> tree = solve(board, "gain:1").tree
>>> [m.text for m in tree.accepted([])], tree.best_move([]).text
(['22-17'], '22-17')
>>> tree.stubborn_reply(["22-17"]).text
'13x22'
>>> [m.text for m in tree.accepted(["22-17", "13x22"])]
['25x18x11']
>>> tree.find(["22-17", "13x22"], board.parse_move("22-17")) is None
True
>>> ProofTree.from_dict(tree.to_dict()) == tree
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .baseboard import Move, MoveKey

__all__ = ["ProofMove", "ProofTree"]


@dataclass(frozen=True, slots=True)
class ProofMove:
    """One move in the proof tree (see the module docstring).

    ``text`` is its first route, ``routes`` every route (full numeric text), ``captured`` the
    captured squares sorted; ``replies`` the moves that answer it in the proof.
    """

    text: str
    start: int
    end: int
    captured: tuple[int, ...]
    routes: tuple[str, ...]
    replies: tuple[ProofMove, ...] = ()
    expanded: bool = True

    def key(self) -> MoveKey:
        """The move's identity, the same as :meth:`Move.key <dama.Move.key>` of the move."""
        return (self.start, self.end, frozenset(self.captured))

    def matches(self, move: Move | MoveKey) -> bool:
        """True when ``move`` (a :class:`~dama.Move` entered by any route, or its key) is this one."""
        key = move if isinstance(move, tuple) else move.key()
        return key == self.key()

    def is_written(self, text: str) -> bool:
        """True when ``text`` is this move as a line writes it (its text or one of its routes)."""
        return text == self.text or text in self.routes

    def size(self) -> int:
        """Moves in this subtree, this one included."""
        return 1 + sum(r.size() for r in self.replies)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "move": self.text,
            "start": self.start,
            "end": self.end,
            "captured": list(self.captured),
            "routes": list(self.routes),
            "replies": [r.to_dict() for r in self.replies],
        }
        if not self.expanded:
            d["expanded"] = False
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ProofMove:
        return cls(
            text=d["move"],
            start=int(d["start"]),
            end=int(d["end"]),
            captured=tuple(sorted(int(x) for x in d["captured"])),
            routes=tuple(d["routes"]),
            replies=tuple(cls.from_dict(r) for r in d.get("replies", ())),
            expanded=bool(d.get("expanded", True)),
        )


@dataclass(frozen=True, slots=True)
class ProofTree:
    """A proof: the solver's first moves (``moves``), the main line (``solution``) and whether
    the tree was built in full (``complete``). Read-only, so it may be shared between threads."""

    moves: tuple[ProofMove, ...] = ()
    solution: tuple[str, ...] = ()
    complete: bool = True
    # solver moves still needed after each node (by id), filled in as they are asked for
    _costs: dict[int, int] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ProofTree:
        """The tree of a verdict's JSON (``proof``, ``solution``, ``proof_complete``; other keys
        are ignored). An empty mapping is an empty tree."""
        return cls(
            moves=tuple(ProofMove.from_dict(p) for p in d.get("proof", ())),
            solution=tuple(d.get("solution", ())),
            complete=bool(d.get("proof_complete", True)),
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, with the keys a verdict writes."""
        return {
            "proof": [p.to_dict() for p in self.moves],
            "solution": list(self.solution),
            "proof_complete": self.complete,
        }

    # -- following a line -----------------------------------------------------------------------
    def node(self, line: Sequence[str]) -> ProofMove | None:
        """The proof move the last move of ``line`` is (None for an empty line or one that left
        the proof)."""
        found: ProofMove | None = None
        nodes = self.moves
        for text in line:
            found = next((n for n in nodes if n.is_written(text)), None)
            if found is None:
                return None
            nodes = found.replies
        return found

    def accepted(self, line: Sequence[str]) -> tuple[ProofMove, ...]:
        """The solver moves the proof accepts after ``line`` (which ends with a defender reply,
        or is empty); empty when ``line`` left the proof."""
        if not line:
            return self.moves
        node = self.node(line)
        return node.replies if node is not None else ()

    def find(self, line: Sequence[str], move: Move | MoveKey) -> ProofMove | None:
        """The accepted solver move after ``line`` that is ``move`` (any route), or None."""
        return next((m for m in self.accepted(line) if m.matches(move)), None)

    def stubborn_reply(self, line: Sequence[str]) -> ProofMove | None:
        """The defender's reply to the solver move that ends ``line`` that delays the goal
        longest; on a tie the main line's, then the longest capture (None when the goal is
        reached or ``line`` left the proof)."""
        node = self.node(line)
        if node is None or not node.replies:
            return None
        return max(
            node.replies,
            key=lambda r: (self._defender_cost(r), self._on_main_line(line, r), len(r.captured)),
        )

    def best_move(self, line: Sequence[str]) -> ProofMove | None:
        """The accepted solver move after ``line`` that reaches the goal soonest against the best
        defence (the main line's on a tie); None when none is left."""
        moves = self.accepted(line)
        if not moves:
            return None
        return min(moves, key=lambda m: (self._solver_cost(m), not self._on_main_line(line, m)))

    # -- the whole tree -------------------------------------------------------------------------
    @property
    def duals(self) -> int:
        """Extra accepted solver moves: each solver turn with ``k`` accepted moves adds ``k - 1``."""

        def of(p: ProofMove) -> int:
            return sum(
                len(reply.replies) - 1 + sum(of(a) for a in reply.replies)
                for reply in p.replies
                if reply.replies
            )

        return sum(of(p) for p in self.moves)

    def size(self) -> int:
        """Moves in the tree."""
        return sum(p.size() for p in self.moves)

    # -- costs ----------------------------------------------------------------------------------
    def _solver_cost(self, node: ProofMove) -> int:
        """Further solver moves needed after solver move ``node`` against the best defence."""
        cost = self._costs.get(id(node))
        if cost is None:
            cost = max((self._defender_cost(r) for r in node.replies), default=0)
            self._costs[id(node)] = cost
        return cost

    def _defender_cost(self, node: ProofMove) -> int:
        """Solver moves needed after defender reply ``node``."""
        if not node.replies:
            return 0
        cost = self._costs.get(id(node))
        if cost is None:
            cost = 1 + min(self._solver_cost(a) for a in node.replies)
            self._costs[id(node)] = cost
        return cost

    def _on_main_line(self, line: Sequence[str], node: ProofMove) -> bool:
        """True when ``line`` follows the main line and ``node`` is its next move."""
        n = len(line)
        return (
            n < len(self.solution)
            and list(self.solution[:n]) == list(line)
            and node.is_written(self.solution[n])
        )
