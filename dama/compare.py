"""Which of a few candidate moves is better, by how much: the judge of a "choose the better
move" exercise (the strategy courses and the strategy exam level).

Each candidate is played and the position after it searched to ``depth - 1`` plies with
:func:`dama.search.search` (a depth limit only, no time and no seed: the same verdict on every
machine), always with the hand-tuned evaluation (:class:`dama.evaluate.Evaluator` without trained
weights): the exercises were checked with it, so a new evaluation in play (issue 52) does not move
their verdicts; its score is the negated score of that search, in centi-men from the mover's view. The
**margin** of an exercise is the answer's score less the best score of the other candidates: the
exercise holds while the margin is at least the threshold its file names.

A breakthrough: 15-11 gives a man (8x15), then 16-11 walks through to crown; 29-25 lets Black
take 12x19 and keeps nothing.

>>> from dama import Board
>>> board = Board("czech", "W:W15,16,17,22,29:B4,6,8,10,12")
>>> scores = compare_moves(board, ["15-11", "29-25"], depth=8)
>>> scores["15-11"] - scores["29-25"] > 300
True
>>> margin(board, "15-11", ["29-25"], depth=8) == scores["15-11"] - scores["29-25"]
True
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from .board import Board
from .evaluate import Evaluator
from .search import MATE, search
from .variants import Variant, find_variant


@cache
def _judge(variant: Variant) -> Evaluator:
    return Evaluator(variant)


def judge(board: Board) -> Evaluator:
    """The evaluation exercises are judged with: the hand-tuned one (see the module docstring)."""
    return _judge(find_variant(board.variant))


#: a score beyond this is a won or lost game; margins are capped here so that "wins" against
#: "draws" reads as a large number rather than a mate distance
CAP = 3000


def _capped(score: int) -> int:
    return max(-CAP, min(CAP, score))


def move_score(board: Board, text: str, depth: int) -> int:
    """The score of playing ``text`` in ``board`` (never changed), searched to ``depth`` plies in
    all (the move itself is the first), capped at +/- :data:`CAP`."""
    if depth < 1:
        raise ValueError(f"depth must be at least 1, not {depth}")
    child = board.copy()
    child.push(child.parse_move(text))
    if not child.legal_moves:  # the opponent has no move: the game is won
        return CAP
    ev = judge(child)
    if depth == 1:
        return _capped(-int(ev.evaluate(*child.key())))
    result = search(child, depth=depth - 1, _evaluator=ev)
    score = -result.score
    if abs(score) > MATE - 1000:
        return CAP if score > 0 else -CAP
    return _capped(score)


def compare_moves(board: Board, moves: Iterable[str], depth: int) -> dict[str, int]:
    """Each of ``moves`` (texts) with its :func:`move_score`."""
    return {text: move_score(board, text, depth) for text in moves}


def margin(board: Board, answer: str, others: Iterable[str], depth: int) -> int:
    """How much better ``answer`` scores than the best of ``others`` (negative: worse)."""
    scores = compare_moves(board, [answer, *others], depth)
    rest = [s for t, s in scores.items() if t != answer]
    return scores[answer] - max(rest)
