"""Puzzle proofs on the web side: saving enqueues on commit, the task is idempotent and writes
conditionally, lost proofs are swept, the commands prove and load, the proof page polls and stops.

A real Redis and worker process are in tests/services/test_verify_worker.py.
"""

from __future__ import annotations

import ast
import dataclasses
import gettext
import io
import json
import random
import re
from datetime import timedelta
from pathlib import Path

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import OperationalError, transaction
from django.utils import timezone

import dama
from puzzles import engine, verification
from puzzles.models import Puzzle, Verdict
from puzzles.tasks import sweep_verifications, verify_puzzle, verify_stale_puzzles
from tests.conftest import tasks_sent

GAIN = {
    "variant": "czech",
    "fen": "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15",
    "goal": "gain:1",
    "horizon": 2,
    "solution": ["22-17", "13x22", "25x18x11"],
}
CAPTURE = {"variant": "czech", "fen": "W:W14,17,21,28,30,32:B1,5,8,11,16,23,24", "goal": "capture"}
COOKED = {"variant": "czech", "fen": "W:W22,24:B18,19", "goal": "capture"}
NO_CAPTURE = {"variant": "czech", "fen": "W:W22:B10", "goal": "capture"}
NO_WIN = {"variant": "czech", "fen": "W:W30:B3", "goal": "win", "horizon": 2}
#: three kings against one on 10x10: a wide tree (about 700,000 positions for horizon 6)
WIDE = {"variant": "international", "fen": "W:WK46,K47,K48:BK5", "goal": "win", "horizon": 6}
#: three kings against two on 10x10, a win in 10: tens of millions of positions, more than 20 s
#: of search even with the compiled engine (tests that need a proof still running use it)
SLOW = {"variant": "international", "fen": "W:WK46,K47,K48:BK5,K4", "goal": "win", "horizon": 10}

CORPUS = Path(settings.BASE_DIR) / "fixtures" / "puzzles"


@pytest.fixture
def queue(verify_queue):
    """The verify queue, as a list of (puzzle id, revision) sent to it."""
    return verify_queue


@pytest.fixture
def new(db, queue, django_capture_on_commit_callbacks):
    """Make a valid puzzle and commit it (its proof lands in ``queue``)."""

    def _new(**fields) -> Puzzle:
        puzzle = Puzzle(**fields)
        puzzle.full_clean()
        with django_capture_on_commit_callbacks(execute=True):
            puzzle.save()
        return puzzle

    return _new


def prove(puzzle: Puzzle) -> Puzzle:
    assert verify_puzzle.apply(args=(puzzle.pk, puzzle.revision)).get() in engine.VERDICT_KINDS
    puzzle.refresh_from_db()
    return puzzle


# -- saving enqueues on commit ----------------------------------------------------------------------


def test_saving_a_new_puzzle_enqueues_its_proof_only_when_the_transaction_commits(
    db, queue, django_capture_on_commit_callbacks
):
    puzzle = Puzzle(**GAIN)
    puzzle.full_clean()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        puzzle.save()
        assert queue == []
    assert len(callbacks) == 1
    callbacks[0]()
    assert queue == [(puzzle.pk, 1)]
    assert puzzle.verdict == Verdict.PENDING
    assert puzzle.queued_at is not None


def test_verify_task_is_routed_to_the_verify_queue():
    from dama_learn.celery import app

    route = app.amqp.router.route({}, "puzzles.verify_puzzle", (1, 1), {})
    assert route["queue"].name == "verify"
    sweep = app.amqp.router.route({}, "puzzles.sweep_verifications", (), {})
    assert sweep["queue"].name == "default"


def test_changing_the_position_bumps_the_revision_voids_the_proof_and_enqueues_again(
    new, queue, django_capture_on_commit_callbacks
):
    puzzle = prove(new(**CAPTURE))
    assert puzzle.verdict == Verdict.UNIQUE
    puzzle.fen = "W:W14,17,21,28,30,32:B1,5,8,11,16,23"
    puzzle.full_clean()
    with django_capture_on_commit_callbacks(execute=True):
        puzzle.save()
    assert puzzle.revision == 2
    assert puzzle.verdict == Verdict.PENDING
    assert puzzle.proof is None
    assert queue == [(puzzle.pk, 1), (puzzle.pk, 2)]


def test_changing_only_the_title_keeps_the_proof_and_enqueues_nothing(
    new, queue, django_capture_on_commit_callbacks
):
    puzzle = prove(new(**CAPTURE))
    puzzle.refresh_from_db()
    puzzle.title = "A long shot"
    with django_capture_on_commit_callbacks(execute=True):
        puzzle.save()
    puzzle.refresh_from_db()
    assert (puzzle.revision, puzzle.verdict) == (1, Verdict.UNIQUE)
    assert queue == [(puzzle.pk, 1)]


@pytest.mark.django_db(transaction=True)
def test_a_broker_that_is_down_does_not_break_the_save(monkeypatch, caplog):
    from dama_learn.celery import app

    def down(name, args=None, **options):
        raise OSError("connection refused")

    monkeypatch.setattr(app, "send_task", down)  # every message to the broker fails
    puzzle = Puzzle(**CAPTURE)
    puzzle.save()  # autocommit: on_commit runs at once; the sweeper enqueues it later
    assert Puzzle.objects.get().verdict == Verdict.PENDING
    assert "connection refused" in caplog.text


# -- validation through the engine ----------------------------------------------------------------


def test_a_bad_fen_is_a_validation_error_with_the_engines_message(db):
    bad = "W:W99:B1"
    with pytest.raises(ValueError) as engine_error:
        dama.Board.from_fen(bad, "czech")
    with pytest.raises(ValidationError) as exc:
        Puzzle(variant="czech", fen=bad, goal="capture").full_clean()
    (message,) = exc.value.message_dict["fen"]
    assert str(engine_error.value) in message


def test_a_bad_goal_and_an_illegal_solution_are_validation_errors(db):
    with pytest.raises(ValidationError) as exc:
        Puzzle(**{**GAIN, "goal": "gain:0", "solution": []}).full_clean()
    assert "at least 1" in exc.value.message_dict["goal"][0]
    with pytest.raises(ValidationError) as exc:
        Puzzle(**{**GAIN, "solution": ["22-17", "13x22", "31-26"]}).full_clean()
    assert "Move 3 (31-26)" in exc.value.message_dict["solution"][0]


def test_a_proof_may_not_ask_for_more_time_than_the_workers_allow(db):
    with pytest.raises(ValidationError) as exc:
        Puzzle(**{**GAIN, "limits": {"seconds": settings.DAMA_PROOF_MAX_SECONDS + 1}}).full_clean()
    assert "limits" in exc.value.message_dict


def test_full_clean_normalizes_the_position_and_the_goal(db):
    puzzle = Puzzle(variant="czech", fen=" W:W22:B18 ", goal=" Capture ", horizon=4)
    puzzle.full_clean()
    assert (puzzle.fen, puzzle.goal, puzzle.horizon) == ("W:W22:B18", "capture", 1)


def test_staff_add_a_puzzle_in_the_admin_and_its_proof_is_enqueued(
    client, staff, queue, django_capture_on_commit_callbacks
):
    client.force_login(staff)
    form = {
        "variant": "czech",
        "fen": GAIN["fen"],
        "goal": "gain:1",
        "horizon": "2",
        "solution": json.dumps(GAIN["solution"]),
        "limits": json.dumps({"nodes": 100000, "seconds": 10}),
        "title": "Two for one",
        "description": "",
        "source": "test",
        "author": "",
        "motifs": "[]",
        "difficulty": "1400",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/admin/puzzles/puzzle/add/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    puzzle = Puzzle.objects.get()
    assert puzzle.author == staff
    assert puzzle.limits == {"nodes": 100000, "seconds": 10.0, "max_depth": 40}
    assert queue == [(puzzle.pk, 1)]


def test_the_admin_shows_the_engines_message_for_a_bad_fen(client, staff, queue):
    client.force_login(staff)
    response = client.post(
        "/admin/puzzles/puzzle/add/",
        {"variant": "czech", "fen": "W:W99:B1", "goal": "capture", "solution": "[]",
         "limits": "{}", "motifs": "[]", "difficulty": "1500"},
    )  # fmt: skip
    assert response.status_code == 200
    assert "is not on the 8x8 board" in response.content.decode()
    assert not Puzzle.objects.exists()


# -- the task: verdicts, idempotency, conditional writes ------------------------------------------


@pytest.mark.parametrize(
    ("fields", "kind"),
    [(CAPTURE, "unique"), (GAIN, "unique"), (COOKED, "cooked"), (NO_CAPTURE, "no_solution"),
     (NO_WIN, "no_solution"), ({**WIDE, "limits": {"nodes": 20000}}, "undecided")],
)  # fmt: skip
def test_the_task_stores_the_verdict_with_its_provenance(new, fields, kind):
    puzzle = prove(new(**fields))
    assert puzzle.verdict == kind
    assert puzzle.proof["kind"] == kind
    assert puzzle.engine_version == dama.ENGINE_VERSION == puzzle.proof["engine_version"]
    assert puzzle.limits == {k: v for k, v in puzzle.proof["limits"].items() if k != "moves"}
    assert puzzle.nodes == puzzle.proof["nodes"] > 0
    assert puzzle.verified_at is not None
    assert puzzle.attempts == 1
    assert puzzle.is_current


def test_a_unique_puzzle_keeps_the_main_line_and_accepts_the_intended_solution(new):
    puzzle = prove(new(**GAIN))
    assert puzzle.proof["solution"] == ["22-17", "13x22", "25x18x11"]
    assert puzzle.numbered_solution == "1. 22-17 13x22 2. 25x11"
    assert puzzle.intended_first_move_accepted is True


def test_a_cooked_puzzle_records_the_second_solution(new):
    puzzle = prove(new(**COOKED))
    assert puzzle.proof["alternatives"] == [["24x15"]]
    assert puzzle.numbered_alternatives == ["1. 24x15"]


def test_an_undecided_proof_says_what_was_searched(new):
    puzzle = prove(new(**WIDE, limits={"nodes": 20000}))
    assert puzzle.proof["reason"] == "nodes"
    assert puzzle.proof["searched"]["moves"] == len(
        dama.Board("international", WIDE["fen"]).legal_moves
    )


def test_the_task_skips_a_deleted_puzzle(new):
    puzzle = new(**CAPTURE)
    pk, revision = puzzle.pk, puzzle.revision
    puzzle.delete()
    assert verify_puzzle.apply(args=(pk, revision)).get() == verification.GONE


def test_the_task_skips_a_revision_that_moved_on_and_writes_nothing(new):
    puzzle = new(**CAPTURE)
    puzzle.fen = "W:W14,17,21,28,30,32:B1,5,8,11,16,23"
    puzzle.save()
    assert verify_puzzle.apply(args=(puzzle.pk, 1)).get() == verification.STALE
    puzzle.refresh_from_db()
    assert (puzzle.revision, puzzle.verdict, puzzle.proof, puzzle.attempts) == (
        2,
        Verdict.PENDING,
        None,
        0,
    )


def test_a_second_delivery_of_a_proven_revision_does_nothing(new):
    puzzle = prove(new(**CAPTURE))
    verified_at = puzzle.verified_at
    assert verify_puzzle.apply(args=(puzzle.pk, 1)).get() == verification.DONE
    puzzle.refresh_from_db()
    assert (puzzle.verified_at, puzzle.attempts) == (verified_at, 1)


def test_a_delivery_while_another_worker_reports_progress_does_nothing(new):
    puzzle = new(**CAPTURE)
    Puzzle.objects.filter(pk=puzzle.pk).update(
        verdict=Verdict.RUNNING, worker="other@host", progress_updated=timezone.now()
    )
    assert verify_puzzle.apply(args=(puzzle.pk, 1)).get() == verification.BUSY
    assert Puzzle.objects.get().worker == "other@host"


def test_a_proof_left_running_by_a_dead_worker_is_taken_over(new):
    puzzle = new(**CAPTURE)
    silent = timezone.now() - timedelta(seconds=settings.DAMA_VERIFY_STALL_SECONDS + 1)
    Puzzle.objects.filter(pk=puzzle.pk).update(
        verdict=Verdict.RUNNING, worker="dead@host", progress_updated=silent, attempts=1
    )
    assert verify_puzzle.apply(args=(puzzle.pk, 1)).get() == "unique"
    puzzle.refresh_from_db()
    assert puzzle.attempts == 2
    assert puzzle.worker != "dead@host"


def test_the_verdict_is_not_written_when_the_puzzle_changes_during_the_proof(
    new, queue, monkeypatch
):
    puzzle = new(**GAIN)
    real_prove = engine.prove

    def prove_while_the_author_edits(*args, **kwargs):
        result = real_prove(*args, **kwargs)
        edited = Puzzle.objects.get(pk=puzzle.pk)
        edited.horizon = 3
        edited.save()
        return result

    monkeypatch.setattr(engine, "prove", prove_while_the_author_edits)
    assert verification.run(puzzle.pk, 1) == verification.STALE
    puzzle.refresh_from_db()
    assert (puzzle.revision, puzzle.horizon, puzzle.verdict, puzzle.proof) == (
        2,
        3,
        Verdict.PENDING,
        None,
    )


def test_progress_is_written_to_the_row_while_the_proof_runs(new, settings):
    settings.DAMA_VERIFY_PROGRESS_SECONDS = 0
    puzzle = new(**WIDE, limits={"nodes": 60000})
    seen = []

    def look(nodes, depth, elapsed):
        seen.append(Puzzle.objects.values_list("verdict", "progress_nodes").get(pk=puzzle.pk))

    verification.run(puzzle.pk, 1, worker="w", on_progress=look)
    assert len(seen) >= 3
    assert {verdict for verdict, _nodes in seen} == {Verdict.RUNNING}
    nodes = [n for _verdict, n in seen]
    assert nodes == sorted(nodes) and nodes[-1] > 0


def test_the_soft_time_limit_makes_the_verdict_undecided(new, monkeypatch):
    puzzle = new(**CAPTURE)

    def slow(*args, **kwargs):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(verification, "run", slow)
    assert verify_puzzle.apply(args=(puzzle.pk, 1)).get() == "undecided"
    puzzle.refresh_from_db()
    assert puzzle.verdict == Verdict.UNDECIDED
    assert "time limit" in puzzle.error


def test_an_engine_failure_is_recorded_not_retried(new, monkeypatch):
    puzzle = new(**CAPTURE)
    calls = []

    def broken(pk, revision, **kwargs):
        calls.append(pk)
        raise RuntimeError("engine bug")

    monkeypatch.setattr(verification, "run", broken)
    assert verify_puzzle.apply(args=(puzzle.pk, 1)).get() == "error"
    assert calls == [puzzle.pk]
    puzzle.refresh_from_db()
    assert (puzzle.verdict, puzzle.error) == (Verdict.ERROR, "RuntimeError: engine bug")


def test_a_database_hiccup_is_retried(new, monkeypatch):
    puzzle = new(**CAPTURE)
    real_run = verification.run
    calls = []

    def flaky(pk, revision, **kwargs):
        calls.append(pk)
        if len(calls) == 1:
            raise OperationalError("database is locked")
        return real_run(pk, revision, **kwargs)

    monkeypatch.setattr(verification, "run", flaky)
    assert verify_puzzle.apply(args=(puzzle.pk, 1)).get() == "unique"
    assert len(calls) == 2


def test_the_task_is_late_acknowledged_with_limits_below_the_visibility_timeout():
    assert verify_puzzle.acks_late is True
    assert verify_puzzle.reject_on_worker_lost is True
    assert verify_puzzle.soft_time_limit < verify_puzzle.time_limit
    assert verify_puzzle.time_limit < settings.CELERY_VISIBILITY_TIMEOUT
    assert verify_puzzle.soft_time_limit > settings.DAMA_PROOF_MAX_SECONDS


# -- nothing is lost: the sweeper and stale engine versions ---------------------------------------


def test_the_sweeper_enqueues_proofs_left_pending_or_silent_and_gives_up_after_the_attempts(
    new, queue, django_capture_on_commit_callbacks
):
    old = timezone.now() - timedelta(hours=2)
    fresh_pending = new(**CAPTURE)
    lost_pending = new(**GAIN)
    silent = new(**COOKED)
    busy = new(**NO_CAPTURE)
    hopeless = new(**NO_WIN)
    Puzzle.objects.filter(pk=lost_pending.pk).update(queued_at=old)
    Puzzle.objects.filter(pk=silent.pk).update(
        verdict=Verdict.RUNNING, progress_updated=old, attempts=1
    )
    Puzzle.objects.filter(pk=busy.pk).update(
        verdict=Verdict.RUNNING, progress_updated=timezone.now(), attempts=1
    )
    Puzzle.objects.filter(pk=hopeless.pk).update(
        verdict=Verdict.RUNNING, progress_updated=old, attempts=settings.DAMA_VERIFY_MAX_ATTEMPTS
    )
    queue.clear()
    with django_capture_on_commit_callbacks(execute=True):
        result = sweep_verifications.apply().get()
    assert result == {"requeued": 2, "gave_up": 1, "released": 0}
    assert sorted(queue) == sorted([(lost_pending.pk, 1), (silent.pk, 1)])
    hopeless.refresh_from_db()
    assert hopeless.verdict == Verdict.ERROR and "gave up" in hopeless.error
    assert fresh_pending.pk not in [pk for pk, _rev in queue]


def test_the_periodic_job_reverifies_verdicts_of_an_older_engine_and_keeps_them_meanwhile(
    new, queue, django_capture_on_commit_callbacks
):
    old = prove(new(**CAPTURE))
    current = prove(new(**GAIN))
    Puzzle.objects.filter(pk=old.pk).update(engine_version="dama-0.0.1", queued_at=None)
    queue.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert verify_stale_puzzles.apply().get() == 1
    assert queue == [(old.pk, 1)]
    old.refresh_from_db()
    assert old.verdict == Verdict.UNIQUE  # still served until the new proof lands
    assert prove(old).engine_version == dama.ENGINE_VERSION
    assert current.pk not in [pk for pk, _rev in queue]


def test_the_beat_schedule_runs_the_sweeper_and_the_stale_job():
    from dama_learn.celery import app

    app.loader.import_default_modules()  # what a worker registers when it starts
    tasks = {entry["task"] for entry in app.conf.beat_schedule.values()}
    assert {"puzzles.sweep_verifications", "puzzles.verify_stale_puzzles"} <= tasks
    assert tasks <= set(app.tasks)


# -- manage.py verify_puzzles ---------------------------------------------------------------------


def run_command(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_verify_puzzles_in_process_proves_the_pending_ones_with_a_progress_bar(new):
    a, b = new(**CAPTURE), new(**COOKED)
    out = run_command("verify_puzzles", "--in-process")
    assert "\r[" + "-" * 30 + "] 0/2" in out
    assert "\r[" + "#" * 15 + "-" * 15 + "] 1/2" in out
    assert "\r[" + "#" * 30 + "] 2/2" in out
    assert out.rstrip().endswith("Verdicts: cooked 1, unique 1")
    assert Puzzle.objects.get(pk=a.pk).verdict == Verdict.UNIQUE
    assert Puzzle.objects.get(pk=b.pk).verdict == Verdict.COOKED


def test_verify_puzzles_stale_reproves_only_verdicts_of_another_engine_version(new):
    old, current = prove(new(**CAPTURE)), prove(new(**GAIN))
    Puzzle.objects.filter(pk=old.pk).update(engine_version="dama-0.0.1")
    out = run_command("verify_puzzles", "--stale", "--in-process")
    assert "] 1/1" in out
    old.refresh_from_db()
    assert (old.engine_version, old.verdict, old.attempts) == (dama.ENGINE_VERSION, "unique", 2)
    assert Puzzle.objects.get(pk=current.pk).verified_at == current.verified_at
    assert run_command("verify_puzzles", "--stale", "--in-process") == "Nothing to verify.\n"


def test_verify_puzzles_all_of_a_variant_and_ids(new):
    czech = prove(new(**CAPTURE))
    wide = prove(new(**WIDE, limits={"nodes": 5000}))
    out = run_command("verify_puzzles", "--all", "--variant", "czech", "--in-process")
    assert "] 1/1" in out
    assert Puzzle.objects.get(pk=czech.pk).verified_at > czech.verified_at
    assert Puzzle.objects.get(pk=wide.pk).verified_at == wide.verified_at
    run_command("verify_puzzles", "--ids", str(wide.pk), "--in-process")
    assert Puzzle.objects.get(pk=wide.pk).verified_at > wide.verified_at


def test_verify_puzzles_enqueues_to_the_workers_without_waiting(
    new, queue, django_capture_on_commit_callbacks
):
    puzzle = prove(new(**CAPTURE))
    queue.clear()
    with django_capture_on_commit_callbacks(execute=True):
        out = run_command("verify_puzzles", "--all", "--no-wait")
    assert "1 puzzles queued" in out
    assert queue == [(puzzle.pk, 1)]
    assert Puzzle.objects.get().verdict == Verdict.PENDING  # forced: proven again


@pytest.mark.django_db(transaction=True)
def test_verify_puzzles_follows_the_workers_progress_until_every_verdict_is_in():
    for fields in (CAPTURE, NO_CAPTURE):
        Puzzle.objects.create(**fields)  # their proofs wait on the test's broker: no worker

    def worker(name: str, args: tuple, queue: str) -> None:
        """A stand-in worker pool: each proof sent runs at once (on commit, autocommit here)."""
        if name == "puzzles.verify_puzzle":
            verify_puzzle.apply(args=args)

    with tasks_sent(worker):
        out = run_command("verify_puzzles", "--timeout", "30")
    assert "2 puzzles queued" in out
    assert "\r[" + "#" * 30 + "] 2/2" in out
    assert "Verdicts: no_solution 1, unique 1" in out


@pytest.mark.django_db(transaction=True)
def test_verify_puzzles_gives_up_waiting_with_a_hint_when_no_worker_takes_the_proofs():
    Puzzle.objects.create(**CAPTURE)  # no worker takes the proof from the test's broker
    with pytest.raises(CommandError, match="consuming the verify queue"):
        run_command("verify_puzzles", "--timeout", "0.6")


def test_verify_puzzles_sweep_runs_the_sweeper_once(new, queue, django_capture_on_commit_callbacks):
    lost = new(**CAPTURE)
    Puzzle.objects.filter(pk=lost.pk).update(queued_at=timezone.now() - timedelta(hours=1))
    queue.clear()
    with django_capture_on_commit_callbacks(execute=True):
        out = run_command("verify_puzzles", "--sweep")
    assert out == "1 lost proofs queued again, gave up on 0, 0 waiting proofs of teachers sent.\n"
    assert queue == [(lost.pk, 1)]


# -- the proof page -------------------------------------------------------------------------------


def proof_url(puzzle: Puzzle) -> str:
    return f"/puzzles/{puzzle.variant}/{puzzle.pk}/proof/"


def test_the_proof_page_polls_every_second_while_the_proof_runs(client, staff, new):
    puzzle = new(**WIDE)
    Puzzle.objects.filter(pk=puzzle.pk).update(
        verdict=Verdict.RUNNING, worker="w1@host", progress_nodes=123456, progress_depth=8,
        progress_updated=timezone.now(), started_at=timezone.now(),
    )  # fmt: skip
    client.force_login(staff)
    page = client.get(proof_url(puzzle)).content.decode()
    assert 'hx-trigger="every 1s"' in page
    assert f'hx-get="{proof_url(puzzle)}"' in page
    assert "<svg" in page and 'id="proof-diagram"' in page
    partial = client.get(proof_url(puzzle), HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in partial
    assert 'hx-trigger="every 1s"' in partial
    assert 'data-progress-nodes="123456"' in partial
    assert 'data-progress-depth="8"' in partial
    assert "w1@host" in partial
    assert "hx-swap-oob" not in partial  # the diagram is not resent while polling


def test_the_final_partial_stops_polling_and_shows_the_main_line(client, staff, new):
    puzzle = prove(new(**GAIN))
    client.force_login(staff)
    partial = client.get(proof_url(puzzle), HTTP_HX_REQUEST="true").content.decode()
    assert "hx-trigger" not in partial
    assert 'data-verdict="unique"' in partial
    assert "1. 22-17 13x22 2. 25x11" in partial
    assert 'hx-swap-oob="true"' in partial  # the diagram with the key move replaces the plain one
    assert "The key move 22-17." in partial


def test_the_cooked_page_shows_the_second_solution_on_the_board(client, staff, new):
    puzzle = prove(new(**COOKED))
    client.force_login(staff)
    page = client.get(proof_url(puzzle)).content.decode()
    assert "hx-trigger" not in page
    assert "The second solution starts with 24x15." in page
    assert 'data-line="alternative">1. 24x15' in page
    assert "arrow" in page.split('id="proof-diagram"', 1)[1].split("</figure>", 1)[0]


def test_the_no_solution_page_shows_the_refutation(client, staff, new):
    puzzle = prove(new(**NO_WIN))
    client.force_login(staff)
    page = client.get(proof_url(puzzle)).content.decode()
    assert 'data-line="refutation">1. 30-25 3-7 2. 25-21 7-10' in page
    assert "The best try 30-25 is refuted." in page


def test_the_undecided_page_says_which_limit_ran_out_and_what_was_searched(client, staff, new):
    puzzle = prove(new(**WIDE, limits={"nodes": 20000}))
    client.force_login(staff)
    page = client.get(proof_url(puzzle)).content.decode()
    assert "node limit" in page
    moves = len(dama.Board("international", WIDE["fen"]).legal_moves)
    assert f"<dt>moves</dt><dd>{moves}</dd>" in page


def test_the_author_sees_the_proof_page_and_outsiders_do_not(client, teacher, outsider, new):
    puzzle = new(**CAPTURE, author=teacher)
    assert client.get(proof_url(puzzle)).status_code == 404
    client.force_login(outsider)
    assert client.get(proof_url(puzzle)).status_code == 404
    client.force_login(teacher)
    assert client.get(proof_url(puzzle)).status_code == 200
    assert client.get(f"/puzzles/brazilian/{puzzle.pk}/proof/").status_code == 404


def test_prove_again_from_the_page_starts_polling_again(
    client, staff, new, queue, django_capture_on_commit_callbacks
):
    puzzle = prove(new(**CAPTURE))
    client.force_login(staff)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(proof_url(puzzle), HTTP_HX_REQUEST="true")
    assert 'hx-trigger="every 1s"' in response.content.decode()
    assert queue[-1] == (puzzle.pk, 1)
    assert Puzzle.objects.get().verdict == Verdict.PENDING


def test_the_proof_page_in_czech(client, staff, new):
    puzzle = prove(new(**GAIN))
    client.force_login(staff)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "cs"
    page = client.get(proof_url(puzzle)).content.decode()
    assert "Důkaz úlohy" in page
    assert "Prohledané pozice" in page


# -- PDN: loading, mining -------------------------------------------------------------------------


SAMPLE_PDN = """[Event "dama_learn puzzle"]
[GameType "29"]
[FEN "W:W14,17,21,28,30,32:B1,5,8,11,16,23,24"]
[Goal "capture"]
[Horizon "1"]
[Solution "28x19x12x3"]
[Motifs "capture:3"]
[Difficulty "1000"]
[Source "selfplay czech seed 2 game 1 ply 40"]
[Result "*"]

1. 28x19x12x3 *

[Event "dama_learn puzzle"]
[GameType "26"]
[FEN "W:WK3,21,22,25:B17,24"]
[Goal "win"]
[Horizon "4"]
[Solution "21x14 24-27 14-10 27-31 25-21 31x17x7 3x10"]
[Motifs ""]
[Difficulty "1800"]
[Source "selfplay brazilian seed 1 game 3 ply 77"]
[Result "*"]

1. 21x14 24-27 2. 14-10 27-31 3. 25-21 31x17x7 4. 3x10 *

[Event "dama_learn puzzle"]
[GameType "29"]
[FEN "W:W99:B1"]
[Goal "capture"]
[Result "*"]

*
"""


def test_load_puzzles_is_idempotent_and_queues_each_new_puzzle_once(
    db, tmp_path, queue, django_capture_on_commit_callbacks
):
    path = tmp_path / "sample.pdn"
    path.write_text(SAMPLE_PDN)
    with django_capture_on_commit_callbacks(execute=True):
        out = run_command("load_puzzles", "--queue", str(path))
    assert "2 new (0 with their proof), 0 updated, 0 unchanged, 1 skipped" in out
    assert "2 queued for proof" in out
    assert len(queue) == 2
    brazilian = Puzzle.objects.get(variant="brazilian")
    assert (brazilian.goal, brazilian.horizon, brazilian.difficulty) == ("win", 4, 1800)
    assert brazilian.solution[0] == "21x14"
    with django_capture_on_commit_callbacks(execute=True):
        again = run_command("load_puzzles", "--queue", str(tmp_path))
    assert "0 new (0 with their proof), 0 updated, 2 unchanged, 1 skipped" in again
    assert len(queue) == 2 and Puzzle.objects.count() == 2


def test_load_puzzles_updates_a_changed_horizon_and_proves_it_again(
    db, tmp_path, queue, django_capture_on_commit_callbacks
):
    path = tmp_path / "sample.pdn"
    path.write_text(SAMPLE_PDN)
    run_command("load_puzzles", "--queue", str(path))
    path.write_text(SAMPLE_PDN.replace('[Horizon "4"]', '[Horizon "5"]'))
    with django_capture_on_commit_callbacks(execute=True):
        out = run_command("load_puzzles", "--queue", str(path))
    assert "0 new (0 with their proof), 1 updated, 1 unchanged" in out
    puzzle = Puzzle.objects.get(variant="brazilian")
    assert (puzzle.horizon, puzzle.revision) == (5, 2)
    assert queue[-1] == (puzzle.pk, 2)


def test_load_puzzles_proves_new_puzzles_here_by_default_with_a_progress_line(
    db, tmp_path, queue, django_capture_on_commit_callbacks
):
    path = tmp_path / "two.pdn"
    path.write_text(
        "".join(
            f'[Event "load"]\n[GameType "29"]\n[FEN "{p["fen"]}"]\n[Goal "capture"]\n\n*\n\n'
            for p in (CAPTURE, COOKED)
        )
    )
    with django_capture_on_commit_callbacks(execute=True):
        out = run_command("load_puzzles", str(path))
    assert queue == []  # nothing for the workers
    assert "2 new puzzles, 0 updated, 2 to prove." in out
    assert "Proving 2 puzzles here" in out and "] 2/2" in out
    assert "Verdicts: cooked 1, unique 1" in out
    verdicts = dict(Puzzle.objects.values_list("fen", "verdict"))
    assert verdicts == {CAPTURE["fen"]: "unique", COOKED["fen"]: "cooked"}
    assert all(p.is_current and "in-process" in p.worker for p in Puzzle.objects.all())
    with django_capture_on_commit_callbacks(execute=True):
        again = run_command("load_puzzles", str(path))
    assert "0 new puzzles, 0 updated, 0 to prove." in again and "Proving" not in again
    assert queue == []


def test_load_demo_proves_the_corpus_here_or_queues_it_with_queue(
    db, settings, monkeypatch, queue, django_capture_on_commit_callbacks
):
    from core.management.commands import load_demo
    from puzzles.management.commands import load_puzzles

    settings.DEBUG = True
    settings.DAMA_DEMO_FIXTURES = []
    seen: list[tuple] = []
    monkeypatch.setattr(
        load_puzzles.Command, "handle", lambda self, *a, **o: seen.append((o["paths"], o["queue"]))
    )
    run_command("load_demo")
    run_command("load_demo", "--queue")
    assert [q for _p, q in seen] == [False, True]
    assert all(paths and all(p.endswith(".pdn") for p in paths) for paths, _q in seen)
    assert "--queue" in load_demo.Command().create_parser("manage.py", "load_demo").format_help()


def test_a_puzzle_exported_with_its_proof_loads_proven(
    new, tmp_path, queue, django_capture_on_commit_callbacks
):
    proven = prove(new(**GAIN, title='The "classic" shot'))
    text = engine.write_puzzles([proven.to_data()])
    assert "[Proof " in text
    Puzzle.objects.all().delete()
    queue.clear()
    path = tmp_path / "proven.pdn"
    path.write_text(text)
    with django_capture_on_commit_callbacks(execute=True):
        out = run_command("load_puzzles", str(path))
    assert "1 new (1 with their proof)" in out
    assert queue == []
    loaded = Puzzle.objects.get()
    assert (loaded.verdict, loaded.title, loaded.worker) == ("unique", 'The "classic" shot', "PDN")
    assert loaded.proof == proven.proof


def test_mine_puzzles_from_pdn_games_writes_pdn_and_saves(
    db, tmp_path, queue, django_capture_on_commit_callbacks
):
    games = tmp_path / "games.pdn"
    games.write_text(SAMPLE_PDN.split("\n\n[Event")[0])
    out_file = tmp_path / "mined.pdn"
    with django_capture_on_commit_callbacks(execute=True):
        out = run_command(
            "mine_puzzles", "--variant", "czech", "--count", "3", "--from-pdn", str(games),
            "--out", str(out_file), "--save",
        )  # fmt: skip
    assert "1 puzzles written to" in out
    assert "saved: 1 new, 0 updated, 0 unchanged" in out
    (mined,) = list(engine.read_puzzles(out_file.read_text()))
    assert (mined.goal, mined.solution) == ("capture", ["28x19x12x3"])
    # mined with its proof: saved proven, nothing left for the workers to prove
    assert engine.is_verdict(mined.proof)
    assert queue == []
    assert Puzzle.objects.get().verdict == "unique"


@pytest.mark.slow
def test_mine_puzzles_from_self_play_writes_proven_puzzles(db, tmp_path):
    path = tmp_path / "mined.pdn"
    out = run_command(
        "mine_puzzles", "--variant", "brazilian", "--count", "2", "--seed", "5", "--out", str(path)
    )
    assert "\r[" + "#" * 30 + "] 2/2" in out
    puzzles = list(engine.read_puzzles(path.read_text()))
    assert len(puzzles) == 2
    assert all(
        p.variant == "brazilian" and p.engine_version == dama.ENGINE_VERSION for p in puzzles
    )


# -- the shipped corpus ---------------------------------------------------------------------------


def corpus_sample(variant: str, k: int = 5) -> list[engine.PuzzleData]:
    puzzles = []
    for path in sorted(CORPUS.glob("*.pdn")):
        for entry in engine.read_puzzles(path.read_text(encoding="utf-8")):
            assert not isinstance(entry, ValidationError), f"{path}: {entry.messages}"
            if entry.variant == variant:
                puzzles.append(entry)
    assert puzzles, f"no {variant} puzzles in {CORPUS}"
    return random.Random(f"corpus-{variant}").sample(puzzles, min(k, len(puzzles)))


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["czech", "international", "brazilian"])
def test_a_sample_of_the_shipped_corpus_is_proven_unique_again(db, queue, variant):
    if not any(CORPUS.glob("*.pdn")):
        pytest.skip(f"the puzzle corpus is not in {CORPUS} yet")
    for shipped in corpus_sample(variant):
        # proven again here, not taken from the shipped Proof tag, and the same verdict comes
        data = dataclasses.replace(shipped, proof=None)
        puzzle, status = Puzzle.objects.import_data(data)
        assert status == "created"
        outcome = verification.run(puzzle.pk, puzzle.revision, worker="test")
        puzzle.refresh_from_db()
        assert outcome == "unique", (data.fen, data.goal, puzzle.proof and puzzle.proof["reason"])
        assert puzzle.proof["length"] == puzzle.horizon
        assert puzzle.intended_first_move_accepted is not False, (data.fen, data.solution)
        if shipped.proof is not None:
            assert puzzle.proof["solution"] == shipped.proof["solution"]
            assert puzzle.proof["proof"] == shipped.proof["proof"]


def _unescape(text: str) -> str:
    """A .po string's C escapes (\\n, \\", \\\\) resolved."""
    return ast.literal_eval('"' + text + '"') if "\\" in text else text


def po_entries(path: Path) -> list[dict[str, str]]:
    """msgid and msgstr texts of each entry of a .po file (a small reader for this check)."""
    entries = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        entry: dict[str, str] = {}
        key = None
        for line in block.splitlines():
            if line.startswith("#,") and "fuzzy" in line:
                entry["fuzzy"] = "1"
            if line.startswith("#"):
                continue
            m = re.match(r'^(msgctxt|msgid|msgid_plural|msgstr(?:\[\d\])?) "(.*)"$', line)
            if m:
                key = m.group(1)
                entry[key] = m.group(2)
            elif key and line.startswith('"'):
                entry[key] += line[1:-1]
        if entry.get("msgid"):
            entries.append(entry)
    return entries


def test_the_catalogue_translates_every_string_into_czech_and_is_compiled():
    locale = Path(settings.BASE_DIR) / "locale"
    entries = po_entries(locale / "cs" / "LC_MESSAGES" / "django.po")
    assert len(entries) > 50
    untranslated = [
        e["msgid"] for e in entries if any(v == "" for k, v in e.items() if k.startswith("msgstr"))
    ]
    assert untranslated == []
    # compiled: the .mo holds the .po's translations (file times say nothing after a git clone)
    for lang in ("cs", "en"):
        folder = locale / lang / "LC_MESSAGES"
        with open(folder / "django.mo", "rb") as fh:
            catalog = gettext.GNUTranslations(fh)._catalog  # type: ignore[attr-defined]
        stale = []
        for e in po_entries(folder / "django.po"):
            msgid, msgstr = _unescape(e["msgid"]), _unescape(e.get("msgstr", ""))
            if "msgid_plural" in e or "fuzzy" in e or not msgstr:
                continue
            if "msgctxt" in e:  # gettext keeps it as "context\x04msgid"
                msgid = f"{_unescape(e['msgctxt'])}\x04{msgid}"
            if catalog.get(msgid) != msgstr:
                stale.append(msgid)
        assert stale == [], f"{lang}: .mo out of date with .po for {stale[:5]}"


# -- settings: time limits below the visibility timeout -------------------------------------------


def test_a_visibility_timeout_not_above_every_time_limit_stops_start_up(tmp_path):
    from tests.web.test_settings import run

    result = run("print(1)", tmp_path, CELERY_VISIBILITY_TIMEOUT="300")
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "CELERY_VISIBILITY_TIMEOUT=300 must be longer than" in result.stderr


def test_redis_gets_the_visibility_timeout_a_restore_sweep_and_the_key_prefix(tmp_path):
    from tests.web.test_settings import run

    result = run(
        "import json; print(json.dumps(s.CELERY_BROKER_TRANSPORT_OPTIONS))",
        tmp_path,
        REDIS_URL="redis://127.0.0.1:6379/0",
        CELERY_VISIBILITY_TIMEOUT="2000",
        CELERY_REDIS_KEY_PREFIX="site-a:",
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "visibility_timeout": 2000,
        "unacked_restore_interval": 60,
        "unacked_restore_throttle": 1,
        "unacked_mutex_expire": 300,
        "global_keyprefix": "site-a:",
    }


def test_a_goal_saved_without_validation_gets_the_verdict_error(new):
    puzzle = Puzzle(variant="czech", fen=CAPTURE["fen"], goal="mate")
    puzzle.save()
    assert verify_puzzle.apply(args=(puzzle.pk, 1)).get() == "error"
    puzzle.refresh_from_db()
    assert "unknown goal 'mate'" in puzzle.error


# -- wrong moves are refuted on the worker, with the proof (issue 14) --------------------------------

#: a teacher's kind of deep puzzle: win four points within four moves, wrong moves at every turn
DEEP = {"variant": "brazilian", "fen": "W:W6,13,20,25:B11,19,K31", "goal": "gain:4", "horizon": 4}


def clicked(route: str) -> str:
    """A route as the board posts it, landing by landing (``22-17`` -> ``22,17``)."""
    return ",".join(re.split(r"[-x]", route))


def test_a_unique_verdict_stores_a_refutation_of_every_wrong_first_move(new):
    puzzle = prove(new(**GAIN))
    board = engine.position(puzzle.fen, puzzle.variant)
    accepted = {(n["start"], n["end"], frozenset(n["captured"])) for n in puzzle.proof["proof"]}
    wrong = {m.route_str(0) for m in board.legal_moves if m.key() not in accepted}
    table = puzzle.proof["refutations"]
    assert wrong and set(table[""]) == wrong
    # 22-18 lets Black capture at once; the quiet moves let Black wait
    assert table[""]["22-18"] == {"reply": "15x22", "notation": "15x22", "captured": 1}
    # and later positions of the proof where the solver is to move: after 22-17 13x22, 26x17
    assert set(table["22-17 13x22"]) == {"26x17"}


def test_later_solver_positions_of_a_deep_proof_have_their_wrong_moves_refuted(new):
    puzzle = prove(new(**DEEP))
    table = puzzle.proof["refutations"]
    deeper = [line for line in table if len(line.split()) >= 4]
    assert deeper, table.keys()
    for line in deeper:
        board = engine.position(puzzle.fen, puzzle.variant)
        for text in line.split():
            board.push(board.parse_move(text))
        for route, answer in table[line].items():
            board.push(board.parse_move(route))
            reply = board.parse_move(answer["reply"])  # a legal reply of the defender
            assert len(reply.captured) == answer["captured"]
            board.pop()


def test_the_refutations_stop_at_their_time_budget(new):
    puzzle = prove(new(**DEEP))
    table = engine.refutations(
        puzzle.variant, puzzle.fen, puzzle.goal, puzzle.horizon, puzzle.proof["proof"], seconds=0
    )
    assert table == {}


def test_the_refutations_fit_in_the_tasks_soft_time_limit(settings):
    settings.DAMA_REFUTATION_SECONDS = 20
    settings.DAMA_VERIFY_SOFT_TIME_LIMIT = 360
    assert verification.refutation_seconds(60.0) == 20  # after a proof of a minute
    assert verification.refutation_seconds(335.0) == 15
    assert verification.refutation_seconds(350.0) == 0


def test_the_worker_refutes_within_the_refutation_setting(new, settings):
    settings.DAMA_REFUTATION_SECONDS = 0
    assert prove(new(**GAIN)).proof["refutations"] == {}


def no_search(*args, **kwargs):
    raise AssertionError("the engine searched inside a web request")


@pytest.fixture
def searching_forbidden(monkeypatch):
    """Every entry point of the solver raises: a request that searches fails the test."""
    import dama.solve

    for module, name in [
        (dama.solve, "solve"),
        (engine, "refutation"),
        (engine, "refutations"),
        (engine, "_still_reaches"),
        (engine, "prove"),
    ]:
        monkeypatch.setattr(module, name, no_search)


def play_wrong(client, puzzle: Puzzle, route: str):
    page = client.get(f"/puzzles/{puzzle.variant}/{puzzle.pk}/").content.decode()
    attempt = re.search(r'data-attempt="(\d+)"', page).group(1)
    return client.post(
        f"/puzzles/attempt/{attempt}/move", {"route": clicked(route)}, HTTP_HX_REQUEST="true"
    )


def test_a_wrong_move_on_a_deep_puzzle_is_answered_from_the_stored_refutation_without_a_search(
    client, new, monkeypatch, request
):
    puzzle = prove(new(**DEEP))
    stored = puzzle.proof["refutations"][""]["20-16"]
    request.getfixturevalue("searching_forbidden")
    response = play_wrong(client, puzzle, "20-16")
    html = response.content.decode()
    assert response.status_code == 200
    assert f"this lets Black play {stored['notation']}, capturing 1 piece." in html
    assert 'data-testid="refutation"' in html


def test_a_wrong_move_with_no_stored_refutation_is_answered_without_one_and_without_a_search(
    client, new, request
):
    puzzle = prove(new(**DEEP))
    proof = dict(puzzle.proof)
    del proof["refutations"]
    Puzzle.objects.filter(pk=puzzle.pk).update(proof=proof)
    request.getfixturevalue("searching_forbidden")
    response = play_wrong(client, puzzle, "20-16")
    html = response.content.decode()
    assert response.status_code == 200
    assert "does not reach the goal." in html
    assert 'data-testid="refutation"' not in html


def test_verify_puzzles_refutations_proves_again_the_unique_puzzles_stored_without_them(new):
    old = prove(new(**GAIN))
    proof = dict(old.proof)
    del proof["refutations"]
    Puzzle.objects.filter(pk=old.pk).update(proof=proof)
    current = prove(new(**DEEP))
    before = current.verified_at
    out = io.StringIO()
    call_command("verify_puzzles", "--refutations", "--in-process", stdout=out)
    old.refresh_from_db()
    current.refresh_from_db()
    assert "22-18" in old.proof["refutations"][""]
    assert current.verified_at == before  # it had its refutations: not proven again


# -- one teacher cannot fill the proof queue (issue 22) ----------------------------------------------


@pytest.fixture
def limits_forgotten():
    """The rate limits count in the cache: each test starts with none counted."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


def save_together(capture, puzzles: list[Puzzle]) -> None:
    """Save puzzles in one transaction (as a PDN import does) and commit."""
    with capture(execute=True), transaction.atomic():
        for puzzle in puzzles:
            puzzle.full_clean()
            puzzle.save()


def test_one_teachers_proofs_take_turns_and_everyone_elses_go_straight_to_the_workers(
    db, queue, teacher, settings, django_capture_on_commit_callbacks
):
    settings.DAMA_AUTHOR_ACTIVE_PROOFS = 2
    mine = [Puzzle(**CAPTURE, author=teacher, title=f"#{n}") for n in range(5)]
    save_together(django_capture_on_commit_callbacks, mine)
    assert queue == [(mine[0].pk, 1), (mine[1].pk, 1)]
    waiting = Puzzle.objects.filter(pk__in=[p.pk for p in mine[2:]])
    assert {(p.verdict, p.queued_at) for p in waiting} == {(Verdict.PENDING, None)}
    assert Puzzle.objects.waiting_turn(teacher.pk).count() == 3
    corpus = Puzzle(**GAIN)
    save_together(django_capture_on_commit_callbacks, [corpus])
    assert queue[-1] == (corpus.pk, 1)  # not behind the teacher's puzzles
    # a proof of the teacher's ends: their next waiting proof takes its place
    assert verify_puzzle.apply(args=(mine[0].pk, 1)).get() == "unique"
    assert queue[-1] == (mine[2].pk, 1)
    assert Puzzle.objects.waiting_turn(teacher.pk).count() == 2


def test_the_proof_page_says_a_waiting_proof_waits_for_the_authors_earlier_ones(
    client, queue, teacher, settings, django_capture_on_commit_callbacks
):
    settings.DAMA_AUTHOR_ACTIVE_PROOFS = 1
    first, second = Puzzle(**CAPTURE, author=teacher), Puzzle(**GAIN, author=teacher)
    save_together(django_capture_on_commit_callbacks, [first, second])
    client.force_login(teacher)
    page = client.get(second.get_absolute_url()).content.decode()
    assert 'data-testid="waiting-turn"' in page
    assert 'data-testid="waiting-turn"' not in client.get(first.get_absolute_url()).content.decode()


def test_the_sweeper_sends_a_waiting_proof_whose_release_was_missed(
    db, queue, teacher, settings, django_capture_on_commit_callbacks
):
    settings.DAMA_AUTHOR_ACTIVE_PROOFS = 1
    first, second = Puzzle(**CAPTURE, author=teacher), Puzzle(**GAIN, author=teacher)
    save_together(django_capture_on_commit_callbacks, [first, second])
    assert queue == [(first.pk, 1)]
    Puzzle.objects.filter(pk=first.pk).update(verdict=Verdict.UNIQUE)  # ended, nobody released
    with django_capture_on_commit_callbacks(execute=True):
        result = sweep_verifications.apply().get()
    assert queue[-1] == (second.pk, 1)
    assert result == {"requeued": 0, "gave_up": 0, "released": 1}


def test_a_teachers_puzzle_is_proven_within_the_teachers_budget(new, teacher, settings):
    settings.DAMA_AUTHOR_PROOF_NODES = 2000
    settings.DAMA_AUTHOR_PROOF_SECONDS = 1
    theirs = prove(new(**WIDE, author=teacher))
    assert theirs.verdict == Verdict.UNDECIDED
    assert (theirs.limits["nodes"], theirs.limits["seconds"]) == (2000, 1)
    # the site's own puzzles keep their limits
    assert verification.proof_limits(Puzzle(**WIDE))["nodes"] == settings.DAMA_PROOF_NODES


def test_a_teachers_puzzle_may_not_look_further_ahead_than_the_sites_limit(db, teacher, settings):
    settings.DAMA_AUTHOR_MAX_HORIZON = 10
    deep = Puzzle(**{**GAIN, "horizon": 11}, author=teacher)
    with pytest.raises(ValidationError) as refused:
        deep.full_clean()
    assert refused.value.message_dict["horizon"] == [
        "A teacher's puzzle may look at most 10 moves ahead; this one asks for 11."
    ]
    Puzzle(**{**GAIN, "horizon": 11}).full_clean()  # the site's own puzzles may


def test_the_editor_refuses_a_horizon_beyond_the_limit_with_a_form_error(
    client, teacher, queue, settings
):
    from classroom.models import PuzzleSet

    settings.DAMA_AUTHOR_MAX_HORIZON = 10
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Deep", variant="czech")
    client.force_login(teacher)
    data = {"fen": GAIN["fen"], "goal": "gain", "gain": "1", "horizon": "12"}
    response = client.post(f"/teach/sets/{puzzle_set.pk}/puzzles/new/", data)
    assert response.status_code == 400
    assert "may look at most 10 moves ahead; this one asks for 12." in response.content.decode()
    assert not Puzzle.objects.exists() and queue == []


DEEP_PDN = """[Event "fine"]
[GameType "29"]
[FEN "W:W14,17,21,28,30,32:B1,5,8,11,16,23,24"]

*

[Event "too deep"]
[GameType "29"]
[FEN "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15"]
[Goal "gain:1"]
[Horizon "30"]

*
"""


def import_pdn(client, puzzle_set, text: str = DEEP_PDN, **data):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("set.pdn", text.encode(), content_type="application/octet-stream")
    return client.post(
        f"/teach/sets/{puzzle_set.pk}/import/", {"file": upload, "goal": "capture", **data}
    )


def test_an_imported_entry_beyond_the_horizon_limit_is_listed_as_an_error(
    client, teacher, queue, limits_forgotten
):
    from classroom.models import PuzzleSet

    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Imported", variant="czech")
    client.force_login(teacher)
    response = import_pdn(client, puzzle_set)
    page = response.content.decode()
    assert response.status_code == 200
    assert "Entry 2" in page and "this one asks for 30." in page
    assert [p.title for p in puzzle_set.ordered_puzzles()] == ["fine"]
    response = import_pdn(client, puzzle_set, goal="gain", horizon="30")
    assert response.status_code == 400
    assert "may look at most 10 moves ahead" in response.content.decode()


def test_pdn_imports_are_rate_limited_per_teacher(
    client, teacher, queue, settings, limits_forgotten
):
    from classroom.models import PuzzleSet

    settings.DAMA_IMPORT_LIMIT = 2
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Imported", variant="czech")
    client.force_login(teacher)
    assert import_pdn(client, puzzle_set).status_code == 200
    assert import_pdn(client, puzzle_set).status_code == 200
    before = Puzzle.objects.count()
    other = DEEP_PDN.replace("W:W14,17,21,28,30,32", "W:W14,17,21,28,30,31")
    response = import_pdn(client, puzzle_set, text=other)
    assert response.status_code == 429
    assert "You may import at most 2 PDN files in 60 minutes" in response.content.decode()
    assert Puzzle.objects.count() == before  # a refused import writes nothing


def test_prove_again_is_rate_limited_for_teachers_but_not_for_staff(
    client, teacher, staff, new, queue, settings, limits_forgotten
):
    settings.DAMA_REPROOF_LIMIT = 2
    puzzle = prove(new(**CAPTURE, author=teacher))
    client.force_login(teacher)
    url = puzzle.get_absolute_url()
    for _n in range(2):
        assert client.post(url).status_code == 302
        prove(puzzle)
    sent = len(queue)
    response = client.post(url, HTTP_HX_REQUEST="true")
    assert response.status_code == 429
    assert "You may ask for at most 2 proofs again in 60 minutes" in response.content.decode()
    puzzle.refresh_from_db()
    assert puzzle.verdict == Verdict.UNIQUE and len(queue) == sent
    client.force_login(staff)
    for _n in range(3):
        assert client.post(url).status_code == 302
