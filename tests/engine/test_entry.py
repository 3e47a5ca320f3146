"""Reading move entry (``Board.read_entry``): clicked routes and typed text, against a position."""

from __future__ import annotations

import pytest

from dama import Board, EntryKind
from dama.entry import MAX_ROUTE, MAX_TEXT, UNREADABLE_REASONS
from dama.lang import cite, lang_code

# White's man on 22 must take 18 and 11 (22x15x8); a Czech king on 2 with several routes
CAPTURE = "W:W22:B18,11"
KING = "W:WK2:B7,9,15,17,25"


def test_a_clicked_full_route_is_the_move() -> None:
    entry = Board("czech", CAPTURE).read_entry(route="22,15,8")
    assert entry.kind is EntryKind.MOVE
    assert entry.move is not None and entry.move.routes == ((22, 15, 8),)
    assert entry.route == (22, 15, 8) and entry.names_route
    assert entry.text == "22x15x8"


def test_a_clicked_route_may_be_a_sequence_of_numbers() -> None:
    assert Board("czech").read_entry(route=(22, 18)).kind is EntryKind.MOVE


def test_a_clicked_quiet_move_is_written_with_a_dash() -> None:
    entry = Board("czech").read_entry(route="22,18")
    assert entry.kind is EntryKind.MOVE and entry.text == "22-18"


def test_the_start_of_a_capture_route_is_partial_with_the_next_landings() -> None:
    entry = Board("czech", CAPTURE).read_entry(route="22,15")
    assert entry.kind is EntryKind.PARTIAL
    assert entry.move is None
    assert entry.squares == (22, 15) and entry.route == (22, 15)
    assert entry.next_landings == (8,)
    assert [m.routes for m in entry.candidates] == [((22, 15, 8),)]


def test_a_partial_king_route_lists_every_next_landing_of_every_move_it_starts() -> None:
    board = Board("czech", KING)
    entry = board.read_entry(route="2,11")
    assert entry.kind is EntryKind.PARTIAL
    assert entry.next_landings == (18, 22)
    assert set(entry.candidates) == {m for m in board.legal_moves if m.routes[0][:2] == (2, 11)}


def test_a_click_from_the_piece_to_the_last_landing_is_the_capture() -> None:
    # as the typed short text 22x8 reads: one capture starts on 22 and ends on 8
    entry = Board("czech", CAPTURE).read_entry(route="22,8")
    assert entry.kind is EntryKind.MOVE
    assert entry.move is not None and entry.route == (22, 15, 8)
    assert not entry.names_route and entry.text == "22x8"


def test_a_click_to_the_last_landing_of_two_captures_is_ambiguous() -> None:
    # 22x13x6 and 22x15x6 take different men and both end on 6
    entry = Board("czech", "W:W22:B18,17,10,9").read_entry(route="22,6")
    assert entry.kind is EntryKind.UNREADABLE and entry.reason == "ambiguous"
    assert sorted(m.routes for m in entry.candidates) == [((22, 13, 6),), ((22, 15, 6),)]


def test_a_clicked_illegal_move_is_explained() -> None:
    entry = Board("czech").read_entry(route="22,26")
    assert entry.kind is EntryKind.ILLEGAL
    assert entry.text == "22-26"
    assert entry.explanation is not None and entry.explanation.code == "man_backward"


def test_a_click_over_a_piece_is_read_as_a_capture() -> None:
    # from 26 to 17 the man would jump White's own man on 22
    entry = Board("czech").read_entry(route="26,17")
    assert entry.kind is EntryKind.ILLEGAL and entry.text == "26x17"
    assert entry.explanation is not None and entry.explanation.code == "own_piece"


def test_a_clicked_king_landing_that_does_not_go_on_is_explained() -> None:
    entry = Board("czech", KING).read_entry(route="2,20")
    assert entry.kind is EntryKind.ILLEGAL and entry.text == "2x20"
    assert entry.explanation is not None and entry.explanation.code == "king_landing"


@pytest.mark.parametrize(
    "route",
    ["a,b", ",", "0,18", "22,33", ",".join(["22"] * (MAX_ROUTE + 1)), (22, "18"), (22, 18.0)]
    + ["٢٢,١٨", "22,1_8", "22," + "1" * 5000, "22,²"],
)
def test_a_route_that_is_not_squares_of_the_board_is_unreadable(route: object) -> None:
    entry = Board("czech").read_entry(route=route)  # type: ignore[arg-type]
    assert entry.kind is EntryKind.UNREADABLE and entry.reason == "bad_route"


def test_a_route_of_one_square_is_unreadable_for_want_of_a_destination() -> None:
    entry = Board("czech").read_entry(route="22")
    assert entry.kind is EntryKind.UNREADABLE and entry.reason == "one_square"
    assert entry.squares == (22,)


@pytest.mark.parametrize("text", ["22-18", " 22-18 ", "c3-d4", "22-18!"])
def test_typed_text_in_numeric_or_algebraic_notation_is_the_move(text: str) -> None:
    entry = Board("czech").read_entry(text=text)
    assert entry.kind is EntryKind.MOVE
    assert entry.move == Board("czech").parse_move("22-18")
    assert entry.text == "22-18" and entry.route == (22, 18)


def test_typed_short_text_of_a_capture_gives_its_route() -> None:
    entry = Board("czech", CAPTURE).read_entry(text="22x8")
    assert entry.kind is EntryKind.MOVE
    assert entry.route == (22, 15, 8) and not entry.names_route
    assert entry.text == "22x8"


def test_a_typed_full_route_names_that_route() -> None:
    entry = Board("czech", KING).read_entry(text="2x13x22x29")
    assert entry.kind is EntryKind.MOVE and entry.names_route
    assert entry.route == (2, 13, 22, 29) and entry.text == "2x13x22x29"


def test_short_text_of_several_moves_is_unreadable_and_lists_them() -> None:
    entry = Board("czech", KING).read_entry(text="2x29")
    assert entry.kind is EntryKind.UNREADABLE and entry.reason == "ambiguous"
    assert sorted(m.routes[0] for m in entry.candidates) == [(2, 11, 18, 29), (2, 13, 22, 29)]


def test_typed_illegal_move_is_explained_with_its_rule() -> None:
    entry = Board("czech", CAPTURE).read_entry(text="22x15")
    assert entry.kind is EntryKind.ILLEGAL and entry.text == "22x15"
    assert entry.explanation is not None
    assert entry.explanation.code == "capture_not_finished"


@pytest.mark.parametrize(("text", "code"), [("22+18", "syntax"), ("22-99", "no_such_square")])
def test_text_that_is_not_notation_is_unreadable_with_the_engines_reason(
    text: str, code: str
) -> None:
    entry = Board("czech").read_entry(text=text)
    assert entry.kind is EntryKind.UNREADABLE and entry.reason == "syntax"
    assert entry.explanation is not None and entry.explanation.code == code


def test_empty_and_overlong_text_are_unreadable() -> None:
    board = Board("czech")
    assert board.read_entry(text=" ").reason == "empty"
    assert board.read_entry().reason == "empty"
    assert board.read_entry(text="2" * (MAX_TEXT + 1)).reason == "too_long"


def test_every_unreadable_reason_is_listed() -> None:
    board = Board("czech", KING)
    seen = {
        board.read_entry(**kw).reason
        for kw in (
            {"text": ""},
            {"text": "x" * (MAX_TEXT + 1)},
            {"route": "a"},
            {"route": "2"},
            {"text": "2+11"},
            {"text": "2x29"},
        )
    }
    assert seen == set(UNREADABLE_REASONS)


def test_a_route_wins_over_text() -> None:
    entry = Board("czech").read_entry(route="22,18", text="21-17")
    assert entry.move == Board("czech").parse_move("22-18")


def test_an_explanation_gives_its_message_and_article_in_czech_or_english() -> None:
    exp = Board("czech").explain_illegal("22-26")
    assert exp is not None
    assert exp.message("en") == exp.message_en == exp.message("fr")
    assert exp.message("cs") == exp.message("cs-cz") == exp.message_cs
    assert exp.citation("en") == "CUD 2006 art. 3.4"
    assert exp.citation("cs") == "CUD 2006 čl. 3.4"
    assert exp.text("cs") == f"{exp.message_cs} (CUD 2006 čl. 3.4)"
    assert exp.text("en") == f"{exp.message_en} (CUD 2006 art. 3.4)"


def test_an_outcome_gives_its_message_and_article_in_czech_or_english() -> None:
    outcome = Board("international", "B:W46:B").outcome()
    assert outcome is not None
    assert outcome.message("cs") == outcome.message_cs
    assert outcome.message("en") == outcome.message_en
    assert outcome.citation("cs") == "SDS mezinárodní dáma čl. 7"


@pytest.mark.parametrize(
    ("article", "czech"),
    [
        ("CUD 2006 art. 4.1", "CUD 2006 čl. 4.1"),
        ("SDS international art. 4", "SDS mezinárodní dáma čl. 4"),
        ("SDS Brazilian art. 2", "SDS brazilská dáma čl. 2"),
        ("FMJD rules: 16-move rule", "pravidla FMJD: pravidlo 16 tahů"),
    ],
)
def test_citations_read_in_czech(article: str, czech: str) -> None:
    assert cite(article, "cs") == czech
    assert cite(article, "en") == article


def test_language_tags_read_as_czech_or_english() -> None:
    assert [lang_code(t) for t in ("cs", "CS-cz", "en", "en-gb", "de", "", None)] == [
        "cs",
        "cs",
        "en",
        "en",
        "en",
        "en",
        "en",
    ]
