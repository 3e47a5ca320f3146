"""Which puzzles are served: the servable puzzles, the site's public pool, the stream's choice
near the player's rating, and who may solve a teacher's puzzle; and what a process keeps of them
between requests (``core.kept``): a served puzzle's row, the pool's rows, the stream's filters."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from django.apps import apps
from django.db import models
from django.db.models import Exists, ExpressionWrapper, OuterRef, Q, QuerySet
from django.utils import timezone

from core.kept import Kept

from .models import SERVABLE, Attempt, DailyPuzzle, PlayerRating, Puzzle, PuzzleQuerySet
from .player import Player

GOAL_FILTERS = ("capture", "gain", "win")
#: how many of the puzzles nearest the player's rating the stream chooses from
NEAREST = 5
#: how long a process keeps the rows of the pool (:func:`pool_rows`), in seconds. Any change of
#: the pool (a save, a verdict, a puzzle kept for the exams) drops them at once in every process (``core.kept``);
#: this bounds only how old the puzzles' ratings are, which just rank puzzles near the player's
#: rating (a read of a variant's rows costs about 20 ms: every 30 s it was the stream's p99)
POOL_SECONDS = 300.0


# -- the puzzles served: one row a puzzle, kept by the process ----------------------------------

#: puzzle columns the trainer never needs (read apart, or only by the proof page)
HEAVY_FIELDS = ("proof", "description", "limits", "solution", "error", "worker", "source")
#: how long a process keeps a puzzle of the site's pool (:func:`served_puzzle`). Any change made
#: through the models drops it at once in every process (``core.kept``): this bounds only how long
#: a change made without them (a bulk ``update()`` in a shell) goes unseen
KEEP_SECONDS = 600.0
#: at most this many kept puzzles (the corpus has about nine thousand)
KEEP_MAX = 16384
_served = Kept("puzzles", seconds=KEEP_SECONDS, size=KEEP_MAX)


def served_puzzle(pk: int) -> Puzzle | None:
    """Puzzle ``pk`` as the trainer serves it: without its heavy columns (the proof is read
    apart, into :meth:`Puzzle.judge`), with the fact every puzzle page checks read in the same
    query: ``daily_today`` (it is today's daily puzzle of its variant); the row itself says
    whether the exams keep it (``for_exams``: practice never serves it).

    Every move and puzzle page needs its puzzle, the same row for every player: a puzzle of the
    site's pool (the corpus, rarely edited) is kept by the process for :data:`KEEP_SECONDS`
    (``core.kept``: dropped in every process as soon as any process saves or deletes a puzzle
    or a daily puzzle, reserves puzzles for the exams, sends a puzzle to be proven again, or a
    worker writes a verdict), by date, so that no kept ``daily_today`` outlives its day. A
    teacher's puzzle, which its author may be editing, is read every time."""
    day = timezone.localdate()
    return _served.get(
        (pk, day),
        lambda: _served_rows(day).filter(pk=pk).order_by().first(),
        keep=lambda puzzle: puzzle is not None and puzzle.is_public,
    )


def keep_served_pool() -> int:
    """Read the servable puzzles of the site's pool in one query and keep them as
    :func:`served_puzzle` keeps the rows it reads one at a time; return how many. A gunicorn
    worker does this as it starts (``gunicorn.conf.py``, before ``gc.freeze()``), so that no
    puzzle page of the pool waits for its row (9,267 rows: about 25 MB a process)."""
    day = timezone.localdate()
    rows = _served_rows(day).filter(SERVABLE).practice().order_by()
    return _served.fill({(puzzle.pk, day): puzzle for puzzle in rows.iterator(chunk_size=2000)})


def _served_rows(day) -> PuzzleQuerySet:
    today = DailyPuzzle.objects.filter(puzzle=OuterRef("pk"), date=day)
    return (
        Puzzle.objects.defer(*HEAVY_FIELDS)
        .annotate(daily_today=Exists(today))
        .annotate(servable=ExpressionWrapper(SERVABLE, models.BooleanField()))
    )


def owned_attempt(player: Player, pk: int) -> Attempt | None:
    """The attempt ``pk`` if ``player`` owns it, with its puzzle as :func:`served_puzzle` reads
    it (no join, and the pool's puzzles are kept by the process); None for anyone else's, and
    for one at a puzzle the exams keep."""
    attempt = Attempt.objects.owned(player, pk)
    return attempt.on(served_puzzle(attempt.puzzle_id)) if attempt is not None else None


# -- the pool ------------------------------------------------------------------------------------


def servable(variant: str) -> QuerySet[Puzzle]:
    """Unique-verified puzzles whose proof tree is complete (the trainer judges by it), of any
    author: who may solve a teacher's puzzle is :func:`can_solve`'s question."""
    return Puzzle.objects.filter(SERVABLE, variant=variant)


def public_pool(variant: str) -> QuerySet[Puzzle]:
    """What the stream, the daily puzzle and the motif filter draw from: servable puzzles that
    practice may show (``Puzzle.objects.practice()``: the site's pool, never a teacher's own
    puzzle, nor one kept for the exams)."""
    return servable(variant).practice()


def playable(variant: str, pk: int) -> Puzzle | None:
    """Puzzle ``pk`` of ``variant`` if the trainer can serve it (:data:`SERVABLE`, as
    :func:`servable`), without its heavy columns (:func:`served_puzzle`: the
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


def teaches(user, student_id: int) -> bool:
    """Whether ``user`` teaches a class the account ``student_id`` attends (the classroom's
    models, looked up lazily as in :func:`sets_reaching`)."""
    Classroom = apps.get_model("classroom", "Classroom")
    if user is None or not user.is_authenticated:
        return False
    return Classroom.objects.filter(teachers=user, memberships__user_id=student_id).exists()


def set_for_attempt(user, puzzle: Puzzle, set_id: int | None) -> int | None:
    """``set_id`` when the user may play ``puzzle`` as part of that set (it holds the puzzle and
    is assigned to a class of the user's), else None: the attempt is not logged against it."""
    if not set_id:
        return None
    return set_id if sets_reaching(user, puzzle).filter(pk=set_id).exists() else None


def can_solve(user, puzzle: Puzzle) -> bool:
    """Everyone may play the site's pool but the puzzles kept for the exams; a teacher's puzzle
    only its author, and the teachers and students of a class it is assigned to (through a
    set); a personal puzzle (made from a player's own game) its owner and the teachers of a
    class the owner attends (:func:`teaches`)."""
    if puzzle.for_exams:
        return False  # an exam question is never practice
    if puzzle.is_public:
        return True
    if user is None or not user.is_authenticated:
        return False
    if puzzle.owner_id is not None:
        return puzzle.owner_id == user.pk or teaches(user, puzzle.owner_id)
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
        Attempt.objects.of(player)
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
    target = PlayerRating.objects.rating_of(player, variant).rating
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
    _served.forget()


def motif_choices(variant: str) -> list[str]:
    names: set[str] = set()
    for row in pool_rows(variant):
        names.update(m.split(":")[0] for m in row[2])
    return sorted(names)


def motif_count(variant: str, motif: str) -> int:
    """How many puzzles of the pool of ``variant`` show ``motif`` (a shot of ``dama.shots``: a
    Combinations lesson's drill, ``puzzle_drill``)."""
    return sum(1 for row in pool_rows(variant) if any(m.split(":")[0] == motif for m in row[2]))
