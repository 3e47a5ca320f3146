"""Mining, the writer: mined puzzles as PDN positions.

The tags are ``Goal``, ``Horizon``, ``Solution``, ``Motifs``, ``Difficulty``, ``Duals``,
``Source``, ``Engine`` (and ``Proof`` when there is one); :func:`dama.pdn.read_tags` reads them
back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..board import Board
from ..pdn import position_pdn
from ..variants import find_variant
from .tag import MinedPuzzle


def puzzle_pdn(p: MinedPuzzle, extra_tags: Mapping[str, str] | None = None) -> str:
    """One puzzle as a PDN entry: the position in ``FEN``, the puzzle tags, then ``extra_tags``
    (a ``Title``, a ``Proof``, ...)."""
    v = find_variant(p.variant)
    tags = {
        "Event": "dama_learn puzzle",
        "GameType": str(v.gametype),
        "SetUp": "1",
        "FEN": p.fen,
        "Goal": p.goal,
        "Horizon": str(p.horizon),
        "Solution": " ".join(p.solution),
        "Motifs": " ".join(p.motifs),
        "Difficulty": str(p.difficulty),
        "Duals": str(p.duals),
        "Source": p.source,
        "Engine": p.engine_version,
        **({"Proof": p.proof} if p.proof else {}),
        **(extra_tags or {}),
    }
    return position_pdn(Board(v, p.fen), tags)


def puzzles_pdn(puzzles: Iterable[MinedPuzzle]) -> str:
    """Puzzles as one PDN text, games separated by a blank line."""
    return "\n".join(puzzle_pdn(p) for p in puzzles)
