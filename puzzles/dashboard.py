"""A player's puzzle dashboard: solved and failed puzzles by motif and difficulty, the failures
to replay, the recent attempts, and every-defence mastery by motif."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from .models import Attempt, Mastery
from .player import Player


def difficulty_band(rating: float) -> str:
    if rating < 1200:
        return _("easy")
    if rating < 1600:
        return _("medium")
    if rating < 2000:
        return _("hard")
    return _("very hard")


def dashboard(player: Player, variant: str) -> dict[str, Any]:
    """Solved and failed puzzles, by motif and difficulty, and the failures to replay."""
    attempts = list(
        Attempt.objects.of(player)
        .filter(puzzle__variant=variant)
        .select_related("puzzle")
        .defer("puzzle__proof")
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
        "mastery": mastery_by_motif(player, variant),
    }


def mastery_by_motif(player: Player, variant: str) -> list[dict[str, Any]]:
    """An account's every-defence mastery in ``variant`` by motif: the defences met of all
    (``met``, ``total``, ``percent``), the puzzles mastered of those begun; a visitor has none."""
    if not player.is_account:
        return []
    rows = Mastery.objects.filter(
        user=player.user, puzzle__variant=variant, total__gt=0
    ).values_list("puzzle__motifs", "met_count", "total")
    by_motif: dict[str, list[int]] = {}
    for motifs, met, total in rows:
        for m in sorted({m.split(":")[0] for m in motifs or []}) or ["-"]:
            cell = by_motif.setdefault(m, [0, 0, 0, 0])
            cell[0] += min(met, total)
            cell[1] += total
            cell[2] += 1 if met >= total else 0
            cell[3] += 1
    return [
        {
            "motif": m,
            "met": met,
            "total": total,
            "percent": round(100 * met / total),
            "mastered": mastered,
            "puzzles": puzzles,
        }
        for m, (met, total, mastered, puzzles) in sorted(by_motif.items())
    ]
