"""Games against the computer.

A :class:`Game` is its start position, the routes played and whose turn it is: the player's
(``player``), the computer's (``thinking``: a worker searches, or the request itself at an
instant level) or nobody's (``over``). Every change is a model method that writes with a
conditional update on ``version`` (two tabs, a double submit, a reply of the computer for a
position that was taken back: the loser writes nothing), as ``puzzles.Attempt`` does.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cached_property
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.variants import VARIANT_CHOICES

from . import engine

#: a computer still thinking after this long is asked again (a lost message, a dead worker)
ASK_AGAIN_SECONDS = 20


class Conflict(Exception):
    """The game changed while this request worked on it: nothing was written."""


@dataclass
class Reply:
    """The answer to something the player did: ``kind`` is ``moved`` (the move was played),
    ``continue`` (a capture goes on: ``path``), ``illegal`` (the rule it breaks: ``message``,
    ``article``, ``code``, ``squares``), ``bad`` (not a move), ``wait`` (the computer is to move),
    ``over`` (the game has ended), ``hint`` (``hint`` is there or being searched),
    ``takeback``, ``nothing`` (no move of the player's to take back)."""

    kind: str
    message: str = ""
    article: str = ""
    code: str = ""
    squares: tuple[int, ...] = ()
    path: tuple[int, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> int:
        if self.kind in ("illegal", "bad", "over", "nothing"):
            return 400
        if self.kind == "wait":
            return 409
        return 200


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
    def player_lost(self) -> bool:
        return self.result == ("0-2" if self.player_white else "2-0")

    @property
    def outcome_for_player(self) -> str:
        """``won``, ``lost``, ``drawn`` or "" while the game goes on."""
        if not self.result:
            return ""
        if self.result == "1-1":
            return "drawn"
        return "won" if self.player_won else "lost"

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
        for name, value in fields.items():
            setattr(self, name, value)
        self.version, self.updated = expected + 1, now

    def _after(self, board: Any, moves: list) -> dict[str, Any]:
        """The fields of the game once ``moves`` are on ``board``: over (result, reason, article)
        or the next side to move."""
        end = engine.end_of(board)
        if end is not None:
            return {
                "moves": moves,
                "state": self.State.OVER,
                "result": end.result,
                "reason": end.reason,
                "article": end.article,
                "asked": None,
            }
        player_next = engine.white_turn(board) == self.player_white
        return {
            "moves": moves,
            "state": self.State.PLAYER if player_next else self.State.THINKING,
            "result": "",
            "reason": "",
            "article": "",
            "asked": None if player_next else timezone.now(),
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
    ) -> Game:
        """A new game (``fen`` "" for the start position); the computer starts thinking at once
        when it is to move."""
        start_fen = engine.check_start(variant, fen) if fen else engine.start_fen(variant)
        game = cls(
            user=user,
            variant=variant,
            level=level,
            player_white=player_white,
            start_fen=start_fen,
            seed=random.randrange(1 << 30),
            source=source,
        )
        board = game.board()
        for name, value in game._after(board, []).items():
            setattr(game, name, value)
        game.save()
        game._ask_computer()
        return game

    def play(self, *, route: str = "", text: str = "") -> Reply:
        """The player's move, clicked (``route``, landing by landing) or typed (``text``).

        An illegal move, unreadable input, a move while the computer thinks or after the end
        change nothing. A legal move is stored and the computer is asked for its reply: at an
        instant level in this request, else on a worker (the page follows the game)."""
        if self.state == self.State.OVER:
            return Reply("over", _("The game is over."))
        if self.state == self.State.THINKING:
            return Reply("wait", _("Wait for the computer's move."))
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
        with transaction.atomic():
            self._write(self.version, **self._after(board, [*self.moves, move.route]))
            self._ask_computer()
        return Reply("moved", extra={"notation": move.notation})

    def _ask_computer(self) -> None:
        """The computer's move: now at an instant level, else a task once this commits."""
        if self.state != self.State.THINKING:
            return
        if engine.is_instant(self.level):
            self.think()
            return
        from . import tasks

        pk, version = self.pk, self.version
        transaction.on_commit(lambda: tasks.computer_move.delay(pk, version))

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
        return True

    def ask_again_if_lost(self) -> bool:
        """Send the computer's move (or the hint asked for) to the workers again when it has
        been waited for longer than ``ASK_AGAIN_SECONDS`` (a lost message, a worker gone; the
        tasks are idempotent: a second delivery does nothing)."""
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
            from . import tasks

            task = tasks.computer_move if thinking else tasks.find_hint
            pk, version = self.pk, self.version
            transaction.on_commit(lambda: task.delay(pk, version))
        return bool(done)

    def takeback(self) -> Reply:
        """Take back the player's last move (and the computer's reply to it, if it came)."""
        player_plies = [i for i in range(len(self.moves)) if self.is_player_ply(i)]
        if not player_plies or self.reason == "resigned":
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
        )
        return Reply("resigned")

    def ask_hint(self) -> Reply:
        """The engine's move for the player: searched here at an instant level, else on a worker
        (the page follows the game until it is there)."""
        if self.state == self.State.OVER:
            return Reply("over", _("The game is over."))
        if self.state != self.State.PLAYER:
            return Reply("wait", _("Wait for the computer's move."))
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
            from . import tasks

            pk, version = self.pk, self.version
            transaction.on_commit(lambda: tasks.find_hint.delay(pk, version))
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


def check_level(value: Any) -> int:
    """The level asked for, 1-8; a ``ValidationError`` otherwise."""
    text = str(value or "").strip()
    if not text.isdecimal() or int(text) not in engine.level_numbers():
        raise ValidationError(_("Choose a level from 1 to 8."), code="level")
    return int(text)
