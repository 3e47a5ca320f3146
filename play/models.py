"""Games against the computer.

A :class:`Game` is its start position, the routes played and whose turn it is: the player's
(``player``), the computer's (``thinking``: a worker searches, or the request itself at an
instant level) or nobody's (``over``). Every change is a model method that writes with a
conditional update on ``version`` (two tabs, a double submit, a reply of the computer for a
position that was taken back: the loser writes nothing), as ``puzzles.Attempt`` does.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cached_property
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core import workers
from core.models import SEALED_MESSAGE, SealedPosition
from core.numbers import read_int
from core.replies import Conflict, Reply
from core.variants import VARIANT_CHOICES

from . import engine, signals

#: a computer still thinking after this long is asked again (a lost message, a dead worker)
ASK_AGAIN_SECONDS = 20
#: the player's clock starts when their page shows the position, at the latest this long after
#: their turn began: the page learns of the computer's move at its next poll, and the wait for
#: it is the computer's turn, not the player's (``play.engine.MAX_POLL_MS``, the longest pause)
CLOCK_GRACE = timedelta(milliseconds=engine.MAX_POLL_MS)


@dataclass(frozen=True)
class TimeControl:
    """A clock a game may have: ``minutes`` for the game, ``increment`` seconds added to the
    player's time after each of their moves (as lichess writes it, ``5+3``).

    >>> TIME_CONTROLS["5+3"].base, TIME_CONTROLS["5+3"].added
    (datetime.timedelta(seconds=300), datetime.timedelta(seconds=3))
    """

    name: str
    minutes: int
    increment: int

    @property
    def base(self) -> timedelta:
        return timedelta(minutes=self.minutes)

    @property
    def added(self) -> timedelta:
        return timedelta(seconds=self.increment)


#: the clocks a game against the computer may have (none is "")
TIME_CONTROLS = {
    control.name: control
    for control in (
        TimeControl("5+3", 5, 3),
        TimeControl("10+5", 10, 5),
        TimeControl("15+10", 15, 10),
    )
}


class Game(models.Model):
    class State(models.TextChoices):
        PLAYER = "player", gettext_lazy("your move")
        THINKING = "thinking", gettext_lazy("the computer is thinking")
        OVER = "over", gettext_lazy("finished")

    class Source(models.TextChoices):
        NEW = "new", gettext_lazy("new game")
        POSITION = "position", gettext_lazy("from a position")
        PUZZLE = "puzzle", gettext_lazy("after a puzzle")
        LESSON = "lesson", gettext_lazy("after a lesson step")
        EDITOR = "editor", gettext_lazy("from the board editor")
        EXAM = "exam", gettext_lazy("an exam's endgame")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="computer_games",
        verbose_name=gettext_lazy("player"),
    )
    variant = models.CharField(gettext_lazy("variant"), max_length=20, choices=VARIANT_CHOICES)
    level = models.PositiveSmallIntegerField(gettext_lazy("level"))
    player_white = models.BooleanField(gettext_lazy("player has White"), default=True)
    start_fen = models.CharField(gettext_lazy("start position"), max_length=400)
    moves = models.JSONField(gettext_lazy("moves"), default=list, blank=True)
    state = models.CharField(
        gettext_lazy("state"), max_length=10, choices=State, default=State.PLAYER
    )
    version = models.PositiveIntegerField(default=0)
    result = models.CharField(gettext_lazy("result"), max_length=3, blank=True)
    reason = models.CharField(gettext_lazy("how it ended"), max_length=20, blank=True)
    article = models.CharField(gettext_lazy("article"), max_length=60, blank=True)
    seed = models.PositiveIntegerField(default=0)
    source = models.CharField(
        gettext_lazy("source"), max_length=10, choices=Source, default=Source.NEW
    )
    takebacks = models.PositiveSmallIntegerField(gettext_lazy("takebacks"), default=0)
    hints = models.PositiveSmallIntegerField(gettext_lazy("hints"), default=0)
    #: the last hint: {"version": v, "route": [...], "notation": "32-28"} or {"version": v} while
    #: a worker searches it
    hint = models.JSONField(null=True, blank=True)
    #: what the computer's last search saw (score, depth, nodes, seconds, pv)
    last_search = models.JSONField(null=True, blank=True)
    asked = models.DateTimeField(null=True, blank=True)
    #: a game of an exam sitting (``exam:<id>``): no hint, ever; the positions it reaches are
    #: sealed (``core.models.SealedPosition``) under that label until ``sealed_until`` (the
    #: sitting's deadline; None once the sitting ended and lifted them)
    sealed_by = models.CharField(gettext_lazy("sealed by"), max_length=40, blank=True)
    sealed_until = models.DateTimeField(gettext_lazy("sealed until"), null=True, blank=True)
    #: a visitor's game: whose turn on the workers its searches take (their session's key, a
    #: keyed hash) and the address they share with other visitors (:class:`Search`)
    player_key = models.CharField(max_length=24, blank=True, editable=False)
    address_key = models.CharField(max_length=24, blank=True, editable=False)
    #: how long the computer has thought in this game, from each move it was asked for to its
    #: reply (the wait for a worker included), and since when it thinks now (an exam's clock
    #: stands still meanwhile: ``exams.models.Exam.clock_stopped``)
    thought = models.DurationField(gettext_lazy("the computer's time"), default=timedelta)
    thinking_since = models.DateTimeField(null=True, blank=True)
    #: the player's clock (``clock_base`` None: a game without one, ``TIME_CONTROLS``): the time
    #: for the game, what each of the player's moves adds, and the time they have left as of
    #: ``player_clock_since``, when it started to run (their turn, from when their page showed
    #: it: :meth:`shown`); None while it stands still (the computer's turn, the end)
    clock_base = models.DurationField(gettext_lazy("time for the game"), null=True, blank=True)
    clock_increment = models.DurationField(gettext_lazy("time added per move"), default=timedelta)
    player_clock = models.DurationField(gettext_lazy("player's time left"), null=True, blank=True)
    player_clock_since = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(gettext_lazy("started"), default=timezone.now)
    updated = models.DateTimeField(gettext_lazy("updated"), default=timezone.now)

    class Meta:
        ordering = ["-updated", "-pk"]
        indexes = [models.Index(fields=["user", "-updated"])]
        verbose_name = gettext_lazy("game against the computer")
        verbose_name_plural = gettext_lazy("games against the computer")

    def __str__(self) -> str:
        return f"{self.variant} level {self.level} #{self.pk}"

    # -- reading ------------------------------------------------------------------------------

    def board(self) -> Any:
        """The position now, with the moves on its stack (the draw rules count them)."""
        return engine.replay(self.variant, self.start_fen, self.moves)

    @property
    def player_to_move(self) -> bool:
        return self.state == self.State.PLAYER

    @property
    def is_over(self) -> bool:
        return self.state == self.State.OVER

    @cached_property
    def white_started(self) -> bool:
        """Whether White made the first move (the start position's side to move)."""
        return engine.white_to_move(self.start_fen, self.variant)

    def is_player_ply(self, index: int) -> bool:
        """Whether move ``index`` (0-based) of the game was the player's."""
        white_moved = self.white_started == (index % 2 == 0)
        return white_moved == self.player_white

    @property
    def player_won(self) -> bool:
        return self.result == ("2-0" if self.player_white else "0-2")

    @property
    def outcome_for_player(self) -> str:
        """``won``, ``lost``, ``drawn`` or "" while the game goes on."""
        if not self.result:
            return ""
        if self.result == "1-1":
            return "drawn"
        return "won" if self.player_won else "lost"

    def hints_allowed(self) -> bool:
        """Whether the player may ask for a hint: never in an exam's game, nor in a sealed
        position (an exam's: ``core.models.SealedPosition``)."""
        return not self.sealed_by and not SealedPosition.is_sealed(self.board().fen(), self.variant)

    @property
    def hint_pending(self) -> bool:
        return (
            bool(self.hint)
            and self.hint.get("version") == self.version
            and not self.hint.get("route")
        )

    @property
    def current_hint(self) -> dict[str, Any] | None:
        if self.hint and self.hint.get("version") == self.version and self.hint.get("route"):
            return self.hint
        return None

    @property
    def searcher(self) -> str:
        """Whose line for the workers this game's searches join (:class:`Search`): an exam's
        game the exams of its account (a line of their own, on the ``exam`` queue), another
        game its account, a visitor's game their session."""
        if self.source == self.Source.EXAM:
            return f"x{self.user_id}"
        if self.user_id is not None:
            return f"u{self.user_id}"
        return self.player_key or f"g{self.pk}"

    def thinking_time(self, now: datetime | None = None) -> timedelta:
        """How long the computer has thought in this game, a search under way to ``now``."""
        if self.thinking_since is None:
            return self.thought
        return self.thought + max(timedelta(0), (now or timezone.now()) - self.thinking_since)

    def board_at(self, ply: int) -> Any:
        """The position after the game's first ``ply`` moves (0: the start), with those moves on
        its stack (the last one is marked)."""
        return engine.replay(self.variant, self.start_fen, self.moves[: max(ply, 0)])

    # -- the clock ------------------------------------------------------------------------------

    @property
    def has_clock(self) -> bool:
        return self.clock_base is not None

    @property
    def time_control(self) -> str:
        """The clock as lichess writes it (``5+3``), "" for a game without one."""
        if self.clock_base is None:
            return ""
        minutes = int(self.clock_base.total_seconds()) // 60
        return f"{minutes}+{int(self.clock_increment.total_seconds())}"

    def player_time_left(self, now: datetime | None = None) -> timedelta | None:
        """The player's time left at ``now`` (never below zero); None without a clock."""
        if self.clock_base is None or self.player_clock is None:
            return None
        if self.player_clock_since is None:
            return self.player_clock
        used = max(timedelta(0), (now or timezone.now()) - self.player_clock_since)
        return max(timedelta(0), self.player_clock - used)

    def computer_time_left(self, now: datetime | None = None) -> timedelta | None:
        """The computer's clock, shown beside the player's: the time for the game and an
        increment for each of its moves, less the time it has thought (the wait for a worker
        included). It never loses on time: a search is bounded by its level, and the wait for a
        worker is the site's, not the computer's; at zero it stays there. None without a clock."""
        if self.clock_base is None:
            return None
        replies = sum(1 for i in range(len(self.moves)) if not self.is_player_ply(i))
        left = self.clock_base + self.clock_increment * replies - self.thinking_time(now)
        return max(timedelta(0), left)

    @property
    def player_clock_runs(self) -> bool:
        return self.has_clock and self.state == self.State.PLAYER

    @property
    def computer_clock_runs(self) -> bool:
        return self.has_clock and self.state == self.State.THINKING

    # -- writing ------------------------------------------------------------------------------

    def _write(self, expected: int, **fields: Any) -> None:
        """Write ``fields`` and the next version when the game is still at version ``expected``
        (else :class:`Conflict`, nothing written); the instance follows."""
        now = timezone.now()
        done = Game.objects.filter(pk=self.pk, version=expected).update(
            version=F("version") + 1, updated=now, **fields
        )
        if not done:
            raise Conflict
        ended = fields.get("state") == self.State.OVER and self.state != self.State.OVER
        for name, value in fields.items():
            setattr(self, name, value)
        self.version, self.updated = expected + 1, now
        if ended:  # the analysis listens (play.signals): once the end has committed
            transaction.on_commit(
                lambda: signals.game_over.send(sender=Game, game=self), robust=True
            )

    def _clock(self, thinking: bool) -> dict[str, Any]:
        """The computer's time once the game goes on with the computer thinking or not: a
        search that ends adds its time to ``thought``, one that starts starts now."""
        now = timezone.now()
        return {"thought": self.thinking_time(now), "thinking_since": now if thinking else None}

    def _player_clock(self, now: datetime, *, runs: bool, moved: bool = False) -> dict[str, Any]:
        """The player's clock once the game goes on: stopped (the computer's turn, the end) at
        the time left at ``now``, the increment added when the player has just moved; running
        when it is their turn, from when their page shows it (:meth:`shown`), at the latest
        ``CLOCK_GRACE`` from ``now``; a clock that runs already runs on."""
        if self.clock_base is None:
            return {}
        if runs and self.player_clock_since is not None:
            return {}
        left = self.player_time_left(now) or timedelta(0)
        if moved:
            left += self.clock_increment
        return {"player_clock": left, "player_clock_since": now + CLOCK_GRACE if runs else None}

    def _after(self, board: Any, moves: list, *, moved: bool = False) -> dict[str, Any]:
        """The fields of the game once ``moves`` are on ``board`` (``moved``: the player's move
        was the last): over (result, reason, article) or the next side to move, and the
        clocks."""
        now = timezone.now()
        end = engine.end_of(board)
        if end is not None:
            return {
                "moves": moves,
                "state": self.State.OVER,
                "result": end.result,
                "reason": end.reason,
                "article": end.article,
                "asked": None,
                **self._clock(False),
                **self._player_clock(now, runs=False, moved=moved),
            }
        player_next = engine.white_turn(board) == self.player_white
        return {
            "moves": moves,
            "state": self.State.PLAYER if player_next else self.State.THINKING,
            "result": "",
            "reason": "",
            "article": "",
            "asked": None if player_next else now,
            **self._clock(not player_next),
            **self._player_clock(now, runs=player_next, moved=moved),
        }

    @classmethod
    def start(
        cls,
        *,
        user,
        variant: str,
        level: int,
        player_white: bool,
        fen: str = "",
        source: str = "new",
        sealed_by: str = "",
        sealed_until: datetime | None = None,
        player_key: str = "",
        address_key: str = "",
        clock: str = "",
    ) -> Game:
        """A new game (``fen`` "" for the start position); the computer starts thinking at once
        when it is to move. A sealed position is refused (``ValidationError``, code
        ``sealed``) but to an exam's own game (``sealed_by``), whose positions are sealed
        until ``sealed_until``. A visitor's game has the keys of their session and address
        (``play.owner.Owner.search_keys``: whose line its searches join). ``clock``: one of
        ``TIME_CONTROLS``, or "" for a game without a clock."""
        start_fen = engine.check_start(variant, fen) if fen else engine.start_fen(variant)
        if not sealed_by:
            SealedPosition.refuse(start_fen, variant)
        control = TIME_CONTROLS.get(check_clock(clock))
        game = cls(
            user=user,
            variant=variant,
            level=level,
            player_white=player_white,
            start_fen=start_fen,
            seed=random.randrange(1 << 30),
            source=source,
            sealed_by=sealed_by,
            sealed_until=sealed_until,
            player_key="" if user is not None else player_key,
            address_key="" if user is not None else address_key,
            clock_base=control.base if control else None,
            clock_increment=control.added if control else timedelta(0),
            player_clock=control.base if control else None,
        )
        board = game.board()
        for name, value in game._after(board, []).items():
            setattr(game, name, value)
        game.save()
        game._seal(board)
        game._ask_computer()
        return game

    def _seal(self, board: Any) -> None:
        """An exam's game seals the position it reached while its sitting is open."""
        if self.sealed_by and self.sealed_until and self.sealed_until > timezone.now():
            SealedPosition.seal(
                [board.fen()], self.variant, label=self.sealed_by, until=self.sealed_until
            )

    @classmethod
    def unseal(cls, label: str) -> None:
        """The sitting ``label`` ended: lift the seals of its games' positions (their hints stay
        refused)."""
        cls.objects.filter(sealed_by=label).update(sealed_until=None)
        SealedPosition.lift(label)

    def play(self, *, route: str = "", text: str = "") -> Reply:
        """The player's move, clicked (``route``, landing by landing) or typed (``text``).

        An illegal move, unreadable input, a move while the computer thinks or after the end
        change nothing. A legal move is stored and the computer is asked for its reply: at an
        instant level in this request, else on a worker (the page follows the game)."""
        if self.state == self.State.OVER:
            return Reply("over", _("The game is over."))
        if self.state == self.State.THINKING:
            return Reply("wait", _("Wait for the computer's move."))
        if self.flag():
            return Reply("over", _("Your time ran out."))
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
        move = engine.played(board, entry.move)
        board.push(entry.move)
        sealed = "" if self.sealed_by else SealedPosition.why_sealed(board.fen(), self.variant)
        if sealed:
            # the computer would play on from an exam's position: its move is the answer
            return Reply("sealed", sealed)
        with transaction.atomic():
            self._write(self.version, **self._after(board, [*self.moves, move.route], moved=True))
            self._seal(board)
            self._ask_computer()
        return Reply("moved", extra={"notation": move.notation})

    def _ask_computer(self) -> None:
        """The computer's move: now at an instant level, else a search in the player's line
        for the workers (:class:`Search`), sent once this commits if it is their turn."""
        if self.state != self.State.THINKING:
            return
        if engine.is_instant(self.level):
            self.think()
            return
        Search.ask(self, Search.Kind.MOVE)

    def think(self) -> bool:
        """Search the computer's move and play it (a worker's task, or the request at an
        instant level); False when the game moved on meanwhile."""
        if self.state != self.State.THINKING:
            return False
        board = self.board()
        found = engine.search(board, self.level, seed=self.seed + len(self.moves), game=self.pk)
        return self.computer_replied(self.version, found)

    def computer_replied(self, version: int, found: engine.Found) -> bool:
        """Play the computer's move ``found`` for version ``version`` of the game; False (nothing
        written) when the game is no longer there (a takeback, a resignation, another delivery
        of the same task)."""
        if self.version != version or self.state != self.State.THINKING:
            return False
        board = self.board()
        move = engine.find(board, found.route)
        board.push(move)
        fields = self._after(board, [*self.moves, found.route])
        fields["last_search"] = {
            "notation": found.notation,
            "score": found.score,
            "depth": found.depth,
            "nodes": found.nodes,
            "seconds": round(found.seconds, 3),
            "pv": found.pv,
        }
        try:
            self._write(version, **fields)
        except Conflict:
            return False
        self._seal(board)
        return True

    def ask_again_if_lost(self) -> bool:
        """Send the computer's move (or the hint asked for) to the workers again when it has
        been waited for longer than ``ASK_AGAIN_SECONDS`` (a lost message, a worker gone; the
        tasks are idempotent: a second delivery does nothing), or, while it waits its turn in
        the player's line, send the line's next search if a lost one held the turn
        (:meth:`Search.ask_again`)."""
        thinking = self.state == self.State.THINKING and not engine.is_instant(self.level)
        if not (thinking or self.hint_pending):
            return False
        cutoff = timezone.now() - timedelta(seconds=ASK_AGAIN_SECONDS)
        if self.asked and self.asked > cutoff:
            return False
        done = Game.objects.filter(pk=self.pk, version=self.version, state=self.state).update(
            asked=timezone.now()
        )
        if done:
            Search.ask_again(self, Search.Kind.MOVE if thinking else Search.Kind.HINT)
        return bool(done)

    def takeback(self) -> Reply:
        """Take back the player's last move (and the computer's reply to it, if it came)."""
        player_plies = [i for i in range(len(self.moves)) if self.is_player_ply(i)]
        if not player_plies or self.reason in ("resigned", "time"):
            return Reply("nothing", _("There is no move of yours to take back."))
        keep = self.moves[: player_plies[-1]]
        board = engine.replay(self.variant, self.start_fen, keep)
        fields = self._after(board, keep)
        fields["takebacks"] = self.takebacks + 1
        with transaction.atomic():
            self._write(self.version, **fields)
            self._ask_computer()  # only when the game started with the computer's move
        return Reply("takeback")

    def resign(self) -> Reply:
        if self.state == self.State.OVER:
            return Reply("over", _("The game is over."))
        self._write(
            self.version,
            state=self.State.OVER,
            result="0-2" if self.player_white else "2-0",
            reason="resigned",
            article="",
            asked=None,
            **self._clock(False),
            **self._player_clock(timezone.now(), runs=False),
        )
        return Reply("resigned")

    def flag(self, now: datetime | None = None) -> bool:
        """Judge the player's clock: when their time has run out on their turn the game is
        lost (reason ``time``). True when this ended it; nothing is written otherwise, nor when
        the game changed meanwhile (a move that came first was on time). Called whenever the
        game is looked at or played (its page, its polls, its moves, the lists of games): the
        server decides, never the page."""
        if not self.player_clock_runs:
            return False
        left = self.player_time_left(now or timezone.now())
        if left is None or left > timedelta(0):
            return False
        try:
            self._write(
                self.version,
                state=self.State.OVER,
                result="0-2" if self.player_white else "2-0",
                reason="time",
                article="",
                asked=None,
                player_clock=timedelta(0),
                player_clock_since=None,
                **self._clock(False),
            )
        except Conflict:
            return False
        return True

    def shown(self, now: datetime | None = None) -> None:
        """The player's page shows the game: their clock, waiting for the page since their
        turn began (at most ``CLOCK_GRACE``), starts now. Written on the version, without
        changing it (nothing moved)."""
        now = now or timezone.now()
        since = self.player_clock_since
        if not self.player_clock_runs or since is None or since <= now:
            return
        done = Game.objects.filter(
            pk=self.pk, version=self.version, player_clock_since__gt=now
        ).update(player_clock_since=now)
        if done:
            self.player_clock_since = now

    def ask_hint(self) -> Reply:
        """The engine's move for the player: searched here at an instant level, else on a worker
        (the page follows the game until it is there)."""
        if self.state == self.State.OVER:
            return Reply("over", _("The game is over."))
        if self.state != self.State.PLAYER:
            return Reply("wait", _("Wait for the computer's move."))
        if not self.hints_allowed():
            why = (
                ""
                if self.sealed_by
                else SealedPosition.why_sealed(self.board().fen(), self.variant)
            )
            return Reply("sealed", why or str(SEALED_MESSAGE))
        if self.current_hint or self.hint_pending:
            return Reply("hint")
        if engine.is_instant(engine.hint_level(self.level)):
            found = engine.hint(self.board(), self.level, seed=self.seed)
            hint = {"version": self.version, "route": found.route, "notation": found.notation}
        else:
            hint = {"version": self.version}
        # a hint does not move the game on: written on the version, without changing it
        asked = None if "route" in hint else timezone.now()
        done = Game.objects.filter(pk=self.pk, version=self.version).update(
            hint=hint, hints=F("hints") + 1, asked=asked
        )
        if not done:
            raise Conflict
        self.hint, self.hints, self.asked = hint, self.hints + 1, asked
        if "route" not in hint:
            Search.ask(self, Search.Kind.HINT)
        return Reply("hint")

    def hint_found(self, version: int) -> bool:
        """Search the hint asked for version ``version`` and store it (a worker's task)."""
        if self.version != version or self.state != self.State.PLAYER or not self.hint_pending:
            return False
        found = engine.hint(self.board(), self.level, seed=self.seed)
        hint = {"version": version, "route": found.route, "notation": found.notation}
        done = Game.objects.filter(pk=self.pk, version=version).update(hint=hint)
        if done:
            self.hint = hint
        return bool(done)

    # -- PDN ----------------------------------------------------------------------------------

    def pdn(self) -> str:
        who = self.user.get_username() if self.user is not None else _("Visitor")
        computer = _("Computer (level %(level)s)") % {"level": self.level}
        tags = {
            "Event": _("Game against the computer"),
            "Site": "dama_learn",
            "Date": self.created.strftime("%Y.%m.%d"),
            "White": who if self.player_white else computer,
            "Black": computer if self.player_white else who,
        }
        return engine.pdn(self.variant, self.start_fen, self.moves, tags, self.result)


def check_start(variant: str, fen: str) -> str:
    """``fen`` as the engine writes it, when a game may start there: a ``ValidationError`` for
    a position that is not valid, where the game is over, or that is sealed (an exam's)."""
    start_fen = engine.check_start(variant, fen)
    SealedPosition.refuse(start_fen, variant)
    return start_fen


class Search(models.Model):
    """A search the computer owes a game (its move, or a hint), in its player's line for the
    workers.

    Each player has one search at a time on the workers (``sent``: in the broker or running);
    the next waits here and is sent when that one ends (:meth:`done`), so it joins the back of
    the broker's queue behind everyone else's: with a search each in the broker, players take
    turns, and one player's twelve games wait for each other instead of everyone waiting for
    them. A player is an account, a visitor's session, or an account's exams (a line of their
    own on the ``exam`` queue, which the play workers take first: an exam's clock runs). The
    visitors of one address share ``DAMA_PLAY_SEARCHES_PER_ADDRESS`` turns besides (``lane``),
    so that a client that drops its cookie for a new session each game still has that many
    searches on the workers, not twelve.

    The turn is claimed by a conditional update that the unique constraints guard: of two
    processes sending a player's searches at once, the second one's update fails and sends
    nothing, on SQLite and PostgreSQL alike. A search sent ``DAMA_PLAY_SEARCH_LOST_SECONDS``
    ago and not done (its worker died, its message was lost) gives its turn up: it goes to the
    back of the line, to be sent again when its turn comes.
    """

    class Kind(models.TextChoices):
        MOVE = "move", gettext_lazy("the computer's move")
        HINT = "hint", gettext_lazy("a hint")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="searches")
    version = models.PositiveIntegerField()
    kind = models.CharField(max_length=4, choices=Kind)
    #: the line it is in (``Game.searcher``) and a visitor's address (``Game.address_key``)
    player = models.CharField(max_length=24)
    address = models.CharField(max_length=24, blank=True)
    #: which of the address's turns it holds (a visitor's search, once sent)
    lane = models.PositiveSmallIntegerField(null=True, blank=True)
    exam = models.BooleanField(default=False)
    asked = models.DateTimeField(default=timezone.now)
    sent = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["asked", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "version", "kind"], name="play_search_asked_once"
            ),
            models.UniqueConstraint(
                fields=["player"],
                condition=Q(sent__isnull=False),
                name="play_one_search_per_player",
            ),
            models.UniqueConstraint(
                fields=["address", "lane"],
                condition=Q(lane__isnull=False),
                name="play_search_turns_per_address",
            ),
        ]
        indexes = [
            models.Index(fields=["player", "asked"]),
            models.Index(fields=["address", "asked"]),
        ]
        verbose_name = gettext_lazy("search of the computer")
        verbose_name_plural = gettext_lazy("searches of the computer")

    def __str__(self) -> str:
        return f"{self.kind} game {self.game_id} v{self.version}"

    # -- asking --------------------------------------------------------------------------------

    @classmethod
    def ask(cls, game: Game, kind: str) -> Search:
        """Put the search of ``game`` (at its version) in its player's line; once this commits
        it is sent if it is their turn."""
        search, _created = cls.objects.get_or_create(
            game=game,
            version=game.version,
            kind=kind,
            defaults={
                "player": game.searcher,
                "address": "" if game.user_id is not None else game.address_key,
                "exam": game.source == Game.Source.EXAM,
            },
        )
        player, address = search.player, search.address
        transaction.on_commit(lambda: cls.send_next(player, address))
        return search

    @classmethod
    def ask_again(cls, game: Game, kind: str) -> None:
        """The game has waited long for its search. Sent ``ASK_AGAIN_SECONDS`` ago or more: its
        message again (a message lost: the task does nothing twice); sent since (it waited its
        turn in the line, and runs now): nothing, or the message would run a second time beside
        it, on a process another player's search needs; waiting: the line's next searches (a
        lost one may have held the turn); in no line: asked anew."""
        search = cls.objects.filter(game=game, version=game.version, kind=kind).first()
        now = timezone.now()
        if search is None:
            cls.ask(game, kind)
        elif search.sent is not None and search.sent > now - lost_after():
            if search.sent <= now - timedelta(seconds=ASK_AGAIN_SECONDS):
                transaction.on_commit(search._send)
        else:
            player, address = search.player, search.address
            transaction.on_commit(lambda: cls.send_next(player, address))

    # -- the turns -----------------------------------------------------------------------------

    @classmethod
    def send_next(cls, player: str, address: str = "", now: datetime | None = None) -> int:
        """Send the oldest waiting searches of ``player`` (and of the other visitors of
        ``address``) that have a turn, after the searches found lost have given theirs up;
        those no longer wanted (the game moved on) leave the line. Returns how many were sent."""
        now = now or timezone.now()
        line = Q(player=player) | Q(address=address) if address else Q(player=player)
        cls.objects.filter(line, sent__lt=now - lost_after()).update(
            sent=None, lane=None, asked=now
        )
        # who holds a turn now (to skip the claims bound to fail; the constraints decide)
        holding = cls.objects.filter(line, sent__isnull=False).values_list("player", "address")
        busy = {holder for holder, _address in holding}
        lanes = settings.DAMA_PLAY_SEARCHES_PER_ADDRESS - sum(
            1 for _holder, at in holding if address and at == address
        )
        waiting = cls.objects.filter(line, sent=None).exclude(player__in=busy)
        if address and lanes <= 0:
            waiting = waiting.exclude(address=address)
        sent = 0
        for search in waiting.select_related("game")[:SCAN]:
            shares_lanes = bool(address) and search.address == address
            if not search.is_wanted():
                cls.objects.filter(pk=search.pk, sent=None).delete()
            elif search.player in busy or (shares_lanes and lanes <= 0):
                continue
            elif search._claim(now):
                sent += 1
                busy.add(search.player)
                lanes -= shares_lanes
        return sent

    @classmethod
    def done(cls, game_id: int, version: int, kind: str) -> None:
        """The search ended (played, found, stale, or failed): its turn goes to the next
        search of its line."""
        search = cls.objects.filter(game_id=game_id, version=version, kind=kind).first()
        if search is None:
            return
        cls.objects.filter(pk=search.pk).delete()
        cls.send_next(search.player, search.address)

    def is_wanted(self) -> bool:
        """The game is still where this search was asked for."""
        game = self.game
        if game.version != self.version:
            return False
        if self.kind == self.Kind.MOVE:
            return game.state == Game.State.THINKING
        return game.hint_pending

    def _claim(self, now: datetime) -> bool:
        """Take the player's turn (and one of the address's) and send the task once this
        commits; False when another search holds it (the unique constraints say so)."""
        lanes: list[int | None] = [None]
        if self.address:
            lanes = list(range(settings.DAMA_PLAY_SEARCHES_PER_ADDRESS))
        for lane in lanes:
            try:
                with transaction.atomic():
                    done = Search.objects.filter(pk=self.pk, sent=None).update(sent=now, lane=lane)
            except IntegrityError:
                continue
            if done:
                self.sent, self.lane = now, lane
                transaction.on_commit(self._send)
            return bool(done)
        return False

    def _send(self) -> None:
        """The search's task, by name (``play.tasks``), on the ``play`` queue (an exam's game's on
        the ``exam`` queue, which the play workers take first)."""
        task = "play.computer_move" if self.kind == self.Kind.MOVE else "play.find_hint"
        workers.send(task, self.game_id, self.version, queue="exam" if self.exam else None)


#: how many waiting searches of a line one :meth:`Search.send_next` looks at
SCAN = 20


def lost_after() -> timedelta:
    """How long a sent search may take before it is taken as lost and gives its turn up."""
    return timedelta(seconds=settings.DAMA_PLAY_SEARCH_LOST_SECONDS)


def check_clock(value: Any) -> str:
    """The clock asked for: "" (none) or a name of ``TIME_CONTROLS``; a ``ValidationError``
    otherwise."""
    if value in ("", None, "none"):
        return ""
    if isinstance(value, str) and value in TIME_CONTROLS:
        return value
    raise ValidationError(
        _("Choose a clock: none, %(clocks)s.") % {"clocks": ", ".join(TIME_CONTROLS)},
        code="clock",
    )


def check_level(value: Any) -> int:
    """The level asked for, 1-8; a ``ValidationError`` otherwise."""
    levels = engine.level_numbers()
    level = read_int(value, levels[0], levels[-1])
    if level is None or level not in levels:
        raise ValidationError(_("Choose a level from 1 to 8."), code="level")
    return level
