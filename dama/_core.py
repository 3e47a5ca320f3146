"""The move generator: every rule of how pieces move and capture, on raw ints.

Positions here are four values: ``white``, ``black``, ``kings`` (bitboards in the internal layout of
:mod:`dama.geometry`) and ``turn`` (True = White). A move is ``(frm, to, capmask)``: one bit for the
start, one for the end, and the set of captured pieces. Equivalent routes collapse to one move.

The variant's rules (men capture backward or not, king priority, the majority rule, the king's
landing, compulsory and complete captures) are applied in :meth:`Core.captures` alone. Perft and
the solver use the raw moves; :class:`~dama.Board` turns them into :class:`~dama.Move` objects,
asking :meth:`Core.routes` for the routes of captures (only the public API shows them).

This module is ordinary Python and is also compiled with mypyc (see :mod:`dama._loader`): the hot
path is written for both. ``Core`` is a ``@final`` class with typed attributes (a C struct when
compiled), the recursion is in methods (no closures), and bitboards are ``i64`` (the largest board,
international, uses 55 bits of the ghost-square layout, so every shift stays inside 63 bits): plain
``int`` when run as Python, a machine word when compiled. No arithmetic here may overflow 63 bits
(nothing is multiplied), so both builds give the same answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from types import FunctionType
from typing import TYPE_CHECKING, TypeVar, cast, final

from .geometry import DIRECTIONS, DOWN_LEFT, DOWN_RIGHT, UP_LEFT, UP_RIGHT, Geometry, geometry
from .variants import Variant

if TYPE_CHECKING:  # a machine word when compiled; only ever in annotations, never evaluated
    from mypy_extensions import i64

#: one bit: ``ONE << n``. Not ``Final``: mypyc 2.4 would fold a constant 1 into C's 32-bit
#: ``1 << n`` (wrong from bit 31 on)
ONE: i64 = 1
RawMove = tuple[int, int, int]
T = TypeVar("T")
#: a capture route: the landing bits and the captured bits, both in jump order
Route = tuple[tuple[int, ...], tuple[int, ...]]


def popcount(x: i64) -> i64:
    """Set bits of a bitboard (``0 <= x < 2**62``), by shifts and masks only.

    >>> popcount(0b1011), popcount(0)
    (3, 0)
    """
    # 0x15...: 0x55... without bit 62 (x >> 1 < 2 ** 61), so that mypyc keeps it a machine word
    # (from 2 ** 62 on a literal is a boxed int, converted at every call)
    x = x - ((x >> 1) & 0x1555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x = x + (x >> 8)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return x & 0x7F


@final
class Core:
    """Move generation for one variant, with everything it needs as typed attributes."""

    variant: Variant
    geo: Geometry
    valid: i64
    white_crown: i64
    black_crown: i64
    steps: tuple[int, int, int, int]
    backward: bool
    majority: bool
    king_priority: bool
    #: the directions a man captures in, by side (True: White): forward, or all four
    man_dirs: dict[bool, tuple[int, ...]]
    white_dirs: tuple[int, ...]
    black_dirs: tuple[int, ...]
    #: the shifts of the four directions, all positive (up: right shift, down: left shift)
    s_ul: i64
    s_ur: i64
    s_dl: i64
    s_dr: i64
    #: ``nbr[4 * bit + direction]``: the neighbouring bit plus one, or 0 off the board (bytes:
    #: compiled, an item is read as a machine int, where a list's item is a boxed int to convert)
    nbr: bytes
    #: ``rays[bit]``: the four rays of bit indexes, nearest first
    rays: list[tuple[tuple[int, ...], ...]]
    #: the same rays as bytes, for :meth:`_king_jumps` (see ``nbr``)
    ray_bytes: list[tuple[bytes, ...]]
    man_steps: dict[bool, dict[int, RawMove]]
    king_steps: dict[int, RawMove]
    #: a man's step (a raw move) by its landing bit, one list per direction, for :meth:`quiets`;
    #: typed ``object`` so that compiled code passes the tuples on as they are (a typed tuple
    #: would be unpacked into a C struct and packed again)
    ul_steps: list[object]
    ur_steps: list[object]
    dl_steps: list[object]
    dr_steps: list[object]
    #: ``king_moves[from_bit][to_bit]``: a king's step (a raw move, typed as above)
    king_moves: list[list[object]]

    def __init__(self, variant: Variant) -> None:
        g = geometry(variant.size)
        self.variant = variant
        self.geo = g
        self.valid = g.valid
        self.white_crown = g.white_crown
        self.black_crown = g.black_crown
        self.steps = g.steps
        self.backward = variant.men_capture_backward
        self.majority = variant.majority_rule
        self.king_priority = variant.king_priority
        self.white_dirs = DIRECTIONS if self.backward else (UP_LEFT, UP_RIGHT)
        self.black_dirs = DIRECTIONS if self.backward else (DOWN_LEFT, DOWN_RIGHT)
        self.man_dirs = {True: self.white_dirs, False: self.black_dirs}
        self.s_ul, self.s_ur, self.s_dl, self.s_dr = (
            -g.steps[0],
            -g.steps[1],
            g.steps[2],
            g.steps[3],
        )
        self.nbr = bytes(t + 1 for nb in g.neighbour for t in nb)
        self.rays = g.rays
        self.ray_bytes = [tuple(bytes(ray) for ray in rays) for rays in g.rays]
        self.man_steps = {True: {}, False: {}}
        self.king_steps = {}
        for b in range(len(g.neighbour)):
            for white, dirs in ((True, (0, 1)), (False, (2, 3))):
                for d in dirs:
                    t = g.neighbour[b][d]
                    if t >= 0:
                        self.man_steps[white][1 << b | 1 << t] = (1 << b, 1 << t, 0)
            for ray in g.rays[b]:
                for t in ray:
                    self.king_steps[b << 7 | t] = (1 << b, 1 << t, 0)
        nbits = len(g.neighbour)
        steps: list[list[object]] = [[None] * nbits for _ in range(4)]
        self.king_moves = [[None] * nbits for _ in range(nbits)]
        for b in range(nbits):
            for d in range(4):
                t = g.neighbour[b][d]
                if t >= 0:
                    steps[d][t] = (1 << b, 1 << t, 0)
            for ray in g.rays[b]:
                for t in ray:
                    self.king_moves[b][t] = self.king_steps[b << 7 | t]
        self.ul_steps, self.ur_steps, self.dl_steps, self.dr_steps = steps

    # -- captures ---------------------------------------------------------------------------
    def _man_jumps(
        self,
        out: list[RawMove],
        frm: i64,
        b: i64,
        occ: i64,
        opp: i64,
        captured: i64,
        dirs: tuple[int, ...],
    ) -> None:
        """Append the captures of a man that started on ``frm`` and stands on bit ``b`` having
        taken ``captured`` (taken pieces stay on the board until the capture ends)."""
        nbr = self.nbr
        jumped = False
        for d in dirs:
            v: i64 = nbr[4 * b + d] - 1
            if v < 0 or not (opp >> v) & 1 or (captured >> v) & 1:
                continue
            land: i64 = nbr[4 * v + d] - 1
            if land < 0 or (occ >> land) & 1:
                continue
            jumped = True
            self._man_jumps(out, frm, land, occ, opp, captured | (ONE << v), dirs)
        if not jumped and captured:
            out.append((frm, ONE << b, captured))

    def _king_jumps(
        self, out: list[RawMove], frm: i64, b: i64, occ: i64, opp: i64, captured: i64
    ) -> bool:
        """Append the captures of a king that started on ``frm`` and stands on bit ``b`` having
        taken ``captured``; True when it can jump from ``b``. On each ray it lands only where it
        can jump again, when it can (the capture must be complete)."""
        jumped = False
        for ray in self.ray_bytes[b]:
            n: i64 = len(ray)
            i: i64 = 0
            while i < n and not (occ >> ray[i]) & 1:
                i += 1
            if i + 1 >= n:
                continue
            v: i64 = ray[i]
            if not (opp >> v) & 1 or (captured >> v) & 1:
                continue
            i += 1
            if (occ >> ray[i]) & 1:
                continue
            jumped = True
            ncap = captured | (ONE << v)
            going_on = False
            first: i64 = i
            while i < n:
                land: i64 = ray[i]
                if (occ >> land) & 1:
                    break
                if self._king_jumps(out, frm, land, occ, opp, ncap):
                    going_on = True
                i += 1
            if not going_on:
                while first < i:
                    out.append((frm, ONE << ray[first], ncap))
                    first += 1
        return jumped

    def captures(self, white: int, black: int, kings: int, turn: bool) -> list[RawMove]:
        """The legal captures (empty when there is none), by the variant's rules."""
        return self._captures(white, black, kings, turn)

    def _captures(self, white: i64, black: i64, kings: i64, turn: bool) -> list[RawMove]:
        if turn:
            own, opp = white, black
        else:
            own, opp = black, white
        occ = white | black
        out: list[RawMove] = []
        kk = own & kings
        while kk:
            low = kk & -kk
            kk ^= low
            self._king_jumps(out, low, bit_index(low), occ ^ low, opp, 0)
        if not out or not self.king_priority:
            men = own & ~kings
            can = self._man_can_capture(men, opp, self.valid & ~occ, turn)
            if can:
                dirs = self.white_dirs if turn else self.black_dirs
                while can:
                    low = can & -can
                    can ^= low
                    self._man_jumps(out, low, bit_index(low), occ ^ low, opp, 0, dirs)
        if len(out) > 1:
            if self.majority:
                best: i64 = 0
                for m in out:
                    c: i64 = popcount(m[2])
                    if c > best:
                        best = c
                out = [m for m in out if popcount(m[2]) == best]
            if len(out) > 1:
                # two routes can give the same move only when it takes two pieces or more
                for m in out:
                    if m[2] & (m[2] - 1):
                        out = list(dict.fromkeys(out))
                        break
        return out

    def _man_can_capture(self, men: i64, opp: i64, empty: i64, turn: bool) -> i64:
        """The men that have a first jump (an opponent next to them, an empty square behind)."""
        s_ul, s_ur, s_dl, s_dr = self.s_ul, self.s_ur, self.s_dl, self.s_dr
        if self.backward:
            return (
                ((((empty << s_ul) & opp) << s_ul) & men)
                | ((((empty << s_ur) & opp) << s_ur) & men)
                | ((((empty >> s_dl) & opp) >> s_dl) & men)
                | ((((empty >> s_dr) & opp) >> s_dr) & men)
            )
        if turn:
            return ((((empty << s_ul) & opp) << s_ul) & men) | (
                (((empty << s_ur) & opp) << s_ur) & men
            )
        return ((((empty >> s_dl) & opp) >> s_dl) & men) | ((((empty >> s_dr) & opp) >> s_dr) & men)

    # -- routes (for the public API only) -------------------------------------------------------
    def routes(
        self, white: int, black: int, kings: int, turn: bool, moves: list[RawMove]
    ) -> dict[RawMove, list[Route]]:
        """Every route of each capture in ``moves`` (legal captures of this position, as
        :meth:`captures` gives them): landing bits and captured bits, both in jump order.

        Routes are traced only here, for the interfaces that show them (:class:`~dama.Move`):
        which captures are legal is decided by :meth:`captures` alone. A route follows the same
        jumps (a king lands where it can jump again when it can, and a capture goes on while it
        can) but only over pieces its move captures.

        >>> from dama import Board
        >>> b = Board("czech", "W:W15,21,25,29,31,K32:B9,23")  # the king's 32x5 goes round two ways
        >>> c = core(b.variant)
        >>> (move,) = c.captures(b.white, b.black, b.kings, b.turn)
        >>> len(c.routes(b.white, b.black, b.kings, b.turn, [move])[move])
        2
        """
        out: dict[RawMove, list[Route]] = {}
        multi: dict[int, int] = {}
        for m in moves:
            frm, to, cap = m
            if cap & (cap - 1):
                out[m] = []
                multi[frm] = multi.get(frm, 0) | cap
            else:  # one piece taken: one jump, one route
                out[m] = [((to.bit_length() - 1,), (cap.bit_length() - 1,))]
        if multi:
            occ_all = white | black
            opp = black if turn else white
            for frm, wanted in multi.items():
                b = frm.bit_length() - 1
                if kings & frm:
                    self._king_walk(out, frm, b, occ_all ^ frm, opp, wanted, 0, (), ())
                else:
                    dirs = self.man_dirs[turn]
                    self._man_walk(out, frm, b, occ_all ^ frm, opp, wanted, 0, (), (), dirs)
        return out

    def _man_walk(
        self,
        out: dict[RawMove, list[Route]],
        frm: int,
        b: int,
        occ: int,
        opp: int,
        wanted: int,
        captured: int,
        lands: tuple[int, ...],
        caps: tuple[int, ...],
        dirs: tuple[int, ...],
    ) -> None:
        """The routes of a man on bit ``b`` over pieces of ``wanted`` (see :meth:`routes`)."""
        nbr = self.geo.neighbour
        jumped = False
        for d in dirs:
            v = nbr[b][d]
            if v < 0 or not (opp >> v) & 1 or (captured >> v) & 1:
                continue
            x = nbr[v][d]
            if x < 0 or (occ >> x) & 1:
                continue
            jumped = True
            if (wanted >> v) & 1:
                self._man_walk(
                    out, frm, x, occ, opp, wanted, captured | 1 << v, (*lands, x), (*caps, v), dirs
                )
        if not jumped:
            found = out.get((frm, 1 << b, captured))
            if found is not None:
                found.append((lands, caps))

    def _king_walk(
        self,
        out: dict[RawMove, list[Route]],
        frm: int,
        b: int,
        occ: int,
        opp: int,
        wanted: int,
        captured: int,
        lands: tuple[int, ...],
        caps: tuple[int, ...],
    ) -> None:
        """The routes of a king on bit ``b`` over pieces of ``wanted`` (see :meth:`routes`)."""
        rays = self.geo.rays
        jumped = False
        for ray in rays[b]:
            n = len(ray)
            i = 0
            while i < n and not (occ >> ray[i]) & 1:
                i += 1
            if i + 1 >= n:
                continue
            v = ray[i]
            if not (opp >> v) & 1 or (captured >> v) & 1 or (occ >> ray[i + 1]) & 1:
                continue
            jumped = True
            if not (wanted >> v) & 1:
                continue
            ncap = captured | 1 << v
            landings = []
            i += 1
            while i < n and not (occ >> ray[i]) & 1:
                landings.append(ray[i])
                i += 1
            # a king lands where it can jump again, when it can
            going_on = [x for x in landings if self._king_can_jump(x, occ, opp, ncap)]
            for x in going_on or landings:
                self._king_walk(out, frm, x, occ, opp, wanted, ncap, (*lands, x), (*caps, v))
        if not jumped:
            found = out.get((frm, 1 << b, captured))
            if found is not None:
                found.append((lands, caps))

    def _king_can_jump(self, b: int, occ: int, opp: int, captured: int) -> bool:
        for ray in self.geo.rays[b]:
            n = len(ray)
            i = 0
            while i < n and not (occ >> ray[i]) & 1:
                i += 1
            if (
                i + 1 < n
                and (opp >> ray[i]) & 1
                and not (captured >> ray[i]) & 1
                and not (occ >> ray[i + 1]) & 1
            ):
                return True
        return False

    # -- quiet moves ----------------------------------------------------------------------------
    def quiets(self, white: int, black: int, kings: int, turn: bool) -> list[RawMove]:
        """Non-capturing moves (call only when there is no capture), in the order of
        :meth:`quiet_moves`; the raw tables typed, for the compiled solver."""
        return self._quiets(white, black, kings, turn)

    def _quiets(self, white: i64, black: i64, kings: i64, turn: bool) -> list[RawMove]:
        occ = white | black
        empty = self.valid & ~occ
        out: list[object] = []  # the tables' moves as they are (see ul_steps)
        if turn:
            own = white
            men = own & ~kings
            table = self.ul_steps
            t = (men >> self.s_ul) & empty
            while t:
                low = t & -t
                t ^= low
                out.append(table[bit_index(low)])
            table = self.ur_steps
            t = (men >> self.s_ur) & empty
            while t:
                low = t & -t
                t ^= low
                out.append(table[bit_index(low)])
        else:
            own = black
            men = own & ~kings
            table = self.dl_steps
            t = (men << self.s_dl) & empty
            while t:
                low = t & -t
                t ^= low
                out.append(table[bit_index(low)])
            table = self.dr_steps
            t = (men << self.s_dr) & empty
            while t:
                low = t & -t
                t ^= low
                out.append(table[bit_index(low)])
        kk = own & kings
        while kk:
            low = kk & -kk
            kk ^= low
            kb = bit_index(low)
            row = self.king_moves[kb]
            for ray in self.rays[kb]:
                for t2 in ray:
                    if (occ >> t2) & 1:
                        break
                    out.append(row[t2])
        return cast("list[RawMove]", out)

    def quiet_moves(
        self,
        white: int,
        black: int,
        kings: int,
        turn: bool,
        men_table: Mapping[int, T],
        king_table: Mapping[int, T],
    ) -> list[T]:
        """Non-capturing moves, each looked up in a table (raw moves for :meth:`quiets`, move
        objects for :class:`~dama.Board`): a man's step by ``from_bit | to_bit`` (the side's
        table), a king's by ``from_index << 7 | to_index``. Men first, by direction, then kings."""
        occ: i64 = white | black
        empty: i64 = self.valid & ~occ
        own: i64 = white if turn else black
        men: i64 = own & ~kings
        out: list[T] = []
        if turn:
            s: i64 = self.s_ul
            t: i64 = (men >> s) & empty
            while t:
                low = t & -t
                t ^= low
                out.append(men_table[(low << s) | low])
            s = self.s_ur
            t = (men >> s) & empty
            while t:
                low = t & -t
                t ^= low
                out.append(men_table[(low << s) | low])
        else:
            s = self.s_dl
            t = (men << s) & empty
            while t:
                low = t & -t
                t ^= low
                out.append(men_table[(low >> s) | low])
            s = self.s_dr
            t = (men << s) & empty
            while t:
                low = t & -t
                t ^= low
                out.append(men_table[(low >> s) | low])
        kk: i64 = own & kings
        while kk:
            low = kk & -kk
            kk ^= low
            kb: i64 = bit_index(low)
            base = kb << 7
            for ray in self.rays[kb]:
                for t2 in ray:
                    if (occ >> t2) & 1:
                        break
                    out.append(king_table[base | t2])
        return out

    def moves(self, white: int, black: int, kings: int, turn: bool) -> list[RawMove]:
        caps = self._captures(white, black, kings, turn)
        return caps if caps else self._quiets(white, black, kings, turn)

    def make(
        self, white: int, black: int, kings: int, turn: bool, move: RawMove
    ) -> tuple[int, int, int]:
        """The position after ``move`` (the side to move flips)."""
        frm, to, cap = move
        if kings & frm:
            kings = (kings & ~frm & ~cap) | to
        else:
            kings &= ~cap
            if to & (self.white_crown if turn else self.black_crown):
                kings |= to
        if turn:
            return (white & ~frm) | to, black & ~cap, kings
        return white & ~cap, (black & ~frm) | to, kings

    # -- perft ----------------------------------------------------------------------------------
    def perft(self, white: int, black: int, kings: int, turn: bool, depth: int) -> int:
        """Leaf nodes at ``depth`` (bulk-counted at the last ply)."""
        if depth <= 0:
            return 1
        return self._perft(white, black, kings, turn, depth)

    def _count_quiets(self, white: i64, black: i64, kings: i64, turn: bool) -> i64:
        occ = white | black
        empty = self.valid & ~occ
        if turn:
            men = white & ~kings
            n = popcount((men >> self.s_ul) & empty) + popcount((men >> self.s_ur) & empty)
            kk = white & kings
        else:
            men = black & ~kings
            n = popcount((men << self.s_dl) & empty) + popcount((men << self.s_dr) & empty)
            kk = black & kings
        while kk:
            low = kk & -kk
            kk ^= low
            for ray in self.rays[bit_index(low)]:
                for t2 in ray:
                    if (occ >> t2) & 1:
                        break
                    n += 1
        return n

    def _perft(self, white: i64, black: i64, kings: i64, turn: bool, depth: i64) -> int:
        # most nodes have no king of the side to move and no man capture: find that with a few
        # shifts before paying for the full capture generator
        if turn:
            own, opp = white, black
        else:
            own, opp = black, white
        empty = self.valid & ~(white | black)
        if own & kings:
            can = own
        elif self.backward:
            can = (
                ((((empty << self.s_ul) & opp) << self.s_ul) & own)
                | ((((empty << self.s_ur) & opp) << self.s_ur) & own)
                | ((((empty >> self.s_dl) & opp) >> self.s_dl) & own)
                | ((((empty >> self.s_dr) & opp) >> self.s_dr) & own)
            )
        elif turn:
            can = ((((empty << self.s_ul) & opp) << self.s_ul) & own) | (
                (((empty << self.s_ur) & opp) << self.s_ur) & own
            )
        else:
            can = ((((empty >> self.s_dl) & opp) >> self.s_dl) & own) | (
                (((empty >> self.s_dr) & opp) >> self.s_dr) & own
            )
        if can:
            caps = self._captures(white, black, kings, turn)
            if caps:
                if depth == 1:
                    return len(caps)
                return self._perft_captures(white, black, kings, turn, depth, caps)
        if depth == 1:
            return self._count_quiets(white, black, kings, turn)
        total = 0
        d1 = depth - 1
        if turn:
            men = white & ~kings
            s = self.s_ul
            t = (men >> s) & empty
            while t:
                low = t & -t
                t ^= low
                nk = kings | low if low & self.white_crown else kings
                total += self._perft(white ^ (low << s) ^ low, black, nk, False, d1)
            s = self.s_ur
            t = (men >> s) & empty
            while t:
                low = t & -t
                t ^= low
                nk = kings | low if low & self.white_crown else kings
                total += self._perft(white ^ (low << s) ^ low, black, nk, False, d1)
            kk = white & kings
        else:
            men = black & ~kings
            s = self.s_dl
            t = (men << s) & empty
            while t:
                low = t & -t
                t ^= low
                nk = kings | low if low & self.black_crown else kings
                total += self._perft(white, black ^ (low >> s) ^ low, nk, True, d1)
            s = self.s_dr
            t = (men << s) & empty
            while t:
                low = t & -t
                t ^= low
                nk = kings | low if low & self.black_crown else kings
                total += self._perft(white, black ^ (low >> s) ^ low, nk, True, d1)
            kk = black & kings
        if kk:
            occ = white | black
            while kk:
                low = kk & -kk
                kk ^= low
                for ray in self.rays[bit_index(low)]:
                    for t2 in ray:
                        if (occ >> t2) & 1:
                            break
                        tb = ONE << t2
                        nk = kings ^ low ^ tb
                        if turn:
                            total += self._perft(white ^ low ^ tb, black, nk, False, d1)
                        else:
                            total += self._perft(white, black ^ low ^ tb, nk, True, d1)
        return total

    def _perft_captures(
        self, white: i64, black: i64, kings: i64, turn: bool, depth: i64, caps: list[RawMove]
    ) -> int:
        total = 0
        d1 = depth - 1
        for m in caps:
            frm: i64 = m[0]
            to: i64 = m[1]
            cap: i64 = m[2]
            if kings & frm:
                nk = (kings & ~frm & ~cap) | to
            else:
                nk = kings & ~cap
                if to & (self.white_crown if turn else self.black_crown):
                    nk |= to
            if turn:
                total += self._perft((white ^ frm) | to, black & ~cap, nk, False, d1)
            else:
                total += self._perft(white & ~cap, (black ^ frm) | to, nk, True, d1)
        return total


def bit_index(low: i64) -> i64:
    """The index of a one-bit bitboard.

    >>> bit_index(1 << 54)
    54
    """
    return int(low).bit_length() - 1


if isinstance(popcount, FunctionType):
    # run as Python (not compiled): the C method beats any arithmetic; compiled code never reads
    # this global (mypyc calls the function above directly)
    globals()["popcount"] = int.bit_count


@cache
def core(variant: Variant) -> Core:
    """The shared :class:`Core` of ``variant``."""
    return Core(variant)
