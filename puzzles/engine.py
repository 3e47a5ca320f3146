"""The puzzles app's one seam to the rules engine ``dama``.

Only this module imports ``dama`` in ``puzzles``. It turns engine objects into plain data (dicts,
lists, strings) for models, tasks and templates, and engine errors into ``ValidationError`` with
the engine's own message: positions (FEN), goals and limits, proofs (``dama.solve``), mining
(``dama.mine``), diagrams (``dama.svg``) and puzzle PDN.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

import dama
import dama.mine
import dama.solve
import dama.svg
from core.variants import VARIANTS, get_variant

#: the verdict kinds of ``dama.solve`` (unique, cooked, no_solution, undecided)
VERDICT_KINDS: tuple[str, ...] = tuple(dama.solve.VERDICT_KINDS)
GOAL_KINDS: tuple[str, ...] = tuple(dama.solve.GOAL_KINDS)

#: progress callback of a proof: (nodes searched, horizon in plies, seconds elapsed)
Progress = Callable[[int, int, float], None]


def engine_version() -> str:
    """The version every proof records; a proof made by another version is stale."""
    return str(dama.ENGINE_VERSION)


def svg_lang() -> str:
    """The language of diagram titles and descriptions: the page's."""
    return "cs" if (get_language() or "").startswith("cs") else "en"


# -- positions, goals, limits ----------------------------------------------------------------------


def position(fen: str, variant: str) -> dama.Board:
    """The position ``fen`` in ``variant``; ``ValidationError`` with the engine's message."""
    if variant not in VARIANTS:
        raise ValidationError(_("Unknown variant."), code="variant")
    if not isinstance(fen, str) or not fen.strip():
        raise ValidationError(_("The position is missing."), code="fen")
    try:
        return dama.Board.from_fen(fen.strip(), variant)
    except ValueError as exc:
        raise ValidationError(
            _("The position is not valid: %(reason)s") % {"reason": exc}, code="fen"
        ) from None


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
    board = position(fen, variant)
    for n, text in enumerate(moves, 1):
        try:
            board.push(board.parse_move(text))
        except ValueError as exc:
            raise ValidationError(
                _("Move %(n)s (%(move)s) of the solution is not legal: %(reason)s")
                % {"n": n, "move": text, "reason": exc},
                code="solution",
            ) from None


def white_to_move(fen: str) -> bool:
    return fen.strip()[:1].upper() != "B"


# -- proofs ----------------------------------------------------------------------------------------


def prove(
    variant: str,
    fen: str,
    goal: str,
    horizon: int | None,
    limits: dict[str, Any],
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Solve the puzzle and return the verdict as plain data (``Verdict.to_dict()``).

    ``ValidationError`` for a position, goal or limits the engine rejects; a normal outcome
    (cooked, no solution, undecided) is a verdict, never an exception.
    """
    board = position(fen, variant)
    goal = normalize_goal(goal)
    check_limits(horizon, limits)
    lim = dama.solve.Limits.from_dict({**limits, "moves": horizon})
    verdict = dama.solve.solve(board, goal, lim, progress=progress)
    return verdict.to_dict()


def is_verdict(data: Any) -> bool:
    """True when ``data`` reads as a verdict of the engine (e.g. a proof shipped in PDN)."""
    if not isinstance(data, dict):
        return False
    try:
        v = dama.solve.Verdict.from_dict(data)
    except (KeyError, TypeError, ValueError):
        return False
    return v.kind in VERDICT_KINDS


def accepted_moves(proof: dict[str, Any], played: Iterable[str]) -> list[dict[str, Any]]:
    """The solver moves a proof accepts after ``played`` (full routes, solver first): each as
    ``{"move", "routes", "start", "end", "captured"}``; empty once ``played`` leaves the proof."""
    v = dama.solve.Verdict.from_dict(proof)
    return [
        {
            "move": m.text,
            "routes": list(m.routes),
            "start": m.start,
            "end": m.end,
            "captured": list(m.captured),
        }
        for m in v.accepted_moves(played)
    ]


def proof_accepts(
    variant: str, fen: str, proof: dict[str, Any], played: list[str], move: str
) -> bool:
    """True when the proof accepts ``move`` (any notation or route) after ``played``."""
    board = position(fen, variant)
    try:
        for text in played:
            board.push(board.parse_move(text))
        key = board.parse_move(move).key()
    except ValueError:
        return False
    return any(
        (m["start"], m["end"], frozenset(m["captured"])) == key
        for m in accepted_moves(proof, played)
    )


# -- diagrams --------------------------------------------------------------------------------------


def diagram(
    variant: str, fen: str | None = None, arrows: Iterable[str] = (), size: int | None = None
) -> SafeString:
    """A diagram of ``fen`` (the start position when None), with an arrow for each legal move
    written in ``arrows`` (moves that do not parse are left out)."""
    get_variant(variant)
    board = dama.Board(variant) if fen is None else position(fen, variant)
    moves = []
    for text in arrows:
        try:
            moves.append(board.parse_move(text))
        except ValueError:
            continue
    svg = dama.svg.board_svg(board, arrows=moves, labels="auto", lang=svg_lang(), size=size)
    return mark_safe(svg)  # engine-made SVG


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


def _unescape(value: str) -> str:
    return value.replace('\\"', '"').replace("\\\\", "\\")


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


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
    for n, tags in enumerate(dama.mine.read_puzzles_pdn(text), 1):
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
    fen = normalize_fen(_unescape(fen), name)
    goal = normalize_goal(tags.get("Goal", "capture"))
    horizon: int | None = None
    if tags.get("Horizon", "").strip():
        try:
            horizon = int(tags["Horizon"])
        except ValueError:
            raise ValidationError(_("the Horizon tag is not a number")) from None
    difficulty: int | None = None
    if tags.get("Difficulty", "").strip().isdigit():
        difficulty = int(tags["Difficulty"])
    proof: dict[str, Any] | None = None
    if tags.get("Proof"):
        try:
            proof = json.loads(_unescape(tags["Proof"]))
        except ValueError:
            raise ValidationError(_("the Proof tag is not JSON")) from None
        if not is_verdict(proof):
            raise ValidationError(_("the Proof tag is not a verdict of the engine"))
    return PuzzleData(
        variant=name,
        fen=fen,
        goal=goal,
        horizon=horizon,
        solution=_unescape(tags.get("Solution", "")).split(),
        motifs=_unescape(tags.get("Motifs", "")).split(),
        difficulty=difficulty,
        source=_unescape(tags.get("Source", "")),
        title=_unescape(tags.get("Title", "")),
        description=_unescape(tags.get("Description", "")),
        engine_version=_unescape(tags.get("Engine", "")),
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
        text = dama.mine.puzzle_pdn(mined)
        extra = [f'[{k} "{_escape(v)}"]' for k, v in (("Title", p.title),) if v]
        if p.proof is not None:
            extra.append(f'[Proof "{_escape(json.dumps(p.proof, separators=(",", ":")))}"]')
        if extra:
            head, _sep, body = text.partition("\n\n")
            text = head + "\n" + "\n".join(extra) + "\n\n" + body
        out.append(text)
    return "\n".join(out)


# -- mining ----------------------------------------------------------------------------------------


def mine(
    variant: str,
    count: int,
    seed: int = 0,
    *,
    pdn_text: str | None = None,
    progress: Callable[[int, int, dict[str, int]], None] | None = None,
) -> Iterator[PuzzleData]:
    """Proven-unique puzzles mined from seeded self-play games (or from the games of
    ``pdn_text``), as plain data; ``progress(games, found, per_goal)`` after each game."""
    get_variant(variant)
    positions = dama.mine.pdn_positions(pdn_text, variant) if pdn_text is not None else None
    for p in dama.mine.mine(variant, count, seed, positions=positions, progress=progress):
        yield PuzzleData(
            variant=p.variant,
            fen=p.fen,
            goal=p.goal,
            horizon=p.horizon,
            solution=list(p.solution),
            motifs=list(p.motifs),
            difficulty=p.difficulty,
            source=p.source,
            engine_version=p.engine_version,
        )
