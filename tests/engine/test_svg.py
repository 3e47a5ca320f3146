"""SVG diagrams: valid XML, one element per dark square, pieces where the FEN puts them, flipped
orientation, accessible title and description in English and Czech, arrows for capture routes."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from dama import Board, InvalidSquareError, Move
from dama.svg import board_svg, describe

NS = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    return root


def squares(root: ET.Element) -> dict[int, ET.Element]:
    return {int(el.get("data-square", "0")): el for el in root.iter() if el.get("data-square")}


def pieces(root: ET.Element) -> dict[int, str]:
    """square -> data-piece of every piece (pieces sit inside their square's element)."""
    out = {}
    for sq, el in squares(root).items():
        found = [p.get("data-piece") for p in el.iter() if p.get("data-piece")]
        assert len(found) <= 1
        if found:
            out[sq] = str(found[0])
    return out


def offset(el: ET.Element) -> tuple[float, float]:
    m = re.fullmatch(r"translate\(([-\d.]+),([-\d.]+)\)", el.get("transform", ""))
    assert m, el.get("transform")
    return float(m.group(1)), float(m.group(2))


@pytest.mark.parametrize(
    ("variant", "count"), [("czech", 32), ("brazilian", 32), ("international", 50)]
)
def test_one_element_per_dark_square(variant: str, count: int) -> None:
    root = parse(board_svg(Board(variant)))
    sq = squares(root)
    assert sorted(sq) == list(range(1, count + 1))
    assert all("square" in el.get("class", "").split() for el in sq.values())
    assert root.get("role") == "img"
    assert root.get("viewBox", "").startswith("0 0 ")
    assert root.get("width") is None  # scales to its container


def test_pieces_where_the_fen_says() -> None:
    fen = "B:W31,32,K45:B10,12,K1"
    root = parse(board_svg(Board("international", fen)))
    assert pieces(root) == {31: "wm", 32: "wm", 45: "wk", 10: "bm", 12: "bm", 1: "bk"}
    kings = [el for el in root.iter() if el.get("data-piece") in ("wk", "bk")]
    assert all(any("crown" in (c.get("class") or "") for c in k.iter()) for k in kings)


def test_start_position_pieces() -> None:
    root = parse(board_svg(Board("czech")))
    p = pieces(root)
    assert {s for s, code in p.items() if code == "bm"} == set(range(1, 13))
    assert {s for s, code in p.items() if code == "wm"} == set(range(21, 33))


def test_geometry_and_flipped_orientation() -> None:
    board = Board("czech")
    normal = squares(parse(board_svg(board)))
    flipped = squares(parse(board_svg(board, flipped=True)))
    # square 1 (b8) is in the top row, square 29 (a1) in the bottom-left corner
    assert offset(normal[1])[1] < offset(normal[29])[1]
    assert offset(normal[29])[0] < offset(normal[32])[0]
    # flipped: square 1 at the bottom, 29 (a1) at the top right
    assert offset(flipped[1])[1] > offset(flipped[29])[1]
    assert offset(flipped[1])[1] == max(offset(e)[1] for e in flipped.values())
    assert offset(flipped[29])[0] == max(offset(e)[0] for e in flipped.values())
    assert offset(flipped[29])[1] == min(offset(e)[1] for e in flipped.values())


def test_title_and_description_in_english() -> None:
    root = parse(board_svg(Board("czech", "W:W21,22,K30:B1,2")))
    assert root.findtext(f"{NS}title") == "Czech draughts, White to move"
    assert root.findtext(f"{NS}desc") == (
        "White: men on 21, 22; king on 30. Black: men on 1, 2. White to move."
    )
    # title and desc come first, as screen readers expect
    assert [c.tag for c in root][:2] == [f"{NS}title", f"{NS}desc"]


def test_title_and_description_in_czech() -> None:
    svg = board_svg(Board("czech", "B:W21,K30,K31:B1"), lang="cs")
    root = parse(svg)
    assert root.findtext(f"{NS}title") == "Česká dáma, na tahu je černý"
    assert root.findtext(f"{NS}desc") == (
        "Bílý: kámen na poli 21; dámy na polích 30, 31. Černý: kámen na poli 1. Na tahu je černý."
    )
    assert root.get("lang") == "cs"


def test_empty_side_and_custom_title() -> None:
    root = parse(board_svg(Board("international", "W:W31:B"), title="Puzzle 3"))
    assert root.findtext(f"{NS}title") == "Puzzle 3"
    assert "Black: no pieces." in (root.findtext(f"{NS}desc") or "")
    assert "Černý: žádné kameny." in describe(Board("international", "W:W31:B"), lang="cs")


def test_brazilian_defaults_to_algebraic_names() -> None:
    root = parse(board_svg(Board("brazilian", "W:W22:B18")))
    assert root.findtext(f"{NS}desc") == "White: man on c3. Black: man on d4. White to move."
    coords = [t.text for g in root.iter() if g.get("class") == "coords" for t in g]
    assert "a" in coords and "h" in coords and "8" in coords
    assert squares(root)[22].get("data-name") == "c3"
    numeric = parse(board_svg(Board("brazilian", "W:W22:B18"), labels="numbers"))
    assert "man on 22" in (numeric.findtext(f"{NS}desc") or "")


def test_square_numbers_and_no_labels() -> None:
    numbered = parse(board_svg(Board("international")))
    texts = {
        int(t.text) for el in squares(numbered).values() for t in el.iter(f"{NS}text") if t.text
    }
    assert texts == set(range(1, 51))
    bare = parse(board_svg(Board("international"), labels=None))
    assert not list(bare.iter(f"{NS}text"))


def test_arrows_for_a_capture_route() -> None:
    board = Board("international", "W:WK46:B41,32,22,12")
    move = board.parse_move("46x37x28x17x3")
    root = parse(board_svg(board, arrows=move))
    arrows = [el for el in root.iter() if el.get("class") == "arrow"]
    assert len(arrows) == 1
    assert arrows[0].get("data-route") == "46x37x28x17x3"
    # one shaft and one head per hop: 46-37-28-17-3 is four hops
    assert len(list(arrows[0].iter(f"{NS}line"))) == 4
    assert len(list(arrows[0].iter(f"{NS}polygon"))) == 4
    assert len([e for e in arrows[0].iter() if e.get("class") == "captured"]) == 4
    assert "Arrow: 46x37x28x17x3." in (root.findtext(f"{NS}desc") or "")


def test_arrows_from_squares_and_several_routes() -> None:
    board = Board("czech")
    one = parse(board_svg(board, arrows=[22, 18]))
    assert len([e for e in one.iter() if e.get("class") == "arrow"]) == 1
    moves = board.legal_moves[:3]
    routes: list[Move | tuple[int, int]] = [*moves, (21, 17)]
    several = parse(board_svg(board, arrows=routes, lang="cs"))
    assert len([e for e in several.iter() if e.get("class") == "arrow"]) == 4
    assert "Šipky: " in (several.findtext(f"{NS}desc") or "")
    with pytest.raises(InvalidSquareError):
        board_svg(board, arrows=[22, 40])


def test_highlights_and_last_move() -> None:
    board = Board("czech")
    root = parse(board_svg(board, highlight={22: "good", 18: "my-class"}, last_move=[23, 19]))
    sq = squares(root)
    assert "good" in sq[22].get("class", "").split()
    assert "my-class" in sq[18].get("class", "").split()
    assert "last-move" in sq[23].get("class", "") and "last-move" in sq[19].get("class", "")
    assert "Last move: 23-19." in (root.findtext(f"{NS}desc") or "")
    plain = parse(board_svg(board, highlight=[5, 6]))
    assert "highlight" in squares(plain)[5].get("class", "").split()
    with pytest.raises(InvalidSquareError):
        board_svg(board, highlight=[33])


def test_flipped_coordinates_read_from_blacks_side() -> None:
    """Brazilian boards carry a-h and 1-8 along the edges: flipped, h and 8 come first."""

    def coords(svg: str, cls: str) -> list[str]:
        texts = [t for t in parse(svg).iter(f"{NS}text") if t.get("class") == cls]
        key = "x" if cls == "file" else "y"
        return [t.text or "" for t in sorted(texts, key=lambda t: float(t.get(key, "0")))]

    board = Board("brazilian")
    assert coords(board_svg(board), "file") == list("abcdefgh")
    assert coords(board_svg(board), "rank") == list("87654321")
    assert coords(board_svg(board, flipped=True), "file") == list("hgfedcba")
    assert coords(board_svg(board, flipped=True), "rank") == list("12345678")


def test_explanation_marks_have_a_colour_and_a_shape_each() -> None:
    root = parse(board_svg(Board("czech"), highlight={22: "wrong", 18: "required", 11: "jumped"}))
    sq = squares(root)
    fills = set()
    for n, cls in ((22, "wrong"), (18, "required"), (11, "jumped")):
        assert cls in sq[n].get("class", "").split()
        mark = [el for el in sq[n].iter() if el.get("class") == f"mark {cls}"]
        fills.add(mark[0].get("fill"))
        assert [el for el in sq[n].iter() if el.get("class") == f"mark-shape {cls}"]
    assert len(fills) == 3


def test_size_self_contained_and_bad_options() -> None:
    svg = board_svg(Board("czech"), size=320)
    root = parse(svg)
    assert root.get("width") == "320"
    assert "href" not in svg and "url(" not in svg and "<image" not in svg and " id=" not in svg
    with pytest.raises(ValueError):
        board_svg(Board("czech"), lang="de")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        board_svg(Board("czech"), labels="roman")  # type: ignore[arg-type]


def test_text_is_escaped() -> None:
    root = parse(board_svg(Board("czech"), title='Puzzle <1> & "two"'))
    assert root.findtext(f"{NS}title") == 'Puzzle <1> & "two"'
