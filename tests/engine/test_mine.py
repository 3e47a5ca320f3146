"""Puzzle mining (issue 5): self-play, candidates, proofs, motifs, difficulty, PDN; the corpus."""

from __future__ import annotations

import dataclasses
import functools
import json
import random
from pathlib import Path

import pytest

from dama import Board
from dama.cli import main
from dama.mine import (
    MinedPuzzle,
    SolutionLine,
    difficulty,
    mine,
    mine_rule_captures,
    motif_final_capture,
    motif_sacrifices,
    motifs,
    pdn_positions,
    play_game,
    puzzle_pdn,
    puzzles_pdn,
    quality,
    rule_motifs,
)
from dama.pdn import read_tags
from dama.shots import shot_names
from dama.solve import Limits, solve

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "puzzles"


def line(variant: str, fen: str, moves: list[str], goal: str = "") -> SolutionLine:
    return SolutionLine.from_texts(Board(variant, fen), moves, goal)


# -- motif predicates on hand-made lines ------------------------------------------------------------


def test_shot_sacrifice_and_final_capture() -> None:
    sl = line(
        "brazilian",
        "W:W25,27,28,29,30,31,32:B1,2,3,4,5,7,8,9,18,19,20",
        ["27-24", "20x27", "31x24x15x22"],
        "gain:2",
    )
    assert motif_sacrifices(sl) == 1
    assert motif_final_capture(sl) == 3
    tags = motifs(sl)
    assert {"sacrifice:1", "capture:3", "shot"} <= set(tags)
    assert "crowning" not in tags


def test_king_priority_motif() -> None:
    b = Board("czech", "W:W28,K29:B18,11,4,24")
    assert rule_motifs(b, b.parse_move("29x15x8")) == {"king_priority"}
    assert "king_priority" in motifs(SolutionLine.from_texts(b, ["29x15x8"], "capture"))


def test_majority_motif() -> None:
    fen = "W:W20,25,30,33,34,36,37,41,42,45,46,47:B1,2,3,4,5,6,7,9,12,14,16,22,23,31"
    b = Board("international", fen)
    assert "majority" in rule_motifs(b, b.parse_move("36x27x18x29"))


def test_no_crown_in_passing_motif() -> None:
    # Brazilian: the man on 10 jumps 7 to 3 on the far row, then 8 back to 12: no crown
    b = Board("brazilian", "W:W10:B7,8")
    (m,) = b.legal_moves
    assert m.route_str() == "10x3x12" and not m.crowns
    assert rule_motifs(b, m) == {"no_crown_in_passing"}


def test_quiet_moves_have_no_rule_motifs() -> None:
    b = Board("czech")
    assert rule_motifs(b, b.legal_moves[0]) == set()


def test_crowning_and_breakthrough() -> None:
    # Czech: 22-17 13x22 25x18x11 is a shot without crowning
    sl = line(
        "czech",
        "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15",
        ["22-17", "13x22", "25x18x11"],
        "gain:1",
    )
    tags = motifs(sl)
    assert "crowning" not in tags and "breakthrough" not in tags
    assert "shot" in tags


def test_difficulty_grows_with_length_and_sacrifices() -> None:
    short = line("czech", "W:W28,K29:B18,11,4,24", ["29x15x8"], "capture")
    shot = line(
        "czech",
        "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15",
        ["22-17", "13x22", "25x18x11"],
        "gain:1",
    )
    assert 800 <= difficulty(short) < difficulty(shot) <= 2200


# -- self-play and mining ---------------------------------------------------------------------------


def test_self_play_is_seeded() -> None:
    a = play_game("czech", random.Random(4))
    b = play_game("czech", random.Random(4))
    assert a == b
    assert len(a) > 10


def untimed(p: MinedPuzzle) -> MinedPuzzle:
    proof = json.loads(p.proof)
    del proof["seconds"]
    return dataclasses.replace(p, proof=json.dumps(proof))


def test_seeded_mining_yields_proven_unique_tagged_puzzles() -> None:
    found = list(mine("czech", 6, seed=3))
    assert len(found) == 6
    # the same puzzles and proofs again; only the measured time of each proof differs
    assert [untimed(p) for p in found] == [untimed(p) for p in mine("czech", 6, seed=3)]
    kinds = {p.goal.split(":")[0] for p in found}
    assert {"capture", "gain"} <= kinds
    for p in found:
        assert p.motifs
        assert 800 <= p.difficulty <= 2200
        v = solve(Board(p.variant, p.fen), p.goal, Limits(moves=p.horizon))
        assert v.kind == "unique", p
        assert v.solution == p.solution
        assert v.length == p.horizon


@pytest.mark.parametrize("variant", ["czech", "international"])
def test_turkish_strike_capture_puzzles_from_random_placements(variant: str) -> None:
    found = list(mine_rule_captures(variant, 2, "turkish_strike", seed=1))
    assert len(found) == 2
    for p in found:
        assert p.goal == "capture" and "turkish_strike" in p.motifs
        assert solve(Board(variant, p.fen), "capture").kind == "unique"


def test_pdn_round_trip() -> None:
    found = list(mine("brazilian", 3, seed=2))
    text = puzzles_pdn(found)
    tags = read_tags(text)
    assert len(tags) == 3
    for p, t in zip(found, tags, strict=True):
        assert Board(p.variant, t["FEN"]).fen() == p.fen
        assert t["Goal"] == p.goal
        assert t["Horizon"] == str(p.horizon)
        assert t["Solution"].split() == list(p.solution)
        assert t["Motifs"].split() == list(p.motifs)
        assert t["GameType"] == "26"
        assert int(t["Difficulty"]) == p.difficulty
        assert t["Source"] == p.source


def test_positions_of_pdn_games_can_be_mined() -> None:
    text = '[Event "g"]\n[GameType "29"]\n\n1. 22-18 11-15 2. 18x11 8x15 *\n'
    got = list(pdn_positions(text, "czech"))
    assert len(got) == 4
    assert got[0][1] == Board("czech").key()
    puzzles = list(mine("czech", 1, positions=got, mix={"capture": 1.0}))
    assert all(isinstance(p, MinedPuzzle) for p in puzzles)


def test_cli_mine_writes_pdn(tmp_path: Path) -> None:
    out = tmp_path / "p.pdn"
    assert (
        main(["mine", "--variant", "czech", "--count", "2", "--seed", "5", "--out", str(out)]) == 0
    )
    assert len(read_tags(out.read_text())) == 2


def test_cli_mine_bad_count_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["mine", "--variant", "czech", "--count", "0"])
    assert exc.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


# -- the shipped corpus ---------------------------------------------------------------------------


@functools.cache
def corpus_tags(variant: str) -> tuple[dict[str, str], ...]:
    """The tags of each puzzle of ``variant``'s shipped corpus, read once per test process (a
    file of thousands of puzzles takes seconds to read; the tests only look)."""
    return tuple(read_tags((CORPUS / f"{variant}.pdn").read_text()))


@pytest.mark.parametrize("variant", ["czech", "international", "brazilian"])
def test_corpus_sample_is_proven_unique(variant: str) -> None:
    tags = corpus_tags(variant)
    assert len(tags) >= 300
    goals = {t["Goal"].split(":")[0] for t in tags}
    assert goals == {"capture", "gain", "win"}
    for t in random.Random(variant).sample(tags, 8):
        board = Board(variant, t["FEN"])
        v = solve(board, t["Goal"], Limits(moves=int(t["Horizon"])))
        assert v.kind == "unique", t
        assert " ".join(v.solution) == t["Solution"]


#: puzzles each variant's shipped corpus holds (issue 17), the share of them with 3 or more solver
#: moves, and the puzzles of each named shot of international
CORPUS_SIZE = 3000
DEEP_SHARE = 0.30
SHOT_PUZZLES = 20
#: puzzles of the advanced level (5 or more solver moves) in each variant's corpus
ADVANCED = 30


@pytest.mark.parametrize("variant", ["czech", "international", "brazilian"])
def test_corpus_holds_its_size_with_a_deep_share_and_no_puzzle_twice(variant: str) -> None:
    tags = corpus_tags(variant)
    assert len(tags) >= CORPUS_SIZE
    deep = sum(int(t["Horizon"]) >= 3 for t in tags)
    assert deep >= DEEP_SHARE * len(tags), f"{variant}: {deep} of {len(tags)} with 3+ moves"
    # the three levels: beginner (1-2 solver moves), intermediate (3-4) and advanced (5+)
    advanced = sum(int(t["Horizon"]) >= 5 for t in tags)
    assert advanced >= ADVANCED, f"{variant}: {advanced} puzzles of 5+ moves"
    keys = {(Board(variant, t["FEN"]).fen(), t["Goal"]) for t in tags}
    assert len(keys) == len(tags)
    # the proofs are shipped: loading does not prove them again
    assert all("Proof" in t for t in tags)


def test_international_corpus_has_every_named_shot_often_enough_to_drill() -> None:
    tags = corpus_tags("international")
    shown = {name: 0 for name in shot_names("international")}
    for t in tags:
        for m in set(t["Motifs"].split()) & shown.keys():
            shown[m] += 1
    assert len(shown) >= 10
    assert {n: c for n, c in shown.items() if c < SHOT_PUZZLES} == {}


#: capture puzzles that teach each variant's capture rules, and how many the corpus must hold
RULE_LESSONS = {
    "czech": {"king_priority": 20, "turkish_strike": 5},
    "international": {"majority": 20, "no_crown_in_passing": 5, "turkish_strike": 5},
    "brazilian": {"majority": 20, "no_crown_in_passing": 5, "turkish_strike": 5},
}


@pytest.mark.parametrize("variant", sorted(RULE_LESSONS))
def test_corpus_has_a_spread_of_difficulty_and_rule_lessons(variant: str) -> None:
    """Every goal, difficulty from easy to hard, and capture puzzles teaching the variant's rules."""
    tags = corpus_tags(variant)
    goals = [t["Goal"] for t in tags]
    for goal in ("capture", "win"):
        assert goals.count(goal) >= 30, goal
    assert sum(g.startswith("gain:") for g in goals) >= 100
    assert len({g for g in goals if g.startswith("gain:")}) >= 4  # gain:1 .. gain:4 at least
    bands: dict[int, int] = {}
    for t in tags:
        band = min(int(t["Difficulty"]) // 200, 10)
        bands[band] = bands.get(band, 0) + 1
    assert min(bands) <= 4 and max(bands) >= 10  # below 1000 up to 2000 and more
    assert sum(1 for n in bands.values() if n >= 10) >= 5
    capture_motifs = [t["Motifs"].split() for t in tags if t["Goal"] == "capture"]
    for motif, least in RULE_LESSONS[variant].items():
        found = sum(motif in m for m in capture_motifs)
        assert found >= least, f"{variant}: {found} capture puzzles tagged {motif}"


#: puzzles the daily puzzle's choice needs in each variant's shipped corpus: a year without repeat
DAILY_YEAR = 365


@pytest.mark.parametrize("variant", sorted(RULE_LESSONS))
def test_corpus_holds_a_year_of_daily_puzzles_rated_above_the_forced_captures(variant: str) -> None:
    """The daily puzzle is chosen among the best rated (``puzzles.daily.best_rated``: the
    quality estimate until players vote): the corpus has a year of them, none a mere forced
    capture, each with its proof shipped."""
    tags = corpus_tags(variant)
    rated = sorted(
        tags,
        key=lambda t: -quality(t["Goal"], int(t["Horizon"]), t.get("Motifs", "").split()),
    )
    year = rated[:DAILY_YEAR]
    assert len(year) == DAILY_YEAR
    assert all(t["Goal"] != "capture" and "Proof" in t for t in year)
    assert all(quality(t["Goal"], int(t["Horizon"]), t["Motifs"].split()) > 0 for t in year)


def test_puzzle_pdn_has_the_tags() -> None:
    p = MinedPuzzle(
        "czech", "W:W28,K29:B4,11,18,24", "capture", 1, ("29x15x8",), ("capture:2",), 1050, "hand"
    )
    text = puzzle_pdn(p)
    for tag in ("FEN", "Goal", "Horizon", "Solution", "Motifs", "Difficulty", "Source", "GameType"):
        assert f"[{tag} " in text


def test_read_tags_splits_entries_without_event_tags() -> None:
    text = (
        '[GameType "29"]\n[FEN "W:W21:B5"]\n[Goal "capture"]\n\n'
        '[GameType "29"]\n[FEN "W:W22:B6"]\n[Goal "capture"]\n*\n'
        '[FEN "W:W23:B7"]\n[Goal "win"]\n'
    )
    tags = read_tags(text)
    assert [t["FEN"] for t in tags] == ["W:W21:B5", "W:W22:B6", "W:W23:B7"]
    assert tags[2]["Goal"] == "win"


def test_a_motif_that_is_also_a_shots_name_is_listed_once() -> None:
    # 17-13! 32x23x9 13x6 1x10 5-1: the breakthrough is both a motif and a named shot
    sl = line(
        "brazilian",
        "W:W5,14,17,21,27,30:B1,15,16,20,K32",
        ["17-13", "32x23x9", "13x6", "1x10", "5-1"],
        "gain:2",
    )
    tags = motifs(sl)
    assert tags.count("breakthrough") == 1
    assert len(tags) == len(set(tags))
