"""Mining puzzles: generate positions, prove candidates, tag them, write PDN.

Separate steps, each usable alone (like lichess-puzzler's generator, tagger and writer):

1. **generate** (:mod:`dama.mine.generate`): the positions to look in
   (:func:`candidate_positions`): seeded self-play games (:func:`play_game`), the engine's
   games against itself and the tempting moves off them (:func:`engine_game`,
   :func:`tempting_moves`), the positions of PDN games (:func:`pdn_positions`), random
   placements (:func:`random_capture_positions`);
2. **verify** (:mod:`dama.mine.verify`): :func:`examine` proposes the candidate puzzles of a
   position (``capture``, ``gain:N``, ``win``) and keeps those proven unique, at the length of
   their shortest solution and without duals on the main line (:func:`is_dual_free`);
3. **tag** (:mod:`dama.mine.tag`): :func:`motifs` names the motifs of the solution line with
   small pure predicates, :func:`difficulty` rates it, :func:`mined_puzzle` makes the
   :class:`MinedPuzzle`;
4. **write** (:mod:`dama.mine.write`): :func:`puzzles_pdn` writes them as PDN positions with the
   tags ``Goal``, ``Horizon``, ``Solution``, ``Motifs``, ``Difficulty``, ``Source``;
   :func:`dama.pdn.read_tags` reads them back.

:func:`mine` runs the steps for a count of puzzles with a mix of goals (the site stores what it
yields); :func:`mine_rule_captures` finds capture puzzles shaped by one capture rule.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator

from .._core import core
from ..board import Board
from ..solve import Limits, material_search, solve
from ..variants import Variant, find_variant
from .generate import (
    SHOT_SETUPS,
    SIDELINES,
    VARIED,
    Candidate,
    Position,
    board_at,
    candidate_positions,
    choose_move,
    engine_game,
    material_balance,
    move_of,
    pdn_games,
    pdn_positions,
    play_game,
    random_capture_positions,
    tempting_moves,
    turkish_setup,
    varied_label,
)
from .tag import (
    COMMON_SHOTS,
    MOTIF_PREDICATES,
    RULE_MOTIFS,
    MinedPuzzle,
    SolutionLine,
    difficulty,
    is_turkish_strike,
    mined_puzzle,
    motif_blockade,
    motif_breakthrough,
    motif_crowning,
    motif_final_capture,
    motif_king_shot,
    motif_rules,
    motif_sacrifices,
    motif_shot,
    motifs,
    quality,
    rule_motifs,
)
from .verify import (
    ALLOWED_LIMITS,
    DEEP_LIMITS,
    DEEP_LOOK_AHEAD,
    LOOK_AHEAD,
    MAX_HORIZON,
    MINING_LIMITS,
    WIN_MOVES,
    MINING_LIMITS_10x10,
    examine,
    is_dual_free,
    main_line_duals,
    was_allowed,
)
from .write import puzzle_pdn, puzzles_pdn

__all__ = [
    "Candidate",
    "candidate_positions",
    "ALLOWED_LIMITS",
    "COMMON_SHOTS",
    "DEEP_LIMITS",
    "DEEP_LOOK_AHEAD",
    "DEFAULT_MIX",
    "LOOK_AHEAD",
    "MAX_HORIZON",
    "MINING_LIMITS",
    "MINING_LIMITS_10x10",
    "MOTIF_PREDICATES",
    "RULE_MOTIFS",
    "SHOT_SETUPS",
    "SIDELINES",
    "VARIED",
    "WIN_MOVES",
    "MinedPuzzle",
    "Position",
    "SolutionLine",
    "board_at",
    "choose_move",
    "difficulty",
    "engine_game",
    "examine",
    "is_dual_free",
    "is_turkish_strike",
    "main_line_duals",
    "material_balance",
    "mine",
    "mine_rule_captures",
    "mined_puzzle",
    "motif_blockade",
    "motif_breakthrough",
    "motif_crowning",
    "motif_final_capture",
    "motif_king_shot",
    "motif_rules",
    "motif_sacrifices",
    "motif_shot",
    "motifs",
    "move_of",
    "pdn_games",
    "pdn_positions",
    "play_game",
    "puzzle_pdn",
    "puzzles_pdn",
    "quality",
    "random_capture_positions",
    "rule_motifs",
    "tempting_moves",
    "turkish_setup",
    "varied_label",
    "was_allowed",
]


#: default share of each goal kind in :func:`mine`
DEFAULT_MIX = {"capture": 0.3, "gain": 0.55, "win": 0.15}


def mine(
    variant: str | Variant,
    count: int,
    seed: int = 0,
    *,
    mix: dict[str, float] | None = None,
    positions: Iterable[tuple[str, Position]] | None = None,
    limits: Limits = MINING_LIMITS,
    progress: Callable[[int, int, dict[str, int]], None] | None = None,
    max_games: int = 100_000,
    natural: bool = False,
    level: int = 4,
    nodes: int | None = None,
    first_game: int = 1,
    skip: Callable[[str, str], bool] | None = None,
    varied: int = 2,
    sidelines: int = 0,
    sideline_plies: int = 1,
    focus: Callable[[Board], bool] | None = None,
    deep: bool = False,
    min_length: int = 1,
) -> Iterator[MinedPuzzle]:
    """Yield ``count`` proven-unique puzzles of ``variant``, from seeded self-play games (or from
    ``positions``, e.g. :func:`pdn_positions`), with goal kinds in the proportions ``mix``.

    ``natural``: the games are played by :func:`engine_game` at ``level`` (``nodes`` per move,
    ``varied`` random opening plies), games ``first_game`` to ``first_game + max_games - 1`` of
    ``seed``, and a ``gain`` puzzle is
    kept only when the opponent's last move allowed it (:func:`was_allowed`); PDN ``positions``
    are held to the same rule when ``natural`` is set. ``sidelines``: in each position of a
    natural game, also up to that many other moves the side to move could have played
    (:func:`tempting_moves`) are examined for a shot they allow; such a puzzle's source names the
    move (``... ply 12 after 32-28``); ``sideline_plies`` 2: and from each of those, as many
    tempting replies (``... ply 13 after 32-28 19-23``: two plausible moves off the game, for the
    rarest shots). ``skip(fen, goal)`` is True for a puzzle already known
    (mining is resumable: known puzzles are not yielded again). ``focus(board)``: only the
    positions it accepts are examined (e.g. :data:`SHOT_SETUPS`, for a rare shot). ``deep``:
    candidates picked by :data:`DEEP_LOOK_AHEAD` and proven within :data:`DEEP_LIMITS` (for
    puzzles of 5 and more moves; far slower a puzzle). ``min_length``: gain puzzles of fewer
    solver moves are passed over before their proof (see :func:`examine`).

    ``progress(games, found, per_kind)`` is called after each game. Positions are never repeated.
    """
    v = find_variant(variant)
    mix = dict(DEFAULT_MIX if mix is None else mix)
    total = sum(mix.values()) or 1.0
    quota = {kind: max(1, round(count * share / total)) for kind, share in mix.items() if share > 0}
    while sum(quota.values()) > count and quota:
        biggest = max(quota, key=lambda q: quota[q])
        quota[biggest] -= 1
    got = dict.fromkeys(quota, 0)
    seen: set[Position] = set()
    lines: set[tuple[str, str, str]] = set()
    found = 0
    look_ahead = LOOK_AHEAD[v.size]
    if deep:
        look_ahead, limits = DEEP_LOOK_AHEAD[v.size], DEEP_LIMITS
    elif v.size == 10 and limits is MINING_LIMITS:
        # the 10x10 board: wider trees, so cheaper filters and smaller proofs per candidate
        limits = MINING_LIMITS_10x10

    c = core(v)

    def after_game(gno: int) -> None:
        if progress is not None:
            progress(gno, found, dict(got))

    stream = candidate_positions(
        v,
        seed,
        positions=positions,
        natural=natural,
        level=level,
        nodes=nodes,
        first_game=first_game,
        max_games=max_games,
        varied=varied,
        sidelines=sidelines,
        sideline_plies=sideline_plies,
        after_game=after_game,
    )
    for label, p, near_end, before in stream:
        if found >= count:
            return
        if p in seen:
            continue
        seen.add(p)
        open_kinds = [kk for kk, q in quota.items() if got[kk] < q]
        if not open_kinds:
            return
        if open_kinds == ["win"] and not near_end:
            continue
        if natural and "gain" in open_kinds:
            # a gain the opponent's last move allowed: the solver ends up ahead of where it stood
            # before that move (not the recapture of an exchange in progress)
            ahead = (
                before is not None
                and material_search(c, *p, look_ahead) + material_balance(before) >= 1
            )
            if not ahead:
                open_kinds = [kk for kk in open_kinds if kk != "gain"]
                if not open_kinds:
                    continue
        board = board_at(v, p)
        if focus is not None and not focus(board):
            continue
        for pz in examine(board, open_kinds, label, limits, look_ahead, near_end, min_length):
            kind = pz.goal.split(":")[0]
            if got.get(kind, 0) >= quota.get(kind, 0):
                continue
            # near duplicates (the same shot a ply later) teach nothing new
            same = (kind, pz.solution[0], pz.solution[-1])
            if same in lines:
                continue
            if skip is not None and skip(pz.fen, pz.goal):
                continue
            if natural and kind == "gain" and (before is None or not was_allowed(v, before, p, pz)):
                continue
            lines.add(same)
            got[kind] += 1
            found += 1
            yield pz
            if found >= count:
                return


def mine_rule_captures(
    variant: str | Variant, count: int, motif: str, seed: int = 0, max_tries: int = 200_000
) -> Iterator[MinedPuzzle]:
    """``capture`` puzzles whose one legal capture is shaped by the capture rule ``motif``
    (``turkish_strike``, ``majority``, ``king_priority``, ``no_crown_in_passing``), from random
    placements."""
    v = find_variant(variant)
    rng = random.Random(seed)
    found = 0
    for tries, pos in enumerate(random_capture_positions(v, rng)):
        if found >= count or tries >= max_tries:
            return
        b = board_at(v, pos)
        legal = b.legal_moves
        if len(legal) != 1 or motif not in rule_motifs(b, legal[0]):
            continue
        verdict = solve(b, "capture")
        if verdict.kind == "unique":
            found += 1
            yield mined_puzzle(b, verdict, f"random placement {v.name} seed {seed} try {tries}")
