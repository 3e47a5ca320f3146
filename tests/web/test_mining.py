"""Mining for issue 17 on the web side: shot names in the learner's language, the resumable corpus
command, and mined puzzles loading with their shipped proofs (no proving again)."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import translation

from puzzles import engine
from puzzles.models import Puzzle, Verdict
from puzzles.templatetags.puzzle_ratings import motif_name
from puzzles.views_trainer import motif_label

CLEAN_PDN = """[Event "dama_learn puzzle"]
[GameType "29"]
[SetUp "1"]
[FEN "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15"]
[Goal "gain:1"]
[Horizon "2"]
[Solution "22-17 13x22 25x18x11"]
[Source "test"]

*

[Event "dama_learn puzzle"]
[GameType "29"]
[SetUp "1"]
[FEN "W:W17,29:B9"]
[Goal "gain:1"]
[Horizon "2"]
[Solution "29-25 9-13 25-22"]
[Source "test, cooked"]

*
"""


def test_named_shots_read_in_czech_and_english() -> None:
    with translation.override("cs"):
        assert str(motif_label("coup_royal")) == "královský úder (coup royal)"
        assert motif_name("coup_turc") == "turecký úder (coup turc)"
    with translation.override("en"):
        assert motif_name("coup_de_la_bombe") == "bomb shot"


@pytest.mark.django_db
def test_requalified_puzzles_carry_their_proof_and_load_without_proving(tmp_path) -> None:
    old = tmp_path / "old.pdn"
    old.write_text(CLEAN_PDN, encoding="utf-8")
    out = tmp_path / "czech.pdn"
    call_command(
        "mine_puzzles_corpus", "--variant", "czech", "--requalify", str(old), "--out", str(out),
        stdout=StringIO(),
    )  # fmt: skip
    text = out.read_text(encoding="utf-8")
    # the cooked one is dropped, the clean one kept with its proof
    assert text.count("[Event ") == 1 and "[Proof " in text
    # again: nothing new (resumable, idempotent)
    call_command(
        "mine_puzzles_corpus", "--variant", "czech", "--requalify", str(old), "--out", str(out),
        stdout=StringIO(),
    )  # fmt: skip
    assert out.read_text(encoding="utf-8") == text
    call_command("load_puzzles", "--queue", str(out), stdout=StringIO())
    puzzle = Puzzle.objects.get()
    assert puzzle.verdict == Verdict.UNIQUE and puzzle.worker == "PDN"
    assert puzzle.solution == ["22-17", "13x22", "25x18x11"]
    # the wrong moves' refutations come with the proof, as a worker's proof has them
    assert puzzle.proof["refutations"][""], puzzle.proof.get("refutations")


def test_mined_puzzle_data_holds_the_verdict() -> None:
    found = list(engine.mine("czech", 1, seed=3))
    assert found and found[0].proof is not None
    assert found[0].proof["kind"] == "unique" and found[0].proof["fen"] == found[0].fen


GAME_PDN = """[Event "club game"]
[GameType "29"]
[SetUp "1"]
[FEN "B:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,9,10,12,15"]

1... 9-13 2. 22-17 13x22 3. 25x18x11 *
"""


def test_mine_puzzles_from_pdn_keeps_the_gain_the_last_move_allowed(tmp_path) -> None:
    games = tmp_path / "games.pdn"
    games.write_text(GAME_PDN, encoding="utf-8")
    out = tmp_path / "found.pdn"
    call_command(
        "mine_puzzles", "--variant", "czech", "--count", "3", "--from-pdn", str(games),
        "--natural", "--out", str(out), stdout=StringIO(), stderr=StringIO(),
    )  # fmt: skip
    text = out.read_text(encoding="utf-8")
    assert '[Solution "22-17 13x22 25x18x11"]' in text and "[Proof " in text


def test_the_spread_command_reports_pieces_moves_and_horizons(tmp_path) -> None:
    path = tmp_path / "czech.pdn"
    text = CLEAN_PDN.replace('[Source "test"]', '[Source "engine czech game 1 ply 21"]')
    text = text.replace(
        '[Source "test, cooked"]', '[Source "engine czech game 1 ply 21 after 9-13"]'
    )
    path.write_text(text.replace('[Horizon "2"]', '[Motifs "lock"]\n[Horizon "2"]', 1))
    buf = StringIO()
    call_command("mine_puzzles_spread", str(path), stdout=buf)
    text = buf.getvalue()
    assert "czech: 2 puzzles" in text
    assert "pieces   00-04 50%  20-24 50%" in text and "move     010+ 100%" in text
    assert "source   engine-game 50%  engine-sideline 50%" in text
    assert "shot     lock 1\n" in text


@pytest.mark.django_db
def test_the_corpus_command_mines_to_its_target_and_resumes_where_it_stopped(tmp_path) -> None:
    out = tmp_path / "brazilian.pdn"
    args = ["mine_puzzles_corpus", "--variant", "brazilian", "--seed", "3", "--out", str(out)]
    said = StringIO()
    call_command(*args, "--target", "2", "--deep-share", "0", stdout=said)
    assert re.search(r"2 puzzles appended to .* \(\d+s of CPU, \d+ per CPU-hour;", said.getvalue())
    first = out.read_text(encoding="utf-8")
    assert first.count("[Event ") == 2 and first.count("[Proof ") == 2
    assert "engine brazilian level 4 varied 4 seed 3 game " in first
    call_command(*args, "--target", "3", "--deep-share", "0", stdout=StringIO())
    grown = out.read_text(encoding="utf-8")
    # the file grows: what was there stays, one new puzzle, none twice
    assert grown.startswith(first) and grown.count("[Event ") == 3
    fens = [line for line in grown.splitlines() if line.startswith("[FEN ")]
    goals = [line for line in grown.splitlines() if line.startswith("[Goal ")]
    assert len(set(zip(fens, goals, strict=True))) == 3
    done = StringIO()
    call_command(*args, "--target", "3", stdout=done)
    assert "already holds 3 puzzles" in done.getvalue()


@pytest.mark.django_db
def test_the_corpus_command_mines_for_the_named_shots_the_file_lacks(tmp_path) -> None:
    from puzzles.management.commands.mine_puzzles_corpus import shot_counts

    out = tmp_path / "brazilian.pdn"
    args = ["mine_puzzles_corpus", "--variant", "brazilian", "--seed", "3", "--out", str(out)]
    # it stops once the file holds one of each shot named (a stop by the work, not the clock)
    shots = ["--shot", "breakthrough", "--shot", "double_deux"]
    call_command(*args, "--shots", "1", *shots, stdout=StringIO())
    text = out.read_text(encoding="utf-8")
    entries = list(engine.read_puzzles(text, "brazilian"))
    assert entries
    names = engine.shot_names("brazilian")
    held: set[str] = set()
    for e in entries:
        # each puzzle appended shows a shot the file did not hold yet
        shown = set(e.motifs) & names
        assert shown - held, e.motifs
        held |= shown
    assert {"breakthrough", "double_deux"} <= held
    counts = shot_counts(text, "brazilian")
    assert set(counts) == names and sum(counts.values()) >= len(entries)
    assert {m for m, c in counts.items() if c} == held


@pytest.mark.django_db
def test_the_corpus_command_names_the_shots_when_asked_for_one_it_does_not_know(tmp_path) -> None:
    from django.core.management.base import CommandError

    out = tmp_path / "czech.pdn"
    with pytest.raises(CommandError, match="no shot named coup_royal in czech: breakthrough"):
        call_command(
            "mine_puzzles_corpus", "--variant", "czech", "--shots", "5",
            "--shot", "coup_royal", "--out", str(out),
        )  # fmt: skip
    assert not out.exists()


@pytest.mark.django_db
def test_the_corpus_command_appends_only_puzzles_of_the_least_horizon_asked(tmp_path) -> None:
    out = tmp_path / "czech.pdn"
    args = ["mine_puzzles_corpus", "--variant", "czech", "--seed", "3", "--out", str(out)]
    call_command(*args, "--min-horizon", "3", "--target", "3", stdout=StringIO())
    entries = list(engine.read_puzzles(out.read_text(encoding="utf-8"), "czech"))
    assert len(entries) == 3
    assert all(e.horizon >= 3 for e in entries)


def test_the_deep_share_lets_a_short_puzzle_in_only_beside_enough_deep_ones() -> None:
    from puzzles.management.commands.mine_puzzles_corpus import SLACK, short_allowed

    assert short_allowed([], 0.3)
    assert not short_allowed([1] * SLACK, 0.3)
    # 30 % deep: 7 short ones for every 3 deep ones
    assert short_allowed([1] * (SLACK + 6) + [3] * 3, 0.3)
    assert not short_allowed([2] * (SLACK + 7) + [4] * 3, 0.3)
    assert short_allowed([1] * 500, 0)
