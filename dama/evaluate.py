"""The playing engine's evaluation: how good a quiet position is, in centi-men (100 = one man).

An :class:`Evaluator` holds, per variant, bit masks computed once (rows, centre, back rank, the
cone in front of each man) so that scoring a position is a handful of popcounts on the raw
bitboards of :mod:`dama._core`. The terms, all from White's view and then turned to the side to
move:

* **material**: a man is 100, a king :data:`KING_VALUE` (per variant). The king's worth was
  measured, not guessed, by self-play: ``python -m dama match --variant V --a depth=4,king=K
  --b depth=4,king=300 --games 16`` (16 games from the balanced openings of :mod:`dama.search`,
  colours swapped; a depth limit, so the load of the machine does not matter). Points of the
  other value against 300: Czech 250: 46.9 %, 350: 40.6 %; Brazilian 250: 50.0 %, 350: 50.0 %;
  international 250: 43.8 % (350 not measured). No other value beat 300, which is kept for all
  three (Czech games between equal engines end mostly in draws: 15 and 13 of 16);
* **trading when ahead**: a material lead is worth more the fewer pieces are left;
* **advancement (tempo)**: men further up the board score more, twice as much in the endgame
  as at the start (a man closer to crowning is closer to becoming a king);
* **centre**: men on the central squares of the middle rows;
* **back-rank guard**: men still on their own back row while the opponent has no king (they stop
  the opponent's men from crowning);
* **runaway men**: a man with no opposing piece in the cone in front of it, against no king,
  crowns unhindered: it is scored nearly as a king, less the moves it still needs;
* **king mobility**: each empty square a king reaches; a king with nowhere to go is trapped;
  a king on the main diagonal (the long road) scores a bonus;
* **locked men**: men that cannot step forward (both squares ahead taken) lose a little;
* **drawn endgames**: up to two kings, or a king and a man, against a lone king cannot win
  (the endgame counts end them): 0, unless the search finds a capture; three kings hardly win
  against a lone king on the main diagonal: a quarter of the score.

The class is ``@final`` with typed attributes and ``i64`` bitboards, compiled with mypyc with the
search (:mod:`dama.search`); the terms and their weights are those of the previous evaluation
(:mod:`dama.evaluate_v1`), so that the two engines differ only in their speed.

>>> from dama import Board
>>> evaluate(Board("czech"))
0
>>> evaluate(Board("czech", "W:W21,22:B1")) > 100
True
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Final, final

from ._core import popcount
from .baseboard import BaseBoard
from .geometry import Geometry, geometry
from .variants import Variant, find_variant

if TYPE_CHECKING:  # a machine word when compiled (see dama._core)
    from mypy_extensions import i64

#: a king's worth in centi-men, per variant (measured by self-play, see the module docstring)
KING_VALUE: dict[str, int] = {"czech": 300, "brazilian": 300, "international": 300}
MAN_VALUE: Final = 100


@final
class Evaluator:
    """Static evaluation of one variant's positions (see the module docstring)."""

    king_value: i64
    men_total: i64
    size: i64
    rows_w: list[int]  #: rows as White advances: rows_w[i] = squares i rows from White's back row
    rows_b: list[int]
    #: advancement as bit planes: ``adv_w0`` the squares whose weight (for a White man) has bit 0
    #: set, and so on (weights below 64): six popcounts a side, no table read
    adv_w0: i64
    adv_w1: i64
    adv_w2: i64
    adv_w3: i64
    adv_w4: i64
    adv_w5: i64
    adv_b0: i64
    adv_b1: i64
    adv_b2: i64
    adv_b3: i64
    adv_b4: i64
    adv_b5: i64
    centre: i64
    back_w: i64
    back_b: i64
    cone_w: list[i64]  #: squares in front of a White man on each bit (runaway test)
    cone_b: list[i64]
    dist_w: list[i64]  #: rows a White man on each bit still has to go to crown
    dist_b: list[i64]
    diagonal: i64
    #: the last three rows before crowning, where a man may run away
    zone_w: i64
    zone_b: i64
    #: the four rays of each bit, nearest first (bytes: read as machine ints when compiled)
    rays: list[tuple[bytes, ...]]
    s_ul: i64
    s_ur: i64
    s_dl: i64
    s_dr: i64
    valid: i64

    def __init__(self, variant: Variant, king_value: int | None = None) -> None:
        g: Geometry = geometry(variant.size)
        n = g.size
        self.size = n
        self.king_value = KING_VALUE[variant.name] if king_value is None else king_value
        self.men_total = 2 * variant.men_per_side
        self.valid = g.valid
        self.rays = [tuple(bytes(ray) for ray in rays) for rays in g.rays]
        self.diagonal = g.main_diagonal
        self.s_ul, self.s_ur = -g.steps[0], -g.steps[1]
        self.s_dl, self.s_dr = g.steps[2], g.steps[3]
        rows_w = [0] * n
        rows_b = [0] * n
        centre = 0
        nbits = len(g.square_of)
        cone_w = [0] * nbits
        cone_b = [0] * nbits
        dist_w = [0] * nbits
        dist_b = [0] * nbits
        for sq in range(1, g.squares + 1):
            r, c = g.row_col(sq)  # row 0: Black's back row
            bit = 1 << g.bit_of[sq]
            rows_w[n - 1 - r] |= bit
            rows_b[r] |= bit
            if 2 <= r <= n - 3 and 2 <= c <= n - 3:
                centre |= bit
        for sq in range(1, g.squares + 1):
            r, c = g.row_col(sq)
            b = g.bit_of[sq]
            dist_w[b] = r
            dist_b[b] = n - 1 - r
            for sq2 in range(1, g.squares + 1):
                r2, c2 = g.row_col(sq2)
                bit2 = 1 << g.bit_of[sq2]
                if r2 < r and abs(c2 - c) <= r - r2 + 1:
                    cone_w[b] |= bit2
                if r2 > r and abs(c2 - c) <= r2 - r + 1:
                    cone_b[b] |= bit2
        self.rows_w, self.rows_b = rows_w, rows_b
        self.centre = centre
        self.back_w, self.back_b = rows_w[0], rows_b[0]
        self.cone_w, self.cone_b = cone_w, cone_b
        self.dist_w, self.dist_b = dist_w, dist_b
        # rows advanced 0..n-2 (a man on the last row is a king)
        adv = [0, 1, 3, 5, 8, 11, 15, 20, 26, 32][: n - 1] + [0]
        planes_w = [0] * 6
        planes_b = [0] * 6
        for i in range(1, n - 1):
            assert 0 <= adv[i] < 64
            for k in range(6):
                if adv[i] >> k & 1:
                    planes_w[k] |= rows_w[i]
                    planes_b[k] |= rows_b[i]
        self.adv_w0, self.adv_w1, self.adv_w2 = planes_w[0], planes_w[1], planes_w[2]
        self.adv_w3, self.adv_w4, self.adv_w5 = planes_w[3], planes_w[4], planes_w[5]
        self.adv_b0, self.adv_b1, self.adv_b2 = planes_b[0], planes_b[1], planes_b[2]
        self.adv_b3, self.adv_b4, self.adv_b5 = planes_b[3], planes_b[4], planes_b[5]
        self.zone_w = rows_w[n - 2] | rows_w[n - 3] | rows_w[n - 4]
        self.zone_b = rows_b[n - 2] | rows_b[n - 3] | rows_b[n - 4]

    def evaluate(self, white: i64, black: i64, kings: i64, turn: bool) -> i64:
        """The score of a position from the side to move's view (see the module docstring)."""
        wm = white & ~kings
        bm = black & ~kings
        wk = white & kings
        bk = black & kings
        n_wm = popcount(wm)
        n_bm = popcount(bm)
        n_wk = popcount(wk)
        n_bk = popcount(bk)
        kv = self.king_value
        mat_w = n_wm * MAN_VALUE + n_wk * kv
        mat_b = n_bm * MAN_VALUE + n_bk * kv
        score = mat_w - mat_b
        men = n_wm + n_bm
        pieces = men + n_wk + n_bk
        mt = self.men_total
        # trading when ahead: up to +20 % of the lead as the board empties
        if score:
            score += _div(score * (mt - pieces), 5 * mt)
        # advancement, stronger as men come off
        a = (
            popcount(wm & self.adv_w0)
            - popcount(bm & self.adv_b0)
            + ((popcount(wm & self.adv_w1) - popcount(bm & self.adv_b1)) * 2)
            + ((popcount(wm & self.adv_w2) - popcount(bm & self.adv_b2)) * 4)
            + ((popcount(wm & self.adv_w3) - popcount(bm & self.adv_b3)) * 8)
            + ((popcount(wm & self.adv_w4) - popcount(bm & self.adv_b4)) * 16)
            + ((popcount(wm & self.adv_w5) - popcount(bm & self.adv_b5)) * 32)
        )
        score += _div(a * (2 * mt - men), mt)
        # centre
        centre = self.centre
        score += 4 * (popcount(wm & centre) - popcount(bm & centre))
        # back-rank guard while the opponent has no king
        if not n_bk:
            score += 6 * popcount(wm & self.back_w)
        if not n_wk:
            score -= 6 * popcount(bm & self.back_b)
        # locked men: cannot step forward
        occ = white | black
        empty = self.valid & ~occ
        w_free = ((empty << self.s_ul) | (empty << self.s_ur)) & wm
        b_free = ((empty >> self.s_dl) | (empty >> self.s_dr)) & bm
        score -= 3 * (popcount(wm ^ w_free) - popcount(bm ^ b_free))
        # runaway men
        runaway = (kv - MAN_VALUE) * 3 // 4
        if not n_bk:
            x = wm & self.zone_w
            while x:
                low = x & -x
                x ^= low
                b = popcount(low - 1)
                if not black & self.cone_w[b]:
                    score += runaway - 12 * self.dist_w[b]
        if not n_wk:
            x = bm & self.zone_b
            while x:
                low = x & -x
                x ^= low
                b = popcount(low - 1)
                if not white & self.cone_b[b]:
                    score -= runaway - 12 * self.dist_b[b]
        # kings: mobility, trapped kings, the main diagonal
        if n_wk or n_bk:
            kk = wk | bk
            diag = self.diagonal
            while kk:
                low = kk & -kk
                kk ^= low
                mob: i64 = 0
                for ray in self.rays[popcount(low - 1)]:
                    nr: i64 = len(ray)
                    j: i64 = 0
                    while j < nr:
                        if (occ >> ray[j]) & 1:
                            break
                        j += 1
                    mob += j
                v = 2 * mob - (30 if mob == 0 else 0) + (12 if low & diag else 0)
                if low & white:
                    score += v
                else:
                    score -= v
        # endgames the counts make draws: two kings (or a king and a man) cannot catch a lone king
        if pieces <= 5 and (n_bm + n_bk == 1 or n_wm + n_wk == 1):
            strong_men: i64 = -1
            strong_kings: i64 = 0
            lone: i64 = 0
            if n_bm + n_bk == 1 and n_bk == 1:
                strong_men, strong_kings, lone = n_wm, n_wk, bk
            elif n_wm + n_wk == 1 and n_wk == 1:
                strong_men, strong_kings, lone = n_bm, n_bk, wk
            if (strong_men == 0 and strong_kings <= 2) or (strong_men == 1 and strong_kings == 1):
                return 0
            elif strong_men == 0 and strong_kings == 3 and lone & self.diagonal:
                score = _div(score, 4)
        return score if turn else -score


def _div(a: i64, b: i64) -> i64:
    """``a / b`` rounded towards 0 (the same for both colours, unlike ``//``)."""
    return a // b if a >= 0 else -(-a // b)


@cache
def evaluator(variant: Variant) -> Evaluator:
    """The shared :class:`Evaluator` of ``variant``."""
    return Evaluator(variant)


def evaluate(board: BaseBoard) -> int:
    """The static score of ``board`` from the side to move's view, in centi-men."""
    ev = evaluator(find_variant(board.variant))
    return ev.evaluate(board.white, board.black, board.kings, board.turn)
