"""The free "try a move" board: the server checks every move with the engine; and the one seam
between the web and the engine (core.board) that every board on the site uses."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from django.urls import reverse
from django.utils import translation

import dama
from classroom.models import PuzzleSet
from core.board import read_entry
from tests.puzzle_fixtures import make_puzzle

pytestmark = pytest.mark.django_db

CZECH_START = "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
# White man on 22 (c3) must capture black 18 (d4) landing on 15 (e5)
CZECH_CAPTURE = "W:W22,30:B18,3"


def moves_in(html: str) -> list[dict]:
    match = re.search(r'data-moves="([^"]*)"', html)
    assert match, "the board must embed its legal moves"
    return json.loads(unescape(match.group(1)))


def fen_in(html: str) -> str:
    match = re.search(r'name="fen" value="([^"]+)"', html)
    assert match
    return match.group(1)


def test_home_board_embeds_the_legal_moves_of_the_start_position(client):
    moves = moves_in(client.get("/").content.decode())
    assert len(moves) == 7  # Czech start: 7 moves for White
    assert {"routes": [[22, 18]], "text": "22-18", "captured": []} in moves


def test_clicked_route_is_played_and_the_partial_returned_to_htmx(client):
    response = client.post(
        "/board/czech/move", {"fen": CZECH_START, "route": "22,18"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html  # just the board partial
    assert fen_in(html).startswith("B:W18,")
    assert "Black to move" in html
    assert "Played 22-18." in html


def test_typed_notation_is_played_and_without_htmx_the_whole_page_returns(client):
    response = client.post("/board/czech/move", {"fen": CZECH_START, "move": "c3-d4"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" in html
    assert fen_in(html).startswith("B:W18,")


def test_numeric_notation_works_on_an_eight_by_eight_board(client):
    response = client.post(
        "/board/czech/move", {"fen": CZECH_START, "move": "22-18"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200


def test_illegal_move_answers_400_with_the_board_unchanged_and_a_reason(client):
    response = client.post(
        "/board/czech/move", {"fen": CZECH_START, "route": "22,15"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert fen_in(html) == CZECH_START
    assert "not a legal move" in html or "(" in html  # the engine's explanation or the plain reason
    assert 'class="board-status error"' in html


def test_garbage_notation_answers_400_with_how_to_write_a_move(client):
    response = client.post(
        "/board/czech/move", {"fen": CZECH_START, "move": "hello"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 400
    assert "is not a move" in response.content.decode()


def test_empty_move_answers_400(client):
    response = client.post("/board/czech/move", {"fen": CZECH_START}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert "Type a move" in response.content.decode()


def test_broken_position_answers_400_not_500(client):
    response = client.post(
        "/board/czech/move", {"fen": "W:W99:Bx", "move": "22-18"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 400
    assert "The position is not valid" in response.content.decode()


def test_bad_route_text_answers_400(client):
    response = client.post(
        "/board/czech/move", {"fen": CZECH_START, "route": "22;x"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 400
    assert "route is not valid" in response.content.decode()


def test_missing_form_fields_answer_400(client):
    assert client.post("/board/czech/move", {}, HTTP_HX_REQUEST="true").status_code == 400


def test_unknown_variant_on_the_move_endpoint_is_a_404(client):
    assert (
        client.post("/board/chess/move", {"fen": CZECH_START, "move": "22-18"}).status_code == 404
    )


def test_get_on_the_move_endpoint_goes_back_to_the_board(client):
    response = client.get("/board/international/move")
    assert response.status_code == 302
    assert response["Location"] == "/?variant=international"


def test_compulsory_capture_is_offered_as_the_only_move(client):
    response = client.post(
        "/board/czech/move", {"fen": CZECH_CAPTURE, "route": "30,26"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 400  # a quiet move while a capture is on
    response = client.post(
        "/board/czech/move", {"fen": CZECH_CAPTURE, "route": "22,15"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    assert "18" not in fen_in(response.content.decode()).split(":B")[1].split(",")


@pytest.mark.parametrize("variant, move", [("international", "32-28"), ("brazilian", "c3-d4")])
def test_the_other_variants_take_moves_too(client, variant, move):
    html = client.get(f"/?variant={variant}").content.decode()
    fen = fen_in(html)
    response = client.post(
        f"/board/{variant}/move", {"fen": fen, "move": move}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200, response.content.decode()[-500:]
    assert fen_in(response.content.decode()) != fen


# -- the one seam between the web and the engine (core.board) --------------------------------------


#: the move box's examples of each variant: its notation, on its board (8x8: both notations)
EXAMPLES = {
    "czech": "22-18, 22x15x6, c3-d4",
    "international": "32-28, 32x23x12",
    "brazilian": "c3-d4, c3xe5xc7, 22-18",
}


@pytest.mark.parametrize("variant", EXAMPLES)
def test_the_move_box_gives_examples_of_the_board_shown(client, variant):
    """A 10x10 board's move box and its messages give 10x10 moves, not an 8x8 board's."""
    html = client.get(f"/?variant={variant}").content.decode()
    example = EXAMPLES[variant].split(",")[0]
    assert f'placeholder="e.g. {example}"' in html
    puzzle = make_puzzle(f"{variant}_gain")
    html = client.get(f"/puzzles/{variant}/{puzzle.pk}/").content.decode()
    assert f"or type the move ({EXAMPLES[variant]})." in html
    fen = fen_in(client.get(f"/?variant={variant}").content.decode())
    for move, said in (("", "Type a move ("), ("hello", "like ")):
        response = client.post(
            f"/board/{variant}/move", {"fen": fen, "move": move}, HTTP_HX_REQUEST="true"
        )
        assert response.status_code == 400
        assert f"{said}{EXAMPLES[variant]}" in unescape(response.content.decode())
    if variant == "international":
        assert "22-18" not in html and "c3-d4" not in html


def test_every_example_of_a_move_box_is_a_move_the_engine_reads_on_its_board():
    for variant in EXAMPLES:
        board = dama.Board(variant, "W:W22,32:B1")  # any position: the examples' form is read
        for text in dama.example_moves(variant):
            assert board.read_entry(text=text).kind != dama.EntryKind.UNREADABLE, (variant, text)


def test_the_entry_reader_follows_a_capture_landing_by_landing():
    board = dama.Board("czech", "W:W22:B18,11")  # 22 takes 18 and 11: 22x15x8
    half = read_entry(board, route="22,15")
    assert (half.status, half.path) == ("continue", (22, 15))
    assert "Landed on 15" in half.message
    clicked = read_entry(board, route="22,15,8")
    assert (clicked.status, clicked.notation, clicked.route) == ("move", "22x8", "22x15x8")
    assert clicked.named_route == (22, 15, 8) and clicked.entered == "22x15x8"
    typed = read_entry(board, text="22x8")  # start and end only: the move, but no route named
    assert (typed.status, typed.key, typed.named_route) == ("move", (22, 8, (11, 18)), ())


def test_the_entry_reader_explains_an_illegal_move_in_the_pages_language():
    board = dama.Board("czech")
    explanation = board.explain_illegal("22-26")
    with translation.override("cs"):
        czech = read_entry(board, text="22-26")
    with translation.override("en"):
        english = read_entry(board, text="22-26")
    assert czech.status == english.status == "illegal" and czech.code == "man_backward"
    assert czech.message == explanation.message("cs") and "čl." in czech.article
    assert english.message == explanation.message("en") and "art." in english.article


def test_every_board_that_takes_moves_is_the_one_widget_template(client, teacher):
    puzzle = make_puzzle("czech_gain")
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="S", variant="czech")
    pages = {
        "home": "/",
        "lesson": reverse("lessons:step", args=["czech", "czech-board", "cz-board-main-diagonal"]),
        "trainer": f"/puzzles/czech/{puzzle.pk}/",
    }
    for name, url in pages.items():
        response = client.get(url)
        assert response.status_code == 200, name
        assert "core/board.html" in [t.name for t in response.templates], name
    client.force_login(teacher)
    response = client.get(reverse("classroom:puzzle_new", args=[puzzle_set.pk]))
    assert "core/board.html" in [t.name for t in response.templates]
    assert 'id="solution-board"' in response.content.decode()


# -- orientation, targets and marks with meaning (issue 15) -------------------------------------------


def test_quiet_targets_are_the_quiet_moves_and_nothing_when_a_capture_is_possible():
    from core.board import quiet_targets

    assert quiet_targets(dama.Board("czech", "W:W22,30:B3")) == {22: [17, 18], 30: [25, 26]}
    assert quiet_targets(dama.Board("czech", CZECH_CAPTURE)) == {}


def test_explanation_marks_tell_the_wrong_the_required_and_the_jumped_squares_apart():
    from core.board import explanation_marks

    board = dama.Board("czech", "W:W30:B11,19,26")
    entry = read_entry(board, text="30x23x16x23")  # 19 jumped twice
    assert entry.code == "already_jumped"
    assert explanation_marks(entry.code, entry.squares) == {
        19: "jumped",
        16: "highlight",
        23: "wrong",
    }
    entry = read_entry(dama.Board("czech", CZECH_CAPTURE), text="30-26")  # 22 must capture
    assert entry.code == "capture_compulsory"
    assert explanation_marks(entry.code, entry.squares) == {30: "wrong", 22: "required"}


def test_a_puzzle_shows_targets_only_for_material_and_win_goals(client):
    gain = make_puzzle("czech_gain")
    capture = make_puzzle("czech_capture")
    html = client.get(f"/puzzles/czech/{gain.pk}/").content.decode()
    targets = json.loads(unescape(re.search(r'data-targets="([^"]*)"', html).group(1)))
    assert targets["22"] == [17, 18]
    assert "data-targets" not in client.get(f"/puzzles/czech/{capture.pk}/").content.decode()


def test_a_puzzle_black_solves_is_drawn_from_blacks_side(client):
    black = make_puzzle("international_gain")
    html = client.get(f"/puzzles/international/{black.pk}/").content.decode()
    widget = html[html.index('id="trainer-board"') :]
    assert widget.startswith('id="trainer-board" data-board')
    assert 'data-flipped="1"' in widget[: widget.index("</svg>")]
