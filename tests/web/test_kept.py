"""Values a process keeps between requests (core.kept): the pool's rows, the puzzles served and
today's daily puzzles are dropped in every process as soon as another process changes them."""

from __future__ import annotations

import doctest
import uuid

import pytest
from django.core.cache import cache

from core import kept
from puzzles import daily, models, stream, verification
from puzzles.models import Attempt, DailyPuzzle, Puzzle, served_puzzle
from tests.puzzle_fixtures import make_puzzle

pytestmark = pytest.mark.django_db


def another_process_changed_the_puzzles() -> None:
    """What a save in another gunicorn worker does to this process: only the shared generation
    changes (its signal runs there, not here)."""
    cache.set("kept-generation:puzzles", 7)


def test_the_module_examples_run():
    assert doctest.testmod(kept).failed == 0


def test_a_kept_value_is_made_once_while_nothing_changes():
    made = []
    values = kept.Kept("test-once", seconds=60)
    for _ in range(3):
        values.get("k", lambda: made.append(1) or len(made))
    assert made == [1]


def test_a_change_in_another_process_is_seen_at_the_next_use():
    group = f"test-other-{uuid.uuid4().hex}"  # test runs sharing a Redis server do not meet
    values = kept.Kept(group, seconds=60)
    assert values.get("k", lambda: "old") == "old"
    cache.set(f"kept-generation:{group}", 12345)  # another process bumped the group
    assert values.get("k", lambda: "new") == "new"


def test_nothing_is_kept_while_the_cache_is_down(monkeypatch):
    values = kept.Kept("test-down", seconds=60)

    def down(*args, **kwargs):
        raise ConnectionError("cache server down")

    monkeypatch.setattr(cache, "get", down)
    monkeypatch.setattr(cache, "add", down)
    assert values.get("k", lambda: 1) == 1
    assert values.get("k", lambda: 2) == 2  # read again every time, never an error


def test_a_puzzle_deleted_by_another_process_is_not_served_here(client):
    puzzle = make_puzzle("czech_gain")
    assert served_puzzle(puzzle.pk) is not None  # kept by this process
    here = dict(models._served.values)
    # another worker deletes it: its signal empties that worker's values, not this process's
    Puzzle.objects.filter(pk=puzzle.pk).delete()
    models._served.values.update(here)
    assert served_puzzle(puzzle.pk) is None
    response = client.get(f"/puzzles/{puzzle.variant}/{puzzle.pk}/")
    assert response.status_code == 404
    assert not Attempt.objects.exists()


def test_the_pool_is_read_again_when_a_worker_writes_a_verdict(django_capture_on_commit_callbacks):
    puzzle = make_puzzle("czech_gain")
    assert puzzle.pk in {row[0] for row in stream.pool_rows(puzzle.variant)}
    verdict = dict(puzzle.proof, kind="cooked")
    with django_capture_on_commit_callbacks(execute=True):
        assert verification.record(puzzle.pk, puzzle.revision, verdict) == "cooked"
    assert puzzle.pk not in {row[0] for row in stream.pool_rows(puzzle.variant)}


def test_the_pool_is_read_again_when_a_puzzle_is_sent_to_be_proven_again(
    django_capture_on_commit_callbacks,
):
    puzzle = make_puzzle("czech_gain")
    assert puzzle.pk in {row[0] for row in stream.pool_rows(puzzle.variant)}
    here = dict(stream._pool.values)
    with django_capture_on_commit_callbacks(execute=True):
        assert puzzle.verify_again()
    stream._pool.values.update(here)  # as in another process: only the generation changed
    assert puzzle.pk not in {row[0] for row in stream.pool_rows(puzzle.variant)}


def test_todays_daily_puzzle_set_by_another_process_is_known_here_at_once():
    puzzle = make_puzzle("czech_gain")
    assert puzzle.pk not in daily.todays_ids()
    DailyPuzzle.objects.bulk_create(
        [DailyPuzzle(variant="czech", date=daily.today(), puzzle=puzzle)]
    )
    another_process_changed_the_puzzles()
    assert puzzle.pk in daily.todays_ids()
