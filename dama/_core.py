"""The move generator: every rule of how pieces move and capture, on raw ints.

Positions here are four values: ``white``, ``black``, ``kings`` (bitboards in the internal layout of
:mod:`dama.geometry`) and ``turn`` (True = White). A move is ``(frm, to, capmask)``: one bit for the
start, one for the end, and the set of captured pieces. Equivalent routes collapse to one move.

The variant's rules (men capture backward or not, king priority, the majority rule, the king's
landing, compulsory and complete captures) are applied in :meth:`Core.captures` alone. Perft and
the solver use the raw moves; :class:`~dama.Board` turns them into :class:`~dama.Move` objects,
asking :meth:`Core.routes` for the routes of captures (only the public API shows them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import TypeVar

from .geometry import DIRECTIONS, DOWN_LEFT, DOWN_RIGHT, UP_LEFT, UP_RIGHT, geometry
from .variants import Variant

RawMove = tuple[int, int, int]
T = TypeVar("T")
#: a capture route: the landing bits and the captured bits, both in jump order
Route = tuple[tuple[int, ...], tuple[int, ...]]


class Core:
    """Move generation for one variant, with everything it needs bound as locals."""

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
        #: the directions a man captures in, by side (True: White): forward, or all four
        self.man_dirs: dict[bool, tuple[int, ...]] = {
            True: DIRECTIONS if self.backward else (UP_LEFT, UP_RIGHT),
            False: DIRECTIONS if self.backward else (DOWN_LEFT, DOWN_RIGHT),
        }
        #: the shifts of a man's step forward: White's (right shifts), Black's (left shifts)
        self.white_shifts = (-g.steps[0], -g.steps[1])
        self.black_shifts = (g.steps[2], g.steps[3])
        self.man_steps: dict[bool, dict[int, RawMove]] = {True: {}, False: {}}
        self.king_steps: dict[int, RawMove] = {}
        for b in range(len(g.neighbour)):
            for white, dirs in ((True, (0, 1)), (False, (2, 3))):
                for d in dirs:
                    t = g.neighbour[b][d]
                    if t >= 0:
                        self.man_steps[white][1 << b | 1 << t] = (1 << b, 1 << t, 0)
            for ray in g.rays[b]:
                for t in ray:
                    self.king_steps[b << 7 | t] = (1 << b, 1 << t, 0)
        self.captures: Callable[[int, int, int, bool], list[RawMove]] = self._build_captures()

    def _build_captures(self) -> Callable[[int, int, int, bool], list[RawMove]]:
        g = self.geo
        nbr = g.neighbour
        rays = g.rays
        valid = g.valid
        steps = g.steps
        backward = self.backward
        majority = self.majority
        king_priority = self.king_priority

        def man_caps(
            b: int, occ: int, opp: int, captured: int, dirs: tuple[int, ...]
        ) -> list[tuple[int, int]]:
            res: list[tuple[int, int]] = []
            nb = nbr[b]
            for d in dirs:
                v = nb[d]
                if v < 0:
                    continue
                vb = 1 << v
                if not opp & vb or captured & vb:
                    continue
                land = nbr[v][d]
                if land < 0 or (occ >> land) & 1:
                    continue
                ncap = captured | vb
                sub = man_caps(land, occ, opp, ncap, dirs)
                if sub:
                    res.extend(sub)
                else:
                    res.append((land, ncap))
            return res

        def king_caps(b: int, occ: int, opp: int, captured: int) -> list[tuple[int, int]]:
            res: list[tuple[int, int]] = []
            for ray in rays[b]:
                n = len(ray)
                i = 0
                while i < n and not (occ >> ray[i]) & 1:
                    i += 1
                if i + 1 >= n:
                    continue
                v = ray[i]
                vb = 1 << v
                if not opp & vb or captured & vb:
                    continue
                i += 1
                if (occ >> ray[i]) & 1:
                    continue
                ncap = captured | vb
                cont: list[tuple[int, int]] = []
                term: list[tuple[int, int]] = []
                while i < n:
                    land = ray[i]
                    if (occ >> land) & 1:
                        break
                    sub = king_caps(land, occ, opp, ncap)
                    if sub:
                        cont.extend(sub)
                    elif not cont:
                        term.append((land, ncap))
                    i += 1
                res.extend(cont if cont else term)
            return res

        all_dirs: tuple[int, ...] = DIRECTIONS
        white_dirs, black_dirs = self.man_dirs[True], self.man_dirs[False]
        s_ul, s_ur, s_dl, s_dr = -steps[0], -steps[1], steps[2], steps[3]

        def captures(white: int, black: int, kings: int, turn: bool) -> list[RawMove]:
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
                b = low.bit_length() - 1
                for to, cap in king_caps(b, occ ^ low, opp, 0):
                    out.append((low, 1 << to, cap))
            if out and king_priority:
                pass
            else:
                men = own & ~kings
                empty = valid & ~occ
                if backward:
                    dirs = all_dirs
                    can = (
                        ((((empty << s_ul) & opp) << s_ul) & men)
                        | ((((empty << s_ur) & opp) << s_ur) & men)
                        | ((((empty >> s_dl) & opp) >> s_dl) & men)
                        | ((((empty >> s_dr) & opp) >> s_dr) & men)
                    )
                elif turn:
                    dirs = white_dirs
                    can = ((((empty << s_ul) & opp) << s_ul) & men) | (
                        (((empty << s_ur) & opp) << s_ur) & men
                    )
                else:
                    dirs = black_dirs
                    can = ((((empty >> s_dl) & opp) >> s_dl) & men) | (
                        (((empty >> s_dr) & opp) >> s_dr) & men
                    )
                while can:
                    low = can & -can
                    can ^= low
                    b = low.bit_length() - 1
                    for to, cap in man_caps(b, occ ^ low, opp, 0, dirs):
                        out.append((low, 1 << to, cap))
            if not out:
                return out
            if len(out) > 1:
                if majority:
                    best = 0
                    for m in out:
                        n = m[2].bit_count()
                        if n > best:
                            best = n
                    out = [m for m in out if m[2].bit_count() == best]
                if len(out) > 1:
                    out = list(dict.fromkeys(out))
            return out

        return captures

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

    def quiets(self, white: int, black: int, kings: int, turn: bool) -> list[RawMove]:
        """Non-capturing moves (call only when there is no capture)."""
        return self.quiet_moves(white, black, kings, turn, self.man_steps[turn], self.king_steps)

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
        g = self.geo
        occ = white | black
        empty = g.valid & ~occ
        own = white if turn else black
        men = own & ~kings
        out: list[T] = []
        if turn:
            for s in self.white_shifts:
                t = (men >> s) & empty
                while t:
                    low = t & -t
                    t ^= low
                    out.append(men_table[(low << s) | low])
        else:
            for s in self.black_shifts:
                t = (men << s) & empty
                while t:
                    low = t & -t
                    t ^= low
                    out.append(men_table[(low >> s) | low])
        kk = own & kings
        if kk:
            rays = g.rays
            while kk:
                low = kk & -kk
                kk ^= low
                kb = low.bit_length() - 1
                base = kb << 7
                for ray in rays[kb]:
                    for t2 in ray:
                        if (occ >> t2) & 1:
                            break
                        out.append(king_table[base | t2])
        return out

    def moves(self, white: int, black: int, kings: int, turn: bool) -> list[RawMove]:
        caps = self.captures(white, black, kings, turn)
        return caps if caps else self.quiets(white, black, kings, turn)

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

    def perft(self, white: int, black: int, kings: int, turn: bool, depth: int) -> int:
        """Leaf nodes at ``depth`` (bulk-counted at the last ply)."""
        if depth <= 0:
            return 1
        g = self.geo
        valid = g.valid
        wcrown, bcrown = g.white_crown, g.black_crown
        captures = self.captures
        rays = g.rays
        s_ul, s_ur, s_dl, s_dr = -g.steps[0], -g.steps[1], g.steps[2], g.steps[3]

        def count_quiets(white: int, black: int, kings: int, turn: bool) -> int:
            occ = white | black
            empty = valid & ~occ
            if turn:
                men = white & ~kings
                n = ((men >> s_ul) & empty).bit_count() + ((men >> s_ur) & empty).bit_count()
                kk = white & kings
            else:
                men = black & ~kings
                n = ((men << s_dl) & empty).bit_count() + ((men << s_dr) & empty).bit_count()
                kk = black & kings
            while kk:
                low = kk & -kk
                kk ^= low
                for ray in rays[low.bit_length() - 1]:
                    for t2 in ray:
                        if (occ >> t2) & 1:
                            break
                        n += 1
            return n

        backward = self.backward

        def rec(white: int, black: int, kings: int, turn: bool, depth: int) -> int:
            # most nodes have no king of the side to move and no man capture: find that with
            # a few shifts before paying for the full capture generator
            if turn:
                own, opp = white, black
            else:
                own, opp = black, white
            if own & kings:
                caps = captures(white, black, kings, turn)
            else:
                empty = valid & ~(white | black)
                if backward:
                    can = (
                        ((((empty << s_ul) & opp) << s_ul) & own)
                        | ((((empty << s_ur) & opp) << s_ur) & own)
                        | ((((empty >> s_dl) & opp) >> s_dl) & own)
                        | ((((empty >> s_dr) & opp) >> s_dr) & own)
                    )
                elif turn:
                    can = ((((empty << s_ul) & opp) << s_ul) & own) | (
                        (((empty << s_ur) & opp) << s_ur) & own
                    )
                else:
                    can = ((((empty >> s_dl) & opp) >> s_dl) & own) | (
                        (((empty >> s_dr) & opp) >> s_dr) & own
                    )
                if can:
                    caps = captures(white, black, kings, turn)
                elif depth == 1:
                    if turn:
                        return ((own >> s_ul) & empty).bit_count() + (
                            (own >> s_ur) & empty
                        ).bit_count()
                    return ((own << s_dl) & empty).bit_count() + ((own << s_dr) & empty).bit_count()
                else:
                    caps = []
            if depth == 1:
                return len(caps) if caps else count_quiets(white, black, kings, turn)
            total = 0
            if caps:
                for frm, to, cap in caps:
                    if kings & frm:
                        nk = (kings & ~frm & ~cap) | to
                    else:
                        nk = kings & ~cap
                        if to & (wcrown if turn else bcrown):
                            nk |= to
                    if turn:
                        total += rec((white ^ frm) | to, black & ~cap, nk, False, depth - 1)
                    else:
                        total += rec(white & ~cap, (black ^ frm) | to, nk, True, depth - 1)
                return total
            occ = white | black
            empty = valid & ~occ
            d1 = depth - 1
            if turn:
                men = white & ~kings
                for s in (s_ul, s_ur):
                    t = (men >> s) & empty
                    while t:
                        low = t & -t
                        t ^= low
                        nk = kings | low if low & wcrown else kings
                        total += rec(white ^ (low << s) ^ low, black, nk, False, d1)
                kk = white & kings
            else:
                men = black & ~kings
                for s in (s_dl, s_dr):
                    t = (men << s) & empty
                    while t:
                        low = t & -t
                        t ^= low
                        nk = kings | low if low & bcrown else kings
                        total += rec(white, black ^ (low >> s) ^ low, nk, True, d1)
                kk = black & kings
            while kk:
                low = kk & -kk
                kk ^= low
                for ray in rays[low.bit_length() - 1]:
                    for t2 in ray:
                        if (occ >> t2) & 1:
                            break
                        tb = 1 << t2
                        nk = kings ^ low ^ tb
                        if turn:
                            total += rec(white ^ low ^ tb, black, nk, False, d1)
                        else:
                            total += rec(white, black ^ low ^ tb, nk, True, d1)
            return total

        return rec(white, black, kings, turn, depth)


@cache
def core(variant: Variant) -> Core:
    """The shared :class:`Core` of ``variant``."""
    return Core(variant)
