"""The square trainer (docs/squares.md): every board and notation, from both sides, in both
modes; the server's clock (a fake one here); the best scores; bad input; the lessons' links."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from core.board import square_label
from squares import clock
from squares.models import RUN_SECONDS, SquareRun
from squares.trainee import Trainee

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
#: every board, notation, side and mode the trainer has
SETTINGS = [
    (variant, notation, side, mode)
    for variant, notations in (
        ("czech", ("numbers", "names")),
        ("brazilian", ("numbers", "names")),
        ("international", ("numbers",)),
    )
    for notation in notations
    for side in ("white", "black")
    for mode in ("find", "name")
]


class FakeClock:
    def __init__(self):
        self.at = timezone.now()

    def __call__(self):
        return self.at

    def tick(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


@pytest.fixture
def fake_clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(clock, "now", fake)
    return fake


def start(client, variant="czech", notation="numbers", side="white", mode="find") -> SquareRun:
    response = client.post(
        reverse("squares:start", args=[variant]),
        {"notation": notation, "side": side, "mode": mode},
    )
    assert response.status_code == 302, response.content.decode()[:400]
    pk = int(re.search(r"/squares/run/(\d+)/", response.url).group(1))
    return SquareRun.objects.get(pk=pk)


def right_answer(run: SquareRun) -> dict[str, str]:
    if run.mode == "find":
        return {"asked": str(run.asked), "route": str(run.square)}
    label = square_label(run.variant, run.square, algebraic=run.notation == "names")
    return {"asked": str(run.asked), "answer": label}


def wrong_answer(run: SquareRun) -> dict[str, str]:
    other = 1 if run.square != 1 else 2
    if run.mode == "find":
        return {"asked": str(run.asked), "route": str(other)}
    label = square_label(run.variant, other, algebraic=run.notation == "names")
    return {"asked": str(run.asked), "answer": label}


def answer(client, run: SquareRun, data: dict[str, str], **extra):
    return client.post(reverse("squares:answer", args=[run.pk]), data, **extra)


@pytest.mark.parametrize(("variant", "notation", "side", "mode"), SETTINGS)
def test_a_run_counts_right_answers_and_misses_on_every_board_notation_side_and_mode(
    client, fake_clock, variant, notation, side, mode
):
    run = start(client, variant, notation, side, mode)
    page = client.get(reverse("squares:run", args=[run.pk])).content.decode()
    # the board is seen from the side asked for, with no square's name or number written on it
    assert f'data-flipped="{"1" if side == "black" else "0"}"' in page
    assert 'class="coords"' not in page and 'font-size="9.5"' not in page
    for _ in range(3):
        run.refresh_from_db()
        response = answer(client, run, right_answer(run), **HTMX)
        assert response.status_code == 200
        assert "Right:" in response.content.decode()
    run.refresh_from_db()
    response = answer(client, run, wrong_answer(run), **HTMX)
    assert "Not that one" in response.content.decode()
    run.refresh_from_db()
    assert (run.score, run.misses, run.asked) == (3, 1, 5)


@pytest.mark.parametrize(
    ("variant", "square", "white", "black"),
    [
        ("czech", 29, "column 1 from the left, row 1 from the bottom", "column 8 from the left, row 8 from the bottom"),
        ("czech", 4, "column 8 from the left, row 8 from the bottom", "column 1 from the left, row 1 from the bottom"),
        ("international", 46, "column 1 from the left, row 1 from the bottom", "column 10 from the left, row 10 from the bottom"),
        ("international", 1, "column 2 from the left, row 10 from the bottom", "column 9 from the left, row 1 from the bottom"),
    ],
)  # fmt: skip
def test_the_keyboard_cursor_says_where_a_square_stands_from_each_side(
    client, variant, square, white, black
):
    for side, words in (("white", white), ("black", black)):
        run = start(client, variant, "numbers", side, "find")
        page = client.get(reverse("squares:run", args=[run.pk])).content.decode()
        found = re.search(r'data-square-words="([^"]+)"', page).group(1)
        table = json.loads(found.replace("&quot;", '"'))
        assert table[str(square)] == words
        # and it never says the square's number or name
        assert not any(re.search(r"\b[a-j]\d\b", text) for text in table.values())


def test_name_mode_asks_where_the_marked_square_stands_from_the_side_shown(client):
    run = start(client, "czech", "names", "black", "name")
    SquareRun.objects.filter(pk=run.pk).update(square=29)  # a1
    page = client.get(reverse("squares:run", args=[run.pk])).content.decode()
    assert (
        "Write the name of the marked square (column 8 from the left, row 8 from the bottom)"
        in page
    )
    run.refresh_from_db()
    assert answer(client, run, {"asked": "1", "answer": "A1"}, **HTMX).status_code == 200
    run.refresh_from_db()
    assert run.score == 1


def test_find_mode_names_the_square_in_the_runs_notation(client):
    run = start(client, "brazilian", "names", "white", "find")
    SquareRun.objects.filter(pk=run.pk).update(square=22)
    page = client.get(reverse("squares:run", args=[run.pk])).content.decode()
    assert "Click the square c3." in page
    run = start(client, "international", "numbers", "black", "find")
    SquareRun.objects.filter(pk=run.pk).update(square=46)
    page = client.get(reverse("squares:run", args=[run.pk])).content.decode()
    assert "Click square number 46." in page


def test_the_server_keeps_the_time_a_reload_does_not_reset_it(client, fake_clock):
    run = start(client)
    fake_clock.tick(10)
    page = client.get(reverse("squares:run", args=[run.pk])).content.decode()
    assert f'data-remaining-ms="{(RUN_SECONDS - 10) * 1000}"' in page
    fake_clock.tick(RUN_SECONDS - 10 - 0.5)  # half a second left: still counts
    run.refresh_from_db()
    assert answer(client, run, right_answer(run), **HTMX).status_code == 200
    fake_clock.tick(0.5)  # the deadline: nothing counts any more
    run.refresh_from_db()
    response = answer(client, run, right_answer(run), **HTMX)
    assert response.status_code == 200
    assert 'data-testid="squares-result"' in response.content.decode()
    run.refresh_from_db()
    assert (run.score, run.asked) == (1, 2)
    page = client.get(reverse("squares:run", args=[run.pk])).content.decode()
    assert "Time is up" in page and "You got 1 square right." in page
    # once the time is up, any input just shows the score
    assert answer(client, run, {"asked": "2", "route": "x"}, **HTMX).status_code == 200
    # and "Another run" starts one with the same settings, its clock from now
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="(\w+)">', page))
    fields.pop("csrfmiddlewaretoken", None)
    assert fields == {"notation": "numbers", "side": "white", "mode": "find"}
    again = start(client, "czech", **fields)
    assert again.pk != run.pk and again.started_at == fake_clock.at


def test_best_scores_per_board_notation_side_and_mode(client, fake_clock):
    def run_with(score: int, **settings) -> SquareRun:
        run = start(client, **settings)
        for _ in range(score):
            run.refresh_from_db()
            answer(client, run, right_answer(run), **HTMX)
        return run

    run_with(2)
    run_with(4)
    run_with(3, side="black")
    run_with(1, notation="names", mode="name")
    fake_clock.tick(RUN_SECONDS)
    run_with(7)  # still running: not a best yet
    bests = SquareRun.objects.bests(Trainee(None, client.session), "czech")
    assert bests == {
        ("numbers", "white", "find"): 4,
        ("numbers", "black", "find"): 3,
        ("names", "white", "name"): 1,
    }
    page = client.get(reverse("squares:trainer", args=["czech"])).content.decode()
    table = page[page.index('data-testid="squares-bests"') :]
    assert re.search(r"<td>numbers</td><td>from White&#x27;s side</td><td>4</td><td>–</td>", table)
    assert re.search(r"<td>numbers</td><td>from Black&#x27;s side</td><td>3</td><td>–</td>", table)
    # another board has its own
    assert SquareRun.objects.bests(Trainee(None, client.session), "brazilian") == {}


def test_a_visitors_runs_and_best_scores_become_the_accounts_at_log_in(client, student, fake_clock):
    run = start(client)
    answer(client, run, right_answer(run), **HTMX)
    fake_clock.tick(RUN_SECONDS)
    client.force_login(student)
    run.refresh_from_db()
    assert run.user == student and run.visitor == ""
    assert SquareRun.objects.bests(Trainee(student, client.session), "czech") == {
        ("numbers", "white", "find"): 1
    }


def test_a_run_is_its_trainees_only(client, student):
    run = start(client)
    other = type(client)()
    assert other.get(reverse("squares:run", args=[run.pk])).status_code == 404
    assert answer(other, run, right_answer(run)).status_code == 404
    other.force_login(student)
    assert other.get(reverse("squares:run", args=[run.pk])).status_code == 404


def test_a_second_tab_answering_the_same_question_gets_409_and_counts_nothing(client):
    run = start(client)
    first = right_answer(run)
    assert answer(client, run, first, **HTMX).status_code == 200
    response = answer(client, run, first, **HTMX)
    assert response.status_code == 409
    run.refresh_from_db()
    assert (run.score, run.asked) == (1, 2)


@pytest.mark.parametrize(
    ("run_settings", "data"),
    [
        (("czech", "names", "white", "name"), {"answer": "22"}),  # a number where a name is asked
        (("czech", "numbers", "white", "name"), {"answer": "c3"}),  # and the other way round
        (("czech", "numbers", "white", "name"), {"answer": "33"}),
        (("international", "numbers", "black", "name"), {"answer": "51"}),
        (("czech", "names", "black", "name"), {"answer": "a2"}),  # a light square
        (("czech", "numbers", "white", "name"), {"answer": "١٢"}),
        (("czech", "numbers", "white", "name"), {"answer": "x" * 5000}),
        (("czech", "numbers", "white", "find"), {}),  # no square clicked
        (("czech", "numbers", "white", "find"), {"route": "33"}),
        (("czech", "numbers", "white", "find"), {"route": "1,2"}),
        (("czech", "numbers", "white", "find"), {"route": "-1"}),
    ],
)
def test_input_that_gives_no_square_is_refused_with_400_and_changes_nothing(
    client, run_settings, data
):
    variant, notation, side, mode = run_settings
    run = start(client, variant, notation, side, mode)
    response = answer(client, run, {"asked": "1", **data}, **HTMX)
    assert response.status_code == 400
    assert 'class="board-status error"' in response.content.decode()
    run.refresh_from_db()
    assert (run.score, run.misses, run.asked) == (0, 0, 1)


@pytest.mark.parametrize("asked", ["", "x", "0", "-3", str(2**70)])
def test_a_missing_or_bad_question_number_is_400(client, asked):
    run = start(client)
    assert answer(client, run, {"asked": asked, "route": "1"}).status_code == 400


@pytest.mark.parametrize(
    "data",
    [
        {"notation": "names", "side": "white", "mode": "find"},  # no names on 10x10
        {"notation": "numbers", "side": "grey", "mode": "find"},
        {"notation": "numbers", "side": "white", "mode": ""},
        {},
    ],
)
def test_bad_settings_are_refused_with_400(client, data):
    response = client.post(reverse("squares:start", args=["international"]), data)
    assert response.status_code == 400
    assert SquareRun.objects.count() == 0


def test_an_unknown_board_is_404(client):
    assert client.get("/squares/chess/").status_code == 404
    assert client.post("/squares/chess/start", {}).status_code == 404


@pytest.mark.parametrize(
    ("course", "step", "variant", "notation"),
    [
        ("czech", "cz-square-names-letters", "czech", "names"),
        ("czech", "cz-square-numbers", "czech", "numbers"),
        ("brazilian", "br-square-names", "brazilian", "names"),
        ("brazilian", "br-square-numbers", "brazilian", "numbers"),
        ("international", "int-square-numbers", "international", "numbers"),
    ],
)
def test_the_rules_courses_link_to_the_trainer_where_the_squares_are_taught(
    client, course, step, variant, notation
):
    from lessons.course import get_course

    found = next(s for s in get_course(course).steps if s.slug == step)
    page = client.get(found.get_absolute_url()).content.decode()
    link = f"/squares/{variant}/?notation={notation}"
    assert link in page
    trainer = client.get(link).content.decode()
    assert re.search(rf'value="{notation}"[^>]*checked', trainer)
    # the course map links to it too, and other steps do not
    assert "/squares/" in client.get(get_course(course).get_absolute_url()).content.decode()
    other = get_course(course).steps[0]
    assert "square-trainer-link" not in client.get(other.get_absolute_url()).content.decode()


def test_the_learn_page_links_to_the_trainer(client):
    page = client.get(reverse("lessons:index")).content.decode()
    assert reverse("squares:index") in page
    assert client.get(reverse("squares:index")).status_code == 302
