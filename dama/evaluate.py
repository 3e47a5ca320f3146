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
search (:mod:`dama.search`); the terms and their hand-tuned weights are those of the previous
evaluation (:mod:`dama.evaluate_v1`).

**Trained weights** (issue 52, :meth:`Evaluator.use_weights`, shipped in :mod:`dama.weights`): a
coefficient for each named term (:data:`TERMS`) and a value for each local pattern, as the
strongest engines score a board: every window of two rows by four columns (four dark squares) at
every place of the board, each square empty, White's or Black's (81 patterns a window: 35 windows
on 8x8, 63 on 10x10). :meth:`Evaluator.features` gives the training tool (``tools/train_eval.py``)
exactly what the sum is made of; in the search the windows are summed a band of two rows at a
time, each band's pattern looked up once in a table of its windows' sums (built when the weights
are read; a test holds the two sums equal). The endgame rules above stay as they are.

>>> from dama import Board
>>> evaluate(Board("czech"))
0
>>> evaluate(Board("czech", "W:W21,22,23:B1")) > 100
True
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Final, final

from . import weights
from ._core import popcount
from .baseboard import BaseBoard
from .geometry import Geometry, geometry
from .variants import Variant, find_variant

if TYPE_CHECKING:  # a machine word when compiled (see dama._core)
    from mypy_extensions import i64

#: a king's worth in centi-men, per variant (measured by self-play, see the module docstring)
KING_VALUE: dict[str, int] = {"czech": 300, "brazilian": 300, "international": 300}
MAN_VALUE: Final = 100
#: the named terms, in the order of :meth:`Evaluator.features` and of the trained coefficients
TERMS: Final = (
    "men",
    "kings",
    "trade",
    "advance",
    "centre",
    "back",
    "locked",
    "runaway",
    "kingplay",
)
N_TERMS: Final = 9
#: the patterns of a window of four squares: each empty, White's or Black's (3 ** 4)
PATTERN_STATES: Final = 81
#: trained weights are in 1/SCALE centi-men
SCALE: Final = 16
#: a band's sum of window values is kept in three bytes, offset by this
BAND_OFFSET: Final = 1 << 23


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
    #: the local patterns: windows of two rows by four columns (four dark squares), at every
    #: place on the board; window ``i`` gathers its squares by ``>> win_shift[i] & win_mask[i]``
    #: and ``win_tab[256 * i + gathered]`` numbers them in base 3 (the first square 1, ...)
    n_win: i64
    win_shift: bytes
    win_mask: bytes
    win_tab: bytes
    #: the squares of each window, in the order of its base-3 digits (for the training tool)
    win_squares: list[tuple[int, ...]]
    #: the same windows summed a band at a time, for speed (:meth:`use_weights`): band ``r`` is
    #: rows ``r`` and ``r + 1`` (every square of both), gathered by ``>> band_shift[r]`` and a mask
    #: of ``band_width`` bits, and numbered in base 3 by ``band_tab[(r << band_width) + gathered]``;
    #: ``band_sum`` holds, for each band and each of its 3 ** n patterns, the sum of the values of
    #: the windows in it, three bytes each (little-endian, offset by :data:`BAND_OFFSET`)
    n_band: i64
    band_shift: bytes
    band_width: i64
    band_tab: list[int]
    band_states: i64
    band_sum: bytes
    #: trained weights (:meth:`use_weights`), in 1/SCALE centi-men; until then the hand weights
    trained: bool
    coef: list[int]
    pat: list[int]

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
        shifts: list[int] = []
        masks: list[int] = []
        tab = bytearray()
        win_squares: list[tuple[int, ...]] = []
        at = {g.row_col(sq): sq for sq in range(1, g.squares + 1)}
        for r in range(n - 1):
            for c in range(n - 3):
                sqs = sorted(
                    (
                        at[(r + dr, c + dc)]
                        for dr in (0, 1)
                        for dc in range(4)
                        if (r + dr, c + dc) in at
                    ),
                    key=lambda sq: g.bit_of[sq],
                )
                assert len(sqs) == 4
                bits = [g.bit_of[sq] for sq in sqs]
                low = bits[0]
                mask = 0
                for b in bits:
                    mask |= 1 << (b - low)
                assert mask < 256
                part = bytearray(256)
                for gathered in range(256):
                    part[gathered] = sum(
                        3**k for k, b in enumerate(bits) if gathered >> (b - low) & 1
                    )
                shifts.append(low)
                masks.append(mask)
                tab += part
                win_squares.append(tuple(sqs))
        self.n_win = len(shifts)
        self.win_shift = bytes(shifts)
        self.win_mask = bytes(masks)
        self.win_tab = bytes(tab)
        self.win_squares = win_squares
        # a band is gathered with n + 1 bits from its lowest square (its two rows, the ghost bit
        # between them when there is one, or the first square of the next row, which its table
        # skips): the same mask and table size for every band
        width = n + 1
        b_shift: list[int] = []
        b_tab: list[int] = []
        for r in range(n - 1):
            sqs = sorted(
                (sq for (rr, _), sq in at.items() if rr in (r, r + 1)), key=lambda sq: g.bit_of[sq]
            )
            bits = [g.bit_of[sq] for sq in sqs]
            low = bits[0]
            assert bits[-1] - low < width
            b_shift.append(low)
            for gathered in range(1 << width):
                b_tab.append(sum(3**k for k, b in enumerate(bits) if gathered >> (b - low) & 1))
        self.n_band = n - 1
        self.band_shift = bytes(b_shift)
        self.band_width = width
        self.band_tab = b_tab
        self.band_states = 3**n
        self.band_sum = b""
        self.trained = False
        kv = int(self.king_value)
        self.coef = [SCALE * w for w in (MAN_VALUE, kv, 1, 1, 4, 6, -3, 1, 1)]
        self.pat = [0] * (PATTERN_STATES * len(shifts))

    def use_weights(self, coef: list[int], patterns: list[int]) -> None:
        """Score by trained weights (:mod:`dama.weights`) from now on: the terms above times the
        coefficients ``coef``, plus the values ``patterns`` of the windows' local patterns (all
        in 1/:data:`SCALE` centi-men)."""
        if len(coef) != N_TERMS or len(patterns) != PATTERN_STATES * self.n_win:
            raise ValueError(
                f"weights do not fit this board: {len(coef)} terms and {len(patterns)} pattern "
                f"values, not {N_TERMS} and {PATTERN_STATES * self.n_win}"
            )
        self.coef = list(coef)
        self.pat = list(patterns)
        self.band_sum = self._band_sums()
        self.trained = True

    def _band_sums(self) -> bytes:
        """For each band and each pattern of its squares, the sum of its windows' values."""
        g = geometry(int(self.size))
        n = int(self.size)
        states = 3**n
        out = bytearray()
        for r in range(n - 1):
            sqs = sorted(
                (sq for sq in range(1, g.squares + 1) if g.row_col(sq)[0] in (r, r + 1)),
                key=lambda sq: g.bit_of[sq],
            )
            digit = {sq: [(c // 3**k) % 3 for c in range(states)] for k, sq in enumerate(sqs)}
            total = [0] * states
            for i, wsq in enumerate(self.win_squares):
                if g.row_col(wsq[0])[0] not in (r, r + 1) or g.row_col(wsq[3])[0] not in (r, r + 1):
                    continue
                vals = self.pat[PATTERN_STATES * i : PATTERN_STATES * (i + 1)]
                d0, d1, d2, d3 = (digit[sq] for sq in wsq)
                total = [
                    t + vals[a + 3 * b + 9 * c + 27 * d]
                    for t, a, b, c, d in zip(total, d0, d1, d2, d3, strict=True)
                ]
            for t in total:
                v = t + BAND_OFFSET
                if not 0 <= v < 1 << 24:
                    raise ValueError("a band's pattern values do not fit in three bytes")
                out += bytes((v & 255, (v >> 8) & 255, v >> 16))
        return bytes(out)

    def evaluate(self, white: i64, black: i64, kings: i64, turn: bool) -> i64:
        """The score of a position from the side to move's view (see the module docstring)."""
        score = self.score(white, black, kings, None)
        return score if turn else -score

    def features(self, white: i64, black: i64, kings: i64) -> list[int]:
        """What the trained evaluation sums, for the training tool (``tools/train_eval.py``):
        ``[fixed, t0 .. t8, p0 .. p(n_win - 1)]``: ``fixed`` is 1 where an endgame rule fixes
        the score whatever the weights (below), the terms ``t`` from White's view (the named terms
        of the module docstring, in :data:`TERMS` order), then the index of each window's pattern
        in :attr:`pat`."""
        out = [0] * (1 + N_TERMS + self.n_win)
        self.score(white, black, kings, out)
        return out

    def score(self, white: i64, black: i64, kings: i64, out: list[int] | None) -> i64:
        """The score from White's view; the terms are written to ``out`` when it is given
        (:meth:`features`)."""
        wm = white & ~kings
        bm = black & ~kings
        wk = white & kings
        bk = black & kings
        n_wm = popcount(wm)
        n_bm = popcount(bm)
        n_wk = popcount(wk)
        n_bk = popcount(bk)
        kv = self.king_value
        mat = n_wm * MAN_VALUE + n_wk * kv - (n_bm * MAN_VALUE + n_bk * kv)
        men = n_wm + n_bm
        pieces = men + n_wk + n_bk
        mt = self.men_total
        # trading when ahead: up to +20 % of the lead as the board empties
        trade: i64 = 0
        if mat:
            trade = _div(mat * (mt - pieces), 5 * mt)
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
        adv = _div(a * (2 * mt - men), mt)
        # centre
        centre = self.centre
        cen = popcount(wm & centre) - popcount(bm & centre)
        # back-rank guard while the opponent has no king
        back: i64 = 0
        if not n_bk:
            back += popcount(wm & self.back_w)
        if not n_wk:
            back -= popcount(bm & self.back_b)
        # locked men: cannot step forward
        occ = white | black
        empty = self.valid & ~occ
        w_free = ((empty << self.s_ul) | (empty << self.s_ur)) & wm
        b_free = ((empty >> self.s_dl) | (empty >> self.s_dr)) & bm
        locked = popcount(wm ^ w_free) - popcount(bm ^ b_free)
        # runaway men
        run: i64 = 0
        runaway = (kv - MAN_VALUE) * 3 // 4
        if not n_bk:
            x = wm & self.zone_w
            while x:
                low = x & -x
                x ^= low
                b = popcount(low - 1)
                if not black & self.cone_w[b]:
                    run += runaway - 12 * self.dist_w[b]
        if not n_wk:
            x = bm & self.zone_b
            while x:
                low = x & -x
                x ^= low
                b = popcount(low - 1)
                if not white & self.cone_b[b]:
                    run -= runaway - 12 * self.dist_b[b]
        # kings: mobility, trapped kings, the main diagonal
        kterm: i64 = 0
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
                    kterm += v
                else:
                    kterm -= v
        if out is not None:
            out[1] = n_wm - n_bm
            out[2] = n_wk - n_bk
            out[3] = trade
            out[4] = adv
            out[5] = cen
            out[6] = back
            out[7] = locked
            out[8] = run
            out[9] = kterm
        score: i64
        if self.trained or out is not None:
            c = self.coef
            s = (
                c[0] * (n_wm - n_bm)
                + c[1] * (n_wk - n_bk)
                + c[2] * trade
                + c[3] * adv
                + c[4] * cen
                + c[5] * back
                + c[6] * locked
                + c[7] * run
                + c[8] * kterm
            )
            if out is not None:
                # the local patterns: each window's squares gathered by a shift and a mask, their
                # pattern numbered in base 3 (empty 0, White 1, Black 2) by the window's table
                tab = self.win_tab
                shifts = self.win_shift
                masks = self.win_mask
                pat = self.pat
                i: i64 = 0
                base: i64 = 0
                at: i64 = 0
                nw = self.n_win
                while i < nw:
                    sh: i64 = shifts[i]
                    m: i64 = masks[i]
                    idx = at + tab[base + ((white >> sh) & m)] + 2 * tab[base + ((black >> sh) & m)]
                    out[1 + N_TERMS + i] = idx
                    s += pat[idx]
                    i += 1
                    base += 256
                    at += PATTERN_STATES
            else:
                # the same sums a band of two rows at a time (all its windows in one lookup)
                bshift = self.band_shift
                btab = self.band_tab
                bsum = self.band_sum
                width2: i64 = self.band_width
                m2: i64 = (1 << width2) - 1
                step3: i64 = 3 * self.band_states
                r: i64 = 0
                a0: i64 = 0
                j0: i64 = 0
                nb = self.n_band
                while r < nb:
                    sh2: i64 = bshift[r]
                    cfg: i64 = (
                        btab[a0 + ((white >> sh2) & m2)] + 2 * btab[a0 + ((black >> sh2) & m2)]
                    )
                    j3 = j0 + 3 * cfg
                    s += (bsum[j3] | (bsum[j3 + 1] << 8) | (bsum[j3 + 2] << 16)) - BAND_OFFSET
                    r += 1
                    a0 += 1 << width2
                    j0 += step3
            score = _div(s, SCALE)
        else:
            score = mat + trade + adv + 4 * cen + 6 * back - 3 * locked + run + kterm
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
                if out is not None:
                    out[0] = 1
                return 0
            elif strong_men == 0 and strong_kings == 3 and lone & self.diagonal:
                if out is not None:
                    out[0] = 1
                score = _div(score, 4)
        return score


def _div(a: i64, b: i64) -> i64:
    """``a / b`` rounded towards 0 (the same for both colours, unlike ``//``)."""
    return a // b if a >= 0 else -(-a // b)


@cache
def evaluator(variant: Variant) -> Evaluator:
    """The shared :class:`Evaluator` of ``variant``: trained where :data:`dama.weights.IN_PLAY`
    says so, the hand-tuned one elsewhere."""
    if variant.name in weights.IN_PLAY:
        return trained_evaluator(variant)
    return Evaluator(variant)


@cache
def trained_evaluator(variant: Variant) -> Evaluator:
    """An :class:`Evaluator` of ``variant`` with its shipped trained weights
    (:class:`dama.weights.WeightsError` when it has none)."""
    w = weights.load(variant.name)
    ev = Evaluator(variant)
    ev.use_weights(list(w.coef), list(w.patterns))
    return ev


def evaluate(board: BaseBoard) -> int:
    """The static score of ``board`` from the side to move's view, in centi-men."""
    ev = evaluator(find_variant(board.variant))
    return ev.evaluate(board.white, board.black, board.kings, board.turn)
