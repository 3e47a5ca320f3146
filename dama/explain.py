"""Why a move is illegal: the rule it breaks, its article, and a message in English and Czech.

:func:`explain_illegal` reads a move text the way :meth:`Board.parse_move <dama.Board.parse_move>` does and, when
no legal move matches it, finds the most helpful rule the attempt breaks. A written route is
followed landing by landing on the position, jumped pieces staying on the board until the move
ends (the Turkish-strike rule), so the explanation can name the exact step that goes wrong.

It returns ``None`` when the text names a legal move **and** when it is ambiguous (several legal
moves match a short text): that is not a rule broken, and
:class:`~dama.AmbiguousMoveError` from ``parse_move`` lists the routes to choose from.

Every explanation has a stable ``code`` (the keys of :data:`EXPLANATION_CODES`), the ``article`` of
the variant's rulebook (``CUD 2006 art. 4.14``, ``SDS international art. 4``, ``SDS Brazilian art. 2``),
and ``message_en``/``message_cs`` naming squares in the variant's notation (numbers for Czech and
international draughts, algebraic names for Brazilian draughts).

>>> from dama import Board
>>> b = Board("czech", "W:W22,K32:B18,11")
>>> e = explain_illegal(b, "22x15")
>>> e.code, e.article
('king_priority', 'CUD 2006 art. 4.14')
>>> explain_illegal(b, "32x14") is None
True
>>> print(explain_illegal(Board("czech"), "22-26").message_cs)
Kámen táhne jen dopředu: tah z pole 22 na pole 26 by vedl dozadu. Dozadu smí táhnout jen dáma.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .errors import DamaError, InvalidMoveError
from .lang import cite, lang_code
from .notation import matching_moves, move_text, parse_square, square_text, tokenize_move

if TYPE_CHECKING:
    from .baseboard import BaseBoard, Move

__all__ = ["EXPLANATION_CODES", "Explanation", "explain_illegal"]


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a move text is not a legal move.

    ``code`` is stable (see :data:`EXPLANATION_CODES`); ``article`` cites the variant's rulebook;
    ``squares`` are the squares the explanation is about (to highlight on a diagram), in the order
    the messages name them; ``params`` holds the details the messages were built from (square
    numbers, counts, example moves), for callers that phrase their own text.
    """

    code: str
    article: str
    message_en: str
    message_cs: str
    squares: tuple[int, ...] = ()
    params: Mapping[str, object] = field(default_factory=dict, compare=False, hash=False)

    def __str__(self) -> str:
        return f"{self.message_en} ({self.article})"

    def message(self, lang: str | None = "en") -> str:
        """The message in ``lang`` (``cs``/``cs-cz`` for Czech, anything else for English).

        >>> from dama import Board
        >>> e = Board("czech").explain_illegal("22-26")
        >>> e.message("en")
        'A man moves only forward: 22 to 26 goes backward. Only a king moves backward.'
        >>> e.message("cs-cz").startswith("Kámen táhne jen dopředu")
        True
        """
        return self.message_cs if lang_code(lang) == "cs" else self.message_en

    def citation(self, lang: str | None = "en") -> str:
        """The rulebook article in ``lang``: ``CUD 2006 art. 3.4`` or ``CUD 2006 čl. 3.4``."""
        return cite(self.article, lang)

    def text(self, lang: str | None = "en") -> str:
        """The message followed by its article, in ``lang``.

        >>> from dama import Board
        >>> Board("czech").explain_illegal("22-26").text("cs")[-24:]
        'dáma. (CUD 2006 čl. 3.4)'
        """
        return f"{self.message(lang)} ({self.citation(lang)})"


#: every code :func:`explain_illegal` can return, with a short description
EXPLANATION_CODES: dict[str, str] = {
    "syntax": "the text is not a move (write start and end squares joined by - or x)",
    "no_such_square": "a square in the text is not on the board (or is a light square)",
    "empty_square": "there is no piece on the start square",
    "opponent_piece": "the piece on the start square belongs to the opponent",
    "same_square": "the move does not leave its square",
    "capture_compulsory": "a quiet move while a capture is possible; capturing is compulsory",
    "man_backward": "a man moves only forward",
    "man_too_far": "a man moves one square (and jumps only an adjacent piece)",
    "not_diagonal": "pieces move only along diagonals",
    "square_occupied": "the target square is occupied",
    "path_blocked": "a piece stands in the king's way",
    "man_capture_backward": "a man may not capture backward (Czech draughts)",
    "own_piece": "own pieces cannot be jumped",
    "two_in_a_row": "two pieces standing one right behind the other cannot be jumped",
    "nothing_to_capture": "there is no opponent's piece to jump on this leap",
    "landing_occupied": "the landing square behind the jumped piece is not empty",
    "majority": "the capture that takes the most pieces is compulsory (majority rule)",
    "king_priority": "when a king and a man can both capture, a king must capture (Czech draughts)",
    "capture_not_finished": "the capturing piece can still jump: the capture must be completed",
    "already_jumped": "a piece can be jumped only once, and stays on the board until the move ends",
    "king_landing": "a king must land where it can capture again",
    "not_yet_king": "a man crowned during the move acts as a king only from its next move",
    "no_capture_route": "written as a capture, but no chain of jumps from the start ends there",
    "no_such_move": "fallback: the piece has no such move (its legal moves are listed)",
}

# article numbers: code -> ((Czech man, Czech king), (SDS man, SDS king)); "" where not applicable
_ARTICLES: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    "syntax": (("8.2", "8.2"), ("9", "9")),
    "no_such_square": (("2.6", "2.6"), ("1", "1")),
    "empty_square": (("3.3", "3.3"), ("2", "2")),
    "opponent_piece": (("3.3", "3.3"), ("2", "2")),
    "same_square": (("3.2", "3.2"), ("2", "6")),
    "capture_compulsory": (("4.1", "4.1"), ("3", "3")),
    "man_backward": (("3.4", "3.4"), ("2", "2")),
    "man_too_far": (("3.4", "3.4"), ("2", "2")),
    "not_diagonal": (("3.4", "3.9"), ("2", "6")),
    "square_occupied": (("3.4", "3.9"), ("2", "6")),
    "path_blocked": (("3.9", "3.9"), ("6", "6")),
    "man_capture_backward": (("4.1", "4.1"), ("2", "2")),
    "own_piece": (("4.7", "4.7"), ("2", "6")),
    "two_in_a_row": (("4.2", "4.3"), ("2", "6")),
    "nothing_to_capture": (("4.2", "4.3"), ("2", "6")),
    "landing_occupied": (("4.2", "4.3"), ("2", "6")),
    "majority": (("4.13", "4.13"), ("4", "4")),
    "king_priority": (("4.14", "4.14"), ("4", "4")),
    "capture_not_finished": (("4.5", "4.6"), ("3", "6")),
    "already_jumped": (("4.8", "4.8"), ("2", "6")),
    "king_landing": (("4.13", "4.13"), ("4", "4")),
    "not_yet_king": (("3.8", "3.8"), ("5", "5")),
    "no_capture_route": (("4.2", "4.3"), ("2", "6")),
    "no_such_move": (("3, 4", "3, 4"), ("2-6", "2-6")),
}

# when one written route could break several rules, the first in this list is named
_VIOLATION_ORDER = (
    "not_yet_king",
    "man_capture_backward",
    "already_jumped",
    "own_piece",
    "two_in_a_row",
    "landing_occupied",
    "man_too_far",
    "nothing_to_capture",
)

_SPLIT = re.compile(r"\s*[-x:×]\s*", re.IGNORECASE)
_SQUARE_TOKEN = re.compile(r"^(\d{1,2}|[a-jA-J](?:10|[1-9]))$")
_NODE_BUDGET = 60_000


# -- small language helpers -------------------------------------------------------------------
def _join(items: list[str], word: str) -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {word} {items[-1]}"


def _pieces_cs(n: int) -> str:
    """``n`` pieces in the Czech accusative: 1 figuru, 2 figury, 5 figur."""
    if n == 1:
        return "1 figuru"
    if 2 <= n <= 4:
        return f"{n} figury"
    return f"{n} figur"


# -- one leap of a capture (possibly breaking a rule) --------------------------------------------
@dataclass(frozen=True, slots=True)
class _Leap:
    frm: int  # bit
    land: int  # bit
    over: int  # bit of the jumped piece, -1 when nothing is jumped
    violation: str = ""  # "" for a leap the rules allow
    extra: int = -1  # a second square the violation concerns (bit), e.g. the piece behind
    terminal: bool = False  # the leap cannot be followed by another


@dataclass(frozen=True, slots=True)
class _Node:
    cur: int
    jumped: int
    crowned: bool


@dataclass(frozen=True, slots=True)
class _Match:
    leaps: tuple[_Leap, ...]
    node: _Node  # the state after the last leap

    @property
    def violation(self) -> _Leap | None:
        for lp in self.leaps:
            if lp.violation:
                return lp
        return None

    @property
    def captures(self) -> int:
        return sum(1 for lp in self.leaps if lp.over >= 0)


class _Mover:
    """The piece on the start square, with the rules that govern its capture leaps."""

    def __init__(self, board: BaseBoard, start: int) -> None:
        self.board = board
        g = board.geo
        self.geo = g
        self.start_bit = g.bit_of[start]
        sb = 1 << self.start_bit
        self.own, self.opp = (
            (board.white, board.black) if board.turn else (board.black, board.white)
        )
        self.occ = (board.white | board.black) & ~sb
        self.king = bool(board.kings & sb)
        self.fwd: tuple[int, ...] = (0, 1) if board.turn else (2, 3)
        self.cap_dirs: tuple[int, ...] = (
            (0, 1, 2, 3) if board.variant.men_capture_backward else self.fwd
        )
        self.crown = g.white_crown if board.turn else g.black_crown
        self.nodes = 0

    def apply(self, node: _Node, lp: _Leap) -> _Node:
        jumped = node.jumped
        if lp.over >= 0:
            jumped |= 1 << lp.over
            if lp.violation == "two_in_a_row" and lp.extra >= 0:
                jumped |= 1 << lp.extra
        crowned = node.crowned or (not self.king and bool(self.crown >> lp.land & 1))
        return _Node(lp.land, jumped, crowned)

    def leaps(self, node: _Node, relaxed: bool, first: bool) -> list[_Leap]:
        """Capture leaps from ``node``: the legal ones, plus (``relaxed``) those breaking one rule."""
        if self.king:
            return self._king_leaps(node, relaxed, first)
        return self._man_leaps(node, relaxed, first)

    def _man_leaps(self, node: _Node, relaxed: bool, first: bool) -> list[_Leap]:
        occ, opp, own = self.occ, self.opp, self.own
        cur, jumped = node.cur, node.jumped
        out: list[_Leap] = []
        for d, ray in enumerate(self.geo.rays[cur]):
            if not ray:
                continue
            v = ray[0]
            land = ray[1] if len(ray) > 1 else -1
            land_empty = land >= 0 and not occ >> land & 1
            enemy = bool(opp >> v & 1) and not jumped >> v & 1
            if enemy and land_empty:
                if d in self.cap_dirs:
                    out.append(_Leap(cur, land, v))
                elif relaxed:
                    why = "not_yet_king" if node.crowned else "man_capture_backward"
                    out.append(_Leap(cur, land, v, why))
            if not relaxed:
                continue
            if enemy and land >= 0 and not land_empty:
                nxt = ray[2] if len(ray) > 2 else -1
                if opp >> land & 1 and nxt >= 0 and not occ >> nxt & 1:
                    out.append(_Leap(cur, nxt, v, "two_in_a_row", land))
                out.append(_Leap(cur, land, v, "landing_occupied", terminal=True))
            if land_empty and occ >> v & 1 and not enemy:
                why = "own_piece" if own >> v & 1 else "already_jumped"
                out.append(_Leap(cur, land, v, why))
            # leaps like a king's: a distant piece, or a landing further behind it
            i = 0
            while i < len(ray) and not occ >> ray[i] & 1:
                if not first:
                    out.append(_Leap(cur, ray[i], -1, "nothing_to_capture"))
                i += 1
            if i < len(ray) and opp >> ray[i] & 1 and not jumped >> ray[i] & 1:
                j = i + 1
                while j < len(ray) and not occ >> ray[j] & 1:
                    if i > 0 or j > 1:
                        why = "not_yet_king" if node.crowned else "man_too_far"
                        out.append(_Leap(cur, ray[j], ray[i], why))
                    j += 1
        return out

    def _king_leaps(self, node: _Node, relaxed: bool, first: bool) -> list[_Leap]:
        occ, opp = self.occ, self.opp
        cur, jumped = node.cur, node.jumped
        out: list[_Leap] = []
        for ray in self.geo.rays[cur]:
            n = len(ray)
            i = 0
            while i < n and not occ >> ray[i] & 1:
                if relaxed and not first:
                    out.append(_Leap(cur, ray[i], -1, "nothing_to_capture"))
                i += 1
            if i >= n:
                continue
            v = ray[i]
            enemy = bool(opp >> v & 1) and not jumped >> v & 1
            why = "" if enemy else ("already_jumped" if opp >> v & 1 else "own_piece")
            j = i + 1
            while j < n and not occ >> ray[j] & 1:
                if relaxed or not why:
                    out.append(_Leap(cur, ray[j], v, why))
                j += 1
            if not relaxed or not enemy or j >= n:
                continue
            w = ray[j]
            if j == i + 1 and opp >> w & 1:
                k = j + 1
                while k < n and not occ >> ray[k] & 1:
                    out.append(_Leap(cur, ray[k], v, "two_in_a_row", w))
                    k += 1
            out.append(_Leap(cur, w, v, "landing_occupied", terminal=True))
        return out

    def search(self, written: list[int], relaxed: bool) -> list[_Match]:
        """Capture routes (at most one broken rule when ``relaxed``) that match the written
        squares (bits): start, the given landings in order, end."""
        end = written[-1]
        middle = written[1:-1]
        found: list[_Match] = []
        self.nodes = 0

        def walk(node: _Node, route: tuple[_Leap, ...], mi: int, may_break: bool) -> None:
            self.nodes += 1
            if self.nodes > _NODE_BUDGET:
                return
            for lp in self.leaps(node, may_break, not route):
                nxt = self.apply(node, lp)
                r2 = (*route, lp)
                if lp.land == end and mi == len(middle):
                    found.append(_Match(r2, nxt))
                if lp.terminal:
                    continue
                m2 = mi + 1 if mi < len(middle) and lp.land == middle[mi] else mi
                walk(nxt, r2, m2, may_break and not lp.violation)

        walk(_Node(self.start_bit, 0, False), (), 0, relaxed)
        return found

    def can_continue(self, node: _Node) -> list[_Leap]:
        return self.leaps(node, False, False)

    def best_capture(self, node: _Node | None = None) -> int:
        """Most pieces this piece can take in one capture (from ``node``: still take), by the
        rules of the leaps alone."""
        best = 0
        self.nodes = 0

        def walk(node: _Node, depth: int) -> None:
            nonlocal best
            self.nodes += 1
            best = max(best, depth)
            if self.nodes > _NODE_BUDGET:
                return
            for lp in self.can_continue(node):
                walk(self.apply(node, lp), depth + 1)

        walk(node or _Node(self.start_bit, 0, False), 0)
        return best


# -- the explainer ---------------------------------------------------------------------------------
class _Explainer:
    squares: list[int]
    written_capture: bool
    mover: _Mover
    legal: list[Move]

    def __init__(self, board: BaseBoard, text: str) -> None:
        self.board = board
        self.text = text.strip() if isinstance(text, str) else repr(text)
        v = board.variant
        self.czech = v.name == "czech"
        self.rulebook = v.rulebook

    # names
    def sq(self, s: int) -> str:
        return square_text(self.board, s)

    def article(self, code: str, king: bool = False) -> str:
        czech, sds = _ARTICLES[code]
        num = (czech if self.czech else sds)[1 if king else 0]
        return f"{self.rulebook} art. {num}"

    def make(
        self,
        code: str,
        en: str,
        cs: str,
        squares: Iterable[int] = (),
        king: bool = False,
        **params: object,
    ) -> Explanation:
        return Explanation(code, self.article(code, king), en, cs, tuple(squares), dict(params))

    def piece_words(self, s: int) -> tuple[str, str]:
        """(English, Czech) description of the piece on ``s``: "white man", "bílý kámen"."""
        p = self.board.piece_at(s)
        if p is None:
            return ("empty square", "prázdné pole")
        en = f"{'white' if p.color else 'black'} {'king' if p.king else 'man'}"
        if p.king:
            cs = f"{'bílá' if p.color else 'černá'} dáma"
        else:
            cs = f"{'bílý' if p.color else 'černý'} kámen"
        return en, cs

    def mover_words(self, king: bool) -> tuple[str, str, str]:
        """(English noun, Czech nominative, Czech instrumental) of the moving piece."""
        return ("king", "dáma", "dámou") if king else ("man", "kámen", "kamenem")

    def move_list(self, moves: list[Move], limit: int = 8) -> str:
        texts = [move_text(self.board, m) for m in moves[:limit]]
        if len(moves) > limit:
            texts.append("…")
        return ", ".join(texts)

    # -- entry -------------------------------------------------------------------------------
    def explain(self) -> Explanation | None:
        board = self.board
        try:
            squares, written_capture = tokenize_move(board, self.text)
        except InvalidMoveError:
            return self.syntax()
        if matching_moves(board, squares):
            return None  # legal, or ambiguous (parse_move raises AmbiguousMoveError)
        self.squares = squares
        self.written_capture = written_capture
        start = squares[0]
        piece = board.piece_at(start)
        if piece is None:
            return self.make(
                "empty_square",
                f"There is no piece on {self.sq(start)} to move.",
                f"Na poli {self.sq(start)} nestojí žádná figura, není čím táhnout.",
                [start],
            )
        if piece.color != board.turn:
            return self.opponent_piece(start)
        self.mover = _Mover(board, start)
        self.legal = board.generate_legal_moves()
        return self.explain_own_piece()

    def syntax(self) -> Explanation:
        """The text is not a move: either bad syntax or a square not on the board."""
        board = self.board
        g = board.geo
        example = {"czech": "22-18", "international": "32-28"}.get(board.variant.name, "c3-d4")
        t = self.text.rstrip("!?*+ ")
        parts = _SPLIT.split(t) if t else []
        if len(parts) >= 2:
            for p in parts:
                if not _SQUARE_TOKEN.match(p):
                    break
                try:
                    parse_square(p, board.variant)
                except DamaError:
                    return self.no_such_square(p)
        n = g.squares
        return self.make(
            "syntax",
            f"'{self.text}' is not a move: write the start and end squares joined by - for a move "
            f"or x for a capture, for example {example}.",
            f"„{self.text}“ není zápis tahu: napiš výchozí a cílové pole spojená pomlčkou (tah) "
            f"nebo křížkem (braní), například {example}.",
            text=self.text,
            squares_on_board=n,
        )

    def no_such_square(self, token: str) -> Explanation:
        g = self.board.geo
        n = g.squares
        if token.isdigit():
            en = f"There is no square {token} on this board: the squares are numbered 1-{n}."
            cs = f"Pole {token} na desce není: pole jsou očíslována 1–{n}."
        else:
            en = (
                f"{token} is not a dark square of this board: draughts is played on the dark "
                f"squares only (such as {g.name(n - g.half + 1)})."
            )
            cs = (
                f"{token} není tmavé pole této desky: hraje se jen na tmavých polích "
                f"(například {g.name(n - g.half + 1)})."
            )
        return self.make("no_such_square", en, cs, token=token)

    def opponent_piece(self, start: int) -> Explanation:
        turn = self.board.turn
        p = self.board.piece_at(start)
        king = bool(p and p.king)
        en_p, cs_p, _ = self.mover_words(king)
        owner_en, owner_cs = ("Black", "černému") if turn else ("White", "bílému")
        side_en, side_cs = ("White", "bílý") if turn else ("Black", "černý")
        return self.make(
            "opponent_piece",
            f"The {en_p} on {self.sq(start)} is {owner_en}'s, and it is {side_en}'s turn: "
            f"move one of your own pieces.",
            f"{cs_p.capitalize()} na poli {self.sq(start)} patří {owner_cs}, ale na tahu je "
            f"{side_cs}: táhni vlastní figurou.",
            [start],
        )

    # -- the player's own piece ----------------------------------------------------------------
    def explain_own_piece(self) -> Explanation:
        squares = self.squares
        mover = self.mover
        g = self.board.geo
        bits = [g.bit_of[s] for s in squares]
        if len(squares) == 2 and self.quiet_shape(bits[0], bits[1]):
            return self.capture_compulsory()
        if len(squares) == 2 and not self.written_capture:
            exp = self.blocked_by_own(bits[0], bits[1])
            if exp is not None:
                return exp
        found = mover.search(bits, relaxed=True)
        legal_routes = [m for m in found if m.violation is None]
        if legal_routes:
            return self.explain_legal_route(legal_routes) or self.fallback()
        if found:
            best = min(
                found,
                key=lambda m: (
                    len(m.leaps),
                    _VIOLATION_ORDER.index(m.violation.violation) if m.violation else 99,
                ),
            )
            lp = best.violation
            assert lp is not None
            node = _Node(mover.start_bit, 0, False)
            for prev in best.leaps:
                if prev is lp:
                    break
                node = mover.apply(node, prev)
            return self.explain_leap(lp, node)
        if len(squares) == 2:
            return self.diagnose_step(_Node(bits[0], 0, False), bits[1], first=True) or (
                self.fallback()
            )
        return self.walk_written(bits)

    def quiet_shape(self, a: int, b: int) -> bool:
        """Could the piece move from bit ``a`` to bit ``b`` as a quiet move, captures aside?"""
        mover = self.mover
        for d, ray in enumerate(self.board.geo.rays[a]):
            if b not in ray:
                continue
            k = ray.index(b)
            if any(mover.occ >> x & 1 for x in ray[: k + 1]):
                return False
            return mover.king or (k == 0 and d in mover.fwd)
        return False

    def blocked_by_own(self, a: int, b: int) -> Explanation | None:
        """A quiet move (written with ``-``) whose line is blocked first by the player's own piece:
        the way is blocked, rather than an attempt to jump that piece."""
        mover = self.mover
        sq = self.board.geo.square_of
        for ray in self.board.geo.rays[a]:
            if b not in ray:
                continue
            between = [x for x in ray[: ray.index(b)] if mover.occ >> x & 1]
            if not between or not mover.own >> between[0] & 1:
                return None
            if not mover.king:
                return self.man_too_far(sq[a], sq[b], capture=False)
            return self.path_blocked(sq[a], sq[b], sq[between[0]])
        return None

    def capture_compulsory(self) -> Explanation:
        caps = [m for m in self.legal if m.captured]
        starts = sorted({m.start for m in caps})
        en_l, cs_l = [], []
        for s in starts:
            king = bool(self.board.kings >> self.board.geo.bit_of[s] & 1)
            en_l.append(f"the {'king' if king else 'man'} on {self.sq(s)}")
            cs_l.append(f"{'dámou' if king else 'kamenem'} na poli {self.sq(s)}")
        example = move_text(self.board, caps[0]) if caps else ""
        return self.make(
            "capture_compulsory",
            f"Capturing is compulsory, so {self.text} is not allowed: you must capture with "
            f"{_join(en_l, 'or')} (for example {example}).",
            f"Braní je povinné, a proto tah {self.text} není dovolen: musíš brát "
            f"{_join(cs_l, 'nebo')} (například {example}).",
            [self.squares[0], *starts],
            capturers=starts,
            example=example,
        )

    # -- a route the leaps allow, forbidden by a rule about the whole capture ------------------
    def explain_legal_route(self, routes: list[_Match]) -> Explanation | None:
        board = self.board
        mover = self.mover
        start = self.squares[0]
        caps = [m for m in self.legal if m.captured]
        top = max((len(m.captured) for m in caps), default=0)
        # Czech: a man capturing while a king can capture (art. 4.14)
        if board.variant.king_priority and not mover.king:
            king_starts = sorted(
                {m.start for m in caps if board.kings >> board.geo.bit_of[m.start] & 1}
            )
            if king_starts:
                names = [self.sq(s) for s in king_starts]
                return self.make(
                    "king_priority",
                    f"A king must capture first: when a king and a man can both capture, the "
                    f"king has priority, so capture with the king on {_join(names, 'or')}, not "
                    f"with the man on {self.sq(start)}.",
                    f"Dáma má při braní přednost: mohou-li brát dáma i kámen, musí brát dáma. "
                    f"Ber tedy dámou na poli {_join(names, 'nebo')}, ne kamenem na poli "
                    f"{self.sq(start)}.",
                    [start, *king_starts],
                    kings=king_starts,
                )
        complete = [m for m in routes if not mover.can_continue(m.node)]
        majority = board.variant.majority_rule and bool(caps)
        taken = max(m.captures for m in (complete or routes))
        if majority and mover.best_capture() < top:
            return self.majority(top, taken, caps)
        if not complete:
            return self.not_finished(min(routes, key=lambda m: len(m.leaps)))
        for m in complete:
            exp = self.king_landing(m, top if majority else 0)
            if exp is not None:
                return exp
        if majority and taken < top:
            return self.majority(top, taken, caps)
        return None

    def majority(self, top: int, taken: int, caps: list[Move]) -> Explanation:
        best = [m for m in caps if len(m.captured) == top]
        example = move_text(self.board, best[0])
        starts = sorted({m.start for m in best})
        return self.make(
            "majority",
            f"You must take the most pieces: {top} are possible (for example {example}), this "
            f"capture takes {taken}.",
            f"Platí pravidlo většiny: musíš sebrat co nejvíc figur. Lze sebrat až "
            f"{_pieces_cs(top)} (například {example}), tímto braním bereš jen {taken}.",
            [self.squares[0], *starts],
            possible=top,
            taken=taken,
            example=example,
        )

    def not_finished(self, m: _Match) -> Explanation:
        mover = self.mover
        more = sorted({self.board.geo.square_of[lp.over] for lp in mover.can_continue(m.node)})
        end = self.board.geo.square_of[m.node.cur]
        names = [self.sq(s) for s in more]
        en_p, cs_p, _ = self.mover_words(mover.king)
        return self.make(
            "capture_not_finished",
            f"The capture is not finished: from {self.sq(end)} the {en_p} can still jump the "
            f"piece on {_join(names, 'or')}, and a capture must go on while it can.",
            f"Braní není dokončené: {cs_p} může z pole {self.sq(end)} ještě přeskočit figuru na "
            f"poli {_join(names, 'nebo')}. Braní musí pokračovat, dokud to jde.",
            [end, *more],
            king=mover.king,
            still_jumpable=more,
        )

    def king_landing(self, m: _Match, top: int = 0) -> Explanation | None:
        mover = self.mover
        if not mover.king or not m.leaps:
            return None
        last = m.leaps[-1]
        node = _Node(mover.start_bit, 0, False)
        for lp in m.leaps[:-1]:
            node = mover.apply(node, lp)
        g = self.board.geo
        better = [
            lp.land
            for lp in mover.can_continue(node)
            if lp.over == last.over
            and lp.land != last.land
            and mover.can_continue(mover.apply(node, lp))
        ]
        if better and top:
            # majority rule: only the landings from which the most pieces can still be taken
            need = top - len(m.leaps)
            better = [
                b
                for b in better
                if mover.best_capture(mover.apply(node, _Leap(node.cur, b, last.over))) >= need
            ]
        if not better:
            return None
        good = sorted(g.square_of[b] for b in better)
        names = [self.sq(s) for s in good]
        land, over = g.square_of[last.land], g.square_of[last.over]
        en = (
            f"The king must land where it can capture again: after jumping the piece on "
            f"{self.sq(over)} it has to land on {_join(names, 'or')}, not on {self.sq(land)}."
        )
        cs = (
            f"Dáma musí doskočit na pole, ze kterého může brát dál: po přeskočení figury na poli "
            f"{self.sq(over)} musí dopadnout na pole {_join(names, 'nebo')}, ne na pole "
            f"{self.sq(land)}."
        )
        if self.board.variant.majority_rule:
            en += " Landing there takes more pieces, and the majority rule requires it."
            cs += " Tak sebere víc figur, což pravidlo většiny vyžaduje."
        return self.make(
            "king_landing", en, cs, [land, over, *good], king=True, landings=good, jumped=over
        )

    # -- a leap that breaks a rule ---------------------------------------------------------------
    def explain_leap(self, lp: _Leap, node: _Node) -> Explanation:
        g = self.board.geo
        sq = g.square_of
        frm, land = sq[lp.frm], sq[lp.land]
        over = sq[lp.over] if lp.over >= 0 else 0
        king = self.mover.king
        code = lp.violation
        a, b = self.sq(frm), self.sq(land)
        if code == "not_yet_king":
            return self.make(
                code,
                f"A man that reaches the far row during a capture is not a king yet: it is "
                f"crowned only when its move ends there, and acts as a king from its next move. "
                f"So it cannot go on from {a} to {b} like a king.",
                f"Kámen, který při braní dojde na poslední řadu, ještě není dámou: dámou se stane, "
                f"až když na ní tah skončí, a jako dáma smí hrát až v příštím tahu. Z pole {a} "
                f"proto nemůže pokračovat na pole {b} jako dáma.",
                [frm, land],
            )
        if code == "man_capture_backward":
            return self.make(
                code,
                f"In Czech draughts a man may not capture backward: the man on {a} cannot jump "
                f"the piece on {self.sq(over)} to {b}.",
                f"V české dámě kámen nesmí brát dozadu: kámen z pole {a} nemůže přeskočit figuru "
                f"na poli {self.sq(over)} a dopadnout na pole {b}.",
                [frm, over, land],
            )
        if code == "already_jumped":
            o = self.sq(over)
            return self.make(
                code,
                f"The piece on {o} was already jumped in this capture: a piece can be jumped "
                f"only once, and it stays on the board, blocking the way, until the whole "
                f"capture ends.",
                f"Figura na poli {o} už byla v tomto braní přeskočena: každou figuru lze "
                f"přeskočit jen jednou a z desky se odstraňuje až po dokončení celého braní, do "
                f"té doby tedy stojí v cestě.",
                [over, frm, land],
                king=king,
            )
        if code == "own_piece":
            o = self.sq(over)
            return self.make(
                code,
                f"You cannot jump your own piece: the piece on {o} is yours, so there is no "
                f"capture from {a} to {b}.",
                f"Vlastní figury přeskakovat nelze: na poli {o} stojí tvoje figura, takže skok z "
                f"pole {a} na pole {b} není možný.",
                [over, frm, land],
                king=king,
            )
        if code == "two_in_a_row":
            o, o2 = self.sq(over), self.sq(sq[lp.extra])
            return self.make(
                code,
                f"Two pieces standing one right behind the other cannot be jumped: the pieces on "
                f"{o} and {o2} have no empty square between them.",
                f"Dvě figury stojící těsně za sebou přeskočit nelze: mezi figurami na polích {o} "
                f"a {o2} není volné pole.",
                [over, sq[lp.extra], frm, land],
                king=king,
            )
        if code == "landing_occupied":
            o = self.sq(over)
            return self.make(
                code,
                f"The piece on {o} cannot be jumped to {b}: the square {b} is not empty, and a "
                f"jump must land on an empty square.",
                f"Figuru na poli {o} nelze přeskočit na pole {b}, protože pole {b} není volné; "
                f"skok musí skončit na volném poli.",
                [land, over, frm],
                king=king,
            )
        if code == "man_too_far":
            return self.man_too_far(frm, land, capture=True)
        return self.nothing_to_capture(frm, land, king)

    def man_too_far(self, frm: int, land: int, capture: bool) -> Explanation:
        a, b = self.sq(frm), self.sq(land)
        if capture:
            en = (
                f"A man can only jump an opponent's piece standing right next to it, and lands "
                f"on the square just behind it: {a} to {b} is too far for a man."
            )
            cs = (
                f"Kámen smí přeskočit jen soupeřovu figuru, která stojí hned vedle něj, a dopadne "
                f"na pole hned za ní: z pole {a} na pole {b} je to pro kámen příliš daleko."
            )
        else:
            en = (
                f"A man moves only one square diagonally forward; only a king moves further. "
                f"{a} to {b} is more than one square."
            )
            cs = (
                f"Kámen táhne jen o jedno pole šikmo dopředu, dál může táhnout jen dáma. Z pole "
                f"{a} na pole {b} je to víc než jedno pole."
            )
        return self.make("man_too_far", en, cs, [frm, land], capture=capture)

    def nothing_to_capture(self, frm: int, land: int, king: bool) -> Explanation:
        a, b = self.sq(frm), self.sq(land)
        return self.make(
            "nothing_to_capture",
            f"There is no opponent's piece to jump on the way from {a} to {b}: in a capture "
            f"every leap must jump over an opponent's piece.",
            f"Na cestě z pole {a} na pole {b} není co přeskočit: při braní musí každý skok "
            f"přeskočit soupeřovu figuru.",
            [frm, land],
            king=king,
        )

    # -- one written step, judged on its own ------------------------------------------------------
    def diagnose_step(self, node: _Node, target: int, first: bool) -> Explanation | None:
        mover = self.mover
        g = self.board.geo
        sq = g.square_of
        relaxed = [lp for lp in mover.leaps(node, True, first) if lp.land == target]
        rule_breaking = [lp for lp in relaxed if lp.violation]
        if rule_breaking:
            lp = min(rule_breaking, key=lambda x: _VIOLATION_ORDER.index(x.violation))
            return self.explain_leap(lp, node)
        cur = node.cur
        a, b = sq[cur], sq[target]
        king = mover.king
        if cur == target:
            if first:
                return self.make(
                    "same_square",
                    f"A move must go to another square: {self.text} leaves the piece on "
                    f"{self.sq(a)}.",
                    f"Tah musí vést na jiné pole: {self.text} nechává figuru stát na poli "
                    f"{self.sq(a)}.",
                    [a],
                    king=king,
                )
            return self.nothing_to_capture(a, b, king)
        direction, k = -1, 0
        for d, ray in enumerate(g.rays[cur]):
            if target in ray:
                direction, k = d, ray.index(target) + 1
        if direction < 0:
            if first and self.written_capture and self.piece_can_capture():
                return self.no_capture_route(a, b)
            return self.make(
                "not_diagonal",
                f"Pieces move only along the diagonals: {self.sq(a)} and {self.sq(b)} are not on "
                f"one diagonal.",
                f"Figury se pohybují jen po diagonálách: pole {self.sq(a)} a {self.sq(b)} neleží "
                f"na jedné diagonále.",
                [a, b],
                king=king,
            )
        ray = g.rays[cur][direction]
        between = [x for x in ray[: k - 1] if mover.occ >> x & 1]
        target_busy = bool(mover.occ >> target & 1)
        if not king:
            if first and direction not in mover.fwd:
                if between and direction not in mover.cap_dirs and mover.opp >> ray[0] & 1:
                    return self.make(
                        "man_capture_backward",
                        f"In Czech draughts a man may not capture backward: the man on "
                        f"{self.sq(a)} cannot jump back towards {self.sq(b)}.",
                        f"V české dámě kámen nesmí brát dozadu: kámen z pole {self.sq(a)} "
                        f"nemůže skákat dozadu směrem k poli {self.sq(b)}.",
                        [a, sq[ray[0]], b],
                    )
                return self.make(
                    "man_backward",
                    f"A man moves only forward: {self.sq(a)} to {self.sq(b)} goes backward. Only "
                    f"a king moves backward.",
                    f"Kámen táhne jen dopředu: tah z pole {self.sq(a)} na pole {self.sq(b)} by "
                    f"vedl dozadu. Dozadu smí táhnout jen dáma.",
                    [a, b],
                )
            if first and k == 1 and target_busy:
                return self.square_occupied(a, b, king)
            if not first and node.crowned and (k > 2 or direction not in mover.cap_dirs):
                return self.explain_leap(_Leap(cur, target, -1, "not_yet_king"), node)
            if not between:
                if first and not (k == 2 and self.written_capture):
                    return self.man_too_far(a, b, capture=False)
                return self.nothing_to_capture(a, b, king)
            return self.man_too_far(a, b, capture=True)
        if not between:
            if target_busy:
                return self.square_occupied(a, b, king)
            return self.nothing_to_capture(a, b, king)
        first_piece = between[0]
        if node.jumped >> first_piece & 1:
            lp = _Leap(cur, target, first_piece, "already_jumped")
            return self.explain_leap(lp, node)
        if mover.own >> first_piece & 1:
            return self.explain_leap(_Leap(cur, target, first_piece, "own_piece"), node)
        i0 = ray.index(first_piece)
        if len(between) >= 2 and ray[i0 + 1] == between[1]:
            lp = _Leap(cur, target, first_piece, "two_in_a_row", between[1])
            return self.explain_leap(lp, node)
        if len(between) == 1 and target_busy:
            return self.explain_leap(_Leap(cur, target, first_piece, "landing_occupied"), node)
        blocker = between[1] if len(between) >= 2 else first_piece
        return self.path_blocked(a, b, sq[blocker])

    def path_blocked(self, a: int, b: int, blocker: int) -> Explanation:
        return self.make(
            "path_blocked",
            f"The king cannot get from {self.sq(a)} to {self.sq(b)}: the piece on "
            f"{self.sq(blocker)} stands in the way. A king moves only over empty squares; in a "
            f"capture it jumps one piece at a time and must land before jumping the next.",
            f"Dáma se z pole {self.sq(a)} na pole {self.sq(b)} nedostane: v cestě stojí figura "
            f"na poli {self.sq(blocker)}. Dáma může táhnout jen přes volná pole; při braní "
            f"přeskočí vždy jen jednu figuru a teprve po dopadu může skákat dál.",
            [a, b, blocker],
            king=True,
        )

    def no_capture_route(self, a: int, b: int) -> Explanation:
        caps = [m for m in self.legal if m.start == a and m.captured]
        en_p, cs_p, _ = self.mover_words(self.mover.king)
        if caps:
            moves = self.move_list(caps)
            en_more = f"Its captures here: {moves}."
            cs_more = f"Tato figura může brát takto: {moves}."
        else:
            en_more = "It has no legal capture here."
            cs_more = "Tato figura teď nemá žádné povolené braní."
        return self.make(
            "no_capture_route",
            f"No capture of the {en_p} on {self.sq(a)} ends on {self.sq(b)}: there is no chain "
            f"of jumps from {self.sq(a)} to {self.sq(b)}. {en_more}",
            f"Žádné braní figurou na poli {self.sq(a)} nekončí na poli {self.sq(b)}: z pole "
            f"{self.sq(a)} na pole {self.sq(b)} nevede žádná řada skoků. {cs_more}",
            [a, b],
            king=self.mover.king,
            captures=[move_text(self.board, m) for m in caps],
        )

    def square_occupied(self, a: int, b: int, king: bool) -> Explanation:
        en_p, cs_p = self.piece_words(b)
        return self.make(
            "square_occupied",
            f"The square {self.sq(b)} is occupied by a {en_p}: a piece can move only to an empty "
            f"square.",
            f"Pole {self.sq(b)} je obsazené, stojí na něm {cs_p}; táhnout lze jen na volné pole.",
            [b, a],
            king=king,
        )

    def piece_can_capture(self) -> bool:
        return bool(self.mover.leaps(_Node(self.mover.start_bit, 0, False), False, True))

    def walk_written(self, bits: list[int]) -> Explanation:
        """Follow a written route (start, landings..., end) leap by leap; explain the first
        leap that the rules do not allow."""
        mover = self.mover
        node = _Node(bits[0], 0, False)
        for i, target in enumerate(bits[1:]):
            ok = [lp for lp in mover.leaps(node, False, i == 0) if lp.land == target]
            if ok:
                node = mover.apply(node, ok[0])
                continue
            if i == 0 and self.quiet_shape(bits[0], target):
                if not self.written_capture:
                    break  # a quiet step followed by more squares: not a route at all
                sq = self.board.geo.square_of
                return self.nothing_to_capture(sq[bits[0]], sq[target], mover.king)
            exp = self.diagnose_step(node, target, first=i == 0)
            return exp if exp is not None else self.fallback()
        return self.fallback()

    def fallback(self) -> Explanation:
        start = self.squares[0]
        mine = [m for m in self.legal if m.start == start]
        en_p, cs_p, _ = self.mover_words(self.mover.king)
        s = self.sq(start)
        if mine:
            moves = self.move_list(mine)
            en = f"The {en_p} on {s} has no move {self.text}. Its legal moves here: {moves}."
            cs = f"{cs_p.capitalize()} na poli {s} nemá tah {self.text}. Může táhnout: {moves}."
        else:
            moves = self.move_list(self.legal)
            en = (
                f"The {en_p} on {s} has no legal move here, so {self.text} is not possible. "
                f"Legal moves: {moves or 'none'}."
            )
            cs = (
                f"{cs_p.capitalize()} na poli {s} teď nemá žádný povolený tah, takže tah "
                f"{self.text} zahrát nelze. Povolené tahy: {moves or 'žádné'}."
            )
        return self.make(
            "no_such_move",
            en,
            cs,
            [start],
            king=self.mover.king,
            legal=[move_text(self.board, m) for m in (mine or self.legal)],
        )


def explain_illegal(board: BaseBoard, text: str) -> Explanation | None:
    """Why ``text`` is not a legal move on ``board``, or None when it is legal or ambiguous.

    ``text`` is read like :meth:`Board.parse_move <dama.Board.parse_move>` reads it: ``32-28``, ``28x19``, the
    full route ``46x37x48x25``, or algebraic ``c3-d4`` on 8x8. For a short text that matches
    several legal moves the answer is None too (it breaks no rule; ``parse_move`` raises
    :class:`~dama.AmbiguousMoveError` listing the routes).
    """
    return _Explainer(board, text).explain()
