"""The exams app's one seam to the rules engine ``dama``.

Only this module imports ``dama`` in ``exams``. It does three things no other app needs:

* :func:`generate_rule_questions` makes the rule questions of the first levels (written to
  ``exams/questions/<variant>.yaml`` by ``manage.py make_exam_questions``, then kept as data):
  positions reached along the corpus's solution lines (never a puzzle's own position), asked in
  the lesson exercise kinds, so that ``core.exercise.judge`` judges them as it judges a lesson;
* :func:`diagram_squares` lays out a position for the certificate's drawing;
* :func:`fen_is_readable` checks a position of the level data.

Puzzle questions are judged by the puzzle's own judge (``Puzzle.judge``: ``puzzles.trainer.Judge``,
built from the proof tree ``dama.proof.ProofTree``), on boards read through ``core.board``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import dama
import dama.pdn

#: rule-question kinds: name -> (lesson exercise kind, level tier)
RULE_KINDS = {
    "compulsory": ("move", 1),
    "crown": ("move", 1),
    "select": ("select_captures", 2),
    "route": ("capture_route", 2),
    # "choose the better move" (issue 50): kept in exams/questions/strategy-<variant>.yaml,
    # written by hand from engine-checked positions, not generated here
    "strategy": ("better_move", 3),
}
#: the rule kinds :func:`generate_rule_questions` makes
GENERATED_KINDS = ("compulsory", "crown", "select", "route")

_PROMPTS = {
    "compulsory": {
        "cs": "Zahraj tah, který ti pravidla dovolují.",
        "en": "Play a move the rules allow.",
    },
    "crown": {
        "cs": "Zahraj tah, kterým kámen dojde do dámy.",
        "en": "Play a move that crowns a man (makes it a king).",
    },
    "select": {
        "cs": "Vyber všechna braní, která ti pravidla dovolují, a stiskni Zkontrolovat.",
        "en": "Select every capture the rules allow, then press Check.",
    },
    "route": {
        "cs": "Zahraj celé braní: klikni na figuru a pak na každý dopad.",
        "en": "Play the whole capture: click the piece, then every landing square.",
    },
}
_HINTS = {
    "compulsory": {"cs": "Braní je povinné.", "en": "Capturing is compulsory."},
    "crown": {
        "cs": "Kámen, který skončí tah na poslední řadě, se promění v dámu.",
        "en": "A man that ends its move on the far row becomes a king.",
    },
    "select": {
        "cs": "Podívej se na každou figuru, která může brát.",
        "en": "Look at every piece that can capture.",
    },
    "route": {
        "cs": "Braní se musí dokončit: skáče se, dokud je co brát.",
        "en": "A capture must be completed: jump on while there is something to capture.",
    },
}

#: the articles each kind asks about, per rulebook
_ARTICLES = {
    "czech": {
        "compulsory": ["CUD 2006 art. 4.1"],
        "crown": ["CUD 2006 art. 3.8"],
        "select": ["CUD 2006 art. 4.13", "CUD 2006 art. 4.14"],
        "route": ["CUD 2006 art. 4.5", "CUD 2006 art. 4.6"],
    },
    "international": {
        "compulsory": ["SDS international art. 3"],
        "crown": ["SDS international art. 5"],
        "select": ["SDS international art. 4"],
        "route": ["SDS international art. 3", "SDS international art. 6"],
    },
    "brazilian": {
        "compulsory": ["SDS Brazilian art. 3"],
        "crown": ["SDS Brazilian art. 5"],
        "select": ["SDS Brazilian art. 4"],
        "route": ["SDS Brazilian art. 3", "SDS Brazilian art. 6"],
    },
}


def _ident(variant: str, kind: str, fen: str) -> str:
    return f"{variant[:2]}-{kind}-" + hashlib.sha256(f"{kind}|{fen}".encode()).hexdigest()[:8]


def solution_lines(pdn: str) -> list[tuple[str, list[str]]]:
    """``(fen, solution)`` of each puzzle of a PDN text (the corpus's tags, ``dama.mine``): what
    :func:`generate_rule_questions` walks along. An entry without a position is left out."""
    return [
        (tags["FEN"], tags.get("Solution", "").split())
        for tags in dama.pdn.read_tags(pdn)
        if tags.get("FEN")
    ]


def _positions(variant: str, entries: Iterable[tuple[str, list[str]]]) -> Iterator[dama.Board]:
    """The positions along each ``(fen, solution)`` after one move or more."""
    for fen, line in entries:
        try:
            board = dama.Board(variant, fen)
            for text in line:
                board.push(board.parse_move(text))
                yield board.copy(stack=False)
        except (dama.DamaError, ValueError):
            continue


def _question(variant: str, kind: str, board: dama.Board) -> dict[str, Any] | None:
    """The rule question ``kind`` asked on ``board``, or None when the position does not ask it."""
    moves = board.legal_moves
    if not moves or board.outcome() is not None:
        return None
    captures = [m for m in moves if m.captured]
    fen = board.fen()
    exercise: dict[str, Any]
    if kind == "compulsory":
        # a capture is there, and several men could otherwise make a quiet move
        if not captures or len(moves) > 3 or len(board.pieces(board.turn)) < 4:
            return None
        exercise = {"kind": "move", "answer": sorted(board.move_text(m) for m in moves)}
    elif kind == "crown":
        crowning = [m for m in moves if m.crowns and not m.captured]
        if captures or not crowning or len(crowning) > 3 or len(moves) < 3:
            return None
        exercise = {"kind": "move", "answer": sorted(board.move_text(m) for m in crowning)}
    elif kind == "select":
        if len(captures) < 2 or len(captures) > 5:
            return None
        exercise = {"kind": "select_captures", "answer": sorted(board.move_text(m) for m in moves)}
    elif kind == "route":
        if len(moves) != 1 or len(moves[0].captured) < 2:
            return None
        move = moves[0]
        routes = sorted(board.route_text(move, i) for i in range(len(move.routes)))
        exercise = {"kind": "capture_route", "answer": {"routes": routes}}
    else:
        raise ValueError(f"unknown rule question kind {kind!r}")
    exercise["prompt"] = _PROMPTS[kind]
    exercise["hint"] = _HINTS[kind]
    return {
        "id": _ident(variant, kind, fen),
        "kind": kind,
        "fen": fen,
        "articles": _ARTICLES[variant][kind],
        "exercise": exercise,
    }


def generate_rule_questions(
    variant: str, entries: Iterable[tuple[str, list[str]]], *, per_kind: int = 40
) -> list[dict[str, Any]]:
    """Up to ``per_kind`` questions of each :data:`RULE_KINDS` kind, from the positions along
    ``entries`` (a puzzle's position and its solution line); a puzzle's own position (what the
    trainer serves) is never one of them. Deterministic: chosen by a hash of the position."""
    entries = list(entries)
    starts = set()
    for fen, _line in entries:
        try:
            starts.add(dama.Board(variant, fen).fen())
        except (dama.DamaError, ValueError):
            continue
    found: dict[str, dict[str, dict[str, Any]]] = {k: {} for k in GENERATED_KINDS}
    for board in _positions(variant, entries):
        fen = board.fen()
        if fen in starts:
            continue
        for kind in GENERATED_KINDS:
            if fen in found[kind]:
                continue
            question = _question(variant, kind, board)
            if question is not None:
                found[kind][fen] = question
    out: list[dict[str, Any]] = []
    for kind in GENERATED_KINDS:
        chosen = sorted(found[kind].values(), key=lambda q: q["id"])[:per_kind]
        out.extend(chosen)
    return out


def tier(kind: str) -> int:
    return RULE_KINDS[kind][1]


# -- the certificate's diagram ---------------------------------------------------------------------


@dataclass(frozen=True)
class DiagramPiece:
    row: int  # 0 = top (Black's side)
    col: int
    white: bool
    king: bool


def diagram_squares(variant: str, fen: str = "") -> tuple[int, list[DiagramPiece]]:
    """The board size and the pieces of ``fen`` (the start position when empty) by row and
    column, for a drawing made with shapes (the certificate)."""
    board = dama.Board(variant, fen or None)
    size = board.variant.size
    pieces = []
    for white, color in ((True, dama.WHITE), (False, dama.BLACK)):
        kings = set(board.pieces(color, king=True))
        for sq in board.pieces(color):
            row, col = board.geo.row_col(sq)
            pieces.append(DiagramPiece(row, col, white, sq in kings))
    return size, pieces


def fen_is_readable(variant: str, fen: str) -> bool:
    try:
        dama.Board(variant, fen)
    except (dama.DamaError, ValueError):
        return False
    return True
