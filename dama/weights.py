"""The trained evaluation's weights: data shipped with the package, read and checked here.

``dama/weights/<variant>.json`` holds, for one variant, the coefficients of the evaluation's
named terms (:data:`dama.evaluate.TERMS`) and the value of each local pattern of each window of
the board (:class:`dama.evaluate.Evaluator`), in 1/:data:`~dama.evaluate.SCALE` centi-men,
with how they were trained. ``tools/train_eval.py`` writes them (numpy is used there only) and
records each file's SHA-256 in ``dama/weights/SHA256SUMS``; :func:`load` refuses a file whose
checksum does not match, so that a damaged or hand-edited file never plays.

:data:`IN_PLAY` lists the variants whose trained weights the engine plays with by default
(:func:`dama.evaluate.evaluator`): a trained evaluation is kept only when it scores >= 60 % of
the points against the hand-tuned one at equal time (docs/benchmarks/engine.md); elsewhere it
is there for ``python -m dama match`` (``eval=trained``) and the next training.

>>> w = load("czech")
>>> w.variant, len(w.coef)
('czech', 9)
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

#: where the weights are shipped
WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
SUMS = "SHA256SUMS"
FORMAT = 1
#: the variants that play with their trained weights by default (see the module docstring)
IN_PLAY: frozenset[str] = frozenset({"czech"})


class WeightsError(ValueError):
    """A weights file that is missing, damaged or does not fit the engine."""


@dataclass(frozen=True)
class Weights:
    """One variant's trained weights (see the module docstring)."""

    variant: str
    coef: tuple[int, ...]
    patterns: tuple[int, ...]
    #: how they were made: the command's settings, the positions, the fit
    training: dict[str, Any] = field(default_factory=dict, compare=False)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_sums(folder: Path = WEIGHTS_DIR) -> dict[str, str]:
    """File name -> SHA-256 from ``SHA256SUMS`` (``sha256sum`` format)."""
    sums: dict[str, str] = {}
    path = folder / SUMS
    if path.exists():
        for line in path.read_text().splitlines():
            digest, _, name = line.strip().partition("  ")
            if digest and name:
                sums[name] = digest
    return sums


def write(weights: Weights, folder: Path = WEIGHTS_DIR) -> Path:
    """Write ``weights`` to ``<folder>/<variant>.json`` and record its checksum."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{weights.variant}.json"
    data = {
        "format": FORMAT,
        "variant": weights.variant,
        "coef": list(weights.coef),
        "patterns": list(weights.patterns),
        "training": weights.training,
    }
    path.write_text(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n")
    sums = read_sums(folder)
    sums[path.name] = sha256(path)
    (folder / SUMS).write_text("".join(f"{d}  {n}\n" for n, d in sorted(sums.items())))
    return path


def load(variant: str, folder: Path = WEIGHTS_DIR) -> Weights:
    """The weights of ``variant``, checked against ``SHA256SUMS``
    (:class:`WeightsError` when missing or damaged)."""
    path = folder / f"{variant}.json"
    if not path.exists():
        raise WeightsError(f"no trained weights for {variant} in {folder}")
    expected = read_sums(folder).get(path.name)
    if expected is None or sha256(path) != expected:
        raise WeightsError(f"{path}: its SHA-256 does not match {folder / SUMS}")
    data = json.loads(path.read_text())
    if data.get("format") != FORMAT or data.get("variant") != variant:
        raise WeightsError(f"{path}: not format {FORMAT} weights for {variant}")
    return Weights(variant, tuple(data["coef"]), tuple(data["patterns"]), data.get("training", {}))


@cache
def shipped(variant: str) -> Weights | None:
    """The shipped weights of ``variant``, or None when it has none (read once)."""
    try:
        return load(variant)
    except WeightsError:
        return None
