"""The puzzle trainer: attempts judged against the proof tree, ratings, the puzzle stream.

The server is the only judge. An :class:`~puzzles.models.Attempt` holds the moves on the board
(``line``: solver and defender alternating, full routes as the proof writes them); the page gets
the board and nothing else until the attempt is finished. Each move the player enters is read by
the engine seam (``engine.read_entry``) and matched against the moves the proof accepts at that
point (any equivalent route, any kept alternative); the site answers with the defender's most
stubborn reply in the proof. A legal move the proof does not accept is explained with the
defender's reply that refutes it, found by the solver.

Ratings are Glicko-2 (:mod:`puzzles.glicko2`): only a player's first attempt at a puzzle is rated,
as on lichess; the score is 1 for a clean solve, 0.5 with a hint, 0 after a mistake or with the
solution shown. Visitors keep a rating in the session; their attempts move to the account at
login or sign-up (``core.progress`` key ``"puzzles"``), and the rated ones are replayed there.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from datetime import timedelta
from functools import lru_cache
from typing import Any

from django.apps import apps
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core import progress
from core.rows import Columns, update_row

from . import engine, glicko2
from .models import Attempt, PlayerRating, Puzzle, PuzzleRating, RatingHistory

PROGRESS_KEY = "puzzles"
#: session: (context key) -> attempt id of the attempt being played
CURRENT_KEY = "puzzle_current"
GOAL_FILTERS = ("capture", "gain", "win")
#: how many of the puzzles nearest the player's rating the stream chooses from
NEAREST = 5

# results of a move
CONTINUE, RIGHT, SOLVED, ILLEGAL, WRONG, BAD, FINISHED, CONFLICT = (
    "continue",
    "right",
    "solved",
    "illegal",
    "wrong",
    "bad",
    "finished",
    "conflict",
)


# -- who is playing --------------------------------------------------------------------------------


def session_key(request) -> str:
    if not request.session.session_key:
        request.session.save()
    return request.session.session_key or ""


def visitor_attempt_ids(request) -> list[int]:
    return list(progress.session_data(request, PROGRESS_KEY).get("attempts", []))


def owned(request) -> QuerySet[Attempt]:
    """The attempts of the account, or of the visitor (the ids their session holds)."""
    if request.user.is_authenticated:
        return Attempt.objects.filter(user=request.user)
    return Attempt.objects.filter(user__isnull=True, pk__in=visitor_attempt_ids(request))


#: the attempt row and its puzzle (less the proof tree, large JSON), read by one query
_ATTEMPT_COLUMNS = Columns(Attempt, "a")
_PUZZLE_COLUMNS = Columns(Puzzle, "p", defer=("proof",))
_MAX_ID = 2**63 - 1


@lru_cache(maxsize=8)
def _owned_sql(vendor: str, account: bool) -> str:
    """The query of :func:`get_owned` (params: the attempt id, then the account's id): the
    attempt, its puzzle, and whether the same player made an earlier attempt at that puzzle."""
    q = connection.ops.quote_name
    attempts, puzzles = q(Attempt._meta.db_table), q(Puzzle._meta.db_table)
    if account:
        who = "a.user_id = %s"
        same_player = "e.user_id = a.user_id"
    else:
        who = "a.user_id IS NULL"
        same_player = "e.user_id IS NULL AND e.session_key = a.session_key"
    return (
        f"SELECT {_ATTEMPT_COLUMNS.sql()}, {_PUZZLE_COLUMNS.sql()}, "
        f"EXISTS (SELECT 1 FROM {attempts} e WHERE e.puzzle_id = a.puzzle_id AND e.id < a.id"
        f" AND {same_player}) "
        f"FROM {attempts} a INNER JOIN {puzzles} p ON p.id = a.puzzle_id "
        f"WHERE a.id = %s AND {who}"
    )


def get_owned(request, pk: int) -> Attempt | None:
    """The attempt ``pk`` if the visitor owns it, with ``has_earlier`` (for
    :func:`is_first_attempt`). Its puzzle comes without the proof tree (large JSON): read that
    through :func:`proof_of`, which keeps parsed trees in memory.

    One hand-written query (:mod:`core.rows`): this runs on every move, and the same query built
    by the ORM cost several times its CPU."""
    if not 0 < pk <= _MAX_ID:
        return None
    account = request.user.is_authenticated
    params: list[Any] = [pk]
    if account:
        params.append(request.user.pk)
    elif pk not in visitor_attempt_ids(request):
        return None
    with connection.cursor() as cursor:
        cursor.execute(_owned_sql(connection.vendor, account), params)
        row = cursor.fetchone()
    if row is None:
        return None
    split = len(_ATTEMPT_COLUMNS)
    attempt = _ATTEMPT_COLUMNS.load(row[:split])
    attempt.puzzle = _PUZZLE_COLUMNS.load(row[split:-1])
    attempt.has_earlier = bool(row[-1])
    return attempt


def proof_of(puzzle: Puzzle) -> dict[str, Any]:
    """The puzzle's proof tree (read-only: shared between requests). Cached per puzzle, revision
    and verification, so a re-proof or an edit is seen at once."""
    if "proof" in puzzle.__dict__:  # loaded with the row
        return puzzle.proof or {}
    return _load_proof(puzzle.pk, puzzle.revision, puzzle.verified_at)


@lru_cache(maxsize=1024)
def _load_proof(pk: int, revision: int, verified_at: object) -> dict[str, Any]:
    proof = Puzzle.objects.filter(pk=pk).values_list("proof", flat=True).first()
    return proof or {}


# -- which puzzles are served ----------------------------------------------------------------------


def servable(variant: str) -> QuerySet[Puzzle]:
    """Unique-verified puzzles whose proof tree is complete (the trainer judges by it), of any
    author: who may solve a teacher's puzzle is :func:`can_solve`'s question."""
    return (
        Puzzle.objects.proven()
        .filter(variant=variant, proof__isnull=False)
        .exclude(proof__proof_complete=False)
    )


def public_pool(variant: str) -> QuerySet[Puzzle]:
    """What the stream, the daily puzzle and the motif filter draw from: servable puzzles of the
    site's pool (the corpus and puzzles staff made public), never a teacher's own puzzle."""
    return servable(variant).public()


def sets_reaching(user, puzzle: Puzzle) -> QuerySet:
    """The puzzle sets through which ``user`` may play ``puzzle``: sets that hold it and are
    assigned to a class the user attends or teaches (the classroom app's models, looked up
    lazily: the classroom builds on the puzzles app, not the other way round)."""
    PuzzleSet = apps.get_model("classroom", "PuzzleSet")
    if not user.is_authenticated:
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
    if puzzle.is_public:
        return True
    if not user.is_authenticated:
        return False
    return puzzle.author_id == user.pk or sets_reaching(user, puzzle).exists()


def puzzle_rating(puzzle: Puzzle) -> glicko2.Rating:
    row = PuzzleRating.objects.filter(puzzle=puzzle).first()
    if row is None:
        return glicko2.Rating(float(puzzle.difficulty), 250.0)
    return glicko2.Rating(row.rating, row.deviation, row.volatility)


def player_rating(request, variant: str) -> glicko2.Rating:
    seen = _ratings_seen(request).get(variant)
    if seen is not None:  # this request rated the player
        return seen
    if request.user.is_authenticated:
        # one row per (user, variant): no ORDER BY needed
        rows = PlayerRating.objects.filter(user=request.user, variant=variant)[:1]
        for row in rows:
            return row.as_rating()
        return glicko2.Rating()
    stored = progress.session_data(request, PROGRESS_KEY).get("ratings", {}).get(variant)
    return glicko2.Rating(*stored[:3]) if stored else glicko2.Rating()


def goal_kind(goal: str) -> str:
    return goal.split(":", 1)[0]


def next_puzzle(
    request,
    variant: str,
    *,
    goal: str = "",
    motif: str = "",
    exclude: int | None = None,
    rng: random.Random | None = None,
    _retry: bool = False,
) -> Puzzle | None:
    """The next puzzle of the stream: near the player's rating, never one the player solved
    (nor, while others remain, one already tried) until the pool runs out."""
    rows = pool_rows(variant)
    if goal in GOAL_FILTERS:
        rows = [r for r in rows if goal_kind(r[1]) == goal]
    if motif:
        rows = [r for r in rows if any(m == motif or m.split(":")[0] == motif for m in r[2])]
    if not rows:
        return None
    solved: set[int] = set()
    tried: set[int] = set()
    for pk, is_solved in (
        owned(request)
        .filter(puzzle__variant=variant)
        .filter(Q(finished_at__isnull=False) | Q(failed=True))
        .values_list("puzzle_id", "solved")
    ):
        tried.add(pk)
        if is_solved:
            solved.add(pk)
    fresh = [r for r in rows if r[0] not in tried and r[0] != exclude]
    pool = fresh or [r for r in rows if r[0] not in solved and r[0] != exclude]
    if not pool:
        pool = [r for r in rows if r[0] != exclude] or rows  # all solved: start again
    target = player_rating(request, variant).rating
    pool.sort(key=lambda r: (abs((r[4] if r[4] is not None else r[3]) - target), r[0]))
    choice = (rng or random).choice(pool[:NEAREST])
    # the stream only needs the address: the proof tree (large JSON) stays in the database
    puzzle = public_pool(variant).defer("proof").filter(pk=choice[0]).first()
    if puzzle is None and not _retry:  # left the pool since the rows were read: read them again
        forget_pool()
        return next_puzzle(
            request, variant, goal=goal, motif=motif, exclude=exclude, rng=rng, _retry=True
        )
    return puzzle


#: how long a process keeps the rows of the pool (:func:`pool_rows`), in seconds
POOL_SECONDS = 30.0
_pool: dict[str, tuple[float, list[tuple[Any, ...]]]] = {}


def pool_rows(variant: str) -> list[tuple[Any, ...]]:
    """``(pk, goal, motifs, difficulty, rating)`` of each puzzle of the public pool.

    Every stream request and puzzle page reads these (about 3 ms of CPU for the 344 puzzles of a
    variant), so each process keeps them for :data:`POOL_SECONDS`; saving or deleting a puzzle
    in this process forgets them at once (``apps.py``). Elsewhere a change is seen within that
    time, and :func:`next_puzzle` checks that the puzzle it chose is still in the pool. The
    ratings may be as old: they only rank the puzzles near the player's rating."""
    now = time.monotonic()
    kept = _pool.get(variant)
    if kept is not None and now - kept[0] < POOL_SECONDS:
        return kept[1]
    rows = list(
        public_pool(variant).values_list("pk", "goal", "motifs", "difficulty", "rating__rating")
    )
    _pool[variant] = (now, rows)
    return rows


def forget_pool(**_signal: Any) -> None:
    """Read the pool again at the next request (a puzzle was saved or deleted)."""
    _pool.clear()


def motif_choices(variant: str) -> list[str]:
    names: set[str] = set()
    for row in pool_rows(variant):
        names.update(m.split(":")[0] for m in row[2])
    return sorted(names)


# -- the goal in words -----------------------------------------------------------------------------


def side_name(puzzle: Puzzle) -> str:
    return _("White") if puzzle.white_to_move else _("Black")


def goal_text(puzzle: Puzzle) -> str:
    """The goal in words: "White to play and win two pieces", "Black to play: find the forced
    multi-jump"."""
    white = puzzle.white_to_move
    kind = goal_kind(puzzle.goal)
    if kind == "capture":
        multi = any(
            m.startswith("capture:") and m.split(":")[1].isdigit() and int(m.split(":")[1]) > 1
            for m in puzzle.motifs
        )
        if multi:
            return (
                _("White to play: find the forced multi-jump.")
                if white
                else _("Black to play: find the forced multi-jump.")
            )
        return (
            _("White to play: find the forced capture.")
            if white
            else _("Black to play: find the forced capture.")
        )
    moves = puzzle.horizon or 1
    within = ngettext("in one move", "within %(n)d moves", moves) % {"n": moves}
    if kind == "gain":
        n = int(puzzle.goal.split(":")[1])
        words = {1: _("one piece"), 2: _("two pieces"), 3: _("three pieces")}
        what = words.get(n) or _("%(n)d pieces") % {"n": n}
        if white:
            return _("White to play and win %(what)s %(within)s.") % {
                "what": what,
                "within": within,
            }
        return _("Black to play and win %(what)s %(within)s.") % {"what": what, "within": within}
    if white:
        return _("White to play and win the game %(within)s.") % {"within": within}
    return _("Black to play and win the game %(within)s.") % {"within": within}


# -- attempts --------------------------------------------------------------------------------------


def context_key(puzzle: Puzzle, source: str, extra: Any = "") -> str:
    return f"{source}:{puzzle.pk}:{extra}"


def start_or_resume(
    request,
    puzzle: Puzzle,
    *,
    source: str = Attempt.Source.STREAM,
    set_id: int | None = None,
    daily_date=None,
    fresh: bool = False,
) -> Attempt:
    """The attempt the player is on for ``puzzle`` in this context (a new one when there is none
    or ``fresh``)."""
    key = context_key(puzzle, source, set_id or daily_date or "")
    current = request.session.get(CURRENT_KEY, {})
    attempt = None
    if not fresh and key in current:
        attempt = get_owned(request, current[key])
    if attempt is None:
        attempt = Attempt.objects.create(
            user=request.user if request.user.is_authenticated else None,
            session_key=session_key(request),
            puzzle=puzzle,
            source=source,
            set_id=set_id,
            daily_date=daily_date,
        )
        if not request.user.is_authenticated:
            ids = visitor_attempt_ids(request)[-500:]
            progress.update_session_data(request, PROGRESS_KEY, {"attempts": [*ids, attempt.pk]})
        current = {**request.session.get(CURRENT_KEY, {}), key: attempt.pk}
        if len(current) > 200:
            current = dict(list(current.items())[-200:])
        request.session[CURRENT_KEY] = current
    return attempt


def is_first_attempt(attempt: Attempt) -> bool:
    """No earlier attempt at this puzzle by the same player."""
    known = getattr(attempt, "has_earlier", None)  # loaded with the row by get_owned
    if known is not None:
        return not known
    earlier = Attempt.objects.filter(puzzle_id=attempt.puzzle_id, pk__lt=attempt.pk)
    if attempt.user_id:
        return not earlier.filter(user_id=attempt.user_id).exists()
    return not earlier.filter(user__isnull=True, session_key=attempt.session_key).exists()


# -- the proof tree (plain data) -------------------------------------------------------------------


def _key(node: dict[str, Any]) -> tuple[int, int, tuple[int, ...]]:
    return (int(node["start"]), int(node["end"]), tuple(sorted(node["captured"])))


def accepted(proof: dict[str, Any], line: list[str]) -> list[dict[str, Any]]:
    """The solver's moves the proof accepts after ``line`` (empty once ``line`` left it)."""
    nodes = proof.get("proof", [])
    for text in line:
        found = [n for n in nodes if text == n["move"] or text in n["routes"]]
        if not found:
            return []
        nodes = found[0].get("replies", [])
    return nodes


def _solver_cost(node: dict[str, Any]) -> int:
    """Further solver moves needed after solver move ``node`` against the best defence."""
    replies = node.get("replies", [])
    return max((_defender_cost(r) for r in replies), default=0)


def _defender_cost(node: dict[str, Any]) -> int:
    answers = node.get("replies", [])
    if not answers:
        return 0
    return 1 + min(_solver_cost(a) for a in answers)


def _on_main_line(proof: dict[str, Any], line: list[str], node: dict[str, Any]) -> bool:
    solution = proof.get("solution", [])
    n = len(line)
    return (
        solution[:n] == line
        and n < len(solution)
        and (solution[n] == node["move"] or solution[n] in node["routes"])
    )


def stubborn_reply(proof: dict[str, Any], line: list[str], node: dict[str, Any]) -> dict[str, Any]:
    """The defender's reply to solver move ``node`` (played as the last of ``line``) that delays
    the goal longest; the proof's main line on a tie, then the longest capture."""
    replies = node["replies"]
    return max(
        replies,
        key=lambda r: (_defender_cost(r), _on_main_line(proof, line, r), len(r["captured"])),
    )


def best_move(proof: dict[str, Any], line: list[str]) -> dict[str, Any] | None:
    """The quickest accepted solver move after ``line`` (the main line on a tie)."""
    moves = accepted(proof, line)
    if not moves:
        return None
    return min(moves, key=lambda m: (_solver_cost(m), not _on_main_line(proof, line, m)))


# -- judging a move --------------------------------------------------------------------------------


class Conflict(Exception):
    """The attempt was written since this request read it (another tab, a double submit): this
    request's answer is not saved (the views show the attempt as it now stands)."""


def _save(attempt: Attempt, fields: list[str]) -> None:
    """Write ``fields`` of the attempt if its row is still the one read (same ``version``), and
    count the write; otherwise write nothing and raise :class:`Conflict`."""
    written = update_row(
        Attempt,
        {"id": attempt.pk, "version": attempt.version},
        {name: getattr(attempt, name) for name in fields},
        increment="version",
    )
    if not written:
        raise Conflict(attempt.pk)
    attempt.version += 1


@dataclass
class Result:
    kind: str
    message: str = ""
    article: str = ""
    squares: tuple[int, ...] = ()
    path: tuple[int, ...] = ()
    played: str = ""
    reply: str = ""
    refutation: dict[str, Any] = field(default_factory=dict)
    rating_change: float | None = None

    @property
    def status(self) -> int:
        if self.kind == CONFLICT:
            return 409
        return 400 if self.kind in (BAD, FINISHED) else 200


def _elapsed_ms(attempt: Attempt, now) -> int:
    spent = sum(int(m.get("ms", 0)) for m in attempt.moves)
    return max(0, int((now - attempt.started_at).total_seconds() * 1000) - spent)


def play(request, attempt: Attempt, *, route: str = "", text: str = "") -> Result:
    """Judge one move (clicked route so far or typed notation) and answer for the board."""
    if attempt.is_finished:
        return Result(FINISHED, _("This puzzle is finished: press Retry to play it again."))
    puzzle = attempt.puzzle
    proof = proof_of(puzzle)
    line = list(attempt.line)
    entry = engine.read_entry(puzzle.variant, puzzle.fen, line, route=route, text=text)
    if entry.status == "continue":
        return Result(CONTINUE, entry.message, path=entry.path)
    if entry.status == "bad":
        return Result(BAD, entry.message, article=entry.article)
    now = timezone.now()
    ms = _elapsed_ms(attempt, now)
    if entry.status == "illegal":
        attempt.moves = [*attempt.moves, {"text": entry.entered, "ok": False, "ms": ms}]
        change = _fail(request, attempt)
        return Result(
            ILLEGAL,
            entry.message,
            article=entry.article,
            squares=entry.squares,
            played=entry.entered,
            rating_change=change,
        )
    match = [n for n in accepted(proof, line) if _key(n) == entry.key]
    if not match:
        attempt.moves = [*attempt.moves, {"text": entry.notation, "ok": False, "ms": ms}]
        change = _fail(request, attempt)
        # refuted by the worker with the proof (no search here); none stored: answered without
        refutation = engine.stored_refutation(proof, line, entry.route)
        if refutation:
            refutation["wrong"] = entry.route
            refutation["wrong_notation"] = entry.notation
        return Result(
            WRONG,
            refutation_message(puzzle, entry.notation, refutation),
            played=entry.notation,
            refutation=refutation,
            rating_change=change,
        )
    node = match[0]
    attempt.moves = [*attempt.moves, {"text": entry.notation, "ok": True, "ms": ms}]
    line.append(node["move"])
    reply_text = ""
    done = not node.get("replies")
    if not done:
        reply = stubborn_reply(proof, line, node)
        reply_text = engine.move_notation(puzzle.variant, puzzle.fen, line, reply["move"])
        line.append(reply["move"])
        done = not reply.get("replies")
    attempt.line = line
    if done:
        change = _solve(request, attempt)
        return Result(
            SOLVED,
            _("Solved!") if not attempt.failed else _("Solved, after a mistake."),
            played=entry.notation,
            reply=reply_text,
            rating_change=change,
        )
    _save(attempt, ["moves", "line"])
    return Result(
        RIGHT,
        _("Right! %(side)s answers %(reply)s. Your move.")
        % {"side": _("Black") if puzzle.white_to_move else _("White"), "reply": reply_text},
        played=entry.notation,
        reply=reply_text,
    )


def refutation_message(puzzle: Puzzle, wrong: str, refutation: dict[str, Any]) -> str:
    defender = _("Black") if puzzle.white_to_move else _("White")
    if not refutation.get("reply"):
        return _("%(move)s does not reach the goal.") % {"move": wrong}
    n = refutation.get("captured", 0)
    if n:
        return ngettext(
            "%(move)s is legal but does not win: this lets %(side)s play %(reply)s, capturing %(n)d piece.",
            "%(move)s is legal but does not win: this lets %(side)s play %(reply)s, capturing %(n)d pieces.",
            n,
        ) % {"move": wrong, "side": defender, "reply": refutation["notation"], "n": n}
    return _(
        "%(move)s is legal but does not win: this lets %(side)s play %(reply)s, and the goal is out of reach."
    ) % {"move": wrong, "side": defender, "reply": refutation["notation"]}


def hint(attempt: Attempt) -> int | None:
    """The square of the piece to move (counted as a hint); None when nothing is left to do."""
    if attempt.is_finished:
        return None
    node = best_move(proof_of(attempt.puzzle), list(attempt.line))
    if node is None:
        return None
    attempt.hints += 1
    _save(attempt, ["hints"])
    return int(node["start"])


def show_solution(request, attempt: Attempt) -> float | None:
    """Finish the attempt by showing the solution (a failure when not solved yet)."""
    if attempt.is_finished:
        return None
    first_failure = not attempt.failed
    attempt.solution_shown = True
    attempt.failed = True
    _stamp_finish(attempt)
    return _save_and_rate(
        request,
        attempt,
        ["solution_shown", "failed", *FINISH_FIELDS],
        0.0 if first_failure else None,
    )


def retry(request, attempt: Attempt) -> Attempt:
    """Back to the start: the same attempt while unfinished, else a new (unrated) replay."""
    if not attempt.is_finished:
        attempt.line = []
        _save(attempt, ["line"])
        return attempt
    return start_or_resume(
        request,
        attempt.puzzle,
        source=Attempt.Source.REPLAY if attempt.source != Attempt.Source.DAILY else attempt.source,
        set_id=attempt.set_id,
        daily_date=attempt.daily_date,
        fresh=True,
    )


def solution_line(puzzle: Puzzle) -> list[str]:
    return list(proof_of(puzzle).get("solution", []))


#: what finishing an attempt writes besides the result (:func:`_stamp_finish`)
FINISH_FIELDS = ["finished_at", "seconds"]


def _stamp_finish(attempt: Attempt) -> None:
    now = timezone.now()
    attempt.finished_at = now
    attempt.seconds = round((now - attempt.started_at).total_seconds(), 3)


def _fail(request, attempt: Attempt) -> float | None:
    first_failure = not attempt.failed
    attempt.failed = True
    return _save_and_rate(request, attempt, ["moves", "failed"], 0.0 if first_failure else None)


def _solve(request, attempt: Attempt) -> float | None:
    attempt.solved = True
    _stamp_finish(attempt)
    score = None if attempt.failed else (0.5 if attempt.hints else 1.0)
    return _save_and_rate(request, attempt, ["moves", "line", "solved", *FINISH_FIELDS], score)


def score_of(attempt: Attempt) -> float | None:
    """The rated result of an attempt, or None while it is still open."""
    if attempt.failed or attempt.solution_shown:
        return 0.0
    if attempt.solved:
        return 0.5 if attempt.hints else 1.0
    return None


# -- ratings ---------------------------------------------------------------------------------------


def _save_and_rate(
    request, attempt: Attempt, fields: list[str], score: float | None
) -> float | None:
    """Write ``fields`` of the attempt (:func:`_save`: raises :class:`Conflict`, writing nothing,
    when the attempt changed meanwhile) and, given a ``score`` and the player's first attempt at
    the puzzle, rate it: the player's rating change.

    An account's rating is written in the same transaction as the attempt, whose version check
    also guards the rating: a request that loses the race rates nothing, and an attempt is rated
    once. A visitor's rating is kept in the session."""
    if score is None or not is_first_attempt(attempt):
        _save(attempt, fields)
        return None
    if not request.user.is_authenticated or attempt.user_id != request.user.pk:
        _save(attempt, fields)
        return _rate_visitor(request, attempt, score)
    if attempt.rated:  # rated already (an attempt handed over at login)
        _save(attempt, fields)
        return None
    with transaction.atomic():
        attempt.rated = True
        _save(attempt, [*fields, "rated"])
        before, after = _apply_rating(attempt, score)
    _ratings_seen(request)[attempt.puzzle.variant] = after
    return after.rating - before.rating


def _ratings_seen(request) -> dict[str, glicko2.Rating]:
    """The player's ratings this request wrote, by variant (read back by :func:`player_rating`
    instead of the database)."""
    seen = getattr(request, "_puzzle_ratings", None)
    if seen is None:
        seen = request._puzzle_ratings = {}
    return seen


def _rate_visitor(request, attempt: Attempt, score: float) -> float:
    """A visitor's rating lives in the session (the attempt is rated again in the account at
    sign-up)."""
    variant = attempt.puzzle.variant
    before = player_rating(request, variant)
    after, _puzzle = glicko2.rate_pair(before, puzzle_rating(attempt.puzzle), score)
    data = progress.session_data(request, PROGRESS_KEY)
    ratings = dict(data.get("ratings", {}))
    games = (ratings.get(variant) or [0, 0, 0, 0])[3]
    ratings[variant] = [after.rating, after.deviation, after.volatility, games + 1]
    progress.update_session_data(request, PROGRESS_KEY, {"ratings": ratings})
    return after.rating - before.rating


def rate_account(attempt: Attempt, score: float) -> float | None:
    """Apply one rated attempt of an account to its and the puzzle's Glicko-2 ratings, once (an
    attempt already rated is left alone): the player's rating change."""
    with transaction.atomic():
        if not Attempt.objects.filter(pk=attempt.pk, rated=False).update(rated=True):
            return None
        attempt.rated = True
        before, after = _apply_rating(attempt, score)
        return after.rating - before.rating


#: the two rating rows a rated attempt updates, read locked by hand
_PLAYER_COLUMNS = Columns(PlayerRating, "r")
_PUZZLE_RATING_COLUMNS = Columns(PuzzleRating, "r")


def _write_rating(model, pk: int, rating: glicko2.Rating, **more: Any) -> None:
    """Set a rating row's Glicko-2 values and count one more rated game."""
    values = {"rating": rating.rating, "deviation": rating.deviation}
    values.update(volatility=rating.volatility, **more)
    update_row(model, {"id": pk}, values, increment="games")


def _apply_rating(attempt: Attempt, score: float) -> tuple[glicko2.Rating, glicko2.Rating]:
    """The Glicko-2 update of the player and the puzzle, with a point of rating history (call
    inside a transaction): the player's rating before and after.

    Both rows are read locked and written by hand-written SQL (this runs on most finishing moves;
    the ORM's queries cost several times the CPU); a missing row is created by the ORM first."""
    variant = attempt.puzzle.variant
    player = _PLAYER_COLUMNS.get(
        "r.user_id = %s AND r.variant = %s", [attempt.user_id, variant], lock=True
    )
    if player is None:
        player, _created = PlayerRating.objects.select_for_update().get_or_create(
            user_id=attempt.user_id, variant=variant
        )
    prow = _PUZZLE_RATING_COLUMNS.get("r.puzzle_id = %s", [attempt.puzzle_id], lock=True)
    if prow is None:
        prow, _created = PuzzleRating.objects.select_for_update().get_or_create(
            puzzle_id=attempt.puzzle_id,
            defaults={"rating": float(attempt.puzzle.difficulty), "deviation": 250.0},
        )
    # the deviation widened for the weeks since the player's last rated puzzle
    now = timezone.now()
    before = player.as_rating(now)
    new_player, new_puzzle = glicko2.rate_pair(
        before, glicko2.Rating(prow.rating, prow.deviation, prow.volatility), score
    )
    _write_rating(
        PlayerRating,
        player.pk,
        new_player,
        updated=now,
    )
    _write_rating(PuzzleRating, prow.pk, new_puzzle)
    RatingHistory.objects.create(
        user_id=attempt.user_id,
        variant=variant,
        rating=new_player.rating,
        deviation=new_player.deviation,
        attempt=attempt,
        at=attempt.finished_at or now,
    )
    return before, new_player


@progress.handover(PROGRESS_KEY)
def move_attempts_to_account(user, data: dict[str, Any]) -> None:
    """A visitor logged in or signed up: their attempts become the account's, and each that is
    the account's first at its puzzle and has a result is rated (in the order played)."""
    ids = [int(i) for i in data.get("attempts", []) if str(i).isdigit()]
    if not ids:
        return
    visitor = Attempt.objects.filter(pk__in=ids, user__isnull=True)
    visitor.update(user=user)
    for attempt in (
        Attempt.objects.filter(pk__in=ids, user=user, rated=False)
        .select_related("puzzle")
        .order_by("pk")
    ):
        score = score_of(attempt)
        if score is None:
            continue
        if Attempt.objects.filter(
            user=user, puzzle_id=attempt.puzzle_id, pk__lt=attempt.pk
        ).exists():
            continue
        rate_account(attempt, score)


# -- the dashboard ---------------------------------------------------------------------------------


def difficulty_band(rating: float) -> str:
    if rating < 1200:
        return _("easy")
    if rating < 1600:
        return _("medium")
    if rating < 2000:
        return _("hard")
    return _("very hard")


def dashboard(request, variant: str) -> dict[str, Any]:
    """Solved and failed puzzles, by motif and difficulty, and the failures to replay."""
    attempts = list(
        owned(request)
        .filter(puzzle__variant=variant)
        .select_related("puzzle")
        .order_by("started_at", "pk")
    )
    per_puzzle: dict[int, dict[str, Any]] = {}
    for a in attempts:
        row = per_puzzle.setdefault(
            a.puzzle_id, {"puzzle": a.puzzle, "solved": False, "failed": False, "last": a}
        )
        # the first attempt decides solved / failed; a later clean solve clears a failure
        if a.solved and not a.failed:
            row["solved"], row["failed"] = True, False
        elif a.failed and not row["solved"]:
            row["failed"] = True
        elif a.solved:
            row["solved"] = True
        row["last"] = a
    by_motif: dict[str, list[int]] = {}
    by_band: dict[str, list[int]] = {}
    for row in per_puzzle.values():
        p = row["puzzle"]
        cell = (1 if row["solved"] and not row["failed"] else 0, 1 if row["failed"] else 0)
        for m in sorted({m.split(":")[0] for m in p.motifs}) or ["-"]:
            by_motif.setdefault(m, [0, 0])
            by_motif[m][0] += cell[0]
            by_motif[m][1] += cell[1]
        band = difficulty_band(p.difficulty)
        by_band.setdefault(band, [0, 0])
        by_band[band][0] += cell[0]
        by_band[band][1] += cell[1]
    failures = [row["puzzle"] for row in per_puzzle.values() if row["failed"]]
    return {
        "tried": len(per_puzzle),
        "solved": sum(1 for r in per_puzzle.values() if r["solved"] and not r["failed"]),
        "failed": sum(1 for r in per_puzzle.values() if r["failed"]),
        "by_motif": sorted(by_motif.items()),
        "by_band": sorted(by_band.items()),
        "failures": failures,
        "recent": attempts[::-1][:10],
    }


def history_points(user, variant: str, since_days: int = 3650) -> list[tuple[Any, float]]:
    cutoff = timezone.now() - timedelta(days=since_days)
    return list(
        RatingHistory.objects.filter(user=user, variant=variant, at__gte=cutoff)
        .order_by("at", "pk")
        .values_list("at", "rating")
    )
