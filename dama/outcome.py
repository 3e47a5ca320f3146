"""Game end: a loss (no pieces, no legal move) or a draw by rule, per variant.

Draw rules and where they come from:

* all variants: the same position with the same side to move for the third time
  (CUD 2006 art. 6.1; SDS international and Brazilian art. 8);
* Czech: 15 moves of each player with no man move and no capture (art. 6.2, counted as 30 plies);
  lone-king endgames (art. 6.3: three kings against a lone king off the main diagonal, 15 moves
  each; art. 6.4: up to two kings, or a king and a man, against a lone king, or three kings
  against a lone king on the main diagonal, 5 moves each);
* international (FMJD rules, which the SDS text does not state): 25 moves of each player with only
  kings moved and no capture; three kings, two kings and a man, or a king and two men against a
  lone king: 16 moves each; two kings, a king and a man, or a king against a lone king: 5 moves each;
* Brazilian: repetition only (the federation's counts are not part of the SDS rulebook).

Endgame counts start on the move on which that material first stands on the board and restart
when the material changes (for the Czech counts: also when the lone king steps on or off the main
diagonal, which decides between art. 6.3 and 6.4).

>>> from dama import Board
>>> Board("czech", "W:W21:B").outcome() is None
True
>>> Board("czech", "B:W21:B").outcome().reason
'no_pieces'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .baseboard import BLACK, WHITE
from .lang import cite, lang_code

if TYPE_CHECKING:
    from .baseboard import BaseBoard, Color


@dataclass(frozen=True, slots=True)
class Outcome:
    """``winner`` is WHITE, BLACK or None for a draw; ``reason`` is a stable code."""

    winner: Color | None
    reason: str
    article: str
    message_en: str
    message_cs: str

    def message(self, lang: str | None = "en") -> str:
        """The message in ``lang`` (``cs``/``cs-cz`` for Czech, anything else for English).

        >>> from dama import Board
        >>> Board("czech", "B:W21:B").outcome().message("cs")
        'Černý nemá žádné figury a prohrává.'
        """
        return self.message_cs if lang_code(lang) == "cs" else self.message_en

    def citation(self, lang: str | None = "en") -> str:
        """The rulebook article in ``lang``: ``CUD 2006 art. 7.2c`` or ``CUD 2006 čl. 7.2c``."""
        return cite(self.article, lang)

    def result(self) -> str:
        """PDN result: ``2-0``, ``0-2`` or ``1-1``."""
        if self.winner is None:
            return "1-1"
        return "2-0" if self.winner else "0-2"


def _articles(board: BaseBoard) -> dict[str, str]:
    if board.variant.name == "czech":
        return {
            "no_pieces": "CUD 2006 art. 7.2c",
            "no_moves": "CUD 2006 art. 7.2b",
            "threefold": "CUD 2006 art. 6.1",
            "move_rule": "CUD 2006 art. 6.2",
        }
    name = "SDS international" if board.variant.name == "international" else "SDS Brazilian"
    return {
        "no_pieces": f"{name} art. 7",
        "no_moves": f"{name} art. 7",
        "threefold": f"{name} art. 8",
        "move_rule": "FMJD rules: 25-move rule",
    }


def endgame_limit(board: BaseBoard) -> tuple[int, str] | None:
    """(plies, article) of the endgame count that applies to the material now, or None."""
    rule = board.variant.endgame_rule
    if not rule:
        return None
    if not board.endgame_key:
        return None
    wm, wk, bm, bk, on_diag = board.endgame_key
    assert (
        isinstance(wm, int) and isinstance(wk, int) and isinstance(bm, int) and isinstance(bk, int)
    )
    if (wm, wk) == (0, 1):
        men, kings = bm, bk
    elif (bm, bk) == (0, 1):
        men, kings = wm, wk
    else:
        return None
    if rule == "czech":
        if men == 0 and kings <= 2 or (men, kings) == (1, 1):
            return (10, "CUD 2006 art. 6.4")
        if men == 0 and kings == 3:
            return (10, "CUD 2006 art. 6.4") if on_diag else (30, "CUD 2006 art. 6.3")
        return None
    if rule == "fmjd":
        if (men, kings) in ((0, 1), (0, 2), (1, 1)):
            return (10, "FMJD rules: 5-move rule")
        if (men, kings) in ((0, 3), (1, 2), (2, 1)):
            return (32, "FMJD rules: 16-move rule")
    return None


def outcome(board: BaseBoard) -> Outcome | None:
    arts = _articles(board)
    mover = board.turn
    own = board.white if mover else board.black
    other = WHITE if mover == BLACK else BLACK
    side_en = "White" if mover else "Black"
    side_cs = "Bílý" if mover else "Černý"
    if not own:
        return Outcome(
            other,
            "no_pieces",
            arts["no_pieces"],
            f"{side_en} has no pieces left and loses.",
            f"{side_cs} nemá žádné figury a prohrává.",
        )
    if not board.generate_legal_moves():
        return Outcome(
            other,
            "no_moves",
            arts["no_moves"],
            f"{side_en} is blocked (no legal move) and loses.",
            f"{side_cs} je zablokován (nemá žádný tah) a prohrává.",
        )
    if board.repetitions() >= 3:
        return Outcome(
            None,
            "threefold",
            arts["threefold"],
            "Draw: the same position has occurred for the third time with the same side to move.",
            "Remíza: stejná pozice se stejným hráčem na tahu nastala potřetí.",
        )
    limit = board.variant.quiet_move_limit
    if limit and board.quiet_plies >= limit:
        moves = limit // 2
        return Outcome(
            None,
            "move_rule",
            arts["move_rule"],
            f"Draw: {moves} moves of each player without a man move or a capture.",
            f"Remíza: {moves} tahů každého hráče bez tahu kamenem a bez braní.",
        )
    eg = endgame_limit(board)
    if eg is not None and board.endgame_plies >= eg[0]:
        moves = eg[0] // 2
        return Outcome(
            None,
            "endgame_count",
            eg[1],
            f"Draw: this endgame was played for {moves} more moves of each player without a win.",
            f"Remíza: v této koncovce odehrál každý hráč dalších {moves} tahů bez výhry.",
        )
    return None
