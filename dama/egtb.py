"""The endgame databases' hot path: indexing positions and building a material by retrograde
analysis (the file format, the files and the public API are in :mod:`dama.endgames`).

Positions are stored with White to move only: a position with Black to move is looked up as its
colour flip (the board turned half round, colours swapped: square ``s`` becomes ``N + 1 - s``),
which the rules of all three variants keep. A *material* is ``(wk, wm, bk, bm)``: White's kings and
men, Black's kings and men, White to move. Its positions are numbered by the combinatorial rank of
each group's squares (men never stand on their own crowning row): ``index = ((rank(wk) * C(men
squares, wm) + rank(wm)) * C(N, bk) + rank(bk)) * C(men squares, bm) + rank(bm)``. Indexes where two
groups overlap are unused (stored as 0).

A value is one byte: 0 a draw (or an unused index), otherwise ``plies + 1`` where ``plies`` is the
number of plies to the end of the game with best play (the winner hurries, the loser delays), odd
for a win of the side to move and even for a loss (0: it has no move).

Building (:func:`build_material`): a material and its colour flip are built together (a quiet move
of White in one leads, after the flip, into the other). Every position is first generated forwards
once: a position with a capture (captures are compulsory) has all its successors in smaller
materials, already built, and is decided at once; so is a quiet position whose moves all leave the
pair (crownings go to a material with one man fewer and one king more, built before). Otherwise it
keeps a counter of its successors inside the pair. Then the decided positions are taken ply by ply
and their predecessors are found by un-moves (a king slides back, a man steps back; a predecessor
with a capture was decided at the start and is skipped): a loss in ``n`` makes each predecessor a
win in ``n + 1``; a win counts a predecessor's successor off, and when none is left the
predecessor is lost in one more ply than its slowest successor. What is left undecided is a draw.

Written for mypyc like :mod:`dama._core` (typed, ``i64``, ``@final`` classes, no closures); run as
Python it is the same code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, final

from ._core import ONE, Core, core, popcount
from .geometry import DOWN_LEFT, DOWN_RIGHT
from .variants import Variant

if TYPE_CHECKING:
    from mypy_extensions import i64

#: ``_BIT67[(1 << b) % 67] == b`` for every bit b < 64 (the powers of two differ modulo 67): a
#: bit's index by machine arithmetic (compiled, ``int.bit_length`` would box the word)
_BIT67: Final = bytes([next((b for b in range(64) if (1 << b) % 67 == k), 0) for k in range(67)])


def bit_of(low: i64) -> i64:
    """The index of a one-bit bitboard.

    >>> bit_of(1 << 54), bit_of(1)
    (54, 0)
    """
    return _BIT67[low % 67]


#: the longest distance a byte holds (plies)
MAX_PLIES: Final = 254
#: the table's sentinel: counter value that never reaches zero
_NEVER: Final = 1 << 20


def material_key(wk: int, wm: int, bk: int, bm: int) -> int:
    """One int for a material (each count < 10)."""
    return wk * 1000 + wm * 100 + bk * 10 + bm


def material_name(wk: int, wm: int, bk: int, bm: int) -> str:
    """``KKMvK``: White's kings and men, ``v``, Black's (White to move).

    >>> material_name(2, 1, 1, 0), material_name(0, 1, 0, 1)
    ('KKMvK', 'MvM')
    """
    return "K" * wk + "M" * wm + "v" + "K" * bk + "M" * bm


def parse_material(name: str) -> tuple[int, int, int, int]:
    """The counts of a material name (see :func:`material_name`); ValueError when it is not one.

    >>> parse_material("KKMvK")
    (2, 1, 1, 0)
    """
    w, sep, b = name.strip().upper().partition("V")
    if not sep or not w or not b or set(w + b) - {"K", "M"}:
        raise ValueError(f"{name!r} is not a material: write e.g. KKvK or KMvKM")
    if w != "K" * w.count("K") + "M" * w.count("M") or b != "K" * b.count("K") + "M" * b.count("M"):
        raise ValueError(f"{name!r}: write each side's kings before its men, e.g. KKMvK")
    return w.count("K"), w.count("M"), b.count("K"), b.count("M")


@final
class Indexer:
    """Squares, ranks and flips of one board size (the same for every variant of that size)."""

    n: i64
    half: i64
    #: ``sq1[bit]``: the square index (0-based) plus one of a bit, 0 for a ghost bit
    sq1: bytes
    #: ``bits[s]``: the bitboard of square index ``s``
    bits: list[int]
    #: ``flip[bit]``: the bit of the square turned half round
    flip: bytes
    #: ``binom[n * 8 + k]``: n choose k (k <= 7)
    binom: list[int]
    #: the crowning rows: no man of that side stands there in an indexed position
    white_crown: i64
    black_crown: i64

    def __init__(self, size: int) -> None:
        from .geometry import geometry

        g = geometry(size)
        self.n = g.squares
        self.half = g.half
        nbits = len(g.square_of)
        self.sq1 = bytes(g.square_of[b] for b in range(nbits))
        self.bits = [1 << g.bit_of[s + 1] for s in range(g.squares)]
        self.flip = bytes(
            g.bit_of[g.squares + 1 - g.square_of[b]] if g.square_of[b] else 0 for b in range(nbits)
        )
        binom = [0] * ((g.squares + 2) * 8)
        for i in range(g.squares + 2):
            for k in range(8):
                binom[i * 8 + k] = _choose(i, k)
        self.binom = binom
        self.white_crown = g.white_crown
        self.black_crown = g.black_crown

    def count(self, squares: i64, k: i64) -> i64:
        """Combinations of ``k`` squares among ``squares``."""
        return self.binom[squares * 8 + k]

    def rank(self, bb: i64, off: i64) -> i64:
        """The colex rank of the squares of ``bb`` (each minus ``off``)."""
        r: i64 = 0
        i: i64 = 1
        sq1 = self.sq1
        binom = self.binom
        while bb:
            low = bb & -bb
            bb ^= low
            s: i64 = sq1[bit_of(low)] - 1 - off
            r += binom[s * 8 + i]
            i += 1
        return r

    def unrank(self, r: i64, k: i64, off: i64, top: i64) -> i64:
        """The bitboard of the combination of rank ``r`` of ``k`` squares below ``top`` (plus
        ``off``)."""
        bb: i64 = 0
        binom = self.binom
        c: i64 = top - 1
        while k > 0:
            while binom[c * 8 + k] > r:
                c -= 1
            r -= binom[c * 8 + k]
            bb |= self.bits[c + off]
            k -= 1
            c -= 1
        return bb

    def flipped(self, bb: i64) -> i64:
        """``bb`` turned half round."""
        out: i64 = 0
        flip = self.flip
        while bb:
            low = bb & -bb
            bb ^= low
            out |= ONE << flip[bit_of(low)]
        return out


def _choose(n: int, k: int) -> int:
    if k < 0 or k > n:
        return 0
    r = 1
    for i in range(k):
        r = r * (n - i) // (i + 1)
    return r


@final
class Slice:
    """One material with White to move: its sizes and the index of a position."""

    wk: i64
    wm: i64
    bk: i64
    bm: i64
    key: i64
    name: str
    ix: Indexer
    c_wm: i64
    c_bk: i64
    c_bm: i64
    size: i64
    men_squares: i64
    #: what one step of each group's rank adds to the index
    m_wk: i64
    m_wm: i64
    #: the last position decoded (see :meth:`decode`): ranks and bitboards of each group
    r_wk: i64
    r_wm: i64
    r_bk: i64
    r_bm: i64
    b_wk: i64
    b_wm: i64
    b_bk: i64
    b_bm: i64

    def __init__(self, ix: Indexer, wk: i64, wm: i64, bk: i64, bm: i64) -> None:
        self.ix = ix
        self.wk, self.wm, self.bk, self.bm = wk, wm, bk, bm
        self.key = material_key(wk, wm, bk, bm)
        self.name = material_name(wk, wm, bk, bm)
        self.men_squares = ix.n - ix.half
        c_wk = ix.count(ix.n, wk)
        self.c_wm = ix.count(self.men_squares, wm)
        self.c_bk = ix.count(ix.n, bk)
        self.c_bm = ix.count(self.men_squares, bm)
        self.size = c_wk * self.c_wm * self.c_bk * self.c_bm
        self.m_wm = self.c_bk * self.c_bm
        self.m_wk = self.c_wm * self.m_wm
        self.r_wk = self.r_wm = self.r_bk = self.r_bm = -1
        self.b_wk = self.b_wm = self.b_bk = self.b_bm = 0

    def index(self, wkb: i64, wmb: i64, bkb: i64, bmb: i64) -> i64:
        """The index of a position of this material (White to move)."""
        ix = self.ix
        r = ix.rank(wkb, 0) * self.c_wm + ix.rank(wmb, ix.half)
        r = r * self.c_bk + ix.rank(bkb, 0)
        return r * self.c_bm + ix.rank(bmb, 0)

    def decode(self, idx: i64) -> tuple[i64, i64, i64, i64]:
        """``(white kings, white men, black kings, black men)`` of an index (they may overlap).
        The groups of the last index decoded are kept: indexes taken in order mostly change the
        last group only."""
        ix = self.ix
        r_bm = idx % self.c_bm
        idx //= self.c_bm
        r_bk = idx % self.c_bk
        idx //= self.c_bk
        r_wm = idx % self.c_wm
        r_wk = idx // self.c_wm
        if r_wk != self.r_wk:
            self.r_wk = r_wk
            self.b_wk = ix.unrank(r_wk, self.wk, 0, ix.n)
        if r_wm != self.r_wm:
            self.r_wm = r_wm
            self.b_wm = ix.unrank(r_wm, self.wm, ix.half, self.men_squares)
        if r_bk != self.r_bk:
            self.r_bk = r_bk
            self.b_bk = ix.unrank(r_bk, self.bk, 0, ix.n)
        if r_bm != self.r_bm:
            self.r_bm = r_bm
            self.b_bm = ix.unrank(r_bm, self.bm, 0, self.men_squares)
        return self.b_wk, self.b_wm, self.b_bk, self.b_bm


@final
class Lookup:
    """Values of built materials: ``tables[key]`` the bytes of a material (White to move), from
    ``offset`` on (a file's header: mapped files are read in place)."""

    ix: Indexer
    slices: dict[int, Slice]
    tables: dict[int, object]
    offset: i64
    #: the most pieces of a material here (a quick test before a lookup)
    max_pieces: i64

    def __init__(self, ix: Indexer, offset: i64 = 0) -> None:
        self.ix = ix
        self.slices = {}
        self.tables = {}
        self.offset = offset
        self.max_pieces = 0

    def add(self, s: Slice, data: object) -> None:
        self.slices[s.key] = s
        self.tables[s.key] = data
        pieces = s.wk + s.wm + s.bk + s.bm
        if pieces > self.max_pieces:
            self.max_pieces = pieces

    def value(self, white: i64, black: i64, kings: i64, turn: bool) -> i64:
        """The stored byte of a position (see the module), or -1 when its material is not here.
        A side to move with no piece has lost (1: a loss in 0 plies)."""
        if not turn:
            ix = self.ix
            white, black, kings = ix.flipped(black), ix.flipped(white), ix.flipped(kings)
        if not white:
            return 1
        wkb = white & kings
        bkb = black & kings
        wmb = white ^ wkb
        bmb = black ^ bkb
        if wmb & self.ix.white_crown or bmb & self.ix.black_crown:
            return -1  # a man on its crowning row: not a position of a game
        key = material_key(popcount(wkb), popcount(wmb), popcount(bkb), popcount(bmb))
        s = self.slices.get(key)
        if s is None:
            return -1
        data = self.tables[key]
        idx = s.index(wkb, wmb, bkb, bmb) + self.offset
        if isinstance(data, bytes):
            v: i64 = data[idx]
            return v
        return int(data[idx])  # type: ignore[index]

    def need(self, white: i64, black: i64, kings: i64, turn: bool) -> i64:
        """:meth:`value`, raising KeyError when the material is not here (a build needs it)."""
        v = self.value(white, black, kings, turn)
        if v < 0:
            raise KeyError(f"a material this build needs is not built ({white}, {black}, {kings})")
        return v


def negate(v: i64) -> i64:
    """The value one ply earlier, for the other side: a win in n+1 for a loss in n and so on."""
    if v == 0:
        return 0
    return v + 1


def better(a: i64, b: i64) -> i64:
    """The better of two values for the side to move (win > draw > loss; fast wins, slow
    losses)."""
    if a == b:
        return a
    a_win = a > 0 and (a - 1) & 1
    b_win = b > 0 and (b - 1) & 1
    if a_win or b_win:
        if a_win and b_win:
            return a if a < b else b
        return a if a_win else b
    if a == 0 or b == 0:
        return 0
    return a if a > b else b


@final
class Builder:
    """Builds one material and its colour flip (one array each)."""

    c: Core
    ix: Indexer
    look: Lookup
    slices: list[Slice]
    #: per slice: values, decided flags (1 decided, 2 unused index), successor counters, slowest
    #: loss so far
    vals: list[bytearray]
    done: list[bytearray]
    counters: list[list[int]]
    lossmax: list[bytearray]
    #: ``buckets[plies]``: positions decided with that distance, ``index * 2 + slice``
    buckets: list[list[int]]
    #: positions that win by a crowning in that many plies (unless faster inside the pair)
    wins: list[list[int]]
    #: the partner (colour flip) of each slice: 0 or 1
    partner: list[int]

    def __init__(self, variant: Variant, look: Lookup, slices: list[Slice]) -> None:
        self.c = core(variant)
        self.ix = look.ix
        self.look = look
        self.slices = slices
        self.vals = [bytearray(s.size) for s in slices]
        self.done = [bytearray(s.size) for s in slices]
        self.counters = [[0] * s.size for s in slices]
        self.lossmax = [bytearray(s.size) for s in slices]
        self.buckets = [[] for _ in range(MAX_PLIES + 2)]
        self.wins = [[] for _ in range(MAX_PLIES + 2)]
        self.partner = [1, 0] if len(slices) == 2 else [0]

    def run(self) -> list[bytes]:
        for sid in range(len(self.slices)):
            self.init_slice(sid)
        self.retro()
        return [bytes(v) for v in self.vals]

    def _decide(self, sid: i64, idx: i64, v: i64) -> None:
        self.done[sid][idx] = 1
        self.vals[sid][idx] = v
        if v:
            if v - 1 > MAX_PLIES:
                raise OverflowError("a distance beyond 254 plies does not fit a byte")
            self.buckets[v - 1].append(idx * 2 + sid)

    def init_slice(self, sid: i64) -> None:
        s = self.slices[sid]
        c = self.c
        look = self.look
        total = s.wk + s.wm + s.bk + s.bm
        done = self.done[sid]
        counters = self.counters[sid]
        lossmax = self.lossmax[sid]
        crown = c.white_crown
        for idx in range(s.size):
            wkb, wmb, bkb, bmb = s.decode(idx)
            white = wkb | wmb
            black = bkb | bmb
            if popcount(white | black) != total:
                done[idx] = 2
                continue
            kings = wkb | bkb
            caps = c._captures(white, black, kings, True)
            if caps:
                best: i64 = -1
                for m in caps:
                    w2, b2, k2 = c.make(white, black, kings, True, m)
                    v = negate(look.need(w2, b2, k2, False))
                    best = v if best < 0 else better(best, v)
                self._decide(sid, idx, best)
                continue
            quiets = c._quiets(white, black, kings, True)
            if not quiets:
                self._decide(sid, idx, 1)
                continue
            inside: i64 = 0
            out: i64 = -1
            for m in quiets:
                frm: i64 = m[0]
                to: i64 = m[1]
                if not (kings & frm) and to & crown:
                    w2, b2, k2 = c.make(white, black, kings, True, m)
                    v = negate(look.need(w2, b2, k2, False))
                    out = v if out < 0 else better(out, v)
                else:
                    inside += 1
            if inside == 0:
                self._decide(sid, idx, out)
                continue
            if out >= 0:
                if out == 0:
                    inside += _NEVER  # a draw outside: never lost
                elif (out - 1) & 1:
                    inside += _NEVER  # a win outside: never lost
                    self.wins[out - 1].append(idx * 2 + sid)
                else:
                    lossmax[idx] = out
            counters[idx] = inside

    def retro(self) -> None:
        for n in range(MAX_PLIES + 1):
            for e in self.wins[n]:
                sid = e & 1
                idx = e >> 1
                if not self.done[sid][idx]:
                    self._decide(sid, idx, n + 1)
            bucket = self.buckets[n]
            i = 0
            # the bucket grows only with later plies while it is read (n + 1 and beyond)
            while i < len(bucket):
                e = bucket[i]
                i += 1
                self.predecessors(e & 1, e >> 1, n)

    def predecessors(self, sid: i64, idx: i64, n: i64) -> None:
        """Tell the predecessors of position ``idx`` of slice ``sid`` (decided, ``n`` plies)."""
        s = self.slices[sid]
        ix = self.ix
        wkb, wmb, bkb, bmb = s.decode(idx)
        # the position with Black to move that this one is the flip of: White just moved in it
        pwk = ix.flipped(bkb)
        pwm = ix.flipped(bmb)
        pbk = ix.flipped(wkb)
        pbm = ix.flipped(wmb)
        occ = pwk | pwm | pbk | pbm
        psid = self.partner[sid]
        ps = self.slices[psid]
        win = (n & 1) == 0  # this position is lost: every predecessor wins
        nbr = self.c.nbr
        half = ix.half
        r_wk = ix.rank(pwk, 0)
        r_wm = ix.rank(pwm, half)
        base = ((r_wk * ps.c_wm + r_wm) * ps.c_bk + ix.rank(pbk, 0)) * ps.c_bm + ix.rank(pbm, 0)
        # a man stepped up: it came from below (only the men's rank changes)
        men = pwm
        while men:
            low = men & -men
            men ^= low
            b = bit_of(low)
            f: i64 = nbr[4 * b + DOWN_LEFT] - 1
            if f >= 0 and not (occ >> f) & 1:
                r = base + (ix.rank(pwm ^ low ^ (ONE << f), half) - r_wm) * ps.m_wm
                self.tell(psid, r, n, win)
            f = nbr[4 * b + DOWN_RIGHT] - 1
            if f >= 0 and not (occ >> f) & 1:
                r = base + (ix.rank(pwm ^ low ^ (ONE << f), half) - r_wm) * ps.m_wm
                self.tell(psid, r, n, win)
        kk = pwk
        while kk:
            low = kk & -kk
            kk ^= low
            b = bit_of(low)
            rest = pwk ^ low
            for ray in self.c.ray_bytes[b]:
                for t in ray:
                    if (occ >> t) & 1:
                        break
                    r = base + (ix.rank(rest | (ONE << t), 0) - r_wk) * ps.m_wk
                    self.tell(psid, r, n, win)

    def tell(self, sid: i64, r: i64, n: i64, win: bool) -> None:
        if self.done[sid][r]:
            return
        if win:
            self._decide(sid, r, n + 2)
            return
        counters = self.counters[sid]
        lm = self.lossmax[sid]
        if lm[r] < n + 2:
            lm[r] = n + 2
        left = counters[r] - 1
        counters[r] = left
        if left == 0:
            self._decide(sid, r, lm[r])


def build_material(
    variant: Variant, look: Lookup, wk: int, wm: int, bk: int, bm: int
) -> list[tuple[Slice, bytes]]:
    """Build a material and its colour flip (one slice when they are the same): every material
    their positions can reach by a capture or a crowning must be in ``look``."""
    ix = look.ix
    slices = [Slice(ix, wk, wm, bk, bm)]
    if (wk, wm) != (bk, bm):
        slices.append(Slice(ix, bk, bm, wk, wm))
    data = Builder(variant, look, slices).run()
    return list(zip(slices, data, strict=True))
