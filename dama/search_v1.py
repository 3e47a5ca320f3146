"""The previous playing engine (issue 16, before issue 52), kept as the reference that ``make bench``
measures the new :mod:`dama.search` against (nodes per second and games, side by side in one run).
Nothing else uses it. The text below is its description as it was.

The playing engine: choose a move in a game, at a strength from level 1 to 8.

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

* A transposition table keyed on the Zobrist hash of :meth:`dama.baseboard.BaseBoard.zobrist_hash`
  (updated move by move), mixed with the draw-rule counters when they run, so that a score that
  depends on a count is not reused where the count differs.
* Quiescence: captures are compulsory, so a leaf where the side to move must capture is searched
  on, capture after capture, until a quiet position; a position where a side has a single legal
  move (a forced capture) extends the search by a ply.
* Move ordering: the hash move, then captures (the most pieces first), crowning moves, the two
  killer moves of the ply, then the history heuristic.
* Limits: depth, nodes and seconds (each optional; at least one applies), checked every 1024
  nodes; the deepest completed iteration gives the move.
* ``memory`` (a :class:`Memory`, one per side of a game): the transposition table and the
  history of quiet moves kept from one move of the game to the next, as chess engines keep
  their hash table. The search of the next move then starts with what the last one learnt about
  the positions it will meet again (its expected line and the replies to it), and reaches the
  same depth with fewer nodes. Measured at 20,000 nodes a move, international, against the same
  engine without it: 61.3 % of the points in 120 games (openings with up to four random plies,
  colours swapped). With a memory a search depends on the side's searches before it in the
  game as well as on its seed (the same game played again gives the same moves).
* ``seed``: the root moves are shuffled by ``random.Random(seed)`` before ordering, so that among
  moves of equal score the choice is reproducible for a seed and varies between seeds. Without a
  seed the order is the board's (deterministic).

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

from ._core import Core, RawMove, core
from .baseboard import _ZOBRIST_BLACK_TO_MOVE, BaseBoard, Move, _zobrist_table
from .egtb import Lookup
from .endgames import Tables, default_tables
from .evaluate_v1 import Evaluator, evaluator
from .outcome import endgame_limit
from .variants import Variant

MATE = 30000
#: scores beyond this are wins/losses (a mate distance is inside)
MATE_BOUND = MATE - 1000
INF = MATE + 1
MAX_PLY = 128
#: with a time limit, a new iteration starts while less than this share of the time is spent:
#: an unfinished iteration still counts (it searches the previous best move first, and a move it
#: proves better replaces it), and time left over when a move is chosen is lost
NEXT_ITERATION = 0.9

_EXACT, _LOWER, _UPPER = 0, 1, 2

_COUNT_RNG = random.Random(16)
#: hash mixers for the draw-rule counters (quiet plies, endgame plies)
_QP_MIX = [0] + [_COUNT_RNG.getrandbits(64) for _ in range(255)]
_EP_MIX = [0] + [_COUNT_RNG.getrandbits(64) for _ in range(255)]


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


class _Stop(Exception):
    """A limit ran out inside an iteration."""


def _raw_hash(white: int, black: int, kings: int, turn: bool, tab: list[list[int]]) -> int:
    h = 0 if turn else _ZOBRIST_BLACK_TO_MOVE
    for kind, bb in enumerate((white & ~kings, white & kings, black & ~kings, black & kings)):
        t = tab[kind]
        while bb:
            low = bb & -bb
            h ^= t[low.bit_length() - 1]
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
    afresh. The table is dropped when it holds more than ``max_entries`` positions (about 200
    bytes each), so a game's memory stays bounded.

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
        return 0 if self.searcher is None else len(self.searcher.tt)

    def _searcher(self, variant: Variant, ev: Evaluator | None) -> Searcher:
        s = self.searcher
        if (
            s is not None
            and s.variant == variant
            and (ev is None or s.ev is ev)
            and len(s.tt) <= self.max_entries
        ):
            s.reset()
            return s
        s = Searcher(variant, ev)
        self.searcher = s
        return s


class Searcher:
    """One search: the tables, the limits and the counters. Use :func:`search`."""

    core: Core
    ev: Evaluator
    tab: list[list[int]]
    tt: dict[int, tuple[int, int, int, int, RawMove | None]]
    killers: list[list[RawMove | None]]
    history: dict[int, int]
    path: list[int]
    nodes: int
    node_limit: int
    deadline: float
    quiet_limit: int
    endgame_rule: str
    eg_limits: dict[int, int]
    white_crown: int
    black_crown: int
    diagonal: int
    valid: int
    s_ul: int
    s_ur: int
    s_dl: int
    s_dr: int
    sel_depth: int
    next_check: int
    #: the endgame databases of the variant (None: none built), :mod:`dama.endgames`
    eg: Lookup | None
    eg_max: int
    #: positions answered by the databases
    eg_hits: int

    def __init__(self, variant: Variant, ev: Evaluator | None = None) -> None:
        c = core(variant)
        self.core = c
        self.ev = evaluator(variant) if ev is None else ev
        self.tab = _zobrist_table(len(c.geo.square_of))
        self.tt = {}
        self.killers = [[None, None] for _ in range(MAX_PLY + 2)]
        self.history = {}
        self.path = []
        self.nodes = 0
        self.node_limit = 0
        self.deadline = 0.0
        self.quiet_limit = variant.quiet_move_limit
        self.endgame_rule = variant.endgame_rule
        self.eg_limits = {}
        self.white_crown = c.white_crown
        self.black_crown = c.black_crown
        self.diagonal = c.geo.main_diagonal
        self.valid = c.geo.valid
        g = c.geo
        self.s_ul, self.s_ur = -g.steps[0], -g.steps[1]
        self.s_dl, self.s_dr = g.steps[2], g.steps[3]
        self.variant = variant
        self.sel_depth = 0
        self.next_check = 1024
        self.eg = None
        self.eg_max = 0
        self.eg_hits = 0

    def reset(self) -> None:
        """Ready for the next move of the game: the table kept, the history weighed down (a
        quarter), the killers, the path, the limits and the counters new."""
        self.killers = [[None, None] for _ in range(MAX_PLY + 2)]
        self.history = {k: v >> 2 for k, v in self.history.items() if v >= 4}
        self.path = []
        self.nodes = 0
        self.node_limit = 0
        self.deadline = 0.0
        self.sel_depth = 0
        self.next_check = 1024
        self.eg_hits = 0

    # -- endgame databases ----------------------------------------------------------------------
    def eg_score(
        self, v: int, white: int, black: int, kings: int, ply: int, qp: int, ek: int, ep: int
    ) -> int:
        """The score of a stored value ``v`` (:mod:`dama.egtb`) at ``ply``: a win or loss in
        ``n`` plies scores as a mate at that distance when it comes within the draw counts that
        run (the endgame count from ``ep`` plies, and the quiet-move count from ``qp`` plies
        when only kings are left), else 0 (a draw: the distance to the end is an upper bound,
        so this is the safe side); a draw is 0."""
        if v == 0:
            return 0
        plies = v - 1
        room = 1 << 20
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

    def eg_probe(self, white: int, black: int, kings: int, turn: bool) -> int:
        """The databases' byte for the position, or -1 when it is not covered."""
        eg = self.eg
        if eg is None or (white | black).bit_count() > self.eg_max:
            return -1
        return eg.value(white, black, kings, turn)

    # -- draw rules ---------------------------------------------------------------------------
    def endgame_code(self, white: int, black: int, kings: int) -> int:
        """The endgame key (as :meth:`BaseBoard._endgame_key`) of a position of <= 5 pieces."""
        wm = (white & ~kings).bit_count()
        wk = (white & kings).bit_count()
        bm = (black & ~kings).bit_count()
        bk = (black & kings).bit_count()
        diag = 0
        if self.endgame_rule == "czech":
            if wm == 0 and wk == 1 and bm == 0 and bk == 3:
                diag = 1 if white & self.diagonal else 0
            elif wm == 0 and wk == 3 and bm == 0 and bk == 1:
                diag = 1 if black & self.diagonal else 0
        return 1 << 20 | wm | wk << 4 | bm << 8 | bk << 12 | diag << 16

    def endgame_plies_limit(self, code: int) -> int:
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

    def has_move(self, white: int, black: int, kings: int, turn: bool) -> bool:
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

    # -- making moves -------------------------------------------------------------------------
    def child_hash(self, h: int, kings: int, turn: bool, move: RawMove) -> int:
        """The Zobrist hash after ``move`` (``kings`` and ``turn`` before it)."""
        frm, to, cap = move
        tab = self.tab
        h ^= _ZOBRIST_BLACK_TO_MOVE
        if turn:
            if kings & frm:
                t = tab[1]
                h ^= t[frm.bit_length() - 1] ^ t[to.bit_length() - 1]
            else:
                h ^= tab[0][frm.bit_length() - 1]
                if to & self.white_crown:
                    h ^= tab[1][to.bit_length() - 1]
                else:
                    h ^= tab[0][to.bit_length() - 1]
            om, ok = tab[2], tab[3]
        else:
            if kings & frm:
                t = tab[3]
                h ^= t[frm.bit_length() - 1] ^ t[to.bit_length() - 1]
            else:
                h ^= tab[2][frm.bit_length() - 1]
                if to & self.black_crown:
                    h ^= tab[3][to.bit_length() - 1]
                else:
                    h ^= tab[2][to.bit_length() - 1]
            om, ok = tab[0], tab[1]
        while cap:
            low = cap & -cap
            cap ^= low
            if kings & low:
                h ^= ok[low.bit_length() - 1]
            else:
                h ^= om[low.bit_length() - 1]
        return h

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
        self, white: int, black: int, kings: int, turn: bool, alpha: int, beta: int, ply: int
    ) -> int:
        """Captures until the side to move has none, then the static evaluation."""
        self.nodes += 1
        if self.nodes >= self.next_check:
            self.check_limits()
        if ply > self.sel_depth:
            self.sel_depth = ply
        if self.eg is not None and (white | black).bit_count() <= self.eg_max:
            v = self.eg_probe(white, black, kings, turn)
            if v >= 0:  # after a capture: the counts start again
                self.eg_hits += 1
                return self.eg_score(
                    v, white, black, kings, ply, 0, self.endgame_code(white, black, kings), 0
                )
        caps = self.core.captures(white, black, kings, turn)
        if not caps:
            if not self.has_move(white, black, kings, turn):
                return ply - MATE
            return self.ev.evaluate(white, black, kings, turn)
        if ply >= MAX_PLY:
            return self.ev.evaluate(white, black, kings, turn)
        if len(caps) > 1:
            caps.sort(key=_cap_count, reverse=True)
        best = -INF
        make = self.core.make
        for m in caps:
            w2, b2, k2 = make(white, black, kings, turn, m)
            score = -self.quiesce(w2, b2, k2, not turn, -beta, -alpha, ply + 1)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
        return best

    def node(
        self,
        white: int,
        black: int,
        kings: int,
        turn: bool,
        h: int,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
        qp: int,
        ek: int,
        ep: int,
    ) -> int:
        """Negamax PVS below the root: the score of the position from the side to move's view."""
        # draw rules: repetition since the last irreversible move, the move counts
        if qp >= 4:
            path = self.path
            n = len(path)
            k = 4
            while k <= qp and k <= n:
                if path[n - k] == h:
                    return 0
                k += 2
            if self.quiet_limit and qp >= self.quiet_limit:
                return 0 if self.has_move(white, black, kings, turn) else ply - MATE
        if ek and ep:
            lim = self.endgame_plies_limit(ek)
            if lim and ep >= lim:
                return 0 if self.has_move(white, black, kings, turn) else ply - MATE
        if self.eg is not None and (white | black).bit_count() <= self.eg_max:
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
            key ^= _QP_MIX[qp if qp < 256 else 255]
        if ep:
            key ^= _EP_MIX[ep if ep < 256 else 255]
        entry = self.tt.get(key)
        hash_move: RawMove | None = None
        pv_node = beta - alpha > 1
        if entry is not None:
            e_depth, e_flag, e_score, _e_age, hash_move = entry
            if e_depth >= depth and not pv_node:
                if e_score > MATE_BOUND:
                    e_score -= ply
                elif e_score < -MATE_BOUND:
                    e_score += ply
                if e_flag == _EXACT:
                    return e_score
                if e_flag == _LOWER and e_score >= beta:
                    return e_score
                if e_flag == _UPPER and e_score <= alpha:
                    return e_score
        c = self.core
        moves = c.captures(white, black, kings, turn)
        capture = bool(moves)
        if not capture:
            moves = c.quiets(white, black, kings, turn)
            if not moves:
                return ply - MATE
        n_moves = len(moves)
        if n_moves > 1:
            self.order(moves, capture, hash_move, ply, kings, turn)
        new_depth = depth - 1
        if n_moves == 1 and ply < MAX_PLY // 2:
            new_depth = depth  # a forced move: look a ply further
        if ply >= MAX_PLY:
            return self.ev.evaluate(white, black, kings, turn)
        alpha0 = alpha
        best = -INF
        best_move: RawMove | None = None
        make = c.make
        crown = self.white_crown if turn else self.black_crown
        pieces5 = (white | black).bit_count() <= 6
        self.path.append(h)
        try:
            for i, m in enumerate(moves):
                frm, to, cap = m
                w2, b2, k2 = make(white, black, kings, turn, m)
                h2 = self.child_hash(h, kings, turn, m)
                qp2 = 0 if cap or not kings & frm else qp + 1
                if pieces5 and (ek or (w2 | b2).bit_count() <= 5):
                    ek2 = self.endgame_code(w2, b2, k2) if (w2 | b2).bit_count() <= 5 else 0
                    ep2 = ep + 1 if ek2 == ek else 0
                else:
                    ek2 = 0
                    ep2 = 0
                if i == 0:
                    score = -self.node(
                        w2, b2, k2, not turn, h2, new_depth, -beta, -alpha, ply + 1, qp2, ek2, ep2
                    )
                else:
                    d = new_depth
                    # late quiet moves at enough depth: search a ply shallower first
                    if (
                        i >= 3
                        and depth >= 3
                        and not capture
                        and not pv_node
                        and not to & crown
                        and n_moves > 1
                    ):
                        d -= 1
                    score = -self.node(
                        w2, b2, k2, not turn, h2, d, -alpha - 1, -alpha, ply + 1, qp2, ek2, ep2
                    )
                    if score > alpha and (d < new_depth or score < beta):
                        score = -self.node(
                            w2,
                            b2,
                            k2,
                            not turn,
                            h2,
                            new_depth,
                            -beta,
                            -alpha,
                            ply + 1,
                            qp2,
                            ek2,
                            ep2,
                        )
                if score > best:
                    best = score
                    best_move = m
                    if score > alpha:
                        alpha = score
                        if score >= beta:
                            if not capture:
                                ks = self.killers[ply]
                                if ks[0] != m:
                                    ks[1] = ks[0]
                                    ks[0] = m
                                hk = frm | to
                                self.history[hk] = self.history.get(hk, 0) + depth * depth
                            break
        finally:
            self.path.pop()
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
        self.tt[key] = (depth, flag, stored, 0, best_move)
        return best

    def order(
        self,
        moves: list[RawMove],
        capture: bool,
        hash_move: RawMove | None,
        ply: int,
        kings: int,
        turn: bool,
    ) -> None:
        """Sort ``moves`` best first (see the module docstring)."""
        if capture:
            keyed = [
                ((m[2].bit_count() << 20) + (1 << 30 if m == hash_move else 0), m) for m in moves
            ]
        else:
            k0, k1 = self.killers[ply]
            hist = self.history
            crown = self.white_crown if turn else self.black_crown
            keyed = []
            for m in moves:
                frm, to, _cap = m
                if m == hash_move:
                    s = 1 << 30
                elif m == k0:
                    s = 1 << 28
                elif m == k1:
                    s = 1 << 27
                else:
                    s = hist.get(frm | to, 0)
                    if to & crown and not kings & frm:
                        s += 1 << 26
                keyed.append((s, m))
        keyed.sort(key=_first, reverse=True)
        moves[:] = [m for _s, m in keyed]


def _first(item: tuple[int, RawMove]) -> int:
    return item[0]


def _cap_count(m: RawMove) -> int:
    return m[2].bit_count()


def _root_state(board: BaseBoard, s: Searcher) -> tuple[int, int, int]:
    """The root's quiet plies, endgame code and endgame plies; fills the repetition path."""
    tab = s.tab
    s.path = [_raw_hash(w, b, k, t, tab) for (w, b, k, t) in board._history[:-1]]
    return board.quiet_plies, _endgame_code(board.endgame_key), board.endgame_plies


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
    if memory is None:
        s = Searcher(board.variant, _evaluator)
    else:
        s = memory._searcher(board.variant, _evaluator)
    if depth is None and seconds is None and nodes is None:
        seconds = 1.0
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
    h = _raw_hash(white, black, kings, turn, s.tab)
    c = s.core
    root = c.moves(white, black, kings, turn)
    if seed is not None:
        random.Random(seed).shuffle(root)
    rng = random.Random(seed)
    # the children's counters
    children: list[tuple[RawMove, int, int, int, int, int, int, int]] = []
    for m in root:
        w2, b2, k2 = c.make(white, black, kings, turn, m)
        qp2 = 0 if m[2] or not kings & m[0] else qp + 1
        if (w2 | b2).bit_count() <= 5:
            ek2 = s.endgame_code(w2, b2, k2)
            ep2 = ep + 1 if ek2 == ek else 0
        else:
            ek2 = ep2 = 0
        children.append((m, w2, b2, k2, s.child_hash(h, kings, turn, m), qp2, ek2, ep2))
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
    s.path.append(h)
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
                    score = -s.node(
                        w2,
                        b2,
                        k2,
                        not turn,
                        h2,
                        d - 1,
                        lo,
                        -alpha if not _margin else INF,
                        1,
                        qp2,
                        ek2,
                        ep2,
                    )
                else:
                    score = -s.node(
                        w2, b2, k2, not turn, h2, d - 1, -alpha - 1, -alpha, 1, qp2, ek2, ep2
                    )
                    if score > alpha:
                        score = -s.node(
                            w2, b2, k2, not turn, h2, d - 1, -beta, -alpha, 1, qp2, ek2, ep2
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
        s.path.pop()
    if done_depth == 0:
        # not even depth 1 finished: score the moves by the static evaluation after them
        ev = s.ev
        best_score = -INF
        for m, w2, b2, k2, _h2, _qp2, _ek2, _ep2 in children:
            sc = -ev.evaluate(w2, b2, k2, not turn)
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
    :meth:`Searcher.eg_score`; the first of equal ones), or None."""
    best: tuple[RawMove, int] | None = None
    for m, w2, b2, k2, _h2, qp2, ek2, ep2 in children:
        v = s.eg_probe(w2, b2, k2, not turn)
        if v < 0:
            return None
        score = -s.eg_score(v, w2, b2, k2, 1, qp2, ek2, ep2)
        if best is None or score > best[1]:
            best = (m, score)
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
    tab = s.tab
    while len(pv) < 32:
        h = _raw_hash(b.white, b.black, b.kings, b.turn, tab)
        if b.quiet_plies:
            h ^= _QP_MIX[min(b.quiet_plies, 255)]
        if b.endgame_key and b.endgame_plies:
            h ^= _EP_MIX[min(b.endgame_plies, 255)]
        entry = s.tt.get(h)
        if entry is None or entry[4] is None:
            break
        bits = entry[4]
        nxt = {(m._frm, m._to, m._cap): m for m in b.generate_legal_moves()}.get(bits)
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
