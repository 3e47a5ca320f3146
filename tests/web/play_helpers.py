"""Helpers of the play tests: a stand-in for ``dama.search`` whose choices the tests know (the
first legal move in route order), so that a test can say what the computer will play."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    number: int
    depth: int | None
    seconds: float | None
    nodes: int | None
    blunder: float
    instant: bool


@dataclass(frozen=True)
class SearchResult:
    move: object
    score: int
    depth: int
    nodes: int
    pv: tuple
    seconds: float


class FakeSearch:
    """Levels 1-2 instant, 3-8 not (7 and 8 search a second); the move is the first legal one
    by its route."""

    LEVELS = {n: Level(n, n, 1.0 if n >= 7 else None, None, 0.0, n <= 2) for n in range(1, 9)}

    class Memory:
        def __init__(self, max_entries: int = 1) -> None:
            self.max_entries = max_entries

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []
        self.memories: list[object] = []  # the memory each best_move was given

    def level_for(self, variant, number):
        return self.LEVELS[number]

    def best_move(self, board, level, seed=None, memory=None):
        moves = sorted(board.generate_legal_moves(), key=lambda m: m.routes[0])
        if not moves:
            raise ValueError("game over")
        self.calls.append((board.fen(), level))
        self.memories.append(memory)
        return SearchResult(moves[0], 0, 1, len(moves), (moves[0],), 0.001)

    def search(self, board, depth=None, seconds=None, nodes=None, seed=None):
        return self.best_move(board, 0, seed)


def install_fake_search(monkeypatch) -> FakeSearch:
    """Make the play app's computer a :class:`FakeSearch` for this test."""
    from play import engine

    fake = FakeSearch()
    monkeypatch.setattr(engine, "_search_module", lambda: fake)
    return fake


def game_id(response) -> int:
    """The game a start redirected to."""
    match = re.search(r"/play/game/(\d+)/", response["Location"])
    assert match, response["Location"]
    return int(match.group(1))
