"""The playing engine: choose a move in a game, at a strength from level 1 to 8.

:func:`search` runs an iterative-deepening principal-variation (PVS) alpha-beta search on the raw
bitboards of :mod:`dama._core` and returns a :class:`SearchResult` whose move is one of
``board.legal_moves``. :func:`best_move` plays at a :class:`Level` of :data:`LEVELS` (in a
variant, :func:`level_for`: some variants step their levels by other node limits).

>>> from dama import Board
>>> r = search(Board("czech", "W:W22,K31:B18"), depth=3)  # 22x15 takes the lone man
>>> r.move.route_str(), r.score > 3000
('22x15', True)

Search
======

* A transposition table in preallocated arrays (a check of the key, the depth, bound and score,
  the move), keyed on a Zobrist hash of the position updated move by move, mixed with the draw-rule
  counters when they run, so that a score that depends on a count is not reused where the count
  differs.
* Quiescence: captures are compulsory, so a leaf where the side to move must capture is searched
  on, capture after capture, until a quiet position; a position where a side has a single legal
  move (a forced capture) extends the search by a ply.
* Move ordering: the hash move, then captures (the most pieces first), crowning moves, the two
  killer moves of the ply, then the history heuristic; the next move is picked from the rest by
  its score as the loop goes (most nodes end at their first or second move: no full sort).
* Limits: depth, nodes and seconds (each optional; at least one applies), checked every 1024
  nodes; the deepest completed iteration gives the move.
* ``memory`` (a :class:`Memory`, one per side of a game): the transposition table and the
  history of quiet moves kept from one move of the game to the next, as chess engines keep
  their hash table. The search of the next move then starts with what the last one learnt about
  the positions it will meet again (its expected line and the replies to it), and reaches the
  same depth with fewer nodes.
* ``seed``: the root moves are shuffled by ``random.Random(seed)`` before ordering, so that among
  moves of equal score the choice is reproducible for a seed and varies between seeds. Without a
  seed the order is the board's (deterministic).

How it is built (issue 52)
==========================

Everything below the root runs on typed data, in the same source for mypyc and for pure Python: the
position is four ``i64`` values (``white``, ``black``, ``kings``, ``turn``) passed down the
recursion (a child is made by a few xors: nothing to undo), the moves of each ply are written on
one move stack reused by every node (``mv_frm``/``mv_to``: bit indexes, ``mv_cap``: the captured
pieces, ``mv_key``: the ordering key), the killers, the history, the repetition path and the
transposition table are preallocated arrays too, and the :class:`Searcher` is a ``@final`` class
with typed attributes (a C struct when compiled). No list, tuple or dict is made per node: captures
too are written onto the stack (:meth:`Searcher.gen_captures`, by the rules and in the order of
:meth:`dama._core.Core.captures`, the reference it is tested against). The arrays are Python lists
of ints, so that the source stays one for both builds: the values they hold are kept below
``2**30`` where it matters (one digit of a Python int, read without a slow conversion). The previous
search, kept as :mod:`dama.search_v1`, is the reference that ``make bench`` measures this one
against.

Draw rules inside the search
============================

A position that repeats one on the path or in the game since the last irreversible move (same side
to move) scores 0, as do positions where the quiet-move count (Czech 15 moves, CUD 2006 art. 6.2;
FMJD 25 moves) or an endgame count (CUD 2006 art. 6.3/6.4; FMJD 16/5 moves) runs out, unless
the side to move has no move (then it has lost, as :func:`dama.outcome.outcome` rules). Draws score
0 for both sides, so a side that is ahead avoids them and a side that is behind seeks them.

Scores are centi-men from the side to move's view (:mod:`dama.evaluate`); a won position scores
``MATE - plies`` to the win.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final, final

from ._core import Core, RawMove, core, popcount
from .baseboard import BaseBoard, Move
from .egtb import Lookup
from .endgames import Tables, default_tables
from .evaluate import Evaluator, evaluator
from .outcome import endgame_limit
from .variants import Variant

if TYPE_CHECKING:  # a machine word when compiled (see dama._core)
    from mypy_extensions import i64

MATE: Final = 30000
#: scores beyond this are wins/losses (a mate distance is inside)
MATE_BOUND: Final = MATE - 1000
INF: Final = MATE + 1
MAX_PLY: Final = 128
#: move slots per ply in the move stack: the most quiet moves a position can have is 20 pieces
#: with 17 squares each (340, international); captures beyond it are cut (never met)
MAXM: Final = 384
#: the transposition table holds at most ``2 ** TT_BITS`` entries (fewer for a search with a
#: small node limit: :func:`tt_bits`)
TT_BITS: Final = 18
#: an ordering key is ``score << KEY_SHIFT | (KEY_SLOT - offset)``: the move's offset in its
#: ply's slots rides along, so that picking the next move swaps one array item (and equal
#: scores go in the order generated)
KEY_SHIFT: Final = 9
KEY_SLOT: Final = 511
#: the history's part of an ordering key, at most (below the bonus of a crowning move, 1 << 17)
HISTORY_MAX: Final = (1 << 17) - 1
#: with a time limit, a new iteration starts while less than this share of the time is spent:
#: an unfinished iteration still counts (it searches the previous best move first, and a move it
#: proves better replaces it), and time left over when a move is chosen is lost
NEXT_ITERATION = 0.9

_EXACT: Final = 0
_LOWER: Final = 1
_UPPER: Final = 2
#: a stored score is kept as ``score + SCORE_BIAS`` in 16 bits
SCORE_BIAS: Final = 32768

_RNG = random.Random(52)
#: Zobrist keys of 60 bits, kept as two halves of 30 bits (an int below ``2 ** 30`` is one digit
#: of a Python int: compiled code reads it from a list without a slow conversion):
#: ``ZOB_LO[i] | ZOB_HI[i] << 30`` is the key of ``i = 64 * kind + bit``, kind 0 White man, 1
#: White king, 2 Black man, 3 Black king
ZOB_LO: list[int] = [_RNG.getrandbits(30) for _ in range(4 * 64)]
ZOB_HI: list[int] = [_RNG.getrandbits(30) for _ in range(4 * 64)]
Z_BLACK: int = _RNG.getrandbits(60)
#: hash mixers for the draw-rule counters (quiet plies, endgame plies): ``m | m << 30``
_QP_MIX: list[int] = [0] + [_RNG.getrandbits(30) for _ in range(255)]
_EP_MIX: list[int] = [0] + [_RNG.getrandbits(30) for _ in range(255)]


@dataclass(frozen=True)
class SearchResult:
    """What a search found: the move (one of ``board.legal_moves``), its score, and how."""

    move: Move
    #: from the side to move's view, in centi-men (100 = one man); wins near +/- :data:`MATE`
    score: int
    #: the deepest completed iteration
    depth: int
    nodes: int
    #: the principal variation, starting with ``move``
    pv: tuple[Move, ...]
    seconds: float


@dataclass(frozen=True)
class Level:
    """A playing strength: the limits of the search and how much it errs on purpose.

    ``blunder`` is the temperature (centi-men) of the softmax by which a weak level picks among
    its moves scored within ``margin`` of the best: 0 always plays the best move.
    ``instant`` is True when the search is bounded to a few milliseconds (a node limit), so it may
    run inside a web request.
    """

    number: int
    depth: int | None
    seconds: float | None
    nodes: int | None
    blunder: float
    instant: bool
    #: the weakest move a blundering level may pick, in centi-men below the best
    margin: int = 0


LEVELS: dict[int, Level] = {
    1: Level(1, 1, None, 400, 90.0, True, 160),
    2: Level(2, 2, None, 1500, 40.0, True, 80),
    3: Level(3, 3, None, 5000, 15.0, False, 30),
    4: Level(4, None, None, 1500, 0.0, False),
    5: Level(5, None, None, 6000, 0.0, False),
    6: Level(6, None, None, 24000, 0.0, False),
    7: Level(7, None, None, 100000, 0.0, False),
    8: Level(8, None, 3.0, 400000, 0.0, False),
}

#: node limits of levels 4-8 where a variant's ladder needs other steps than :data:`LEVELS`.
#: Czech games between two searches of neighbouring strength end in a king against a king far
#: more often (level 8 at 400,000 nodes drew 7 of 8 against level 7 at 100,000): its levels 4-7
#: search fewer nodes and its level 8 more (still about a second a move, Czech positions being
#: quicker to search), so that each level scores at least 65 % against the one below.
VARIANT_NODES: dict[str, dict[int, int]] = {
    "czech": {4: 1000, 5: 4000, 6: 16000, 7: 64000, 8: 600000},
}


def level_for(variant: str, number: int) -> Level:
    """The :class:`Level` ``number`` (1-8) as played in ``variant``.

    >>> level_for("czech", 7).nodes, level_for("international", 7).nodes
    (64000, 100000)
    """
    lv = LEVELS.get(number) if isinstance(number, int) else None
    if lv is None:
        raise ValueError(f"level must be between 1 and {len(LEVELS)}, not {number!r}")
    nodes = VARIANT_NODES.get(variant, {}).get(number)
    return lv if nodes is None else replace(lv, nodes=nodes)


def tt_bits(nodes: int | None) -> int:
    """The size of the transposition table (a power of two) for a search of at most ``nodes``
    nodes: at least as many entries (most nodes are leaves of the quiescence search, which are
    not stored), between ``2 ** 12`` and ``2 ** TT_BITS`` (a new table is filled with zeros and
    freed at the end, which costs time in a short search).

    >>> tt_bits(None), tt_bits(400), tt_bits(40_000)
    (18, 12, 16)
    """
    if nodes is None:
        return TT_BITS
    return max(12, min(TT_BITS, nodes.bit_length()))


class _Stop(Exception):
    """A limit ran out inside an iteration."""


def _raw_hash(white: int, black: int, kings: int, turn: bool) -> int:
    """The search's Zobrist hash of a position (see :data:`ZOB_LO`)."""
    h = 0 if turn else Z_BLACK
    for kind, bb in enumerate((white & ~kings, white & kings, black & ~kings, black & kings)):
        while bb:
            low = bb & -bb
            i = 64 * kind + low.bit_length() - 1
            h ^= ZOB_LO[i] | ZOB_HI[i] << 30
            bb ^= low
    return h


def _endgame_code(board_key: tuple[object, ...]) -> int:
    """The endgame key of :meth:`BaseBoard._endgame_key` as an int (0 for none)."""
    if not board_key:
        return 0
    wm, wk, bm, bk, diag = board_key
    assert isinstance(wm, int) and isinstance(wk, int) and isinstance(bm, int)
    assert isinstance(bk, int)
    return 1 << 20 | wm | wk << 4 | bm << 8 | bk << 12 | (1 << 16 if diag else 0)


class _Counts(BaseBoard):
    """A bare board used only to ask :func:`endgame_limit` about an endgame code."""


class Memory:
    """What the searches of one side in one game keep from move to move: the transposition table
    and the history of quiet moves (see the module docstring). Pass the same one to each
    :func:`search` of that side; a new one, or one for another variant or evaluation, starts
    afresh, as does one whose table holds more than ``max_entries`` positions.

    >>> from dama import Board
    >>> b, mem = Board("czech"), Memory()
    >>> first = search(b, nodes=3000, seed=1, memory=mem)
    >>> b.push(first.move); b.push(search(b, nodes=3000, seed=2).move)
    >>> mem.positions() > 0, search(b, nodes=3000, seed=3, memory=mem).move in b.legal_moves
    (True, True)
    """

    searcher: Searcher | None
    max_entries: int

    def __init__(self, max_entries: int = 1_000_000) -> None:
        if max_entries <= 0:
            raise ValueError(f"max_entries must be positive, not {max_entries}")
        self.searcher = None
        self.max_entries = max_entries

    def positions(self) -> int:
        """How many positions the table holds."""
        return 0 if self.searcher is None else int(self.searcher.tt_used)

    def _searcher(self, variant: Variant, ev: Evaluator | None, bits: int = TT_BITS) -> Searcher:
        s = self.searcher
        if (
            s is not None
            and s.variant == variant
            and (ev is None or s.ev is ev)
            and s.tt_used <= self.max_entries
        ):
            s.reset()
            return s
        s = Searcher(variant, ev, bits)
        self.searcher = s
        return s


@final
class Searcher:
    """One search: the tables, the move stack, the limits and the counters. Use :func:`search`."""

    core: Core
    ev: Evaluator
    variant: Variant
    zob_lo: list[i64]
    zob_hi: list[i64]
    z_black: i64
    qp_mix: list[i64]
    ep_mix: list[i64]
    #: the table, three arrays of values below ``2 ** 30`` (see :data:`ZOB_LO`), by the low
    #: ``TT_BITS`` of the key: its high 30 bits (the check), the entry packed as depth (8 bits) |
    #: bound << 8 | (score + SCORE_BIAS) << 10 (0: empty), the best move + 1 (0: none), a move
    #: being ``from_bit | to_bit << 6``
    tt_check: list[i64]
    tt_data: list[i64]
    tt_move: list[i64]
    tt_mask: i64
    #: entries filled (:meth:`Memory.positions`)
    tt_used: i64
    #: the move stack: a ply's moves from ``sp`` on (the stack grows by ``MAXM`` slots when a ply
    #: could pass its end); bit indexes, captured pieces (written for captures only), ordering keys
    mv_frm: list[i64]
    mv_to: list[i64]
    mv_cap: list[i64]
    mv_key: list[i64]
    sp: i64
    slots: i64
    #: one bit (see ``ONE`` in :mod:`dama._core`)
    one: i64
    #: the core's neighbour table (``nbr[4 * bit + direction]``: the neighbour + 1, 0 off the
    #: board) and the variant's capture rules, for the captures (:meth:`gen_captures`)
    nbr: bytes
    majority: bool
    king_priority: bool
    #: the first and last direction a man of each side captures in (0-1 up, 2-3 down, 0-3 all)
    w_d0: i64
    w_d1: i64
    b_d0: i64
    b_d1: i64
    #: two per ply, packed moves + 1 (0: none)
    killers: list[i64]
    #: by ``64 * from_bit + to_bit``
    history: list[i64]
    #: the hashes of the game since its start and of the line searched, ``plen`` of them
    path: list[i64]
    plen: i64
    nodes: i64
    node_limit: i64
    deadline: float
    quiet_limit: i64
    endgame_rule: str
    eg_limits: dict[int, int]
    white_crown: i64
    black_crown: i64
    diagonal: i64
    valid: i64
    backward: bool
    s_ul: i64
    s_ur: i64
    s_dl: i64
    s_dr: i64
    rays: list[tuple[bytes, ...]]
    sel_depth: i64
    next_check: i64
    #: the endgame databases of the variant (None: none built), :mod:`dama.endgames`
    eg: Lookup | None
    eg_max: i64
    #: positions answered by the databases
    eg_hits: i64

    def __init__(self, variant: Variant, ev: Evaluator | None = None, bits: int = TT_BITS) -> None:
        c = core(variant)
        g = c.geo
        self.core = c
        self.ev = evaluator(variant) if ev is None else ev
        self.variant = variant
        self.zob_lo = list(ZOB_LO)
        self.zob_hi = list(ZOB_HI)
        self.z_black = Z_BLACK
        self.qp_mix = list(_QP_MIX)
        self.ep_mix = list(_EP_MIX)
        self.tt_check = [0] * (1 << bits)
        self.tt_data = [0] * (1 << bits)
        self.tt_move = [0] * (1 << bits)
        self.tt_mask = (1 << bits) - 1
        self.tt_used = 0
        self.mv_frm = []
        self.mv_to = []
        self.mv_cap = []
        self.mv_key = []
        self.sp = 0
        self.slots = 0
        self.grow()
        self.one = 1
        self.nbr = c.nbr
        self.majority = variant.majority_rule
        self.king_priority = variant.king_priority
        self.w_d0, self.w_d1 = (0, 3) if variant.men_capture_backward else (0, 1)
        self.b_d0, self.b_d1 = (0, 3) if variant.men_capture_backward else (2, 3)
        self.killers = [0] * (2 * (MAX_PLY + 2))
        self.history = [0] * (64 * 64)
        self.path = []
        self.plen = 0
        self.nodes = 0
        self.node_limit = 0
        self.deadline = 0.0
        self.quiet_limit = variant.quiet_move_limit
        self.endgame_rule = variant.endgame_rule
        self.eg_limits = {}
        self.white_crown = c.white_crown
        self.black_crown = c.black_crown
        self.diagonal = g.main_diagonal
        self.valid = g.valid
        self.backward = variant.men_capture_backward
        self.s_ul, self.s_ur = -g.steps[0], -g.steps[1]
        self.s_dl, self.s_dr = g.steps[2], g.steps[3]
        self.rays = [tuple(bytes(ray) for ray in rays) for rays in g.rays]
        self.sel_depth = 0
        self.next_check = 1024
        self.eg = None
        self.eg_max = 0
        self.eg_hits = 0

    def reset(self) -> None:
        """Ready for the next move of the game: the table kept, the history weighed down (a
        quarter), the killers, the path, the limits and the counters new."""
        i: i64 = 0
        n: i64 = len(self.killers)
        while i < n:
            self.killers[i] = 0
            i += 1
        i = 0
        n = len(self.history)
        hist = self.history
        while i < n:
            v = hist[i]
            if v:
                hist[i] = v >> 2
            i += 1
        self.path = []
        self.plen = 0
        self.sp = 0
        self.nodes = 0
        self.node_limit = 0
        self.deadline = 0.0
        self.sel_depth = 0
        self.next_check = 1024
        self.eg_hits = 0

    # -- endgame databases ----------------------------------------------------------------------
    def eg_score(
        self, v: i64, white: i64, black: i64, kings: i64, ply: i64, qp: i64, ek: i64, ep: i64
    ) -> i64:
        """The score of a stored value ``v`` (:mod:`dama.egtb`) at ``ply``: a win or loss in
        ``n`` plies scores as a mate at that distance when it comes within the draw counts that
        run (the endgame count from ``ep`` plies, and the quiet-move count from ``qp`` plies
        when only kings are left), else 0 (a draw: the distance to the end is an upper bound,
        so this is the safe side); a draw is 0."""
        if v == 0:
            return 0
        plies = v - 1
        room: i64 = 1 << 20
        if ek:
            lim = self.endgame_plies_limit(ek)
            if lim:
                room = lim - ep
        if self.quiet_limit and not (white | black) & ~kings:
            q = self.quiet_limit - qp
            if q < room:
                room = q
        if plies > room:
            return 0
        if plies & 1:
            return MATE - ply - plies
        return ply + plies - MATE

    def eg_probe(self, white: i64, black: i64, kings: i64, turn: bool) -> i64:
        """The databases' byte for the position, or -1 when it is not covered."""
        eg = self.eg
        if eg is None or popcount(white | black) > self.eg_max:
            return -1
        return eg.value(white, black, kings, turn)

    # -- draw rules ---------------------------------------------------------------------------
    def endgame_code(self, white: i64, black: i64, kings: i64) -> i64:
        """The endgame key (as :meth:`BaseBoard._endgame_key`) of a position of <= 5 pieces."""
        wm = popcount(white & ~kings)
        wk = popcount(white & kings)
        bm = popcount(black & ~kings)
        bk = popcount(black & kings)
        diag: i64 = 0
        if self.endgame_rule == "czech":
            if wm == 0 and wk == 1 and bm == 0 and bk == 3:
                diag = 1 if white & self.diagonal else 0
            elif wm == 0 and wk == 3 and bm == 0 and bk == 1:
                diag = 1 if black & self.diagonal else 0
        return 1 << 20 | wm | wk << 4 | bm << 8 | bk << 12 | diag << 16

    def endgame_plies_limit(self, code: i64) -> i64:
        """Plies after which the endgame count ``code`` draws (0: no count applies)."""
        got = self.eg_limits.get(code)
        if got is None:
            got = 0
            if code and self.endgame_rule:
                b = _Counts.__new__(_Counts)
                b.variant = self.variant
                b.endgame_key = (
                    code & 15,
                    code >> 4 & 15,
                    code >> 8 & 15,
                    code >> 12 & 15,
                    bool(code >> 16 & 1),
                )
                lim = endgame_limit(b)
                got = lim[0] if lim is not None else 0
            self.eg_limits[code] = got
        return got

    def has_move(self, white: i64, black: i64, kings: i64, turn: bool) -> bool:
        """Whether the side to move has any legal move."""
        occ = white | black
        empty = self.valid & ~occ
        if turn:
            own = white
            men = white & ~kings
            if ((empty << self.s_ul) | (empty << self.s_ur)) & men:
                return True
        else:
            own = black
            men = black & ~kings
            if ((empty >> self.s_dl) | (empty >> self.s_dr)) & men:
                return True
        kk = own & kings
        if (
            kk
            and (
                (empty << self.s_ul)
                | (empty << self.s_ur)
                | (empty >> self.s_dl)
                | (empty >> self.s_dr)
            )
            & kk
        ):
            return True
        return bool(self.core.captures(white, black, kings, turn))

    # -- the move stack -----------------------------------------------------------------------
    def grow(self) -> None:
        """Room for four more plies of ``MAXM`` moves on the move stack."""
        more = [0] * (4 * MAXM)
        self.mv_frm.extend(more)
        self.mv_to.extend(more)
        self.mv_cap.extend(more)
        self.mv_key.extend(more)
        self.slots += 4 * MAXM

    def gen_captures(self, white: i64, black: i64, kings: i64, turn: bool, base: i64) -> i64:
        """Write the legal captures onto the move stack from ``base``, by the rules of
        :meth:`dama._core.Core.captures` and in its order (the kings' captures, then the men's
        unless the variant gives the king's capture priority, complete captures, the majority
        rule, a move found by two routes listed once); how many (0: none)."""
        if turn:
            own, opp = white, black
        else:
            own, opp = black, white
        occ = white | black
        n: i64 = 0
        kk = own & kings
        while kk:
            low = kk & -kk
            kk ^= low
            b = popcount(low - 1)
            n, _jumped = self.king_jumps(base, n, b, b, occ ^ low, opp, 0)
        if not n or not self.king_priority:
            # a few shifts tell whether a man can take at all
            can = self.core._man_can_capture(own & ~kings, opp, self.valid & ~occ, turn)
            if can:
                d0 = self.w_d0 if turn else self.b_d0
                d1 = self.w_d1 if turn else self.b_d1
                while can:
                    low = can & -can
                    can ^= low
                    b = popcount(low - 1)
                    n = self.man_jumps(base, n, b, b, occ ^ low, opp, 0, d0, d1)
        if n > 1:
            n = self.filter_captures(base, n)
        return n

    def filter_captures(self, base: i64, n: i64) -> i64:
        """The majority rule (where the variant has it) and one move for two routes, on the
        ``n`` captures from ``base``; how many are left."""
        fa, ta, ca = self.mv_frm, self.mv_to, self.mv_cap
        end = base + n
        if self.majority:
            most: i64 = 0
            j = base
            while j < end:
                c = popcount(ca[j])
                if c > most:
                    most = c
                j += 1
            k = base
            j = base
            while j < end:
                if popcount(ca[j]) == most:
                    fa[k], ta[k], ca[k] = fa[j], ta[j], ca[j]
                    k += 1
                j += 1
            end = k
        # two routes can give the same move only when it takes two pieces or more
        k = base
        j = base
        while j < end:
            cj = ca[j]
            dup = False
            if cj & (cj - 1):
                i = base
                while i < k:
                    if ca[i] == cj and fa[i] == fa[j] and ta[i] == ta[j]:
                        dup = True
                        break
                    i += 1
            if not dup:
                fa[k], ta[k], ca[k] = fa[j], ta[j], cj
                k += 1
            j += 1
        return k - base

    def king_jumps(
        self, base: i64, n: i64, frm: i64, b: i64, occ: i64, opp: i64, captured: i64
    ) -> tuple[i64, bool]:
        """The captures of a king from bit ``frm`` standing on bit ``b`` having taken
        ``captured``, written from ``base + n`` (as :meth:`dama._core.Core._king_jumps`: on each
        ray it lands only where it can jump again, when it can); the new count, and whether it
        can jump from ``b``."""
        jumped = False
        for ray in self.rays[b]:
            nr: i64 = len(ray)
            i: i64 = 0
            while i < nr and not (occ >> ray[i]) & 1:
                i += 1
            if i + 1 >= nr:
                continue
            v: i64 = ray[i]
            if not (opp >> v) & 1 or (captured >> v) & 1:
                continue
            i += 1
            if (occ >> ray[i]) & 1:
                continue
            jumped = True
            ncap = captured | (self.one << v)
            going_on = False
            first: i64 = i
            while i < nr:
                land: i64 = ray[i]
                if (occ >> land) & 1:
                    break
                n, more = self.king_jumps(base, n, frm, land, occ, opp, ncap)
                if more:
                    going_on = True
                i += 1
            if not going_on:
                while first < i:
                    if n < MAXM:
                        j = base + n
                        self.mv_frm[j] = frm
                        self.mv_to[j] = ray[first]
                        self.mv_cap[j] = ncap
                        n += 1
                    first += 1
        return n, jumped

    def man_jumps(
        self,
        base: i64,
        n: i64,
        frm: i64,
        b: i64,
        occ: i64,
        opp: i64,
        captured: i64,
        d0: i64,
        d1: i64,
    ) -> i64:
        """The captures of a man from bit ``frm`` standing on bit ``b`` having taken
        ``captured`` (taken pieces stay on the board until the capture ends), written from
        ``base + n``; the new count."""
        nbr = self.nbr
        jumped = False
        d = d0
        while d <= d1:
            v: i64 = nbr[4 * b + d] - 1
            if v >= 0 and (opp >> v) & 1 and not (captured >> v) & 1:
                land: i64 = nbr[4 * v + d] - 1
                if land >= 0 and not (occ >> land) & 1:
                    jumped = True
                    n = self.man_jumps(
                        base, n, frm, land, occ, opp, captured | (self.one << v), d0, d1
                    )
            d += 1
        if not jumped and captured and n < MAXM:
            j = base + n
            self.mv_frm[j] = frm
            self.mv_to[j] = b
            self.mv_cap[j] = captured
            n += 1
        return n

    def gen_quiets(self, white: i64, black: i64, kings: i64, turn: bool, base: i64) -> i64:
        """Write the quiet moves into the move stack from ``base`` (men by direction, then
        kings); how many (their ``mv_cap`` is not written: 0)."""
        occ = white | black
        empty = self.valid & ~occ
        frm_a = self.mv_frm
        to_a = self.mv_to
        j = base
        if turn:
            own = white
            men = own & ~kings
            s = self.s_ul
            t = (men >> s) & empty
            while t:
                low = t & -t
                t ^= low
                ti = popcount(low - 1)
                frm_a[j] = ti + s
                to_a[j] = ti
                j += 1
            s = self.s_ur
            t = (men >> s) & empty
            while t:
                low = t & -t
                t ^= low
                ti = popcount(low - 1)
                frm_a[j] = ti + s
                to_a[j] = ti
                j += 1
        else:
            own = black
            men = own & ~kings
            s = self.s_dl
            t = (men << s) & empty
            while t:
                low = t & -t
                t ^= low
                ti = popcount(low - 1)
                frm_a[j] = ti - s
                to_a[j] = ti
                j += 1
            s = self.s_dr
            t = (men << s) & empty
            while t:
                low = t & -t
                t ^= low
                ti = popcount(low - 1)
                frm_a[j] = ti - s
                to_a[j] = ti
                j += 1
        kk = own & kings
        while kk:
            low = kk & -kk
            kk ^= low
            kb = popcount(low - 1)
            for ray in self.rays[kb]:
                nr: i64 = len(ray)
                r: i64 = 0
                while r < nr:
                    t2: i64 = ray[r]
                    if (occ >> t2) & 1:
                        break
                    frm_a[j] = kb
                    to_a[j] = t2
                    j += 1
                    r += 1
        return j - base

    def child(
        self, white: i64, black: i64, kings: i64, turn: bool, h: i64, fi: i64, ti: i64, cap: i64
    ) -> tuple[i64, i64, i64, i64]:
        """The position after the move from bit ``fi`` to bit ``ti`` taking ``cap``, and its
        hash: (white, black, kings, hash)."""
        frm = self.one << fi
        to = self.one << ti
        zl = self.zob_lo
        zh = self.zob_hi
        h ^= self.z_black
        if turn:
            man: i64 = 0
            opp_man: i64 = 128
            crown = self.white_crown
        else:
            man = 128
            opp_man = 0
            crown = self.black_crown
        if kings & frm:
            a = man + 64 + fi
            b = man + 64 + ti
            h ^= (zl[a] ^ zl[b]) | (zh[a] ^ zh[b]) << 30
            k2 = (kings & ~frm & ~cap) | to
        else:
            a = man + fi
            b = man + 64 + ti if to & crown else man + ti
            h ^= (zl[a] ^ zl[b]) | (zh[a] ^ zh[b]) << 30
            k2 = kings & ~cap
            if to & crown:
                k2 |= to
        c = cap
        while c:
            low = c & -c
            c ^= low
            b = opp_man + popcount(low - 1)
            if kings & low:
                b += 64
            h ^= zl[b] | zh[b] << 30
        if turn:
            return (white & ~frm) | to, black & ~cap, k2, h
        return white & ~cap, (black & ~frm) | to, k2, h

    def pick(self, j: i64, end: i64) -> i64:
        """Bring the highest ordering key of slots ``j .. end - 1`` to slot ``j``; the offset
        of its move (see :data:`KEY_SHIFT`)."""
        keys = self.mv_key
        best = keys[j]
        at = j
        k = j + 1
        while k < end:
            v = keys[k]
            if v > best:
                best = v
                at = k
            k += 1
        if at != j:
            keys[at] = keys[j]
            keys[j] = best
        return KEY_SLOT - (best & KEY_SLOT)

    def score_moves(
        self, base: i64, n: i64, capture: bool, hash_move: i64, ply: i64, kings: i64, turn: bool
    ) -> None:
        """The ordering keys of the ``n`` moves from ``base`` (see the module docstring)."""
        fa, ta, ca, sc = self.mv_frm, self.mv_to, self.mv_cap, self.mv_key
        end = base + n
        j = base
        if capture:
            while j < end:
                s = popcount(ca[j]) << 14
                if hash_move and (fa[j] | ta[j] << 6) + 1 == hash_move:
                    s += 1 << 20
                sc[j] = s << KEY_SHIFT | (KEY_SLOT - (j - base))
                j += 1
            return
        k0 = self.killers[2 * ply]
        k1 = self.killers[2 * ply + 1]
        hist = self.history
        crown = self.white_crown if turn else self.black_crown
        while j < end:
            fi = fa[j]
            ti = ta[j]
            pm = (fi | ti << 6) + 1
            if pm == hash_move:
                s = 1 << 20
            elif pm == k0:
                s = 1 << 19
            elif pm == k1:
                s = 1 << 18
            else:
                s = hist[fi << 6 | ti]
                if s > HISTORY_MAX:
                    s = HISTORY_MAX
                if (crown >> ti) & 1 and not (kings >> fi) & 1:
                    s += 1 << 17
            sc[j] = s << KEY_SHIFT | (KEY_SLOT - (j - base))
            j += 1

    # -- limits -------------------------------------------------------------------------------
    def check_limits(self) -> None:
        """Raise :class:`_Stop` when a limit has run out; set when to look again."""
        if self.node_limit and self.nodes >= self.node_limit:
            raise _Stop
        if self.deadline and time.perf_counter() >= self.deadline:
            raise _Stop
        nxt = self.nodes + 1024
        if self.node_limit and nxt > self.node_limit:
            nxt = self.node_limit
        self.next_check = nxt

    # -- the search ---------------------------------------------------------------------------
    def quiesce(
        self, white: i64, black: i64, kings: i64, turn: bool, alpha: i64, beta: i64, ply: i64
    ) -> i64:
        """Captures until the side to move has none, then the static evaluation."""
        self.nodes += 1
        if self.nodes >= self.next_check:
            self.check_limits()
        if ply > self.sel_depth:
            self.sel_depth = ply
        if self.eg_max and popcount(white | black) <= self.eg_max:
            v = self.eg_probe(white, black, kings, turn)
            if v >= 0:  # after a capture: the counts start again
                self.eg_hits += 1
                return self.eg_score(
                    v, white, black, kings, ply, 0, self.endgame_code(white, black, kings), 0
                )
        base = self.sp
        if base + MAXM > self.slots:
            self.grow()
        n = self.gen_captures(white, black, kings, turn, base)
        if not n:
            if not self.has_move(white, black, kings, turn):
                return ply - MATE
            return self.ev.evaluate(white, black, kings, turn)
        if ply >= MAX_PLY:
            return self.ev.evaluate(white, black, kings, turn)
        end = base + n
        self.sp = end
        if n > 1:
            j = base
            while j < end:
                self.mv_key[j] = popcount(self.mv_cap[j]) << KEY_SHIFT | (KEY_SLOT - (j - base))
                j += 1
        best: i64 = -INF
        j = base
        while j < end:
            at = base + self.pick(j, end) if n > 1 else j
            w2, b2, k2, _h2 = self.child(
                white, black, kings, turn, 0, self.mv_frm[at], self.mv_to[at], self.mv_cap[at]
            )
            score = -self.quiesce(w2, b2, k2, not turn, -beta, -alpha, ply + 1)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
            j += 1
        self.sp = base
        return best

    def node(
        self,
        white: i64,
        black: i64,
        kings: i64,
        turn: bool,
        h: i64,
        depth: i64,
        alpha: i64,
        beta: i64,
        ply: i64,
        qp: i64,
        ek: i64,
        ep: i64,
    ) -> i64:
        """Negamax PVS below the root: the score of the position from the side to move's view."""
        # draw rules: repetition since the last irreversible move, the move counts
        if qp >= 4:
            path = self.path
            n_path = self.plen
            k: i64 = 4
            while k <= qp and k <= n_path:
                if path[n_path - k] == h:
                    return 0
                k += 2
            if self.quiet_limit and qp >= self.quiet_limit:
                return 0 if self.has_move(white, black, kings, turn) else ply - MATE
        if ek and ep:
            lim = self.endgame_plies_limit(ek)
            if lim and ep >= lim:
                return 0 if self.has_move(white, black, kings, turn) else ply - MATE
        if self.eg_max and popcount(white | black) <= self.eg_max:
            v = self.eg_probe(white, black, kings, turn)
            if v >= 0:
                self.eg_hits += 1
                return self.eg_score(v, white, black, kings, ply, qp, ek, ep)
        if depth <= 0:
            return self.quiesce(white, black, kings, turn, alpha, beta, ply)
        self.nodes += 1
        if self.nodes >= self.next_check:
            self.check_limits()
        # mate distance pruning
        if alpha < ply - MATE:
            alpha = ply - MATE
        if beta > MATE - ply - 1:
            beta = MATE - ply - 1
        if alpha >= beta:
            return alpha
        key = h
        if qp:
            mix = self.qp_mix[qp if qp < 256 else 255]
            key ^= mix | mix << 30
        if ep:
            mix = self.ep_mix[ep if ep < 256 else 255]
            key ^= mix | mix << 30
        slot = key & self.tt_mask
        check = key >> 30
        hash_move: i64 = 0
        pv_node = beta - alpha > 1
        data = self.tt_data[slot]
        if data and self.tt_check[slot] == check:
            hash_move = self.tt_move[slot]
            if (data & 255) >= depth and not pv_node:
                e_score = ((data >> 10) & 0xFFFF) - SCORE_BIAS
                if e_score > MATE_BOUND:
                    e_score -= ply
                elif e_score < -MATE_BOUND:
                    e_score += ply
                e_flag = (data >> 8) & 3
                if e_flag == _EXACT:
                    return e_score
                if e_flag == _LOWER and e_score >= beta:
                    return e_score
                if e_flag == _UPPER and e_score <= alpha:
                    return e_score
        base = self.sp
        if base + MAXM > self.slots:
            self.grow()
        n_moves = self.gen_captures(white, black, kings, turn, base)
        capture = n_moves > 0
        if not capture:
            n_moves = self.gen_quiets(white, black, kings, turn, base)
            if not n_moves:
                return ply - MATE
        if n_moves > 1:
            self.score_moves(base, n_moves, capture, hash_move, ply, kings, turn)
        new_depth = depth - 1
        if n_moves == 1 and ply < MAX_PLY // 2:
            new_depth = depth  # a forced move: look a ply further
        if ply >= MAX_PLY:
            return self.ev.evaluate(white, black, kings, turn)
        alpha0 = alpha
        best: i64 = -INF
        best_move: i64 = 0
        crown = self.white_crown if turn else self.black_crown
        pieces5 = popcount(white | black) <= 6
        self.path[self.plen] = h
        self.plen += 1
        end = base + n_moves
        self.sp = end
        j = base
        while j < end:
            at = base + self.pick(j, end) if n_moves > 1 else j
            fi = self.mv_frm[at]
            ti = self.mv_to[at]
            cap = self.mv_cap[at] if capture else 0
            w2, b2, k2, h2 = self.child(white, black, kings, turn, h, fi, ti, cap)
            qp2 = 0 if cap or not (kings >> fi) & 1 else qp + 1
            ek2: i64 = 0
            ep2: i64 = 0
            if pieces5:
                left = popcount(w2 | b2)
                if ek or left <= 5:
                    ek2 = self.endgame_code(w2, b2, k2) if left <= 5 else 0
                    ep2 = ep + 1 if ek2 == ek else 0
            if j == base:
                score = -self.node(
                    w2, b2, k2, not turn, h2, new_depth, -beta, -alpha, ply + 1, qp2, ek2, ep2
                )
            else:
                d = new_depth
                # late quiet moves at enough depth: search a ply shallower first
                if (
                    j - base >= 3
                    and depth >= 3
                    and not capture
                    and not pv_node
                    and not (crown >> ti) & 1
                    and n_moves > 1
                ):
                    d -= 1
                score = -self.node(
                    w2, b2, k2, not turn, h2, d, -alpha - 1, -alpha, ply + 1, qp2, ek2, ep2
                )
                if score > alpha and (d < new_depth or score < beta):
                    score = -self.node(
                        w2, b2, k2, not turn, h2, new_depth, -beta, -alpha, ply + 1, qp2, ek2, ep2
                    )
            if score > best:
                best = score
                best_move = (fi | ti << 6) + 1
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        if not capture:
                            kp = 2 * ply
                            if self.killers[kp] != best_move:
                                self.killers[kp + 1] = self.killers[kp]
                                self.killers[kp] = best_move
                            hk = fi << 6 | ti
                            self.history[hk] += depth * depth
                        break
            j += 1
        self.sp = base
        self.plen -= 1
        if best >= beta:
            flag = _LOWER
        elif best > alpha0:
            flag = _EXACT
        else:
            flag = _UPPER
        stored = best
        if stored > MATE_BOUND:
            stored += ply
        elif stored < -MATE_BOUND:
            stored -= ply
        if not self.tt_data[slot]:
            self.tt_used += 1
        self.tt_check[slot] = check
        self.tt_data[slot] = depth | flag << 8 | (stored + SCORE_BIAS) << 10
        self.tt_move[slot] = best_move
        return best

    def root_node(
        self,
        white: i64,
        black: i64,
        kings: i64,
        turn: bool,
        h: i64,
        depth: i64,
        alpha: i64,
        beta: i64,
        qp: i64,
        ek: i64,
        ep: i64,
    ) -> int:
        """:meth:`node` of a root move's child (ply 1), callable from Python."""
        return self.node(white, black, kings, turn, h, depth, alpha, beta, 1, qp, ek, ep)


def _root_state(board: BaseBoard, s: Searcher) -> tuple[int, int, int]:
    """The root's quiet plies, endgame code and endgame plies; fills the repetition path."""
    hashes = [_raw_hash(w, b, k, t) for (w, b, k, t) in board._history[:-1]]
    s.path = hashes + [0] * (MAX_PLY + 4)
    s.plen = len(hashes)
    return board.quiet_plies, _endgame_code(board.endgame_key), board.endgame_plies


def _child_of_root(
    s: Searcher, white: int, black: int, kings: int, turn: bool, h: int, m: RawMove
) -> tuple[int, int, int, int]:
    """A root move's child and its hash."""
    fi, ti = m[0].bit_length() - 1, m[1].bit_length() - 1
    w2, b2, k2, h2 = s.child(white, black, kings, turn, h, fi, ti, m[2])
    return int(w2), int(b2), int(k2), int(h2)


def search(
    board: BaseBoard,
    *,
    depth: int | None = None,
    seconds: float | None = None,
    nodes: int | None = None,
    seed: int | None = None,
    _margin: int = 0,
    _blunder: float = 0.0,
    _evaluator: Evaluator | None = None,
    memory: Memory | None = None,
    endgames: Tables | None = None,
) -> SearchResult:
    """Search ``board`` (never changed) within the limits and return the best move found;
    ``memory`` keeps the tables of one side's searches from move to move (:class:`Memory`);
    ``endgames`` are the endgame databases to use (default: :func:`dama.endgames.default_tables`,
    none when ``$DAMA_ENDGAMES`` is unset). In a covered position the move comes from the
    databases (the fastest win that fits the draw counts, else a draw, else the slowest loss),
    and a covered position met in the search scores what they say.

    With no limit at all the search stops at depth 64 or after 1 second, whichever comes first.
    Raises ValueError when the game is over (the side to move has no legal move) or a limit is
    not positive.
    """
    t0 = time.perf_counter()
    for name, val in (("depth", depth), ("seconds", seconds), ("nodes", nodes)):
        if val is not None and not val > 0:
            raise ValueError(f"{name} must be positive, not {val}")
    legal = board.generate_legal_moves()
    if not legal:
        raise ValueError("the game is over: the side to move has no legal move")
    by_bits = {(m._frm, m._to, m._cap): m for m in legal}
    if depth is None and seconds is None and nodes is None:
        seconds = 1.0
    bits = tt_bits(nodes if seconds is None and depth is None else None)
    if memory is None:
        s = Searcher(board.variant, _evaluator, bits)
    else:
        s = memory._searcher(board.variant, _evaluator, bits)
    max_depth = depth if depth is not None else 64
    if seconds is not None:
        s.deadline = t0 + seconds
    if nodes is not None:
        s.node_limit = nodes
        s.next_check = min(nodes, 1024)
    tables = endgames if endgames is not None else default_tables()
    s.eg = tables.lookup(board.variant)
    s.eg_max = s.eg.max_pieces if s.eg is not None else 0
    qp, ek, ep = _root_state(board, s)
    white, black, kings, turn = board.white, board.black, board.kings, board.turn
    h = _raw_hash(white, black, kings, turn)
    c = s.core
    root = c.moves(white, black, kings, turn)
    if seed is not None:
        random.Random(seed).shuffle(root)
    rng = random.Random(seed)
    # the children's counters
    children: list[tuple[RawMove, int, int, int, int, int, int, int]] = []
    for m in root:
        w2, b2, k2, h2 = _child_of_root(s, white, black, kings, turn, h, m)
        qp2 = 0 if m[2] or not kings & m[0] else qp + 1
        if (w2 | b2).bit_count() <= 5:
            ek2 = s.endgame_code(w2, b2, k2)
            ep2 = ep + 1 if ek2 == ek else 0
        else:
            ek2 = ep2 = 0
        children.append((m, w2, b2, k2, h2, qp2, ek2, ep2))
    if not _margin and s.eg is not None:
        known = _endgame_root(s, children, turn)
        if known is not None:
            m, score = known
            return SearchResult(
                move=by_bits[m],
                score=score,
                depth=1,
                nodes=len(children),
                pv=_endgame_line(s, board, by_bits[m]),
                seconds=time.perf_counter() - t0,
            )
    best_move = root[0]
    best_score = 0
    done_depth = 0
    scores: dict[RawMove, int] = {}
    s.path[s.plen] = h
    s.plen += 1
    if len(root) == 1:
        max_depth = min(max_depth, 1)
    iter_best = best_move
    iter_score = -INF
    try:
        for d in range(1, max_depth + 1):
            alpha = -INF
            beta = INF
            iter_best = children[0][0]
            iter_score = -INF
            iter_scores: dict[RawMove, int] = {}
            for i, (m, w2, b2, k2, h2, qp2, ek2, ep2) in enumerate(children):
                if i == 0 or _margin:
                    # every move gets an exact score when a weak level will choose among them
                    lo = -INF if _margin else -beta
                    hi = -alpha if not _margin else INF
                    score = -s.root_node(w2, b2, k2, not turn, h2, d - 1, lo, hi, qp2, ek2, ep2)
                else:
                    score = -s.root_node(
                        w2, b2, k2, not turn, h2, d - 1, -alpha - 1, -alpha, qp2, ek2, ep2
                    )
                    if score > alpha:
                        score = -s.root_node(
                            w2, b2, k2, not turn, h2, d - 1, -beta, -alpha, qp2, ek2, ep2
                        )
                iter_scores[m] = score
                if score > iter_score:
                    iter_score = score
                    iter_best = m
                    if score > alpha:
                        alpha = score
            best_move, best_score, done_depth = iter_best, iter_score, d
            scores = iter_scores
            # the best move first in the next iteration, then by score (bounds for the others)
            children.sort(key=lambda ch: -iter_scores[ch[0]])
            if abs(best_score) > MATE_BOUND and d >= 2 * (MATE - abs(best_score)) + 2:
                break
            if s.deadline and time.perf_counter() > t0 + (s.deadline - t0) * NEXT_ITERATION:
                break  # too little time left to search even the best move again
    except _Stop:
        # an unfinished iteration: a move that beat the previous best (searched first) counts
        if done_depth and not _margin and iter_score > -INF and iter_best != best_move:
            best_move, best_score = iter_best, iter_score
    finally:
        s.plen -= 1
    if done_depth == 0:
        # not even depth 1 finished: score the moves by the static evaluation after them
        ev = s.ev
        best_score = -INF
        for m, w2, b2, k2, _h2, _qp2, _ek2, _ep2 in children:
            sc = -int(ev.evaluate(w2, b2, k2, not turn))
            scores[m] = sc
            if sc > best_score:
                best_score, best_move = sc, m
        done_depth = 0
    if _margin and len(scores) > 1 and _blunder > 0:
        best_move = _pick(scores, best_score, _margin, _blunder, rng)
        best_score = scores[best_move]
    pv = _principal_variation(s, board, best_move, by_bits)
    return SearchResult(
        move=by_bits[best_move],
        score=best_score,
        depth=done_depth,
        nodes=s.nodes,
        pv=pv,
        seconds=time.perf_counter() - t0,
    )


def _endgame_root(
    s: Searcher, children: list[tuple[RawMove, int, int, int, int, int, int, int]], turn: bool
) -> tuple[RawMove, int] | None:
    """The databases' move when every move leads to a covered position: the best score (see
    :meth:`Searcher.eg_score`), among equal scores the fastest win or the slowest loss by the
    databases (a win the count will cut still tried the fastest way; the first of equals), or
    None."""
    best: tuple[RawMove, int] | None = None
    best_key = (0, 0)
    for m, w2, b2, k2, _h2, qp2, ek2, ep2 in children:
        v = s.eg_probe(w2, b2, k2, not turn)
        if v < 0:
            return None
        score = -int(s.eg_score(v, w2, b2, k2, 1, qp2, ek2, ep2))
        # the child's side loses in v - 1 plies (even) or wins in v - 1 plies (odd)
        tie = 0 if v == 0 else (1000 - v if (v - 1) % 2 == 0 else v - 1000)
        if best is None or (score, tie) > best_key:
            best, best_key = (m, score), (score, tie)
    return best


def _endgame_line(s: Searcher, board: BaseBoard, first: Move) -> tuple[Move, ...]:
    """The databases' line from ``first``: each side's best move by distance (counts aside),
    up to 32 plies or the end."""
    b = board.copy(stack=False)
    line = [first]
    b.push(first)
    while len(line) < 32:
        best: Move | None = None
        best_key = (3, 0)
        for m in b.generate_legal_moves():
            b.push(m)
            v = s.eg_probe(b.white, b.black, b.kings, b.turn)
            b.pop()
            if v < 0:
                return tuple(line)
            # the mover's view of the child: a lost child is a win, fastest first
            key = (1, 0) if v == 0 else ((0, v) if (v - 1) % 2 == 0 else (2, -v))
            if key < best_key:
                best, best_key = m, key
        if best is None:
            break
        line.append(best)
        b.push(best)
    return tuple(line)


def _pick(
    scores: dict[RawMove, int], best: int, margin: int, temperature: float, rng: random.Random
) -> RawMove:
    """A weak level's choice: a softmax over the moves within ``margin`` of the best."""
    cands = [(m, sc) for m, sc in scores.items() if sc >= best - margin and abs(sc) < MATE_BOUND]
    if not cands or best > MATE_BOUND:
        return max(scores, key=lambda m: scores[m])
    weights = [math.exp((sc - best) / temperature) for _m, sc in cands]
    r = rng.random() * sum(weights)
    for (m, _sc), w in zip(cands, weights, strict=True):
        r -= w
        if r <= 0:
            return m
    return cands[-1][0]


def _principal_variation(
    s: Searcher, board: BaseBoard, first: RawMove, by_bits: dict[RawMove, Move]
) -> tuple[Move, ...]:
    """The best line from the transposition table, as Move objects (stops at a repetition)."""
    b = board.copy(stack=False)
    pv = [by_bits[first]]
    b.push(pv[0])
    seen = {b.key()}
    while len(pv) < 32:
        h = _raw_hash(b.white, b.black, b.kings, b.turn)
        if b.quiet_plies:
            mix = _QP_MIX[min(b.quiet_plies, 255)]
            h ^= mix | mix << 30
        if b.endgame_key and b.endgame_plies:
            mix = _EP_MIX[min(b.endgame_plies, 255)]
            h ^= mix | mix << 30
        slot = h & int(s.tt_mask)
        if not s.tt_data[slot] or s.tt_check[slot] != h >> 30 or not s.tt_move[slot]:
            break
        packed = s.tt_move[slot] - 1
        # bit indexes compared, not bits: compiled, ``1 << n`` of a constant 1 is 32-bit
        fi, ti = packed & 63, packed >> 6
        nxt = next(
            (
                m
                for m in b.generate_legal_moves()
                if m._frm.bit_length() - 1 == fi and m._to.bit_length() - 1 == ti
            ),
            None,
        )
        if nxt is None:
            break
        b.push(nxt)
        if b.key() in seen:
            break
        seen.add(b.key())
        pv.append(nxt)
    return tuple(pv)


def best_move(
    board: BaseBoard,
    level: int,
    seed: int | None = None,
    memory: Memory | None = None,
    _evaluator: Evaluator | None = None,
    endgames: Tables | None = None,
) -> SearchResult:
    """The move the engine plays at ``level`` (1-8, see :data:`LEVELS`), with the side's
    :class:`Memory` of the game when there is one (``endgames``: see :func:`search`).

    >>> from dama import Board
    >>> best_move(Board("czech"), 1, seed=1).move in Board("czech").legal_moves
    True
    """
    lv = level_for(board.variant.name, level)
    return search(
        board,
        depth=lv.depth,
        seconds=lv.seconds,
        nodes=lv.nodes,
        seed=seed,
        _margin=lv.margin,
        _blunder=lv.blunder,
        _evaluator=_evaluator,
        memory=memory,
        endgames=endgames,
    )
