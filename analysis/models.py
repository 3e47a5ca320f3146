"""The analysis of finished games: every position evaluated, the mistakes marked, the shots a
player missed (or walked into) proven and turned into personal puzzles.

The stored data (stable: later work adds keys and fields, never renames them)
==============================================================================

:class:`GameAnalysis` is one analysed game.

* **Source** (``source``, one of :class:`GameAnalysis.Source`), with exactly one of the nullable
  links set: ``play``: ``game`` (a :class:`play.models.Game` against the computer);
  ``versus``: ``versus_game`` (a :class:`versus.models.VersusGame` between players);
  ``upload``: ``upload`` and ``upload_index`` (the game's number in the file, from 1). One
  analysis per source (unique constraints).
* **The game**: ``variant``, ``start_fen`` (the FEN before the first move), ``moves`` (a JSON list
  of the moves in the engine's notation, ``"22-18"``, ``"13x22"``: full routes, ``"21x12x3"``),
  ``result`` (``"2-0"``, ``"1-1"``, ``"0-2"`` or ``""``), ``played`` (when the game was played, a
  date; an upload's ``Date`` tag when it has one, else the upload's day), ``white_name`` and
  ``black_name`` (as shown: a player's name, ``"Level 5"`` for the computer, an upload's tags).
* **For whom**: ``white_user``, ``black_user`` (the site's players of each colour, null for the
  computer or an uploaded game's other player) and ``user`` (whose queue and daily limit the
  analysis counts against: the player of a game against the computer, the uploader, for a game
  between players its White). :meth:`GameAnalysis.players` are the users it is for; they and
  their teachers may see it (:meth:`GameAnalysisQuerySet.visible_to`).
* **Engine** ``engine_version``: :func:`analysis.engine.engine_key`, ``"<dama.ENGINE_VERSION>/
  <dama.__version__>/n<nodes>"`` (the node budget of every position's search). An analysis whose
  key is not the current one is redone (:meth:`GameAnalysis.is_current`).
* **State** ``state`` (:class:`GameAnalysis.State`): ``queued`` (``sent`` null: waiting its turn
  in the database; ``sent`` set: in the broker), ``running``, ``done``, ``failed`` (``error`` says
  why), ``limited`` (over the user's daily limit: not analysed, ``error`` says so).
  ``progress``: 0-100, written as the analysis goes.

``evaluations``: a JSON list, one entry per **position**: index ``i`` is the position after ``i``
plies (0: the start; ``len(moves)``: the final position), so ``len(evaluations) ==
len(moves) + 1`` when done. Each entry::

    {"eval": 35,            # int, centi-men (100 = one man, a king 300), from WHITE's view;
                            #   a forced win is +/- (30000 - plies to it): see ``"mate"``
     "mate": null,          # null, or the plies to a forced win (+: White wins, -: Black wins);
                            #   0 at a final position whose side to move has lost ("eval" is
                            #   -30000 from that side: its sign says who won); a final position
                            #   drawn by the rules: "eval" 0, "mate" null
     "best": "22-18",       # the engine's best move here, null when the game is over
     "line": ["22-18", "13x22", "27x18"],  # the best line (principal variation), [] at the end;
                            #   moves in the shortest unambiguous notation (``Board.move_text``:
                            #   "25x11", the full route only when two captures share both ends)
     "depth": 9,            # the depth the search completed
     "nodes": 20000}        # the nodes it searched

``marks``: a JSON list, one entry per **move** that lost evaluation, in ply order::

    {"ply": 16,             # the index in ``moves`` of the marked move (from position 16)
     "side": "white",       # "white" or "black": who played it
     "kind": "mistake",     # "inaccuracy", "mistake" or "blunder" (:data:`analysis.engine.MARKS`)
     "drop": 140,           # the evaluation it lost, centi-men from the mover's view (> 0)
     "best": "27-22"}       # the engine's move there

A drop is ``eval_before - eval_after`` from the mover's view; the thresholds are named data in
one place, :data:`analysis.engine.MARK_THRESHOLDS` (centi-men: inaccuracy 50, mistake 100,
blunder 200).

:class:`Moment` rows are the moments of the analysis (``analysis.moments``), in ply order:

* ``ply``: the index in ``moves`` of the move the moment is about (the move played from
  position ``ply``); ``side``: ``"white"``/``"black"``, whose moment it is (the player who
  missed or walked into the shot); ``user``: that player's account, or null.
* ``kind`` (:class:`Moment.Kind`): ``missed`` (at position ``ply`` the mover had a forced gain
  or a shot and played ``played`` instead: the puzzle's position is position ``ply``, the mover
  to move) or ``allowed`` (the move ``played`` walked into the opponent's forced gain or shot:
  the puzzle's position is position ``ply + 1``, the opponent to move: the player learns to see
  it coming).
* ``fen`` (the puzzle's position, side to move = solver), ``goal`` (``"gain:N"``, ``"win"``),
  ``horizon`` (solver moves), ``solution`` (JSON list of moves, both sides, as the solver writes
  them: captures by their full route, ``"25x18x11"``), ``motifs`` (JSON
  list of the miner's tags, ``dama.mine.motifs``: ``"capture:3"``, ``"sacrifice:2"``, ``"shot"``
  and the named shots, ``"coup_philippe"``...), ``played`` (the move played, text), ``gain``
  (the material of the goal, points: man 1, king 3; 0 for a win).
* ``verdict``: the solver's verdict on the position and goal (``"unique"``, ``"cooked"``,
  ``"no_solution"``, ``"undecided"``): only a ``"unique"`` one (with no duals on its main line)
  makes a puzzle. ``puzzle``: the personal :class:`puzzles.models.Puzzle` made from it (null
  when not unique or the player has no account), owned by ``user`` (``Puzzle.owner``) with its
  ``origin`` text; never served to others, never in the exams or the stream.

:class:`GameUpload` is a user's PDN file of many games. ``games`` counts the games found;
``errors`` is a JSON list, one entry per game that was not analysed::

    {"game": 3,             # the game's number in the file, from 1
     "kind": "illegal",     # "malformed" (bad PDN), "illegal" (an illegal move), "variant"
                            #   (another variant, or one the site does not play), "empty"
                            #   (fewer than MIN_PLIES plies)
     "move": "12. 22-18",   # the move at fault as numbered in the game, or "" (malformed)
     "message": "..."}      # the reason in words (in the uploader's language at upload)

The good games of the file are each a :class:`GameAnalysis` (``upload``, ``upload_index``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from core.variants import VARIANT_CHOICES, get_variant
from core.workers import send

from . import engine

logger = logging.getLogger(__name__)

#: the task that analyses one game (``analysis.tasks.analyse_game``), sent by its name
TASK = "analysis.analyse_game"

#: the fewest plies of a game worth analysing (aborted and very short games are skipped)
MIN_PLIES = 6


class GameAnalysisQuerySet(models.QuerySet["GameAnalysis"]):
    def of(self, user: Any) -> GameAnalysisQuerySet:
        """The analyses ``user`` played in or uploaded."""
        return self.filter(Q(white_user=user) | Q(black_user=user) | Q(user=user)).distinct()

    def visible_to(self, user: Any) -> GameAnalysisQuerySet:
        """What ``user`` may see: their own analyses, and their students' (a teacher of a class a
        player of the game is in); nothing for a visitor."""
        if not getattr(user, "is_authenticated", False):
            return self.none()
        students = Q(white_user__class_memberships__classroom__teachers=user) | Q(
            black_user__class_memberships__classroom__teachers=user
        )
        return self.filter(
            Q(white_user=user) | Q(black_user=user) | Q(user=user) | students
        ).distinct()

    def of_game(self, game: Any) -> GameAnalysisQuerySet:
        """The analysis of ``game``: a game against the computer (``play.Game``) or between
        players (``versus.VersusGame``); none for any other object."""
        field = {"play.game": "game", "versus.versusgame": "versus_game"}.get(
            getattr(getattr(game, "_meta", None), "label_lower", "")
        )
        return self.filter(**{field: game}) if field else self.none()

    def on_the_workers(self, user_id: int) -> GameAnalysisQuerySet:
        """The user's analyses in the broker or running."""
        return self.filter(user_id=user_id).filter(
            Q(state=GameAnalysis.State.RUNNING)
            | Q(state=GameAnalysis.State.QUEUED, sent__isnull=False)
        )

    def waiting_turn(self, user_id: int) -> GameAnalysisQuerySet:
        """The user's analyses that wait their turn in the database (queued, not sent)."""
        return self.filter(user_id=user_id, state=GameAnalysis.State.QUEUED, sent__isnull=True)

    def release(self, user_id: int) -> int:
        """Send the user's waiting analyses, oldest first, while fewer than
        ``DAMA_ANALYSIS_ACTIVE_PER_USER`` of theirs are on the workers (called when one ends, and
        when one is asked). Each is claimed by a conditional update, so two callers never send the
        same one. Returns how many were sent."""
        sent = 0
        while True:
            with transaction.atomic():
                # the user's row, locked: two releases of one user take their turns
                get_user_model_row(user_id)
                if self.on_the_workers(user_id).count() >= settings.DAMA_ANALYSIS_ACTIVE_PER_USER:
                    return sent
                pk = (
                    self.waiting_turn(user_id)
                    .order_by("asked", "pk")
                    .values_list("pk", flat=True)
                    .first()
                )
                if pk is None:
                    return sent
                now = timezone.now()
                if not GameAnalysis.objects.filter(
                    pk=pk, state=GameAnalysis.State.QUEUED, sent__isnull=True
                ).update(sent=now):
                    continue
                transaction.on_commit(lambda pk=pk: _send(pk), robust=True)
            sent += 1

    def resend_lost(self, now: Any = None) -> int:
        """Analyses sent (or running) longer than ``DAMA_ANALYSIS_LOST_SECONDS`` ago with no end: a
        worker lost them; they wait their turn again (a row that failed three times fails).
        Returns how many were put back."""
        now = now or timezone.now()
        cutoff = now - timedelta(seconds=settings.DAMA_ANALYSIS_LOST_SECONDS)
        lost = self.filter(
            Q(state=GameAnalysis.State.QUEUED, sent__lt=cutoff)
            | Q(state=GameAnalysis.State.RUNNING, updated__lt=cutoff)
        )
        users = set(lost.values_list("user_id", flat=True))
        count = lost.filter(attempts__lt=GameAnalysis.MAX_ATTEMPTS).update(
            state=GameAnalysis.State.QUEUED, sent=None, progress=0
        )
        lost.filter(attempts__gte=GameAnalysis.MAX_ATTEMPTS).update(
            state=GameAnalysis.State.FAILED, error=gettext("The analysis did not finish.")
        )
        for user_id in users:
            self.release(user_id)
        return count

    def stale(self) -> GameAnalysisQuerySet:
        """Analyses done by another engine or node budget than the current one."""
        return self.filter(state=GameAnalysis.State.DONE).exclude(
            engine_version=engine.engine_key()
        )

    def redo_stale(self, batch: int | None = None) -> int:
        """Ask again for the stale analyses (:meth:`stale`), at most ``batch`` of them, the
        newest first: each waits its user's turn. Returns how many."""
        count = 0
        rows = self.stale().order_by("-pk")
        for row in rows[:batch] if batch else rows:
            if row.redo():
                count += 1
        return count

    def counted_today(self, user_id: int, now: Any = None) -> int:
        """How many analyses count against the user's daily limit (asked in the last 24 hours)."""
        now = now or timezone.now()
        return (
            self.filter(user_id=user_id, asked__gte=now - timedelta(days=1))
            .exclude(state=GameAnalysis.State.LIMITED)
            .count()
        )


class GameUpload(models.Model):
    """A user's PDN file: its games are analysed, each on its own; the bad ones are listed."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="game_uploads",
        verbose_name=_("user"),
    )
    name = models.CharField(_("file name"), max_length=200, blank=True)
    variant = models.CharField(_("variant"), max_length=20, choices=VARIANT_CHOICES)
    text = models.TextField(_("PDN"), blank=True)
    games = models.PositiveIntegerField(_("games"), default=0)
    errors = models.JSONField(_("errors"), default=list, blank=True)
    created = models.DateTimeField(_("uploaded"), default=timezone.now, editable=False)

    class Meta:
        ordering = ["-created", "-pk"]
        verbose_name = _("uploaded games")
        verbose_name_plural = _("uploaded games")

    def __str__(self) -> str:
        return self.name or f"#{self.pk}"

    def get_absolute_url(self) -> str:
        return reverse("analysis:upload", args=[self.pk])

    # -- reading a file ---------------------------------------------------------------------------

    @staticmethod
    def read(text: str, variant: str) -> list[UploadedGame]:
        """Every entry of the PDN ``text``: a game to analyse, or the reason it is not (a
        :class:`UploadedGame` with ``error``), in the file's order. ``variant`` is the upload's:
        a game of another variant is not analysed. Raises ``ValidationError`` when the file
        holds no game at all or more than ``DAMA_ANALYSIS_UPLOAD_GAMES``."""
        out: list[UploadedGame] = []
        limit = settings.DAMA_ANALYSIS_UPLOAD_GAMES
        try:
            for item in engine.read_pdn(text, variant):
                if len(out) >= limit:
                    raise ValidationError(
                        ngettext(
                            "A file may hold at most %(count)d game.",
                            "A file may hold at most %(count)d games.",
                            limit,
                        )
                        % {"count": limit},
                        code="too_many",
                    )
                out.append(_uploaded(item, variant))
        except engine.UnreadablePdn as exc:
            raise ValidationError(
                gettext("The file cannot be read as PDN: %(reason)s") % {"reason": exc},
                code="pdn",
            ) from None
        if all(g.error is not None and g.error["kind"] == "malformed" for g in out):
            raise ValidationError(
                gettext("The file holds no game that can be read: %(reason)s")
                % {"reason": out[0].error["message"] if out else "-"},
                code="empty",
            )
        return out

    @staticmethod
    def check_room(user: Any, games: int) -> None:
        """Raise ``ValidationError`` when ``games`` more analyses would pass the user's daily
        limit (``DAMA_ANALYSIS_DAILY_GAMES``), saying how many are left today."""
        limit = settings.DAMA_ANALYSIS_DAILY_GAMES
        left = max(0, limit - GameAnalysis.objects.counted_today(user.pk))
        if games > left:
            raise ValidationError(daily_limit_message(left), code="daily_limit")

    @classmethod
    def receive(
        cls,
        user: Any,
        name: str,
        variant: str,
        text: str,
        games: list[UploadedGame],
        player: str = "",
    ) -> GameUpload:
        """Store the upload and ask for the analysis of each of its good games (their turn
        comes: :meth:`GameAnalysisQuerySet.release`); the bad ones are kept as ``errors``.
        ``player``: the uploader's name as the games' ``White``/``Black`` tags write it; a game
        where it names neither side is the uploader's on both sides (both players' moments)."""
        errors = [g.error for g in games if g.error is not None]
        with transaction.atomic():
            upload = cls.objects.create(
                user=user, name=name, variant=variant, text=text, games=len(games), errors=errors
            )
            today = timezone.localdate()
            for g in games:
                if g.error is not None:
                    continue
                side = g.side_of(player)
                GameAnalysis.ask(
                    source=GameAnalysis.Source.UPLOAD,
                    user=user,
                    upload=upload,
                    upload_index=g.number,
                    variant=variant,
                    start_fen=g.fen,
                    moves=g.moves,
                    result=g.result,
                    played=g.played or today,
                    white_name=g.white_name,
                    black_name=g.black_name,
                    white_user=user if side in ("white", "") else None,
                    black_user=user if side in ("black", "") else None,
                )
        return upload

    def game_rows(self) -> list[dict[str, Any]]:
        """The upload's games in the file's order: ``number``, and ``analysis`` or ``error``."""
        rows: dict[int, dict[str, Any]] = {}
        for a in self.analyses.all():
            rows[a.upload_index or 0] = {"number": a.upload_index, "analysis": a, "error": None}
        for e in self.errors:
            rows[e["game"]] = {"number": e["game"], "analysis": None, "error": e}
        return [rows[k] for k in sorted(rows)]


class GameAnalysis(models.Model):
    class Source(models.TextChoices):
        PLAY = "play", _("against the computer")
        VERSUS = "versus", _("against a player")
        UPLOAD = "upload", _("uploaded")

    class State(models.TextChoices):
        QUEUED = "queued", _("waiting")
        RUNNING = "running", _("being analysed")
        DONE = "done", _("analysed")
        FAILED = "failed", _("failed")
        LIMITED = "limited", _("over the daily limit")

    source = models.CharField(_("source"), max_length=10, choices=Source)
    game = models.OneToOneField(
        "play.Game",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="analysis",
        verbose_name=_("game against the computer"),
    )
    versus_game = models.OneToOneField(
        "versus.VersusGame",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="analysis",
        verbose_name=_("game between players"),
    )
    upload = models.ForeignKey(
        GameUpload,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="analyses",
        verbose_name=_("upload"),
    )
    upload_index = models.PositiveIntegerField(_("game in the file"), null=True, blank=True)

    variant = models.CharField(_("variant"), max_length=20, choices=VARIANT_CHOICES)
    start_fen = models.CharField(_("start position"), max_length=400)
    moves = models.JSONField(_("moves"), default=list)
    result = models.CharField(_("result"), max_length=3, blank=True)
    played = models.DateField(_("played"), null=True, blank=True)
    white_name = models.CharField(_("White"), max_length=150, blank=True)
    black_name = models.CharField(_("Black"), max_length=150, blank=True)

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="game_analyses",
        verbose_name=_("asked by"),
    )
    white_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("White's account"),
    )
    black_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("Black's account"),
    )

    engine_version = models.CharField(_("engine version"), max_length=80, blank=True)
    state = models.CharField(_("state"), max_length=10, choices=State, default=State.QUEUED)
    progress = models.PositiveSmallIntegerField(_("progress (%)"), default=0)
    error = models.TextField(_("error"), blank=True)
    evaluations = models.JSONField(_("evaluations"), default=list, blank=True)
    marks = models.JSONField(_("marks"), default=list, blank=True)
    #: how many times this row was claimed by a worker (a run that keeps failing stops)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    seconds = models.FloatField(_("CPU seconds"), default=0.0)

    asked = models.DateTimeField(_("asked"), default=timezone.now)
    sent = models.DateTimeField(_("sent to the workers"), null=True, blank=True)
    started = models.DateTimeField(_("started"), null=True, blank=True)
    finished = models.DateTimeField(_("finished"), null=True, blank=True)
    updated = models.DateTimeField(_("updated"), auto_now=True)

    objects = GameAnalysisQuerySet.as_manager()

    class Meta:
        ordering = ["-asked", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["upload", "upload_index"],
                condition=Q(upload__isnull=False),
                name="analysis_one_per_uploaded_game",
            ),
            models.CheckConstraint(
                condition=(
                    Q(
                        source="play",
                        game__isnull=False,
                        versus_game__isnull=True,
                        upload__isnull=True,
                    )
                    | Q(
                        source="versus",
                        game__isnull=True,
                        versus_game__isnull=False,
                        upload__isnull=True,
                    )
                    | Q(
                        source="upload",
                        game__isnull=True,
                        versus_game__isnull=True,
                        upload__isnull=False,
                    )
                ),
                name="analysis_one_source",
            ),
        ]
        indexes = [
            models.Index(fields=["user", "state", "sent"]),
            models.Index(fields=["user", "asked"]),
        ]
        verbose_name = _("game analysis")
        verbose_name_plural = _("game analyses")

    def __str__(self) -> str:
        return f"#{self.pk} {self.white_name} - {self.black_name}"

    def get_absolute_url(self) -> str:
        return reverse("analysis:report", args=[self.pk])

    def players(self) -> list[Any]:
        """The site's players the analysis is for (one or two)."""
        return [u for u in (self.white_user, self.black_user) if u is not None]

    def user_side(self, user: Any) -> str | None:
        """``"white"``/``"black"``: the colour ``user`` played, else None."""
        if user is not None and self.white_user_id == getattr(user, "pk", None):
            return "white"
        if user is not None and self.black_user_id == getattr(user, "pk", None):
            return "black"
        return None

    @property
    def is_finished(self) -> bool:
        return self.state in (self.State.DONE, self.State.FAILED, self.State.LIMITED)

    def is_current(self) -> bool:
        """Made by this engine at this budget (else it is redone when asked again)."""
        return self.engine_version == engine.engine_key()

    #: a row claimed this many times without an end fails (:meth:`GameAnalysisQuerySet.resend_lost`)
    MAX_ATTEMPTS = 3

    # -- asking ------------------------------------------------------------------------------------

    @classmethod
    def ask(cls, *, source: str, user: Any, **fields: Any) -> GameAnalysis | None:
        """Ask for the analysis of a game (``fields``: the source's link and the game). A game
        analysed by the current engine is not analysed again (the row is returned as it is); one
        analysed by another engine, or whose moves changed (a take-back after the end), is redone; a game of fewer than :data:`MIN_PLIES` plies is
        not analysed (None). Over the user's daily limit the row says so (``limited``). Else the
        row waits its turn and is sent when the user's earlier analyses are done."""
        if len(fields.get("moves") or ()) < MIN_PLIES:
            return None
        link = {
            k: fields[k] for k in ("game", "versus_game", "upload", "upload_index") if k in fields
        }
        now = timezone.now()
        with transaction.atomic():
            row = cls.objects.select_for_update().filter(**link).first() if link else None
            same_game = row is not None and row.moves == list(fields.get("moves") or ())
            if row is not None and same_game and (row.is_current() or not row.is_finished):
                return row  # done with this engine, or on its way
            limited = cls.objects.counted_today(user.pk, now) >= settings.DAMA_ANALYSIS_DAILY_GAMES
            values = {
                **fields,
                "source": source,
                "user": user,
                "state": cls.State.LIMITED if limited else cls.State.QUEUED,
                "error": daily_limit_message(0) if limited else "",
                "progress": 0,
                "evaluations": [],
                "marks": [],
                "engine_version": "",
                "attempts": 0,
                "asked": now,
                "sent": None,
                "started": None,
                "finished": None,
            }
            if row is None:
                try:
                    with transaction.atomic():
                        row = cls.objects.create(**values)
                except IntegrityError:  # asked twice at once: the other one stands
                    return cls.objects.filter(**link).first()
            else:
                row.moments.all().delete()
                for key, value in values.items():
                    setattr(row, key, value)
                row.save()
            if not limited:
                transaction.on_commit(lambda: cls.objects.release(user.pk), robust=True)
        return row

    @classmethod
    def of_play_game(cls, game: Any) -> GameAnalysis | None:
        """Ask for the analysis of a finished game against the computer (an account's; not an
        exam's endgame, not a game resigned or lost on time before :data:`MIN_PLIES` plies)."""
        if game.user_id is None or game.source == "exam":
            return None
        level = gettext("Level %(level)s") % {"level": game.level}
        name = game.user.get_full_name() or game.user.get_username()
        return cls.ask(
            source=cls.Source.PLAY,
            user=game.user,
            game=game,
            variant=game.variant,
            start_fen=game.start_fen,
            moves=list(game.moves),
            result=game.result,
            played=timezone.localdate(game.updated),
            white_name=name if game.player_white else level,
            black_name=level if game.player_white else name,
            white_user=game.user if game.player_white else None,
            black_user=None if game.player_white else game.user,
        )

    @classmethod
    def of_versus_game(cls, game: Any) -> GameAnalysis | None:
        """Ask for the analysis of a finished game between players (for both; counted against
        White's queue and limit). An aborted game (no result) is not analysed."""
        if not game.result or game.white_id is None or game.black_id is None:
            return None

        def name(u: Any) -> str:
            return u.get_full_name() or u.get_username()

        return cls.ask(
            source=cls.Source.VERSUS,
            user=game.white,
            versus_game=game,
            variant=game.variant,
            start_fen=game.start_fen,
            moves=list(game.moves),
            result=game.result,
            played=timezone.localdate(game.updated),
            white_name=name(game.white),
            black_name=name(game.black),
            white_user=game.white,
            black_user=game.black,
        )

    def redo(self) -> bool:
        """Ask again for this analysis when it was made by another engine (not counted against
        the daily limit: the site changed, not the player). Whether it was queued."""
        with transaction.atomic():
            done = (
                GameAnalysis.objects.filter(pk=self.pk, state=self.State.DONE)
                .exclude(engine_version=engine.engine_key())
                .update(state=self.State.QUEUED, sent=None, progress=0, attempts=0, error="")
            )
            if done:
                user_id = self.user_id
                transaction.on_commit(lambda: GameAnalysis.objects.release(user_id), robust=True)
        if done:
            self.refresh_from_db()
        return bool(done)

    # -- the worker's side ---------------------------------------------------------------------------

    @classmethod
    def claim(cls, pk: int) -> GameAnalysis | None:
        """Start analysis ``pk`` on this worker: queued (or running, a redelivery) becomes
        running; None when it is gone, finished, or claimed too often."""
        now = timezone.now()
        done = cls.objects.filter(
            pk=pk,
            state__in=[cls.State.QUEUED, cls.State.RUNNING],
            attempts__lt=cls.MAX_ATTEMPTS,
        ).update(
            state=cls.State.RUNNING,
            started=now,
            updated=now,
            attempts=F("attempts") + 1,
            progress=0,
        )
        return cls.objects.filter(pk=pk).first() if done else None

    def write_progress(self, percent: int) -> None:
        """The progress so far (0-100), while the row is still this run's."""
        percent = max(0, min(99, percent))
        if percent != self.progress:
            GameAnalysis.objects.filter(pk=self.pk, state=self.State.RUNNING).update(
                progress=percent, updated=timezone.now()
            )
            self.progress = percent

    def finish(self, result: engine.Analysis, seconds: float = 0.0) -> bool:
        """Write the analysis (evaluations, marks, moments, personal puzzles), done; then the
        user's next analysis is sent. False when the row changed meanwhile (nothing written)."""
        with transaction.atomic():
            done = GameAnalysis.objects.filter(pk=self.pk, state=self.State.RUNNING).update(
                state=self.State.DONE,
                progress=100,
                evaluations=result.evaluations,
                marks=result.marks,
                engine_version=result.engine_version,
                error="",
                seconds=seconds,
                finished=timezone.now(),
            )
            if not done:
                return False
            self.moments.all().delete()
            for found in result.moments:
                self._moment(found)
            user_id = self.user_id
            transaction.on_commit(lambda: GameAnalysis.objects.release(user_id), robust=True)
        self.refresh_from_db()
        return True

    def fail(self, error: str) -> None:
        """The analysis cannot be made (``error`` says why); the user's next one is sent."""
        GameAnalysis.objects.filter(pk=self.pk).exclude(state=self.State.DONE).update(
            state=self.State.FAILED, error=error[:2000], finished=timezone.now()
        )
        GameAnalysis.objects.release(self.user_id)

    def _moment(self, found: engine.Found) -> Moment:
        user = self.white_user if found.side == "white" else self.black_user
        proof = found.proof
        moment = Moment.objects.create(
            analysis=self,
            ply=found.ply,
            side=found.side,
            kind=found.kind,
            user=user,
            played=found.played,
            fen=proof.fen,
            goal=proof.goal,
            horizon=proof.horizon,
            gain=proof.gain,
            solution=list(proof.solution),
            motifs=list(proof.motifs),
            verdict=proof.verdict,
        )
        if user is not None and proof.is_unique:
            moment.puzzle = self._personal_puzzle(moment, user, proof)
            if moment.puzzle is not None:
                moment.save(update_fields=["puzzle"])
        return moment

    def _personal_puzzle(self, moment: Moment, user: Any, proof: engine.Proof) -> Any:
        """The personal puzzle of a proven moment, owned by ``user`` (``Puzzle.make_personal``:
        kept out of every pool, none at a sealed position; a new one joins the owner's review)."""
        from puzzles.models import Puzzle  # a lower floor; the models are loaded by now

        return Puzzle.make_personal(
            user,
            variant=self.variant,
            fen=proof.fen,
            goal=proof.goal,
            horizon=proof.horizon,
            solution=list(proof.solution),
            motifs=list(proof.motifs),
            proof=proof.proof,
            origin=self.origin_for(user),
            source=f"analysis:{self.pk}:{moment.ply}",
            difficulty=proof.difficulty or 1500,
        )

    def opponent_name(self, user: Any) -> str:
        side = self.user_side(user)
        if side == "white":
            return self.black_name
        if side == "black":
            return self.white_name
        return ""

    def origin_for(self, user: Any) -> str:
        """Where a personal puzzle of ``user`` comes from, in their language: "from your game
        against Level 5 on 28 Nov" (an upload's game without names: "from your uploaded game 3")."""
        profile = getattr(user, "profile", None)
        language = getattr(profile, "language", "") or settings.LANGUAGE_CODE
        with translation.override(language):
            day = date_format(self.played, "j M") if self.played else ""
            opponent = self.opponent_name(user)
            if opponent and day:
                return gettext("from your game against %(opponent)s on %(day)s") % {
                    "opponent": opponent,
                    "day": day,
                }
            if opponent:
                return gettext("from your game against %(opponent)s") % {"opponent": opponent}
            return gettext("from your uploaded game %(number)s") % {"number": self.upload_index}


class Moment(models.Model):
    """A moment of a game: a forced gain or a shot missed, or walked into (see the module)."""

    class Kind(models.TextChoices):
        MISSED = "missed", _("missed a shot")
        ALLOWED = "allowed", _("walked into a shot")

    analysis = models.ForeignKey(
        GameAnalysis, on_delete=models.CASCADE, related_name="moments", verbose_name=_("analysis")
    )
    ply = models.PositiveIntegerField(_("ply"))
    side = models.CharField(_("side"), max_length=5)
    kind = models.CharField(_("kind"), max_length=10, choices=Kind)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("player"),
    )
    played = models.CharField(_("move played"), max_length=100, blank=True)
    fen = models.CharField(_("position (FEN)"), max_length=400)
    goal = models.CharField(_("goal"), max_length=20)
    horizon = models.PositiveSmallIntegerField(_("horizon"), default=1)
    gain = models.PositiveSmallIntegerField(_("material gained"), default=0)
    solution = models.JSONField(_("solution"), default=list, blank=True)
    motifs = models.JSONField(_("motifs"), default=list, blank=True)
    verdict = models.CharField(_("verdict"), max_length=12, blank=True)
    puzzle = models.ForeignKey(
        "puzzles.Puzzle",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="moments",
        verbose_name=_("personal puzzle"),
    )

    class Meta:
        ordering = ["analysis", "ply", "kind"]
        constraints = [
            models.UniqueConstraint(
                fields=["analysis", "ply", "kind"], name="moment_one_per_ply_and_kind"
            )
        ]
        verbose_name = _("moment")
        verbose_name_plural = _("moments")

    def __str__(self) -> str:
        return f"{self.analysis_id}:{self.ply} {self.kind} {self.goal}"

    @property
    def move_number(self) -> int:
        """The move's number as a game's record numbers it (White's and Black's move share one)."""
        return (
            self.ply // 2 + 1
            if self.analysis.start_fen.startswith("W")
            else (self.ply + 1) // 2 + 1
        )


# -- helpers ----------------------------------------------------------------------------------------


def get_user_model_row(user_id: int) -> None:
    """Lock the user's row (inside a transaction): one user's releases take their turns."""
    from django.contrib.auth import get_user_model

    get_user_model().objects.select_for_update().filter(pk=user_id).values_list("pk").first()


def _send(pk: int) -> None:
    send(TASK, pk)


def daily_limit_message(left: int) -> str:
    """What a user is told at the daily limit (``left``: analyses still possible today)."""
    limit = settings.DAMA_ANALYSIS_DAILY_GAMES
    if left <= 0:
        return ngettext(
            "You have reached today's limit of %(limit)d analysed game: games played or "
            "uploaded now are not analysed. Try again tomorrow.",
            "You have reached today's limit of %(limit)d analysed games: games played or "
            "uploaded now are not analysed. Try again tomorrow.",
            limit,
        ) % {"limit": limit}
    return ngettext(
        "Only %(left)d more game can be analysed today (the limit is %(limit)d a day): "
        "upload fewer games, or try again tomorrow.",
        "Only %(left)d more games can be analysed today (the limit is %(limit)d a day): "
        "upload fewer games, or try again tomorrow.",
        left,
    ) % {"left": left, "limit": limit}


@dataclass(frozen=True)
class UploadedGame:
    """One entry of an uploaded file: the game, or ``error`` (``GameUpload.errors``' format)."""

    number: int
    fen: str = ""
    moves: tuple[str, ...] = ()
    result: str = ""
    played: date | None = None
    white_name: str = ""
    black_name: str = ""
    error: dict[str, Any] | None = None

    def side_of(self, player: str) -> str:
        """``"white"``/``"black"``: the side whose tag names ``player`` (any case), else "".

        >>> UploadedGame(1, white_name="Eva Nová", black_name="Jan").side_of(" eva nová ")
        'white'
        """
        name = " ".join(player.split()).casefold()
        if name and name == " ".join(self.white_name.split()).casefold():
            return "white"
        if name and name == " ".join(self.black_name.split()).casefold():
            return "black"
        return ""


def _error(number: int, kind: str, move: str, message: str) -> UploadedGame:
    return UploadedGame(
        number=number, error={"game": number, "kind": kind, "move": move, "message": message}
    )


def _pdn_date(value: str) -> date | None:
    parts = value.strip().split(".")
    try:
        return date(int(parts[0]), int(parts[1]), int(parts[2]))
    except (ValueError, IndexError):
        return None


def _uploaded(item: engine.PdnEntry, variant: str) -> UploadedGame:
    """An entry of the file as an :class:`UploadedGame`, with its error in words naming the
    game and the move at fault."""
    number = item.number
    if item.error == "illegal":
        return _error(
            number,
            "illegal",
            item.move,
            gettext("Game %(game)d: %(move)s is not a legal move (%(reason)s).")
            % {"game": number, "move": item.move, "reason": item.reason},
        )
    if item.error == "variant":
        return _error(
            number,
            "variant",
            "",
            gettext("Game %(game)d is not a game of %(variant)s: %(reason)s.")
            % {"game": number, "variant": get_variant(variant).title, "reason": item.reason},
        )
    if item.error:
        return _error(
            number,
            "malformed",
            "",
            gettext("Game %(game)d cannot be read (line %(line)d): %(reason)s.")
            % {"game": number, "line": item.line, "reason": item.reason},
        )
    if item.variant != variant:
        return _error(
            number,
            "variant",
            "",
            gettext("Game %(game)d is a game of %(other)s, not of %(variant)s.")
            % {
                "game": number,
                "other": get_variant(item.variant).title,
                "variant": get_variant(variant).title,
            },
        )
    if len(item.moves) < MIN_PLIES:
        return _error(
            number,
            "empty",
            "",
            ngettext(
                "Game %(game)d has fewer than %(count)d move: it is not analysed.",
                "Game %(game)d has fewer than %(count)d moves: it is not analysed.",
                MIN_PLIES,
            )
            % {"game": number, "count": MIN_PLIES},
        )
    tags = item.tags
    return UploadedGame(
        number=number,
        fen=item.fen,
        moves=item.moves,
        result=item.result if item.result in ("2-0", "1-1", "0-2") else "",
        played=_pdn_date(tags.get("Date", "")),
        white_name=tags.get("White", "")[:150] or gettext("White"),
        black_name=tags.get("Black", "")[:150] or gettext("Black"),
    )
