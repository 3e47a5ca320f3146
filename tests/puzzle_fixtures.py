"""Puzzles for the trainer tests, proven in-process by the engine (no shipped corpus needed).

``make_puzzle(name)`` creates one of :data:`PUZZLES` with the verdict ``dama.solve`` gives it now,
adopted as its proof (so no verification is enqueued).
"""

from __future__ import annotations

from typing import Any

from puzzles import engine
from puzzles.models import Puzzle

PUZZLES: dict[str, dict[str, Any]] = {
    # White: 28x19x12x3, three pieces in one multi-jump (the only legal move)
    "czech_capture": {
        "variant": "czech",
        "fen": "W:W14,17,21,28,30,32:B1,5,8,11,16,23,24",
        "goal": "capture",
        "motifs": ["capture:3"],
        "difficulty": 1100,
    },
    # White: 22-17! 13x22 25x18x11 wins a piece; the solution line has a defender reply
    "czech_gain": {
        "variant": "czech",
        "fen": "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15",
        "goal": "gain:1",
        "horizon": 2,
        "motifs": ["sacrifice:1", "capture:2"],
        "difficulty": 1500,
    },
    # White: 36x27x18x29 under the majority rule
    "international_capture": {
        "variant": "international",
        "fen": "W:W20,25,30,33,34,36,37,41,42,45,46,47:B1,2,3,4,5,6,7,9,12,14,16,22,23,31",
        "goal": "capture",
        "motifs": ["capture:3", "majority"],
        "difficulty": 1150,
    },
    # Black: 27x38x49 crowns
    "international_gain": {
        "variant": "international",
        "fen": "B:W25,32,33,34,35,36,37,39,40,41,42,43,46,47,48,50:B1,2,3,4,5,6,7,9,10,11,12,15,17,19,21,24,27",
        "goal": "gain:3",
        "horizon": 1,
        "motifs": ["capture:2", "crowning"],
        "difficulty": 800,
    },
    # White: 27-24! 20x27 31x24x15x22 (a sacrifice, then a triple jump)
    "brazilian_gain": {
        "variant": "brazilian",
        "fen": "W:W25,27,28,29,30,31,32:B1,2,3,4,5,7,8,9,18,19,20",
        "goal": "gain:2",
        "horizon": 2,
        "motifs": ["sacrifice:1", "capture:3", "shot"],
        "difficulty": 1600,
    },
    # Black: 10x19x26x17
    "brazilian_capture": {
        "variant": "brazilian",
        "fen": "B:W15,21,22,23,24,25,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,20",
        "goal": "capture",
        "motifs": ["capture:3"],
        "difficulty": 1000,
    },
}

#: puzzles whose proofs hold several defences (every-defence mastery, tests/web/test_mastery.py);
#: ``make_puzzle`` makes these too
MULTI_DEFENCE: dict[str, dict[str, Any]] = {
    # Black: 11-15 wins; White may defend with 9-5 or 9-6 (two defences at one point)
    "czech_two_defences": {
        "variant": "czech",
        "fen": "B:W9:B4,K11,19",
        "goal": "win",
        "horizon": 2,
        "motifs": ["blockade"],
        "difficulty": 900,
    },
    # Black: 2x11 13-9 11-15, then White defends with 9-5 or 9-6 (three defences, two rounds)
    "czech_three_defences": {
        "variant": "czech",
        "fen": "B:W7,13:BK2,4,19",
        "goal": "win",
        "horizon": 3,
        "motifs": ["capture:1", "blockade"],
        "difficulty": 1000,
    },
}


def make_puzzle(name: str, **changes: Any) -> Puzzle:
    """Create puzzle ``name`` proven unique now (fails loudly when the engine disagrees)."""
    data = {**(PUZZLES.get(name) or MULTI_DEFENCE[name]), **changes}
    puzzle = Puzzle(**data)
    puzzle.full_clean()
    if puzzle.horizon is None:
        puzzle.horizon = engine.default_horizon(puzzle.goal)
    verdict = engine.prove(puzzle.variant, puzzle.fen, puzzle.goal, puzzle.horizon, puzzle.limits)
    assert verdict["kind"] == "unique", (name, verdict["kind"], verdict.get("reason"))
    assert puzzle.adopt_proof(verdict), name
    puzzle.save()
    return puzzle


def make_all(variant: str | None = None) -> dict[str, Puzzle]:
    return {
        name: make_puzzle(name)
        for name, data in PUZZLES.items()
        if variant is None or data["variant"] == variant
    }
