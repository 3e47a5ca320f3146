"""Rule-by-rule tests of the engine, one (or a few) per article of ../shared/RULES.md.

Every test names the rule it checks: "CUD 2006 art. N" for Czech draughts (czech-cud-2006.txt),
"SDS art. N" for international-sds.txt / brazilian-sds.txt, "FMJD" for the FMJD counts RULES.md
adopts, and "RULES.md" for our own interpretations. Positions are hand-built FENs; the expected move
lists were worked out by hand from the rulebooks (the board diagram in each docstring uses the
official numbering: 8x8 1 = b8, 4 = h8, 29 = a1, 32 = g1; 10x10 1-5 Black's back row, 46 = a1).

8x8 numbering, from White's side::

        b8  1   d8  2   f8  3   h8  4
    a7  5   c7  6   e7  7   g7  8
        b6  9   d6 10   f6 11   h6 12
    a5 13   c5 14   e5 15   g5 16
        b4 17   d4 18   f4 19   h4 20
    a3 21   c3 22   e3 23   g3 24
        b2 25   d2 26   f2 27   h2 28
    a1 29   c1 30   e1 31   g1 32
"""

from __future__ import annotations

import pickle
from collections.abc import Callable

import pytest

from dama import BLACK, WHITE, Board, Move, Piece
from dama.geometry import geometry
from dama.notation import parse_square

VARIANTS_8X8 = ("czech", "brazilian")
ALL_VARIANTS = ("czech", "international", "brazilian")


def moves(variant: str, fen: str) -> set[str]:
    """The legal moves as full routes (first route of each distinct move)."""
    legal = Board(variant, fen).legal_moves
    out = {m.route_str() for m in legal}
    assert len(out) == len(legal), "two distinct moves printed as the same route"
    return out


def all_routes(variant: str, fen: str) -> set[str]:
    legal = Board(variant, fen).legal_moves
    return {m.route_str(i) for m in legal for i in range(len(m.routes))}


def only_move(variant: str, fen: str) -> Move:
    legal = Board(variant, fen).legal_moves
    assert len(legal) == 1, [m.route_str() for m in legal]
    return legal[0]


# --------------------------------------------------------------------------------------------
# Board, start position, numbering (CUD 2006 art. 2, 8; SDS art. 1, 9)
# --------------------------------------------------------------------------------------------


def test_cud_2_8_czech_start_position_black_1_12_white_21_32() -> None:
    """CUD 2006 art. 2.8a: twelve men each; RULES.md: White on 21-32 (art. 2.8b's 25-32 is a typo)."""
    b = Board("czech")
    assert b.pieces(BLACK) == list(range(1, 13))
    assert b.pieces(WHITE) == list(range(21, 33))
    assert b.pieces(WHITE, king=True) == [] and b.pieces(BLACK, king=True) == []
    assert b.count(WHITE) == (12, 0) and b.count(BLACK) == (12, 0)
    # art. 2.8a lists the squares by name
    names_black = {"a7", "b6", "b8", "c7", "d6", "d8", "e7", "f6", "f8", "g7", "h6", "h8"}
    names_white = {"a1", "a3", "b2", "c1", "c3", "d2", "e1", "e3", "f2", "g1", "g3", "h2"}
    assert {b.square_name(s, algebraic=True) for s in b.pieces(BLACK)} == names_black
    assert {b.square_name(s, algebraic=True) for s in b.pieces(WHITE)} == names_white
    # rows 4 and 5 are empty
    assert all(b.piece_at(s) is None for s in range(13, 21))
    assert b.turn == WHITE  # art. 3.3: White moves first
    assert b.fen() == "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


def test_cud_3_3_first_moves_of_the_czech_start_position() -> None:
    """CUD 2006 art. 3.3-3.4: White begins, men step forward: 7 moves from rows 3 to 4."""
    assert moves("czech", Board("czech").fen()) == {
        "21-17",
        "22-17",
        "22-18",
        "23-18",
        "23-19",
        "24-19",
        "24-20",
    }


def test_sds_brazilian_1_start_position() -> None:
    """SDS Brazilian art. 1: White on a1 c1 e1 g1 b2 d2 f2 h2 a3 c3 e3 g3, Black on rows 6-8."""
    b = Board("brazilian")
    white = {b.square_name(s, algebraic=True) for s in b.pieces(WHITE)}
    black = {b.square_name(s, algebraic=True) for s in b.pieces(BLACK)}
    assert white == {"a1", "c1", "e1", "g1", "b2", "d2", "f2", "h2", "a3", "c3", "e3", "g3"}
    assert black == {"h8", "f8", "d8", "b8", "g7", "e7", "c7", "a7", "h6", "f6", "d6", "b6"}
    assert b.turn == WHITE
    assert len(b.legal_moves) == 7


def test_sds_international_1_start_position() -> None:
    """SDS international art. 1: 20 men each, Black on 1-20, White on 31-50; art. 2: White starts."""
    b = Board("international")
    assert b.pieces(BLACK) == list(range(1, 21))
    assert b.pieces(WHITE) == list(range(31, 51))
    assert b.count(WHITE) == (20, 0) and b.count(BLACK) == (20, 0)
    assert b.turn == WHITE
    assert moves("international", b.fen()) == {
        "31-26",
        "31-27",
        "32-27",
        "32-28",
        "33-28",
        "33-29",
        "34-29",
        "34-30",
        "35-30",
    }


# CUD 2006 art. 8.1: the same 32 squares in algebraic (8.1a) and numeric (8.1b) order.
CUD_8_1_ALGEBRAIC = (
    "a1", "a3", "a5", "a7", "b2", "b4", "b6", "b8", "c1", "c3", "c5", "c7", "d2", "d4", "d6", "d8",
    "e1", "e3", "e5", "e7", "f2", "f4", "f6", "f8", "g1", "g3", "g5", "g7", "h2", "h4", "h6", "h8",
)  # fmt: skip
CUD_8_1_NUMERIC = (
    29, 21, 13, 5, 25, 17, 9, 1, 30, 22, 14, 6, 26, 18, 10, 2,
    31, 23, 15, 7, 27, 19, 11, 3, 32, 24, 16, 8, 28, 20, 12, 4,
)  # fmt: skip


@pytest.mark.parametrize("variant", VARIANTS_8X8)
def test_cud_2_6_and_8_1_numbering_table(variant: str) -> None:
    """CUD 2006 art. 2.6b and 8.1: 1 = b8, 4 = h8, 29 = a1, 32 = g1; the full table of art. 8.1."""
    g = geometry(8)
    for name, number in zip(CUD_8_1_ALGEBRAIC, CUD_8_1_NUMERIC, strict=True):
        assert g.name(number) == name
        assert parse_square(name, variant) == number
        assert parse_square(str(number), variant) == number
    assert (g.name(1), g.name(4), g.name(29), g.name(32)) == ("b8", "h8", "a1", "g1")


def test_sds_international_1_numbering_10x10() -> None:
    """SDS international art. 1: 1-5 on Black's back row, 46 in White's left corner, 50 at his right."""
    g = geometry(10)
    assert g.name(46) == "a1"
    assert g.name(50) == "i1"  # "the dark square next to the light corner at White's right"
    assert [g.name(s) for s in range(1, 6)] == ["b10", "d10", "f10", "h10", "j10"]
    assert g.name(45) == "j2"


def test_cud_8_2_move_text_numeric_and_algebraic() -> None:
    """CUD 2006 art. 8.2 / SDS Brazilian art. 9: start and end, '-' for a move, 'x' for a capture."""
    b = Board("czech")
    m = b.parse_move("22-18")
    assert b.parse_move("c3-d4") == m
    assert b.move_text(m) == "22-18"
    assert b.move_text(m, algebraic=True) == "c3-d4"
    br = Board("brazilian", "W:Wd4:Be5")  # SDS Brazilian art. 9 example 2. d4xf6
    cap = br.parse_move("d4xf6")
    assert br.move_text(cap) == "d4xf6"
    assert br.move_text(cap, algebraic=False) == "18x11"
    assert cap.captured == (15,)


def test_cud_2_2_men_on_their_crowning_row_are_not_a_position() -> None:
    """CUD 2006 art. 3.5: a man on the far row is a king, so 'W:W1' (a white man on b8) is refused."""
    from dama import InvalidFenError

    with pytest.raises(InvalidFenError):
        Board("czech", "W:W1:B20")
    assert Board("czech", "W:WK1:B20").piece_at(1) == Piece(WHITE, True)


# --------------------------------------------------------------------------------------------
# Moves of men and kings (CUD 2006 art. 3)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS_8X8)
def test_cud_3_4_men_move_forward_only(variant: str) -> None:
    """CUD 2006 art. 3.4 (SDS art. 2): a man steps one square diagonally forward, never back."""
    # white man c3 (22), black man f6 (11), no contact
    assert moves(variant, "W:W22:B11") == {"22-17", "22-18"}
    assert moves(variant, "B:W22:B11") == {"11-15", "11-16"}
    # a man on the edge has one move; a man whose forward squares are taken has none
    assert moves(variant, "W:W21:B11") == {"21-17"}
    assert moves(variant, "W:W21,17,18:B11") == {"17-13", "17-14", "18-14", "18-15"}


def test_sds_2_men_move_forward_only_international() -> None:
    """SDS international art. 2: a man moves one square forward (White up, Black down)."""
    assert moves("international", "W:W33:B18") == {"33-28", "33-29"}
    assert moves("international", "B:W33:B18") == {"18-22", "18-23"}
    assert moves("international", "W:W36:B5") == {"36-31"}


@pytest.mark.parametrize("variant", VARIANTS_8X8)
def test_cud_3_9_flying_king_moves_any_distance(variant: str) -> None:
    """CUD 2006 art. 3.9: a king moves forwards and backwards any number of empty squares."""
    # white king c3 (22) alone in the middle: 2 + 5 + 2 + 2 squares
    assert moves(variant, "W:WK22:B5") == {
        "22-17",
        "22-13",
        "22-18",
        "22-15",
        "22-11",
        "22-8",
        "22-4",
        "22-25",
        "22-29",
        "22-26",
        "22-31",
    }
    # its own man on f6 (11) stops the ray at e5 and is not jumped (art. 4.7)
    got = moves(variant, "W:WK22,11:B5")
    assert {m for m in got if m.startswith("22-")} == {
        "22-17",
        "22-13",
        "22-18",
        "22-15",
        "22-25",
        "22-29",
        "22-26",
        "22-31",
    }


def test_sds_6_flying_king_international() -> None:
    """SDS international art. 6: the king runs the whole diagonal, forwards and backwards."""
    got = moves("international", "W:WK46:B5")
    assert got == {f"46-{s}" for s in (41, 37, 32, 28, 23, 19, 14, 10, 5)} - {"46-5"}


@pytest.mark.parametrize("variant", VARIANTS_8X8)
def test_cud_3_5_crowning_on_the_far_row(variant: str) -> None:
    """CUD 2006 art. 3.5: a man that ends its move on the far row becomes a king; only there."""
    b = Board(variant, "W:W6:B28")  # white man c7
    by_route = {m.route_str(): m for m in b.legal_moves}
    assert set(by_route) == {"6-1", "6-2"}
    assert all(m.crowns for m in by_route.values())
    b.push(by_route["6-2"])
    assert b.piece_at(2) == Piece(WHITE, True)
    # a step that does not reach the far row does not crown
    b2 = Board(variant, "W:W10:B28")
    assert not any(m.crowns for m in b2.legal_moves)
    # Black crowns on row 1 (29-32)
    b3 = Board(variant, "B:WK1:B27")
    assert {m.route_str() for m in b3.legal_moves if m.crowns} == {"27-31", "27-32"}


@pytest.mark.parametrize("variant", VARIANTS_8X8)
def test_cud_3_8_a_new_king_acts_only_from_its_next_move(variant: str) -> None:
    """CUD 2006 art. 3.8: the new king uses its king moves only after the opponent has replied."""
    # white man g7 (8) crowns on h8 (4); the black man on a7 (5) keeps the game going
    b = Board(variant, "W:W8:B5")
    b.push(b.parse_move("8-4"))
    assert b.piece_at(4) == Piece(WHITE, True)
    b.push(b.parse_move("5-9"))
    got = {m.route_str() for m in b.legal_moves}
    assert got == {"4-8", "4-11", "4-15", "4-18", "4-22", "4-25", "4-29"}


# --------------------------------------------------------------------------------------------
# Captures (CUD 2006 art. 4; SDS art. 2-6)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ALL_VARIANTS[::2])
def test_cud_4_1_capture_is_compulsory(variant: str) -> None:
    """CUD 2006 art. 4.1 (SDS art. 3): when a capture exists, no quiet move is legal."""
    # white men c3 (22) and e1 (31); black man d4 (18) in front of c3 with e5 empty
    assert moves(variant, "W:W22,31:B18") == {"22x15"}
    # and for Black: black man d4 jumps c3 to b2
    assert moves(variant, "B:W22,31:B18,5") == {"18x25"}


def test_sds_3_capture_is_compulsory_international() -> None:
    """SDS international art. 3: capturing is compulsory."""
    assert moves("international", "W:W28,45:B23") == {"28x19"}


def test_cud_4_1_czech_men_do_not_capture_backward() -> None:
    """CUD 2006 art. 4.1: a man captures only forward; the black man behind it is not capturable."""
    # white man d4 (18), black man c3 (22) behind it, b2 empty
    assert moves("czech", "W:W18:B22") == {"18-14", "18-15"}


def test_sds_2_brazilian_men_capture_backward() -> None:
    """SDS Brazilian art. 2: men capture backward too (same position as the Czech test)."""
    assert moves("brazilian", "W:W18:B22") == {"18x25"}


def test_sds_2_international_men_capture_backward() -> None:
    """SDS international art. 2: men capture backward (white 28 jumps the black man on 33)."""
    assert moves("international", "W:W28:B33") == {"28x39"}


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_cud_4_2_man_capture_needs_an_empty_square_right_behind(variant: str) -> None:
    """CUD 2006 art. 4.2: a man jumps an adjacent piece only into the empty square behind it."""
    if variant == "international":
        assert moves(variant, "W:W28,45:B23,19") == {"28-22", "45-40"}
    else:
        # c3 (22) against d4 (18) with e5 (15) taken by a black man: no capture
        assert moves(variant, "W:W22:B18,15") == {"22-17"}


@pytest.mark.parametrize("variant", VARIANTS_8X8)
def test_cud_4_3_king_captures_at_distance_and_lands_anywhere_beyond(variant: str) -> None:
    """CUD 2006 art. 4.3: the king jumps a piece far along its diagonal and picks any empty landing."""
    # white king a1 (29), black man e5 (15): land f6, g7 or h8
    assert moves(variant, "W:WK29:B15") == {"29x11", "29x8", "29x4"}
    # the landing run stops at the next piece: a white man on g7 (8) leaves only f6
    assert moves(variant, "W:WK29,8:B15") == {"29x11"}


def test_sds_6_king_captures_at_distance_international() -> None:
    """SDS international art. 6: the king jumps at any distance and lands on any free square beyond."""
    assert moves("international", "W:WK46:B28") == {"46x23", "46x19", "46x14", "46x10", "46x5"}


@pytest.mark.parametrize("variant", VARIANTS_8X8)
def test_cud_4_5_man_multi_capture_must_be_completed(variant: str) -> None:
    """CUD 2006 art. 4.5: a man that can jump again must go on; stopping half-way is not a move."""
    # c3 (22) x d4 (18) -> e5 (15) x f6 (11) -> g7 (8)
    assert moves(variant, "W:W22:B18,11") == {"22x15x8"}
    b = Board(variant, "W:W22:B18,11")
    from dama import IllegalMoveError

    with pytest.raises(IllegalMoveError):
        b.parse_move("22x15")


@pytest.mark.parametrize("variant", VARIANTS_8X8)
def test_cud_4_5_change_of_direction_after_each_landing(variant: str) -> None:
    """CUD 2006 art. 4.5-4.6: after a landing the next jump may go in another direction."""
    # from e5 the man can go on over f6 (to g7) or turn over d6 (to c7)
    assert moves(variant, "W:W22:B18,11,10") == {"22x15x8", "22x15x6"}


@pytest.mark.parametrize("variant", VARIANTS_8X8)
def test_sds_brazilian_6_example_king_a1xh4(variant: str) -> None:
    """SDS Brazilian art. 6 example: king a1 x b2 -> c3 x d2 -> e1 x g3 -> h4, written a1xh4.

    Also CUD 2006 art. 4.6: a king's multi-capture with changes of direction, completed.
    """
    b = Board(variant, "W:WK29:B25,26,24")
    m = b.parse_move("a1xh4")
    assert m.route_str() == "29x22x31x20"
    assert set(m.captured) == {25, 26, 24}
    assert b.route_text(m, algebraic=True) == "a1xc3xe1xh4"
    if variant == "brazilian":
        assert moves(variant, "W:WK29:B25,26,24") == {"29x22x31x20"}


def test_sds_international_6_example_46x37x48x25() -> None:
    """SDS international art. 6 example: king 46 x 41 -> 37 x 42 -> 48 x 30 -> 25 (RULES.md route)."""
    assert moves("international", "W:WK46:B41,42") == {"46x37x48"}
    assert moves("international", "W:WK46:B41,42,30") == {"46x37x48x25"}


@pytest.mark.parametrize("variant", VARIANTS_8X8)
def test_cud_4_7_own_pieces_cannot_be_jumped(variant: str) -> None:
    """CUD 2006 art. 4.7: own pieces are never jumped, even with an enemy piece beyond."""
    # king a1 (29) behind its own man b2 (25); black d4 (18) further on: no capture by the king
    assert moves(variant, "W:WK29,25:B18") == {"25-21", "25-22"}
    # a man never jumps its own man: c3 (22) and d4 (18) white, e5 empty
    assert moves(variant, "W:W22,18:B1") == {"22-17", "18-14", "18-15"}


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_sds_2_two_pieces_in_a_row_cannot_be_jumped(variant: str) -> None:
    """SDS art. 2 and 6 (CUD 2006 art. 4.3): two enemy pieces one right behind the other block."""
    if variant == "international":
        # king 46 against 37 and 32 in a row: no capture, only the square 41 is free
        assert moves(variant, "W:WK46:B37,32") == {"46-41"}
        return
    # king a1 (29) against d4 (18) and e5 (15) standing together
    assert moves(variant, "W:WK29:B18,15") == {"29-25", "29-22"}
    # a man against c3? no: white man e3 (23) against d4 (18), c5 (14) behind it
    assert moves(variant, "W:W23:B18,14") == {"23-19"}


@pytest.mark.parametrize("variant", VARIANTS_8X8)
def test_cud_4_8_turkish_strike_jumped_piece_still_blocks(variant: str) -> None:
    """CUD 2006 art. 4.8 and 4.11 (RULES.md Turkish strike): jumped pieces stay until the move ends.

    King c3 (22) takes d4 (18), e7 (7) and c7 (6) and lands on b6 (9) or a5 (13). The black man on
    e3 (23) stands behind d4 on the b6-g1 diagonal: if d4 were removed at once, the king could jump e3
    as well. It is still on the board, so the capture ends there.
    """
    fen = "W:WK22:B18,7,6,23"
    expected = {"22x11x2x9", "22x11x2x13"}
    if variant == "czech":
        expected |= {"22x15x1"}  # no majority rule: the 2-piece capture via e5 is legal too
    assert moves(variant, fen) == expected
    for m in Board(variant, fen).legal_moves:
        assert 23 not in m.captured


@pytest.mark.parametrize("variant", VARIANTS_8X8)
def test_cud_4_8_a_piece_cannot_be_jumped_twice(variant: str) -> None:
    """CUD 2006 art. 4.8: a piece is jumped only once, so the loop round b4 b6 d6 d4 stops at c3.

    Brazilian men capture backward and go round the square; coming back to c3 (22) the man could
    jump d4 (18) again if that were allowed.
    """
    b = Board("brazilian", "W:W22:B18,10,9,17")
    (m,) = b.legal_moves
    assert m.start == m.end == 22
    assert set(m.captured) == {18, 10, 9, 17}
    # Czech men capture only forward: two captures of two pieces each
    assert moves("czech", "W:W22:B18,10,9,17") == {"22x13x6", "22x15x6"}


@pytest.mark.parametrize("variant", VARIANTS_8X8)
def test_rules_md_king_may_land_on_its_own_start_square(variant: str) -> None:
    """RULES.md / SDS art. 6: a king may go round a square and land on its start square.

    King c3 (22) takes b4, b6, d6, d4 (or the other way round); after the last jump it may land on
    c3 itself, b2/a1 or d2/e1.
    """
    got = moves(variant, "W:WK22:B18,10,9,17")
    assert got == {
        "22x13x6x15x22",
        "22x13x6x15x25",
        "22x13x6x15x29",
        "22x15x6x13x26",
        "22x15x6x13x31",
    }
    home = next(m for m in Board(variant, "W:WK22:B18,10,9,17").legal_moves if m.end == 22)
    b = Board(variant, "W:WK22:B18,10,9,17")
    b.push(home)
    assert b.piece_at(22) == Piece(WHITE, True)
    assert b.pieces(BLACK) == []


@pytest.mark.parametrize("variant", VARIANTS_8X8)
def test_cud_4_8_king_may_cross_the_same_empty_square_twice(variant: str) -> None:
    """CUD 2006 art. 4.8: the capturing piece may pass the same square several times.

    King a3 (21) runs over b4 (17) to take e7 (7), then g7 (8), g5 (16) and c3 (22), and comes
    back over b4 or even lands on it.
    """
    assert moves(variant, "W:WK21:B8,22,7,16") == {"21x3x12x26x13", "21x3x12x26x17"}


@pytest.mark.parametrize("variant", VARIANTS_8X8)
def test_rules_md_equivalent_routes_are_one_move(variant: str) -> None:
    """RULES.md "Counting moves": same start, end and captured set is one move keeping its routes."""
    b = Board(variant, "W:WK22:B18,10,9,17")
    home = [m for m in b.legal_moves if m.end == 22]
    assert len(home) == 1
    assert set(home[0].routes) == {(22, 13, 6, 15, 22), (22, 15, 6, 13, 22)}
    assert all_routes(variant, "W:WK22:B18,10,9,17") == moves(variant, "W:WK22:B18,10,9,17") | {
        "22x15x6x13x22"
    }
    # every route is accepted as input and gives the same move
    assert b.parse_move("22x15x6x13x22") == b.parse_move("22x13x6x15x22") == home[0]
    # and the short form 22x22 names it
    assert b.parse_move("22x22") == home[0]
    assert b.perft(1) == 5


def test_rules_md_equivalent_routes_international_king() -> None:
    """RULES.md "Counting moves" (international): the king on 37 goes round 31 21 22 32 either way
    and comes home; the two routes are one move, and perft counts it once."""
    b = Board("international", "W:WK37:B31,21,22,32")
    assert moves("international", b.fen()) == {
        "37x26x17x28x37",
        "37x26x17x28x41",
        "37x26x17x28x46",
        "37x28x17x26x42",
        "37x28x17x26x48",
    }
    (home,) = [m for m in b.legal_moves if m.end == 37]
    assert set(home.routes) == {(37, 26, 17, 28, 37), (37, 28, 17, 26, 37)}
    assert b.perft(1) == 5
    for i in range(2):
        assert b.parse_move(b.route_text(home, i)) == home


# --------------------------------------------------------------------------------------------
# Choosing among captures: majority, king priority, forced landing
# --------------------------------------------------------------------------------------------


def test_cud_4_13_no_majority_rule_in_czech() -> None:
    """CUD 2006 art. 4.13: free choice whatever the number taken (1 piece beside 3 pieces)."""
    # e1 (31) x d2, d4, d6 -> c7 (3 pieces); h2 (28) x g3 -> f4 (1 piece)
    assert moves("czech", "W:W31,28:B26,18,10,24") == {"31x22x15x6", "28x19"}


def test_cud_4_13_no_majority_rule_czech_king() -> None:
    """CUD 2006 art. 4.13: a king may take 2 where it could take 3 (both routes complete)."""
    assert moves("czech", "W:WK29:B25,26,24") == {"29x22x31x20", "29x15x28"}


@pytest.mark.parametrize("variant", ("brazilian",))
def test_sds_4_majority_rule(variant: str) -> None:
    """SDS art. 4: the capture that takes the most pieces is compulsory (same position as 4.13)."""
    assert moves(variant, "W:W31,28:B26,18,10,24") == {"31x22x15x6"}
    assert moves(variant, "W:WK29:B25,26,24") == {"29x22x31x20"}


def test_sds_4_majority_rule_international() -> None:
    """SDS international art. 4: 2 pieces beat 1 (37 x 32, 22 against 45 x 40)."""
    # 37 (c3) x 32 (d4) -> 28 (e5) x 22 (d6) -> 17 (c7); 45 (j2) x 40 (i3) -> 34 (h4)
    assert moves("international", "W:W37,45:B32,22,40") == {"37x28x17"}


@pytest.mark.parametrize("variant", VARIANTS_8X8)
def test_sds_4_kings_and_men_count_alike(variant: str) -> None:
    """SDS art. 4 / RULES.md: majority counts pieces, a king is one piece like a man.

    e1 (31) takes two men (d2, d4); h2 (28) takes two kings (g3, g5): equal, both legal.
    """
    assert moves(variant, "W:W31,28:B26,18,K24,K16") == {"31x22x15", "28x19x12"}
    # two men beat one king
    expected = {"31x22x15"} if variant == "brazilian" else {"31x22x15", "28x19"}
    assert moves(variant, "W:W31,28:B26,18,K24") == expected


def test_sds_4_kings_and_men_count_alike_international() -> None:
    """SDS international art. 4: a king and a man tie with two men; two men beat one king."""
    # 37 (c3) x K32 -> 28 x 22 -> 17 takes a king and a man; 45 x 40 -> 34 x 29 -> 23 two men
    assert moves("international", "W:W37,45:BK32,22,40,29") == {"37x28x17", "45x34x23"}
    assert moves("international", "W:W37,45:BK32,40,29") == {"45x34x23"}


def test_cud_4_14_czech_king_priority_beats_a_larger_man_capture() -> None:
    """CUD 2006 art. 4.14: when a king and a man can both capture, the king must (1 beats 2)."""
    # king a5 (13) x b6 (9) -> c7/d8; man e1 (31) x d2 -> c3 x d4 -> e5 would take 2
    assert moves("czech", "W:W31,K13:B26,18,9") == {"13x6", "13x2"}


def test_cud_4_14_czech_free_choice_among_kings() -> None:
    """CUD 2006 art. 4.13-4.14: among kings the choice is free (1 piece or 2 pieces)."""
    assert moves("czech", "W:WK31,K13:B26,18,9") == {
        "13x6",
        "13x2",
        "31x22x15",
        "31x22x11",
        "31x22x8",
        "31x22x4",
    }


def test_cud_4_14_czech_free_choice_among_men_when_no_king_captures() -> None:
    """CUD 2006 art. 4.14: a king that cannot capture gives no priority; men choose freely."""
    # king a5 (13) has no capture (e1 behind d2 is its own man); men e1 and h2 capture 3 and 1
    assert moves("czech", "W:WK13,31,28:B26,18,10,24") == {"31x22x15x6", "28x19"}


@pytest.mark.parametrize("variant", ("brazilian", "international"))
def test_sds_6_king_has_no_priority(variant: str) -> None:
    """SDS art. 6: a king capturing 1 does not beat a man capturing 2 (majority decides)."""
    if variant == "brazilian":
        assert moves(variant, "W:W31,K13:B26,18,9") == {"31x22x15"}
        # equal counts: king and man are both allowed
        assert moves(variant, "W:W28,K13:B24,9") == {"13x6", "13x2", "28x19"}
    else:
        # man 21 x 27 -> 32 x 28 -> 23 (2, backward first); king 38 x 27 only 1
        assert moves(variant, "W:W21,K38:B28,27,31") == {"21x32x23"}


@pytest.mark.parametrize("variant", VARIANTS_8X8)
def test_cud_4_13_forced_king_landing(variant: str) -> None:
    """CUD 2006 art. 4.13 last sentence / RULES.md: the king must land where it can capture again.

    King a1 (29) takes c3 (22): of the landings d4 e5 f6 g7 h8 only d4 (then e3) and f6 (then g5)
    continue, so e5, g7 and h8 are not legal landings.
    """
    assert moves(variant, "W:WK29:B22,23,16") == {"29x18x27", "29x18x32", "29x11x20"}
    b = Board(variant, "W:WK29:B22,23,16")
    from dama import IllegalMoveError

    for stop in ("29x15", "29x8", "29x4"):
        with pytest.raises(IllegalMoveError):
            b.parse_move(stop)


def test_cud_4_13_forced_king_landing_single_square() -> None:
    """CUD 2006 art. 4.13 last sentence: king a1 x b2 must land on c3 to take d2 (Czech)."""
    assert moves("czech", "W:WK29:B25,26") == {"29x22x31"}


@pytest.mark.parametrize("variant", VARIANTS_8X8)
def test_sds_5_no_crowning_in_passing(variant: str) -> None:
    """SDS art. 5 (international/Brazilian): passing the far row during a capture does not crown;
    CUD 2006 art. 3.5 (Czech): a man reaching the far row by capture stops there and is crowned.

    White man f6 (11) x e7 (7) lands on d8 (2). Brazilian: it must go on backward over c7 (6) to b6
    (9) and stays a man (as a king it could also take d4 (18) from b6). Czech: men do not capture
    backward, so it stops on d8 and is crowned.
    """
    m = only_move(variant, "W:W11:B7,6,18")
    if variant == "brazilian":
        assert m.route_str() == "11x2x9"
        assert not m.crowns
        b = Board(variant, "W:W11:B7,6,18")
        b.push(m)
        assert b.piece_at(9) == Piece(WHITE, False)
        assert b.piece_at(18) == Piece(BLACK, False)
    else:
        assert m.route_str() == "11x2"
        assert m.crowns
        b = Board(variant, "W:W11:B7,6,18")
        b.push(m)
        assert b.piece_at(2) == Piece(WHITE, True)


def test_sds_5_no_crowning_in_passing_international() -> None:
    """SDS international art. 5: man 13 x 8 -> 2 (far row) x 7 -> 11 stays a man; as a king it
    could go on over 28."""
    m = only_move("international", "W:W13:B8,7,28")
    assert m.route_str() == "13x2x11"
    assert not m.crowns
    b = Board("international", "W:W13:B8,7,28")
    b.push(m)
    assert b.piece_at(11) == Piece(WHITE, False)


def test_sds_5_crowning_when_the_capture_ends_on_the_far_row_international() -> None:
    """SDS international art. 5: a man whose capture ends on the far row is crowned."""
    m = only_move("international", "W:W13:B8")
    assert m.route_str() == "13x2"
    assert m.crowns


# --------------------------------------------------------------------------------------------
# Game end: loss (CUD 2006 art. 7.2; SDS art. 7)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_cud_7_2c_no_pieces_loses(variant: str) -> None:
    """CUD 2006 art. 7.2c / SDS art. 7: the player to move with no pieces has lost."""
    sq = 21 if variant != "international" else 31
    o = Board(variant, f"B:W{sq}:B").outcome()
    assert o is not None and o.winner == WHITE and o.reason == "no_pieces"
    assert o.result() == "2-0"
    o2 = Board(variant, "W:W:B5").outcome()
    assert o2 is not None and o2.winner == BLACK and o2.result() == "0-2"
    assert Board(variant, f"W:W{sq}:B").outcome() is None


def test_sds_international_7_example_blocked_man_45_against_50() -> None:
    """SDS international art. 7 example: black's last man on 45, white man on 50, Black to move."""
    b = Board("international", "B:W50:B45")
    assert b.legal_moves == []
    o = b.outcome()
    assert o is not None and o.winner == WHITE and o.reason == "no_moves"
    assert Board("international", "W:W50:B45").outcome() is None


def test_sds_brazilian_7_example_blocked_h2_against_g1() -> None:
    """SDS Brazilian art. 7 example: black's last man on h2, white man on g1, Black to move."""
    b = Board("brazilian", "B:Wg1:Bh2")
    assert b.legal_moves == []
    o = b.outcome()
    assert o is not None and o.winner == WHITE and o.reason == "no_moves"


def test_cud_7_2b_blocked_position_loses() -> None:
    """CUD 2006 art. 7.2b: a player to move whose pieces are all blocked has lost."""
    # the same h2 / g1 picture in Czech numbering, and a blocked white man on a3 behind b4 c5
    o = Board("czech", "B:W32:B28").outcome()
    assert o is not None and o.winner == WHITE and o.reason == "no_moves"
    b = Board("czech", "W:W21:B17,14")
    assert b.legal_moves == []
    o = b.outcome()
    assert o is not None and o.winner == BLACK and o.reason == "no_moves"
    assert "7.2b" in o.article


# --------------------------------------------------------------------------------------------
# Draws (CUD 2006 art. 6; SDS art. 8; FMJD counts per RULES.md)
# --------------------------------------------------------------------------------------------


def king_walk(
    board: Board,
    plies: int,
    allowed: Callable[[Board, Move], bool] = lambda b, m: True,
) -> list[Move]:
    """A sequence of ``plies`` quiet king moves from ``board`` (left unchanged) that never repeats
    a position and never leaves a capture to the side to move (depth-first, deterministic)."""
    path: list[Move] = []

    def dfs() -> bool:
        if len(path) == plies:
            return True
        for m in board.legal_moves:
            if m.captured or not board.kings >> board.geo.bit_of[m.start] & 1:
                continue
            if not allowed(board, m):
                continue
            board.push(m)
            path.append(m)
            ok = board.repetitions() == 1 and not any(x.captured for x in board.legal_moves)
            if ok and dfs():
                return True
            path.pop()
            board.pop()
        return False

    assert dfs(), "no walk found"
    for _ in path:
        board.pop()
    return path


def play_until(board: Board, walk: list[Move], limit: int) -> None:
    """Play ``walk``: no outcome before ply ``limit``; a draw exactly at ply ``limit``."""
    for i, m in enumerate(walk, start=1):
        board.push(m)
        o = board.outcome()
        if i < limit:
            assert o is None, (i, o)
        elif i == limit:
            assert o is not None and o.winner is None, (i, o)
            assert o.result() == "1-1"


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_cud_6_1_threefold_repetition(variant: str) -> None:
    """CUD 2006 art. 6.1 / SDS art. 8: the same position with the same side to move a third time."""
    if variant == "international":
        fen, shuffle = "W:WK47,36:BK4,15", ["47-41", "4-9", "41-47", "9-4"]
    else:
        # white king a1 (29) and man h2 (28); black king b8 (1) and man a7 (5), kept apart
        fen, shuffle = "W:WK29,28:BK1,5", ["29-25", "1-6", "25-29", "6-1"]
    b = Board(variant, fen)
    assert b.repetitions() == 1
    for i in range(8):
        b.push_text(shuffle[i % 4])
        if i == 3:
            assert b.repetitions() == 2
            assert b.outcome() is None
    assert b.repetitions() == 3
    o = b.outcome()
    assert o is not None and o.winner is None and o.reason == "threefold"
    # the same position with the other side to move is a different position
    b.pop()
    assert b.repetitions() == 2
    assert b.outcome() is None


def test_cud_6_1_repetition_needs_the_same_side_to_move() -> None:
    """CUD 2006 art. 6.1: positions count as the same only with the same player to move."""
    b = Board("czech", "W:WK29,22:BK1,9")
    assert Board("czech", "B:WK29,22:BK1,9").key() != b.key()
    assert Board("czech", "B:WK29,22:BK1,9").zobrist_hash() != b.zobrist_hash()


def test_cud_6_1_a_man_move_or_capture_ends_the_repetition_history() -> None:
    """CUD 2006 art. 6.1: after a man move the earlier positions cannot come back."""
    b = Board("czech", "W:WK29,22:BK1,9")
    for t in ("29-25", "1-5", "25-29", "5-1"):
        b.push_text(t)
    assert b.repetitions() == 2
    b.push_text("22-18")
    assert b.repetitions() == 1
    b.pop()
    assert b.repetitions() == 2


def test_cud_6_2_fifteen_moves_without_man_move_or_capture() -> None:
    """CUD 2006 art. 6.2 (RULES.md interpretation: 15 moves of each player = 30 plies)."""
    # two kings and a blocked-in man each: no lone-king endgame count applies
    fen = "W:WK29,K32,28:BK1,K4,5"
    b = Board("czech", fen)
    walk = king_walk(b, 30)
    for i, m in enumerate(walk, start=1):
        b.push(m)
        assert b.quiet_plies == i
        o = b.outcome()
        if i < 30:
            assert o is None, (i, o)
    o = b.outcome()
    assert o is not None and o.winner is None and o.reason == "move_rule"
    assert "6.2" in o.article


def test_cud_6_2_a_man_move_restarts_the_count() -> None:
    """CUD 2006 art. 6.2: the 15 moves must be consecutive; a man move starts the count again."""
    fen = "W:WK29,K32,28:BK1,K4,5"
    b = Board("czech", fen)
    walk = king_walk(b, 20)
    for m in walk:
        b.push(m)
    assert b.quiet_plies == 20
    man = next(m for m in b.legal_moves if m.start in (28, 5))
    b.push(man)
    assert b.quiet_plies == 0
    b.pop()
    assert b.quiet_plies == 20


def test_cud_6_3_three_kings_against_a_lone_king_off_the_main_diagonal() -> None:
    """CUD 2006 art. 6.3: three kings against one king off a1-h8: draw after 15 moves of each.

    (At 5 moves each it is not yet a draw: that shorter count of art. 6.4 needs the lone king on
    the main diagonal.)
    """
    main = {29, 25, 22, 18, 15, 11, 8, 4}
    fen = "W:WK30,K31,K32:BK1"
    b = Board("czech", fen)

    def off_diag(board: Board, m: Move) -> bool:
        return board.turn == WHITE or m.end not in main

    walk = king_walk(b, 30, off_diag)
    play_until(b, walk, 30)
    o = b.outcome()
    assert o is not None and ("6.3" in o.article or "6.2" in o.article)


def test_cud_6_4_three_kings_against_a_lone_king_on_the_main_diagonal() -> None:
    """CUD 2006 art. 6.4: three kings against one king on the main diagonal: 5 moves each."""
    main = {29, 25, 22, 18, 15, 11, 8, 4}
    b = Board("czech", "W:WK30,K31,K32:BK4")

    def on_diag(board: Board, m: Move) -> bool:
        return board.turn == WHITE or m.end in main

    walk = king_walk(b, 10, on_diag)
    play_until(b, walk, 10)
    o = b.outcome()
    assert o is not None and o.reason == "endgame_count" and "6.4" in o.article


@pytest.mark.parametrize("fen", ["W:WK30,K31:BK1", "W:WK30:BK1", "B:WK1:BK30,K31"])
def test_cud_6_4_two_kings_or_one_against_a_lone_king(fen: str) -> None:
    """CUD 2006 art. 6.4: at most two kings against one king: draw after 5 moves of each player."""
    b = Board("czech", fen)
    walk = king_walk(b, 10)
    play_until(b, walk, 10)
    o = b.outcome()
    assert o is not None and o.reason == "endgame_count" and "6.4" in o.article


def test_cud_6_4_king_and_man_against_king_counts_through_man_moves() -> None:
    """CUD 2006 art. 6.4: one king and one man against one king: 5 moves each, man moves included.

    The man's step resets the art. 6.2 count but not this one: the material has not changed.
    """
    b = Board("czech", "W:WK32,21:BK1")
    seq = king_walk(b, 4)
    for m in seq:
        b.push(m)
    b.push_text("21-17")  # White's man move (ply 5)
    assert b.quiet_plies == 0
    assert b.endgame_plies == 5
    rest = king_walk(b, 5, lambda board, m: True)
    play_until(b, rest, 5)
    assert b.endgame_plies == 10
    o = b.outcome()
    assert o is not None and o.reason == "endgame_count" and "6.4" in o.article


def test_rules_md_endgame_count_starts_when_the_material_appears() -> None:
    """RULES.md interpretation of CUD 2006 art. 6.3-6.4: counting starts on the move on which the
    material first stands on the board (here a capture leaving two kings against one)."""
    # white king a1 (29) takes the black king on c3 (22): two white kings against one black king
    b = Board("czech", "W:WK29,K32:BK22,K1")
    b.push_text("29x18")
    assert b.endgame_plies == 0
    assert b.count(BLACK) == (0, 1)
    walk = king_walk(b, 10)
    play_until(b, walk, 10)


def test_fmjd_25_moves_with_kings_only_international() -> None:
    """FMJD (RULES.md interpretation for international): 25 moves each of only kings, no capture."""
    b = Board("international", "W:WK46,K50,36:BK5,K1,15")
    walk = king_walk(b, 50)
    play_until(b, walk, 50)
    o = b.outcome()
    assert o is not None and o.reason == "move_rule"


@pytest.mark.parametrize("fen", ["W:WK46,K47,K48:BK4", "W:WK46,K47,36:BK4", "W:WK46,36,37:BK4"])
def test_fmjd_16_moves_three_pieces_against_a_lone_king(fen: str) -> None:
    """FMJD (RULES.md): three kings, two kings and a man, or a king and two men against one king:
    draw after 16 moves of each player."""
    b = Board("international", fen)
    walk = king_walk(b, 32)
    play_until(b, walk, 32)
    o = b.outcome()
    assert o is not None and o.reason == "endgame_count"


@pytest.mark.parametrize("fen", ["W:WK46,K47:BK4", "W:WK46,36:BK4", "W:WK46:BK4"])
def test_fmjd_5_moves_small_endgames(fen: str) -> None:
    """FMJD (RULES.md): two kings, a king and a man, or a king against one king: 5 moves each."""
    b = Board("international", fen)
    walk = king_walk(b, 10)
    play_until(b, walk, 10)
    o = b.outcome()
    assert o is not None and o.reason == "endgame_count"


def test_sds_brazilian_8_repetition_only() -> None:
    """SDS Brazilian art. 8 (RULES.md): no move-count or endgame draw by default, only repetition."""
    b = Board("brazilian", "W:WK29,K30,K31:BK1")
    walk = king_walk(b, 60)
    for m in walk:
        b.push(m)
        assert b.outcome() is None
    assert b.quiet_plies == 60


# --------------------------------------------------------------------------------------------
# Notation of captures (CUD 2006 art. 8.2, 9; SDS art. 9; RULES.md "Counting moves")
# --------------------------------------------------------------------------------------------


def test_sds_9_full_route_is_accepted_for_every_legal_capture() -> None:
    """RULES.md / SDS art. 9: the full route may always be written; here it is also the short form.

    King f4 (19) may take c7 alone (19x1, Czech free choice, art. 4.13) or four pieces ending on b8
    too. The full route of the one-piece capture is "19x1"; it must be accepted as that move.
    """
    b = Board("czech", "W:WK19:B6,22,23,14")
    assert moves("czech", "W:WK19:B6,22,23,14") == {"19x1", "19x26x17x10x1", "19x26x13x2"}
    long = b.parse_move("19x26x17x10x1")
    assert set(long.captured) == {23, 22, 14, 6}


def test_sds_9_one_piece_capture_route_is_not_ambiguous() -> None:
    """RULES.md "accept any of the routes": "19x1" is the whole route of the one-piece capture.

    An exact full route must win over the longer route it is a shortened form of, otherwise the
    one-piece capture could not be entered at all and move_text() of it would not parse back.
    """
    b = Board("czech", "W:WK19:B6,22,23,14")
    single = next(m for m in b.legal_moves if m.captured == (6,))
    assert b.parse_move("19x1") == single
    assert b.parse_move(b.move_text(single)) == single


def test_a_board_survives_pickling_with_its_move_stack() -> None:
    board = Board("czech", "W:W22,K32:B18,11")
    move = board.parse_move("32x5")
    board.push(move)
    copy = pickle.loads(pickle.dumps(board))
    assert copy == board and copy.fen() == board.fen()
    assert copy.legal_moves == board.legal_moves
    assert copy.pop() == move and copy.fen() == "W:W22,K32:B11,18"
