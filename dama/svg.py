"""SVG diagrams of positions: squares, men, kings, labels, highlights and move arrows.

The SVG is self-contained (no external resources, no ids), scales by its ``viewBox`` and is
accessible: ``role="img"``, a ``<title>`` and a ``<desc>`` that lists the pieces in words, in
English or Czech. Every dark square is a ``<g data-square="N">`` holding its square, its label and
its piece (``data-piece="wm|wk|bm|bk"``), so a click anywhere on it finds the square with
``event.target.closest("[data-square]")``.

>>> from dama import Board
>>> svg = board_svg(Board("czech", "W:W21,K30:B5"), arrows=[21, 17])
>>> svg.count("data-square=")
32
>>> print(svg[svg.index("<title>"):svg.index("</desc>") + 7])
<title>Czech draughts, White to move</title><desc>White: man on 21; king on 30. Black: man on 5. White to move. Arrow: 21-17.</desc>
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal, TypeAlias
from xml.sax.saxutils import escape, quoteattr

from .baseboard import BLACK, WHITE, Color, Move
from .board import Board
from .errors import InvalidSquareError
from .geometry import Square

Labels: TypeAlias = Literal["auto", "numbers", "algebraic"]
Lang: TypeAlias = Literal["en", "cs"]
#: what ``arrows=`` accepts: a move, a route as squares, or several of either
Arrows: TypeAlias = Move | Sequence[Square] | Iterable[Move | Sequence[Square]]

#: the side of one square in viewBox units
SQUARE = 50
FRAME = 6
#: the margin that holds coordinates (algebraic labels), left and bottom
COORD_MARGIN = 22

COLORS = {
    "frame": "#5d3a1a",
    "light": "#eedcbb",
    "dark": "#a8744e",
    "label": "#f6ead3",
    "white_fill": "#fbf8f0",
    "white_edge": "#6f6658",
    "white_ring": "#c4bba9",
    "black_fill": "#2e2a27",
    "black_edge": "#0c0b0a",
    "black_ring": "#5e5852",
    "crown": "#e0aa28",
    "crown_edge": "#7a5500",
    "arrow": "#1d7a36",
    "captured": "#c62828",
}

#: fill colour and opacity of the highlight classes the site uses; other classes get the first
HIGHLIGHTS: dict[str, tuple[str, float]] = {
    "highlight": ("#ffd84d", 0.55),
    "last-move": ("#cbdc5e", 0.6),
    "good": ("#43a047", 0.55),
    "bad": ("#e53935", 0.5),
    "hint": ("#42a5f5", 0.5),
    "target": ("#42a5f5", 0.5),
    # an explanation's marks, each with a colour and a shape of its own (not colour alone)
    "wrong": ("#d32f2f", 0.55),
    "required": ("#1e88e5", 0.5),
    "jumped": ("#f9a825", 0.55),
}

#: the explanation marks that also get a shape: ``wrong`` a slash, ``required`` a ring, ``jumped``
#: a cross over the piece (see :func:`_mark_shape`)
MARK_SHAPES = ("wrong", "required", "jumped")


@dataclass(frozen=True, slots=True)
class _Words:
    white: str
    black: str
    white_to_move: str
    black_to_move: str
    men: tuple[str, str]  # one, several
    kings: tuple[str, str]
    none: str
    last: str
    arrows: tuple[str, str]

    def to_move(self, turn: Color) -> str:
        return self.white_to_move if turn == WHITE else self.black_to_move


_TEXT = {
    "en": _Words(
        white="White",
        black="Black",
        white_to_move="White to move",
        black_to_move="Black to move",
        men=("man on", "men on"),
        kings=("king on", "kings on"),
        none="no pieces",
        last="Last move",
        arrows=("Arrow", "Arrows"),
    ),
    "cs": _Words(
        white="Bílý",
        black="Černý",
        white_to_move="na tahu je bílý",
        black_to_move="na tahu je černý",
        men=("kámen na poli", "kameny na polích"),
        kings=("dáma na poli", "dámy na polích"),
        none="žádné kameny",
        last="Poslední tah",
        arrows=("Šipka", "Šipky"),
    ),
}


def _n(x: float) -> str:
    """A coordinate without a useless ``.0``."""
    r = round(x, 2)
    return str(int(r)) if r == int(r) else str(r)


def route_squares(move: Move, index: int = 0) -> tuple[Square, ...]:
    """The squares of route ``index`` of ``move``: start, each landing, end."""
    return move.routes[index]


def _routes(arrows: Arrows | None) -> list[tuple[tuple[Square, ...], tuple[Square, ...]]]:
    """Normalise ``arrows`` to (route squares, captured squares) pairs."""
    if arrows is None:
        return []
    if isinstance(arrows, Move):
        return [(route_squares(arrows), arrows.captured)]
    items = list(arrows)
    if items and all(isinstance(x, int) for x in items):
        return [(tuple(x for x in items if isinstance(x, int)), ())]
    out: list[tuple[tuple[Square, ...], tuple[Square, ...]]] = []
    for item in items:
        if isinstance(item, Move):
            out.append((route_squares(item), item.captured))
        elif isinstance(item, int):
            raise TypeError("arrows: give one route as a list of squares, or a list of routes")
        else:
            out.append((tuple(item), ()))
    return out


class _Layout:
    def __init__(self, board: Board, flipped: bool, coords: bool) -> None:
        self.geo = board.geo
        self.size = board.geo.size
        self.flipped = flipped
        self.left = COORD_MARGIN if coords else FRAME
        self.top = FRAME
        self.width = self.left + self.size * SQUARE + FRAME
        self.height = self.top + self.size * SQUARE + (COORD_MARGIN if coords else FRAME)

    def cell(self, row: int, col: int) -> tuple[float, float]:
        """Top-left corner of the board cell (row, col) as seen from White."""
        if self.flipped:
            row, col = self.size - 1 - row, self.size - 1 - col
        return self.left + col * SQUARE, self.top + row * SQUARE

    def corner(self, sq: Square) -> tuple[float, float]:
        return self.cell(*self.geo.row_col(sq))

    def center(self, sq: Square) -> tuple[float, float]:
        x, y = self.corner(sq)
        return x + SQUARE / 2, y + SQUARE / 2


@cache
def _piece(color: Color, king: bool) -> str:
    c = SQUARE / 2
    r = SQUARE * 0.38
    side = "white" if color == WHITE else "black"
    code = ("w" if color == WHITE else "b") + ("k" if king else "m")
    parts = [
        f'<g class="piece {side} {"king" if king else "man"}" data-piece="{code}">',
        f'<circle cx="{_n(c)}" cy="{_n(c + 1.5)}" r="{_n(r)}" fill="#000" opacity="0.25"/>',
        f'<circle cx="{_n(c)}" cy="{_n(c)}" r="{_n(r)}" fill="{COLORS[side + "_fill"]}" '
        f'stroke="{COLORS[side + "_edge"]}" stroke-width="1.5"/>',
        f'<circle cx="{_n(c)}" cy="{_n(c)}" r="{_n(r * 0.68)}" fill="none" '
        f'stroke="{COLORS[side + "_ring"]}" stroke-width="1.5"/>',
    ]
    if king:
        w, h = SQUARE * 0.17, SQUARE * 0.13
        pts = [
            (c - w, c + h * 0.7),
            (c - w, c - h * 0.5),
            (c - w * 0.5, c + h * 0.05),
            (c, c - h * 1.0),
            (c + w * 0.5, c + h * 0.05),
            (c + w, c - h * 0.5),
            (c + w, c + h * 0.7),
        ]
        points = " ".join(f"{_n(x)},{_n(y)}" for x, y in pts)
        parts.append(
            f'<polygon class="crown" points="{points}" fill="{COLORS["crown"]}" '
            f'stroke="{COLORS["crown_edge"]}" stroke-width="1.2" stroke-linejoin="round"/>'
        )
    parts.append("</g>")
    return "".join(parts)


def _arrow(layout: _Layout, route: Sequence[Square], captured: Sequence[Square], text: str) -> str:
    color = COLORS["arrow"]
    shaft = SQUARE * 0.13
    head_len, head_w = SQUARE * 0.36, SQUARE * 0.34
    out = [f'<g class="arrow" data-route={quoteattr(text)}>']
    for sq in captured:
        x, y = layout.center(sq)
        d = SQUARE * 0.16
        out.append(
            f'<path class="captured" d="M{_n(x - d)},{_n(y - d)}L{_n(x + d)},{_n(y + d)}'
            f'M{_n(x - d)},{_n(y + d)}L{_n(x + d)},{_n(y - d)}" stroke="{COLORS["captured"]}" '
            f'stroke-width="{_n(SQUARE * 0.08)}" stroke-linecap="round" opacity="0.9"/>'
        )
    for a, b in zip(route, route[1:], strict=False):
        (x1, y1), (x2, y2) = layout.center(a), layout.center(b)
        dx, dy = x2 - x1, y2 - y1
        length = (dx * dx + dy * dy) ** 0.5
        if length == 0:
            continue
        ux, uy = dx / length, dy / length
        bx, by = x2 - ux * head_len, y2 - uy * head_len
        out.append(
            f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(bx)}" y2="{_n(by)}" stroke="{color}" '
            f'stroke-width="{_n(shaft)}" stroke-linecap="round" opacity="0.85"/>'
        )
        px, py = -uy * head_w / 2, ux * head_w / 2
        pts = f"{_n(x2)},{_n(y2)} {_n(bx + px)},{_n(by + py)} {_n(bx - px)},{_n(by - py)}"
        out.append(f'<polygon points="{pts}" fill="{color}" opacity="0.85"/>')
    out.append("</g>")
    return "".join(out)


def _mark_shape(cls: str) -> str:
    """The shape that tells an explanation's mark apart without its colour: a slash for the wrong
    square, a ring for the required one, a cross over a jumped piece."""
    lo, hi, w = SQUARE * 0.18, SQUARE * 0.82, _n(SQUARE * 0.07)
    if cls == "wrong":
        return (
            f'<path class="mark-shape wrong" d="M{_n(lo)},{_n(hi)}L{_n(hi)},{_n(lo)}" '
            f'stroke="#8e0000" stroke-width="{w}" stroke-linecap="round"/>'
        )
    if cls == "required":
        return (
            f'<circle class="mark-shape required" cx="{_n(SQUARE / 2)}" cy="{_n(SQUARE / 2)}" '
            f'r="{_n(SQUARE * 0.44)}" fill="none" stroke="#0d47a1" stroke-width="{w}"/>'
        )
    return (
        f'<path class="mark-shape jumped" d="M{_n(lo)},{_n(lo)}L{_n(hi)},{_n(hi)}'
        f'M{_n(lo)},{_n(hi)}L{_n(hi)},{_n(lo)}" stroke="#b71c1c" stroke-width="{w}" '
        'stroke-linecap="round"/>'
    )


def _list_squares(squares: list[Square], name: dict[Square, str]) -> str:
    return ", ".join(name[s] for s in squares)


def describe(board: Board, *, lang: Lang = "en", algebraic: bool | None = None) -> str:
    """The pieces and the side to move in words, for screen readers.

    >>> from dama import Board
    >>> describe(Board("czech", "B:W21,22:BK1"))
    'White: men on 21, 22. Black: king on 1. Black to move.'
    >>> describe(Board("czech", "B:W21,22:BK1"), lang="cs")
    'Bílý: kameny na polích 21, 22. Černý: dáma na poli 1. Na tahu je černý.'
    """
    t = _TEXT[lang]
    alg = board.variant.algebraic_default if algebraic is None else algebraic
    name = {s: (board.geo.name(s) if alg else str(s)) for s in range(1, board.geo.squares + 1)}
    sides = []
    for color, side in ((WHITE, t.white), (BLACK, t.black)):
        items = []
        for king, (one, many) in ((False, t.men), (True, t.kings)):
            squares = board.pieces(color, king)
            if squares:
                items.append(f"{one if len(squares) == 1 else many} {_list_squares(squares, name)}")
        sides.append(f"{side}: {'; '.join(items) if items else t.none}.")
    to_move = t.to_move(board.turn)
    return " ".join(sides) + f" {to_move[0].upper()}{to_move[1:]}."


def board_svg(
    board: Board,
    *,
    highlight: Iterable[Square] | Mapping[Square, str] = (),
    arrows: Arrows | None = (),
    last_move: Move | Sequence[Square] | None = None,
    flipped: bool = False,
    labels: Labels | None = "auto",
    size: int | None = None,
    title: str | None = None,
    lang: Lang = "en",
) -> str:
    """The position as an SVG document (a string).

    ``highlight``: squares to mark (class ``highlight``), or a mapping square -> CSS class
    (``last-move``, ``good``, ``bad``, ``hint``, ``target`` have colours; an explanation's
    ``wrong`` square, ``required`` square and ``jumped`` pieces have a colour and a shape each; any
    other class gets the highlight colour and can be restyled by CSS). ``arrows``: a :class:`~dama.Move` (its first
    route, with its captured pieces crossed), a route as a list of squares, or a list of either.
    ``last_move`` marks the start and end of the move played. ``flipped`` puts Black at the
    bottom. ``labels``: ``"numbers"`` in the corner of each dark square, ``"algebraic"``
    coordinates along the edges, ``None`` for none; ``"auto"`` is the variant's notation.
    ``size`` sets the width in pixels (the SVG scales to its container without it). ``lang``
    (``"en"`` or ``"cs"``) is the language of the title and description.
    """
    if lang not in _TEXT:
        raise ValueError(f"lang must be 'en' or 'cs', not {lang!r}")
    if labels not in ("auto", "numbers", "algebraic", None):
        raise ValueError(f"labels must be 'numbers', 'algebraic', 'auto' or None, not {labels!r}")
    geo = board.geo
    if labels == "auto":
        labels = "algebraic" if board.variant.algebraic_default else "numbers"
    alg_names = labels == "algebraic" or (labels is None and board.variant.algebraic_default)
    name = {s: (geo.name(s) if alg_names else str(s)) for s in range(1, geo.squares + 1)}

    def check(sq: object) -> Square:
        if not isinstance(sq, int) or not 1 <= sq <= geo.squares:
            raise InvalidSquareError(f"square {sq!r} is not on the board (1-{geo.squares})")
        return sq

    marks: dict[Square, list[str]] = {}
    if isinstance(highlight, Mapping):
        for sq, cls in highlight.items():
            marks.setdefault(check(sq), []).extend(str(cls).split())
    else:
        for sq in highlight:
            marks.setdefault(check(sq), []).append("highlight")
    last_route: tuple[Square, ...] = ()
    if last_move is not None:
        last_route = (
            route_squares(last_move)
            if isinstance(last_move, Move)
            else tuple(check(s) for s in last_move)
        )
        for sq in (last_route[0], last_route[-1]) if last_route else ():
            marks.setdefault(sq, []).append("last-move")
    routes = _routes(arrows)
    for route, caps in routes:
        for sq in (*route, *caps):
            check(sq)

    layout = _Layout(board, flipped, labels == "algebraic")
    t = _TEXT[lang]
    to_move = t.to_move(board.turn)
    variant_title = board.variant.title if lang == "en" else board.variant.title_cs
    title_text = title if title is not None else f"{variant_title}, {to_move}"
    desc = describe(board, lang=lang, algebraic=alg_names)
    if last_route:
        sep = "x" if isinstance(last_move, Move) and last_move.captured else "-"
        desc += f" {t.last}: {sep.join(name[s] for s in last_route)}."
    route_texts = []
    for route, caps in routes:
        sep = "x" if caps else "-"
        route_texts.append(sep.join(name[s] for s in route))
    if route_texts:
        one, many = t.arrows
        desc += f" {one if len(route_texts) == 1 else many}: {', '.join(route_texts)}."

    w, h = layout.width, layout.height
    dims = f' width="{size}" height="{_n(size * h / w)}"' if size is not None else ""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}"{dims} role="img" '
        f'class="dama-board" data-variant="{board.variant.name}"'
        f' data-flipped="{"1" if flipped else "0"}" lang="{lang}">',
        f"<title>{escape(title_text)}</title>",
        f"<desc>{escape(desc)}</desc>",
        f'<rect class="frame" width="{w}" height="{h}" rx="4" fill="{COLORS["frame"]}"/>',
        f'<rect class="light" x="{layout.left}" y="{layout.top}" width="{geo.size * SQUARE}" '
        f'height="{geo.size * SQUARE}" fill="{COLORS["light"]}"/>',
    ]
    font = 'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif"'
    if labels == "algebraic":
        out.append(
            f'<g class="coords" {font} font-size="14" fill="{COLORS["label"]}" '
            'text-anchor="middle" aria-hidden="true">'
        )
        for i in range(geo.size):
            x, _ = layout.cell(0, i)
            out.append(
                f'<text class="file" x="{_n(x + SQUARE / 2)}" y="{_n(layout.height - 6)}">'
                f"{chr(97 + i)}</text>"
            )
            _, y = layout.cell(i, 0)
            out.append(
                f'<text class="rank" x="{_n(COORD_MARGIN / 2 + 1)}" y="{_n(y + SQUARE / 2 + 5)}">'
                f"{geo.size - i}</text>"
            )
        out.append("</g>")
    out.append('<g class="squares">')
    for sq in range(1, geo.squares + 1):
        x, y = layout.corner(sq)
        classes = " ".join(["square", "dark", *marks.get(sq, [])])
        out.append(
            f'<g class="{escape(classes)}" data-square="{sq}" data-name="{name[sq]}" '
            f'transform="translate({_n(x)},{_n(y)})">'
        )
        out.append(f'<rect width="{SQUARE}" height="{SQUARE}" fill="{COLORS["dark"]}"/>')
        for cls in marks.get(sq, []):
            fill, opacity = HIGHLIGHTS.get(cls, HIGHLIGHTS["highlight"])
            out.append(
                f'<rect class="mark {escape(cls)}" width="{SQUARE}" height="{SQUARE}" '
                f'fill="{fill}" opacity="{opacity}"/>'
            )
        if labels == "numbers":
            out.append(
                f'<text x="2.5" y="10" {font} font-size="9.5" fill="{COLORS["label"]}" '
                f'opacity="0.9" aria-hidden="true">{sq}</text>'
            )
        piece = board.piece_at(sq)
        if piece is not None:
            out.append(_piece(piece.color, piece.king))
        out.extend(_mark_shape(cls) for cls in marks.get(sq, []) if cls in MARK_SHAPES)
        out.append("</g>")
    out.append("</g>")
    if routes:
        out.append('<g class="arrows" pointer-events="none" aria-hidden="true">')
        for (route, caps), text in zip(routes, route_texts, strict=True):
            out.append(_arrow(layout, route, caps, text))
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)
