"""Board geometry: square numbering, the bit layout and precomputed rays.

Squares are numbered 1..N row by row from White's view, starting top-left (CUD 2006 art. 2.6b:
on 8x8, 1 = b8 and 29 = a1; on 10x10, 1 is on Black's back row and 46 in White's left corner).

Internally a square lives on a bit of an ``int`` in a "ghost square" layout: after every pair of
rows one unused bit is left out, so that each diagonal step is a constant shift. With ``W`` squares
per row the four directions are ``-(W+1)`` (up-left), ``-W`` (up-right), ``+W`` (down-left) and
``+(W+1)`` (down-right); White's men move up (towards square 1).

>>> g = geometry(8)
>>> g.name(29), g.name(4), g.name(1)
('a1', 'h8', 'b8')
>>> g.parse("c3")
22
>>> geometry(10).name(46)
'a1'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

Square = int  #: a square number, 1..N
Bitboard = int  #: a set of squares in the internal bit layout

#: direction indexes
UP_LEFT, UP_RIGHT, DOWN_LEFT, DOWN_RIGHT = 0, 1, 2, 3
DIRECTIONS = (UP_LEFT, UP_RIGHT, DOWN_LEFT, DOWN_RIGHT)


@dataclass(slots=True)
class Geometry:
    size: int
    half: int  # squares per row
    squares: int
    #: shift of each direction in the bit layout
    steps: tuple[int, int, int, int]
    #: square number -> bit index (index 0 unused)
    bit_of: list[int]
    #: bit index -> square number (0 for ghost bits)
    square_of: list[int]
    valid: Bitboard
    #: the rows on which a White / Black man is crowned
    white_crown: Bitboard
    black_crown: Bitboard
    #: ray[bit][dir]: bit indexes along the diagonal, nearest first
    rays: list[tuple[tuple[int, ...], ...]] = field(default_factory=list)
    #: step[bit][dir]: the neighbouring bit, or -1 off the board
    neighbour: list[tuple[int, int, int, int]] = field(default_factory=list)
    #: squares on the long diagonal a1-h8 (8x8) / 46-5 (10x10)
    main_diagonal: Bitboard = 0
    names: list[str] = field(default_factory=list)
    name_index: dict[str, int] = field(default_factory=dict)

    def row_col(self, sq: Square) -> tuple[int, int]:
        """Row (0 = top, Black's side) and column (0 = a) of square ``sq``."""
        r, i = divmod(sq - 1, self.half)
        return r, 2 * i + 1 if r % 2 == 0 else 2 * i

    def square_at(self, row: int, col: int) -> Square | None:
        """The square number at (row, col), or None for a light square or off the board."""
        if not (0 <= row < self.size and 0 <= col < self.size) or (row + col) % 2 == 0:
            return None
        return row * self.half + col // 2 + 1

    def name(self, sq: Square) -> str:
        """Algebraic name (a1 = White's left corner)."""
        return self.names[sq]

    def parse(self, text: str) -> Square | None:
        """Square number of an algebraic name, or None."""
        return self.name_index.get(text.strip().lower())

    def bb(self, squares: object) -> Bitboard:
        """Bitboard of an iterable of square numbers."""
        out = 0
        for s in squares:  # type: ignore[attr-defined]
            out |= 1 << self.bit_of[s]
        return out

    def squares_of(self, bb: Bitboard) -> list[Square]:
        """Square numbers of a bitboard, ascending."""
        out = []
        sq_of = self.square_of
        while bb:
            low = bb & -bb
            out.append(sq_of[low.bit_length() - 1])
            bb ^= low
        out.sort()
        return out


@cache
def geometry(size: int) -> Geometry:
    """The geometry of a ``size`` x ``size`` board (8 or 10)."""
    if size not in (8, 10):
        raise ValueError(f"unsupported board size {size}")
    half = size // 2
    n = size * size // 2
    steps = (-(half + 1), -half, half, half + 1)
    bit_of = [0] * (n + 1)
    nbits = (n // (2 * half)) * (2 * half + 1)
    square_of = [0] * (nbits + 1)
    valid = 0
    for s in range(1, n + 1):
        r = (s - 1) // half
        b = (s - 1) + r // 2
        bit_of[s] = b
        square_of[b] = s
        valid |= 1 << b
    g = Geometry(
        size=size,
        half=half,
        squares=n,
        steps=steps,
        bit_of=bit_of,
        square_of=square_of,
        valid=valid,
        white_crown=0,
        black_crown=0,
    )
    g.white_crown = g.bb(range(1, half + 1))
    g.black_crown = g.bb(range(n - half + 1, n + 1))
    # neighbours and rays computed from (row, col) so the bit layout is checked, not assumed
    deltas = ((-1, -1), (-1, 1), (1, -1), (1, 1))
    neighbour: list[tuple[int, int, int, int]] = [(-1, -1, -1, -1)] * (nbits + 1)
    rays: list[tuple[tuple[int, ...], ...]] = [((), (), (), ())] * (nbits + 1)
    for s in range(1, n + 1):
        r, c = g.row_col(s)
        nb = []
        ray_list = []
        for d, (dr, dc) in enumerate(deltas):
            t = g.square_at(r + dr, c + dc)
            nb.append(bit_of[t] if t else -1)
            if t:
                assert bit_of[t] - bit_of[s] == steps[d], "bit layout broken"
            ray = []
            rr, cc = r + dr, c + dc
            while (t := g.square_at(rr, cc)) is not None:
                ray.append(bit_of[t])
                rr += dr
                cc += dc
            ray_list.append(tuple(ray))
        neighbour[bit_of[s]] = (nb[0], nb[1], nb[2], nb[3])
        rays[bit_of[s]] = tuple(ray_list)
    g.neighbour = neighbour
    g.rays = rays
    names = [""] * (n + 1)
    for s in range(1, n + 1):
        r, c = g.row_col(s)
        names[s] = f"{chr(ord('a') + c)}{size - r}"
    g.names = names
    g.name_index = {nm: s for s, nm in enumerate(names) if nm}
    # main diagonal: from White's left corner (a1) up-right
    corner = g.square_at(size - 1, 0)
    assert corner is not None
    diag = [corner]
    while True:
        r, c = g.row_col(diag[-1])
        t = g.square_at(r - 1, c + 1)
        if t is None:
            break
        diag.append(t)
    g.main_diagonal = g.bb(diag)
    return g
