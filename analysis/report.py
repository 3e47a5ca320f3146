"""The game report: an analysed game in words, positions and a chart, and "show the engine's
line" from any of its positions.

Everything here reads the stored formats of :mod:`analysis.models` (``evaluations`` per
position, ``marks`` per move, the :class:`~analysis.models.Moment` rows) and gives the page plain
values; the views only pick the position and render.

**The engine's line** of a position is a :class:`core.models.Job` (kind :data:`LINE_JOB`) that a
worker does (``analysis.deep_line``, :mod:`analysis.lines`): a search of :data:`LINE_NODES`, deeper
than the analysis's own (:data:`analysis.engine.NODES`). No search runs in a request. A user has
one line searched at a time (:func:`ask_line` refuses a second while the first is pending), and a
line once found is kept: the same position (variant, FEN, budget) asked again is answered from
the done job that has it, without a search.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core import board as core_board
from core.models import Job, SealedPosition
from core.workers import send
from puzzles.views_trainer import motif_label

from . import chart, engine
from .models import GameAnalysis, Moment

#: the job kind of "show the engine's line"
LINE_JOB = "analysis_line"
#: the nodes of the engine's line of a position: 20 times the analysis's budget (about 2 s with
#: the compiled engine on 8x8, measured in the report of issue 49)
LINE_NODES = 20 * engine.NODES
#: a pending line older than this no longer stops the user asking another (its worker is lost)
LINE_PATIENCE = timedelta(minutes=3)
#: the task that searches a line (``analysis.lines.deep_line``; the ``deep`` queue by its name)
LINE_TASK = "analysis.deep_line"

#: within this many centi-men of 0 a position is about equal; within :data:`SLIGHT`, slightly better
EQUAL = 25
SLIGHT = 75
#: the motifs that are not a named shot (said after the named ones)
PLAIN_MOTIFS = frozenset(
    {"shot", "capture", "sacrifice", "crowning", "king_priority", "majority", "no_crown_in_passing"}
)


class LineRefused(Exception):
    """The engine's line is not searched: ``message`` says why, ``status`` is the answer's."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message, self.status = message, status


# -- words ------------------------------------------------------------------------------------------


def side_name(side: str) -> str:
    return _("White") if side == "white" else _("Black")


def mark_name(kind: str) -> str:
    names = {"inaccuracy": _("inaccuracy"), "mistake": _("mistake"), "blunder": _("blunder")}
    return names.get(kind, kind)


def men_text(centi_men: int) -> str:
    """A drop in men, one decimal, in the page's language ("2.1", "2,1")."""
    return str(number_format(centi_men / 100, 1))


def eval_words(entry: dict[str, Any] | None) -> str:
    """An evaluation entry in words, from White's view: "White better by about a man."."""
    if not entry:
        return ""
    value, mate = int(entry.get("eval") or 0), entry.get("mate")
    white = value > 0
    if mate == 0:  # the side to move has no move: the game is over
        return _("White has won.") if white else _("Black has won.")
    if mate is not None:
        moves = (abs(int(mate)) + 1) // 2
        if white:
            return ngettext(
                "White wins by force in %(count)s move.",
                "White wins by force in %(count)s moves.",
                moves,
            ) % {"count": moves}
        return ngettext(
            "Black wins by force in %(count)s move.",
            "Black wins by force in %(count)s moves.",
            moves,
        ) % {"count": moves}
    if entry.get("best") is None:
        return _("The game ends here in a draw.")
    if abs(value) < EQUAL:
        return _("About equal.")
    if abs(value) < SLIGHT:
        return _("White slightly better.") if white else _("Black slightly better.")
    men = max(1, round(abs(value) / 100))
    if white:
        return ngettext(
            "White better by about a man.", "White better by about %(count)s men.", men
        ) % {"count": men}
    return ngettext("Black better by about a man.", "Black better by about %(count)s men.", men) % {
        "count": men
    }


def mark_words(mark: dict[str, Any] | None) -> str:
    """A marked move in words: "blunder (men lost: 2.1)"."""
    if not mark:
        return ""
    return _("%(kind)s (men lost: %(men)s)") % {
        "kind": mark_name(mark["kind"]),
        "men": men_text(int(mark["drop"])),
    }


def motif_names(motifs: list[str]) -> list[str]:
    """The motifs of a moment as a learner reads them: the named shots first ("coup Philippe"),
    a counted one with its count ("sacrifice (2)")."""
    named, plain, counted = [], [], []
    for tag in motifs:
        name, _sep, count = tag.partition(":")
        label = str(motif_label(name))
        if count:
            counted.append(f"{label} ({count})")
        elif name in PLAIN_MOTIFS:
            plain.append(label)
        else:
            named.append(label)
    return named + plain + counted


# -- the game ----------------------------------------------------------------------------------------


@dataclass
class Game:
    """The game of an analysis replayed: its boards (``len(moves) + 1``), the moves in the
    variant's notation, and whether Black moved first."""

    analysis: GameAnalysis
    boards: list[Any]
    texts: list[str]
    black_first: bool

    @classmethod
    def of(cls, analysis: GameAnalysis) -> Game:
        try:
            boards = engine.replay(analysis.variant, analysis.start_fen, analysis.moves)
        except engine.BadMove as exc:  # not stored by the analysis; shown up to the bad move
            boards = engine.replay(analysis.variant, analysis.start_fen, analysis.moves[: exc.ply])
        texts = [boards[i].move_text(boards[i + 1].peek()) for i in range(len(boards) - 1)]
        black_first = not core_board.white_to_move(boards[0].fen())
        return cls(analysis, boards, texts, black_first)

    @property
    def last(self) -> int:
        return len(self.texts)

    def number(self, index: int) -> str:
        """The number of move ``index`` (0-based) as the record writes it: "17." or "17…"."""
        return engine.move_number(index, self.black_first).replace("...", "…")

    def move_number(self, index: int) -> int:
        return int(engine.move_number(index, self.black_first).rstrip("."))

    def side_of(self, index: int) -> str:
        return "black" if (index + (1 if self.black_first else 0)) % 2 else "white"

    def label(self, ply: int) -> str:
        """Position ``ply`` by the move that led to it: "17. 27-22", "17… 18-23" (0: the start)."""
        if ply == 0:
            return _("Start position")
        return f"{self.number(ply - 1)} {self.texts[ply - 1]}"

    def numbered_line(self, ply: int, line: list[str]) -> str:
        """A line played from position ``ply``, numbered as the record numbers the game's moves:
        "17. 27-22 18-23 18. 28x19", or "17… 18-23 18. 28x19" from Black's move."""
        words: list[str] = []
        for n, move in enumerate(line):
            index = ply + n
            white = self.side_of(index) == "white"
            if white:
                words.append(f"{self.move_number(index)}.")
            elif n == 0:
                words.append(f"{self.move_number(index)}…")
            words.append(move)
        return " ".join(words)


def ply_url(analysis: GameAnalysis, ply: int) -> str:
    return f"{reverse('analysis:report', args=[analysis.pk])}?ply={ply}"


def numbered_moves(game: Game, shown: int) -> list[dict[str, Any]]:
    """The move list in rows of White's and Black's move: ``{"n", "white", "black"}``, each cell
    ``{"ply", "text", "url", "label", "current", "mark"}`` (``ply``: the position it leads to)."""
    marks = {m["ply"]: m["kind"] for m in game.analysis.marks or []}
    cells: list[dict[str, Any] | None] = [
        {
            "ply": i + 1,
            "text": text,
            "url": ply_url(game.analysis, i + 1),
            "label": game.label(i + 1),
            "current": i + 1 == shown,
            "mark": marks.get(i, ""),
            "mark_label": mark_name(marks[i]) if i in marks else "",
        }
        for i, text in enumerate(game.texts)
    ]
    if game.black_first and cells:
        cells.insert(0, None)
    first = game.move_number(0)
    return [
        {
            "n": first + i // 2,
            "white": cells[i],
            "black": cells[i + 1] if i + 1 < len(cells) else None,
        }
        for i in range(0, len(cells), 2)
    ]


def steps(analysis: GameAnalysis, shown: int, last: int) -> dict[str, str]:
    """The addresses of the start, the move before, the move after and the end ("" for none)."""
    return {
        "first": ply_url(analysis, 0) if shown > 0 else "",
        "prev": ply_url(analysis, shown - 1) if shown > 0 else "",
        "next": ply_url(analysis, shown + 1) if shown < last else "",
        "last": ply_url(analysis, last) if shown < last else "",
    }


def points(game: Game) -> list[dict[str, Any]]:
    """Every position for the chart and its spoken list: ``ply``, ``url``, ``words`` ("Move 12,
    White 27-22: White better by about a man; blunder (men lost: 2.1)"), ``mark``."""
    analysis = game.analysis
    marks = {m["ply"]: m for m in analysis.marks or []}
    out = []
    for ply, entry in enumerate(analysis.evaluations or []):
        if ply > game.last:
            break
        mark = marks.get(ply - 1) if ply else None
        if ply == 0:
            head = _("Start position")
        else:
            head = _("Move %(number)s, %(side)s %(move)s") % {
                "number": game.move_number(ply - 1),
                "side": side_name(game.side_of(ply - 1)),
                "move": game.texts[ply - 1],
            }
        words = f"{head}: {eval_words(entry).rstrip('.')}"
        if mark:
            words += "; " + mark_words(mark)
        out.append(
            {
                "ply": ply,
                "url": ply_url(analysis, ply),
                "words": words,
                "mark": mark["kind"] if mark else "",
                "entry": entry,
            }
        )
    return out


def chart_of(game: Game, shown: int) -> Any:
    """The chart (:func:`analysis.chart.draw`) of the game's evaluations, ``shown`` marked."""
    spoken = points(game)
    drawn = [chart.Point(p["ply"], p["entry"], p["url"], p["words"], p["mark"]) for p in spoken]
    counts = {kind: sum(1 for p in spoken if p["mark"] == kind) for kind in ("mistake", "blunder")}
    mistakes = ngettext("%(count)s mistake", "%(count)s mistakes", counts["mistake"]) % {
        "count": counts["mistake"]
    }
    blunders = ngettext("%(count)s blunder", "%(count)s blunders", counts["blunder"]) % {
        "count": counts["blunder"]
    }
    desc = _(
        "The evaluation of each position from White's view, above the line White is better, "
        "below it Black; %(mistakes)s and %(blunders)s marked. The list after the chart says "
        "the same in words."
    ) % {"mistakes": mistakes, "blunders": blunders}
    return chart.draw(
        drawn, current=shown, title=_("The evaluation over the game"), desc=desc
    ), spoken


def position_view(game: Game, ply: int, flipped: bool) -> core_board.BoardView:
    """Position ``ply`` on the board: the move that led to it marked, the engine's best move as
    an arrow when the analysis has it."""
    board = game.boards[ply]
    evaluations = game.analysis.evaluations or []
    best = evaluations[ply].get("best") if ply < len(evaluations) else None
    return core_board.board_view(
        board, last_move=board.peek(), flipped=flipped, arrows=[best] if best else ()
    )


def position_words(game: Game, ply: int) -> dict[str, Any]:
    """What the page says of position ``ply``: its evaluation and best line in words, and the
    move played from it with its mark."""
    evaluations = game.analysis.evaluations or []
    entry = evaluations[ply] if ply < len(evaluations) else None
    mark = next((m for m in game.analysis.marks or [] if m["ply"] == ply), None)
    out: dict[str, Any] = {"eval": eval_words(entry), "line": "", "depth": 0, "played": ""}
    if entry and entry.get("line"):
        out["line"] = game.numbered_line(ply, list(entry["line"]))
        out["depth"] = entry.get("depth") or 0
    if ply < game.last:
        played = f"{game.number(ply)} {game.texts[ply]}"
        if mark:
            out["played"] = _("%(move)s was played: %(mark)s; the engine's move was %(best)s.") % {
                "move": played,
                "mark": mark_words(mark),
                "best": mark.get("best") or "",
            }
            out["mark"] = mark["kind"]
        else:
            out["played"] = _("%(move)s was played.") % {"move": played}
    return out


# -- the moments ----------------------------------------------------------------------------------


def moment_words(game: Game, moment: Moment) -> str:
    """A moment in words: "17. 27-22 lost 2 men: 18-23 wins them." (walked into a shot) or
    "17. 27-22 missed 2 men: 32-28 wins them." (a shot missed)."""
    move = f"{game.number(moment.ply)} {moment.played}"
    reply = moment.solution[0] if moment.solution else ""
    gain = int(moment.gain or 0)
    win = moment.goal == "win"
    values = {"move": move, "reply": reply, "count": gain}
    if moment.kind == Moment.Kind.ALLOWED:
        if win:
            return _("%(move)s lost the game: %(reply)s wins by force.") % values
        return (
            ngettext(
                "%(move)s lost a man: %(reply)s wins it.",
                "%(move)s lost %(count)s men: %(reply)s wins them.",
                gain,
            )
            % values
        )
    if win:
        return _("%(move)s missed a win: %(reply)s wins by force.") % values
    return (
        ngettext(
            "%(move)s missed a man: %(reply)s wins it.",
            "%(move)s missed %(count)s men: %(reply)s wins them.",
            gain,
        )
        % values
    )


def moments_of(game: Game, user: Any) -> list[dict[str, Any]]:
    """The analysis's moments for the page: the words, the motifs, the solution numbered, the
    puzzle's position on a small board, the position's address, and the personal puzzle's
    address when the viewer owns it (a personal puzzle is only ever its owner's)."""
    out = []
    for moment in game.analysis.moments.select_related("puzzle"):
        board = core_board.board_from_fen(moment.fen, game.analysis.variant)
        first = moment.solution[0] if moment.solution else None
        shown = moment.ply + (1 if moment.kind == Moment.Kind.ALLOWED else 0)
        puzzle = moment.puzzle
        mine = puzzle is not None and getattr(user, "pk", None) == puzzle.owner_id
        out.append(
            {
                "moment": moment,
                "side": side_name(moment.side),
                "words": moment_words(game, moment),
                "motifs": motif_names(list(moment.motifs or [])),
                "solution": game.numbered_line(shown, list(moment.solution or [])),
                "svg": core_board.draw(
                    board,
                    arrows=[first] if first else (),
                    flipped=core_board.solver_flipped(board),
                ),
                "url": ply_url(game.analysis, min(shown, game.last)),
                "puzzle_url": reverse("puzzles:solve", args=[puzzle.variant, puzzle.pk])
                if mine and puzzle is not None
                else "",
            }
        )
    return out


# -- the engine's line ------------------------------------------------------------------------------


def search_line(variant: str, fen: str, nodes: int) -> dict[str, Any]:
    """The engine's search of a position (on a worker): an evaluation entry (the format of
    ``GameAnalysis.evaluations``) with its best line. A ``ValidationError`` for a bad position."""
    board = core_board.board_from_fen(fen, variant)
    entry = engine.evaluate(board, nodes)
    entry.pop("_score", None)
    return entry


def ask_line(user: Any, game: Game, ply: int) -> Job:
    """The job of the engine's line of position ``ply`` for ``user``: the one already asked for
    it while it runs; a done one at once when the position was searched before (the cache); else
    a new one, sent to the workers on commit. :class:`LineRefused` when the game is over there,
    the position is sealed, or the user's last line is still being searched."""
    analysis = game.analysis
    board = game.boards[ply]
    if not board.legal_moves:
        raise LineRefused(_("The game is over in this position: there is no line to show."))
    fen = board.fen()
    sealed = SealedPosition.why_sealed(fen, analysis.variant)
    if sealed:
        raise LineRefused(sealed)
    key = {"params__variant": analysis.variant, "params__fen": fen, "params__nodes": LINE_NODES}
    now = timezone.now()
    with transaction.atomic():
        # one user's asks one after another (two tabs): the account's row is the lock
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        pending = Job.objects.pending().filter(
            kind=LINE_JOB, owner=user, created__gte=now - LINE_PATIENCE
        )
        same = pending.filter(**key).first()
        if same is not None:
            return same
        if pending.exists():
            raise LineRefused(
                _("The engine is still searching your last position: wait for it, then ask again."),
                409,
            )
        params = {
            "variant": analysis.variant,
            "fen": fen,
            "nodes": LINE_NODES,
            "analysis": analysis.pk,
            "ply": ply,
            "language": translation.get_language(),
        }
        known = (
            Job.objects.filter(kind=LINE_JOB, status=Job.Status.DONE, **key)
            .order_by("-finished")
            .first()
        )
        if known is not None:
            return Job.objects.create(
                kind=LINE_JOB,
                owner=user,
                params=params,
                status=Job.Status.DONE,
                progress=100,
                result=known.result,
                started=now,
                finished=now,
            )
        job = Job.objects.create(kind=LINE_JOB, owner=user, params=params)
        job_id = str(job.pk)
        transaction.on_commit(lambda: send(LINE_TASK, job_id))
    return job


def line_job(user: Any, analysis: GameAnalysis, job_id: Any) -> Job | None:
    """The user's line job ``job_id`` of this analysis, or None."""
    try:
        return Job.objects.filter(
            pk=job_id, kind=LINE_JOB, owner=user, params__analysis=analysis.pk
        ).first()
    except ValidationError:  # not a UUID
        return None


def line_answer(game: Game, job: Job) -> dict[str, Any]:
    """A line job for the page: its state, and once done the line numbered and in words."""
    ply = int(job.params.get("ply") or 0)
    out: dict[str, Any] = {"job": job, "ply": ply, "label": game.label(min(ply, game.last))}
    if job.status == Job.Status.DONE and isinstance(job.result, dict):
        out["eval"] = eval_words(job.result)
        out["line"] = game.numbered_line(ply, list(job.result.get("line") or []))
        out["depth"] = job.result.get("depth") or 0
    return out
