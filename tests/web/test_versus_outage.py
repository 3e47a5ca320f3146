"""An outage pauses the games between players (``versus.models.SiteHeartbeat``): the web
processes' heartbeats with the time passed in. A gap between two heartbeats longer than the
threshold is given back to every running clock (the turn's start moves forward, the version
bumps), a shorter one is not, a flag that would fall while the site is down does not fall, and
correspondence games and games without a clock are left alone. The real processes (a web
server killed and restarted, Redis stopped) are in tests/faults/test_versus_faults.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from versus.models import SiteHeartbeat, VersusGame
from versus.tasks import flag_game

pytestmark = pytest.mark.django_db

T0 = timezone.now().replace(microsecond=0)


def at(seconds: float):
    return T0 + timedelta(seconds=seconds)


@pytest.fixture(autouse=True)
def heartbeat_on(settings):
    settings.DAMA_HEARTBEAT_SECONDS = 2
    settings.DAMA_OUTAGE_SECONDS = 10


def clocked(white, black, minutes: int = 1, **options) -> VersusGame:
    """A game whose clock runs from ``at(2)``, White to move."""
    game = VersusGame.challenge(
        white, variant="czech", colour="white", base_minutes=minutes, **options
    )
    game.accept(black, now=T0)
    game.play(white, text="22-18", now=at(1))
    game.play(black, text="11-15", now=at(2))
    assert game.clock_running and game.side_to_move == "w"
    return game


def beats(*seconds: float) -> list[float]:
    """Heartbeats at these moments; the outage each found, in seconds."""
    return [SiteHeartbeat.beat(now=at(s)).total_seconds() for s in seconds]


def test_an_outage_is_given_back_to_the_running_clock(student, outsider):
    game = clocked(student, outsider, minutes=5)
    version = game.version
    assert beats(4, 6, 36) == [0, 0, 30]
    game.refresh_from_db()
    assert game.turn_started == at(32), "the turn's start moved forward by the outage"
    assert game.version == version + 1, "the pages fetch the game again"
    # 48 s since the turn began, 30 of them with the site down: 18 s spent
    assert game.remaining_ms("w", at(50)) == 300_000 - 18_000
    assert game.play(student, text="18x11", now=at(50)).kind == "moved"
    game.refresh_from_db()
    assert game.white_ms == 300_000 - 18_000


def test_a_gap_shorter_than_the_threshold_is_not_credited(student, outsider):
    game = clocked(student, outsider, minutes=5)
    version = game.version
    assert beats(4, 12, 22) == [0, 0, 0], "8 and 10 s: not more than the threshold"
    game.refresh_from_db()
    assert (game.turn_started, game.version) == (at(2), version)


def test_a_flag_that_would_fall_in_the_outage_does_not_fall(student, outsider):
    game = clocked(student, outsider, minutes=1)  # White's time runs out at at(62)
    beats(50)  # the site's last heartbeat before it went down
    assert not game.judge_clock_unattended(at(63)), "the site has not been seen since at(50)"
    assert game.flag_waits_for_heartbeat(at(63)), "asked again a heartbeat later"
    assert not game.judge_clock_unattended(at(80))
    assert not game.flag_waits_for_heartbeat(at(80)), "an outage: its end queues the flag"
    game.refresh_from_db()
    assert game.state == "playing"

    assert beats(90) == [40], "the site is back"
    game.refresh_from_db()
    assert game.deadline() == at(102), "the 40 s of the outage given back"
    assert not game.judge_clock_unattended(at(95))
    assert game.play(student, text="18x11", now=at(95)).kind == "moved"
    game.refresh_from_db()
    assert game.white_ms == 60_000 - 53_000, "93 s since the turn began, 40 of them down"


def test_the_flag_falls_once_a_heartbeat_shows_the_site_answering_at_the_deadline(
    student, outsider
):
    game = clocked(student, outsider, minutes=1)
    beats(60)
    assert not game.judge_clock_unattended(at(62.5)), "the last heartbeat is before the deadline"
    beats(62)
    assert game.judge_clock_unattended(at(62.5))
    game.refresh_from_db()
    assert (game.state, game.result, game.reason) == ("over", "0-2", "time")


def test_a_page_judges_the_flag_without_the_heartbeat(student, outsider):
    """A web process that answers is the proof that the site is up (it credited any outage
    before it served)."""
    game = clocked(student, outsider, minutes=1)
    beats(50)
    assert game.judge_clock(at(63))


def test_correspondence_untimed_and_finished_games_are_left_alone(student, outsider):
    mail = clocked(student, outsider, minutes=1)
    VersusGame.objects.filter(pk=mail.pk).update(base_seconds=None, days_per_move=3)
    untimed = VersusGame.challenge(student, variant="czech", colour="white")
    untimed.accept(outsider, now=T0)
    over = clocked(student, outsider, minutes=1)
    over.resign(outsider, now=at(3))
    before = {
        g.pk: (g.turn_started, g.version)
        for g in VersusGame.objects.filter(pk__in=[mail.pk, untimed.pk, over.pk])
    }
    running = clocked(student, outsider, minutes=5)
    assert beats(4, 100) == [0, 96]
    after = {g.pk: (g.turn_started, g.version) for g in VersusGame.objects.filter(pk__in=before)}
    assert after == before
    running.refresh_from_db()
    assert running.turn_started == at(98)


def test_a_first_move_not_yet_made_is_given_the_outage_too(student, outsider):
    """Before both sides have moved the game is aborted two minutes after its start: not for
    minutes the site was down."""
    game = VersusGame.challenge(student, variant="czech", colour="white", base_minutes=5)
    game.accept(outsider, now=T0)
    beats(100, 200)
    game.refresh_from_db()
    assert game.turn_started == at(100)
    assert not game.judge_clock_unattended(at(215)), "120 s since the start: 100 of them down"


def test_a_turn_begun_after_the_last_heartbeat_is_credited_from_the_end(student, outsider):
    game = clocked(student, outsider, minutes=5)
    beats(1)  # the site's last heartbeat, a second before the turn began at(2)
    assert beats(40) == [39]
    game.refresh_from_db()
    assert game.turn_started == at(40), "none of the turn was played with the site up"


def test_an_outage_is_credited_once_by_the_processes_that_find_it(student, outsider):
    game = clocked(student, outsider, minutes=5)
    assert beats(4, 40, 40, 39) == [0, 36, 0, 0], "the second process finds it beaten"
    game.refresh_from_db()
    assert game.turn_started == at(38)


def test_after_an_outage_the_pages_are_told_and_the_flag_queued_anew(
    student, outsider, sent_tasks, django_capture_on_commit_callbacks
):
    game = clocked(student, outsider, minutes=1)
    beats(10)
    now = timezone.now()
    # the site went down 30 s into the turn, and comes back now
    SiteHeartbeat.objects.update(seen=now - timedelta(seconds=20))
    VersusGame.objects.filter(pk=game.pk).update(turn_started=now - timedelta(seconds=50))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert SiteHeartbeat.beat(now=now).total_seconds() == 20
    game.refresh_from_db()
    assert len(callbacks) == 1
    flags = [args for name, args, _queue in sent_tasks if name == "versus.flag_game"]
    assert flags == [(game.pk, game.version)], "the new deadline's flag, at the new version"
    assert game.deadline() == now + timedelta(seconds=30)


def test_the_flag_task_waits_for_the_heartbeat_then_judges(student, outsider, sent_tasks):
    game = clocked(student, outsider, minutes=1)
    now = timezone.now()
    VersusGame.objects.filter(pk=game.pk).update(turn_started=now - timedelta(seconds=61))
    SiteHeartbeat.beat(now=now - timedelta(seconds=3))  # before the deadline, a second ago
    assert flag_game(game.pk, game.version) is False
    assert [a for name, a, _q in sent_tasks if name == "versus.flag_game"] == [
        (game.pk, game.version)
    ], "asked again a heartbeat later"
    SiteHeartbeat.beat()
    assert flag_game(game.pk, game.version) is True
    game.refresh_from_db()
    assert (game.result, game.reason) == ("0-2", "time")


def test_without_the_heartbeat_the_flags_fall_as_before(student, outsider, settings):
    settings.DAMA_HEARTBEAT_SECONDS = 0
    game = clocked(student, outsider, minutes=1)
    SiteHeartbeat.beat(now=at(10))  # a row from when it was on
    assert game.judge_clock_unattended(at(63))
