"""The trained evaluation (issue 52): the shipped weights load and match their checksums, a damaged
file is refused, the trained evaluation is symmetric between the colours and sums exactly what
the training tool fits, and the training tool runs on a tiny sample (tools/train_eval.py)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from dama import Board
from dama import weights as W
from dama.evaluate import N_TERMS, PATTERN_STATES, SCALE, Evaluator, evaluator, trained_evaluator
from dama.search import search
from dama.variants import find_variant
from tests.engine.test_evaluate import mirrored

VARIANTS = ["czech", "brazilian", "international"]


def random_positions(variant: str, count: int, seed: int = 7) -> list[Board]:
    rng = random.Random(seed)
    out: list[Board] = []
    while len(out) < count:
        b = Board(variant)
        for _ in range(rng.randint(4, 70)):
            moves = b.legal_moves
            if not moves or b.outcome() is not None:
                break
            b.push(rng.choice(moves))
        out.append(b)
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_shipped_weights_load_and_match_their_checksum(variant: str) -> None:
    w = W.load(variant)
    sums = W.read_sums()
    assert sums[f"{variant}.json"] == W.sha256(W.WEIGHTS_DIR / f"{variant}.json")
    ev = Evaluator(find_variant(variant))
    assert len(w.coef) == N_TERMS
    assert len(w.patterns) == PATTERN_STATES * ev.n_win
    assert any(w.patterns), "the patterns were trained"
    # the training is on record: the command that makes the file again
    assert w.training["command"].startswith("python -m tools.train_eval")
    assert w.training["seed"] == 52


def test_a_damaged_weights_file_is_refused(tmp_path: Path) -> None:
    for name in ("czech.json", W.SUMS):
        shutil.copy(W.WEIGHTS_DIR / name, tmp_path / name)
    assert W.load("czech", tmp_path).coef == W.load("czech").coef
    path = tmp_path / "czech.json"
    path.write_text(path.read_text().replace('"coef":[', '"coef":[1'))
    with pytest.raises(W.WeightsError, match="SHA-256"):
        W.load("czech", tmp_path)
    with pytest.raises(W.WeightsError, match="no trained weights"):
        W.load("brazilian", tmp_path)


def test_weights_that_do_not_fit_the_board_are_refused() -> None:
    w = W.load("czech")
    ev = Evaluator(find_variant("international"))
    with pytest.raises(ValueError, match="do not fit"):
        ev.use_weights(list(w.coef), list(w.patterns))


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_trained_evaluation_is_the_same_for_both_colours(variant: str) -> None:
    ev = trained_evaluator(find_variant(variant))
    assert ev.evaluate(*Board(variant).key()) == 0
    for b in random_positions(variant, 60):
        assert ev.evaluate(*b.key()) == ev.evaluate(*mirrored(b).key()), b.fen


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_trained_evaluation_sums_the_features_the_tool_fits(variant: str) -> None:
    """What :meth:`Evaluator.features` gives the training tool, times the weights, is the score
    (where no endgame rule fixes it); the hand-tuned evaluation is the same sum with its own
    coefficients and no patterns."""
    trained = trained_evaluator(find_variant(variant))
    hand = Evaluator(find_variant(variant))
    checked = 0
    for b in random_positions(variant, 80, seed=11):
        w, bl, k, turn = b.key()
        f = trained.features(w, bl, k)
        assert f == hand.features(w, bl, k)
        if f[0]:
            continue
        terms, pats = f[1 : 1 + N_TERMS], f[1 + N_TERMS :]
        total = sum(c * t for c, t in zip(trained.coef, terms, strict=True)) + sum(
            trained.pat[i] for i in pats
        )
        expect = int(total / SCALE)  # rounded towards 0
        assert trained.evaluate(w, bl, k, True) == expect
        assert hand.evaluate(w, bl, k, True) == int(
            sum(c * t for c, t in zip(hand.coef, terms, strict=True)) / SCALE
        )
        checked += 1
    assert checked > 60


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_engine_plays_with_the_weights_in_play(variant: str) -> None:
    ev = evaluator(find_variant(variant))
    assert ev.trained is (variant in W.IN_PLAY)


def test_the_pattern_mirror_matches_the_positions_turned_round() -> None:
    """The training tool's map of each pattern to its mirror image (the fit ties them) is the
    pattern the evaluator sees in the position turned round."""
    np = pytest.importorskip("numpy")
    from tools.train_eval import pattern_mirror

    for variant in VARIANTS:
        ev = Evaluator(find_variant(variant))
        squares = Board(variant).geo.squares
        m = pattern_mirror(ev, squares)
        assert (m[m] == np.arange(len(m))).all()
        for b in random_positions(variant, 20, seed=3):
            f = ev.features(*b.key()[:3])[1 + N_TERMS :]
            fm = ev.features(*mirrored(b).key()[:3])[1 + N_TERMS :]
            assert sorted(int(m[i]) for i in f) == sorted(fm)


def test_the_training_tool_runs_on_a_tiny_sample(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    from tools.train_eval import main

    lines: list[str] = []
    args = ["--variant", "czech", "--games", "6", "--generations", "2", "--nodes", "300"]
    args += ["--steps", "30", "--processes", "1", "--out", str(tmp_path)]
    assert main(args, out=lines.append) == 0
    assert any(line.startswith("generation 1: fitted on") for line in lines), lines
    w = W.load("czech", tmp_path)  # its checksum was recorded
    assert w.training["games_per_generation"] == 6 and w.training["generations"] == 2
    assert w.training["train_loss_trained"] < w.training["train_loss_hand"]
    ev = Evaluator(find_variant("czech"))
    ev.use_weights(list(w.coef), list(w.patterns))
    b = Board("czech")
    r = search(b, depth=3, _evaluator=ev)
    assert r.move in b.legal_moves
    # the same seed makes the same weights, with the games played again or read from the cache
    again = tmp_path / "again"
    assert main([*args[:-1], str(again), "--cache", str(tmp_path / "games")], out=lines.append) == 0
    assert W.load("czech", again).patterns == w.patterns
    lines.clear()
    assert main([*args[:-1], str(again), "--cache", str(tmp_path / "games")], out=lines.append) == 0
    assert sum("games read from" in line for line in lines) == 2, lines
    assert W.load("czech", again).patterns == w.patterns
