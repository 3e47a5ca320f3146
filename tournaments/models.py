"""Class tournaments: a tournament of a class, its entries, rounds and pairings, and every change
to them. The pairings and standings are computed by the pure modules :mod:`.pairing` and
:mod:`.standings` on plain values; the methods here read the rows into those values, lock the
tournament's row while they change it (``select_for_update``) and write the answer.

Each pairing of two players is played on the site: pairing a round (:meth:`Tournament.start`,
:meth:`Tournament.pair_next_round`, an arena's pairings as players finish) arranges a game between
the two (``versus.models.VersusGame.arrange``: the tournament's variant and clock, a class game,
rated or casual as the tournament says), and the game's end records its result
(``tournaments/receivers.py`` hears ``versus.signals.game_over`` and calls
:meth:`Tournament.record`). A game that ends without a result (none does: an arranged game cannot
be aborted, and its side that does not make its first move in time loses it) waits for the
teacher. The teacher may record or correct any result by hand; a result recorded while the game
is still played stands, and the game's end then changes nothing.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from classroom.models import Classroom
from core.variants import DEFAULT_VARIANT, VARIANT_CHOICES
from versus.models import VersusGame, check_clock

from . import pairing, standings
from .pairing import RESULTS, Game, PairingError

ROUND_ROBIN, SWISS, ARENA = standings.ROUND_ROBIN, standings.SWISS, standings.ARENA
KIND_CHOICES = [
    (ROUND_ROBIN, pgettext_lazy("a kind of tournament", "Round robin")),
    (SWISS, pgettext_lazy("a kind of tournament", "Swiss")),
    (ARENA, pgettext_lazy("a kind of tournament", "Arena")),
]
RESULT_CHOICES = [
    (pairing.WHITE_WINS, pgettext_lazy("a game's result", "White won (2-0)")),
    (pairing.DRAW, pgettext_lazy("a game's result", "Draw (1-1)")),
    (pairing.BLACK_WINS, pgettext_lazy("a game's result", "Black won (0-2)")),
]
#: the most players a tournament takes (a class; the pairing search is exact far beyond it)
MAX_PLAYERS = 60


class TournamentQuerySet(models.QuerySet["Tournament"]):
    def of_class(self, classroom: Classroom) -> TournamentQuerySet:
        return self.filter(classroom=classroom)


class Tournament(models.Model):
    """A tournament of a class's students, run by its teachers in a lesson."""

    DRAFT, RUNNING, FINISHED = "draft", "running", "finished"
    STATUS_CHOICES = [
        (DRAFT, pgettext_lazy("a tournament's state", "not started")),
        (RUNNING, pgettext_lazy("a tournament's state", "running")),
        (FINISHED, pgettext_lazy("a tournament's state", "finished")),
    ]

    classroom = models.ForeignKey(
        Classroom, on_delete=models.CASCADE, related_name="tournaments", verbose_name=_("class")
    )
    name = models.CharField(pgettext_lazy("the name of a tournament", "name"), max_length=100)
    variant = models.CharField(
        _("variant"), max_length=20, choices=VARIANT_CHOICES, default=DEFAULT_VARIANT
    )
    kind = models.CharField(
        pgettext_lazy("of a tournament", "kind"), max_length=20, choices=KIND_CHOICES
    )
    #: the rounds to play (a round robin: as many as it has; an arena: none)
    rounds = models.PositiveSmallIntegerField(_("rounds"), default=0)
    minutes = models.PositiveSmallIntegerField(_("minutes per player"), default=5)
    increment = models.PositiveSmallIntegerField(_("seconds added per move"), default=0)
    #: its games rate the players (``versus.models.VersusRating``); casual by default
    rated = models.BooleanField(_("rated games"), default=False)
    #: the lesson's length: how long an arena runs, and what the rounds must fit in
    length = models.PositiveSmallIntegerField(_("length in minutes"), default=45)
    bye_points = models.PositiveSmallIntegerField(_("points for a bye"), default=pairing.WIN_POINTS)
    status = models.CharField(
        pgettext_lazy("of a tournament", "state"),
        max_length=10,
        choices=STATUS_CHOICES,
        default=DRAFT,
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created = models.DateTimeField(_("created"), default=timezone.now, editable=False)
    started = models.DateTimeField(_("started"), null=True, blank=True)
    finished = models.DateTimeField(_("finished"), null=True, blank=True)

    objects = TournamentQuerySet.as_manager()

    class Meta:
        ordering = ["-created", "-pk"]
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournaments:detail", args=[self.pk])

    # -- who ---------------------------------------------------------------------------------

    def role_of(self, user) -> str:
        """ "teacher", "student" (of the class) or ""."""
        if self.classroom.is_teacher(user):
            return "teacher"
        if self.classroom.is_student(user):
            return "student"
        return ""

    @classmethod
    def create(
        cls,
        classroom: Classroom,
        user,
        *,
        name: str,
        kind: str,
        players: Iterable,
        rounds: int | None = None,
        minutes: int = 5,
        increment: int = 0,
        length: int = 45,
        bye_points: int = pairing.WIN_POINTS,
        rated: bool = False,
    ) -> Tournament:
        """A new tournament of ``players`` (students of the class), not started yet. A Swiss
        without ``rounds`` plays as many as fit in ``length`` (two clocks a game)."""
        players = list(players)
        students = set(classroom.students().values_list("pk", flat=True))
        if any(player.pk not in students for player in players):
            raise ValidationError(gettext("Only students of the class can play."))
        if not 2 <= len(players) <= MAX_PLAYERS:
            raise ValidationError(
                ngettext(
                    "A tournament needs between 2 and %(most)d player.",
                    "A tournament needs between 2 and %(most)d players.",
                    MAX_PLAYERS,
                )
                % {"most": MAX_PLAYERS}
            )
        try:
            check_clock(minutes, increment, None)
        except ValidationError as exc:
            raise ValidationError(exc.messages) from None
        if kind not in dict(KIND_CHOICES):
            raise ValidationError(gettext("No such kind of tournament."))
        if kind == ROUND_ROBIN:
            rounds = pairing.round_robin_rounds(len(players))
        elif kind == SWISS:
            most = pairing.max_swiss_rounds(len(players))
            fit = max(1, length // max(1, 2 * minutes))
            rounds = min(rounds or fit, most)
            if rounds < 1:
                raise ValidationError(gettext("A Swiss needs at least one round."))
        else:
            rounds = 0
        with transaction.atomic():
            tournament = cls.objects.create(
                classroom=classroom,
                name=name,
                variant=classroom.variant,
                kind=kind,
                rounds=rounds,
                minutes=minutes,
                increment=increment,
                length=length,
                bye_points=bye_points,
                rated=rated,
                created_by=user if user.is_authenticated else None,
            )
            Entry.objects.bulk_create(Entry(tournament=tournament, player=p) for p in players)
        return tournament

    # -- changes -----------------------------------------------------------------------------

    def _locked(self) -> Tournament:
        return Tournament.objects.select_for_update().get(pk=self.pk)

    def start(self) -> Round | None:
        """Draw the pairing numbers by lot (FMJD and the Berger tables draw them; the class has
        no ratings to seed by) and pair the first round (an arena: everyone)."""
        with transaction.atomic():
            fresh = self._locked()
            if fresh.status != self.DRAFT:
                raise ValidationError(gettext("The tournament has already started."))
            entries = list(fresh.entries.all())
            random.SystemRandom().shuffle(entries)
            for seed, entry in enumerate(entries, start=1):
                entry.seed = seed
            Entry.objects.bulk_update(entries, ["seed"])
            fresh.status = self.RUNNING
            fresh.started = timezone.now()
            fresh.save(update_fields=["status", "started"])
            self.status, self.started = fresh.status, fresh.started
            return fresh._pair(fresh._games())

    def pair_next_round(self) -> Round | None:
        """Publish the next round's pairings (in an arena: pair whoever waits). Refused while a
        game of the last round has no result; the last round done, the tournament finishes."""
        with transaction.atomic():
            fresh = self._locked()
            if fresh.status != self.RUNNING:
                raise ValidationError(gettext("The tournament is not running."))
            games = fresh._games()
            if fresh.kind != ARENA and any(not g.is_finished for g in games):
                raise ValidationError(gettext("Some games of this round have no result yet."))
            return fresh._pair(games, rematch=True)

    def record(self, pairing_row: Pairing, result: str, *, unless_recorded: bool = False) -> None:
        """The result of a game (a teacher's correction too). In an arena the two players are
        paired again with whoever waits; a round robin or Swiss whose last round is complete
        finishes. ``unless_recorded``: nothing changes when the pairing has a result already
        (a game's end after the teacher's word)."""
        if result not in RESULTS:
            raise ValidationError(gettext("No such result."))
        with transaction.atomic():
            fresh = self._locked()
            if fresh.status != self.RUNNING:
                raise ValidationError(gettext("The tournament is not running."))
            row = Pairing.objects.select_for_update().filter(
                pk=pairing_row.pk, round__tournament=fresh
            )
            target = row.first()
            if target is None or target.black_id is None:
                raise ValidationError(gettext("No such game in this tournament."))
            if unless_recorded and target.result:
                return
            target.result = result
            target.save(update_fields=["result"])
            pairing_row.result = result
            games = fresh._games()
            if fresh.kind == ARENA:
                fresh._pair(games)
            elif all(g.is_finished for g in games) and fresh._rounds_played() >= fresh.rounds:
                fresh._finish()
        self.refresh_from_db(fields=["status", "finished"])

    @classmethod
    def record_game(cls, game: VersusGame) -> bool:
        """The end of a tournament's game (``versus.signals.game_over``): its result is the
        pairing's, unless the teacher recorded one first, the game ended without a result, or
        the tournament is no longer running. Whether it was recorded."""
        found = Pairing.objects.filter(game=game).select_related("round__tournament").first()
        if found is None or found.result or game.result not in RESULTS:
            return False
        tournament = found.round.tournament
        try:
            tournament.record(found, game.result, unless_recorded=True)
        except ValidationError:
            return False  # the tournament was ended meanwhile
        return found.result == game.result

    def collect_results(self, now=None) -> int:
        """Judge the clocks of this running tournament's games in play (a flag nobody asked
        about yet) and record the result of every game over whose pairing has none (its end's
        signal lost: the process died after the game's commit). Idempotent; how many results
        were recorded."""
        if self.status != self.RUNNING:
            return 0
        waiting = Pairing.objects.filter(
            round__tournament=self, result="", game__isnull=False
        ).select_related("game")
        rows = list(waiting)
        for row in rows:
            game = row.game
            if game.is_playing:
                game.judge_clock(now)  # its end's signal records the result, once committed
            if game.is_over:
                self.record_game(game)
        self.refresh_from_db(fields=["status", "finished"])
        return Pairing.objects.filter(pk__in=[r.pk for r in rows]).exclude(result="").count()

    def finish(self) -> None:
        """End the tournament now (an arena when the lesson ends; games without a result stay
        so and count for nobody)."""
        with transaction.atomic():
            fresh = self._locked()
            if fresh.status != self.RUNNING:
                raise ValidationError(gettext("The tournament is not running."))
            fresh._finish()
        self.refresh_from_db(fields=["status", "finished"])

    def _finish(self) -> None:
        self.status = self.FINISHED
        self.finished = timezone.now()
        self.save(update_fields=["status", "finished"])

    def _rounds_played(self) -> int:
        return self.round_set.count()

    def _pair(self, games: list[Game], *, rematch: bool = False) -> Round | None:
        """Pair the next round on the locked row ``self`` and write it."""
        seeds = self.seeds()
        number = self._rounds_played() + 1
        try:
            if self.kind == ROUND_ROBIN:
                if number > self.rounds:
                    raise ValidationError(gettext("All rounds have been played."))
                new = pairing.round_robin_round(seeds, number)
            elif self.kind == SWISS:
                if number > self.rounds:
                    raise ValidationError(gettext("All rounds have been played."))
                new = pairing.swiss_round(seeds, games, number, bye_points=self.bye_points)
            else:
                busy = {p for g in games if not g.is_finished for p in g.players()}
                waiting = [p for p in seeds if p not in busy]
                new = pairing.arena_pairings(waiting, games, number, rematch=rematch)
                if not new:
                    return None
        except PairingError as exc:
            raise ValidationError(gettext("These players cannot be paired again.")) from exc
        round_row = Round.objects.create(tournament=self, number=number)
        players = {
            user.pk: user for user in get_user_model().objects.filter(pk__in=seeds).order_by()
        }
        Pairing.objects.bulk_create(
            Pairing(
                round=round_row,
                board=board,
                white_id=g.white,
                black_id=g.black,
                game=None if g.black is None else self._arrange(players[g.white], players[g.black]),
            )
            for board, g in enumerate(new, start=1)
        )
        return round_row

    def _arrange(self, white, black) -> VersusGame:
        """The game of a pairing, in play at once: the tournament's variant and clock."""
        return VersusGame.arrange(
            white,
            black,
            variant=self.variant,
            base_minutes=self.minutes,
            increment_seconds=self.increment,
            rated=self.rated,
            classroom=self.classroom,
        )

    # -- reading -----------------------------------------------------------------------------

    def seeds(self) -> list[int]:
        """The players' ids in pairing-number order."""
        return list(self.entries.order_by("seed", "pk").values_list("player_id", flat=True))

    def _games(self) -> list[Game]:
        return [
            Game(p.round.number, p.white_id, p.black_id, p.result or None)
            for p in Pairing.objects.filter(round__tournament=self).select_related("round")
        ]

    def standings(self) -> list[standings.Row]:
        return standings.standings(
            self.seeds(), self._games(), kind=self.kind, bye_points=self.bye_points
        )

    def cross_table(self) -> standings.CrossTable:
        return standings.cross_table(self.standings())

    def games_in_play(self, user) -> list[VersusGame]:
        """``user``'s games of this tournament in play now."""
        return list(
            VersusGame.objects.filter(
                state=VersusGame.State.PLAYING,
                pk__in=Pairing.objects.filter(round__tournament=self)
                .filter(models.Q(white=user) | models.Q(black=user))
                .values("game_id"),
            )
        )

    def current_round(self) -> Round | None:
        return self.round_set.order_by("-number").first()

    def can_pair_next(self) -> bool:
        """Whether the teacher may publish the next round now."""
        if self.status != self.RUNNING:
            return False
        games = self._games()
        if self.kind == ARENA:
            busy = {p for g in games if not g.is_finished for p in g.players()}
            return len(set(self.seeds()) - busy) >= 2
        return self._rounds_played() < self.rounds and all(g.is_finished for g in games)


class Entry(models.Model):
    """A player of a tournament; ``seed`` is the pairing number, drawn at the start."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="entries", verbose_name=_("tournament")
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="tournament_entries",
        verbose_name=_("player"),
    )
    seed = models.PositiveSmallIntegerField(_("pairing number"), null=True, blank=True)

    class Meta:
        ordering = ["tournament", "seed", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="tournament_one_entry")
        ]
        verbose_name = _("entry")
        verbose_name_plural = _("entries")

    def __str__(self) -> str:
        return f"{self.player} in {self.tournament}"


class Round(models.Model):
    """A round of a tournament, published when it was paired (an arena's wave of pairings)."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="round_set", verbose_name=_("tournament")
    )
    number = models.PositiveSmallIntegerField(_("round"))
    published = models.DateTimeField(_("published"), default=timezone.now, editable=False)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="tournament_one_round")
        ]
        verbose_name = _("round")
        verbose_name_plural = _("rounds")

    def __str__(self) -> str:
        return f"{self.tournament} round {self.number}"


class Pairing(models.Model):
    """Two players of a round (``black`` empty: a bye) and the result, once known."""

    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="pairings", verbose_name=_("round")
    )
    board = models.PositiveSmallIntegerField(
        pgettext_lazy("a numbered table of a tournament round", "board")
    )
    white = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("white"),
    )
    black = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("black"),
    )
    result = models.CharField(_("result"), max_length=3, choices=RESULT_CHOICES, blank=True)
    #: the game the two play on the site (None: a bye, or a pairing made before the games were)
    game = models.ForeignKey(
        VersusGame,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("game"),
    )

    class Meta:
        ordering = ["round", "board"]
        constraints = [
            models.UniqueConstraint(fields=["round", "board"], name="tournament_one_board")
        ]
        verbose_name = _("pairing")
        verbose_name_plural = _("pairings")

    def __str__(self) -> str:
        return f"{self.round}: {self.white_id} - {self.black_id}"

    @property
    def is_bye(self) -> bool:
        return self.black_id is None
