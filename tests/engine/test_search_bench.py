"""The playing engine's bench: games against py-draughts play through, moves kept in step."""

from __future__ import annotations

from types import ModuleType

import pytest

from dama.match import OPENINGS
from tools.bench import play_vs_draughts


@pytest.mark.parametrize("variant", ["international", "brazilian"])
def test_a_game_against_py_draughts_plays_to_its_end(
    draughts_module: ModuleType, variant: str
) -> None:
    won, reason, plies, ours, theirs, nodes, cpu = play_vs_draughts(
        draughts_module, variant, OPENINGS[variant][0], True, 0.01, ply_cap=40
    )
    assert won in (True, False, None)
    assert reason in ("no_pieces", "no_moves", "threefold", "move_rule", "endgame_count", "ply_cap")
    assert (won is None) == (reason in ("threefold", "move_rule", "endgame_count", "ply_cap"))
    assert len(OPENINGS[variant][0]) < plies <= 40
    assert ours > 0 and theirs > 0 and nodes > 0 and cpu > 0
