"""Mining, the generator: the positions puzzles are looked for in.

* :func:`play_game`: a seeded self-play game of a cheap player (random among the legal moves,
  often choosing by a 1-2 ply material look-ahead, :func:`choose_move`), so that the games hold
  real blunders and real combinations;
* :func:`engine_game`: a game of the playing engine against itself (natural positions), and the
  tempting other moves a player could have made in them (:func:`tempting_moves`);
* :func:`pdn_positions`: the positions of the games of a PDN text;
* :func:`random_capture_positions`: random placements where a capture is due (for the capture
  rules that games rarely show);
* :data:`SHOT_SETUPS`: cheap looks at a position for where a rare shot can start.

:func:`candidate_positions` gives them in the order :func:`dama.mine.mine` looks at them. A
position is ``(white, black, kings, white_to_move)``, the raw key of :meth:`dama.Board.key`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator

from .._core import Core, RawMove, core
from ..baseboard import Move
from ..board import Board
from ..pdn import Game, GameError, read_games
from ..solve import material_search
from ..variants import Variant, find_variant
from .tag import is_turkish_strike

Position = tuple[int, int, int, bool]


def board_at(variant: Variant, pos: Position) -> Board:
    """The board of ``variant`` at the raw position ``pos``, with no moves behind it."""
    b = Board(variant)
    b.white, b.black, b.kings, b.turn = pos
    b.clear_stack()
    return b


def material_balance(pos: Position) -> int:
    """The side to move's material less the opponent's, in men (a king counts two)."""
    w, b, k, t = pos
    own, opp = (w, b) if t else (b, w)
    return own.bit_count() + 2 * (own & k).bit_count() - opp.bit_count() - 2 * (opp & k).bit_count()


def move_of(b: Board, m: RawMove) -> Move:
    """The legal move of ``b`` that the generator's raw move ``m`` is."""
    g = b.geo
    for mv in b.legal_moves:
        cap = 0
        for sq in mv.captured:
            cap |= 1 << g.bit_of[sq]
        if (1 << g.bit_of[mv.start], 1 << g.bit_of[mv.end], cap) == m:
            return mv
    raise ValueError("not a legal move")  # pragma: no cover - moves come from the generator


def choose_move(c: Core, pos: Position, rng: random.Random, skill: float = 0.6) -> RawMove | None:
    """The cheap player: with probability ``skill`` the best move by a 2-ply material look-ahead
    (ties broken at random), else a random move, larger captures preferred."""
    moves = c.moves(*pos)
    if not moves:
        return None
    if len(moves) == 1:
        return moves[0]
    w, b, k, t = pos
    if rng.random() < skill:
        depth = 1 if rng.random() < 0.5 else 2
        scored = [
            (-material_search(c, *c.make(w, b, k, t, m), not t, depth - 1), rng.random(), m)
            for m in moves
        ]
        return max(scored)[2]
    weights = [1 + 3 * m[2].bit_count() for m in moves]
    return rng.choices(moves, weights)[0]


def play_game(
    variant: str | Variant, rng: random.Random, max_plies: int = 160, skill: float = 0.6
) -> list[Position]:
    """The positions (before each move) of one self-play game, seeded by ``rng``; the game stops
    when a side cannot move or after ``max_plies``."""
    v = find_variant(variant)
    c = core(v)
    b = Board(v)
    pos: Position = b.key()
    out: list[Position] = []
    for _ in range(max_plies):
        m = choose_move(c, pos, rng, skill)
        out.append(pos)
        if m is None:
            break
        w, bl, k = c.make(*pos, m)
        pos = (w, bl, k, not pos[3])
    return out


#: random safe opening plies of the games mined for the corpus and by the workers (see
#: :func:`engine_game`)
VARIED = 4

#: tempting other moves examined in each position of a natural game mined for the corpus and by
#: the workers (see :func:`tempting_moves`)
SIDELINES = 4


def varied_label(varied: int) -> str:
    """The part of a mined puzzle's source naming its games' random opening plies (none for the
    two of the first corpus).

    >>> varied_label(2), varied_label(4)
    ('', ' varied 4')
    """
    return "" if varied == 2 else f" varied {varied}"


def engine_game(
    variant: str | Variant,
    seed: int,
    level: int = 4,
    max_plies: int = 160,
    nodes: int | None = None,
    varied: int = 2,
) -> list[Position]:
    """The positions (before each move) of a game :mod:`dama.search` plays against itself at
    ``level`` (>= 4 gives natural positions: both sides play sound moves, and a mistake is a
    real one), from one of the balanced openings :data:`dama.match.OPENINGS` picked by ``seed``,
    followed by ``varied`` plies chosen at random among moves a 2-ply look-ahead finds safe, so
    that the openings vary (two give about 600 different starts, which a few thousand games
    exhaust: the engine's own choices vary little; four give about 30,000). ``nodes`` bounds
    each move's search (faster, weaker: more mistakes to punish).
    """
    from ..match import OPENINGS
    from ..search import LEVELS, best_move, search

    v = find_variant(variant)
    rng = random.Random(seed)
    c = core(v)
    b = Board(v)
    out: list[Position] = []
    for route in OPENINGS[v.name][rng.randrange(len(OPENINGS[v.name]))]:
        out.append(b.key())
        b.push(b.parse_move(route))
    for _ in range(varied):  # varied plies, among the moves a short look-ahead finds safe
        pos = b.key()
        moves = c.moves(*pos)
        if not moves:
            return out
        safe = [m for m in moves if -material_search(c, *c.make(*pos, m), not pos[3], 1) >= 0]
        out.append(pos)
        b.push(move_of(b, rng.choice(safe or moves)))
    lv = LEVELS[level]
    while len(out) < max_plies:
        out.append(b.key())
        if b.outcome() is not None:
            break
        if nodes is not None:
            r = search(b, depth=lv.depth, nodes=nodes, seed=rng.randrange(1 << 30))
        else:
            r = best_move(b, level, seed=rng.randrange(1 << 30))
        b.push(r.move)
    return out


def tempting_moves(
    c: Core, pos: Position, played: Position | None, limit: int, rng: random.Random
) -> list[tuple[RawMove, Position]]:
    """Up to ``limit`` moves of the side to move in ``pos``, other than the one that led to
    ``played``, that give nothing away at a glance (after them the opponent's pending captures
    win no material), with the positions they lead to, in random order.

    These are the mistakes a player could make in a game's position: a move that looks safe and
    allows a shot is the classical puzzle (the opponent's last move allowed it). Mining them as
    well as the moves the engine played finds several times more puzzles per game played.
    """
    w, b, k, t = pos
    base = material_balance(pos)
    out = []
    for m in c.moves(w, b, k, t):
        after = (*c.make(w, b, k, t, m), not t)
        if after == played:
            continue
        if material_search(c, *after, 0) + base <= 0:
            out.append((m, after))
    rng.shuffle(out)
    return out[:limit]


def _pdn_part(
    text: str, v: Variant, part: tuple[int, int]
) -> Iterator[tuple[int, Game | GameError]]:
    """The entries ``i`` (from 1) of a PDN text with ``(i - 1) % n == k`` for ``part`` ``(k, n)``."""
    k, n = part
    for gi, game in enumerate(read_games(text, default_variant=v), 1):
        if (gi - 1) % n == k:
            yield gi, game


def pdn_positions(
    text: str, variant: str | Variant, part: tuple[int, int] = (0, 1)
) -> Iterator[tuple[str, Position]]:
    """(source label, position) for the position before every move of the main line of every
    game of ``variant`` in a PDN text (read by :func:`dama.pdn.read_games`; entries that are not
    readable games of the variant are skipped). ``part`` ``(k, n)``: only the entries ``i``
    (from 1) with ``(i - 1) % n == k``, so that ``n`` workers share a file."""
    v = find_variant(variant)
    for gi, game in _pdn_part(text, v, part):
        if isinstance(game, GameError) or game.variant != v:
            continue
        b = game.board()
        for node in game.moves:
            yield (f"pdn game {gi} ply {b.ply}", b.key())
            assert node.move is not None  # replayed by the reader
            b.push(node.move)


def pdn_games(
    text: str, variant: str | Variant, part: tuple[int, int] = (0, 1)
) -> tuple[int, list[str]]:
    """How many readable games of ``variant`` the entries of ``part`` of a PDN text hold (those
    :func:`pdn_positions` mines) and why the first three others cannot be mined."""
    v = find_variant(variant)
    games = 0
    problems: list[str] = []
    for gi, game in _pdn_part(text, v, part):
        if isinstance(game, GameError):
            problem = f"{gi}: {game.message}"
        elif game.variant != v:
            problem = f"{gi}: {game.variant.name}"
        else:
            games += 1
            continue
        if len(problems) < 3:
            problems.append(problem)
    return games, problems


#: a position mining looks at: its source label, the position, whether the side to move won the
#: game within the next few plies (a ``win`` puzzle candidate), and the position before it (the
#: opponent's move that led here; None at the start of a game)
Candidate = tuple[str, Position, bool, Position | None]


def candidate_positions(
    variant: str | Variant,
    seed: int = 0,
    *,
    positions: Iterable[tuple[str, Position]] | None = None,
    natural: bool = False,
    level: int = 4,
    nodes: int | None = None,
    first_game: int = 1,
    max_games: int = 100_000,
    varied: int = 2,
    sidelines: int = 0,
    sideline_plies: int = 1,
    after_game: Callable[[int], None] | None = None,
) -> Iterator[Candidate]:
    """The positions :func:`dama.mine.mine` looks at, in order: those of ``positions`` (e.g.
    :func:`pdn_positions`), else of games ``first_game`` to ``first_game + max_games - 1`` of
    ``seed``: self-play games (:func:`play_game`), or with ``natural`` the engine's games at
    ``level`` (:func:`engine_game`, ``nodes`` a move, ``varied`` random opening plies) and in each
    position up to ``sidelines`` tempting other moves (:func:`tempting_moves`; ``sideline_plies``
    2: and as many tempting replies to each). ``after_game(number)`` is called after each game's
    positions.
    """
    v = find_variant(variant)
    rng = random.Random(seed)
    c = core(v)
    if positions is not None:
        prev: tuple[str, Position] | None = None
        for label, pos in positions:
            game_label = label.rsplit(" ply ", 1)[0]
            yield (label, pos, False, prev[1] if prev and prev[0] == game_label else None)
            prev = (game_label, pos)
        return
    for gno in range(first_game, first_game + max_games):
        if natural:
            game = engine_game(v, seed * 1_000_003 + gno, level, 160, nodes, varied)
            source = f"engine {v.name} level {level}{varied_label(varied)} seed {seed}"
        else:
            game = play_game(v, rng, max_plies=200 if v.size == 10 else 160)
            source = f"selfplay {v.name} seed {seed}"
        won = not c.moves(*game[-1])
        for ply, p in enumerate(game):
            # the winner to move in the last moves of a decided game: a win puzzle candidate
            near_end = won and len(game) - ply <= 9 and (len(game) - ply) % 2 == 0
            yield (
                f"{source} game {gno} ply {ply}",
                p,
                near_end,
                game[ply - 1] if ply else None,
            )
            if sidelines and natural and ply + 1 < len(game):
                b = board_at(v, p)
                side_rng = random.Random(seed * 1_000_003 + gno + ply)
                for m, q in tempting_moves(c, p, game[ply + 1], sidelines, side_rng):
                    route = move_of(b, m).route_str()
                    yield (f"{source} game {gno} ply {ply + 1} after {route}", q, False, p)
                    if sideline_plies < 2:
                        continue
                    b2 = board_at(v, q)
                    for m2, q2 in tempting_moves(c, q, None, sidelines, side_rng):
                        route2 = move_of(b2, m2).route_str()
                        label = f"{source} game {gno} ply {ply + 2} after {route} {route2}"
                        yield (label, q2, False, q)
        if after_game is not None:
            after_game(gno)


def random_capture_positions(
    variant: str | Variant, rng: random.Random, pieces: tuple[int, int] = (3, 9)
) -> Iterator[Position]:
    """Endless random placements (kings likely) in which the side to move must capture: a source
    of capture puzzles for rules that self-play rarely shows, such as the Turkish strike."""
    v = find_variant(variant)
    b = Board(v)
    g = b.geo
    while True:
        squares = rng.sample(range(1, g.squares + 1), rng.randint(*pieces) + rng.randint(1, 3))
        n_own = rng.randint(1, 2)
        turn = rng.random() < 0.5
        w = bl = k = 0
        for i, sq in enumerate(squares):
            bit = 1 << g.bit_of[sq]
            mine_side = i < n_own
            white = mine_side == turn
            crown = g.white_crown if white else g.black_crown
            king = mine_side and rng.random() < 0.7 or bool(bit & crown) or rng.random() < 0.1
            if white:
                w |= bit
            else:
                bl |= bit
            if king:
                k |= bit
        pos = (w, bl, k, turn)
        if core(v).captures(*pos):
            yield pos


def turkish_setup(b: Board) -> bool:
    """Whether the side to move has a move after which a capture of the opponent is cut short by
    the Turkish rule (the pieces it jumps stay on the board until the capture ends): the position
    where a coup turc or a coup suisse can start. A cheap look, one ply and the replies, that
    mining for those rare shots uses to choose the positions worth proving.

    >>> turkish_setup(Board("international", "B:W35,38,39,40,K41,47,48,49,50:B1,2,4,13,15,24,25,31,36"))
    True
    >>> turkish_setup(Board("czech"))
    False
    """
    b = b.copy(stack=False)
    for m in b.legal_moves:
        b.push(m)
        try:
            if any(r.captured and is_turkish_strike(b, r) for r in b.legal_moves):
                return True
        finally:
            b.pop()
    return False


#: cheap looks at a position for where a rare shot can start (see :func:`mine`'s ``focus``)
SHOT_SETUPS: dict[str, Callable[[Board], bool]] = {
    "coup_turc": turkish_setup,
    "coup_suisse": turkish_setup,
}
