"""Named shots: the classical combinations of the literature, recognised from a solution line.

A shot is a small pure predicate over a :class:`Line`: the plies of a puzzle's main line, solver
first, then alternating, each with the move's start, end, captured pieces, route, the piece that
moved (man or king), whether it crowned, and the capture rules that shaped it (``turkish_strike``,
``majority``, ... as :func:`dama.mine.rule_motifs` names them). :func:`named_shots` collects the
names of a line for its variant; :data:`SHOTS` is the table (name, variants, predicate).

Each definition says where it comes from. The names are those of the French school, which named
most combinations (Goedmoed, *A course in international draughts*, 2008, ch. 2: "Most names were
invented by French players"), and of the Russian 64-square literature for the 8x8 games. A
definition here is the shape a program can check in a forced line: the books show the shot in a
typical position, we recognise its mechanism wherever it occurs.

>>> from dama import Board
>>> b = Board("czech", "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15")
>>> named_shots(Line.from_texts(b, ["22-17", "13x22", "25x18x11"]))
()
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .baseboard import Move
from .board import Board

__all__ = ["SHOTS", "Line", "Ply", "Shot", "named_shots", "shot_names"]

ALL_VARIANTS = frozenset({"international", "czech", "brazilian"})
TEN = frozenset({"international"})
MAJORITY = frozenset({"international", "brazilian"})


@dataclass(frozen=True, slots=True)
class Ply:
    """One move of a line: who played it and what it did."""

    solver: bool
    start: int
    end: int
    captured: tuple[int, ...]
    route: tuple[int, ...]
    king: bool
    crowns: bool
    rules: frozenset[str] = frozenset()

    @property
    def is_capture(self) -> bool:
        return bool(self.captured)


@dataclass(frozen=True, slots=True)
class Line:
    """A puzzle's main line as plies, with the variant and the board geometry's size."""

    variant: str
    size: int
    plies: tuple[Ply, ...]
    #: the side to move at the end has pieces but no legal move
    locked: bool = False

    @classmethod
    def from_moves(
        cls,
        board: Board,
        moves: Iterable[Move],
        rules: Callable[[Board, Move], set[str]] | None = None,
    ) -> Line:
        """The line of ``moves`` played from ``board`` (``rules(board, move)`` names the capture
        rules that shaped each move; :func:`dama.mine.rule_motifs` does)."""
        b = board.copy(stack=False)
        out = []
        for i, m in enumerate(moves):
            king = bool(b.kings & (1 << b.geo.bit_of[m.start]))
            out.append(
                Ply(
                    solver=i % 2 == 0,
                    start=m.start,
                    end=m.end,
                    captured=tuple(m.captured),
                    route=tuple(m.routes[0]),
                    king=king,
                    crowns=m.crowns,
                    rules=frozenset(rules(b, m))
                    if rules is not None and m.captured
                    else frozenset(),
                )
            )
            b.push(m)
        own = b.white if b.turn else b.black
        locked = bool(own) and not b.legal_moves
        return cls(board.variant.name, board.geo.size, tuple(out), locked)

    @classmethod
    def from_texts(cls, board: Board, texts: Iterable[str]) -> Line:
        """The line of move texts ``texts`` (any route of each move) from ``board``."""
        b = board.copy(stack=False)
        moves = []
        for t in texts:
            m = b.parse_move(t)
            moves.append(m)
            b.push(m)
        return cls.from_moves(board, moves)

    @property
    def solver_plies(self) -> tuple[Ply, ...]:
        return self.plies[0::2]

    @property
    def defender_plies(self) -> tuple[Ply, ...]:
        return self.plies[1::2]

    def solver_captures(self) -> list[Ply]:
        return [p for p in self.solver_plies if p.is_capture]

    def defender_captures(self) -> list[Ply]:
        return [p for p in self.defender_plies if p.is_capture]

    def final_capture(self) -> Ply | None:
        caps = self.solver_captures()
        return caps[-1] if caps else None


def _direction(size: int, a: int, b: int) -> tuple[int, int]:
    half = size // 2
    ra, ia = divmod(a - 1, half)
    rb, ib = divmod(b - 1, half)
    ca = 2 * ia + 1 if ra % 2 == 0 else 2 * ia
    cb = 2 * ib + 1 if rb % 2 == 0 else 2 * ib
    return (rb > ra) - (rb < ra), (cb > ca) - (cb < ca)


# -- the predicates ------------------------------------------------------------------------------


def is_coup_turc(line: Line) -> bool:
    """Coup turc (Turkish strike, турецкий удар): the defender's capture is stopped by a piece it
    has already jumped (jumped pieces stay on the board until the capture ends, FMJD art. 4.11,
    CUD 2006 art. 4.10), and the piece stopped there is the first link of the solver's next
    capture.

    Sources: fenix64.com, "Шашечные термины" ("Турецкий удар — ударный ход, когда уже сбитая, но
    не снятая до окончания взятия шашка останавливает бьющую"); fr.wikipedia.org, "Coup suisse"
    (the Turkish strike takes the stopped piece as the first link of the shot).
    """
    p = line.plies
    for i in range(1, len(p) - 1, 2):
        d, s = p[i], p[i + 1]
        if d.is_capture and "turkish_strike" in d.rules and s.is_capture and s.captured[0] == d.end:
            return True
    return False


def is_coup_suisse(line: Line) -> bool:
    """Coup suisse: a defender king's capture is stopped by a piece it has just taken (it cannot
    take a piece twice), and the king is not taken as the first link of the solver's next capture
    (which would be the coup turc).

    Source: fr.wikipedia.org, "Coup suisse" (Doubovy 2019, p. 118: "Un pion allié, ne pouvant être
    pris deux fois, fait buter la dame adverse"; Stoep 2002, p. 190).
    """
    p = line.plies
    for i in range(1, len(p), 2):
        d = p[i]
        if d.king and d.is_capture and "turkish_strike" in d.rules:
            nxt = p[i + 1] if i + 1 < len(p) else None
            if nxt is None or not nxt.is_capture or nxt.captured[0] != d.end:
                return True
    return False


def is_coup_philippe(line: Line) -> bool:
    """Coup Philippe: first an exchange (a man offered and taken back, the *coup de mazette* that
    removes a defender man), then a direct shot: a further offer and the solver's man sweeping
    off three or more pieces.

    Sources: fr.wikipedia.org, "Coup Philippe" ("premièrement un coup de mazette ... La suite est un
    coup direct dont la rafle part du pion 38 ou du pion 40"); T. Goedmoed, *A course in
    international draughts* (2008), ch. 3 (the pattern 27-22 18x27 32x21 16x27 ... 38x16).
    """
    p = line.plies
    if len(p) < 5 or p[0].is_capture or not p[1].is_capture or not p[2].is_capture:
        return False
    last = line.final_capture()
    later_offer = any(d.is_capture for d in p[3::2])
    return later_offer and last is not None and not last.king and len(last.captured) >= 3


def is_coup_napoleon(line: Line) -> bool:
    """Coup Napoléon: after at least two offers, a man's capture of three or more pieces whose
    first three jumps zigzag (the bicorne: the path turns one way, then back).

    Source: fr.wikipedia.org, "Coup Napoléon" ("le chemin de rafle des trois premiers pions est
    toujours en zigzag"; basic pattern 29-23 18x29 28-22 17x28 26-21 16x27 31x4; Guinard, *Les
    Dames: le jeu des combinaisons*, 1984).
    """
    last = line.final_capture()
    if last is None or last.king or len(last.captured) < 3 or len(line.defender_captures()) < 2:
        return False
    r = last.route
    if len(r) < 4:
        return False
    d1, d2, d3 = (_direction(line.size, r[i], r[i + 1]) for i in range(3))
    return d1 != d2 and d1 == d3


def is_coup_raphael(line: Line) -> bool:
    """Coup Raphaël: two successive offers of two pieces each (two defender captures of two or
    more), which give the solver time to close in and make two successive captures.

    Source: fr.wikipedia.org, "Coup Raphaël" ("deux offres successives de deux pions permettent un
    collage spectaculaire"; Lanfrey: "se procurer un temps de repos en donnant 2 + 2 pions ce qui
    permet de coller et d'effectuer deux rafles successives").
    """
    big = [d for d in line.defender_captures() if len(d.captured) >= 2]
    return len(big) >= 2 and len(line.solver_captures()) >= 2


def is_coup_royal(line: Line) -> bool:
    """Coup royal: the defender is made to capture (the offer), and a solver man answers with a
    capture of five or more pieces (the classical 40x29x20x9x18x7).

    Source: fr.wikipedia.org, "Coup royal" ("l'offre de trois pions à l'adversaire par la prise
    (23x34), souvent majoritaire, puis la rafle ... 40x29x20x9x18x7"; Herman de Jongh,
    *Monografie van de Coup Royal*).
    """
    p = line.plies
    for i in range(2, len(p), 2):
        s = p[i]
        if s.is_capture and not s.king and len(s.captured) >= 5 and p[i - 1].is_capture:
            return True
    return False


def is_coup_de_la_bombe(line: Line) -> bool:
    """Coup de la bombe: a solver piece captures and stops; the defender, made to capture more
    elsewhere by the majority rule, cannot take it; then the same piece captures again (its
    capture "in two times").

    Source: fr.wikipedia.org, "Coup de la bombe" ("une pièce, stoppée durant la rafle qu'elle
    exécute, la reprend ... rendue possible par la règle dite de la prise majoritaire"; name by
    E. Leclercq, 1896).
    """
    p = line.plies
    for i in range(0, len(p) - 2, 2):
        s1, d, s2 = p[i], p[i + 1], p[i + 2]
        if (
            s1.is_capture
            and d.is_capture
            and s1.end not in d.captured
            and s2.is_capture
            and s2.start == s1.end
        ):
            return True
    return False


def is_double_deux(line: Line) -> bool:
    """Coup du double-deux: two successive captures of two pieces by the solver.

    Source: franco.wiki, "Coup du double-deux" ("deux rafles successives de deux pions permettent
    d'en gagner finalement un ou deux"; pattern 27-22 18x27 28-23 19x28 30x10 4x15 33x31).
    """
    caps = line.solver_captures()
    return any(
        len(a.captured) == 2 and len(b.captured) == 2 for a, b in zip(caps, caps[1:], strict=False)
    )


def is_coup_de_dame(line: Line) -> bool:
    """Giving the opponent a king (*coup de dame*): a defender man is let through to crown, and the
    solver then captures the new king.

    Source: T. Goedmoed, *A course in international draughts* (2008), ch. 15 "Giving your
    opponent a king"; Russian school: "отдача дамки" (kombinashki.ru, "Не пропустить в дамки").
    """
    p = line.plies
    for i in range(1, len(p), 2):
        if p[i].crowns:
            sq = p[i].end
            for j in range(i + 1, len(p)):
                q = p[j]
                if q.solver and sq in q.captured:
                    return True
                if not q.solver and q.start == sq:
                    sq = q.end
    return False


def is_breakthrough(line: Line) -> bool:
    """Breakthrough (percée, прорыв в дамки): the solver gives material and a solver man crowns.

    Source: kombinashki.ru, "Не пропустить в дамки" (combinations for and against the
    breakthrough); T. Goedmoed, *A course in international draughts* (2008), ch. 17 "The
    sacrifice".
    """
    return any(d.is_capture for d in line.defender_plies) and any(
        s.crowns for s in line.solver_plies
    )


def is_lock(line: Line) -> bool:
    """Lock (запирание): after an offer, the defender is left with pieces but no legal move, so
    the game is won without taking everything.

    Source: E. Tsukernik, *Антология шашечных комбинаций* (rus-checkers.narod.ru: a combination
    ends by a final strike, zugzwang, locking (запирание) or self-locking); T. Goedmoed, *A course
    in international draughts* (2008), ch. 27 "Locks".
    """
    return line.locked and any(d.is_capture for d in line.defender_plies)


def is_coup_de_repos(line: Line) -> bool:
    """Temps de repos (the free move): the solver makes a quiet move while a defender capture is
    already pending, the defender must take (not the piece just moved), and the solver's shot
    follows.

    Source: fr.wikipedia.org, "Coup royal" (the variant "exploitant un temps de repos": 27-22
    18x27 32x21 23x34 44-40 26x17 40x7); T. Goedmoed, *A course in international draughts*
    (2008), ch. 13 "The free move".
    """
    p = line.plies
    for i in range(0, len(p) - 2, 2):
        s, d, s2 = p[i], p[i + 1], p[i + 2]
        if (
            i > 0
            and not s.is_capture
            and d.is_capture
            and s.end not in d.captured
            and s2.is_capture
            and p[i - 1].is_capture
        ):
            return True
    return False


@dataclass(frozen=True, slots=True)
class Shot:
    """A named shot: its tag, the variants whose literature names it, its predicate."""

    name: str
    variants: frozenset[str]
    predicate: Callable[[Line], bool]


#: the named shots, most specific first (a line may carry several names)
SHOTS: tuple[Shot, ...] = (
    Shot("coup_royal", TEN, is_coup_royal),
    Shot("coup_napoleon", TEN, is_coup_napoleon),
    Shot("coup_raphael", TEN, is_coup_raphael),
    Shot("coup_philippe", TEN, is_coup_philippe),
    Shot("coup_de_la_bombe", MAJORITY, is_coup_de_la_bombe),
    Shot("coup_de_repos", TEN, is_coup_de_repos),
    Shot("coup_turc", ALL_VARIANTS, is_coup_turc),
    Shot("coup_suisse", ALL_VARIANTS, is_coup_suisse),
    Shot("double_deux", ALL_VARIANTS, is_double_deux),
    Shot("coup_de_dame", ALL_VARIANTS, is_coup_de_dame),
    Shot("breakthrough", ALL_VARIANTS, is_breakthrough),
    Shot("lock", ALL_VARIANTS, is_lock),
)


def shot_names(variant: str) -> tuple[str, ...]:
    """The shots named for ``variant``.

    >>> "coup_royal" in shot_names("international"), "coup_royal" in shot_names("czech")
    (True, False)
    """
    return tuple(s.name for s in SHOTS if variant in s.variants)


def named_shots(line: Line) -> tuple[str, ...]:
    """The names of the shots ``line`` shows, in :data:`SHOTS` order."""
    return tuple(s.name for s in SHOTS if line.variant in s.variants and s.predicate(line))
