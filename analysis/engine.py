"""The analysis of one game with the engine: what only the ``analysis`` app needs of ``dama``.

:func:`analyse` replays a game and

1. evaluates every position with :func:`dama.search.search` at a fixed node budget
   (:data:`NODES`), keeping the best line;
2. marks each move by the evaluation it lost, from the mover's view (:data:`MARK_THRESHOLDS`);
3. asks of every position whether the side to move has a forced material gain or a win
   (:func:`prove`: a material look-ahead first, :data:`LOOK_AHEADS`, the solver only where it
   sees one): the
   shortest solution, then uniqueness at that length (:func:`dama.solve.solve`, as the miner
   does: :mod:`dama.mine.verify`), free of duals on its main line, tagged with the miner's
   motifs and named shots (:func:`dama.mine.mined_puzzle`). A move that did not play it
   **missed** it; a move after which the opponent has one that another move would have denied
   (:func:`was_avoidable`, as :func:`dama.mine.was_allowed`) **walked into** it (``allowed``).
   The evaluation is not asked: a shot whose man is won back later is still a shot.

The result is plain data (:class:`Analysis`), in the formats :mod:`analysis.models` stores.
Scores are centi-men (100 = one man); a forced win is ``MATE - plies``.

>>> key = engine_key()
>>> key.endswith(f"/n{NODES}")
True
>>> mark_of(40), mark_of(120), mark_of(450)
(None, 'mistake', 'blunder')
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import dama
import dama.pdn
from dama._core import core
from dama.mine import DEEP_LOOK_AHEAD, is_dual_free, material_balance, mined_puzzle
from dama.mine import LOOK_AHEAD as MINING_LOOK_AHEAD
from dama.search import MATE, MATE_BOUND, Memory, search
from dama.solve import Limits, material_search, shortest, solve

#: the nodes of the search of every position (the default budget: see docs/benchmarks/analysis.md)
NODES = 50_000

#: the marks of a move by the evaluation it lost (centi-men, mover's view), worst first
MARK_THRESHOLDS: tuple[tuple[str, int], ...] = (
    ("blunder", 200),
    ("mistake", 100),
    ("inaccuracy", 50),
)
#: the kinds of marks, mildest first
MARKS = tuple(kind for kind, _drop in reversed(MARK_THRESHOLDS))

#: evaluations are clamped to this for the drops (a win is a win: 30 men or 3000 changes nothing)
DROP_CLAMP = 3000

#: the limits of a moment's proof: the longest solution looked for (solver moves), nodes, seconds
PROOF_LIMITS = Limits(moves=6, nodes=60_000, seconds=2.0)
PROOF_LIMITS_10x10 = Limits(moves=5, nodes=30_000, seconds=1.5)
#: the longest forced win proven (solver moves)
WIN_MOVES = 4
#: the largest material gain tried (points: man 1, king 3)
MAX_GAIN = 6
#: the proofs of one game stop after this many CPU seconds (the rest of its moments are not proven)
PROOF_SECONDS = 12.0

#: plies of the material look-ahead that decides where a proof is tried, by board size: the
#: miner's, then its deep one (a gain neither sees is never proven; a shot whose man is won back
#: later is seen by the short one only). Every position of a game is looked at this way: about
#: 0.1-0.3 CPU s a game (docs/benchmarks/analysis.md)
LOOK_AHEADS: tuple[dict[int, int], ...] = (MINING_LOOK_AHEAD, DEEP_LOOK_AHEAD)

#: the goals a moment may have, as the solver names them
GOAL_KINDS = ("gain", "win")


def engine_key(nodes: int = NODES) -> str:
    """The engine an analysis was made with: ``ENGINE_VERSION/__version__/n<nodes>``; another
    key means the analysis is redone."""
    return f"{dama.ENGINE_VERSION}/{dama.__version__}/n{nodes}"


def mark_of(drop: int) -> str | None:
    """The mark of a move that lost ``drop`` centi-men (None: no mark)."""
    for kind, threshold in MARK_THRESHOLDS:
        if drop >= threshold:
            return kind
    return None


# -- replaying --------------------------------------------------------------------------------------


class BadMove(ValueError):
    """A move of the game that cannot be played: ``ply`` (0-based), ``number`` ("12." or
    "12..."), ``move`` as written, ``reason`` (the engine's words)."""

    def __init__(self, ply: int, number: str, move: str, reason: str) -> None:
        super().__init__(f"{number} {move}: {reason}")
        self.ply, self.number, self.move, self.reason = ply, number, move, reason


def move_number(ply: int, black_first: bool) -> str:
    """The number of ply ``ply`` as a game's record writes it.

    >>> move_number(0, False), move_number(1, False), move_number(0, True)
    ('1.', '1...', '1...')
    """
    k = ply + (1 if black_first else 0)
    return f"{1 + k // 2}." if k % 2 == 0 else f"{1 + k // 2}..."


def replay(variant: str, fen: str, moves: Sequence[str]) -> list[dama.Board]:
    """The positions of the game: ``len(moves) + 1`` boards (each with the game's moves before it
    on its stack, so that the draw rules see the repetitions). Raises :class:`BadMove`, or
    :class:`dama.DamaError` for a bad position or variant."""
    board = dama.Board(variant, fen or None)
    black_first = board.turn != dama.WHITE
    boards = [board.copy()]
    for ply, text in enumerate(moves):
        try:
            board.push(board.parse_move(text))
        except dama.DamaError as exc:
            raise BadMove(ply, move_number(ply, black_first), text, str(exc)) from None
        boards.append(board.copy())
    return boards


def start_fen(variant: str) -> str:
    return dama.Board(variant).fen()


# -- PDN --------------------------------------------------------------------------------------------


class UnreadablePdn(ValueError):
    """A PDN text that cannot be read at all (too large for the reader)."""


#: the PDN reader's codes of a game of a variant the site does not play (or a wrong board)
VARIANT_CODES = ("gametype_not_number", "gametype_unsupported", "gametype_board")


@dataclass(frozen=True)
class PdnEntry:
    """One entry of a PDN text as plain values: a game (``variant``, ``fen``, ``moves``,
    ``result``, ``tags``) or why it cannot be read (``error``: ``"illegal"`` with ``move``
    numbered as in the game, ``"variant"``, or ``"malformed"`` with ``line``; ``reason`` in the
    engine's words)."""

    number: int
    variant: str = ""
    fen: str = ""
    moves: tuple[str, ...] = ()
    result: str = ""
    tags: dict[str, str] = field(default_factory=dict)
    error: str = ""
    move: str = ""
    line: int = 0
    reason: str = ""


def read_pdn(text: str, variant: str) -> list[PdnEntry]:
    """Every entry of the PDN ``text`` (a game without a ``GameType`` tag is of ``variant``).

    >>> [e.error or e.moves for e in read_pdn('[GameType "29"] 1. 22-18 11-15 2. 18x11 *', "czech")]
    [('22-18', '11-15', '18x11')]
    >>> e = read_pdn("1. 22-18 11-15 2. 18-14 *", "czech")[0]
    >>> e.error, e.move
    ('illegal', '2. 18-14')
    """
    out: list[PdnEntry] = []
    try:
        for item in dama.pdn.read_games(text, default_variant=variant):
            if isinstance(item, dama.pdn.GameError):
                if item.code == "unplayable_move":
                    number, move = item.params.get("number", ""), item.params.get("move", "")
                    out.append(PdnEntry(item.index, error="illegal", move=f"{number} {move}".strip(),
                                        line=item.line, reason=str(item.params.get("reason", item.message))))  # fmt: skip
                else:
                    kind = "variant" if item.code in VARIANT_CODES else "malformed"
                    out.append(
                        PdnEntry(item.index, error=kind, line=item.line, reason=item.message)
                    )
                continue
            out.append(
                PdnEntry(
                    item.index,
                    variant=item.variant.name,
                    fen=item.board().fen(),
                    moves=tuple(node.move_text for node in item.moves),
                    result=item.result,
                    tags=dict(item.tags),
                )
            )
    except dama.InvalidPdnError as exc:
        raise UnreadablePdn(str(exc)) from None
    return out


# -- the values -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Proof:
    """The solver's verdict on a moment's position (side to move = solver)."""

    verdict: str
    fen: str
    goal: str
    horizon: int = 0
    gain: int = 0
    solution: tuple[str, ...] = ()
    motifs: tuple[str, ...] = ()
    difficulty: int = 0
    #: the verdict as stored with a puzzle (``Puzzle.adopt_proof``), when unique
    proof: dict[str, Any] | None = None

    @property
    def is_unique(self) -> bool:
        return self.verdict == "unique" and self.proof is not None


@dataclass(frozen=True)
class Found:
    """A moment: ``kind`` ``missed`` or ``allowed`` at move ``ply`` by ``side``."""

    ply: int
    side: str
    kind: str
    played: str
    proof: Proof


@dataclass
class Analysis:
    engine_version: str
    evaluations: list[dict[str, Any]] = field(default_factory=list)
    marks: list[dict[str, Any]] = field(default_factory=list)
    moments: list[Found] = field(default_factory=list)
    #: CPU seconds: the searches and the proofs
    search_seconds: float = 0.0
    proof_seconds: float = 0.0
    #: moments left unproven when :data:`PROOF_SECONDS` ran out
    unproven: int = 0


# -- the evaluation ---------------------------------------------------------------------------------


def _side(board: dama.Board) -> str:
    return "white" if board.turn == dama.WHITE else "black"


def evaluate(board: dama.Board, nodes: int = NODES, memory: Memory | None = None) -> dict[str, Any]:
    """One position's entry of ``GameAnalysis.evaluations`` (White's view), and its score from
    the side to move's view under the key ``"_score"`` (dropped before storing)."""
    white = board.turn == dama.WHITE
    if not board.legal_moves:  # the side to move has lost
        score = -MATE
        return {"eval": score if white else -score, "mate": 0, "best": None, "line": [],
                "depth": 0, "nodes": 0, "_score": score}  # fmt: skip
    outcome = board.outcome()
    if outcome is not None:  # a draw by the rules
        return {"eval": 0, "mate": None, "best": None, "line": [], "depth": 0, "nodes": 0,
                "_score": 0}  # fmt: skip
    result = search(board, nodes=nodes, memory=memory)
    line: list[str] = []
    b = board.copy(stack=False)
    for m in result.pv:
        line.append(b.move_text(m))
        b.push(m)
    score = result.score
    mate = None
    if abs(score) > MATE_BOUND:
        plies = MATE - abs(score)
        mate = plies if (score > 0) == white else -plies
    return {
        "eval": score if white else -score,
        "mate": mate,
        "best": line[0] if line else board.move_text(result.move),
        "line": line,
        "depth": result.depth,
        "nodes": result.nodes,
        "_score": score,
    }


def drop_of(before: int, after: int) -> int:
    """The evaluation a move lost from the mover's view: ``before`` is the score of the position
    it was played from (mover to move), ``after`` of the position it led to (opponent to move).

    >>> drop_of(100, 50), drop_of(0, -20), drop_of(29990, -29000) <= 2 * DROP_CLAMP
    (150, -20, True)
    """
    return _clamp(before) + _clamp(after)


def _clamp(score: int) -> int:
    return max(-DROP_CLAMP, min(DROP_CLAMP, score))


# -- the proofs -------------------------------------------------------------------------------------


def proof_limits(board: dama.Board) -> Limits:
    return PROOF_LIMITS_10x10 if board.variant.size == 10 else PROOF_LIMITS


def prove(board: dama.Board, limits: Limits | None = None) -> Proof | None:
    """Whether the side to move has a forced win or material gain here, proven: None when a short
    material look-ahead sees none (nothing to prove); else the :class:`Proof` of the largest gain
    (or the win) it sees, at the length of its shortest solution, with the solver's verdict
    (``unique`` only when unique and free of duals on the main line; ``cooked`` when another first
    move also reaches it; ``no_solution``/``undecided`` when the proof could not be made).

    >>> b = dama.Board("czech", "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15")
    >>> p = prove(b)
    >>> p.verdict, p.goal, p.solution[0]
    ('unique', 'gain:1', '22-17')
    """
    limits = limits or proof_limits(board)
    c = core(board.variant)
    pos = board.key()
    legal = c.moves(*pos)
    if len(legal) < 2:
        return None  # a forced move decides nothing
    score = max(material_search(c, *pos, looks[board.variant.size]) for looks in LOOK_AHEADS)
    fen = board.fen()
    if score >= 50:  # the side to move wins within the look-ahead
        goals = ["win"]
    else:
        gain = min(score - material_balance(pos), MAX_GAIN)
        if gain < 1:
            return None
        goals = [f"gain:{n}" for n in range(gain, 0, -1)][:2]
    last: Proof | None = None
    for goal in goals:
        lim = (
            replace(limits, moves=min(limits.moves or WIN_MOVES, WIN_MOVES))
            if goal == "win"
            else limits
        )
        length = shortest(board, goal, lim)
        if length is None:
            last = Proof("undecided", fen, goal)
            continue
        if length == 0:
            last = last or Proof("no_solution", fen, goal)
            continue
        v = solve(board, goal, replace(lim, moves=length), all_cooks=False)
        if v.kind == "unique" and not is_dual_free(v):
            return Proof("cooked", fen, goal, v.horizon, _gain(goal), tuple(v.solution))
        if v.kind != "unique":
            return Proof(v.kind, fen, goal, v.horizon, _gain(goal), tuple(v.solution))
        pz = mined_puzzle(board, v, "")
        return Proof(
            "unique", fen, goal, v.horizon, _gain(goal), tuple(pz.solution), tuple(pz.motifs),
            pz.difficulty, v.to_dict(),
        )  # fmt: skip
    return last


def _reaches(board: dama.Board, move: dama.Move, proof: Proof) -> bool:
    """Whether ``move`` is the proof's first move, or (a cooked proof) one of its alternatives'."""
    firsts = {proof.solution[0]}
    alternatives = (proof.proof or {}).get("alternatives") or []
    firsts.update(line[0] for line in alternatives if line)
    for text in firsts:
        try:
            if board.parse_move(text) == move:
                return True
        except dama.DamaError:
            continue
    return False


#: the limits of the check that another move avoided the opponent's shot
AVOID_LIMITS = Limits(nodes=20_000, seconds=1.0)
#: how many other moves are tried (the most material-keeping first)
AVOID_TRIES = 6


def was_avoidable(before: dama.Board, played: dama.Move, proof: Proof) -> bool:
    """The move ``played`` walked into the opponent's forced gain ``proof``: another move of the
    mover leaves the opponent no way to reach that goal within its horizon (as
    :func:`dama.mine.was_allowed`). A forced move walks into nothing."""
    others = [m for m in before.legal_moves if m != played]
    c = core(before.variant)

    def kept(m: dama.Move) -> int:
        child = before.copy(stack=False)
        child.push(m)
        return material_search(c, *child.key(), 1)

    others.sort(key=kept)
    limits = replace(AVOID_LIMITS, moves=max(1, proof.horizon))
    for m in others[:AVOID_TRIES]:
        child = before.copy(stack=False)
        child.push(m)
        if not child.legal_moves:
            continue
        if solve(child, proof.goal, limits, all_cooks=False).kind == "no_solution":
            return True
    return False


def _gain(goal: str) -> int:
    return int(goal.partition(":")[2] or 0) if goal.startswith("gain") else 0


# -- the game ---------------------------------------------------------------------------------------


Progress = Callable[[int, int], None]


def analyse(
    variant: str,
    fen: str,
    moves: Sequence[str],
    *,
    nodes: int = NODES,
    progress: Progress | None = None,
    proof_seconds: float = PROOF_SECONDS,
) -> Analysis:
    """The analysis of the game ``moves`` from ``fen`` (empty: the variant's start):
    evaluations, marks and moments (see the module). ``progress(done, total)`` is called as it
    goes (positions evaluated, then moments proven). Raises :class:`BadMove`."""
    boards = replay(variant, fen, moves)
    out = Analysis(engine_version=engine_key(nodes))
    total = len(boards) * 2  # the searches, then the proofs (counted as much)
    memory = Memory(max_entries=300_000)
    t0 = time.process_time()
    scores: list[int] = []
    for i, board in enumerate(boards):
        entry = evaluate(board, nodes, memory)
        scores.append(entry.pop("_score"))
        out.evaluations.append(entry)
        if progress is not None:
            progress(i + 1, total)
    out.search_seconds = time.process_time() - t0
    t1 = time.process_time()
    for ply in range(len(moves)):
        drop = drop_of(scores[ply], scores[ply + 1])
        kind = mark_of(drop)
        if kind is not None:
            out.marks.append({"ply": ply, "side": _side(boards[ply]), "kind": kind, "drop": drop,
                              "best": out.evaluations[ply]["best"]})  # fmt: skip
    # every position: does the side to move have a forced gain or win? (a cheap look-ahead
    # first; the solver only where it sees one)
    proofs: list[Proof | None] = []
    for i, board in enumerate(boards):
        if time.process_time() - t1 > proof_seconds:
            out.unproven = len(boards) - i
            proofs.extend([None] * (len(boards) - i))
            break
        proofs.append(prove(board) if board.legal_moves else None)
        if progress is not None:
            progress(len(boards) + i + 1, total)
    for ply in range(len(moves)):
        before = boards[ply]
        played_move = before.parse_move(moves[ply])
        played = before.move_text(played_move)
        side = _side(before)
        missed = proofs[ply]
        if missed is not None and missed.solution and not _reaches(before, played_move, missed):
            out.moments.append(Found(ply, side, "missed", played, missed))
        allowed = proofs[ply + 1]
        if allowed is not None and allowed.solution and was_avoidable(before, played_move, allowed):
            out.moments.append(Found(ply, side, "allowed", played, allowed))
    out.proof_seconds = time.process_time() - t1
    if progress is not None:
        progress(total, total)
    return out
