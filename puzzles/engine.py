"""The puzzles app's one seam to the rules engine ``dama``.

Only this module imports ``dama`` in ``puzzles``. It turns engine objects into plain data (dicts,
lists, strings) for models, tasks and templates, and engine errors into ``ValidationError`` with
the engine's own message: positions (FEN), goals and limits, proofs (``dama.solve``), mining
(``dama.mine``), diagrams (``dama.svg``) and puzzle PDN.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

import dama
import dama.mine
import dama.pdn
import dama.proof
import dama.solve
from core import board as core_board
from core.numbers import read_int
from core.variants import get_variant

#: the verdict kinds of ``dama.solve`` (unique, cooked, no_solution, undecided)
VERDICT_KINDS: tuple[str, ...] = tuple(dama.solve.VERDICT_KINDS)
GOAL_KINDS: tuple[str, ...] = tuple(dama.solve.GOAL_KINDS)

#: progress callback of a proof: (nodes searched, horizon in plies, seconds elapsed)
Progress = Callable[[int, int, float], None]


def engine_version() -> str:
    """The version every proof records; a proof made by another version is stale."""
    return str(dama.ENGINE_VERSION)


# -- positions, goals, limits ----------------------------------------------------------------------


def position(fen: str, variant: str) -> dama.Board:
    """The position ``fen`` in ``variant``; ``ValidationError`` with the engine's message."""
    return core_board.board_from_fen(fen, variant)


def normalize_fen(fen: str, variant: str) -> str:
    """The engine's canonical text of a position (how puzzles are keyed)."""
    return position(fen, variant).fen()


def normalize_goal(goal: str) -> str:
    """``capture``, ``gain:N`` or ``win`` as the engine writes it; ``ValidationError`` otherwise."""
    try:
        return str(dama.solve.parse_goal(goal))
    except ValueError as exc:
        raise ValidationError(
            _("The goal is not valid: %(reason)s") % {"reason": exc}, code="goal"
        ) from None


def default_horizon(goal: str) -> int:
    """The horizon (moves of the side to move) used when a puzzle names none."""
    return dama.solve.parse_goal(goal).default_moves


def fixed_horizon(goal: str) -> int | None:
    """The horizon a goal imposes (1 for ``capture``), or None when the puzzle chooses."""
    return 1 if dama.solve.parse_goal(goal).kind == "capture" else None


def check_limits(horizon: int | None, limits: dict[str, Any]) -> dict[str, Any]:
    """The engine's limits for ``horizon`` and ``limits`` (nodes, seconds, max_depth) as plain data;
    ``ValidationError`` with the engine's message when out of range."""
    try:
        lim = dama.solve.Limits.from_dict({**limits, "moves": horizon})
    except (ValueError, TypeError) as exc:
        raise ValidationError(
            _("The limits are not valid: %(reason)s") % {"reason": exc}, code="limits"
        ) from None
    data = lim.to_dict()
    data.pop("moves")
    return data


def default_limits(nodes: int, seconds: float) -> dict[str, Any]:
    return check_limits(None, {"nodes": nodes, "seconds": seconds})


def line_texts(variant: str, fen: str, moves: Iterable[str]) -> list[str]:
    """Moves (any notation) rewritten in the variant's usual notation; the rest is kept as given
    from the first move that does not parse."""
    texts = list(moves)
    try:
        board = position(fen, variant)
    except ValidationError:
        return texts
    out: list[str] = []
    for i, text in enumerate(texts):
        try:
            move = board.parse_move(text)
        except ValueError:
            return out + texts[i:]
        out.append(board.move_text(move))
        board.push(move)
    return out


def check_line(variant: str, fen: str, moves: Iterable[str]) -> None:
    """``ValidationError`` naming the first move of ``moves`` that is not legal in turn."""
    core_board.play_line(variant, fen, moves)


white_to_move = core_board.white_to_move


# -- proofs ----------------------------------------------------------------------------------------


#: limits of each small proof run while refuting a wrong move
REFUTE_LIMITS = {"nodes": 200_000, "seconds": 1.5}
#: time for the refutation of one wrong move
REFUTE_BUDGET_SECONDS = 4.0
#: time for the refutations of all the wrong moves of one proof (on the worker, after the proof)
REFUTATIONS_SECONDS = 20.0
#: positions of the proof (solver to move) whose wrong moves are refuted, breadth first
REFUTATIONS_MAX_POSITIONS = 64


def prove(
    variant: str,
    fen: str,
    goal: str,
    horizon: int | None,
    limits: dict[str, Any],
    progress: Progress | None = None,
    *,
    refute_seconds: float = REFUTATIONS_SECONDS,
) -> dict[str, Any]:
    """Solve the puzzle and return the verdict as plain data (``Verdict.to_dict()``).

    A unique verdict also carries ``refutations``: the defender's answer to the tempting wrong
    moves (see :func:`refutations`), found within ``refute_seconds``, so that the trainer answers
    a wrong move without a search. ``ValidationError`` for a position, goal or limits the engine
    rejects; a normal outcome (cooked, no solution, undecided) is a verdict, never an exception.
    """
    board = position(fen, variant)
    goal = normalize_goal(goal)
    check_limits(horizon, limits)
    lim = dama.solve.Limits.from_dict({**limits, "moves": horizon})
    verdict = dama.solve.solve(board, goal, lim, progress=progress)
    data = verdict.to_dict()
    if verdict.is_unique and refute_seconds > 0:
        data["refutations"] = refutations(
            variant, data["fen"], goal, verdict.horizon, data["proof"], seconds=refute_seconds
        )
    return data


def is_verdict(data: Any) -> bool:
    """True when ``data`` reads as a verdict of the engine (e.g. a proof shipped in PDN)."""
    if not isinstance(data, dict):
        return False
    try:
        v = dama.solve.Verdict.from_dict(data)
    except (KeyError, TypeError, ValueError, OverflowError):  # OverflowError: int(1e999)
        return False
    return v.kind in VERDICT_KINDS


def proof_tree(proof: dict[str, Any] | None) -> dama.proof.ProofTree:
    """The proof tree of a stored verdict (``{}`` or None: an empty tree), for the trainer to ask
    what it accepts (``puzzles.trainer.build_judge``)."""
    return dama.proof.ProofTree.from_dict(proof or {})


# -- diagrams --------------------------------------------------------------------------------------


def diagram(
    variant: str, fen: str | None = None, arrows: Iterable[str] = (), size: int | None = None
) -> SafeString:
    """A diagram of ``fen`` (the start position when None), with an arrow for each legal move
    written in ``arrows`` (moves that do not parse are left out)."""
    board = core_board.start_board(variant) if fen is None else position(fen, variant)
    return core_board.draw(board, arrows=arrows, size=size)


# -- PDN -------------------------------------------------------------------------------------------


@dataclass
class PuzzleData:
    """One puzzle as plain data, read from or written to PDN (``dama.mine`` tags)."""

    variant: str
    fen: str
    goal: str
    horizon: int | None = None
    solution: list[str] = field(default_factory=list)
    motifs: list[str] = field(default_factory=list)
    difficulty: int | None = None
    source: str = ""
    title: str = ""
    description: str = ""
    engine_version: str = ""
    #: a verdict shipped with the puzzle (the ``Proof`` tag), when there is one
    proof: dict[str, Any] | None = None


def variant_of_gametype(gametype: str) -> str | None:
    try:
        number = int(gametype.split(",", 1)[0])
    except ValueError:
        return None
    for v in dama.VARIANTS.values():
        if v.gametype == number:
            return v.name
    return None


def read_puzzles(text: str, variant: str | None = None) -> Iterator[PuzzleData | ValidationError]:
    """The puzzles of a PDN text (tags as written by ``dama.mine``), each as ``PuzzleData`` or,
    for an entry that cannot be a puzzle, the ``ValidationError`` saying why."""
    for n, tags in enumerate(dama.pdn.read_tags(text), 1):
        try:
            yield _puzzle_from_tags(tags, variant)
        except ValidationError as exc:
            yield ValidationError(
                _("Puzzle %(n)s: %(reason)s") % {"n": n, "reason": " ".join(exc.messages)}
            )


def _puzzle_from_tags(tags: dict[str, str], variant: str | None) -> PuzzleData:
    name = variant or variant_of_gametype(tags.get("GameType", ""))
    if name is None:
        raise ValidationError(_("no variant (GameType tag) was given"))
    fen = tags.get("FEN", "")
    if not fen:
        raise ValidationError(_("no position (FEN tag) was given"))
    fen = normalize_fen(fen, name)
    goal = normalize_goal(tags.get("Goal", "capture"))
    horizon: int | None = None
    if tags.get("Horizon", "").strip():
        horizon = read_int(tags["Horizon"], 1, MAX_TAG_NUMBER)
        if horizon is None:
            raise ValidationError(_("the Horizon tag is not a number"))
    difficulty = read_int(tags.get("Difficulty", ""), 0, MAX_TAG_NUMBER)
    proof: dict[str, Any] | None = None
    if tags.get("Proof"):
        try:
            proof = json.loads(tags["Proof"])
        except ValueError:
            raise ValidationError(_("the Proof tag is not JSON")) from None
        if not is_verdict(proof):
            raise ValidationError(_("the Proof tag is not a verdict of the engine"))
    return PuzzleData(
        variant=name,
        fen=fen,
        goal=goal,
        horizon=horizon,
        solution=tags.get("Solution", "").split(),
        motifs=list(dict.fromkeys(tags.get("Motifs", "").split())),
        difficulty=difficulty,
        source=tags.get("Source", ""),
        title=tags.get("Title", ""),
        description=tags.get("Description", ""),
        engine_version=tags.get("Engine", ""),
        proof=proof,
    )


def write_puzzles(puzzles: Iterable[PuzzleData]) -> str:
    """Puzzles as PDN, with the tags of ``dama.mine`` (and ``Proof`` when one is attached), games
    separated by a blank line."""
    out = []
    for p in puzzles:
        mined = dama.mine.MinedPuzzle(
            variant=p.variant,
            fen=p.fen,
            goal=p.goal,
            horizon=p.horizon or default_horizon(p.goal),
            solution=tuple(p.solution),
            motifs=tuple(p.motifs),
            difficulty=p.difficulty or 0,
            source=p.source,
            duals=int((p.proof or {}).get("duals", 0)),
            nodes=int((p.proof or {}).get("nodes", 0)),
            engine_version=p.engine_version,
        )
        extra = {"Title": p.title} if p.title else {}
        if p.proof is not None:
            extra["Proof"] = json.dumps(p.proof, separators=(",", ":"))
        out.append(dama.mine.puzzle_pdn(mined, extra))
    return "\n".join(out)


# -- mining ----------------------------------------------------------------------------------------


#: random safe opening plies of the engine games mined (:func:`dama.mine.engine_game`)
MINING_VARIED = dama.mine.VARIED
#: tempting other moves examined in each position of those games (:func:`dama.mine.tempting_moves`)
MINING_SIDELINES = dama.mine.SIDELINES
#: a puzzle's worth as the daily puzzle, estimated from its goal, horizon and motifs
quality = dama.mine.quality
varied_label = dama.mine.varied_label


def mine(
    variant: str,
    count: int,
    seed: int = 0,
    *,
    pdn_text: str | None = None,
    progress: Callable[[int, int, dict[str, int]], None] | None = None,
    natural: bool = False,
    level: int = 4,
    nodes: int | None = None,
    first_game: int = 1,
    max_games: int = 100_000,
    skip: Callable[[str, str], bool] | None = None,
    part: tuple[int, int] = (0, 1),
    varied: int = MINING_VARIED,
    sidelines: int = MINING_SIDELINES,
    sideline_plies: int = 1,
    shots: Iterable[str] = (),
    deep: bool = False,
    min_length: int = 1,
) -> Iterator[PuzzleData]:
    """Proven-unique puzzles mined from seeded self-play games (or from the games of
    ``pdn_text``), as plain data with their proofs; ``progress(games, found, per_goal)`` after
    each game. ``natural``: games of the engine at ``level`` (``varied`` random opening plies,
    ``sidelines`` tempting other moves examined in each position, ``sideline_plies`` deep: see
    :func:`dama.mine.mine`), and a
    gain kept only when the opponent's last move allowed it; a position for which
    ``skip(fen, goal)`` says so is passed over (already known: mining is resumable). ``part``
    ``(k, n)``: only the PDN text's games ``k``, ``k + n``, ... (counted from 0). ``shots``:
    when every one of these named shots has a cheap look for where it can start
    (:data:`dama.mine.SHOT_SETUPS`), only the positions where one of them can are proven.
    ``deep``: a longer look-ahead and larger proofs, for puzzles of 5 and more moves;
    ``min_length``: only puzzles of that many solver moves or more."""
    get_variant(variant)
    setups = [dama.mine.SHOT_SETUPS.get(name) for name in shots]
    focus = None
    if setups and all(setups):
        looks = list(dict.fromkeys(setups))  # the coup turc and suisse share one

        def focus(board: dama.Board) -> bool:
            return any(look(board) for look in looks)

    positions = dama.mine.pdn_positions(pdn_text, variant, part) if pdn_text is not None else None
    for p in dama.mine.mine(
        variant,
        count,
        seed,
        positions=positions,
        progress=progress,
        natural=natural,
        level=level,
        nodes=nodes,
        first_game=first_game,
        max_games=max_games,
        skip=skip,
        varied=varied,
        sidelines=sidelines,
        sideline_plies=sideline_plies,
        focus=focus,
        deep=deep,
        min_length=min_length,
    ):
        yield _mined_data(p)


#: the largest PDN text the engine reads
MAX_PDN_BYTES = dama.pdn.MAX_PDN_BYTES
#: the largest number read from a puzzle's ``Horizon`` or ``Difficulty`` tag
MAX_TAG_NUMBER = 9999


def pdn_games(text: str, variant: str, part: tuple[int, int] = (0, 1)) -> tuple[int, list[str]]:
    """How many readable games of ``variant`` a PDN text holds (of ``part``, as :func:`mine`
    reads them) and why the first few other entries could not be read."""
    return dama.mine.pdn_games(text, variant, part)


def _mined_data(p: dama.mine.MinedPuzzle) -> PuzzleData:
    """A mined puzzle as plain data, its proof with the refutations of the tempting wrong moves
    (as a worker's proof has them: the trainer answers a wrong move with the reply that refutes
    it, and a puzzle loaded from PDN is never searched again in a request)."""
    proof = json.loads(p.proof) if p.proof else None
    if proof is not None and proof.get("kind") == "unique" and "refutations" not in proof:
        proof["refutations"] = refutations(
            p.variant, proof["fen"], p.goal, proof["horizon"], proof["proof"]
        )
    return PuzzleData(
        variant=p.variant,
        fen=p.fen,
        goal=p.goal,
        horizon=p.horizon,
        solution=list(p.solution),
        motifs=list(p.motifs),
        difficulty=p.difficulty,
        source=p.source,
        engine_version=p.engine_version,
        proof=proof,
    )


def requalify(variant: str, text: str) -> Iterator[PuzzleData]:
    """The puzzles of a PDN text that today's rules keep: proven unique at their horizon with no
    dual on the main line, their motifs (with the named shots) and difficulty recomputed."""
    for entry in read_puzzles(text, variant):
        if isinstance(entry, Exception):
            continue
        board = dama.Board(variant, entry.fen)
        horizon = entry.horizon or default_horizon(entry.goal)
        verdict = dama.solve.solve(board, entry.goal, dama.solve.Limits(moves=horizon))
        if dama.mine.is_dual_free(verdict):
            yield _mined_data(dama.mine.mined_puzzle(board, verdict, entry.source))


def piece_count(variant: str, fen: str) -> int:
    """How many pieces stand on the board of a position."""
    board = position(fen, variant)
    return (board.white | board.black).bit_count()


def shot_names(variant: str | None = None) -> frozenset[str]:
    """The named shots the engine recognises (the motifs that name a combination), or those the
    literature of ``variant`` names."""
    import dama.shots

    if variant is not None:
        return frozenset(dama.shots.shot_names(variant))
    return frozenset(shot.name for shot in dama.shots.SHOTS)


# -- the trainer (issue 6): boards, entered moves, refutations, replays -----------------------------
#
# The trainer (puzzles.trainer) keeps an attempt's moves as full numeric routes, the way the proof
# writes them; these functions turn them into boards and judge what the player entered. No legal
# move list reaches the page (in a capture puzzle it would be the answer): the board is in the
# board component's lesson mode, where the server answers each click.


def _played(variant: str, fen: str, line: Iterable[str]) -> dama.Board:
    """The board after ``line`` (a copy: the caller may push and pop on it)."""
    return _played_cached(variant, fen, tuple(line)).copy()


def fen_after(variant: str, fen: str, line: Iterable[str]) -> str:
    """The position after ``line`` (moves as the proof writes them), as the engine writes it."""
    return _played_cached(variant, fen, tuple(line)).fen()


@lru_cache(maxsize=512)
def _played_cached(variant: str, fen: str, line: tuple[str, ...]) -> dama.Board:
    # a move check reads the same position three or four times (the entry, the board, the
    # notation of the reply); the trainer's positions repeat across players. The positions of
    # the attempts being played are enough: a board with its moves is about nine objects for the
    # garbage collector to walk at every full collection, and one not kept is made again in
    # 30-200 microseconds (the FEN read, the line's moves played)
    board = position(fen, variant)
    for text in line:
        board.push(board.parse_move(text))
    return board


def trainer_board(
    variant: str,
    fen: str,
    line: Iterable[str] = (),
    *,
    path: Iterable[int] = (),
    marks: dict[int, str] | None = None,
    arrows: Iterable[str] = (),
    flipped: bool | None = None,
    animate: bool = False,
    goal: str = "capture",
) -> core_board.BoardView:
    """The position after ``line``, with its last move marked (``animate`` asks the page to slide
    it in), squares marked (``marks``: square -> CSS class) and ``arrows`` (moves written from this
    position), seen from the solver's side (unless ``flipped`` says otherwise). No legal move
    reaches the page (in a capture puzzle it would be the answer); in a ``gain`` or ``win``
    puzzle, where a picked piece can go by a quiet move does (:func:`shows_targets`)."""
    board = _played(variant, fen, line)
    return core_board.board_view(
        board,
        marks=marks,
        arrows=arrows,
        last_move=board.peek(),
        flipped=solver_flipped(variant, fen) if flipped is None else flipped,
        path=path,
        animate=animate,
        targets=shows_targets(goal),
    )


def solver_flipped(variant: str, fen: str) -> bool:
    """Whether the puzzle's boards are seen from Black's side (Black is to solve it)."""
    return core_board.solver_flipped(_played_cached(variant, fen, ()))


def shows_targets(goal: str) -> bool:
    """Whether a puzzle with ``goal`` shows where a picked piece can go: in a material (``gain``)
    or ``win`` puzzle, quiet moves' destinations are shown (never a capture's: see
    ``core.board.quiet_targets``); a ``capture`` puzzle ("find the multi-jump") shows none."""
    return goal.startswith(("gain", "win"))


def illegal_marks(variant: str, fen: str, line: Iterable[str], text: str) -> dict[int, str]:
    """The marks with meaning (``core.board.explanation_marks``) of the illegal move ``text``
    entered after ``line``: the wrong square, the required piece or landing, the jumped pieces."""
    entry = read_entry(variant, fen, line, text=text)
    return core_board.explanation_marks(entry.code, entry.squares)


def read_entry(
    variant: str, fen: str, line: Iterable[str], *, route: str = "", text: str = ""
) -> core_board.Entry:
    """Read a clicked route (``"22,15,6"``, posted landing by landing) or typed notation on the
    position after ``line``."""
    return core_board.read_entry(_played(variant, fen, line), route=route, text=text)


def move_notation(variant: str, fen: str, line: list[str], route: str) -> str:
    """The move ``route`` (played after ``line``) in the variant's usual notation."""
    board = _played(variant, fen, line)
    return board.move_text(board.parse_move(route))


def _balance(board: dama.Board, white: bool) -> int:
    diff = board.material(dama.WHITE) - board.material(dama.BLACK)
    return diff if white else -diff


def _still_reaches(
    board: dama.Board,
    goal: str,
    white: bool,
    base: int,
    moves_left: int,
    deadline: float | None = None,
) -> bool:
    """With the solver to move on ``board`` and ``moves_left`` moves, can it still reach ``goal``
    (material counted from ``base``) against every defence? Unknown cases (and no time left before
    ``deadline``) count as yes."""
    g = dama.solve.parse_goal(goal)
    if g.kind == "gain":
        need = g.n - (_balance(board, white) - base)
        if need <= 0:
            # reached, or only a capture away from it (the exact answer needs a proof the
            # solver cannot express as a goal): no refutation through this reply
            return True
        if moves_left <= 0:
            return False
        goal_now = f"gain:{need}"
    else:
        if moves_left <= 0:
            return False
        goal_now = "win"
    if not board.legal_moves:
        return False
    seconds = float(REFUTE_LIMITS["seconds"])
    if deadline is not None:
        seconds = min(seconds, deadline - time.monotonic())
        if seconds <= 0.01:
            return True
    lim = dama.solve.Limits(moves=moves_left, nodes=int(REFUTE_LIMITS["nodes"]), seconds=seconds)
    verdict = dama.solve.solve(board, goal_now, lim)
    return verdict.kind != "no_solution"


def _refute(
    board: dama.Board,
    wrong: dama.Move,
    goal: str,
    white: bool,
    base: int,
    moves_left: int,
    deadline: float,
) -> dict[str, Any]:
    """The defender's reply to the solver's legal move ``wrong`` on ``board`` after which the
    goal is out of reach (``board`` is left as it was)."""
    board.push(wrong)
    try:
        replies = list(board.legal_moves)
        chosen = None
        # captures come first (they are compulsory anyway); a few small proofs at most
        for move in sorted(replies, key=lambda m: -len(m.captured))[:8]:
            if time.monotonic() > deadline:
                break
            board.push(move)
            try:
                if not _still_reaches(board, goal, white, base, moves_left - 1, deadline):
                    chosen = move
                    break
            finally:
                board.pop()
        if chosen is None and replies:
            chosen = max(replies, key=lambda m: len(m.captured))
        if chosen is None:
            return {"reply": "", "notation": "", "captured": 0}
        return {
            "reply": chosen.route_str(0),
            "notation": board.move_text(chosen),
            "captured": len(chosen.captured),
        }
    finally:
        board.pop()


def refutation(
    variant: str, fen: str, goal: str, line: list[str], wrong: str, moves_left: int
) -> dict[str, Any]:
    """Why the legal move ``wrong`` (played after ``line``, with ``moves_left`` solver moves
    including it) misses the goal: the defender's reply after which the goal is out of reach, found
    with the solver (``reply`` is empty when no single reply could be shown). A search of up to a
    few seconds: the workers run it (:func:`refutations`), never a web request."""
    start = position(fen, variant)
    white = start.turn == dama.WHITE
    board = start.copy()
    for text in line:
        board.push(board.parse_move(text))
    deadline = time.monotonic() + REFUTE_BUDGET_SECONDS
    return _refute(
        board, board.parse_move(wrong), goal, white, _balance(start, white), moves_left, deadline
    )


def refutations(
    variant: str,
    fen: str,
    goal: str,
    horizon: int,
    proof: list[dict[str, Any]],
    *,
    seconds: float = REFUTATIONS_SECONDS,
    max_positions: int = REFUTATIONS_MAX_POSITIONS,
) -> dict[str, dict[str, dict[str, Any]]]:
    """The refutation of each tempting wrong move of a unique puzzle, for the trainer to read.

    ``proof`` is the verdict's proof tree (``Verdict.to_dict()["proof"]``). At the start and at
    each later position of the proof where the solver is to move (breadth first, at most
    ``max_positions``), every legal move the proof does not accept gets its :func:`refutation`;
    all of them together within ``seconds`` (the moves left out have none stored, and the trainer
    answers them without a reply). The table maps the line played so far (proof routes joined by
    spaces, ``""`` at the start) to the wrong move's route (``Move.route_str(0)``, as the trainer
    reads it) to ``{"reply", "notation", "captured"}``.
    """
    start = position(fen, variant)
    white = start.turn == dama.WHITE
    base = _balance(start, white)
    deadline = time.monotonic() + seconds
    table: dict[str, dict[str, dict[str, Any]]] = {}
    todo: deque[tuple[tuple[str, ...], list[dict[str, Any]]]] = deque([((), proof)])
    positions = 0
    while todo and positions < max_positions and time.monotonic() < deadline:
        line, accepted = todo.popleft()
        positions += 1
        board = start.copy()
        for text in line:
            board.push(board.parse_move(text))
        keys = {(n["start"], n["end"], frozenset(n["captured"])) for n in accepted}
        moves_left = max(1, horizon - len(line) // 2)
        wrong: dict[str, dict[str, Any]] = {}
        for move in board.legal_moves:
            if move.key() in keys:
                continue
            if time.monotonic() >= deadline:
                break
            wrong[move.route_str(0)] = _refute(board, move, goal, white, base, moves_left, deadline)
        if wrong:
            table[" ".join(line)] = wrong
        for node in accepted:
            for reply in node.get("replies", ()):
                if reply.get("replies") and reply.get("expanded", True):
                    todo.append(((*line, node["move"], reply["move"]), reply["replies"]))
    return table


def replay_frames(variant: str, fen: str, moves: Iterable[str]) -> list[dict[str, Any]]:
    """The solution as frames: the start, then the board after each move (with its notation),
    seen from the solver's side."""
    board = position(fen, variant)
    flipped = core_board.solver_flipped(board)
    frames = [{"svg": core_board.draw(board, flipped=flipped), "move": ""}]
    for text in moves:
        move = board.parse_move(text)
        notation = board.move_text(move)
        board.push(move)
        frames.append(
            {"svg": core_board.draw(board, last_move=move, flipped=flipped), "move": notation}
        )
    return frames
