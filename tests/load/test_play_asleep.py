"""The load test's sleeping computer (tools/play_asleep.py, LOAD_PLAY_THINK=sleep): it takes
its time without computing, answers a forced move at once, and stands in for the play worker's
search module only."""

from __future__ import annotations

import time

import dama
import dama.search
import play.engine
from tools import play_asleep

SEVERAL = "W:W33,34:B19"  # four moves
FORCED = "W:W33:B28"  # 33x22 only


def test_it_sleeps_then_plays_a_legal_move_without_searching_deep(monkeypatch):
    monkeypatch.setattr(play_asleep, "SLEEP_SECONDS", 0.05)
    board = dama.Board("international", SEVERAL)
    t0 = time.monotonic()
    result = play_asleep.Asleep(dama.search).best_move(board, 8, seed=1)
    took = time.monotonic() - t0
    assert took >= 0.05
    assert result.move in board.legal_moves
    assert result.nodes <= dama.search.LEVELS[1].nodes  # level 1's move, not level 8's search


def test_a_forced_move_and_an_instant_level_are_answered_at_once(monkeypatch):
    monkeypatch.setattr(play_asleep, "SLEEP_SECONDS", 5.0)
    asleep = play_asleep.Asleep(dama.search)
    t0 = time.monotonic()
    forced = asleep.best_move(dama.Board("international", FORCED), 8)
    instant = asleep.best_move(dama.Board("international", SEVERAL), 1)
    assert time.monotonic() - t0 < 1.0
    assert str(forced.move) == "33x22"
    assert instant.move in dama.Board("international", SEVERAL).legal_moves


def test_the_worker_process_hook_replaces_only_the_play_search_module(monkeypatch):
    monkeypatch.setattr(play_asleep, "SLEEP_SECONDS", 0.05)
    monkeypatch.setattr(play.engine, "_search_module", play.engine._search_module)
    play_asleep._fall_asleep()
    module = play.engine._search_module()
    assert isinstance(module, play_asleep.Asleep)
    assert module.LEVELS is dama.search.LEVELS  # everything else is the real module's
    t0 = time.monotonic()
    found = play.engine.search(dama.Board("international", SEVERAL), 8, seed=1)
    assert time.monotonic() - t0 >= 0.05
    board = dama.Board("international", SEVERAL)
    assert found.notation in {str(m) for m in board.legal_moves}
    assert found.nodes <= dama.search.LEVELS[1].nodes


def test_a_weaker_level_sleeps_its_share_of_the_strongest_levels_time(monkeypatch):
    monkeypatch.setattr(play_asleep, "SLEEP_SECONDS", 1.5)
    asleep = play_asleep.Asleep(dama.search)
    assert asleep.seconds(8) == 1.5
    assert asleep.seconds(5) == 1.5 * 6000 / 400000
