"""The puzzles app's models, a module per concept: a puzzle and its proof (:mod:`.puzzle`), a
player's attempt at it (:mod:`.attempt`), ratings (:mod:`.ratings`), the daily puzzle
(:mod:`.daily`), every-defence mastery (:mod:`.mastery`), votes (:mod:`.votes`) and mining jobs (:mod:`.mining`). ``puzzle`` is the
ground: the others build on it and import each other one way (an attempt rates itself)."""

from core.owners import MAX_ID

from .attempt import FINISH_FIELDS, Attempt, AttemptQuerySet, hand_over_attempts
from .daily import DailyPuzzle
from .mastery import Mastery
from .mining import MiningJob
from .puzzle import (
    CONTENT_FIELDS,
    FINAL,
    SERVABLE,
    VOIDED_FIELDS,
    Puzzle,
    PuzzleQuerySet,
    Verdict,
    default_limits,
    exam_share,
    in_exam_share,
    seal_exam_position,
)
from .ratings import PlayerRating, PuzzleRating, RatingHistory
from .votes import PuzzleVote

__all__ = [
    "CONTENT_FIELDS",
    "FINAL",
    "FINISH_FIELDS",
    "MAX_ID",
    "SERVABLE",
    "VOIDED_FIELDS",
    "Attempt",
    "AttemptQuerySet",
    "DailyPuzzle",
    "Mastery",
    "MiningJob",
    "PlayerRating",
    "Puzzle",
    "PuzzleQuerySet",
    "PuzzleRating",
    "PuzzleVote",
    "RatingHistory",
    "Verdict",
    "default_limits",
    "exam_share",
    "hand_over_attempts",
    "in_exam_share",
    "seal_exam_position",
]
