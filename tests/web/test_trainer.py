"""The puzzle trainer on the web side: the stream, the solve page and its htmx partial, moves judged
against the proof tree, wrong moves explained, hint / solution / retry, no solution in the page,
the dashboard, sets, and a visitor's attempts moving to the account at login."""

from __future__ import annotations

import gc
import re

import pytest
from django.test import Client
from django.urls import reverse

from puzzles import engine, stream
from puzzles.models import Attempt, PlayerRating, Puzzle, RatingHistory
from puzzles.player import Player
from puzzles.stream import owned_attempt
from puzzles.trainer import Accepted, Conflict, Outcome, build_judge, forget_judges
from tests.conftest import PASSWORD
from tests.puzzle_fixtures import PUZZLES, make_puzzle

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def gain():
    return make_puzzle("czech_gain")


@pytest.fixture
def capture():
    return make_puzzle("czech_capture")


def open_puzzle(client, puzzle: Puzzle, query: str = "") -> tuple[int, str]:
    response = client.get(f"/puzzles/{puzzle.variant}/{puzzle.pk}/{query}")
    assert response.status_code == 200
    html = response.content.decode()
    attempt = int(re.search(r'data-attempt="(\d+)"', html).group(1))
    return attempt, html


def move(client, attempt: int, *, route: str = "", text: str = "", htmx: bool = True):
    extra = HX if htmx else {}
    return client.post(f"/puzzles/attempt/{attempt}/move", {"route": route, "move": text}, **extra)


def without_svg(html: str) -> str:
    return re.sub(r"<svg.*?</svg>", "", html, flags=re.S)


# -- what a process keeps --------------------------------------------------------------------------


def test_a_judge_and_the_pools_rows_leave_the_collector_nothing_to_walk(gain, capture):
    """A process keeps the judges of the puzzles played and the pool's rows as long as it runs:
    their rows are plain tuples of strings and numbers, which the garbage collector stops
    tracking after a few collections (a named tuple or a frozenset it would walk at every full
    collection); the judge still answers with :class:`Accepted` moves and refutations."""
    first = gain.proof["solution"][0]
    proof = {**gain.proof, "refutations": {"": {"1-5": {"reply": "9-14", "notation": "9-14"}}}}
    judge = build_judge(proof)
    rows = stream.pool_rows("czech")
    for _ in range(5):  # a tuple is let go once the tuples in it are (five levels deep here)
        gc.collect()
    assert judge.points and judge.refutations and rows
    tables = [*judge.points.values(), *judge.refutations.values(), judge.solution, *rows]
    tables += [judge.defences, *judge.defence_replies.values()]  # every-defence mastery's
    assert [row for row in tables if gc.is_tracked(row)] == []
    point = judge.at([])
    accepted = judge.find([], point.accepted[0].key)
    assert isinstance(accepted, Accepted) and isinstance(accepted.key[2], frozenset)
    assert first in {move.move for move in point.accepted}
    assert judge.refutation([], "1-5") == {"reply": "9-14", "notation": "9-14", "captured": 0}


# -- the page ---------------------------------------------------------------------------------------


def test_puzzle_page_states_the_side_to_move_and_the_goal_in_words(client, gain, capture):
    _attempt, html = open_puzzle(client, gain)
    assert "White to play and win one piece within 2 moves." in html
    assert 'data-mode="lesson"' in html and 'data-turn="w"' in html
    _attempt, html = open_puzzle(client, capture)
    assert "White to play: find the forced multi-jump." in html


def test_black_to_move_puzzle_says_black(client):
    puzzle = make_puzzle("brazilian_capture")
    _attempt, html = open_puzzle(client, puzzle)
    assert "Black to play: find the forced multi-jump." in html


@pytest.mark.parametrize("name", list(PUZZLES))
def test_page_of_an_unsolved_puzzle_contains_no_move_of_its_solution(client, name):
    puzzle = make_puzzle(name)
    _attempt, html = open_puzzle(client, puzzle)
    text = without_svg(html)
    solution = puzzle.proof["solution"]
    short = engine.line_texts(puzzle.variant, puzzle.fen, solution)
    for move_text in [*solution, *short]:
        assert move_text not in text, move_text
    # no legal-move list, no proof, no route as data either
    assert "data-moves" not in html
    assert '"replies"' not in html and "routes" not in html
    first = puzzle.proof["proof"][0]
    assert "[" + ",".join(map(str, [first["start"], first["end"]])) not in html


def test_only_unique_verified_puzzles_are_served(client, gain):
    Puzzle.objects.filter(pk=gain.pk).update(verdict="cooked")
    assert client.get(f"/puzzles/czech/{gain.pk}/").status_code == 404
    response = client.get("/puzzles/czech/")
    assert response.status_code == 200
    assert 'data-testid="trainer-empty"' in response.content.decode()


def test_puzzle_of_another_variant_is_a_404(client, gain):
    assert client.get(f"/puzzles/international/{gain.pk}/").status_code == 404


def test_reloading_the_page_resumes_the_same_attempt(client, gain):
    first, _html = open_puzzle(client, gain)
    move(client, first, text="22-17")
    again, html = open_puzzle(client, gain)
    assert again == first
    assert "last move 13x22" in html


# -- moves ------------------------------------------------------------------------------------------


def test_right_move_is_answered_with_the_defenders_reply_in_the_partial(client, gain):
    attempt, _html = open_puzzle(client, gain)
    response = move(client, attempt, route="22,17")
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="trainer"')  # the partial only
    assert "<html" not in html
    assert "Right! Black answers 13x22. Your move." in html
    assert 'data-animate="13,22"' in html
    row = Attempt.objects.get(pk=attempt)
    assert row.line == ["22-17", "13x22"]
    assert row.moves[0]["text"] == "22-17" and row.moves[0]["ok"] is True
    assert isinstance(row.moves[0]["ms"], int)


def test_solving_by_typed_notation_finishes_and_rates_the_attempt(client, django_user_model, gain):
    django_user_model.objects.create_user("petr", "p@example.com", PASSWORD)
    client.login(username="petr", password=PASSWORD)
    attempt, _html = open_puzzle(client, gain)
    move(client, attempt, text="22-17")
    response = move(client, attempt, text="25x18x11")
    html = response.content.decode()
    assert 'data-testid="solved"' in html and "Solved!" in html
    assert 'data-state="solved"' in html
    row = Attempt.objects.get(pk=attempt)
    assert row.solved and not row.failed and row.rated and row.finished_at is not None
    assert row.seconds == round((row.finished_at - row.started_at).total_seconds(), 3) > 0
    rating = PlayerRating.objects.get(user__username="petr", variant="czech")
    assert rating.rating > 1500 and rating.games == 1
    assert RatingHistory.objects.filter(user__username="petr").count() == 1
    assert gain.rating.rating < 1500  # the puzzle lost its game
    # now the solution is in the page, as a replay
    assert "1. 22-17 13x22 2. 25x11" in html
    assert html.count('data-frame="') == 4


def test_any_equivalent_route_is_accepted(client):
    puzzle = make_puzzle("czech_capture")
    attempt, _html = open_puzzle(client, puzzle)
    response = move(client, attempt, text="28x3")
    assert "Solved!" in response.content.decode()


def test_multi_jump_clicked_landing_by_landing_goes_on_then_solves(client, capture):
    attempt, _html = open_puzzle(client, capture)
    response = move(client, attempt, route="28,19")
    html = response.content.decode()
    assert response.status_code == 200
    assert 'data-path="28,19"' in html
    assert "The capture goes on" in html
    assert Attempt.objects.get(pk=attempt).moves == []  # nothing judged yet
    move(client, attempt, route="28,19,12")
    response = move(client, attempt, route="28,19,12,3")
    assert "Solved!" in response.content.decode()


def state(pk: int) -> tuple:
    """What an attempt's row says about its result (and how often it was written)."""
    row = Attempt.objects.get(pk=pk)
    return row.moves, row.line, row.failed, row.solved, row.rated, row.finished_at, row.version


@pytest.mark.parametrize(
    "entered",
    [{"text": "21-18"}, {"route": "17,13"}],  # typed, clicked: a quiet move when a capture is due
    ids=["typed", "clicked"],
)
def test_an_illegal_move_is_refused_with_its_rule_and_the_attempt_goes_on_unrated(
    client, student, capture, entered
):
    client.force_login(student)
    attempt, _html = open_puzzle(client, capture)
    before = state(attempt)
    response = move(client, attempt, **entered)
    html = response.content.decode()
    assert response.status_code == 400  # refused: nothing written
    assert "That move is not allowed." in html
    assert "CUD 2006" in html  # the rule's article
    assert "An illegal move is not counted as a mistake: try another move." in html
    assert 'data-state="playing"' in html
    assert 'data-testid="retry"' not in html and 'data-testid="rating-change"' not in html
    assert state(attempt) == before  # no mistake counted, not failed, not rated
    assert not PlayerRating.objects.filter(user=student).exists()
    # the player goes on from the same position, and a solve is a clean one
    html = move(client, attempt, text="28x3").content.decode()
    assert "Solved!" in html and "after a mistake" not in html
    row = Attempt.objects.get(pk=attempt)
    assert row.solved and not row.failed and row.rated and row.score == 1.0
    assert [m["ok"] for m in row.moves] == [True]
    change = PlayerRating.objects.get(user=student, variant="czech").rating - 1500
    assert change > 0
    assert f"Rating +{round(change)}" in html


def test_an_illegal_move_in_a_plain_form_post_is_refused_with_the_whole_page(client, capture):
    attempt, _html = open_puzzle(client, capture)
    before = state(attempt)
    response = move(client, attempt, text="21-18", htmx=False)
    assert response.status_code == 400
    html = response.content.decode()
    assert "<html" in html and "That move is not allowed." in html
    assert state(attempt) == before


def test_an_illegal_move_leaves_a_visitors_rating_alone(client, capture):
    attempt, _html = open_puzzle(client, capture)
    move(client, attempt, text="21-18")
    assert "ratings" not in client.session.get("puzzles", {})
    html = move(client, attempt, text="28x3").content.decode()
    assert "Solved!" in html and re.search(r"Rating \+\d+", html)


def test_legal_but_wrong_move_shows_the_refutation_on_a_board(client, gain):
    attempt, _html = open_puzzle(client, gain)
    response = move(client, attempt, text="21-17")
    html = response.content.decode()
    assert "Not the solution." in html
    assert "21-17 is legal but does not win: this lets Black play" in html
    assert 'data-testid="refutation"' in html
    row = Attempt.objects.get(pk=attempt)
    assert row.failed and row.line == []  # the board stays before the wrong move
    # the wrong move does not give the solution away
    assert "25x11" not in without_svg(html) and "22-17" not in without_svg(html)


def test_unreadable_input_is_a_400_that_does_not_count(client, student, gain):
    client.force_login(student)
    attempt, _html = open_puzzle(client, gain)
    before = state(attempt)
    for text in ("hello", "22-"):
        response = move(client, attempt, text=text)
        assert response.status_code == 400
        assert "is not a move" in response.content.decode()
        assert 'data-testid="rating-change"' not in response.content.decode()
    assert state(attempt) == before
    assert not PlayerRating.objects.filter(user=student).exists()
    move(client, attempt, text="22-17")
    assert "Solved!" in move(client, attempt, text="25x11").content.decode()
    row = Attempt.objects.get(pk=attempt)
    assert row.solved and not row.failed and row.score == 1.0


def test_a_legal_wrong_move_fails_the_attempt_and_rates_it_with_a_signed_change(
    client, student, gain
):
    client.force_login(student)
    attempt, _html = open_puzzle(client, gain)
    response = move(client, attempt, text="21-17")
    html = response.content.decode()
    assert response.status_code == 200
    row = Attempt.objects.get(pk=attempt)
    assert row.failed and row.rated and not row.is_finished and row.score == 0.0
    assert [m["ok"] for m in row.moves] == [False]
    change = PlayerRating.objects.get(user=student, variant="czech").rating - 1500
    assert change < 0
    assert f"Rating -{round(-change)}" in html
    assert 'data-testid="retry"' in html
    # a solve after it is "after a mistake", and not rated again
    move(client, attempt, text="22-17")
    html = move(client, attempt, text="25x11").content.decode()
    assert "Solved, after a mistake." in html and 'data-testid="rating-change"' not in html
    assert PlayerRating.objects.get(user=student, variant="czech").games == 1


def test_a_rating_change_is_shown_with_its_sign():
    from puzzles.templatetags.puzzle_ratings import signed

    changes = (11.6, 1.0, 0.4, -0.4, -9.2, -12.6, None)
    assert [signed(x) for x in changes] == ["+12", "+1", "±0", "±0", "-9", "-13", ""]


def test_a_plain_form_post_gets_the_whole_page(client, gain):
    attempt, _html = open_puzzle(client, gain)
    response = move(client, attempt, text="22-17", htmx=False)
    assert response.status_code == 200
    assert "<html" in response.content.decode()


def test_someone_elses_attempt_is_a_404(client, gain, outsider):
    attempt, _html = open_puzzle(client, gain)
    client.logout()
    other = type(client)()
    assert move(other, attempt, text="22-17").status_code == 404
    other.login(username=outsider.username, password=PASSWORD)
    assert move(other, attempt, text="22-17").status_code == 404


def test_finished_attempt_refuses_more_moves(client, capture):
    attempt, _html = open_puzzle(client, capture)
    move(client, attempt, text="28x3")
    response = move(client, attempt, text="28x3")
    assert response.status_code == 400
    assert "This puzzle is finished" in response.content.decode()


# -- hint, solution, retry --------------------------------------------------------------------------


def test_hint_highlights_the_piece_to_move_and_halves_the_score(client, student, gain):
    client.login(username=student.username, password=PASSWORD)
    attempt, _html = open_puzzle(client, gain)
    response = client.post(f"/puzzles/attempt/{attempt}/hint", **HX)
    html = response.content.decode()
    assert "Hint: the highlighted piece moves first." in html
    assert "22-17" not in without_svg(html)
    assert Attempt.objects.get(pk=attempt).hints == 1
    move(client, attempt, text="22-17")
    move(client, attempt, text="25x11")
    assert Attempt.objects.get(pk=attempt).score == 0.5


def test_show_solution_finishes_as_a_failure_with_the_replay(client, gain):
    attempt, _html = open_puzzle(client, gain)
    response = client.post(f"/puzzles/attempt/{attempt}/solution", **HX)
    html = response.content.decode()
    assert 'data-testid="replay"' in html
    assert "1. 22-17 13x22 2. 25x11" in html
    row = Attempt.objects.get(pk=attempt)
    assert row.solution_shown and row.failed and not row.solved and row.finished_at


def test_retry_resets_an_open_attempt_and_starts_an_unrated_replay_after_the_end(
    client, student, gain
):
    client.login(username=student.username, password=PASSWORD)
    attempt, _html = open_puzzle(client, gain)
    move(client, attempt, text="22-17")
    move(client, attempt, text="21-17")  # wrong
    response = client.post(f"/puzzles/attempt/{attempt}/retry", **HX)
    assert "Back to the start position." in response.content.decode()
    assert Attempt.objects.get(pk=attempt).line == []
    client.post(f"/puzzles/attempt/{attempt}/solution", **HX)
    response = client.post(f"/puzzles/attempt/{attempt}/retry", **HX)
    new = int(re.search(r'data-attempt="(\d+)"', response.content.decode()).group(1))
    assert new != attempt
    assert Attempt.objects.get(pk=new).source == "replay"
    move(client, new, text="22-17")
    move(client, new, text="25x11")
    row = Attempt.objects.get(pk=new)
    assert row.solved and not row.rated  # only the first attempt is rated
    assert PlayerRating.objects.get(user=student, variant="czech").games == 1


# -- the stream -------------------------------------------------------------------------------------


def test_stream_redirects_to_a_puzzle_of_the_variant(client, gain):
    make_puzzle("international_capture")
    response = client.get("/puzzles/czech/")
    assert response.status_code == 302
    assert response["Location"] == f"/puzzles/czech/{gain.pk}/"


def test_stream_never_repeats_a_solved_puzzle_until_the_pool_runs_out(client, student):
    client.login(username=student.username, password=PASSWORD)
    pool = {make_puzzle(name).pk for name in ("czech_capture", "czech_gain")} | {
        make_puzzle(name, fen=fen, motifs=["capture:1"]).pk
        for name, fen in (
            ("czech_capture", "W:W22:B18"),
            ("czech_capture", "W:W21:B17"),
            ("czech_capture", "W:W30:B26"),
        )
    }
    seen = []
    for _ in range(len(pool)):
        response = client.get("/puzzles/czech/")
        pk = int(re.search(r"/puzzles/czech/(\d+)/", response["Location"]).group(1))
        seen.append(pk)
        attempt, _html = open_puzzle(client, Puzzle.objects.get(pk=pk))
        client.post(f"/puzzles/attempt/{attempt}/solution", **HX)  # finished either way
    assert sorted(seen) == sorted(pool)
    # the pool ran out: the stream starts again rather than stopping
    assert client.get("/puzzles/czech/").status_code == 302


def test_stream_chooses_puzzles_near_the_players_rating(rf, student):
    easy = make_puzzle("czech_capture", difficulty=900)
    hard = make_puzzle("czech_gain", difficulty=2300)
    PlayerRating.objects.create(user=student, variant="czech", rating=2250, deviation=60)
    player = Player(student, {})
    stream.NEAREST, old = 1, stream.NEAREST
    try:
        assert stream.next_puzzle(player, "czech").pk == hard.pk
        PlayerRating.objects.filter(user=student).update(rating=950)
        assert stream.next_puzzle(player, "czech").pk == easy.pk
    finally:
        stream.NEAREST = old


def _pool_reads(queries) -> int:
    # the rows of the pool: ids, goals, motifs, difficulties and the puzzles' ratings
    return sum('AS "pk"' in q["sql"] and "puzzles_puzzlerating" in q["sql"] for q in queries)


def test_the_stream_keeps_the_pool_a_while_and_reads_it_again_after_a_save(client, gain):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    stream.forget_pool()
    with CaptureQueriesContext(connection) as first:
        client.get("/puzzles/czech/")
    with CaptureQueriesContext(connection) as second:
        client.get("/puzzles/czech/")
        client.get(f"/puzzles/czech/{gain.pk}/")  # the page's motif filter reads the same rows
    assert _pool_reads(first.captured_queries) == 1
    assert _pool_reads(second.captured_queries) == 0
    capture = make_puzzle("czech_capture")  # saved in this process: the rows are read again
    with CaptureQueriesContext(connection) as third:
        response = client.get("/puzzles/czech/?goal=capture")
    assert _pool_reads(third.captured_queries) == 1
    assert response["Location"] == f"/puzzles/czech/{capture.pk}/?goal=capture"


def test_the_kept_pool_expires(client, gain, monkeypatch):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    monkeypatch.setattr(stream._pool, "seconds", 0.0)
    with CaptureQueriesContext(connection) as queries:
        client.get("/puzzles/czech/")
        client.get("/puzzles/czech/")
    assert _pool_reads(queries.captured_queries) == 2


def test_a_proof_marked_incomplete_leaves_the_pool_however_it_is_written(client, gain):
    """``Puzzle.proof_complete`` is kept by the database from the proof: a verdict written with
    ``update()``, as the worker writes it, takes the puzzle out of the stream as a save does; a
    proof without the key counts as complete."""
    capture = make_puzzle("czech_capture")
    proof = {k: v for k, v in gain.proof.items() if k != "proof_complete"}

    def pool() -> set[int]:
        stream.forget_pool()  # no signal for update(): as if another process had written it
        return {row[0] for row in stream.pool_rows("czech")}

    Puzzle.objects.filter(pk=gain.pk).update(proof={**proof, "proof_complete": False})
    assert Puzzle.objects.get(pk=gain.pk).proof_complete is False
    assert gain.pk not in pool() and capture.pk in pool()
    for _ in range(6):
        assert client.get("/puzzles/czech/")["Location"] == f"/puzzles/czech/{capture.pk}/"
    Puzzle.objects.filter(pk=gain.pk).update(proof=proof)
    assert Puzzle.objects.get(pk=gain.pk).proof_complete is True
    assert gain.pk in pool()
    Puzzle.objects.filter(pk=gain.pk).update(proof={**proof, "proof_complete": True})
    assert gain.pk in pool()


def test_a_puzzle_read_by_its_id_is_not_ordered_by_the_pools_index(client, gain):
    """A lookup by id carries no ORDER BY of the model's ordering (variant, difficulty, id): with
    it, PostgreSQL may walk the (variant, verdict, difficulty) index over the whole variant to
    find one row instead of reading the primary key."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    stream.forget_pool()
    with CaptureQueriesContext(connection) as queries:
        location = client.get("/puzzles/czech/")["Location"]
        attempt = int(re.search(r'data-attempt="(\d+)"', client.get(location).content.decode())[1])
        move(client, attempt, text="22-17")
    by_id = [
        q["sql"]
        for q in queries.captured_queries
        if 'FROM "puzzles_puzzle"' in q["sql"]
        and re.search(r'"puzzles_puzzle"."id" = \d', q["sql"])
    ]
    assert len(by_id) >= 3  # the stream's check, the served puzzle and, at the move, its proof
    assert not [sql for sql in by_id if '"difficulty" ASC' in sql.split("ORDER BY")[-1]]


def test_a_puzzle_that_left_the_pool_elsewhere_is_not_served_from_the_kept_rows(client, gain):
    capture = make_puzzle("czech_capture")
    client.get("/puzzles/czech/")  # the rows of both are kept
    # another process (a worker's re-proof, staff) takes it out of the pool: no signal here
    Puzzle.objects.filter(pk=gain.pk).update(proof=None)
    for _ in range(12):
        response = client.get("/puzzles/czech/")
        assert response["Location"] == f"/puzzles/czech/{capture.pk}/"


def test_stream_filters_by_goal_and_motif(client, gain, capture):
    response = client.get("/puzzles/czech/?goal=capture")
    assert response["Location"] == f"/puzzles/czech/{capture.pk}/?goal=capture"
    response = client.get("/puzzles/czech/?motif=sacrifice")
    assert response["Location"] == f"/puzzles/czech/{gain.pk}/?motif=sacrifice"
    response = client.get("/puzzles/czech/?motif=crowning")
    assert 'data-testid="trainer-empty"' in response.content.decode()


def filter_nav(html: str) -> str:
    return html.split('data-testid="puzzle-filters"')[1].split("</nav>")[0]


def test_stream_page_has_a_visible_filter_control_with_real_links(client, gain, capture, teacher):
    make_puzzle("czech_capture", author=teacher)  # the same position, a teacher's own row
    Puzzle.objects.filter(author=teacher).update(motifs=["crowning", "capture:2"])
    page = client.get("/puzzles/czech/", follow=True)
    nav = filter_nav(page.content.decode())
    assert (
        'hx-boost="true"' in page.content.decode().split('data-testid="puzzle-filters"')[0][-300:]
    )
    for goal in ("capture", "gain", "win"):
        assert f'href="/puzzles/czech/?goal={goal}"' in nav
    assert 'href="/puzzles/czech/" class="chip current" data-goal="" aria-current="true"' in nav
    # the motifs of the public pool of the variant (not of a teacher's puzzle)
    assert 'href="/puzzles/czech/?motif=sacrifice"' in nav
    assert 'href="/puzzles/czech/?motif=capture"' in nav and ">multi-jump<" in nav
    assert "crowning" not in nav
    # a filter chosen: marked, and kept by the links of the other filter
    page = client.get("/puzzles/czech/?goal=gain", follow=True)
    assert page.redirect_chain[-1][0] == f"/puzzles/czech/{gain.pk}/?goal=gain"
    nav = filter_nav(page.content.decode())
    assert 'data-goal="gain" aria-current="true"' in nav
    assert 'href="/puzzles/czech/?goal=gain&amp;motif=sacrifice"' in nav
    # nothing matches: the empty page keeps the control to widen the choice
    html = client.get("/puzzles/czech/?goal=win").content.decode()
    assert 'data-testid="trainer-empty"' in html
    assert 'data-goal="win" aria-current="true"' in filter_nav(html)
    # in Czech
    nav = filter_nav(
        client.get("/puzzles/czech/", follow=True, HTTP_ACCEPT_LANGUAGE="cs").content.decode()
    )
    assert "Cíl" in nav and ">zisk materiálu<" in nav and ">oběť<" in nav


def test_a_boosted_filter_link_gets_the_whole_page_and_a_move_the_partial(client, gain):
    response = client.get(
        "/puzzles/czech/?goal=gain", follow=True, HTTP_HX_REQUEST="true", HTTP_HX_BOOSTED="true"
    )
    html = response.content.decode()
    assert "<html" in html and 'data-testid="puzzle-filters"' in html
    attempt = int(re.search(r'data-attempt="(\d+)"', html).group(1))
    partial = move(client, attempt, text="1-5").content.decode()
    assert "<html" not in partial and "puzzle-filters" not in partial


def test_no_filter_control_on_a_daily_puzzle(client, gain):
    html = client.get("/daily/czech/").content.decode()
    assert 'data-attempt="' in html and "puzzle-filters" not in html


def test_set_parameter_is_recorded_on_the_attempt_only_for_a_set_of_the_players_class(
    client, gain, teacher, student
):
    from classroom.models import Assignment, Classroom, PuzzleSet

    attempt, html = open_puzzle(client, gain, "?set=7")  # no such set: ignored
    row = Attempt.objects.get(pk=attempt)
    assert row.source == "stream" and row.set_id is None
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="S", variant="czech")
    puzzle_set.add(gain)
    classroom = Classroom.objects.create(name="C", variant="czech")
    classroom.teachers.add(teacher)
    classroom.add_student(student)
    Assignment.objects.create(puzzle_set=puzzle_set, classroom=classroom)
    client.force_login(student)
    attempt, html = open_puzzle(client, gain, f"?set={puzzle_set.pk}")
    row = Attempt.objects.get(pk=attempt)
    assert row.source == "set" and row.set_id == puzzle_set.pk
    assert f"set={puzzle_set.pk}" in html  # the next puzzle stays in the set


# -- dashboard and hand-over ------------------------------------------------------------------------


def test_dashboard_counts_solved_and_failed_by_motif_and_lists_failures(client, student):
    client.login(username=student.username, password=PASSWORD)
    gain = make_puzzle("czech_gain")
    capture = make_puzzle("czech_capture")
    attempt, _html = open_puzzle(client, capture)
    move(client, attempt, text="28x3")
    attempt, _html = open_puzzle(client, gain)
    move(client, attempt, text="21-17")
    html = client.get("/puzzles/czech/dashboard/").content.decode()
    assert re.search(r'data-testid="tried">2<', html)
    assert re.search(r'data-testid="solved">1<', html)
    assert re.search(r'data-testid="failed">1<', html)
    assert 'data-testid="by-motif"' in html and "sacrifice" in html
    assert 'data-testid="by-difficulty"' in html
    assert f'href="/puzzles/czech/{gain.pk}/?replay=1"' in html
    replay = client.get(f"/puzzles/czech/{gain.pk}/?replay=1")
    new = int(re.search(r'data-attempt="(\d+)"', replay.content.decode()).group(1))
    assert Attempt.objects.get(pk=new).source == "replay"
    assert client.get("/puzzles/dashboard/").status_code == 302


def test_visitor_attempts_and_ratings_move_to_the_account_at_login(client, student, gain, capture):
    attempt, _html = open_puzzle(client, capture)
    move(client, attempt, text="28x3")
    other, _html = open_puzzle(client, gain)
    move(client, other, text="21-17")  # a failure
    assert Attempt.objects.get(pk=attempt).user is None
    client.post("/accounts/login/", {"username": student.username, "password": PASSWORD})
    rows = Attempt.objects.filter(pk__in=[attempt, other])
    assert all(r.user_id == student.pk for r in rows)
    assert all(r.rated for r in rows)
    rating = PlayerRating.objects.get(user=student, variant="czech")
    assert rating.games == 2
    assert RatingHistory.objects.filter(user=student).count() == 2
    # the account goes on with the same attempt
    again, _html = open_puzzle(client, gain)
    assert again == other


def test_a_visitor_writes_the_session_with_the_first_attempt_only(client, gain, capture):
    """A visitor's attempts carry a random token kept in the session (``Player.visitor_token``):
    it is written once, with the first attempt; opening further puzzles writes no session, and
    another visitor, or one who cleared the session, owns none of them."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    first, _html = open_puzzle(client, gain)
    token = client.session["dama_progress"]["puzzles"]["visitor"]
    assert len(token) >= 32 and Attempt.objects.get(pk=first).visitor == token
    with CaptureQueriesContext(connection) as queries:
        second, _html = open_puzzle(client, capture)
    writes = [
        q["sql"] for q in queries.captured_queries if q["sql"].startswith(("INSERT", "UPDATE"))
    ]
    assert not [sql for sql in writes if "django_session" in sql]
    assert client.session["dama_progress"]["puzzles"] == {"visitor": token}
    assert Attempt.objects.get(pk=second).visitor == token
    assert move(client, second, text="28x3").status_code == 200
    other = Client()
    assert move(other, second, text="28x3").status_code == 404
    assert open_puzzle(other, capture)[0] != second  # its own attempt at the same puzzle


def test_a_puzzle_opened_by_its_address_shows_its_variant_and_leaves_the_players(client):
    """The stream is the player's choice of variant and is remembered; a puzzle page reached by
    its address (a shared link) shows its own variant but writes no session for it."""
    puzzle = make_puzzle("brazilian_gain")
    client.get("/?variant=czech")
    _attempt, html = open_puzzle(client, puzzle)
    assert 'data-variant="brazilian" aria-current="true"' in html
    assert client.session["dama_variant"] == "czech"
    client.get("/puzzles/brazilian/")
    assert client.session["dama_variant"] == "brazilian"


def test_a_move_answer_works_out_no_variant_for_the_navigation(client, student, gain):
    """The site's context processor is lazy: an htmx answer renders no navigation, so it reads
    neither the account's profile (its preferred variant) nor reverses the switcher's links."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(student)  # no variant in the session: the profile would say it
    attempt, _html = open_puzzle(client, gain)
    with CaptureQueriesContext(connection) as queries:
        assert move(client, attempt, text="22-17").status_code == 200
    assert not [q for q in queries.captured_queries if "accounts_profile" in q["sql"]]
    assert (
        'data-variant="czech" aria-current="true"' in client.get("/learn/czech/").content.decode()
    )


def test_a_puzzle_page_does_not_read_the_proof_the_first_move_does(client, gain):
    """Whether the puzzle can be served is on its row (verdict, ``proof_complete``); the proof
    itself is read, once per process and revision, when a move is judged."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    forget_judges()

    def proof_reads(queries) -> int:
        read = re.compile(r'"puzzles_puzzle"\."proof"(?! IS NOT NULL)')  # not the row's servable
        return sum(bool(read.search(q["sql"])) for q in queries.captured_queries)

    with CaptureQueriesContext(connection) as page:
        attempt, _html = open_puzzle(client, gain)
    with CaptureQueriesContext(connection) as first_move:
        move(client, attempt, text="22-17")
    assert proof_reads(page) == 0 and proof_reads(first_move) == 1


def test_a_session_from_before_the_visitor_token_hands_its_attempts_over(client, student, gain):
    """Sessions made before the token listed their attempts' ids: logging in still moves those
    attempts to the account."""
    attempt, _html = open_puzzle(client, gain)
    session = client.session
    session["dama_progress"]["puzzles"] = {"attempts": [attempt]}  # as the old code kept it
    session.save()
    Attempt.objects.filter(pk=attempt).update(visitor="an-old-session-key")
    client.post("/accounts/login/", {"username": student.username, "password": PASSWORD})
    assert Attempt.objects.get(pk=attempt).user_id == student.pk


def test_profile_shows_the_rating_with_an_svg_history_chart(client, student, capture):
    client.login(username=student.username, password=PASSWORD)
    attempt, _html = open_puzzle(client, capture)
    move(client, attempt, text="28x3")
    html = client.get("/accounts/profile/").content.decode()
    assert 'data-testid="puzzle-ratings"' in html
    assert 'class="rating-chart"' in html and "<polyline" in html
    assert "<script" not in html.split('data-testid="puzzle-ratings"')[1].split("</section>")[0]


@pytest.mark.parametrize(
    ("pieces", "czech"), [(4, "4 kameny"), (5, "5 kamenů"), (21, "21 kamenů"), (1, "jeden kámen")]
)
def test_a_goal_counts_its_pieces_in_czechs_plural_forms(pieces, czech):
    """ "Bílý na tahu získá 4 kamenů" was the goal of a puzzle that wins four pieces."""
    from django.utils import translation

    from puzzles.trainer import goal_text

    with translation.override("cs"):
        text = goal_text(True, f"gain:{pieces}", 2, [])
    assert text.startswith(f"Bílý na tahu získá {czech} "), text


def test_goal_and_feedback_in_czech(client, gain):
    client.post(reverse("set_language"), {"language": "cs", "next": "/"})
    attempt, html = open_puzzle(client, gain)
    assert "Bílý na tahu získá jeden kámen nejvýše za 2 tahy." in html
    html = move(client, attempt, text="22-17").content.decode()
    assert "Správně! Černý odpovídá 13x22. Jsi na tahu." in html


# -- the rating line --------------------------------------------------------------------------------


def test_a_move_answer_reads_the_rating_only_when_it_changed(client, django_user_model, gain):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    django_user_model.objects.create_user("petr", "p@example.com", PASSWORD)
    client.login(username="petr", password=PASSWORD)
    attempt, html = open_puzzle(client, gain)
    assert 'data-testid="trainer-meta"' in html and "Your rating: 1500" in html
    with CaptureQueriesContext(connection) as queries:
        response = move(client, attempt, text="22-17")
    html = response.content.decode()
    assert "Right!" in html and "trainer-meta" not in html
    assert not any("puzzles_playerrating" in q["sql"] for q in queries.captured_queries)
    # the solving move changes the rating: the line comes along, swapped out of band
    html = move(client, attempt, text="25x18x11").content.decode()
    new = PlayerRating.objects.get(user__username="petr", variant="czech").rating
    meta = re.search(r'<p id="trainer-meta"[^>]*>[^<]*', html).group(0)
    assert 'hx-swap-oob="true"' in meta and f"Your rating: {new:.0f}" in meta
    assert html.index('id="trainer-meta"') > html.index('id="trainer"')
    # a second attempt at the same puzzle is not rated: no rating line in its answers
    retried = client.post(f"/puzzles/attempt/{attempt}/retry", **HX).content.decode()
    again = int(re.search(r'data-attempt="(\d+)"', retried).group(1))
    move(client, again, text="22-17")
    html = move(client, again, text="25x18x11").content.decode()
    assert "Solved!" in html and "trainer-meta" not in html


def test_a_plain_form_post_gets_the_whole_page_with_the_rating(client, gain):
    attempt, _html = open_puzzle(client, gain)
    html = move(client, attempt, text="22-17", htmx=False).content.decode()
    assert "Right!" in html and "Your rating: 1500" in html
    assert 'hx-swap-oob="true"' not in html


# -- two answers at once ----------------------------------------------------------------------------


def test_a_move_judged_on_a_stale_attempt_is_not_saved(student, gain):
    attempt = Attempt.objects.create(user=student, puzzle=gain, first=True)
    tab_one = Attempt.objects.select_related("puzzle").get(pk=attempt.pk)
    tab_two = Attempt.objects.select_related("puzzle").get(pk=attempt.pk)
    player = Player(student, {})
    assert tab_one.play(player, text="22-17").kind == Outcome.RIGHT
    # the second tab still holds the start position: its move must not overwrite the first
    with pytest.raises(Conflict):
        tab_two.play(player, text="22-18")
    row = Attempt.objects.get(pk=attempt.pk)
    assert row.line == ["22-17", "13x22"] and len(row.moves) == 1
    assert row.version == 1 and not row.failed
    # nor a hint or a solution shown from the stale copy
    with pytest.raises(Conflict):
        tab_two.hint()
    with pytest.raises(Conflict):
        tab_two.give_up(player)
    row = Attempt.objects.get(pk=attempt.pk)
    assert row.hints == 0 and not row.solution_shown and row.finished_at is None
    assert not PlayerRating.objects.filter(user=student).exists()  # nothing was rated


def test_a_move_that_loses_the_race_gets_409_and_the_attempt_as_it_stands(client, student, gain):
    from django.db import connection

    client.force_login(student)
    attempt, _html = open_puzzle(client, gain)
    other_tab = {"done": False}

    def the_other_tab_writes_first(execute, sql, params, many, context):
        # after this request read the attempt and before it writes anything (the attempt, or the
        # savepoint of the transaction that writes it with the rating), another tab's move lands
        if not sql.lstrip().upper().startswith("SELECT") and not other_tab["done"]:
            other_tab["done"] = True
            Attempt.objects.filter(pk=attempt).update(
                line=["22-17", "13x22"],
                position=engine.fen_after("czech", gain.fen, ["22-17", "13x22"]),
                moves=[{"text": "22-17", "ok": True, "ms": 1}],
                version=1,
            )
        return execute(sql, params, many, context)

    with connection.execute_wrapper(the_other_tab_writes_first):
        response = move(client, attempt, text="22-18")
    html = response.content.decode()
    assert response.status_code == 409
    assert 'data-testid="conflict"' in html and "changed in another window" in html
    assert "last move 13x22" in html  # the board as the other tab left it
    row = Attempt.objects.get(pk=attempt)
    assert row.line == ["22-17", "13x22"] and not row.failed and len(row.moves) == 1
    # the losing request rated nothing: its rating was written in the attempt's transaction
    assert not row.rated and not RatingHistory.objects.filter(user=student).exists()
    assert not PlayerRating.objects.filter(user=student).exists()
    # the game goes on from there
    response = move(client, attempt, text="25x18x11")
    assert response.status_code == 200 and "Solved!" in response.content.decode()


# -- the attempt as a model -------------------------------------------------------------------------


def test_an_attempt_is_found_for_its_player_only_with_its_puzzle_less_the_proof(
    student, outsider, gain
):
    player = Player(student, {})
    first = Attempt.start(player, gain)
    second = Attempt.start(player, gain, fresh=True)
    assert first.first and not second.first  # stored when each was made: only the first is rated
    got = owned_attempt(player, second.pk)
    assert got.pk == second.pk and got.puzzle.pk == gain.pk
    assert "proof" in got.puzzle.get_deferred_fields()
    assert owned_attempt(player, 2**63) is None  # beyond any id: no query, no error
    assert owned_attempt(Player(outsider, {}), first.pk) is None
    assert owned_attempt(Player(None, {}), first.pk) is None  # not in the visitor's session


def test_a_move_is_read_against_the_stored_position_without_replaying_the_line(
    student, gain, monkeypatch
):
    player = Player(student, {})
    attempt = Attempt.start(player, gain)
    assert attempt.position == gain.fen
    attempt.play(player, text="22-17")
    row = Attempt.objects.get(pk=attempt.pk)
    assert row.line == ["22-17", "13x22"]
    assert row.position == engine.fen_after("czech", gain.fen, ["22-17", "13x22"])
    here, seen = row.position, []
    read = engine.read_entry
    monkeypatch.setattr(engine, "read_entry", lambda *a, **kw: seen.append(a) or read(*a, **kw))
    assert row.play(player, text="25x18x11").kind == Outcome.SOLVED
    assert seen == [("czech", here, [])]  # the stored position, no line to replay


# -- a set's attempt inherits what the player saw (issue 22) ---------------------------------------


@pytest.fixture
def assigned(gain, teacher, student):
    """``gain`` in a set assigned to the student's class: the set and the class."""
    from classroom.models import Assignment, Classroom, PuzzleSet

    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="S", variant="czech")
    puzzle_set.add(gain)
    classroom = Classroom.objects.create(name="C", variant="czech")
    classroom.teachers.add(teacher)
    classroom.add_student(student)
    Assignment.objects.create(puzzle_set=puzzle_set, classroom=classroom)
    return puzzle_set, classroom


def class_report(client, teacher, classroom, student) -> tuple[str, dict]:
    """The student's row of the class table (HTML) and of the CSV report."""
    import csv
    import io

    client.force_login(teacher)
    page = client.get(f"/teach/classes/{classroom.pk}/progress/").content.decode()
    row = page.split(f'data-student="{student.username}"')[1].split("</tr>")[0]
    text = client.get(f"/teach/classes/{classroom.pk}/progress.csv").content.decode()
    mine = next(r for r in csv.DictReader(io.StringIO(text)) if r["username"] == student.username)
    return row, mine


def test_the_solution_shown_outside_the_set_follows_the_player_into_the_set(
    client, gain, teacher, student, assigned
):
    puzzle_set, classroom = assigned
    client.force_login(student)
    outside, _html = open_puzzle(client, gain)
    client.post(f"/puzzles/attempt/{outside}/solution", **HX)
    attempt, _html = open_puzzle(client, gain, f"?set={puzzle_set.pk}")
    row = Attempt.objects.get(pk=attempt)
    assert row.set_id == puzzle_set.pk and row.solution_shown and row.failed and not row.first
    move(client, attempt, text="22-17")
    move(client, attempt, text="25x18x11")
    assert Attempt.objects.get(pk=attempt).solved
    html, csv_row = class_report(client, teacher, classroom, student)
    assert 'data-status="failed"' in html and "solved after seeing the solution" in html
    assert (csv_row["status"], csv_row["attempts"], csv_row["later"]) == (
        "failed",
        "1",
        "solved_after_solution",
    )


def test_a_replay_after_the_solution_inside_the_set_is_reported_as_such(
    client, gain, teacher, student, assigned
):
    puzzle_set, classroom = assigned
    client.force_login(student)
    attempt, _html = open_puzzle(client, gain, f"?set={puzzle_set.pk}")
    client.post(f"/puzzles/attempt/{attempt}/solution", **HX)
    retried = client.post(f"/puzzles/attempt/{attempt}/retry", **HX).content.decode()
    again = int(re.search(r'data-attempt="(\d+)"', retried).group(1))
    assert Attempt.objects.get(pk=again).set_id == puzzle_set.pk
    move(client, again, text="22-17")
    assert "Solved" in move(client, again, text="25x18x11").content.decode()
    html, csv_row = class_report(client, teacher, classroom, student)
    assert 'data-status="failed"' in html and "solved after seeing the solution" in html
    assert (csv_row["status"], csv_row["attempts"], csv_row["later"]) == (
        "failed",
        "2",
        "solved_after_solution",
    )


def test_hints_and_failures_outside_the_set_count_in_the_set(
    client, gain, teacher, student, assigned
):
    puzzle_set, classroom = assigned
    client.force_login(student)
    outside, _html = open_puzzle(client, gain)
    client.post(f"/puzzles/attempt/{outside}/hint", **HX)
    move(client, outside, text="21-17")  # wrong: a failure
    attempt, _html = open_puzzle(client, gain, f"?set={puzzle_set.pk}")
    row = Attempt.objects.get(pk=attempt)
    assert row.hints == 1 and row.failed and not row.solution_shown
    move(client, attempt, text="22-17")
    assert "Solved, after a mistake." in move(client, attempt, text="25x18x11").content.decode()
    html, csv_row = class_report(client, teacher, classroom, student)
    assert (csv_row["status"], csv_row["hints"], csv_row["later"]) == (
        "failed",
        "1",
        "solved_after_mistake",
    )


def test_a_clean_first_solve_in_the_set_is_solved(client, gain, teacher, student, assigned):
    puzzle_set, classroom = assigned
    client.force_login(student)
    attempt, _html = open_puzzle(client, gain, f"?set={puzzle_set.pk}")
    move(client, attempt, text="22-17")
    move(client, attempt, text="25x18x11")
    html, csv_row = class_report(client, teacher, classroom, student)
    assert 'data-status="solved"' in html and "data-later" not in html
    assert (csv_row["status"], csv_row["hints"], csv_row["later"]) == ("solved", "0", "")


def test_an_illegal_move_is_no_failure_in_the_class_table_the_csv_or_the_dashboard(
    client, gain, teacher, student, assigned
):
    puzzle_set, classroom = assigned
    client.force_login(student)
    outside, _html = open_puzzle(client, gain)
    assert move(client, outside, text="22-15").status_code == 400  # illegal, outside the set
    attempt, _html = open_puzzle(client, gain, f"?set={puzzle_set.pk}")
    assert not Attempt.objects.get(pk=attempt).failed  # nothing to inherit
    assert move(client, attempt, route="22,15").status_code == 400  # illegal, in the set
    move(client, attempt, text="22-17")
    assert "Solved!" in move(client, attempt, text="25x18x11").content.decode()
    dashboard = client.get("/puzzles/czech/dashboard/").content.decode()
    assert re.search(r'data-testid="failed">0<', dashboard)
    html, csv_row = class_report(client, teacher, classroom, student)
    assert 'data-status="solved"' in html and "data-later" not in html
    assert (csv_row["status"], csv_row["attempts"], csv_row["later"]) == ("solved", "1", "")
