"""Review (issue 18): what a learner got wrong comes back on an FSRS schedule (the `fsrs` package).

Puzzles missed, solved with a hint or slowly, and lesson steps answered wrongly become cards; a
review session serves the due cards first, then new puzzles of the weakest motif, and says why;
visitors keep their cards at sign-up; teachers see each student's due cards and weak motifs and
can add a set to a class's review; a daily reminder mail is off unless asked for.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from classroom.models import Assignment, Classroom, PuzzleSet
from puzzles.models import Attempt
from review import scheduling
from review.learner import Learner
from review.models import Card, ReminderSetting
from review.queue import motif_rates
from review.scheduling import Rating
from tests.conftest import PASSWORD
from tests.puzzle_fixtures import make_puzzle

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
CZECH_FIRST = ("czech", "czech-board", "cz-board-main-diagonal")  # click_square, answer 4 (h8)


@pytest.fixture(autouse=True)
def _no_kept_counts():
    """The navigation's counts are kept in the cache by user id, which the next test reuses."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def gain():
    return make_puzzle("czech_gain")  # 22-17! 13x22 25x18x11


@pytest.fixture
def capture():
    return make_puzzle("czech_capture")  # 28x19x12x3


def open_puzzle(client, puzzle, query: str = "") -> tuple[int, str]:
    response = client.get(f"/puzzles/{puzzle.variant}/{puzzle.pk}/{query}")
    assert response.status_code == 200
    html = response.content.decode()
    return int(re.search(r'data-attempt="(\d+)"', html).group(1)), html


def move(client, attempt: int, text: str, query: str = ""):
    return client.post(f"/puzzles/attempt/{attempt}/move{query}", {"move": text}, **HX)


def fail_gain(client, gain) -> int:
    attempt, _html = open_puzzle(client, gain)
    assert "Solved" not in move(client, attempt, "22-18").content.decode()
    return attempt


def solve_gain(client, attempt: int, query: str = "") -> str:
    move(client, attempt, "22-17", query)
    return move(client, attempt, "25x18x11", query).content.decode()


def age(card: Card, days: float) -> None:
    """Move the card's whole history ``days`` into the past (as if reviewed then).

    The schedule (the due date and the scheduler's state) moves by ``days`` exactly. The times the
    page words by calendar day ("3 days ago") move by whole days of the local calendar, so the
    wording does not depend on the hour the test runs at (3.01 days before 00:10 is 4 days ago).
    """
    shift = timedelta(days=days)
    back = timedelta(days=int(days))

    def earlier(when: datetime | None) -> datetime | None:
        # aware arithmetic in the local zone keeps the wall-clock time: exactly int(days) dates back
        return timezone.localtime(when) - back if when else None

    state = dict(card.state)
    for key in ("due", "last_review"):
        if state.get(key):
            state[key] = (datetime.fromisoformat(state[key]) - shift).isoformat()
    Card.objects.filter(pk=card.pk).update(
        state=state,
        due=card.due - shift,
        last_review=earlier(card.last_review),
        last_missed=earlier(card.last_missed),
        created=earlier(card.created),
    )
    card.refresh_from_db()


# -- scheduling ------------------------------------------------------------------------------------


def test_a_card_failed_today_is_due_again_sooner_than_one_solved_well():
    now = timezone.now()
    _failed, failed_due = scheduling.review(None, Rating.Again, now)
    _good, good_due = scheduling.review(None, Rating.Good, now)
    _easy, easy_due = scheduling.review(None, Rating.Easy, now)
    assert now < failed_due < good_due < easy_due
    assert failed_due - now == timedelta(days=1)


def test_intervals_grow_with_successes_and_shrink_after_a_lapse():
    now = timezone.now()
    state, due = scheduling.review(None, Rating.Again, now)
    intervals = []
    for _ in range(4):
        when = due
        state, due = scheduling.review(state, Rating.Good, when)
        intervals.append(due - when)
    assert intervals == sorted(intervals) and intervals[0] < intervals[-1]
    assert intervals[-1] > timedelta(days=10)
    when = due
    _state, lapse_due = scheduling.review(state, Rating.Again, when)
    assert lapse_due - when == timedelta(days=1) < intervals[-1]


@pytest.mark.parametrize(
    ("failed", "shown", "hints", "seconds", "rating"),
    [
        (True, False, 0, 5.0, Rating.Again),
        (False, True, 0, 5.0, Rating.Again),
        (False, False, 1, 5.0, Rating.Hard),
        (False, False, 0, 500.0, Rating.Hard),
        (False, False, 0, 60.0, Rating.Good),
        (False, False, 0, 5.0, Rating.Easy),
    ],
)
def test_a_result_becomes_a_rating(failed, shown, hints, seconds, rating):
    assert (
        scheduling.rate_attempt(failed=failed, solution_shown=shown, hints=hints, seconds=seconds)
        == rating
    )


# -- cards from the trainer and the lessons --------------------------------------------------------


def test_a_missed_puzzle_becomes_a_card_due_tomorrow(client, student, gain):
    client.force_login(student)
    fail_gain(client, gain)
    card = Card.objects.get(user=student, puzzle=gain)
    assert card.origin == Card.Origin.FAILED and card.last_rating == Rating.Again
    assert timedelta(hours=23) < card.due - timezone.now() <= timedelta(days=1)
    # solving it after the mistake, in the same attempt, does not rate the card twice
    solve_gain(client, Attempt.objects.get(user=student).pk)
    card.refresh_from_db()
    assert card.reps == 1 and card.last_rating == Rating.Again


def test_a_puzzle_solved_cleanly_makes_no_card_but_one_solved_with_a_hint_does(
    client, student, gain, capture
):
    client.force_login(student)
    attempt, _html = open_puzzle(client, capture)
    assert "Solved" in move(client, attempt, "28x19x12x3").content.decode()
    assert not Card.objects.filter(user=student).exists()
    attempt, _html = open_puzzle(client, gain)
    client.post(f"/puzzles/attempt/{attempt}/hint", **HX)
    assert "Solved" in solve_gain(client, attempt)
    card = Card.objects.get(user=student)
    assert (card.puzzle, card.origin, card.last_rating) == (gain, Card.Origin.HINT, Rating.Hard)


def test_a_puzzle_solved_slowly_becomes_a_card(client, student, capture):
    client.force_login(student)
    attempt, _html = open_puzzle(client, capture)
    Attempt.objects.filter(pk=attempt).update(started_at=timezone.now() - timedelta(minutes=5))
    move(client, attempt, "28x19x12x3")
    assert Card.objects.get(user=student).origin == Card.Origin.SLOW


def test_solving_a_due_card_again_schedules_it_later_and_intervals_grow(client, student, gain):
    client.force_login(student)
    fail_gain(client, gain)
    card = Card.objects.get(user=student)
    due_dates = []
    for _round in range(3):
        age(card, (card.due - timezone.now()).total_seconds() / 86400 + 0.01)
        assert card.is_due()
        # the review session's link: a fresh go, then back to the session
        attempt, html = open_puzzle(client, gain, f"?replay=1&then=/review/{gain.variant}/")
        assert f'href="/review/{gain.variant}/"' in html  # "next puzzle" leads back
        Attempt.objects.filter(pk=attempt).update(started_at=timezone.now() - timedelta(seconds=40))
        html = solve_gain(client, attempt, f"?then=/review/{gain.variant}/")
        assert "Solved" in html and f'href="/review/{gain.variant}/"' in html
        assert re.search(r'data-testid="next-puzzle"[^>]*>Continue</a>', html)
        card.refresh_from_db()
        assert card.last_rating == Rating.Good
        due_dates.append(card.due - timezone.now())
    assert due_dates == sorted(due_dates) and due_dates[0] < due_dates[-1]
    assert card.reps == 4 and card.lapses == 0


def test_a_card_solved_before_it_is_due_keeps_its_schedule(client, student, gain):
    client.force_login(student)
    fail_gain(client, gain)
    card = Card.objects.get(user=student)
    attempt, _html = open_puzzle(client, gain, "?replay=1")
    solve_gain(client, attempt)
    card.refresh_from_db()
    assert card.reps == 1 and card.last_rating == Rating.Again


def test_a_lesson_step_answered_wrongly_becomes_a_card_and_a_right_review_is_good(client):
    url = reverse("lessons:check", args=CZECH_FIRST)
    client.post(url, {"answer": "3"}, **HX)  # wrong
    learner = Learner.of(client)
    card = learner.cards().get()
    assert (card.kind, card.course, card.step) == (Card.Kind.STEP, "czech", CZECH_FIRST[2])
    client.post(url, {"route": "4"}, **HX)  # right at once: not due yet, nothing changes
    card.refresh_from_db()
    assert card.reps == 1
    age(card, 1.01)
    # the session sends the learner to the step, whose page leads back to the session
    html = client.get("/review/czech/").content.decode()
    step_url = reverse("lessons:step", args=CZECH_FIRST)
    assert f'href="{step_url}" data-testid="review-go"' in html and "Open the step" in html
    assert "Tady byla včera tvoje odpověď špatně." not in html  # (English page)
    assert "You answered this step wrongly yesterday." in html
    page = client.get(step_url).content.decode()
    assert 'href="/review/czech/" data-testid="back-to-review"' in page
    html = client.post(url, {"route": "4"}, **HX).content.decode()
    assert 'href="/review/czech/" data-testid="back-to-review"' in html
    card.refresh_from_db()
    assert card.reps == 2 and card.last_rating == Rating.Good and not card.is_due()
    # another step's page has no such button
    other = reverse("lessons:step", args=("czech", "czech-board", "cz-board-orientation"))
    assert "back-to-review" not in client.get(other).content.decode()


# -- the review page and the queue -----------------------------------------------------------------


def test_the_review_page_lists_due_cards_by_variant_with_the_reason(client, student, gain):
    client.force_login(student)
    fail_gain(client, gain)
    card = Card.objects.get(user=student)
    age(card, 3.01)
    html = client.get("/review/").content.decode()
    assert re.search(r'data-testid="due-czech">\s*1 due', html)
    assert re.search(r'data-testid="due-international">\s*0 due', html)
    assert "You missed this 3 days ago." in html
    assert "White to play and win one piece within 2 moves." in html  # the puzzle's goal
    assert f"/puzzles/czech/{gain.pk}/?replay=1&amp;then=%2Freview%2Fczech%2F" in html
    # the navigation's count
    assert re.search(r'data-testid="review-link"[^>]*>Review <span class="nav-count">', html)


def test_the_queue_serves_due_cards_oldest_first_then_the_weakest_motif(client, student, outsider):
    client.force_login(student)
    gain = make_puzzle("czech_gain")
    capture = make_puzzle("czech_capture")
    now = timezone.now()
    old = Card.objects.create(
        user=student, puzzle=capture, variant="czech", due=now - timedelta(days=2), last_missed=now
    )
    new = Card.objects.create(
        user=student, puzzle=gain, variant="czech", due=now - timedelta(hours=1), last_missed=now
    )
    Card.objects.create(  # another variant's card is not served here
        user=student, puzzle=make_puzzle("brazilian_gain"), variant="brazilian", due=now
    )
    html = client.get("/review/czech/").content.decode()
    assert f'data-card="{old.pk}"' in html and "You missed this today." in html
    client.post("/review/czech/skip", {"card": old.pk})
    html = client.get("/review/czech/").content.decode()
    assert f'data-card="{new.pk}"' in html
    client.post("/review/czech/skip", {"card": new.pk})
    # no card left: a new puzzle of the weakest motif (two misses of a sacrifice puzzle)
    for _ in range(2):
        Attempt.objects.create(user=student, puzzle=gain, failed=True, finished_at=now)
    Attempt.objects.create(user=student, puzzle=capture, solved=True, finished_at=now)
    Attempt.objects.create(user=student, puzzle=capture, solved=True, finished_at=now)
    fresh = make_puzzle("czech_capture", author=outsider, public=True, motifs=["sacrifice:1"])
    html = client.get("/review/czech/").content.decode()
    assert "Your weakest motif: sacrifice (0 % solved cleanly)." in html
    assert "data-card=" not in html and f"/puzzles/czech/{fresh.pk}/?then=" in html
    assert re.search(r"<p data-testid=\"review-goal\">White to play", html)
    # the skipped cards come back
    client.post("/review/czech/skip", {"reset": "1"})
    assert f'data-card="{old.pk}"' in client.get("/review/czech/").content.decode()


def test_a_new_learner_is_offered_practice_only_once_there_is_a_weak_motif(client, student):
    client.force_login(student)
    html = client.get("/review/").content.decode()
    assert "Practise weak motifs" not in html and 'data-testid="start-' not in html
    assert "Solve a few puzzles first" in html  # the page's advice stands alone
    gain = make_puzzle("czech_gain")
    for _ in range(2):  # two misses of a sacrifice: a weak motif in Czech draughts only
        Attempt.objects.create(user=student, puzzle=gain, failed=True, finished_at=timezone.now())
    html = client.get("/review/").content.decode()
    assert 'data-testid="start-czech"' in html and "Practise weak motifs" in html
    assert 'data-testid="start-international"' not in html
    assert 'data-testid="start-brazilian"' not in html


def test_motif_rates_put_the_weakest_first():
    rows = [
        (["shot", "capture:3"], True, False, False, 0),
        (["shot"], False, True, False, 0),
        (["sacrifice:1"], True, False, False, 1),  # with a hint: not clean
        (["sacrifice:1"], False, True, True, 0),
        (["capture:2"], True, False, False, 0),
    ]
    rates = motif_rates(rows)
    assert [(r.motif, r.tries, r.clean) for r in rates] == [
        ("sacrifice", 2, 0),
        ("shot", 2, 1),
        ("capture", 2, 2),
    ]


def test_an_empty_session_says_all_done(client):
    html = client.get("/review/czech/").content.decode()
    assert 'data-testid="review-done"' in html


def test_the_due_list_reads_a_fixed_number_of_queries_however_many_cards(client, student):
    client.force_login(student)
    puzzles = [make_puzzle("czech_gain"), make_puzzle("czech_capture")]
    past = timezone.now() - timedelta(days=1)

    def count_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/review/").status_code == 200
        return len(queries)

    Card.objects.create(user=student, puzzle=puzzles[0], variant="czech", due=past)
    few = count_queries()
    Card.objects.create(user=student, puzzle=puzzles[1], variant="czech", due=past)
    for i in range(20):
        Card.objects.create(
            user=student,
            kind=Card.Kind.STEP,
            course="czech",
            step=f"s{i}",
            variant="czech",
            due=past,
        )
    assert count_queries() == few


# -- visitors ----------------------------------------------------------------------------------------


def test_a_visitor_keeps_the_review_at_sign_up(client, gain, django_user_model):
    fail_gain(client, gain)
    client.post(reverse("lessons:check", args=CZECH_FIRST), {"answer": "3"}, **HX)
    assert Card.objects.filter(user__isnull=True).count() == 2
    html = client.get("/review/").content.decode()
    assert 'data-testid="nothing-due"' in html
    assert "2 cards in your review. The next one comes back tomorrow." in html
    for card in Card.objects.all():
        age(card, 1.01)
    html = client.get("/review/").content.decode()
    assert "You missed this yesterday." in html
    assert "You answered this step wrongly yesterday." in html
    assert re.search(r'class="nav-count"><span class="sr-only">\(due: </span>2<', html)
    response = client.post(
        reverse("signup"),
        {"username": "vera", "email": "", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    user = django_user_model.objects.get(username="vera")
    assert Card.objects.filter(user=user).count() == 2
    assert not Card.objects.filter(user__isnull=True).exists()


def test_at_login_the_card_due_sooner_wins(client, student, gain):
    now = timezone.now()
    mine = Card.objects.create(
        user=student, puzzle=gain, variant="czech", due=now + timedelta(days=9)
    )
    fail_gain(client, gain)  # a visitor: due tomorrow
    visitor = Card.objects.get(user__isnull=True)
    client.post(reverse("login"), {"username": student.username, "password": PASSWORD})
    assert list(Card.objects.filter(user=student)) == [visitor]
    assert not Card.objects.filter(pk=mine.pk).exists()


def test_a_visitor_cannot_skip_someone_elses_card(client, student, gain):
    card = Card.objects.create(user=student, puzzle=gain, variant="czech", due=timezone.now())
    response = client.post("/review/czech/skip", {"card": card.pk})
    assert response.status_code == 400


@pytest.mark.parametrize("value", ["", "abc", "-1", "99999999999999999999", "1e5"])
def test_bad_input_is_a_clear_400(client, value):
    assert client.post("/review/czech/skip", {"card": value}).status_code == 400


def test_an_unknown_variant_is_404(client):
    assert client.get("/review/chess/").status_code == 404


def test_a_then_address_off_the_site_is_ignored(client, gain):
    for then in ("https://evil.example/", "//evil.example/", "/\\evil.example/"):
        _attempt, html = open_puzzle(client, gain, f"?then={then}")
        link = re.search(r'<a [^>]*data-testid="next-puzzle"', html).group(0)
        assert "evil" not in link and 'href="/puzzles/czech/?after=' in link
        assert "then=" not in re.search(r'hx-post="([^"]*hint)"', html).group(1)


# -- teachers ----------------------------------------------------------------------------------------


@pytest.fixture
def classroom(teacher, student):
    room = Classroom.objects.create(name="4.B", created_by=teacher)
    room.teachers.add(teacher)
    room.add_student(student)
    return room


def test_the_class_progress_page_shows_due_cards_and_weakest_motifs(
    client, teacher, student, classroom, gain
):
    now = timezone.now()
    Card.objects.create(user=student, puzzle=gain, variant="czech", due=now)
    for _ in range(2):
        Attempt.objects.create(user=student, puzzle=gain, failed=True, finished_at=now)
    client.force_login(teacher)
    html = client.get(reverse("classroom:progress", args=[classroom.pk])).content.decode()
    row = re.search(r'<tr data-review-student="standa"><th scope="row">.*?</tr>', html, re.S).group(
        0
    )
    assert '<td data-testid="due">1</td>' in row
    assert "sacrifice (0 %)" in row


def test_the_class_summary_reads_a_fixed_number_of_queries(teacher, classroom, django_user_model):
    from review.queue import class_summary

    puzzle = make_puzzle("czech_gain")
    for i in range(6):
        user = django_user_model.objects.create_user(f"s{i}")
        classroom.add_student(user)
        Card.objects.create(user=user, puzzle=puzzle, variant="czech", due=timezone.now())
        Attempt.objects.create(user=user, puzzle=puzzle, failed=True, finished_at=timezone.now())
    students = list(classroom.students())
    with CaptureQueriesContext(connection) as queries:
        summary = class_summary(students)
    assert len(queries) == 2
    assert sum(s.due for s in summary) == 6


def test_a_teacher_adds_a_set_to_the_class_review(client, teacher, student, classroom, gain):
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Oběti", variant="czech")
    puzzle_set.add(gain)
    client.force_login(teacher)
    url = reverse("review:class_add_set", args=[classroom.pk])
    assert client.post(url, {"puzzle_set": puzzle_set.pk}).status_code == 400  # not assigned
    html = client.get(reverse("classroom:progress", args=[classroom.pk])).content.decode()
    assert "Assign a set to the class" in html
    Assignment.objects.create(puzzle_set=puzzle_set, classroom=classroom, assigned_by=teacher)
    html = client.get(reverse("classroom:progress", args=[classroom.pk])).content.decode()
    assert f'<option value="{puzzle_set.pk}">Oběti</option>' in html
    url = reverse("review:class_add_set", args=[classroom.pk])
    response = client.post(url, {"puzzle_set": puzzle_set.pk})
    assert response.status_code == 302
    card = Card.objects.get(user=student)
    assert (card.puzzle, card.origin, card.is_due()) == (gain, Card.Origin.TEACHER, True)
    client.post(url, {"puzzle_set": puzzle_set.pk})  # twice: no second card
    assert Card.objects.filter(user=student).count() == 1
    client.force_login(student)
    html = client.get("/review/czech/").content.decode()
    assert "Your teacher added it to your review (set “Oběti”)." in html


def test_only_the_classes_teachers_add_sets_and_only_their_own(
    client, teacher, student, outsider, classroom, gain
):
    other = PuzzleSet.objects.create(owner=outsider, title="Cizí", variant="czech")
    mine = PuzzleSet.objects.create(owner=teacher, title="Moje", variant="czech")
    Assignment.objects.create(puzzle_set=mine, classroom=classroom)
    url = reverse("review:class_add_set", args=[classroom.pk])
    client.force_login(teacher)
    assert client.post(url, {"puzzle_set": other.pk}).status_code == 400
    assert client.post(url, {"puzzle_set": "x"}).status_code == 400
    client.force_login(student)
    assert client.post(url, {"puzzle_set": mine.pk}).status_code == 403
    client.force_login(outsider)
    assert client.post(url, {"puzzle_set": mine.pk}).status_code == 404
    assert not Card.objects.exists()


# -- the reminder --------------------------------------------------------------------------------------


def test_the_reminder_is_off_by_default_and_sent_once_a_day_when_switched_on(
    client, student, outsider, gain, settings
):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    now = timezone.now()
    for user in (student, outsider):
        Card.objects.create(user=user, puzzle=gain, variant="czech", due=now)
    call_command("send_review_reminders", base_url="https://dama.example")
    assert mail.outbox == []
    client.force_login(student)
    client.post("/review/reminders", {"daily_email": "on"})
    assert ReminderSetting.objects.get(user=student).daily_email
    call_command("send_review_reminders", base_url="https://dama.example")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == [student.email]
    assert "1 card is waiting for your review" in message.subject
    assert "https://dama.example/review/" in message.body
    call_command("send_review_reminders", base_url="https://dama.example")
    assert len(mail.outbox) == 1  # once a day
    client.post("/review/reminders", {})
    assert not ReminderSetting.objects.get(user=student).daily_email


def test_the_reminder_speaks_czech_to_a_czech_account(student, gain, settings):
    from accounts.models import profile_of
    from review.reminders import send_reminders

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    profile = profile_of(student)
    profile.language = "cs"
    profile.save()
    ReminderSetting.objects.create(user=student, daily_email=True)
    Card.objects.create(user=student, puzzle=gain, variant="czech", due=timezone.now())
    assert send_reminders(base_url="https://dama.example") == 1
    assert "opakování" in mail.outbox[0].subject.lower()


def test_nothing_due_sends_no_reminder(student, gain, settings):
    from review.reminders import send_reminders

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    ReminderSetting.objects.create(user=student, daily_email=True)
    Card.objects.create(
        user=student, puzzle=gain, variant="czech", due=timezone.now() + timedelta(days=1)
    )
    assert send_reminders(base_url="https://dama.example") == 0


def test_reminders_need_an_account(client):
    response = client.post("/review/reminders", {"daily_email": "on"})
    assert response.status_code == 302 and "/accounts/login" in response["Location"]


# -- the navigation's count ---------------------------------------------------------------------------


def review_queries(queries) -> int:
    return sum("review_card" in q["sql"] for q in queries.captured_queries)


def test_the_navigation_count_is_one_query_then_kept_until_a_card_changes(client, student, gain):
    client.force_login(student)
    Card.objects.create(user=student, puzzle=gain, variant="czech", due=timezone.now())
    with CaptureQueriesContext(connection) as first:
        html = client.get("/learn/czech/").content.decode()
    assert review_queries(first) == 1
    assert re.search(r'class="nav-count"><span class="sr-only">\(due: </span>1<', html)
    with CaptureQueriesContext(connection) as second:
        client.get("/learn/czech/")
    assert review_queries(second) == 0
    # a card made by the trainer counts at once
    fail_gain(client, make_puzzle("czech_capture", fen="W:W14,17,21,28,30,32:B1,5,8,11,16,23,24"))
    html = client.get("/learn/czech/").content.decode()
    assert "</span>1<" in html  # not due before tomorrow: still one


def test_a_visitor_without_cards_costs_no_query_and_sees_no_count(client):
    with CaptureQueriesContext(connection) as queries:
        html = client.get("/learn/czech/").content.decode()
    assert review_queries(queries) == 0
    assert 'data-testid="review-link"' in html and "nav-count" not in html


def test_the_review_pages_speak_czech(client, student, gain):
    client.force_login(student)
    client.post("/language", {"language": "cs", "next": "/"})
    card = Card.objects.create(
        user=student, puzzle=gain, variant="czech", due=timezone.now(), last_missed=timezone.now()
    )
    age(card, 3.01)
    html = client.get("/review/").content.decode()
    assert '>Opakování <span class="nav-count">' in html
    assert "Tuhle úlohu se ti před 3 dny nepodařilo vyřešit." in html
    html = client.get("/review/czech/").content.decode()
    assert "Čeká 1 karta." in html and "Vyřešit" in html


@pytest.mark.parametrize("pk", ["99999999999999999999", "0"])
def test_a_class_that_does_not_exist_is_404_not_500(client, teacher, pk):
    client.force_login(teacher)
    assert client.post(f"/review/class/{pk}/add-set", {"puzzle_set": "1"}).status_code == 404


def test_the_reminder_is_a_daily_job_of_the_beat_schedule(student, gain, settings):
    from dama_learn.celery import app
    from review.tasks import send_review_reminders

    entries = [
        e for e in app.conf.beat_schedule.values() if e["task"] == send_review_reminders.name
    ]
    assert len(entries) == 1 and entries[0]["schedule"].hour == {16}
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    ReminderSetting.objects.create(user=student, daily_email=True)
    Card.objects.create(user=student, puzzle=gain, variant="czech", due=timezone.now())
    assert send_review_reminders.apply().get() == 1
    assert send_review_reminders.apply().get() == 0
    assert len(mail.outbox) == 1
