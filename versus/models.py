"""Games between two accounts, in real time or by correspondence.

A :class:`VersusGame` starts as a challenge (``open``): by link (anyone signed in who opens it
may accept) or to one classmate (only they may accept). Accepted, it is ``playing`` until it is
``over``. The server owns the position and the clock: every change is a model method that
judges it (the engine judges moves, :meth:`VersusGame.judge_clock` judges time) and writes with
a conditional update on ``version`` (two tabs, a double submit, both players at once: the loser
writes nothing and is told the game changed), as ``play.models.Game`` does.

The clock (Fischer): each side's remaining milliseconds and the moment the turn started. It runs
once both sides have made their first move (before that either player may abort); a move takes
the time since the turn started from the mover and adds the increment. Correspondence games
give each move ``days_per_move`` days. A flag is judged whenever anyone asks (a page, a poll,
the socket) and by the task ``versus.flag_game`` queued for the moment the time runs out.

An *arranged* game (:meth:`VersusGame.arrange`: a tournament's pairing) starts in play, both
sides in; it cannot be aborted, and a side that does not make its first move within
``ARRANGED_FIRST_MOVE_SECONDS`` loses it (a forfeit, not rated). A game's end is told to other
apps by :data:`versus.signals.game_over`, once it has committed.

While a rated game is in play, the positions it reaches after its opening
(``SEAL_FROM_PLY``) are sealed (``core.models.SealedPosition``, label ``versus:<id>``): no game
against the computer starts there, no hint is given there and the board editor does not analyse
it, until the game ends. The opening is left open: every game plays through its positions, and
sealing them would stop other players' games in the common openings.

An outage pauses the clocks (:class:`SiteHeartbeat`). Every web process (daphne, uvicorn,
gunicorn's workers: ``versus.heartbeat``, started by ``dama_learn.asgi`` and ``dama_learn.wsgi``)
writes "the site answered at T" every ``DAMA_HEARTBEAT_SECONDS``. A heartbeat that finds the last
one more than ``DAMA_OUTAGE_SECONDS`` old (``OUTAGE_SECONDS``) has found an outage: nobody could
move between the two, so in the same transaction every clocked game in play has its turn's start
moved forward by the gap (:meth:`VersusGameQuerySet.credit_outage`, one conditional update that
also bumps the versions, so that the pages fetch the game again and the flag tasks queued before
do nothing; new ones are queued). A process waits for its first heartbeat before it serves, so
no move is judged on a clock that has not been given its outage back. The workers, alive while
the web is not, judge a flag only once a heartbeat shows the site answering at the deadline
(:meth:`VersusGame.judge_clock_unattended`): a flag never falls in an outage; a web process
judges as before (that it answers is the proof). A gap shorter than the threshold (a quick
restart) is not credited. Redis is no outage: the sockets drop, the pages poll, the moves go over
HTTP into the database as always.
"""

from __future__ import annotations

import logging
import random
import secrets
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models, transaction
from django.db.models import Case, F, Q, Value, When
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from core.board import white_to_move
from core.models import SealedPosition
from core.replies import Conflict, Reply
from core.variants import VARIANT_CHOICES

from . import engine, push, ratings, signals

log = logging.getLogger(__name__)

#: the clock's bounds (minutes, seconds) and the correspondence's (days a move)
MIN_BASE_MINUTES, MAX_BASE_MINUTES = 1, 60
MAX_INCREMENT_SECONDS = 30
MIN_DAYS, MAX_DAYS = 1, 14
#: a clocked game whose base + 40 increments is shorter than this is blitz, else rapid
BLITZ_BELOW_SECONDS = 8 * 60
#: plies a spectator of a rated game in progress sees the game behind
SPECTATOR_DELAY_PLIES = 2
#: a clocked game whose side to move has not made its first move this long after its turn began
#: is aborted (a correspondence game: after its days a move)
FIRST_MOVE_SECONDS = 120
#: an arranged game's (a tournament's) first moves are due within this long of its start: the
#: players find the game from the tournament's page; a side that does not move in time loses
ARRANGED_FIRST_MOVE_SECONDS = 300
#: a rated game in play seals the positions it reaches from this ply on (the opening's positions
#: are everyone's)
SEAL_FROM_PLY = 8
#: the farthest a flag is queued ahead as a task (the sweep judges the later ones)
FLAG_TASK_MAX_SECONDS = 900
#: a correspondence player is mailed once this long before their move's deadline
REMIND_BEFORE = timedelta(hours=24)
#: the defaults of DAMA_HEARTBEAT_SECONDS and DAMA_OUTAGE_SECONDS (settings): a web process
#: writes its heartbeat this often, and a gap between two heartbeats longer than the threshold
#: is an outage, given back to the running clocks
HEARTBEAT_SECONDS = 2
OUTAGE_SECONDS = 10


def new_token() -> str:
    return secrets.token_urlsafe(9)


class VersusGameQuerySet(models.QuerySet["VersusGame"]):
    def credit_outage(self, start: datetime, end: datetime) -> list[int]:
        """Give the outage from ``start`` (the last heartbeat) to ``end`` back to every clocked
        game in play: its turn's start moves forward by the part of the outage that fell in
        the turn, in one update that bumps each game's version (the pages fetch it again, the
        flag tasks queued before do nothing). Correspondence games (days a move) and games
        without a clock are left alone. Once it commits, the pages are told and the flags
        queued for the new deadlines. The ids of the games credited.

        Run in the transaction of the heartbeat that found the outage (:meth:`SiteHeartbeat.beat`).
        """
        games = self.filter(
            state=VersusGame.State.PLAYING, base_seconds__isnull=False, turn_started__lt=end
        )
        pks = list(games.values_list("pk", flat=True))
        if not pks:
            return []
        games.filter(pk__in=pks).update(
            turn_started=Case(
                When(turn_started__lte=start, then=F("turn_started") + (end - start)),
                default=Value(end),  # a turn begun after the last heartbeat: from the end
                output_field=models.DateTimeField(),
            ),
            version=F("version") + 1,
        )
        transaction.on_commit(lambda: after_credit(pks, end))
        return pks


class VersusGame(models.Model):
    class State(models.TextChoices):
        OPEN = "open", gettext_lazy("waiting for an opponent")
        PLAYING = "playing", gettext_lazy("in play")
        OVER = "over", gettext_lazy("finished")

    class Colour(models.TextChoices):
        WHITE = "white", gettext_lazy("White")
        BLACK = "black", gettext_lazy("Black")
        RANDOM = "random", gettext_lazy("random")

    class Speed(models.TextChoices):
        BLITZ = "blitz", gettext_lazy("blitz")
        RAPID = "rapid", gettext_lazy("rapid")
        CORRESPONDENCE = "correspondence", gettext_lazy("correspondence")
        UNTIMED = "untimed", gettext_lazy("no clock")

    token = models.CharField(max_length=16, unique=True, default=new_token, editable=False)
    variant = models.CharField(gettext_lazy("variant"), max_length=20, choices=VARIANT_CHOICES)
    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="versus_challenges"
    )
    #: the one player who may accept (a classmate); None: anyone signed in with the link
    invited = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="versus_invitations",
    )
    white = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="versus_white",
    )
    black = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="versus_black",
    )
    #: a class game: its teachers and students may follow it
    classroom = models.ForeignKey(
        "classroom.Classroom", on_delete=models.SET_NULL, null=True, blank=True
    )
    #: a board of a teacher's simul (:class:`Simul`): the host against one student
    simul = models.ForeignKey(
        "Simul", on_delete=models.SET_NULL, null=True, blank=True, related_name="games"
    )
    #: anyone with the link may follow it
    public = models.BooleanField(gettext_lazy("public"), default=True)
    rated = models.BooleanField(gettext_lazy("rated"), default=False)
    #: made by the site (a tournament's pairing), both sides in from the start: no abort, and a
    #: first move not made in time loses the game
    arranged = models.BooleanField(gettext_lazy("arranged"), default=False)
    #: the clock: base and increment (None: no clock); or days a move (correspondence)
    base_seconds = models.PositiveIntegerField(null=True, blank=True)
    increment_seconds = models.PositiveSmallIntegerField(default=0)
    days_per_move = models.PositiveSmallIntegerField(null=True, blank=True)
    start_fen = models.CharField(max_length=400)
    moves = models.JSONField(default=list, blank=True)
    state = models.CharField(max_length=10, choices=State, default=State.OPEN)
    version = models.PositiveIntegerField(default=0)
    white_ms = models.BigIntegerField(default=0)
    black_ms = models.BigIntegerField(default=0)
    turn_started = models.DateTimeField(null=True, blank=True)
    #: who offers a draw, or asks to take a move back: "w", "b" or ""
    draw_offer = models.CharField(max_length=1, blank=True)
    takeback_request = models.CharField(max_length=1, blank=True)
    result = models.CharField(gettext_lazy("result"), max_length=3, blank=True)
    reason = models.CharField(gettext_lazy("how it ended"), max_length=20, blank=True)
    article = models.CharField(gettext_lazy("article"), max_length=60, blank=True)
    #: the version whose player to move was mailed that their correspondence move's time runs out
    reminded_version = models.PositiveIntegerField(default=0)
    #: a rated game's ratings before and after: {"w": [before, after], "b": [...]}
    rating_change = models.JSONField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now)
    updated = models.DateTimeField(default=timezone.now)

    objects = VersusGameQuerySet.as_manager()

    class Meta:
        ordering = ["-updated", "-pk"]
        indexes = [
            models.Index(fields=["white", "-updated"]),
            models.Index(fields=["black", "-updated"]),
        ]
        verbose_name = gettext_lazy("game between players")
        verbose_name_plural = gettext_lazy("games between players")

    def __str__(self) -> str:
        return f"{self.variant} #{self.pk} {self.white_id}-{self.black_id}"

    # -- starting ----------------------------------------------------------------------------------

    @classmethod
    def challenge(
        cls,
        challenger,
        *,
        variant: str,
        colour: str = "random",
        base_minutes: int | None = None,
        increment_seconds: int = 0,
        days_per_move: int | None = None,
        rated: bool = False,
        public: bool = True,
        invited=None,
        classroom=None,
        fen: str = "",
    ) -> VersusGame:
        """A new challenge (from the start position, or ``fen``); a ``ValidationError`` for a
        clock out of bounds, a rated game without a clock, or a challenge to oneself."""
        check_clock(base_minutes, increment_seconds, days_per_move)
        if rated and base_minutes is None and days_per_move is None:
            raise ValidationError(_("A rated game needs a clock."), code="rated")
        if invited is not None and invited.pk == challenger.pk:
            raise ValidationError(_("You cannot challenge yourself."), code="self")
        if colour not in cls.Colour.values:
            raise ValidationError(_("Choose White, Black or random."), code="colour")
        if colour == cls.Colour.RANDOM:
            colour = random.choice([cls.Colour.WHITE, cls.Colour.BLACK])
        base = None if base_minutes is None else base_minutes * 60
        return cls.objects.create(
            variant=variant,
            challenger=challenger,
            invited=invited,
            white=challenger if colour == cls.Colour.WHITE else None,
            black=challenger if colour == cls.Colour.BLACK else None,
            classroom=classroom,
            public=public,
            rated=rated,
            base_seconds=base,
            increment_seconds=increment_seconds if base is not None else 0,
            days_per_move=days_per_move,
            start_fen=engine.check_start(variant, fen) if fen else engine.start_fen(variant),
            white_ms=(base or 0) * 1000,
            black_ms=(base or 0) * 1000,
        )

    @classmethod
    def arrange(
        cls,
        white,
        black,
        *,
        variant: str,
        base_minutes: int,
        increment_seconds: int = 0,
        rated: bool = False,
        classroom=None,
        now: datetime | None = None,
    ) -> VersusGame:
        """A game the site arranges between ``white`` and ``black`` (a tournament's pairing):
        in play at once, both sides in, White to move; a class game when ``classroom`` is
        given (its teachers and students follow it), else followed by the players alone."""
        check_clock(base_minutes, increment_seconds, None)
        if white.pk == black.pk:
            raise ValidationError(_("You cannot challenge yourself."), code="self")
        now = now or timezone.now()
        base = base_minutes * 60
        game = cls.objects.create(
            variant=variant,
            challenger=white,
            invited=black,
            white=white,
            black=black,
            classroom=classroom,
            public=False,
            rated=rated,
            arranged=True,
            base_seconds=base,
            increment_seconds=increment_seconds,
            start_fen=engine.start_fen(variant),
            white_ms=base * 1000,
            black_ms=base * 1000,
            state=cls.State.PLAYING,
            turn_started=now,
            created=now,
            updated=now,
        )
        game._after_write(now)
        return game

    def may_accept(self, user) -> bool:
        """Whether ``user`` may take the challenge: the one invited; else, a seek in a class,
        anyone in the class; else (a challenge by link) anyone signed in."""
        if self.state != self.State.OPEN or not user.is_authenticated:
            return False
        if user.pk == self.challenger_id:
            return False
        if self.invited_id is not None:
            return self.invited_id == user.pk
        if self.classroom is not None:
            return self.classroom.is_student(user) or self.classroom.is_teacher(user)
        return True

    def accept(self, user, now: datetime | None = None) -> Reply:
        """``user`` takes the challenge: the game begins (White to move)."""
        if not self.may_accept(user):
            return Reply("refused", _("This challenge is not open to you."))
        now = now or timezone.now()
        side = {"white": user} if self.white_id is None else {"black": user}
        self._write(self.version, now, state=self.State.PLAYING, turn_started=now, **side)
        return Reply("done")

    # -- reading -----------------------------------------------------------------------------------

    def board(self) -> Any:
        return engine.replay(self.variant, self.start_fen, self.moves)

    @property
    def is_over(self) -> bool:
        return self.state == self.State.OVER

    @property
    def is_playing(self) -> bool:
        return self.state == self.State.PLAYING

    @property
    def clocked(self) -> bool:
        return self.base_seconds is not None

    @property
    def time_control(self) -> str:
        """The clock as minutes + seconds of increment ("5+3"), "" without one."""
        if self.base_seconds is None:
            return ""
        return f"{self.base_seconds // 60}+{self.increment_seconds}"

    @property
    def speed_label(self) -> str:
        return str(VersusGame.Speed(self.speed).label)

    @property
    def speed(self) -> str:
        return speed_of(self.base_seconds, self.increment_seconds, self.days_per_move)

    @property
    def white_started(self) -> bool:
        return white_to_move(self.start_fen)

    def is_white_ply(self, index: int) -> bool:
        """Whether move ``index`` (0-based) of the game was White's."""
        return self.white_started == (index % 2 == 0)

    @property
    def white_to_move(self) -> bool:
        return self.is_white_ply(len(self.moves))

    @property
    def side_to_move(self) -> str:
        return "w" if self.white_to_move else "b"

    def side_of(self, user) -> str:
        """``w``, ``b`` or "" (not a player)."""
        if user is None or not user.is_authenticated:
            return ""
        if user.pk == self.white_id:
            return "w"
        if user.pk == self.black_id:
            return "b"
        return ""

    def player(self, side: str):
        return self.white if side == "w" else self.black

    @property
    def clock_running(self) -> bool:
        """The clock runs once both sides have moved (before, either may abort)."""
        return self.is_playing and len(self.moves) >= 2

    @property
    def can_abort(self) -> bool:
        return self.is_playing and len(self.moves) < 2 and not self.arranged

    @property
    def first_move_seconds(self) -> int:
        """How long the side to move has for its first move before the game ends unplayed."""
        return ARRANGED_FIRST_MOVE_SECONDS if self.arranged else FIRST_MOVE_SECONDS

    @property
    def seal_label(self) -> str:
        """The label of the seals of this game's positions (``core.models.SealedPosition``)."""
        return f"versus:{self.pk}"

    def remaining_ms(self, side: str, now: datetime | None = None) -> int | None:
        """The time ``side`` has left now (None without a clock): a clocked game's
        milliseconds, a correspondence game's time to its move's deadline."""
        now = now or timezone.now()
        running = self.clock_running and self.side_to_move == side
        elapsed = int((now - self.turn_started).total_seconds() * 1000) if running else 0
        if self.days_per_move is not None:
            if not running:
                return self.days_per_move * 86_400_000
            return max(0, self.days_per_move * 86_400_000 - elapsed)
        if not self.clocked:
            return None
        left = self.white_ms if side == "w" else self.black_ms
        return max(0, left - elapsed)

    def deadline(self) -> datetime | None:
        """When the side to move runs out of time, or, before both sides have moved, when the
        game is aborted for want of a first move (None without a clock)."""
        if not self.is_playing or self.turn_started is None:
            return None
        if self.days_per_move is not None:
            return self.turn_started + timedelta(days=self.days_per_move)
        if not self.clocked:
            return None
        if not self.clock_running:
            return self.turn_started + timedelta(seconds=self.first_move_seconds)
        left = self.white_ms if self.white_to_move else self.black_ms
        return self.turn_started + timedelta(milliseconds=left)

    def can_view(self, user) -> bool:
        """The players; anyone with the link of a public game; a class game's teachers and
        students."""
        if self.side_of(user) or (user.is_authenticated and user.pk == self.challenger_id):
            return True
        if self.public:
            return True
        if self.state == self.State.OPEN and self.invited_id is None and self.classroom is None:
            return True  # a challenge by link: whoever has the link may take it
        if self.invited_id is not None and user.is_authenticated and user.pk == self.invited_id:
            return True
        if self.classroom is not None and user.is_authenticated:
            return self.classroom.is_teacher(user) or self.classroom.is_student(user)
        return False

    def visible_moves(self, user) -> list:
        """The moves ``user`` sees: a spectator of a rated game in play sees it
        ``SPECTATOR_DELAY_PLIES`` plies late."""
        if self.rated and self.is_playing and not self.side_of(user):
            return self.moves[: max(0, len(self.moves) - SPECTATOR_DELAY_PLIES)]
        return list(self.moves)

    def outcome_for(self, side: str) -> str:
        """``won``, ``lost``, ``drawn``, ``aborted`` or "" while the game goes on."""
        if not self.is_over:
            return ""
        if not self.result:
            return "aborted"
        if self.result == "1-1":
            return "drawn"
        won = self.result == ("2-0" if side == "w" else "0-2")
        return "won" if won else "lost"

    # -- writing -----------------------------------------------------------------------------------

    def _write(
        self, expected: int, now: datetime, *, move: dict | None = None, **fields: Any
    ) -> None:
        """Write ``fields`` and the next version when the game is still at version ``expected``
        (else :class:`Conflict`); the game's pages are told once it commits (with ``move``, the
        move just played: :meth:`news`), and a game that ends rated updates both ratings in the
        same transaction."""
        with transaction.atomic():
            done = VersusGame.objects.filter(pk=self.pk, version=expected).update(
                version=F("version") + 1, updated=now, **fields
            )
            if not done:
                raise Conflict
            for name, value in fields.items():
                setattr(self, name, value)
            self.version, self.updated = expected + 1, now
            ended = fields.get("state") == self.State.OVER
            # a forfeit (an arranged game's first move not made) is not rated
            if ended and self.rated and self.result and self.reason != "no_start":
                self._rate()
            if ended and self.rated:
                SealedPosition.lift(self.seal_label)
            if ended and self.simul_id is not None:
                Simul.finish_if_done(self.simul_id, now)
        self._after_write(now, move)
        if ended:
            transaction.on_commit(
                lambda: signals.game_over.send(sender=VersusGame, game=self), robust=True
            )

    def _after_write(self, now: datetime, move: dict | None = None) -> None:
        """Once the write commits: the game's pages (and its simul's) are told, with ``move``,
        the move just played (:meth:`news`), and a flag due soon is queued."""
        pk, version, simul_id = self.pk, self.version, self.simul_id
        news = self.news(now, move)
        transaction.on_commit(lambda: push.changed(pk, version, simul_id, news))
        deadline = self.deadline()
        if deadline is not None and self.is_playing:
            seconds = max(0.0, (deadline - now).total_seconds()) + 0.1
            if seconds <= flag_task_horizon():
                transaction.on_commit(lambda: queue_flag(pk, version, seconds), robust=True)

    def news(self, now: datetime, move: dict | None = None) -> dict[str, Any]:
        """What the game's sockets are told of this version (:mod:`versus.push`): the move just
        played (``move``: its route, notation, the side that played it and the next side's legal
        routes), the clocks' milliseconds left and the side whose clock runs, the offers; and the
        players' ids (the consumer keeps those and the legal routes from a spectator)."""
        return {
            "version": self.version,
            "state": str(self.state),
            "plies": len(self.moves),
            "move": move,
            "clocks": {"w": self.remaining_ms("w", now), "b": self.remaining_ms("b", now)},
            "running": self.side_to_move if self.clock_running else "",
            "draw_offer": self.draw_offer,
            "takeback_request": self.takeback_request,
            "result": self.result,
            "players": {"w": self.white_id, "b": self.black_id},
        }

    def _seal(self, board: Any) -> None:
        """A rated game in play seals the position it reached, past its opening."""
        if self.rated and self.is_playing and len(self.moves) >= SEAL_FROM_PLY:
            SealedPosition.seal([board.fen()], self.variant, label=self.seal_label)

    def _rate(self) -> None:
        score = {"2-0": 1.0, "0-2": 0.0, "1-1": 0.5}[self.result]
        change = rate_game(self.white_id, self.black_id, self.variant, self.speed, score)
        VersusGame.objects.filter(pk=self.pk).update(rating_change=change)
        self.rating_change = change

    def _over(self, result: str, reason: str, article: str = "") -> dict[str, Any]:
        return {
            "state": self.State.OVER,
            "result": result,
            "reason": reason,
            "article": article,
            "draw_offer": "",
            "takeback_request": "",
        }

    def _refuse_unless_player(self, user) -> str | Reply:
        side = self.side_of(user)
        if not side:
            return Reply("refused", _("Only the players can do that."))
        if self.state == self.State.OPEN:
            return Reply("refused", _("The game has not started yet."))
        if self.is_over:
            return Reply("over", _("The game is over."))
        return side

    def judge_clock(self, now: datetime | None = None) -> bool:
        """End the game when the side to move has run out of time, or abort it when its first
        moves have not come in time (True when it ended now)."""
        now = now or timezone.now()
        if self.is_playing and not self.clock_running:
            deadline = self.deadline()
            if deadline is None or now < deadline:
                return False
            # an arranged game is lost by the side that did not make its first move
            result = ("0-2" if self.white_to_move else "2-0") if self.arranged else ""
            try:
                self._write(self.version, now, **self._over(result, "no_start"))
            except Conflict:
                return False
            return True
        if not self.clock_running:
            return False
        side = self.side_to_move
        left = self.remaining_ms(side, now)
        if left is None or left > 0:
            return False
        fields = self._over("0-2" if side == "w" else "2-0", "time")
        fields["white_ms" if side == "w" else "black_ms"] = 0
        try:
            self._write(self.version, now, **fields)
        except Conflict:
            return False
        return True

    def judge_clock_unattended(self, now: datetime | None = None) -> bool:
        """:meth:`judge_clock` for the workers (the flag task, the sweep), which run while the
        web may be down: the time runs out only once the site's heartbeat shows it answering
        at the deadline; until then the players may have had no site to move on
        (:class:`SiteHeartbeat`). True when the game ended now."""
        now = now or timezone.now()
        deadline = self.deadline()
        if deadline is not None and deadline <= now and not SiteHeartbeat.answered_at(deadline):
            return False
        return self.judge_clock(now)

    def flag_waits_for_heartbeat(self, now: datetime | None = None) -> bool:
        """Whether the side to move is out of time but the flag waits for a heartbeat after the
        deadline, the deadline so recent that the next heartbeat should come (a worker asks
        again in a heartbeat's time); later than the outage threshold it is an outage, and the
        heartbeat that ends it queues the flag again."""
        now = now or timezone.now()
        deadline = self.deadline()
        if deadline is None or deadline > now or SiteHeartbeat.answered_at(deadline):
            return False
        return (now - deadline).total_seconds() <= settings.DAMA_OUTAGE_SECONDS

    def play(self, user, *, route: str = "", text: str = "", now: datetime | None = None) -> Reply:
        """``user``'s move, clicked (``route``) or typed (``text``), judged by the engine."""
        now = now or timezone.now()
        side = self._refuse_unless_player(user)
        if isinstance(side, Reply):
            return side
        if self.judge_clock(now):
            return Reply("over", _("Your time ran out."))
        if side != self.side_to_move:
            return Reply(
                "turn",
                _("It is your opponent's move: the players move in turn."),
                article=engine.turn_article(self.variant),
            )
        board = self.board()
        entry = engine.read_move(board, route=route, text=text)
        if entry.status == "continue":
            return Reply("continue", entry.message, path=entry.path)
        if entry.status == "illegal":
            return Reply(
                "illegal", entry.message, article=entry.article, code=entry.code,
                squares=entry.squares,
            )  # fmt: skip
        if entry.status != "move" or entry.move is None:
            return Reply("bad", entry.message, article=entry.article)
        route_played = list(entry.move.routes[0])
        board.push(entry.move)
        fields: dict[str, Any] = {"moves": [*self.moves, route_played], "turn_started": now}
        if self.clock_running and self.clocked:
            name = "white_ms" if side == "w" else "black_ms"
            spent = int((now - self.turn_started).total_seconds() * 1000)
            fields[name] = getattr(self, name) - spent + self.increment_seconds * 1000
        if self.draw_offer and self.draw_offer != side:
            fields["draw_offer"] = ""
        fields["takeback_request"] = ""
        end = engine.end_of(board)
        if end is not None:
            fields.update(self._over(end.result, end.reason, end.article))
        move = {"route": route_played, "notation": entry.notation, "by": side}
        if end is None:  # the next player's moves: a premove is checked against them
            move["legal"] = [list(r) for m in board.generate_legal_moves() for r in m.routes]
        self._write(self.version, now, move=move, **fields)
        self._seal(board)
        return Reply("moved", extra={"notation": entry.notation, "version": self.version})

    def offer_draw(self, user, now: datetime | None = None) -> Reply:
        """Offer a draw; an offer while the opponent's stands is agreement."""
        now = now or timezone.now()
        side = self._refuse_unless_player(user)
        if isinstance(side, Reply):
            return side
        if self.judge_clock(now):
            return Reply("over", _("The game is over."))
        if self.draw_offer and self.draw_offer != side:
            self._write(self.version, now, **self._over("1-1", "agreed"))
            return Reply("done")
        if self.draw_offer == side:
            return Reply("refused", _("Your draw offer stands already."))
        self._write(self.version, now, draw_offer=side)
        return Reply("done")

    def answer_draw(self, user, accept: bool, now: datetime | None = None) -> Reply:
        now = now or timezone.now()
        side = self._refuse_unless_player(user)
        if isinstance(side, Reply):
            return side
        if not self.draw_offer or self.draw_offer == side:
            return Reply("refused", _("There is no draw offer to answer."))
        if accept:
            if self.judge_clock(now):
                return Reply("over", _("The game is over."))
            self._write(self.version, now, **self._over("1-1", "agreed"))
        else:
            self._write(self.version, now, draw_offer="")
        return Reply("done")

    def resign(self, user, now: datetime | None = None) -> Reply:
        now = now or timezone.now()
        side = self._refuse_unless_player(user)
        if isinstance(side, Reply):
            return side
        if self.judge_clock(now):
            return Reply("over", _("The game is over."))
        self._write(self.version, now, **self._over("0-2" if side == "w" else "2-0", "resigned"))
        return Reply("done")

    def abort(self, user, now: datetime | None = None) -> Reply:
        """A challenge withdrawn by its challenger, or a game called off before both sides have
        moved: no result, no rating."""
        now = now or timezone.now()
        if self.state == self.State.OPEN:
            if not user.is_authenticated or user.pk != self.challenger_id:
                return Reply("refused", _("Only the players can do that."))
            self._write(self.version, now, **self._over("", "cancelled"))
            return Reply("done")
        side = self._refuse_unless_player(user)
        if isinstance(side, Reply):
            return side
        if self.arranged:
            return Reply("refused", _("A tournament game cannot be aborted: resign it instead."))
        if not self.can_abort:
            return Reply("refused", _("A game can be aborted only before both sides have moved."))
        self._write(self.version, now, **self._over("", "aborted"))
        return Reply("done")

    def request_takeback(self, user, now: datetime | None = None) -> Reply:
        """Ask the opponent to take back one's last move (casual games only)."""
        now = now or timezone.now()
        side = self._refuse_unless_player(user)
        if isinstance(side, Reply):
            return side
        if self.rated:
            return Reply("refused", _("There are no take-backs in a rated game."))
        if not self.plies_back(side):
            return Reply("refused", _("There is no move of yours to take back."))
        if self.takeback_request == side:
            return Reply("refused", _("You have asked already."))
        self._write(self.version, now, takeback_request=side)
        return Reply("done")

    def plies_back(self, side: str) -> int:
        """How many plies go back to take back ``side``'s last move (0: none played)."""
        n = len(self.moves)
        mine = [i for i in range(n) if self.is_white_ply(i) == (side == "w")]
        return n - mine[-1] if mine else 0

    def answer_takeback(self, user, accept: bool, now: datetime | None = None) -> Reply:
        now = now or timezone.now()
        side = self._refuse_unless_player(user)
        if isinstance(side, Reply):
            return side
        asker = self.takeback_request
        if not asker or asker == side:
            return Reply("refused", _("There is no take-back request to answer."))
        if not accept:
            self._write(self.version, now, takeback_request="")
            return Reply("done")
        if self.judge_clock(now):
            return Reply("over", _("The game is over."))
        back = self.plies_back(asker)
        fields: dict[str, Any] = {
            "moves": self.moves[: len(self.moves) - back],
            "takeback_request": "",
            "draw_offer": "",
            "turn_started": now,
        }
        if self.clock_running and self.clocked:
            # the time of the turn under way is charged to its side before going back
            name = "white_ms" if self.white_to_move else "black_ms"
            spent = int((now - self.turn_started).total_seconds() * 1000)
            fields[name] = max(1, getattr(self, name) - spent)
        self._write(self.version, now, **fields)
        return Reply("done")

    # -- PDN ---------------------------------------------------------------------------------------

    def pdn(self) -> str:
        tags = {
            "Event": _("Rated game") if self.rated else _("Casual game"),
            "Site": "dama_learn",
            "Date": self.created.strftime("%Y.%m.%d"),
            "White": self.white.get_username() if self.white else "?",
            "Black": self.black.get_username() if self.black else "?",
        }
        if self.clocked:
            tags["TimeControl"] = f"{self.base_seconds}+{self.increment_seconds}"
        return engine.pdn(self.variant, self.start_fen, self.moves, tags, self.result)


def remind_correspondence(*, base_url: str, now: datetime | None = None) -> int:
    """Mail each correspondence player to move whose move's deadline is less than
    ``REMIND_BEFORE`` away, once per move (``reminded_version``, written before sending);
    how many were mailed."""
    from django.core.mail import send_mail
    from django.template.loader import render_to_string
    from django.urls import reverse
    from django.utils import translation

    now = now or timezone.now()
    sent = 0
    games = VersusGame.objects.filter(
        state=VersusGame.State.PLAYING, days_per_move__isnull=False
    ).exclude(reminded_version=F("version"))
    for game in games.select_related("white", "black", "white__profile", "black__profile"):
        deadline = game.deadline()
        if deadline is None or not now < deadline <= now + REMIND_BEFORE:
            continue
        user = game.player(game.side_to_move)
        if user is None or not user.email or not user.is_active:
            continue
        done = VersusGame.objects.filter(pk=game.pk, version=game.version).update(
            reminded_version=game.version
        )
        if not done:
            continue
        profile = getattr(user, "profile", None)
        language = (profile.language if profile is not None else "") or settings.LANGUAGE_CODE
        with translation.override(language):
            context = {
                "user": user,
                "deadline": deadline,
                "url": base_url.rstrip("/") + reverse("versus:game", args=[game.token]),
            }
            subject = render_to_string("versus/reminder_subject.txt", context).strip()
            body = render_to_string("versus/reminder_email.txt", context)
        send_mail(subject, body, None, [user.email])
        sent += 1
    return sent


def games_of(user):
    """``user``'s games (as either player) and the challenges they made."""
    return VersusGame.objects.filter(
        Q(white=user) | Q(black=user) | Q(challenger=user) | Q(invited=user)
    ).distinct()


def simuls_of(user):
    """The simuls ``user`` hosts or plays in, and those open in a class they attend."""
    return Simul.objects.filter(
        Q(host=user)
        | Q(players=user)
        | Q(state=Simul.State.OPEN, classroom__memberships__user=user)
    ).distinct()


def speed_of(base: int | None, increment: int, days: int | None) -> str:
    """The game's speed for its rating.

    >>> speed_of(180, 2, None), speed_of(600, 5, None), speed_of(None, 0, 3), speed_of(None, 0, None)
    ('blitz', 'rapid', 'correspondence', 'untimed')
    """
    if days is not None:
        return str(VersusGame.Speed.CORRESPONDENCE.value)
    if base is None:
        return str(VersusGame.Speed.UNTIMED.value)
    if base + 40 * increment < BLITZ_BELOW_SECONDS:
        return str(VersusGame.Speed.BLITZ.value)
    return str(VersusGame.Speed.RAPID.value)


def check_clock(base_minutes: int | None, increment: int, days: int | None) -> None:
    """A ``ValidationError`` unless the clock is 1+0 to 60+30, or 1-14 days a move, or none."""
    if days is not None:
        if base_minutes is not None:
            raise ValidationError(_("Choose a clock or days a move, not both."), code="clock")
        if not MIN_DAYS <= days <= MAX_DAYS:
            raise ValidationError(_("Days a move: choose from 1 to 14."), code="days")
        return
    if base_minutes is None:
        return
    if not MIN_BASE_MINUTES <= base_minutes <= MAX_BASE_MINUTES:
        raise ValidationError(_("Minutes for the game: choose from 1 to 60."), code="base")
    if not 0 <= increment <= MAX_INCREMENT_SECONDS:
        raise ValidationError(_("Seconds added per move: choose from 0 to 30."), code="increment")


def flag_task_horizon() -> float:
    """How far ahead a flag is queued as a task of its own (a Redis broker delivers a task
    held longer than its visibility timeout again, so a far deadline is left to the sweep,
    :func:`judge_clocks`, and to whoever opens the game)."""
    return float(min(FLAG_TASK_MAX_SECONDS, settings.CELERY_VISIBILITY_TIMEOUT // 2))


def judge_clocks(now: datetime | None = None) -> int:
    """End every game in play whose side to move is out of time (or whose first moves did not
    come): the sweep that the beat runs every minute. How many ended."""
    now = now or timezone.now()
    games = VersusGame.objects.filter(state=VersusGame.State.PLAYING).filter(
        Q(base_seconds__isnull=False) | Q(days_per_move__isnull=False)
    )
    ended = 0
    for game in games.iterator():
        deadline = game.deadline()
        if deadline is not None and deadline <= now and game.judge_clock_unattended(now):
            ended += 1
    return ended


def after_credit(pks: list[int], now: datetime) -> None:
    """Once an outage's credit commits: tell the games' pages, and queue each flag for its new
    deadline (the tasks queued before carry an old version)."""
    for game in VersusGame.objects.filter(pk__in=pks, state=VersusGame.State.PLAYING):
        push.changed(game.pk, game.version)
        deadline = game.deadline()
        if deadline is None:
            continue
        seconds = max(0.0, (deadline - now).total_seconds()) + 0.1
        if seconds <= flag_task_horizon():
            queue_flag(game.pk, game.version, seconds)


def queue_flag(pk: int, version: int, seconds: float) -> None:
    """Queue the task that judges the flag of game ``pk`` at ``version`` in ``seconds``
    (by name: the models do not import the tasks); a broker that is down is logged."""
    try:
        current_app.send_task("versus.flag_game", args=(pk, version), countdown=seconds)
    except Exception:
        log.warning("versus: could not queue the flag of game %s", pk, exc_info=True)


def rate_game(white_id: int, black_id: int, variant: str, speed: str, score: float) -> dict:
    """Rate a finished game (White scored ``score``) in the caller's transaction, the two
    rating rows locked; the ratings before and after, by side."""
    for user_id in (white_id, black_id):
        VersusRating.objects.get_or_create(user_id=user_id, variant=variant, speed=speed)
    rows = {
        row.user_id: row
        # locked in one order, so that two games of the same players ending at once wait
        for row in VersusRating.objects.select_for_update()
        .filter(user_id__in=[white_id, black_id], variant=variant, speed=speed)
        .order_by("pk")
    }
    white, black = rows[white_id], rows[black_id]
    new_white, new_black = ratings.game_result(white.value, black.value, score)
    change = {}
    for side, row, new in (("w", white, new_white), ("b", black, new_black)):
        change[side] = [round(row.rating), round(new.rating)]
        row.rating, row.deviation, row.volatility = new.rating, new.deviation, new.volatility
        row.games += 1
        row.updated = timezone.now()
        row.save()
    return change


class VersusRating(models.Model):
    """A player's Glicko-2 rating in games between players, per variant and speed (apart from
    the puzzle rating)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="versus_ratings"
    )
    variant = models.CharField(max_length=20, choices=VARIANT_CHOICES)
    speed = models.CharField(max_length=16, choices=VersusGame.Speed)
    rating = models.FloatField(default=ratings.DEFAULT_RATING)
    deviation = models.FloatField(default=ratings.DEFAULT_DEVIATION)
    volatility = models.FloatField(default=ratings.DEFAULT_VOLATILITY)
    games = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "variant", "speed"], name="versus_one_rating_per_speed"
            )
        ]
        verbose_name = gettext_lazy("rating against players")
        verbose_name_plural = gettext_lazy("ratings against players")

    def __str__(self) -> str:
        return f"{self.user_id} {self.variant} {self.speed} {self.rating:.0f}"

    @property
    def value(self) -> ratings.Rating:
        return ratings.Rating(self.rating, self.deviation, self.volatility)

    @property
    def provisional(self) -> bool:
        return self.deviation > 110


#: the most students one simul takes
MAX_SIMUL_BOARDS = 30


class Simul(models.Model):
    """A teacher's simultaneous exhibition: the host (a teacher of the class) plays several of
    its students at once, one :class:`VersusGame` each (a class game, casual, with no clock).

    It is ``open`` while the host chooses the students and the students join; :meth:`start`
    makes the games (``playing``); it is ``over`` once every game has ended
    (:meth:`finish_if_done`, called in the transaction that ends a game), or when the host
    cancels it before the start. Every change bumps ``version`` and tells the simul's page
    (``versus.push.simul_changed``), as every change of one of its games does.
    """

    class State(models.TextChoices):
        OPEN = "open", gettext_lazy("open to join")
        PLAYING = "playing", gettext_lazy("in play")
        OVER = "over", gettext_lazy("finished")

    classroom = models.ForeignKey(
        "classroom.Classroom", on_delete=models.CASCADE, related_name="simuls"
    )
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="simuls_hosted"
    )
    variant = models.CharField(gettext_lazy("variant"), max_length=20, choices=VARIANT_CHOICES)
    #: the host's colour on every board
    host_colour = models.CharField(
        max_length=5,
        choices=[(c, label) for c, label in VersusGame.Colour.choices if c != "random"],
        default=VersusGame.Colour.WHITE,
    )
    players = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="simuls_joined", blank=True
    )
    state = models.CharField(max_length=10, choices=State, default=State.OPEN)
    version = models.PositiveIntegerField(default=0)
    created = models.DateTimeField(default=timezone.now)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]
        verbose_name = gettext_lazy("simul")
        verbose_name_plural = gettext_lazy("simuls")

    def __str__(self) -> str:
        return f"simul #{self.pk} {self.host_id} ({self.classroom_id})"

    @classmethod
    def create(
        cls, host, classroom, *, variant: str, host_colour: str = "white", students=()
    ) -> Simul:
        """A new open simul of ``classroom`` hosted by ``host`` with ``students`` in it
        already; ``PermissionDenied`` unless ``host`` teaches the class, a ``ValidationError``
        for a student not in it, too many, or a colour other than White or Black."""
        if not classroom.is_teacher(host):
            raise PermissionDenied
        if host_colour not in (VersusGame.Colour.WHITE, VersusGame.Colour.BLACK):
            raise ValidationError(_("Choose White or Black."), code="colour")
        if variant not in dict(VARIANT_CHOICES):
            raise ValidationError(_("Unknown variant."), code="variant")
        students = list(students)
        if len(students) > MAX_SIMUL_BOARDS:
            raise ValidationError(
                ngettext(
                    "A simul takes at most %(count)s student.",
                    "A simul takes at most %(count)s students.",
                    MAX_SIMUL_BOARDS,
                )
                % {"count": MAX_SIMUL_BOARDS},
                code="many",
            )
        ids = {s.pk for s in students}
        in_class = set(classroom.students().filter(pk__in=ids).values_list("pk", flat=True))
        if ids - in_class or host.pk in ids:
            raise ValidationError(_("Choose students of the class."), code="students")
        with transaction.atomic():
            simul = cls.objects.create(
                classroom=classroom, host=host, variant=variant, host_colour=host_colour
            )
            simul.players.add(*students)
        return simul

    # -- reading -----------------------------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        return self.state == self.State.OPEN

    @property
    def is_playing(self) -> bool:
        return self.state == self.State.PLAYING

    @property
    def is_over(self) -> bool:
        return self.state == self.State.OVER

    @property
    def host_side(self) -> str:
        return "w" if self.host_colour == VersusGame.Colour.WHITE else "b"

    def is_host(self, user) -> bool:
        return user.is_authenticated and user.pk == self.host_id

    def can_view(self, user) -> bool:
        """The class's teachers and students (the host among them); nobody else."""
        if not user.is_authenticated:
            return False
        return self.classroom.is_teacher(user) or self.classroom.is_student(user)

    def may_join(self, user) -> bool:
        """A student of the class not in yet, while the simul is open."""
        return (
            self.is_open
            and self.classroom.is_student(user)
            and not self.players.filter(pk=user.pk).exists()
        )

    def boards(self) -> list[VersusGame]:
        """The games in the order they were made (board 1, 2, ...)."""
        return list(self.games.select_related("white", "black").order_by("pk"))

    def host_to_move(self, game: VersusGame) -> bool:
        return game.is_playing and game.side_to_move == self.host_side

    def grid_version(self, games: list[VersusGame] | None = None) -> int:
        """A number that grows with every change of the simul or one of its games (the page's
        ``?v=``): the simul's version plus its games' versions."""
        games = self.boards() if games is None else games
        return self.version + sum(g.version for g in games)

    def score(self, games: list[VersusGame] | None = None) -> dict[str, int]:
        """The host's wins, draws and losses, the games aborted and those still in play."""
        games = self.boards() if games is None else games
        tally = {"won": 0, "drawn": 0, "lost": 0, "aborted": 0, "playing": 0}
        for game in games:
            tally[game.outcome_for(self.host_side) or "playing"] += 1
        return tally

    def next_board(self, games: list[VersusGame], after: str = "") -> VersusGame | None:
        """The first board after the one with token ``after`` (going round) where it is the
        host's move; None when there is none."""
        waiting = [g for g in games if self.host_to_move(g)]
        if not waiting:
            return None
        tokens = [g.token for g in games]
        if after in tokens:
            here = tokens.index(after)
            later = [g for g in waiting if tokens.index(g.token) > here]
            if later:
                return later[0]
        return waiting[0]

    # -- writing -----------------------------------------------------------------------------------

    def _locked(self) -> Simul:
        return Simul.objects.select_for_update().get(pk=self.pk)

    def _bump(self, locked: Simul, now: datetime, **fields: Any) -> None:
        Simul.objects.filter(pk=self.pk).update(version=F("version") + 1, **fields)
        for name, value in fields.items():
            setattr(self, name, value)
        self.version = locked.version + 1
        pk = self.pk
        transaction.on_commit(lambda: push.simul_changed(pk))

    def join(self, user, now: datetime | None = None) -> Reply:
        """``user`` (a student of the class) joins the open simul; joined already is done."""
        now = now or timezone.now()
        with transaction.atomic():
            locked = self._locked()
            if locked.players.filter(pk=user.pk).exists():
                return Reply("done")
            if not locked.may_join(user):
                return Reply("refused", _("This simul is not open to you."))
            if locked.players.count() >= MAX_SIMUL_BOARDS:
                return Reply("refused", _("The simul is full."))
            locked.players.add(user)
            self._bump(locked, now)
        return Reply("done")

    def start(self, user, now: datetime | None = None) -> Reply:
        """The host starts the simul: one game for each student still in the class, the host
        on their colour, no clock; the games begin at once."""
        now = now or timezone.now()
        if not self.is_host(user):
            return Reply("refused", _("Only the host can do that."))
        with transaction.atomic():
            locked = self._locked()
            if not locked.is_open:
                return Reply("refused", _("The simul has started already."))
            students = list(
                self.classroom.students().filter(pk__in=locked.players.values("pk")).order_by("pk")
            )
            if not students:
                return Reply("refused", _("No student has joined yet."))
            fen = engine.start_fen(self.variant)
            white_host = self.host_side == "w"
            for student in students:
                VersusGame.objects.create(
                    variant=self.variant,
                    challenger=self.host,
                    invited=student,
                    white=self.host if white_host else student,
                    black=student if white_host else self.host,
                    classroom=self.classroom,
                    simul=self,
                    public=False,
                    rated=False,
                    start_fen=fen,
                    state=VersusGame.State.PLAYING,
                    turn_started=now,
                    created=now,
                    updated=now,
                )
            self._bump(locked, now, state=self.State.PLAYING, started=now)
        return Reply("done")

    def cancel(self, user, now: datetime | None = None) -> Reply:
        """The host calls the simul off before it starts."""
        now = now or timezone.now()
        if not self.is_host(user):
            return Reply("refused", _("Only the host can do that."))
        with transaction.atomic():
            locked = self._locked()
            if not locked.is_open:
                return Reply("refused", _("The simul has started already."))
            self._bump(locked, now, state=self.State.OVER, finished=now)
        return Reply("done")

    @classmethod
    def finish_if_done(cls, pk: int, now: datetime | None = None) -> bool:
        """End simul ``pk`` when every one of its games is over (True when it ended now). The
        simul's row is locked, so of two games ending at once the second sees the first."""
        now = now or timezone.now()
        with transaction.atomic():
            simul = cls.objects.select_for_update().filter(pk=pk).first()
            if simul is None or not simul.is_playing:
                return False
            if simul.games.exclude(state=VersusGame.State.OVER).exists():
                return False
            simul._bump(simul, now, state=cls.State.OVER, finished=now)
        return True


class SiteHeartbeat(models.Model):
    """When a web process of the site last answered: one row, written every
    ``DAMA_HEARTBEAT_SECONDS`` by each web process (``versus.heartbeat``). A heartbeat that finds
    the last one more than ``DAMA_OUTAGE_SECONDS`` old has found an outage, and gives it back to
    the running clocks (:meth:`VersusGameQuerySet.credit_outage`) in its own transaction, by a
    conditional update: of two processes that start at once after an outage, one credits it."""

    #: the one row
    ROW = 1

    seen = models.DateTimeField(gettext_lazy("site last answered"))

    class Meta:
        verbose_name = gettext_lazy("site heartbeat")
        verbose_name_plural = gettext_lazy("site heartbeats")

    def __str__(self) -> str:
        return f"{self.seen:%Y-%m-%d %H:%M:%S}"

    @classmethod
    def last_seen(cls) -> datetime | None:
        return cls.objects.filter(pk=cls.ROW).values_list("seen", flat=True).first()

    @classmethod
    def beat(cls, now: datetime | None = None) -> timedelta:
        """Write that the site answers ``now``; the outage found and credited (zero: none)."""
        now = now or timezone.now()
        with transaction.atomic():
            last = cls.last_seen()
            if last is None:
                cls.objects.get_or_create(pk=cls.ROW, defaults={"seen": now})
                return timedelta(0)
            if now <= last:
                return timedelta(0)  # another process beat since
            if not cls.objects.filter(pk=cls.ROW, seen=last).update(seen=now):
                return timedelta(0)  # another process beat first (and credited any outage)
            gap = now - last
            if gap.total_seconds() <= settings.DAMA_OUTAGE_SECONDS:
                return timedelta(0)
            pks = VersusGame.objects.credit_outage(last, now)
        log.warning(
            "versus: the site did not answer for %.1f s (from %s): given back to %d game(s)",
            gap.total_seconds(), last.isoformat(), len(pks),
        )  # fmt: skip
        return gap

    @classmethod
    def answered_at(cls, moment: datetime) -> bool:
        """Whether a heartbeat shows the site answering at ``moment`` or later (or nothing is
        known: the heartbeat is off, or no web process has beaten yet)."""
        if not settings.DAMA_HEARTBEAT_SECONDS:
            return True
        seen = cls.last_seen()
        return seen is None or seen >= moment
