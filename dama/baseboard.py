"""Positions, moves, legal moves and make/unmake: the base of :class:`dama.Board`.

The modules that read and write a board (:mod:`dama.fen`, :mod:`dama.notation`,
:mod:`dama.explain`, :mod:`dama.entry`, :mod:`dama.outcome`, :mod:`dama.perft`) take a
:class:`BaseBoard`; :class:`dama.board.Board` adds their answers as methods. So no module imports
one that imports it back.

>>> b = BaseBoard("czech")
>>> len(b.legal_moves)
7
>>> m = b.legal_moves[2]
>>> b.push(m); b.turn == BLACK
True
>>> b.pop() == m
True
"""

from __future__ import annotations

import random
from operator import attrgetter
from typing import NamedTuple, Self

from ._core import Core, RawMove, core
from .errors import InvalidSquareError
from .geometry import Bitboard, Geometry, Square, geometry
from .variants import Variant, find_variant

Color = bool
WHITE: Color = True
BLACK: Color = False

#: a move's identity: (start, end, captured squares); routes that differ only in the order of
#: their jumps are one move
MoveKey = tuple[Square, Square, frozenset[Square]]


class Piece(NamedTuple):
    color: Color
    king: bool

    def symbol(self) -> str:
        """``w``/``b`` for men, ``W``/``B`` for kings."""
        s = "w" if self.color else "b"
        return s.upper() if self.king else s


def _detours(geo: Geometry, route: tuple[Square, ...], caps: tuple[Square, ...]) -> int:
    """How many times ``route`` goes straight on after a capture without landing on the square
    directly behind the captured piece. Routes with none come first: the PDN convention shows a
    king that goes on in the same direction passing that square (``47x38x20``, not ``47x33x20``).
    """
    n = 0
    rc = [geo.row_col(s) for s in route]
    for i in range(1, len(rc) - 1):
        (r0, c0), (r1, c1), (r2, c2) = rc[i - 1], rc[i], rc[i + 1]
        d1 = (r1 > r0) - (r1 < r0), (c1 > c0) - (c1 < c0)
        d2 = (r2 > r1) - (r2 < r1), (c2 > c1) - (c2 < c1)
        if d1 == d2 and abs(r1 - geo.row_col(caps[i - 1])[0]) > 1:
            n += 1
    return n


class Move:
    """A legal move: start, end, landing squares, captured squares in jump order, crowning.

    Routes with the same start, end and captured set give the same position: they are one move,
    which keeps every route in ``routes`` (each a tuple of squares from start to end). ``path`` and
    ``captured`` describe the first route. Equality and hashing use (start, end, captured set).
    Moves are values: treat them as immutable.
    """

    __slots__ = (
        "start",
        "end",
        "path",
        "captured",
        "crowns",
        "routes",
        "route_captures",
        "_frm",
        "_to",
        "_cap",
        "_order",
    )

    start: Square
    end: Square
    path: tuple[Square, ...]
    captured: tuple[Square, ...]
    crowns: bool
    routes: tuple[tuple[Square, ...], ...]
    #: captured squares of each route, in jump order, parallel to ``routes``
    route_captures: tuple[tuple[Square, ...], ...]

    def __init__(
        self,
        start: Square,
        end: Square,
        path: tuple[Square, ...],
        captured: tuple[Square, ...],
        crowns: bool,
        routes: tuple[tuple[Square, ...], ...],
        route_captures: tuple[tuple[Square, ...], ...] = (),
        *,
        bits: tuple[int, int, int] = (0, 0, 0),
    ) -> None:
        self.start = start
        self.end = end
        self.path = path
        self.captured = captured
        self.crowns = crowns
        self.routes = routes
        self.route_captures = route_captures or (captured,)
        self._frm, self._to, self._cap = bits
        self._order = (start << 7 | end, tuple(sorted(captured)))

    def key(self) -> MoveKey:
        """The move's identity (see :data:`MoveKey`), as :meth:`dama.proof.ProofMove.key` has it."""
        return (self.start, self.end, frozenset(self.captured))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return self._order == other._order

    def __hash__(self) -> int:
        return hash(self._order)

    def __repr__(self) -> str:
        return f"<Move {self.route_str()}>"

    def __str__(self) -> str:
        return f"{self.start}{'x' if self.captured else '-'}{self.end}"

    def route_str(self, index: int = 0) -> str:
        """The full route in numeric notation, e.g. ``46x37x48x25``."""
        sep = "x" if self.captured else "-"
        return sep.join(str(s) for s in self.routes[index])


_order_key = attrgetter("_order")


#: a saved state on the move stack: white, black, kings, turn, quiet_plies, endgame_key,
#: endgame_plies, ply, the move, and the repetition history an irreversible move replaced
_State = tuple[
    int,
    int,
    int,
    bool,
    int,
    tuple[object, ...],
    int,
    int,
    "Move",
    "list[tuple[int, int, int, bool]] | None",
]

#: quiet moves as Move objects, by variant name: (Black's men, White's men, kings), keyed as
#: the fast core's tables are (:meth:`dama._core.Core.quiet_moves`)
_QUIET_TABLES: dict[str, tuple[dict[int, Move], dict[int, Move], dict[int, Move]]] = {}


def _quiet_tables(c: Core) -> tuple[dict[int, Move], dict[int, Move], dict[int, Move]]:
    tables = _QUIET_TABLES.get(c.variant.name)
    if tables is None:
        sq = c.geo.square_of

        def objects(raw: dict[int, RawMove], crown: int) -> dict[int, Move]:
            out = {}
            for key, (frm, to, _cap) in raw.items():
                s, e = sq[frm.bit_length() - 1], sq[to.bit_length() - 1]
                out[key] = Move(
                    s, e, (e,), (), bool(crown & to), ((s, e),), ((),), bits=(frm, to, 0)
                )
            return out

        tables = (
            objects(c.man_steps[False], c.black_crown),
            objects(c.man_steps[True], c.white_crown),
            objects(c.king_steps, 0),
        )
        _QUIET_TABLES[c.variant.name] = tables
    return tables


_ZOBRIST_RNG = random.Random(20061001)
_ZOBRIST: dict[int, list[list[int]]] = {}


def _zobrist_table(nbits: int) -> list[list[int]]:
    tab = _ZOBRIST.get(nbits)
    if tab is None:
        tab = [[_ZOBRIST_RNG.getrandbits(64) for _ in range(nbits + 1)] for _ in range(4)]
        _ZOBRIST[nbits] = tab
    return tab


_ZOBRIST_BLACK_TO_MOVE = 0x9E3779B97F4A7C15


class BaseBoard:
    """A draughts position of one variant, with its legal moves and its move stack (make/unmake).

    ``BaseBoard("czech")`` is the start position. :class:`~dama.Board` adds FEN, notation,
    explanations and the game's end.
    """

    variant: Variant
    geo: Geometry
    _core: Core  #: the variant's move generator
    white: Bitboard  #: White's pieces (internal bit layout)
    black: Bitboard
    kings: Bitboard
    turn: Color

    def __init__(self, variant: str | Variant = "international") -> None:
        self.variant = find_variant(variant)
        self.geo = geometry(self.variant.size)
        self._core = core(self.variant)
        self._stack: list[_State] = []
        self._history: list[tuple[int, int, int, bool]] = []
        self.quiet_plies = 0
        self.endgame_plies = 0
        self.ply = 0
        self.reset()

    # -- set-up -------------------------------------------------------------------------
    def reset(self) -> None:
        """Set the start position of the variant, White to move."""
        g = self.geo
        n = self.variant.men_per_side
        self.black = g.bb(range(1, n + 1))
        self.white = g.bb(range(g.squares - n + 1, g.squares + 1))
        self.kings = 0
        self.turn = WHITE
        self.clear_stack()

    def clear(self) -> None:
        """Remove every piece (White to move)."""
        self.white = self.black = self.kings = 0
        self.turn = WHITE
        self.clear_stack()

    def clear_stack(self) -> None:
        self._stack = []
        self.quiet_plies = 0
        self.ply = 0
        self._start_history()

    def _start_history(self) -> None:
        self._history = [self.key()]
        self.endgame_key = self._endgame_key()
        self.endgame_plies = 0

    def copy(self, stack: bool = True) -> Self:
        b = object.__new__(type(self))
        b.variant = self.variant
        b.geo = self.geo
        b._core = self._core
        b.white, b.black, b.kings, b.turn = self.white, self.black, self.kings, self.turn
        b.quiet_plies, b.ply = self.quiet_plies, self.ply
        b.endgame_key, b.endgame_plies = self.endgame_key, self.endgame_plies
        # saved repetition histories are restored by pop: each copy gets its own lists
        b._stack = (
            [st[:9] + (None if st[9] is None else list(st[9]),) for st in self._stack]
            if stack
            else []
        )
        b._history = list(self._history) if stack else [self.key()]
        return b

    def __getstate__(self) -> dict[str, object]:
        # the move generator is shared per variant (and holds functions): pickle without it
        state = dict(self.__dict__)
        del state["_core"]
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._core = core(self.variant)

    def key(self) -> tuple[int, int, int, bool]:
        """An exact, hashable key of the position and side to move (repetitions, tables)."""
        return (self.white, self.black, self.kings, self.turn)

    def zobrist_hash(self) -> int:
        """A 64-bit Zobrist hash of the position and side to move."""
        tab = _zobrist_table(len(self.geo.square_of))
        h = 0 if self.turn else _ZOBRIST_BLACK_TO_MOVE
        for kind, bb in enumerate(
            (
                self.white & ~self.kings,
                self.white & self.kings,
                self.black & ~self.kings,
                self.black & self.kings,
            )
        ):
            t = tab[kind]
            while bb:
                low = bb & -bb
                h ^= t[low.bit_length() - 1]
                bb ^= low
        return h

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BaseBoard):
            return NotImplemented
        return self.variant == other.variant and self.key() == other.key()

    def __hash__(self) -> int:
        return hash((self.variant.name, self.key()))

    def __str__(self) -> str:
        g = self.geo
        rows = []
        for r in range(g.size):
            cells = []
            for c in range(g.size):
                sq = g.square_at(r, c)
                if sq is None:
                    cells.append(" ")
                else:
                    p = self.piece_at(sq)
                    cells.append(p.symbol() if p else ".")
            rows.append(" ".join(cells))
        return "\n".join(rows)

    # -- pieces -------------------------------------------------------------------------
    def _check_square(self, sq: int) -> int:
        if not isinstance(sq, int) or not 1 <= sq <= self.geo.squares:
            raise InvalidSquareError(f"square {sq!r} is not on the board (1-{self.geo.squares})")
        return 1 << self.geo.bit_of[sq]

    def piece_at(self, sq: Square) -> Piece | None:
        bit = self._check_square(sq)
        if self.white & bit:
            return Piece(WHITE, bool(self.kings & bit))
        if self.black & bit:
            return Piece(BLACK, bool(self.kings & bit))
        return None

    def set_piece_at(self, sq: Square, piece: Piece | None) -> None:
        """Put ``piece`` on ``sq`` (None empties it). Clears the move stack."""
        bit = self._check_square(sq)
        self.white &= ~bit
        self.black &= ~bit
        self.kings &= ~bit
        if piece is not None:
            if piece.color:
                self.white |= bit
            else:
                self.black |= bit
            if piece.king:
                self.kings |= bit
        self.clear_stack()

    def pieces(self, color: Color, king: bool | None = None) -> list[Square]:
        """Squares of ``color``'s pieces (all, only kings, or only men)."""
        bb = self.white if color else self.black
        if king is True:
            bb &= self.kings
        elif king is False:
            bb &= ~self.kings
        return self.geo.squares_of(bb)

    def count(self, color: Color) -> tuple[int, int]:
        """(men, kings) of ``color``."""
        bb = self.white if color else self.black
        return ((bb & ~self.kings).bit_count(), (bb & self.kings).bit_count())

    def material(self, color: Color) -> int:
        """Material of ``color``: man = 1, king = 3."""
        men, kings = self.count(color)
        return men + 3 * kings

    # -- public move generation -----------------------------------------------------------
    def generate_legal_moves(self) -> list[Move]:
        """The legal moves, one per distinct (start, end, captured set), in a stable order.

        Which moves are legal is decided by the variant's one generator (:mod:`dama._core`);
        here they become :class:`Move` objects, and captures of several pieces get their routes.
        """
        c = self._core
        white, black, kings, turn = self.white, self.black, self.kings, self.turn
        captures = c.captures(white, black, kings, turn)
        if not captures:
            tables = _QUIET_TABLES.get(self.variant.name) or _quiet_tables(c)
            out = c.quiet_moves(white, black, kings, turn, tables[turn], tables[2])
            out.sort(key=_order_key)
            return out
        sq = self.geo.square_of
        crown_row = self.geo.white_crown if turn else self.geo.black_crown
        moves: list[Move] = []
        multi: list[RawMove] = []
        for m in captures:
            frm, to, capmask = m
            if capmask & (capmask - 1):
                multi.append(m)
                continue
            start, end = sq[frm.bit_length() - 1], sq[to.bit_length() - 1]
            capt = (sq[capmask.bit_length() - 1],)
            crowns = not kings & frm and bool(crown_row & to)
            moves.append(Move(start, end, (end,), capt, crowns, ((start, end),), (capt,), bits=m))
        if multi:
            for m, routes in c.routes(white, black, kings, turn, multi).items():
                frm, to, capmask = m
                start = sq[frm.bit_length() - 1]
                by_route = {
                    (start, *[sq[x] for x in lands]): tuple([sq[x] for x in caps])
                    for lands, caps in routes
                }
                full = tuple(
                    sorted(by_route, key=lambda f: (_detours(self.geo, f, by_route[f]), f))
                )
                route_caps = tuple(by_route[f] for f in full)
                crowns = not kings & frm and bool(crown_row & to)
                moves.append(
                    Move(
                        start,
                        full[0][-1],
                        full[0][1:],
                        route_caps[0],
                        crowns,
                        full,
                        route_caps,
                        bits=m,
                    )
                )
        moves.sort(key=_order_key)
        return moves

    @property
    def legal_moves(self) -> list[Move]:
        """The legal moves (see :meth:`generate_legal_moves`)."""
        return self.generate_legal_moves()

    # -- make / unmake --------------------------------------------------------------------
    def push(self, move: Move) -> None:
        """Play ``move`` (which must be legal here; use :meth:`parse_move` for user input)."""
        g = self.geo
        frm, to, capmask = move._frm, move._to, move._cap
        if not frm:
            frm = 1 << g.bit_of[move.start]
            to = 1 << g.bit_of[move.end]
            for c in move.captured:
                capmask |= 1 << g.bit_of[c]
        white, black, kings, turn = self.white, self.black, self.kings, self.turn
        was_king = kings & frm
        irreversible = capmask or not was_king
        self._stack.append(
            (
                white,
                black,
                kings,
                turn,
                self.quiet_plies,
                self.endgame_key,
                self.endgame_plies,
                self.ply,
                move,
                self._history if irreversible else None,
            )
        )
        if was_king:
            kings = (kings & ~capmask & ~frm) | to
        else:
            kings &= ~capmask
            if to & (g.white_crown if turn else g.black_crown):
                kings |= to
        if turn:
            white = (white & ~frm) | to
            black &= ~capmask
        else:
            black = (black & ~frm) | to
            white &= ~capmask
        self.white, self.black, self.kings = white, black, kings
        self.turn = turn = not turn
        self.ply += 1
        if irreversible:
            self.quiet_plies = 0
            self._history = [(white, black, kings, turn)]
        else:
            self.quiet_plies += 1
            self._history.append((white, black, kings, turn))
        if (white | black).bit_count() > 5 and not self.endgame_key:
            self.endgame_plies += 1  # no endgame count can apply: skip the material count
            return
        ek = self._endgame_key()
        if ek == self.endgame_key:
            self.endgame_plies += 1
        else:
            self.endgame_key = ek
            self.endgame_plies = 0

    def pop(self) -> Move:
        """Take back the last move and return it."""
        (
            self.white,
            self.black,
            self.kings,
            self.turn,
            self.quiet_plies,
            self.endgame_key,
            self.endgame_plies,
            self.ply,
            move,
            history,
        ) = self._stack.pop()
        if history is not None:
            self._history = history
        else:
            self._history.pop()
        return move

    def peek(self) -> Move | None:
        return self._stack[-1][8] if self._stack else None

    @property
    def move_stack(self) -> list[Move]:
        return [st[8] for st in self._stack]

    # -- repetition and endgame counting --------------------------------------------------
    def repetitions(self) -> int:
        """How many times the current position has stood on the board (with this side to move)."""
        k = self.key()
        return self._history.count(k)

    def _endgame_key(self) -> tuple[object, ...]:
        if (self.white | self.black).bit_count() > 5:
            return ()  # no endgame count applies with more than four pieces against one
        wm, wk = self.count(WHITE)
        bm, bk = self.count(BLACK)
        on_diag = False
        if self.variant.endgame_rule == "czech":
            # a lone king standing on the main diagonal changes which Czech count applies
            # only three kings against a lone king: art. 6.3 or 6.4 by the lone king's square
            if (wm, wk, bm, bk) == (0, 1, 0, 3):
                on_diag = bool(self.white & self.geo.main_diagonal)
            elif (wm, wk, bm, bk) == (0, 3, 0, 1):
                on_diag = bool(self.black & self.geo.main_diagonal)
        return (wm, wk, bm, bk, on_diag)
