"""The analysis board (issue 49): a position set up from a FEN, a PDN or a link; moves tried on
it kept as a tree of variations; the engine's lines computed on a worker (a job sent by name,
followed by the page, kept per position and budget, one at a time per user); the line as PDN
with its variations; sealed positions refused; the links from the puzzle, play, versus and editor
pages."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
from django.core.cache import cache
from django.template import Context, Template

from classroom.models import PuzzleSet
from core.models import GAME_SEALED_MESSAGE, SEALED_MESSAGE, Job, SealedPosition
from explore import analysis, engine
from explore.tasks import deep_analyse
from explore.tree import Tree
from play.models import Game
from tests.puzzle_fixtures import make_puzzle
from tests.web.play_helpers import install_fake_search
from versus.models import VersusGame

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
START = "W:W21-32:B1-12"
START_FEN = Tree.parse("czech", START).fen
#: White must capture 22x15 here (CUD 2006: a capture is compulsory)
CAPTURE = "W:W22,31:B18,5"


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


def board_url(fen=START, tree="", at=None, variant="czech") -> str:
    params = {"variant": variant, "fen": fen}
    if tree:
        params["tree"] = tree
    if at is not None:
        params["at"] = str(at)
    return "/explore/?" + urlencode(params)


def state(fen=START, tree="", at=0, **more) -> dict:
    return {"variant": "czech", "fen": fen, "tree": tree, "at": str(at), **more}


def query_of(url: str) -> dict:
    return {k: v[0] for k, v in parse_qs(urlparse(url).query).items()}


# -- set-up -------------------------------------------------------------------------------------


def test_a_pasted_fen_sets_up_the_board(client):
    response = client.post("/explore/setup", {"variant": "czech", "position": "W:W22,K31:B18"})
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert 'data-fen="W:W22,K31:B18"' in page
    assert "No move tried yet" in page


def test_a_pasted_pdn_sets_up_its_moves_with_their_side_lines(client):
    text = '[GameType "29"]\n1. 22-18 11-15 (1... 9-13 2. 18-14) 2. 18x11 8x15 *'
    response = client.post("/explore/setup", {"variant": "international", "position": text})
    assert response.status_code == 302
    params = query_of(response["Location"])
    assert params["variant"] == "czech"  # the PDN's GameType wins
    assert params["tree"] == "0:22-18 1:11-15 1:9-13 3:18-14 2:18x11 5:8x15"
    page = client.get(response["Location"]).content.decode()
    line = page[page.index('data-testid="explore-line"') :].split("</ol>\n")[0]
    words = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", line.split(">", 1)[1]))
    assert words.strip() == "1. 22-18 11-15 ( 1... 9-13 2. 18-14 ) 2. 18x11 8x15"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("W:W99:B1", "square 99"),
        ("W:W21:", "not valid"),
        ('[GameType "29"]\n1. 22-19 *', "22-19"),
        ("1. 22-18 (", "cannot be read"),
    ],
)
def test_a_bad_fen_or_pdn_is_a_form_error_naming_what_is_wrong(client, text, words):
    response = client.post("/explore/setup", {"variant": "czech", "position": text})
    assert response.status_code == 400
    page = response.content.decode()
    errors = page[page.index("errorlist") :][:600]
    assert words in errors


def test_a_bad_link_is_a_400_saying_why_and_never_a_500(client):
    for url, words in (
        (board_url(fen="W:W21:B99"), "square 99"),
        (board_url(tree="0:22-19"), "22-19"),
        (board_url(tree="5:22-18"), "not readable"),
        (board_url(tree="0:22-18", at=7), "no such move"),
        ("/explore/?variant=chess&fen=W:W21:B1", "valid choice"),
    ):
        response = client.get(url)
        assert response.status_code == 400, url
        assert words in response.content.decode(), url
    assert client.get("/explore/pdn?variant=czech&fen=nonsense").status_code == 400


# -- moves and side lines -----------------------------------------------------------------------


def test_a_move_is_played_and_its_line_kept_in_the_address(client):
    response = client.post("/explore/move", state(move="22-18"), **HX)
    assert response.status_code == 200
    pushed = query_of(response["HX-Push-Url"])
    assert pushed["tree"] == "0:22-18" and pushed["at"] == "1"
    assert "Played 22-18." in response.content.decode()
    page = client.get(response["HX-Push-Url"]).content.decode()  # a reload keeps it
    assert 'data-testid="explore-node-1"' in page and 'aria-current="step"' in page


def test_a_clicked_route_is_a_move_too_and_without_htmx_the_page_redirects(client):
    response = client.post("/explore/move", state(route="22,18"))
    assert response.status_code == 302
    assert query_of(response["Location"])["tree"] == "0:22-18"


def test_an_illegal_move_is_refused_with_the_rule_and_the_board_unchanged(client):
    response = client.post("/explore/move", state(fen=CAPTURE, move="31-27"), **HX)
    assert response.status_code == 400
    page = response.content.decode()
    assert "compulsory" in page.lower() and "CUD" in page
    assert 'data-fen="W:W22,31:B5,18"' in page and "HX-Push-Url" not in response


def test_side_lines_are_kept_and_a_move_already_there_is_followed(client):
    tree = "0:22-18 1:11-15"
    side = client.post("/explore/move", state(tree=tree, at=1, move="9-13"), **HX)
    assert query_of(side["HX-Push-Url"]) == {
        "variant": "czech", "fen": START_FEN, "tree": "0:22-18 1:11-15 1:9-13", "at": "3"
    }  # fmt: skip
    again = client.post("/explore/move", state(tree=tree, at=1, move="11-15"), **HX)
    assert query_of(again["HX-Push-Url"])["tree"] == tree  # followed, not added
    assert query_of(again["HX-Push-Url"])["at"] == "2"
    page = side.content.decode()
    assert 'aria-label="side line"' in page and "1..." in page


def test_the_pdn_download_holds_the_side_lines_and_the_known_evaluations(client):
    tree = Tree.parse("czech", START, "0:22-18 1:11-15 1:9-13 3:18-14")
    analysis.keep("czech", tree.boards[1].fen(), {
        "lines": [{"moves": ["11-15", "18x11"], "score": 130, "depth": 9}], "legal": 7,
    })  # fmt: skip
    response = client.get("/explore/pdn?" + urlencode(state(tree=tree.encode())))
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="analysis.pdn"'
    text = response.content.decode()
    assert '[GameType "29"]' in text
    moves = " ".join(text.split("\n\n", 1)[1].split())
    assert moves.startswith("1. 22-18 {+1.30 White is better by about 1 man. 11-15 18x11}")
    assert "11-15 (1... 9-13 2. 18-14) *" in moves


# -- the engine -----------------------------------------------------------------------------------


def ask(client, **data):
    return client.post("/explore/analyse", state(**data), **HX)


def test_the_engine_is_asked_by_a_job_sent_by_name_and_its_lines_shown(
    client, student, sent_tasks, django_capture_on_commit_callbacks
):
    client.force_login(student)
    with django_capture_on_commit_callbacks(execute=True):
        response = ask(client, fen="W:W22,K31:B18")
    assert response.status_code == 202
    job = Job.objects.get(kind=analysis.KIND)
    assert sent_tasks == [("explore.deep_analyse", (str(job.pk),), "deep")]
    assert response["Location"] == f"/explore/job/{job.pk}"
    assert "The engine is thinking" in response.content.decode()
    assert client.get(response["Location"]).status_code == 200  # still queued: the progress
    assert deep_analyse(str(job.pk)) == "done"
    page = client.get(response["Location"]).content.decode()
    assert "White wins" in page or "White is better" in page
    assert "22x15" in page and 'data-testid="explore-lines"' in page
    assert "hx-get" not in page  # done: no more polling
    play_line = re.search(r'href="([^"]+)"[^>]*data-testid="explore-play-line"', page)
    params = query_of(play_line.group(1).replace("&amp;", "&"))
    assert params["tree"].startswith("0:22x15") and params["at"] == "1"  # the line added
    assert client.get(play_line.group(1).replace("&amp;", "&")).status_code == 200


def test_a_second_request_is_answered_at_once_from_the_kept_result(
    client, student, outsider, sent_tasks, django_capture_on_commit_callbacks
):
    client.force_login(student)
    with django_capture_on_commit_callbacks(execute=True):
        ask(client, fen="W:W22,K31:B18")
    deep_analyse(str(Job.objects.get().pk))
    sent_tasks.clear()
    client.force_login(outsider)
    for flush in (False, True):  # the cache, then (a cache of another process) the job's row
        if flush:
            cache.clear()
        with django_capture_on_commit_callbacks(execute=True):
            response = ask(client, fen="W:W22,K31:B18")
        assert response.status_code == 200 and "22x15" in response.content.decode()
    assert sent_tasks == [] and Job.objects.count() == 1
    # and the board shows it without asking
    assert "22x15" in client.get(board_url(fen="W:W22,K31:B18")).content.decode()


def test_a_new_analysis_replaces_the_users_one_still_to_do(client, student, outsider):
    client.force_login(outsider)
    theirs = ask(client, fen=START)
    client.force_login(student)
    first = ask(client, fen=START)
    second = ask(client, tree="0:22-18", at=1)
    assert first.status_code == second.status_code == 202
    old = Job.objects.get(pk=first["Location"].rsplit("/", 1)[1])
    assert old.status == Job.Status.FAILED and old.error == analysis.REPLACED
    assert Job.objects.pending().filter(owner=student).count() == 1
    assert Job.objects.pending().filter(owner=outsider).count() == 1  # nobody else's
    page = client.get(first["Location"]).content.decode()
    assert "A newer analysis replaced this one." in page
    assert deep_analyse(str(old.pk)) == "skipped"
    assert theirs.status_code == 202


def test_a_search_replaced_while_it_runs_stops_and_is_not_kept(student, monkeypatch):
    job = analysis.start(student, "czech", START_FEN)
    real = engine.analyse

    def replaced_midway(variant, fen, progress):
        Job.objects.filter(pk=job.pk).update(status=Job.Status.FAILED, error=analysis.REPLACED)
        return real(variant, fen, lambda done: progress(done) and False or False)

    monkeypatch.setattr(engine, "analyse", replaced_midway)
    assert deep_analyse(str(job.pk)) == "replaced"
    assert analysis.cached("czech", START_FEN) is None


def test_a_visitor_is_asked_to_log_in_before_asking_the_engine(client):
    page = client.get(board_url()).content.decode()
    assert "to ask the engine" in page and 'data-testid="explore-analyse"' not in page
    assert client.post("/explore/analyse", state()).status_code == 302


def test_the_engine_gives_its_best_lines_and_one_when_the_move_is_forced():
    result = engine.analyse("czech", START_FEN)
    firsts = [line["moves"][0] for line in result["lines"]]
    assert len(firsts) == engine.LINES == len(set(firsts))
    assert result["complete"] and result["budget"] == engine.BUDGET
    forced = engine.analyse("czech", "W:W22,31:B18,5")
    assert [line["moves"][0] for line in forced["lines"]] == ["22x15"]
    assert (
        engine.analyse("czech", "W:W22:B")["lines"]
        and not engine.analyse("czech", "W:W:B18")["lines"]
    )


@pytest.mark.parametrize(
    ("score", "words"),
    [
        (0, "The position is about equal."),
        (40, "White is slightly better."),
        (-40, "Black is slightly better."),
        (100, "White is better by about 1 man."),
        (-210, "Black is better by about 2 men."),
        (30000 - 5, "White wins in 3 moves."),
        (-(30000 - 1), "Black wins in 1 move."),
    ],
)
def test_the_evaluation_is_said_in_words(score, words):
    assert analysis.describe(score) == words


# -- sealed positions ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "message"), [("exam:3", SEALED_MESSAGE), ("versus:9", GAME_SEALED_MESSAGE)]
)
def test_a_sealed_position_is_refused_with_the_seals_message(client, student, label, message):
    tree = Tree.parse("czech", START, "0:22-18")
    SealedPosition.seal([tree.boards[1].fen()], "czech", label=label)
    text = str(message)
    setup = client.post("/explore/setup", {"variant": "czech", "position": tree.boards[1].fen()})
    assert setup.status_code == 400 and text in setup.content.decode()
    into = client.post("/explore/move", state(move="22-18"), **HX)
    assert into.status_code == 400 and text in into.content.decode()
    link = client.get(board_url(tree="0:22-18"))
    assert link.status_code == 400 and text in link.content.decode()
    client.force_login(student)
    asked = client.post("/explore/analyse", state(fen=tree.boards[1].fen()), **HX)
    assert asked.status_code == 400 and text in asked.content.decode()
    assert not Job.objects.exists()


# -- links from other pages ------------------------------------------------------------------------


def analyse_link(page: str) -> str:
    match = re.search(r'href="([^"]+)" data-testid="analyse-link"', page)
    assert match, "no analyse link"
    return match.group(1).replace("&amp;", "&")


def test_a_puzzle_links_to_the_board_once_given_up_not_before(client):
    puzzle = make_puzzle("czech_gain")
    page = client.get(f"/puzzles/czech/{puzzle.pk}/").content.decode()
    assert 'data-testid="analyse-link"' not in page
    attempt = re.search(r'data-attempt="(\d+)"', page).group(1)
    shown = client.post(f"/puzzles/attempt/{attempt}/solution", **HX).content.decode()
    params = query_of(analyse_link(shown))
    assert params["variant"] == "czech" and "at" not in params
    assert params["tree"] == "0:22-17 1:13x22 2:25x11"  # the proof's line, as the page shows it
    assert client.get(analyse_link(shown)).status_code == 200


def test_a_finished_game_against_the_computer_links_to_its_analysis(client, monkeypatch):
    install_fake_search(monkeypatch)
    client.post("/play/czech/", {"level": "5", "color": "white"})
    game = Game.objects.get()
    client.post(f"/play/game/{game.pk}/move", {"move": "22-18"}, **HX)
    page = client.get(f"/play/game/{game.pk}/").content.decode()
    assert 'data-testid="analyse-link"' not in page  # still in play
    page = client.post(f"/play/game/{game.pk}/resign", **HX).content.decode()
    params = query_of(analyse_link(page))
    game.refresh_from_db()
    assert params["tree"].startswith("0:22-18") and params["at"] == str(len(game.moves))
    assert client.get(analyse_link(page)).status_code == 200


def test_a_finished_game_between_players_links_to_its_analysis(client, student, outsider):
    game = VersusGame.challenge(
        student, variant="czech", colour="white", base_minutes=5, rated=True
    )
    game.accept(outsider)
    game.play(student, text="22-18")
    client.force_login(student)
    page = client.get(f"/versus/g/{game.token}/").content.decode()
    assert 'data-testid="analyse-link"' not in page
    game.resign(outsider)
    page = client.get(f"/versus/g/{game.token}/").content.decode()
    assert query_of(analyse_link(page))["tree"] == "0:22-18"
    assert client.get(analyse_link(page)).status_code == 200


def test_the_teachers_editor_links_to_the_board_at_its_position(client, teacher):
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Mine", variant="czech")
    client.force_login(teacher)
    page = client.post(
        f"/teach/sets/{puzzle_set.pk}/editor/board/",
        {"fen": "W:W:B", "square": "22", "piece": "w"},
        **HX,
    ).content.decode()
    assert query_of(analyse_link(page)) == {"variant": "czech", "fen": "W:W22:B"}


def test_no_link_is_offered_into_a_sealed_position():
    SealedPosition.seal(["W:W22:B9"], "czech", label="exam:1")
    template = Template("{% load explore_tags %}{% analyse_link 'czech' fen %}")
    assert "analyse-link" in template.render(Context({"fen": "W:W22:B10"}))
    assert template.render(Context({"fen": "W:W22:B9"})).strip() == ""
    assert template.render(Context({"fen": "W:W99:B9"})).strip() == ""


def test_a_position_where_the_game_is_over_says_so_and_offers_no_engine(client, student):
    client.force_login(student)
    page = client.get(board_url(fen="W:W:B18")).content.decode()
    assert 'data-testid="explore-end"' in page and "White has no pieces left and loses." in page
    assert 'data-testid="explore-analyse"' not in page
    asked = client.post("/explore/analyse", state(fen="W:W:B18"), **HX)
    assert asked.status_code == 400 and "nothing to analyse" in asked.content.decode()
    assert not Job.objects.exists()


def test_without_scripts_the_engine_is_followed_on_the_jobs_own_page(client, student):
    client.force_login(student)
    response = client.post("/explore/analyse", state(fen="W:W22,K31:B18"))
    job = Job.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/explore/job/{job.pk}"
    page = client.get(response["Location"]).content.decode()
    assert "<noscript>" in page and "The engine is thinking" in page and "<html" in page
    deep_analyse(str(job.pk))
    page = client.get(response["Location"]).content.decode()
    assert "22x15" in page and "Back to the board" in page and "<noscript>" not in page
