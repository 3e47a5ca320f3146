"""Every-defence mastery: a solved puzzle played again until the player has met every defence
of its winning line.

The proof holds every defender reply after each solver move (``dama.proof``); the *winning
line* is the solver's best move at each point against each of those replies, and a *defence* is
one reply on it (written as the line up to and with the reply: :attr:`Judge.defences
<puzzles.trainer.Judge.defences>`). In a round the player plays the solver's moves as in the
trainer, and the defender chooses, in turn, a reply that leads to a defence not yet met
(:meth:`Judge.defence_reply <puzzles.trainer.Judge.defence_reply>`: read from the stored
proof, no search); a round ends when the goal is reached, and the next one starts from the
puzzle's position. A legal move the proof does not accept ends the round without a point; an
illegal or unreadable one is refused (400) and changes nothing.

One row per account and puzzle: the defences met (``met``), the round on the board (``line``,
``position``) and the figures the dashboard reads (``met_count`` of ``total``). Each move is
:meth:`Mastery.play`, in a transaction on the locked row; the page sends the number of moves it
shows (``ply``), so a second tab's move on a board that has changed is refused (409).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from .. import engine
from ..trainer import Conflict, Outcome, Result
from .puzzle import Puzzle


class Mastery(models.Model):
    """An account's progress through every defence of one puzzle (see the module)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="puzzle_masteries",
        verbose_name=_("user"),
    )
    puzzle = models.ForeignKey(
        Puzzle, on_delete=models.CASCADE, related_name="masteries", verbose_name=_("puzzle")
    )
    #: the defences met so far (each the line up to and with the defender's reply)
    met = models.JSONField(_("defences met"), default=list, blank=True)
    met_count = models.PositiveIntegerField(_("defences met"), default=0)
    total = models.PositiveIntegerField(_("defences"), default=0)
    #: the round on the board: the moves so far (full routes as in the proof), and the position
    line = models.JSONField(_("moves on the board"), default=list, blank=True)
    position = models.CharField(_("position"), max_length=300, blank=True)
    rounds = models.PositiveIntegerField(_("rounds played"), default=0)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "puzzle"], name="one_mastery_per_puzzle")
        ]
        verbose_name = _("every-defence mastery")
        verbose_name_plural = _("every-defence masteries")

    def __str__(self) -> str:
        return f"{self.user} · {self.puzzle}: {self.met_count}/{self.total}"

    @classmethod
    def of(cls, user, puzzle: Puzzle) -> Mastery:
        """``user``'s mastery of ``puzzle`` (made, with its number of defences, the first time)."""
        mastery, _created = cls.objects.get_or_create(
            user=user,
            puzzle=puzzle,
            defaults={"total": len(puzzle.judge().defences), "position": puzzle.fen},
        )
        mastery.puzzle = puzzle
        return mastery

    @property
    def is_mastered(self) -> bool:
        return self.total > 0 and self.met_count >= self.total

    @property
    def here(self) -> str:
        return self.position or self.puzzle.fen

    def play(self, ply: int, *, route: str = "", text: str = "") -> Result:
        """Judge one move of the round on the board (a clicked route so far, or typed
        notation), entered on the board that shows ``ply`` moves; the defender answers with a
        defence not yet met. :class:`~puzzles.trainer.Conflict` when the board has changed since
        (another tab)."""
        puzzle = self.puzzle
        judge = puzzle.judge()
        with transaction.atomic():
            row = Mastery.objects.select_for_update().get(pk=self.pk)
            for name in ("met", "met_count", "total", "line", "position", "rounds"):
                setattr(self, name, getattr(row, name))
            if ply != len(self.line):
                raise Conflict(self.pk)
            here = self.here
            entry = engine.read_entry(puzzle.variant, here, [], route=route, text=text)
            if entry.status == "continue":
                return Result(Outcome.CONTINUE, entry.message, path=entry.path)
            if entry.status in ("bad", "illegal"):
                kind = Outcome.BAD if entry.status == "bad" else Outcome.ILLEGAL
                return Result(kind, entry.message, article=entry.article, squares=entry.squares)
            start, end, captured = entry.key
            accepted = judge.find(list(self.line), (start, end, frozenset(captured)))
            if accepted is None:
                self._restart()
                self._save()
                return Result(
                    Outcome.WRONG,
                    gettext("%(move)s does not reach the goal. The round starts again.")
                    % {"move": entry.notation},
                    played=entry.notation,
                )
            after = [*self.line, accepted.move]
            met = set(self.met)
            reply = judge.defence_reply(after, met) or accepted.reply
            played = [accepted.move, *([reply] if reply else [])]
            reply_text = (
                engine.move_notation(puzzle.variant, here, [accepted.move], reply) if reply else ""
            )
            defence = " ".join([*after, reply]) if reply else ""
            if defence in judge.defences and defence not in met:
                self.met = [*self.met, defence]
            self.total = len(judge.defences)
            self.met_count = len(set(self.met) & set(judge.defences))
            done = not reply or judge.at([*after, reply]) is None
            if done:
                self.rounds += 1
                self._restart()
                self._save()
                return Result(
                    Outcome.SOLVED, self.round_message(), played=entry.notation, reply=reply_text
                )
            self.line = [*after, reply]
            self.position = engine.fen_after(puzzle.variant, here, played)
            self._save()
            return Result(
                Outcome.RIGHT,
                gettext("%(side)s defends with %(reply)s. Your move.")
                % {
                    "side": gettext("Black") if puzzle.white_to_move else gettext("White"),
                    "reply": reply_text,
                },
                played=entry.notation,
                reply=reply_text,
            )

    def round_message(self) -> str:
        """How far the player is, after a round."""
        if self.is_mastered:
            return gettext("Every defence met: you have mastered this puzzle.")
        return ngettext(
            "Goal reached. %(met)d of %(total)d defence met: play it again against the next one.",
            "Goal reached. %(met)d of %(total)d defences met: play it again against the next one.",
            self.total,
        ) % {"met": self.met_count, "total": self.total}

    def _restart(self) -> None:
        self.line = []
        self.position = self.puzzle.fen

    def _save(self) -> None:
        self.updated_at = timezone.now()
        self.save(
            update_fields=[
                "met",
                "met_count",
                "total",
                "line",
                "position",
                "rounds",
                "updated_at",
            ]
        )
