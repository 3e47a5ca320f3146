"""The previous evaluation (before issue 52), used by :mod:`dama.search_v1` only, the reference
of ``make bench``. The text below is its description as it was.

The playing engine's evaluation: how good a quiet position is, in centi-men (100 = one man).

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

>>> from dama import Board
>>> evaluate(Board("czech"))
0
>>> evaluate(Board("czech", "W:W21,22:B1")) > 100
True
"""

from __future__ import annotations

from functools import cache

from .baseboard import BaseBoard
from .geometry import Geometry, geometry
from .variants import Variant, find_variant

#: a king's worth in centi-men, per variant (measured by self-play, see the module docstring)
KING_VALUE: dict[str, int] = {"czech": 300, "brazilian": 300, "international": 300}
MAN_VALUE = 100


class Evaluator:
    """Static evaluation of one variant's positions (see the module docstring)."""

    king_value: int
    men_total: int
    size: int
    rows_w: list[int]  #: rows as White advances: rows_w[i] = squares i rows from White's back row
    rows_b: list[int]
    adv: list[int]  #: advancement weight by rows advanced
    centre: int
    back_w: int
    back_b: int
    cone_w: list[int]  #: squares in front of a White man on each bit (runaway test)
    cone_b: list[int]
    dist_w: list[int]  #: rows a White man on each bit still has to go to crown
    dist_b: list[int]
    diagonal: int
    #: (White's row, Black's row, weight) for the rows a man can stand on, advancement
    adv_rows: list[tuple[int, int, int]]
    #: the last three rows before crowning, where a man may run away
    zone_w: int
    zone_b: int
    rays: list[tuple[tuple[int, ...], ...]]
    s_ul: int
    s_ur: int
    s_dl: int
    s_dr: int
    valid: int

    def __init__(self, variant: Variant, king_value: int | None = None) -> None:
        g: Geometry = geometry(variant.size)
        n = g.size
        self.size = n
        self.king_value = KING_VALUE[variant.name] if king_value is None else king_value
        self.men_total = 2 * variant.men_per_side
        self.valid = g.valid
        self.rays = g.rays
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
        self.adv = [0, 1, 3, 5, 8, 11, 15, 20, 26, 32][: n - 1] + [0]
        self.adv_rows = [(rows_w[i], rows_b[i], self.adv[i]) for i in range(1, n - 1)]
        self.zone_w = rows_w[n - 2] | rows_w[n - 3] | rows_w[n - 4]
        self.zone_b = rows_b[n - 2] | rows_b[n - 3] | rows_b[n - 4]

    def evaluate(self, white: int, black: int, kings: int, turn: bool) -> int:
        """The score of a position from the side to move's view (see the module docstring)."""
        wm = white & ~kings
        bm = black & ~kings
        wk = white & kings
        bk = black & kings
        n_wm = wm.bit_count()
        n_bm = bm.bit_count()
        n_wk = wk.bit_count()
        n_bk = bk.bit_count()
        kv = self.king_value
        mat_w = n_wm * MAN_VALUE + n_wk * kv
        mat_b = n_bm * MAN_VALUE + n_bk * kv
        score = mat_w - mat_b
        men = n_wm + n_bm
        pieces = men + n_wk + n_bk
        # trading when ahead: up to +20 % of the lead as the board empties
        if score:
            score += _div(score * (self.men_total - pieces), 5 * self.men_total)
        # advancement, stronger as men come off
        a = 0
        for row_w, row_b, w in self.adv_rows:
            a += w * ((wm & row_w).bit_count() - (bm & row_b).bit_count())
        score += _div(a * (2 * self.men_total - men), self.men_total)
        # centre
        centre = self.centre
        score += 4 * ((wm & centre).bit_count() - (bm & centre).bit_count())
        # back-rank guard while the opponent has no king
        if not n_bk:
            score += 6 * (wm & self.back_w).bit_count()
        if not n_wk:
            score -= 6 * (bm & self.back_b).bit_count()
        # locked men: cannot step forward
        occ = white | black
        empty = self.valid & ~occ
        s_ul = self.s_ul
        s_ur = self.s_ur
        s_dl = self.s_dl
        s_dr = self.s_dr
        w_free = ((empty << s_ul) | (empty << s_ur)) & wm
        b_free = ((empty >> s_dl) | (empty >> s_dr)) & bm
        score -= 3 * ((wm ^ w_free).bit_count() - (bm ^ b_free).bit_count())
        # runaway men
        runaway = (kv - MAN_VALUE) * 3 // 4
        if not n_bk:
            x = wm & self.zone_w
            while x:
                low = x & -x
                x ^= low
                b = low.bit_length() - 1
                if not black & self.cone_w[b]:
                    score += runaway - 12 * self.dist_w[b]
        if not n_wk:
            x = bm & self.zone_b
            while x:
                low = x & -x
                x ^= low
                b = low.bit_length() - 1
                if not white & self.cone_b[b]:
                    score -= runaway - 12 * self.dist_b[b]
        # kings: mobility, trapped kings, the main diagonal
        if n_wk or n_bk:
            rays = self.rays
            kk = wk | bk
            diag = self.diagonal
            while kk:
                low = kk & -kk
                kk ^= low
                mob = 0
                for ray in rays[low.bit_length() - 1]:
                    for t in ray:
                        if (occ >> t) & 1:
                            break
                        mob += 1
                v = 2 * mob - (30 if mob == 0 else 0) + (12 if low & diag else 0)
                if low & white:
                    score += v
                else:
                    score -= v
        # endgames the counts make draws: two kings (or a king and a man) cannot catch a lone king
        if pieces <= 5 and (n_bm + n_bk == 1 or n_wm + n_wk == 1):
            if n_bm + n_bk == 1 and n_bk == 1:
                strong_men, strong_kings, lone = n_wm, n_wk, bk
            elif n_wm + n_wk == 1 and n_wk == 1:
                strong_men, strong_kings, lone = n_bm, n_bk, wk
            else:
                strong_men, strong_kings, lone = -1, 0, 0
            if strong_men == 0 and strong_kings <= 2 or (strong_men, strong_kings) == (1, 1):
                return 0
            elif strong_men == 0 and strong_kings == 3 and lone & self.diagonal:
                score = _div(score, 4)
        return score if turn else -score


def _div(a: int, b: int) -> int:
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
