"""The analyses list and an upload's page follow their unfinished analyses (analysis/views.py
``states``: the page polls the states of its analyses still queued or running, each swapped in its
place, and stops once all have finished); the state in words; and the links into the analyses from
the games' pages of ``play`` and ``versus`` (analysis/templatetags/analysis_links.py).

The worker's task is run in this process, as in tests/web/test_analysis.py."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from analysis.models import GameAnalysis, GameUpload
from analysis.tasks import analyse_game
from tests.web.test_analysis import SHOT_FEN, SHOT_MISSED, finished_game

HX = {"HTTP_HX_REQUEST": "true"}
#: SHOT_MISSED as the games store their moves (routes)
ROUTES = [[int(sq) for sq in move.split("-")] for move in SHOT_MISSED]


@pytest.fixture
def upload(student):
    return GameUpload.objects.create(user=student, name="club.pdn", variant="czech", games=2)


def uploaded(upload, index: int, **fields) -> GameAnalysis:
    values = {
        "source": GameAnalysis.Source.UPLOAD, "upload": upload, "upload_index": index,
        "variant": "czech", "start_fen": SHOT_FEN, "moves": SHOT_MISSED, "result": "0-2",
        "white_name": "Eva", "black_name": "Jan", "user": upload.user,
        "white_user": upload.user, "black_user": upload.user,
    }  # fmt: skip
    values.update(fields)
    return GameAnalysis.objects.create(**values)


def poll_url(page: str) -> str | None:
    """The URL the page polls (the follow region's hx-get), or None when it polls nothing."""
    found = re.search(r'hx-get="([^"]*)"[^>]*data-testid="follow-poll"', page)
    return found.group(1).replace("&amp;", "&") if found else None


def state_of(page: str, pk: int) -> str:
    """The text of analysis ``pk``'s state as the page shows it (tags dropped)."""
    found = re.search(rf'<span[^>]*id="analysis-state-{pk}".*?</span>', page, re.S)
    assert found, f"no state of analysis {pk}"
    return " ".join(re.sub(r"<[^>]+>", " ", found.group(0)).split())


def get(client, url: str, **extra) -> str:
    response = client.get(url, **extra)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


# -- following the analyses -----------------------------------------------------------------------


def test_the_list_polls_while_an_analysis_is_pending_and_stops_when_it_is_done(client, student):
    row = GameAnalysis.of_play_game(finished_game(student))
    client.force_login(student)
    page = get(client, reverse("analysis:list"))
    assert state_of(page, row.pk) == "waiting its turn"
    url = poll_url(page)
    assert url == f"{reverse('analysis:states')}?id={row.pk}"
    assert 'role="status"' in page and "<noscript>" in page
    fragment = get(client, url, **HX)
    assert poll_url(fragment) == url  # still waiting: the poll comes again
    assert 'hx-swap-oob="true"' in fragment and state_of(fragment, row.pk) == "waiting its turn"
    assert analyse_game(row.pk) == "done"
    fragment = get(client, url, **HX)
    assert poll_url(fragment) is None and 'data-testid="follow-done"' in fragment
    assert state_of(fragment, row.pk) == "analysed"
    assert 'data-state="done"' in fragment
    page = get(client, reverse("analysis:list"))
    assert poll_url(page) is None and "analysis-follow" not in page


def test_a_running_analysis_shows_its_progress_as_a_bar_and_in_words(client, student, upload):
    running = uploaded(upload, 1, state=GameAnalysis.State.RUNNING, progress=40)
    waiting = uploaded(upload, 2)
    client.force_login(student)
    page = get(client, upload.get_absolute_url())
    assert state_of(page, running.pk) == "being analysed: 40 % 40 %"  # the words, the bar's text
    assert re.search(r'<progress max="100" value="40"[^>]*>40 %</progress>', page)
    assert state_of(page, waiting.pk) == "waiting its turn"
    url = poll_url(page)
    assert url is not None and f"id={running.pk}" in url and f"id={waiting.pk}" in url
    assert "2 analyses are still to finish" in page
    GameAnalysis.objects.filter(pk=running.pk).update(progress=75)
    fragment = get(client, url, **HX)
    assert state_of(fragment, running.pk) == "being analysed: 75 % 75 %"
    assert poll_url(fragment) == url


def test_a_failure_and_the_daily_limit_are_shown_with_their_reasons_and_not_followed(
    client, student, upload, settings
):
    failed = uploaded(upload, 1)
    failed.fail("Move 3 21-16 cannot be played: no such move")
    settings.DAMA_ANALYSIS_DAILY_GAMES = 1
    limited = GameAnalysis.of_play_game(finished_game(student))
    assert limited.state == GameAnalysis.State.LIMITED
    client.force_login(student)
    page = get(client, reverse("analysis:list"))
    assert state_of(page, failed.pk) == "failed: Move 3 21-16 cannot be played: no such move"
    assert state_of(page, limited.pk).startswith(
        "over the daily limit: You have reached today&#x27;s limit of 1 analysed game"
    )
    assert poll_url(page) is None
    url = f"{reverse('analysis:states')}?id={failed.pk}&id={limited.pk}"
    fragment = get(client, url, **HX)
    assert poll_url(fragment) is None
    assert state_of(fragment, failed.pk).startswith("failed: Move 3")


def test_the_states_are_the_users_own_and_bad_ids_are_a_400(client, student, outsider, upload):
    row = uploaded(upload, 1)
    client.force_login(outsider)
    url = f"{reverse('analysis:states')}?id={row.pk}"
    fragment = get(client, url, **HX)
    assert f"analysis-state-{row.pk}" not in fragment and poll_url(fragment) is None
    response = client.get(f"{reverse('analysis:states')}?id=abc", **HX)
    assert response.status_code == 400 and b"cannot be followed" in response.content
    response = client.get(reverse("analysis:states") + "?" + "&".join(["id=1"] * 201), **HX)
    assert response.status_code == 400
    response = client.get(url)  # without a script: the list
    assert response.status_code == 302 and response["Location"] == reverse("analysis:list")


def test_the_list_links_to_the_upload_of_games(client, student):
    client.force_login(student)
    page = get(client, reverse("analysis:list"))
    assert f'href="{reverse("analysis:upload_new")}"' in page and "Upload games" in page


# -- the links from the games' pages --------------------------------------------------------------


def analyses_link(page: str) -> bool:
    return f'href="{reverse("analysis:list")}" data-testid="analyses-link"' in page


def test_the_lists_of_games_link_to_the_analyses(client, student):
    client.force_login(student)
    assert analyses_link(get(client, reverse("play:games")))
    assert analyses_link(get(client, reverse("versus:index")))
    client.logout()
    assert not analyses_link(get(client, reverse("play:games")))


def analysis_link(page: str, row: GameAnalysis) -> bool:
    return f'href="{row.get_absolute_url()}" data-testid="analysis-link"' in page


def test_a_finished_game_against_the_computer_links_to_its_analysis(client, student):
    game = finished_game(student, moves=ROUTES)
    client.force_login(student)
    page = get(client, reverse("play:game", args=[game.pk]))
    assert 'data-testid="analysis-link"' not in page  # no analysis yet
    row = GameAnalysis.of_play_game(game)
    assert analysis_link(get(client, reverse("play:game", args=[game.pk])), row)
    assert analysis_link(get(client, reverse("play:replay", args=[game.pk])), row)


def test_a_finished_game_between_players_links_its_players_to_its_analysis_and_no_one_else(
    client, student, outsider, teacher
):
    from versus.models import VersusGame

    game = VersusGame.objects.create(
        variant="czech", challenger=student, white=student, black=outsider,
        start_fen=SHOT_FEN, moves=ROUTES, state="over", result="0-2", reason="resigned",
    )  # fmt: skip
    row = GameAnalysis.of_versus_game(game)
    url = reverse("versus:game", args=[game.token])
    for player in (student, outsider):
        client.force_login(player)
        assert analysis_link(get(client, url), row)
    client.force_login(teacher)  # a spectator of a public game, not the players' teacher
    page = get(client, url)
    assert 'data-testid="analyse-link"' in page and 'data-testid="analysis-link"' not in page
