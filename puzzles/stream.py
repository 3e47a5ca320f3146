"""Which puzzles are served: the servable puzzles, the site's public pool, the stream's choice
near the player's rating, and who may solve a teacher's puzzle."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from django.apps import apps
from django.db.models import Q, QuerySet

from core.kept import Kept

from .models import SERVABLE, Puzzle, forget_served, served_puzzle
from .player import Player

GOAL_FILTERS = ("capture", "gain", "win")
#: how many of the puzzles nearest the player's rating the stream chooses from
NEAREST = 5
#: how long a process keeps the rows of the pool (:func:`pool_rows`), in seconds. Any change of
#: the pool (a save, a verdict, a reservation) drops them at once in every process (``core.kept``);
#: this bounds only how old the puzzles' ratings are, which just rank puzzles near the player's
#: rating (a read of a variant's rows costs about 20 ms: every 30 s it was the stream's p99)
POOL_SECONDS = 300.0


def servable(variant: str) -> QuerySet[Puzzle]:
    """Unique-verified puzzles whose proof tree is complete (the trainer judges by it), of any
    author: who may solve a teacher's puzzle is :func:`can_solve`'s question."""
    return Puzzle.objects.filter(SERVABLE, variant=variant)


def public_pool(variant: str) -> QuerySet[Puzzle]:
    """What the stream, the daily puzzle and the motif filter draw from: servable puzzles of the
    site's pool (the corpus and puzzles staff made public), never a teacher's own puzzle, nor
    one kept for the exams (:func:`exam_reserved`)."""
    return servable(variant).public().exclude(pk__in=exam_reserved())


def exam_reserved() -> QuerySet:
    """The ids of the puzzles the exams keep for themselves (``exams.ReservedPuzzle``, looked
    up lazily: the exams build on the puzzles app): practice never serves them."""
    try:
        reserved = apps.get_model("exams", "ReservedPuzzle")
    except LookupError:
        return Puzzle.objects.none().values("pk")
    return reserved.objects.values("puzzle_id")


def playable(variant: str, pk: int) -> Puzzle | None:
    """Puzzle ``pk`` of ``variant`` if the trainer can serve it (:data:`SERVABLE`, as
    :func:`servable`), without its heavy columns (:func:`~puzzles.models.served_puzzle`: the
    pool's are kept by the process). The row says it (``servable``, read with it): the proof
    itself is read at the first move (:meth:`Puzzle.judge`), not to show the page."""
    puzzle = served_puzzle(pk)
    return puzzle if puzzle is not None and puzzle.variant == variant and puzzle.servable else None


def sets_reaching(user, puzzle: Puzzle) -> QuerySet:
    """The puzzle sets through which ``user`` may play ``puzzle``: sets that hold it and are
    assigned to a class the user attends or teaches (the classroom app's models, looked up
    lazily: the classroom builds on the puzzles app, not the other way round)."""
    PuzzleSet = apps.get_model("classroom", "PuzzleSet")
    if user is None or not user.is_authenticated:
        return PuzzleSet.objects.none()
    return PuzzleSet.objects.filter(
        Q(assignments__classroom__memberships__user=user)
        | Q(assignments__classroom__teachers=user),
        setitem__puzzle=puzzle,
    ).distinct()


def set_for_attempt(user, puzzle: Puzzle, set_id: int | None) -> int | None:
    """``set_id`` when the user may play ``puzzle`` as part of that set (it holds the puzzle and
    is assigned to a class of the user's), else None: the attempt is not logged against it."""
    if not set_id:
        return None
    return set_id if sets_reaching(user, puzzle).filter(pk=set_id).exists() else None


def can_solve(user, puzzle: Puzzle) -> bool:
    """Everyone may play the site's pool; a teacher's puzzle only its author, and the teachers
    and students of a class it is assigned to (through a set)."""
    reserved = getattr(puzzle, "exam_reserved", None)  # read with the puzzle when it is served
    if reserved is None:
        reserved = exam_reserved().filter(puzzle_id=puzzle.pk).exists()
    if reserved:
        return False  # an exam question is never practice
    if puzzle.is_public:
        return True
    if user is None or not user.is_authenticated:
        return False
    return puzzle.author_id == user.pk or sets_reaching(user, puzzle).exists()


def next_puzzle(
    player: Player,
    variant: str,
    *,
    goal: str = "",
    motif: str = "",
    exclude: tuple[int, ...] = (),
    rng: random.Random | None = None,
    _retry: bool = False,
) -> Puzzle | None:
    """The next puzzle of the stream: near the player's rating, never one the player solved
    (nor, while others remain, one already tried) until the pool runs out; never one of
    ``exclude`` (the puzzle just played, today's daily puzzle) while others remain."""
    rows = pool_rows(variant)
    if goal in GOAL_FILTERS:
        rows = [r for r in rows if r[1].split(":", 1)[0] == goal]
    if motif:
        rows = [r for r in rows if any(m == motif or m.split(":")[0] == motif for m in r[2])]
    if not rows:
        return None
    solved: set[int] = set()
    tried: set[int] = set()
    for pk, is_solved in (
        player.attempts()
        .filter(puzzle__variant=variant)
        .filter(Q(finished_at__isnull=False) | Q(failed=True))
        .values_list("puzzle_id", "solved")
    ):
        tried.add(pk)
        if is_solved:
            solved.add(pk)
    fresh = [r for r in rows if r[0] not in tried and r[0] not in exclude]
    pool = fresh or [r for r in rows if r[0] not in solved and r[0] not in exclude]
    if not pool:
        pool = [r for r in rows if r[0] not in exclude] or rows  # all solved: start again
    target = player.rating(variant).rating
    pool.sort(key=lambda r: (abs((r[4] if r[4] is not None else r[3]) - target), r[0]))
    choice = (rng or random).choice(pool[:NEAREST])
    # the stream only needs the address
    puzzle = public_pool(variant).only("pk", "variant").filter(pk=choice[0]).order_by().first()
    if puzzle is None and not _retry:  # left the pool since the rows were read: read them again
        forget_pool()
        return next_puzzle(
            player, variant, goal=goal, motif=motif, exclude=exclude, rng=rng, _retry=True
        )
    return puzzle


_pool = Kept("puzzles", seconds=POOL_SECONDS, size=16)
#: the stream's filter control by (variant, goal, motif, language): made from the pool's rows,
#: the same for every player, and kept as the rows are (:func:`kept_filters`)
_filters = Kept("puzzles", seconds=POOL_SECONDS, size=256)


def pool_rows(variant: str) -> list[tuple[Any, ...]]:
    """``(pk, goal, motifs, difficulty, rating)`` of each puzzle of the public pool.

    Every stream request and puzzle page reads these (about 15 ms of CPU and 5 ms in PostgreSQL
    for the 3,000 puzzles of a variant: the stored ``proof_complete`` spares it opening every
    proof's JSON, which took 13 ms), so each process keeps them for :data:`POOL_SECONDS`
    (``core.kept``: saving or deleting a puzzle, or a verdict written by a worker, drops them in
    every process at once). :func:`next_puzzle` still checks that the puzzle it chose is in the
    pool. The ratings may be :data:`POOL_SECONDS` old: they only rank the puzzles near the
    player's rating. A row is a plain tuple of strings and numbers (the motifs a tuple too), which
    the garbage collector stops tracking: the rows of the whole pool add nothing to walk to a full
    collection."""

    def read() -> list[tuple[Any, ...]]:
        rows = public_pool(variant).values_list(
            "pk", "goal", "motifs", "difficulty", "rating__rating"
        )
        return [
            (pk, goal, tuple(motifs or ()), level, rating)
            for pk, goal, motifs, level, rating in rows
        ]

    return _pool.get(variant, read)


def kept_filters(key: tuple[str, ...], make: Callable[[], Any]) -> Any:
    """The stream's filter control for ``key`` (variant first), made by ``make`` the first time
    and kept as the pool's rows are."""
    return _filters.get(key, make)


def forget_pool(**_signal: Any) -> None:
    """Read the pool, and the puzzles served, again at the next request in this process."""
    _pool.forget()
    _filters.forget()
    forget_served()


def motif_choices(variant: str) -> list[str]:
    names: set[str] = set()
    for row in pool_rows(variant):
        names.update(m.split(":")[0] for m in row[2])
    return sorted(names)
