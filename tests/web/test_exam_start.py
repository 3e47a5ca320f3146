"""Starting a real exam (issue 45): the 24-hour wait holds against parallel starts, in one process
or several, on SQLite and on PostgreSQL (``tests/postgres_run.py``). The starts here run at
once in threads, each with its own database connection, as the requests of gunicorn's workers
would."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.db import IntegrityError, close_old_connections, connections, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from exams.models import Exam, Refused
from tests.conftest import PASSWORD

from .test_exams import answer_right, give_name

T0 = timezone.now().replace(microsecond=0)
STARTS = 6


def at_once(count: int, action: Callable[[int], object]) -> list[object]:
    """Run ``action(i)`` in ``count`` threads released together; what each returned or raised."""
    gate = threading.Barrier(count)
    results: list[object] = [None] * count

    def run(i: int) -> None:
        close_old_connections()
        try:
            gate.wait()
            results[i] = action(i)
        except Exception as exc:  # noqa: BLE001 - the caller reads what each start did
            results[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@pytest.fixture
def player(django_user_model):
    user = django_user_model.objects.create_user("examflow", "examflow@example.com", PASSWORD)
    return give_name(user, "Eva Zkoušková")


@pytest.mark.django_db(transaction=True)
def test_parallel_starts_of_a_real_exam_make_one_sitting(player):
    results = at_once(STARTS, lambda i: Exam.start(player, "czech", 2, "real"))
    started = [r for r in results if isinstance(r, Exam)]
    refused = [r for r in results if isinstance(r, Refused)]
    assert len(started) == 1 and len(refused) == STARTS - 1, results
    assert list(Exam.objects.filter(user=player)) == started


@pytest.mark.django_db(transaction=True)
def test_parallel_starts_through_the_page_make_one_sitting(player):
    signed_in = Client()
    signed_in.force_login(player)
    url = reverse("exams:start", args=["czech", 2])
    tabs = [Client() for _ in range(STARTS)]  # the same session, as tabs of one browser
    for tab in tabs:
        tab.cookies.load({name: morsel.value for name, morsel in signed_in.cookies.items()})

    responses = at_once(STARTS, lambda i: tabs[i].post(url, {"kind": "real"}))
    exam = Exam.objects.get(user=player)  # one sitting, and only one
    assert sorted(r.status_code for r in responses) == [302] + [400] * (STARTS - 1)
    assert [r.url for r in responses if r.status_code == 302] == [exam.get_absolute_url()]
    for refused in (r for r in responses if r.status_code == 400):
        assert 'data-testid="exam-error"' in refused.content.decode()


def test_the_database_keeps_one_open_real_sitting_per_level(player):
    first = Exam.start(player, "czech", 2, "real", now=T0)
    copy = {
        f.name: getattr(first, f.name)
        for f in Exam._meta.concrete_fields
        if f.name not in ("id", "signature")
    }
    with pytest.raises(IntegrityError), transaction.atomic():
        Exam.objects.create(**copy, signature="another draw")
    # a finished one, another level, a practice exam or a class exam's sitting is no conflict
    Exam.objects.create(**{**copy, "finished_at": T0}, signature="finished")
    Exam.objects.create(**{**copy, "level": 3}, signature="level 3")
    Exam.objects.create(**{**copy, "kind": "practice"}, signature="practice")


def test_an_open_real_exam_is_not_started_again_but_gone_on_with(player):
    Exam.start(player, "czech", 2, "real", now=T0)
    with pytest.raises(Refused, match="go on with it"):
        Exam.start(player, "czech", 2, "real", now=T0 + timedelta(minutes=1))


def test_a_sitting_whose_time_ran_out_is_finished_before_a_new_start_is_judged(player, settings):
    settings.DAMA_EXAM_COOLDOWN_HOURS = 24
    first = Exam.start(player, "czech", 2, "real", now=T0)
    answer_right(first, now=T0 + timedelta(minutes=1))
    after = first.deadline + timedelta(seconds=1)
    with pytest.raises(Refused, match="you can take this exam again"):
        Exam.start(player, "czech", 2, "real", now=after)
    first.refresh_from_db()
    assert first.is_finished and first.timed_out and first.score == 1
    assert first.finished_at == first.deadline
    # with no wait, the next start finds the sitting finished and starts a new one
    settings.DAMA_EXAM_COOLDOWN_HOURS = 0
    second = Exam.start(player, "czech", 2, "real", now=after)
    assert second.pk != first.pk and not second.is_finished
