"""Values a process keeps between requests (core.kept): the pool's rows, the puzzles served and
today's daily puzzles are dropped in every process as soon as another process changes them."""

from __future__ import annotations

import doctest
import uuid

import pytest
from django.core.cache import cache

from core import kept
from puzzles import daily, stream, verification
from puzzles.models import Attempt, DailyPuzzle, Puzzle
from puzzles.stream import served_puzzle
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
    here = dict(stream._served.values)
    # another worker deletes it: its signal empties that worker's values, not this process's
    Puzzle.objects.filter(pk=puzzle.pk).delete()
    stream._served.values.update(here)
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


def test_a_worker_keeps_the_servable_pool_at_start_so_its_pages_read_no_puzzle_row(client, teacher):
    """gunicorn's ``post_worker_init`` reads the servable puzzles of the site's pool in one query
    (``keep_served_pool``): their pages then read no puzzle row, until any process changes the
    puzzles. A teacher's own puzzle and a puzzle not proven unique are not kept."""
    import gc
    import re
    import runpy
    from pathlib import Path

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    gain, capture = make_puzzle("czech_gain"), make_puzzle("czech_capture")
    own = make_puzzle("czech_gain", author=teacher)
    Puzzle.objects.filter(pk=capture.pk).update(verdict="cooked")
    kept.forget_process()
    config = runpy.run_path(str(Path(__file__).resolve().parents[2] / "gunicorn.conf.py"))
    try:
        config["post_worker_init"](worker=None)
    finally:
        gc.unfreeze()
    assert {pk for pk, _day in stream._served.values} == {gain.pk}

    def row_reads(pk: int) -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"/puzzles/czech/{pk}/").status_code == 200
        by_id = re.compile(rf'"puzzles_puzzle"\."id" = {pk}\b')
        return sum(bool(by_id.search(q["sql"])) for q in queries.captured_queries)

    assert row_reads(gain.pk) == 0
    another_process_changed_the_puzzles()
    assert row_reads(gain.pk) == 1  # read again, and kept again
    assert row_reads(gain.pk) == 0
    assert own.pk not in {pk for pk, _day in stream._served.values}


def test_filling_kept_values_keeps_them_under_the_current_generation():
    group = f"test-fill-{uuid.uuid4().hex}"
    values = kept.Kept(group, seconds=60, size=3)
    assert values.fill({"a": 1, "b": 2, "c": 3, "d": 4}) == 3  # no more than its size
    assert values.get("a", lambda: 0) == 1 and values.get("d", lambda: 0) == 0
    kept.bump(group)
    assert values.get("b", lambda: 9) == 9  # made again under the new generation
