"""The puzzle trainer's judge: what the proof accepts at each point of a puzzle, the answer to a
move, and the goal in words.

The server is the only judge. An :class:`~puzzles.models.Attempt` holds the moves on the board
(``line``: solver and defender alternating, full routes as the proof writes them) and the
position they lead to; the page gets the board and nothing else until the attempt is finished.
Each move the player enters is read by the engine seam and matched against the moves the proof
accepts at that point (any equivalent route, any kept alternative); the site answers with the
defender's most stubborn reply in the proof. A legal move the proof does not accept is explained
with the defender's reply that refutes it.

What the proof says at each point is the same for every player, so it is asked of the proof tree
(``dama.proof.ProofTree``, through :func:`puzzles.engine.proof_tree`) once per proof and process
(:func:`kept_judge`: the model hands over the proof, ``Puzzle.judge``) and kept as a :class:`Judge`: a table from the line played so far to the accepted moves, each with the reply
the site makes and whether the puzzle ends there, the hint, and the refutations of wrong moves
the proof's worker stored. The table's rows are plain tuples of strings, numbers and booleans:
the cyclic garbage collector stops tracking such tuples after a collection or two (it never
stops tracking a frozenset or a named tuple, so :class:`Accepted`, :class:`Point` and
:class:`Refutation` are made from the rows when asked for), and the judges of thousands of
puzzles cost a full collection almost nothing to walk (the JSON trees they come from were dicts
and lists it walked every time).

The model methods that change an attempt (``Attempt.play``, ``hint``, ``give_up``, ``retry``) are
on :class:`~puzzles.models.Attempt`, which hands this module what it judges by (the proof, the
line, the move): nothing here reads a row. Ratings are :mod:`puzzles.models.ratings`, the stream
:mod:`puzzles.stream`, the dashboard :mod:`puzzles.dashboard`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.db import models
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.numbers import read_int

from . import engine

#: how many puzzles' judges a process keeps (the corpus has about nine thousand: the judges of
#: the puzzles being played)
JUDGES_KEPT = 2048


class Outcome(models.TextChoices):
    """What a move (or an action) on an attempt came to."""

    CONTINUE = "continue"
    RIGHT = "right"
    SOLVED = "solved"
    ILLEGAL = "illegal"
    WRONG = "wrong"
    BAD = "bad"
    FINISHED = "finished"
    CONFLICT = "conflict"
    SHOWN = "shown"
    RETRY = "retry"
    HINT = "hint"


class Conflict(Exception):
    """The attempt was written since this request read it (another tab, a double submit): this
    request's answer is not saved (the views show the attempt as it now stands)."""


@dataclass
class Result:
    """The answer to one action on an attempt."""

    kind: Outcome
    message: str = ""
    article: str = ""
    squares: tuple[int, ...] = ()
    path: tuple[int, ...] = ()
    played: str = ""
    reply: str = ""
    refutation: dict[str, Any] = field(default_factory=dict)
    rating_change: float | None = None
    hint_square: int | None = None

    @property
    def status(self) -> int:
        if self.kind == Outcome.CONFLICT:
            return 409
        # refused: unreadable, illegal (explained, not counted), or on a finished attempt
        return 400 if self.kind in (Outcome.BAD, Outcome.ILLEGAL, Outcome.FINISHED) else 200


# -- the judge: the proof worked out once per puzzle -----------------------------------------------

#: a move's identity (``dama.board.MoveKey``): start, end and the captured squares
Key = tuple[int, int, frozenset[int]]


class Accepted(NamedTuple):
    """A solver move the proof accepts, and what follows it."""

    #: the move's identity, whatever route was entered
    key: Key
    #: the move as the proof writes it (appended to the attempt's line)
    move: str
    #: the defender's most stubborn reply ("" when the move ends the puzzle)
    reply: str
    #: the puzzle is solved once the move (and the reply) are on the board
    done: bool


class Point(NamedTuple):
    """A position of the proof with the solver to move."""

    accepted: tuple[Accepted, ...]
    #: the start square of the quickest accepted move (the main line's on a tie): the hint
    hint: int


class Refutation(NamedTuple):
    """The defender's answer to a wrong move, found by the proof's worker."""

    reply: str
    notation: str
    captured: int


#: how a judge keeps a move's identity: start, end and the captured squares in order (a tuple of
#: numbers, which the collector stops tracking)
KeptKey = tuple[int, int, tuple[int, ...]]
#: an accepted move as a judge keeps it: its :data:`KeptKey`, the move, the reply, done
AcceptedRow = tuple[KeptKey, str, str, bool]
#: a point as a judge keeps it: the rows of its accepted moves and the hint
PointRow = tuple[tuple[AcceptedRow, ...], int]


def _kept_key(key: Key) -> KeptKey:
    start, end, captured = key
    return (start, end, tuple(sorted(captured)))


def _accepted(row: AcceptedRow) -> Accepted:
    (start, end, captured), move, reply, done = row
    return Accepted((start, end, frozenset(captured)), move, reply, done)


@dataclass(frozen=True, slots=True)
class Judge:
    """What a proof says at each point a player can reach, by the line played (the proof's
    routes joined by spaces): the accepted moves, and the stored refutations of wrong ones.

    Kept as plain tuples (see the module's docstring): ``points`` maps a line to its
    :data:`PointRow`; ``refutations`` a line and a wrong move to the reply, its notation and what
    it captures."""

    points: dict[str, PointRow]
    solution: tuple[str, ...]
    complete: bool
    #: (line, wrong move's route) -> (reply, notation, captured), as the worker stored it
    refutations: dict[tuple[str, str], tuple[str, str, int]] = field(default_factory=dict)
    #: (position, accepted move) -> the reply in notation and the position after it: worked out
    #: the first time a player reaches it (:meth:`answer`), then the same for everyone
    answers: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    #: every defence of the winning line (see :meth:`defence_reply`): the line up to and with
    #: the defender's reply, joined by spaces, in the proof's order
    defences: tuple[str, ...] = ()
    #: the line up to a solver move of the winning line -> every defender reply there
    defence_replies: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def at(self, line: list[str]) -> Point | None:
        """The point after ``line`` (None once the line left the proof)."""
        row = self.points.get(" ".join(line))
        if row is None:
            return None
        return Point(tuple(_accepted(move) for move in row[0]), row[1])

    def find(self, line: list[str], key: Key) -> Accepted | None:
        """The accepted move after ``line`` that is the move ``key`` (None: a wrong move)."""
        row = self.points.get(" ".join(line))
        if row is None:
            return None
        kept = _kept_key(key)
        for move in row[0]:
            if move[0] == kept:
                return _accepted(move)
        return None

    def answer(self, variant: str, position: str, accepted: Accepted) -> tuple[str, str]:
        """The defender's reply to ``accepted`` played on ``position`` (FEN), in the variant's
        notation ("" when the move ends the puzzle), and the position after move and reply."""
        key = (position, accepted.move)
        found = self.answers.get(key)
        if found is None:
            played = [accepted.move, accepted.reply] if accepted.reply else [accepted.move]
            text = (
                engine.move_notation(variant, position, [accepted.move], accepted.reply)
                if accepted.reply
                else ""
            )
            found = self.answers[key] = (text, engine.fen_after(variant, position, played))
        return found

    def defence_reply(self, line: list[str], met: set[str] | frozenset[str]) -> str | None:
        """The defender's reply after ``line`` (ending with a solver move) when meeting every
        defence: the first reply of the proof (in its order) that leads to a defence not yet
        ``met``; None when every defence there was met, or the line is not on the winning line
        (the most stubborn reply then, :class:`Accepted`'s)."""
        key = " ".join(line)
        for reply in self.defence_replies.get(key, ()):
            under = f"{key} {reply}"
            if any(d == under or d.startswith(under + " ") for d in self.defences if d not in met):
                return reply
        return None

    def refutation(self, line: list[str], wrong: str) -> dict[str, Any]:
        """The stored refutation of the wrong move ``wrong`` (its route) after ``line``: the
        reply, its notation and how many pieces it captures; empty when none was stored."""
        found = self.refutations.get((" ".join(line), wrong))
        return Refutation(*found)._asdict() if found is not None else {}


def build_judge(proof: dict[str, Any]) -> Judge:
    """Ask the proof tree (``dama.proof.ProofTree``) once what it says at each solver position:
    the accepted moves, each with the defender's most stubborn reply, and the hint (the best
    move's start square)."""
    tree = engine.proof_tree(proof)
    points: dict[str, PointRow] = {}

    def walk(line: list[str]) -> None:
        moves = tree.accepted(line)
        best = tree.best_move(line)
        if not moves or best is None:
            return
        accepted = []
        for move in moves:
            after = [*line, move.text]
            reply = tree.stubborn_reply(after)
            done = reply is None or not reply.replies
            accepted.append(
                (_kept_key(move.key()), move.text, reply.text if reply is not None else "", done)
            )
            for answer in move.replies:
                walk([*after, answer.text])
        points[" ".join(line)] = (tuple(accepted), best.start)

    walk([])
    # the winning line: the solver's best move at each point, against every defender reply
    defences: list[str] = []
    defence_replies: dict[str, tuple[str, ...]] = {}

    def defend(line: list[str]) -> None:
        best = tree.best_move(line)
        if best is None or not best.replies:
            return
        after = [*line, best.text]
        defence_replies[" ".join(after)] = tuple(r.text for r in best.replies)
        for reply in best.replies:
            defences.append(" ".join([*after, reply.text]))
            defend([*after, reply.text])

    defend([])
    refutations = {
        (line, wrong): (
            str(r.get("reply", "")),
            str(r.get("notation", "")),
            int(r.get("captured", 0)),
        )
        for line, table in ((proof or {}).get("refutations") or {}).items()
        for wrong, r in table.items()
        if isinstance(r, dict)
    }
    return Judge(
        points,
        tuple(tree.solution),
        tree.complete,
        refutations,
        defences=tuple(defences),
        defence_replies=defence_replies,
    )


#: the judges this process keeps, by the key of their proof, the least recently used first
_judges: OrderedDict[Hashable, Judge] = OrderedDict()
_judges_lock = threading.Lock()


def kept_judge(key: Hashable, proof: Callable[[], dict[str, Any] | None]) -> Judge:
    """The judge of the proof ``key`` names (``Puzzle.judge``: the puzzle, its revision and when
    it was proven, so that a re-proof or an edit is seen at once), made from ``proof()`` the first
    time and kept for the next players (the :data:`JUDGES_KEPT` last used)."""
    with _judges_lock:
        judge = _judges.get(key)
        if judge is not None:
            _judges.move_to_end(key)
            return judge
    judge = build_judge(proof() or {})
    with _judges_lock:
        _judges[key] = judge
        while len(_judges) > JUDGES_KEPT:
            _judges.popitem(last=False)
    return judge


def forget_judges() -> None:
    """Make every judge again from its proof (the tests: a proof read once per process)."""
    with _judges_lock:
        _judges.clear()


# -- the goal and the answers in words -------------------------------------------------------------


def goal_kind(goal: str) -> str:
    return goal.split(":", 1)[0]


def goal_text(white: bool, goal: str, horizon: int | None, motifs: list[str]) -> str:
    """The goal in words: "White to play and win two pieces", "Black to play: find the forced
    multi-jump"."""
    kind = goal_kind(goal)
    if kind == "capture":
        multi = any(
            m.startswith("capture:") and (read_int(m.split(":")[1], 0, 99) or 0) > 1 for m in motifs
        )
        if multi:
            return (
                _("White to play: find the forced multi-jump.")
                if white
                else _("Black to play: find the forced multi-jump.")
            )
        return (
            _("White to play: find the forced capture.")
            if white
            else _("Black to play: find the forced capture.")
        )
    moves = horizon or 1
    within = ngettext("in one move", "within %(n)d moves", moves) % {"n": moves}
    if kind == "gain":
        n = int(goal.split(":")[1])
        words = {1: _("one piece"), 2: _("two pieces"), 3: _("three pieces")}
        what = words.get(n) or ngettext("%(n)d piece", "%(n)d pieces", n) % {"n": n}
        if white:
            return _("White to play and win %(what)s %(within)s.") % {
                "what": what,
                "within": within,
            }
        return _("Black to play and win %(what)s %(within)s.") % {"what": what, "within": within}
    if white:
        return _("White to play and win the game %(within)s.") % {"within": within}
    return _("Black to play and win the game %(within)s.") % {"within": within}


def refutation_message(white: bool, wrong: str, refutation: dict[str, Any]) -> str:
    defender = _("Black") if white else _("White")
    if not refutation.get("reply"):
        return _("%(move)s does not reach the goal.") % {"move": wrong}
    n = refutation.get("captured", 0)
    if n:
        return ngettext(
            "%(move)s is legal but does not win: this lets %(side)s play %(reply)s, capturing %(n)d piece.",
            "%(move)s is legal but does not win: this lets %(side)s play %(reply)s, capturing %(n)d pieces.",
            n,
        ) % {"move": wrong, "side": defender, "reply": refutation["notation"], "n": n}
    return _(
        "%(move)s is legal but does not win: this lets %(side)s play %(reply)s, and the goal is out of reach."
    ) % {"move": wrong, "side": defender, "reply": refutation["notation"]}
