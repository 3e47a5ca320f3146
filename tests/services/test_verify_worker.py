"""Puzzle proofs on real workers: a request enqueues, a worker process proves, the verdict is
stored; a worker SIGKILLed in the middle of a proof is replaced and the verdict still arrives.

Workers run `celery -A dama_learn worker -Q verify` on the test database, with a 10 s visibility
timeout (see conftest.FAST_REDELIVERY).
"""

from __future__ import annotations

import json

import pytest

from puzzles.models import FINAL, Puzzle, Verdict
from tests.conftest import wait_until
from tests.web.test_puzzle_proofs import CAPTURE, COOKED, GAIN, NO_WIN, SLOW

pytestmark = [pytest.mark.services, pytest.mark.slow]


def wait_for(pk: int, verdicts=FINAL, seconds: float = 120, what=None, workers=()) -> Puzzle:
    def done() -> Puzzle | None:
        puzzle = Puzzle.objects.get(pk=pk)
        if puzzle.verdict in verdicts and (what is None or what(puzzle)):
            return puzzle
        return None

    def details() -> str:
        row = Puzzle.objects.values().get(pk=pk)
        row.pop("proof")
        logs = "\n".join(f"--- {w.hostname}:\n{w.log()[-2000:]}" for w in workers)
        return f"{row}\n{logs}"

    return wait_until(done, seconds, f"puzzle {pk} done", details=details)


def admin_add(client, staff, fields: dict) -> Puzzle:
    client.force_login(staff)
    form = {
        "variant": fields["variant"],
        "fen": fields["fen"],
        "goal": fields["goal"],
        "horizon": str(fields.get("horizon", "")),
        "solution": json.dumps(fields.get("solution", [])),
        "limits": json.dumps(fields.get("limits", {})),
        "title": "",
        "description": "",
        "source": "services test",
        "author": "",
        "motifs": "[]",
        "difficulty": "1500",
    }
    response = client.post("/admin/puzzles/puzzle/add/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    return Puzzle.objects.latest("pk")


@pytest.mark.parametrize("broker", ["redis", "sqlite"])
def test_a_request_enqueues_and_a_worker_process_stores_the_verdict(
    request, broker, client, staff, start_worker
):
    url = request.getfixturevalue(f"{broker}_broker")
    worker = start_worker(url)
    puzzle = admin_add(client, staff, GAIN)
    done = wait_for(puzzle.pk, workers=(worker,))
    assert done.verdict == Verdict.UNIQUE, (done.verdict, done.error, worker.log()[-3000:])
    assert done.worker == worker.hostname
    assert done.proof["solution"] == GAIN["solution"]
    assert done.revision == 1 and done.attempts == 1
    page = client.get(f"/puzzles/czech/{puzzle.pk}/proof/", HTTP_HX_REQUEST="true")
    assert 'data-verdict="unique"' in page.content.decode()
    assert "hx-trigger" not in page.content.decode()


def test_cooked_and_unsolvable_puzzles_get_their_verdicts_from_the_worker(
    redis_broker, start_worker
):
    worker = start_worker(redis_broker)
    cooked = Puzzle.objects.create(**COOKED)  # autocommit: enqueued at once
    unsolvable = Puzzle.objects.create(**NO_WIN)
    unique = Puzzle.objects.create(**CAPTURE)
    assert wait_for(cooked.pk).verdict == Verdict.COOKED
    assert wait_for(unsolvable.pk).verdict == Verdict.NO_SOLUTION
    assert wait_for(unique.pk).verdict == Verdict.UNIQUE
    cooked.refresh_from_db()
    assert cooked.proof["alternatives"] == [["24x15"]]
    assert {p.worker for p in Puzzle.objects.all()} == {worker.hostname}


def test_an_edit_while_the_worker_proves_wins_over_the_older_revision(redis_broker, start_worker):
    start_worker(redis_broker)
    puzzle = Puzzle.objects.create(**SLOW, limits={"seconds": 5})
    wait_for(puzzle.pk, [Verdict.RUNNING], what=lambda p: p.progress_nodes > 0)
    puzzle.refresh_from_db()
    puzzle.fen, puzzle.goal, puzzle.horizon = CAPTURE["fen"], "capture", None
    puzzle.variant = "czech"
    puzzle.save()  # revision 2, enqueued behind the running proof of revision 1
    done = wait_for(puzzle.pk, what=lambda p: p.revision == 2)
    assert (done.revision, done.verdict, done.proof["fen"]) == (2, Verdict.UNIQUE, CAPTURE["fen"])


def test_a_worker_killed_mid_proof_is_replaced_and_the_verdict_still_arrives(
    redis_broker, start_worker, client, staff
):
    first = start_worker(redis_broker)
    puzzle = Puzzle.objects.create(**SLOW, limits={"nodes": 500_000_000, "seconds": 5})
    running = wait_for(
        puzzle.pk, [Verdict.RUNNING], what=lambda p: p.progress_nodes > 0, workers=[first]
    )
    assert running.worker == first.hostname
    # the proof page shows the live figures and keeps polling
    client.force_login(staff)
    partial = client.get(f"/puzzles/international/{puzzle.pk}/proof/", HTTP_HX_REQUEST="true")
    assert 'hx-trigger="every 1s"' in partial.content.decode()
    assert "data-progress-nodes" in partial.content.decode()

    first.kill()
    assert Puzzle.objects.get(pk=puzzle.pk).verdict == Verdict.RUNNING  # nobody finished it

    second = start_worker(redis_broker)
    # redelivered by Redis after the visibility timeout (10 s), within the poll's minute: not by
    # the sweeper, which would take 900 s
    done = wait_for(puzzle.pk, seconds=60, workers=[first, second])
    assert done.worker == second.hostname, second.log()[-3000:]
    # the second worker proved from the start until the 5 s limit (the search needs far more)
    assert (done.verdict, done.proof["reason"]) == (Verdict.UNDECIDED, "seconds"), done.error
    assert done.attempts == 2
