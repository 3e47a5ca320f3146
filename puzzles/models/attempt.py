"""A player's go at a puzzle, and the trainer's state changes on it.

The trainer keeps the whole state on the server (:class:`Attempt`); each change is one method
that is given the :class:`~puzzles.player.Player` and hands the proof's judge
(:mod:`puzzles.trainer`) the values it judges by; a first attempt with a result is rated in the
same transaction (:mod:`puzzles.models.ratings`). A visitor's attempts go to the account at
log-in or sign-up (:func:`hand_over_attempts`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.db.models import F, Min
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core import progress
from core.numbers import read_id
from core.owners import OwnedQuerySet

from .. import engine, signals
from ..player import PROGRESS_KEY, Player
from ..trainer import Conflict, Outcome, Result, refutation_message
from .puzzle import Puzzle
from .ratings import PlayerRating


class AttemptQuerySet(OwnedQuerySet["Attempt"]):
    """``of(player)`` and ``owned(player, pk)`` (without its puzzle: see :meth:`Attempt.on`)
    are :class:`core.owners.OwnedQuerySet`'s."""


class Attempt(models.Model):
    """One go at one puzzle by a player (an account, or a visitor's session until sign-up).

    The trainer keeps the whole state on the server: ``line`` holds the moves on the board so far
    (solver and defender alternating, full routes as in the proof) and ``position`` the position
    they lead to, so that a move is read against it without replaying the line; the browser only
    ever gets the board. ``moves`` is what the player entered, each judged (``ok``) with the time
    it took. The state changes (:meth:`play`, :meth:`hint`, :meth:`give_up`, :meth:`retry`) take
    the :class:`~puzzles.player.Player`; each writes only if nobody wrote the attempt since it
    was read (``version``), else raises :class:`~puzzles.trainer.Conflict` having written nothing.
    """

    class Source(models.TextChoices):
        STREAM = "stream", _("puzzle stream")
        DAILY = "daily", _("daily puzzle")
        SET = "set", _("puzzle set")
        REPLAY = "replay", _("replay")
        #: a puzzle of a streak or a storm (the ``runs`` app): never rated, never a first attempt
        RUN = "run", _("puzzle run")

    class State(models.TextChoices):
        """What the page shows (``data-state``): not labelled, never shown in words."""

        PLAYING = "playing"
        SOLVED = "solved"
        SHOWN = "shown"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="puzzle_attempts",
        verbose_name=_("user"),
    )
    #: a visitor's attempt: their token (``Player.visitor_token``, kept in their session)
    visitor = models.CharField(_("visitor"), max_length=64, blank=True, db_index=True)
    puzzle = models.ForeignKey(
        Puzzle, on_delete=models.CASCADE, related_name="player_attempts", verbose_name=_("puzzle")
    )
    source = models.CharField(_("source"), max_length=10, choices=Source, default=Source.STREAM)
    set_id = models.PositiveIntegerField(_("puzzle set"), null=True, blank=True)
    started_at = models.DateTimeField(_("started at"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    moves = models.JSONField(_("moves entered"), default=list, blank=True)
    hints = models.PositiveSmallIntegerField(_("hints"), default=0)
    solution_shown = models.BooleanField(_("solution shown"), default=False)
    solved = models.BooleanField(_("solved"), default=False)
    failed = models.BooleanField(_("failed"), default=False)
    rated = models.BooleanField(_("rated"), default=False)
    #: the player's first attempt at the puzzle (only that one is rated), stored when it is made
    first = models.BooleanField(_("first attempt"), default=False)
    seconds = models.FloatField(_("seconds"), default=0.0)
    # trainer state
    line = models.JSONField(_("moves on the board"), default=list, blank=True)
    #: the position after ``line`` (empty: the puzzle's own)
    position = models.CharField(_("position"), max_length=300, blank=True)
    daily_date = models.DateField(_("daily puzzle of"), null=True, blank=True)
    #: how many times the trainer wrote the attempt: each write is made only if nobody wrote it
    #: since it was read (two tabs, a double submit), see ``puzzles.trainer.Conflict``
    version = models.PositiveIntegerField(_("version"), default=0, editable=False)

    objects = AttemptQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at", "-pk"]
        indexes = [
            models.Index(fields=["user", "puzzle"]),
            models.Index(fields=["user", "source", "solved"]),
        ]
        verbose_name = _("attempt")
        verbose_name_plural = _("attempts")

    def __str__(self) -> str:
        who = self.user or _("visitor")
        return f"{who} · {self.puzzle}"

    # -- finding and starting attempts -------------------------------------------------------------

    def on(self, puzzle: Puzzle | None) -> Attempt | None:
        """This attempt with ``puzzle`` as its puzzle (the row as the caller read it, e.g. as the
        trainer serves it: ``stream.owned_attempt``); None when it is not this attempt's puzzle,
        or one kept for the exams (never practice, even one tried before)."""
        if puzzle is None or puzzle.pk != self.puzzle_id or puzzle.for_exams:
            return None
        self.puzzle = puzzle
        return self

    @classmethod
    def start(
        cls,
        player: Player,
        puzzle: Puzzle,
        *,
        source: str = Source.STREAM,
        set_id: int | None = None,
        daily_date=None,
        fresh: bool = False,
    ) -> Attempt:
        """The attempt ``player`` is on for ``puzzle`` in this context (the stream, a set, a
        day): the latest they made in it, resumed; or a new one (when there is none, or
        ``fresh``). One query reads the player's attempts at the puzzle: whether the new one is
        their first (only that one is rated), and what a set's attempt inherits."""
        earlier = list(
            Attempt.objects.of(player)
            .filter(puzzle=puzzle)
            .order_by("-pk")
            .values_list(
                "pk", "source", "set_id", "daily_date", "hints", "failed", "solution_shown"
            )
        )
        if not fresh:
            for pk, was_source, was_set, was_day, *_seen in earlier:
                if (was_source, was_set, was_day) == (source, set_id, daily_date):
                    owned = cls.objects.owned(player, pk)
                    attempt = owned.on(puzzle) if owned is not None else None
                    if attempt is not None:
                        return attempt
                    break
        attempt = cls(
            user=player.user,
            visitor=player.visitor_token(make=True),
            puzzle=puzzle,
            source=source,
            set_id=set_id,
            daily_date=daily_date,
            position=puzzle.fen,
            first=not earlier,
        )
        if set_id and earlier:
            attempt.inherit([(s, h, f, shown) for _pk, _src, s, _d, h, f, shown in earlier])
        attempt.save()
        return attempt

    @classmethod
    def for_run(cls, player: Player, puzzle: Puzzle) -> Attempt:
        """A new attempt at ``puzzle`` within a timed or streak run (``runs``): one insert and no
        read. It is never the player's first attempt (a run is not rated, as lichess's storm is
        not); its mistakes and slow solves reach the review through the signals as any other."""
        return cls.objects.create(
            user=player.user,
            visitor=player.visitor_token(make=True),
            puzzle=puzzle,
            source=cls.Source.RUN,
            position=puzzle.fen,
            first=False,
        )

    @classmethod
    def open(
        cls, player: Player, puzzle: Puzzle, *, set_id: int | None = None, replay: bool = False
    ) -> Attempt:
        """The attempt a puzzle page shows: the player's in the set ``set_id`` (one that holds
        the puzzle and is assigned to their class: the caller checks), a replay (a new one once
        the last replay is finished), or the stream's."""
        if set_id:
            return cls.start(player, puzzle, source=cls.Source.SET, set_id=set_id)
        if not replay:
            return cls.start(player, puzzle)
        attempt = cls.start(player, puzzle, source=cls.Source.REPLAY)
        if attempt.is_finished:
            attempt = cls.start(player, puzzle, source=cls.Source.REPLAY, fresh=True)
        return attempt

    def inherit(self, earlier: list[tuple[int | None, int, bool, bool]]) -> None:
        """A set's attempt starts with what the player already saw of the puzzle: a failure or
        a solution shown in any earlier attempt, and the hints taken outside the set (a teacher's
        table must not read "solved, no hints" after the solution was shown elsewhere)."""
        self.solution_shown = any(shown for _set, _hints, _failed, shown in earlier)
        self.failed = self.solution_shown or any(failed for _s, _h, failed, _shown in earlier)
        self.hints = sum(hints for set_id, hints, _f, _s in earlier if set_id != self.set_id)

    # -- state -------------------------------------------------------------------------------------

    @property
    def is_finished(self) -> bool:
        return self.finished_at is not None

    @property
    def state(self) -> str:
        if not self.is_finished:
            return self.State.PLAYING
        return self.State.SOLVED if self.solved else self.State.SHOWN

    @property
    def variant(self) -> str:
        return self.puzzle.variant

    @property
    def score(self) -> float | None:
        """The rated result of the attempt, or None while it is still open."""
        if self.failed or self.solution_shown:
            return 0.0
        if self.solved:
            return 0.5 if self.hints else 1.0
        return None

    # -- playing -----------------------------------------------------------------------------------

    def play(self, player: Player, *, route: str = "", text: str = "") -> Result:
        """Judge one move (a clicked route so far, or typed notation) against the proof; a move
        it accepts is answered with the defender's most stubborn reply. Only a legal move the
        proof does not accept is a mistake (the attempt has failed, and a first attempt is rated
        0); an illegal or unreadable one is refused with its explanation and changes nothing."""
        if self.is_finished:
            return Result(
                Outcome.FINISHED, gettext("This puzzle is finished: press Retry to play it again.")
            )
        puzzle = self.puzzle
        here = self.position or puzzle.fen
        entry = engine.read_entry(puzzle.variant, here, [], route=route, text=text)
        if entry.status == "continue":
            return Result(Outcome.CONTINUE, entry.message, path=entry.path)
        if entry.status == "bad":
            return Result(Outcome.BAD, entry.message, article=entry.article)
        if entry.status == "illegal":
            # refused with the rule it breaks, as unreadable input is: not a mistake, never
            # rated, nothing written; the player tries again from the same position (lichess
            # never rates an illegal move either)
            return Result(
                Outcome.ILLEGAL,
                entry.message,
                article=entry.article,
                squares=entry.squares,
                played=entry.entered,
            )
        ms = self._elapsed_ms()
        line = list(self.line)
        judge = puzzle.judge()
        start, end, captured = entry.key
        accepted = judge.find(line, (start, end, frozenset(captured)))
        if accepted is None:
            self.moves = [*self.moves, {"text": entry.notation, "ok": False, "ms": ms}]
            first_failure = not self.failed
            change = self._fail(player)
            if first_failure:
                signals.attempt_failed.send(sender=Attempt, attempt=self, player=player)
            # refuted by the proof's worker (no search here); none stored: answered without
            refutation = judge.refutation(line, entry.route)
            if refutation:
                refutation["wrong"] = entry.route
                refutation["wrong_notation"] = entry.notation
            return Result(
                Outcome.WRONG,
                refutation_message(puzzle.white_to_move, entry.notation, refutation),
                played=entry.notation,
                refutation=refutation,
                rating_change=change,
            )
        self.moves = [*self.moves, {"text": entry.notation, "ok": True, "ms": ms}]
        reply_text, self.position = judge.answer(puzzle.variant, here, accepted)
        self.line = [*line, accepted.move, *([accepted.reply] if accepted.reply else [])]
        if accepted.done:
            self.solved = True
            self._stamp_finish()
            score = None if self.failed else (0.5 if self.hints else 1.0)
            change = self._write_and_rate(
                player, ["moves", "line", "position", "solved", *FINISH_FIELDS], score
            )
            signals.attempt_finished.send(sender=Attempt, attempt=self, player=player)
            return Result(
                Outcome.SOLVED,
                gettext("Solved!") if not self.failed else gettext("Solved, after a mistake."),
                played=entry.notation,
                reply=reply_text,
                rating_change=change,
            )
        self._write(["moves", "line", "position"])
        return Result(
            Outcome.RIGHT,
            gettext("Right! %(side)s answers %(reply)s. Your move.")
            % {
                "side": gettext("Black") if puzzle.white_to_move else gettext("White"),
                "reply": reply_text,
            },
            played=entry.notation,
            reply=reply_text,
        )

    def hint(self) -> int | None:
        """The square of the piece to move (counted as a hint); None when nothing is left to do."""
        if self.is_finished:
            return None
        point = self.puzzle.judge().at(list(self.line))
        if point is None:
            return None
        self.hints += 1
        self._write(["hints"])
        return point.hint

    def give_up(self, player: Player) -> float | None:
        """Finish the attempt by showing the solution (a failure when not solved yet): the
        rating change, if it was rated."""
        if self.is_finished:
            return None
        first_failure = not self.failed
        self.solution_shown = True
        self.failed = True
        self._stamp_finish()
        change = self._write_and_rate(
            player, ["solution_shown", "failed", *FINISH_FIELDS], 0.0 if first_failure else None
        )
        signals.attempt_finished.send(sender=Attempt, attempt=self, player=player)
        return change

    def retry(self, player: Player) -> Attempt:
        """Back to the start: the same attempt while unfinished, else a new (unrated) replay."""
        if not self.is_finished:
            self.line = []
            self.position = self.puzzle.fen
            self._write(["line", "position"])
            return self
        return Attempt.start(
            player,
            self.puzzle,
            source=self.Source.REPLAY if self.source != self.Source.DAILY else self.source,
            set_id=self.set_id,
            daily_date=self.daily_date,
            fresh=True,
        )

    def solution(self) -> list[str]:
        """The proof's main line (show it only once the attempt is finished)."""
        return list(self.puzzle.judge().solution)

    # -- writing -----------------------------------------------------------------------------------

    def _elapsed_ms(self) -> int:
        spent = sum(int(m.get("ms", 0)) for m in self.moves)
        elapsed = (timezone.now() - self.started_at).total_seconds()
        return max(0, int(elapsed * 1000) - spent)

    def _stamp_finish(self) -> None:
        now = timezone.now()
        self.finished_at = now
        self.seconds = round((now - self.started_at).total_seconds(), 3)

    def _fail(self, player: Player) -> float | None:
        first_failure = not self.failed
        self.failed = True
        return self._write_and_rate(player, ["moves", "failed"], 0.0 if first_failure else None)

    def _write(self, fields: list[str]) -> None:
        """Write ``fields`` if the row is still the one read (same ``version``), counting the
        write; otherwise write nothing and raise :class:`~puzzles.trainer.Conflict`."""
        written = Attempt.objects.filter(pk=self.pk, version=self.version).update(
            version=F("version") + 1, **{name: getattr(self, name) for name in fields}
        )
        if not written:
            raise Conflict(self.pk)
        self.version += 1

    def _write_and_rate(
        self, player: Player, fields: list[str], score: float | None
    ) -> float | None:
        """Write ``fields`` and, given a ``score`` on the player's first attempt at the puzzle,
        rate it in the same transaction (``PlayerRating.objects.rate``): the player's rating
        change."""
        if score is None or not self.first or self.rated:
            self._write(fields)
            return None
        with transaction.atomic():
            if player.is_account:  # a visitor's rating is kept in the session
                self.rated = True
                fields = [*fields, "rated"]
            self._write(fields)
            return PlayerRating.objects.rate(
                player, self.puzzle, score, attempt_id=self.pk, at=self.finished_at
            )

    def rate_once(self, score: float) -> float | None:
        """Apply this attempt of an account to its and the puzzle's Glicko-2 ratings, once (an
        attempt already rated is left alone): the player's rating change."""
        with transaction.atomic():
            if not Attempt.objects.filter(pk=self.pk, rated=False).update(rated=True):
                return None
            self.rated = True
            before, after = PlayerRating.objects.rate_account(
                self.user_id, self.puzzle, score, attempt_id=self.pk, at=self.finished_at
            )
            return after.rating - before.rating


#: what finishing an attempt writes besides the result
FINISH_FIELDS = ["finished_at", "seconds"]


@progress.handover(PROGRESS_KEY)
def hand_over_attempts(user, data: dict[str, Any]) -> None:
    """A visitor logged in or signed up: their attempts become the account's, the account's
    first attempt at each puzzle is marked again, and each first attempt with a result is rated
    (in the order played)."""
    token = str(data.get("visitor", ""))
    theirs = Attempt.objects.filter(visitor=token, user__isnull=True)
    ids = list(theirs.values_list("pk", flat=True)) if token else []
    # a session from before the token (2026-11-28) lists its attempts' ids instead
    ids += [i for i in map(read_id, data.get("attempts", [])) if i is not None]
    if not ids:
        return
    Attempt.objects.filter(pk__in=ids, user__isnull=True).update(user=user)
    puzzles = set(Attempt.objects.filter(pk__in=ids, user=user).values_list("puzzle_id", flat=True))
    # a run's attempts are never first (nor rated)
    mine = Attempt.objects.filter(user=user, puzzle_id__in=puzzles).exclude(
        source=Attempt.Source.RUN
    )
    firsts = (
        mine.values("puzzle_id").annotate(first_pk=Min("pk")).values_list("first_pk", flat=True)
    )
    mine.exclude(pk__in=list(firsts)).update(first=False)
    mine.filter(pk__in=list(firsts)).update(first=True)
    for attempt in (
        Attempt.objects.filter(pk__in=ids, user=user, rated=False, first=True)
        .select_related("puzzle")
        .order_by("pk")
    ):
        score = attempt.score
        if score is not None:
            attempt.rate_once(score)
