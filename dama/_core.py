"""The fast core: move generation on raw ints, used by perft and the solver.

Positions here are four values: ``white``, ``black``, ``kings`` (bitboards in the internal layout of
:mod:`dama.geometry`) and ``turn`` (True = White). A move is ``(frm, to, capmask)``: one bit for the
start, one for the end, and the set of captured pieces. Equivalent routes collapse to one move.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from .geometry import geometry
from .variants import Variant

RawMove = tuple[int, int, int]


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

        all_dirs: tuple[int, ...] = (0, 1, 2, 3)
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
                    dirs: tuple[int, ...] = all_dirs
                    can = (
                        ((((empty << s_ul) & opp) << s_ul) & men)
                        | ((((empty << s_ur) & opp) << s_ur) & men)
                        | ((((empty >> s_dl) & opp) >> s_dl) & men)
                        | ((((empty >> s_dr) & opp) >> s_dr) & men)
                    )
                elif turn:
                    dirs = (0, 1)
                    can = ((((empty << s_ul) & opp) << s_ul) & men) | (
                        (((empty << s_ur) & opp) << s_ur) & men
                    )
                else:
                    dirs = (2, 3)
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

    def quiets(self, white: int, black: int, kings: int, turn: bool) -> list[RawMove]:
        """Non-capturing moves (call only when there is no capture)."""
        g = self.geo
        occ = white | black
        empty = g.valid & ~occ
        own = white if turn else black
        men = own & ~kings
        out: list[RawMove] = []
        for d in (0, 1) if turn else (2, 3):
            s = g.steps[d]
            t = (men >> -s if s < 0 else men << s) & empty
            while t:
                low = t & -t
                t ^= low
                out.append((low >> s if s > 0 else low << -s, low, 0))
        kk = own & kings
        rays = g.rays
        while kk:
            low = kk & -kk
            kk ^= low
            for ray in rays[low.bit_length() - 1]:
                for t2 in ray:
                    if (occ >> t2) & 1:
                        break
                    out.append((low, 1 << t2, 0))
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
