"""The command line ``python -m dama`` (issue 2, "Command line": keep exactly this shape)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from dama import Board

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dama", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def lines(text: str) -> list[str]:
    return text.splitlines()


# --------------------------------------------------------------------------------------------
# moves
# --------------------------------------------------------------------------------------------


def test_moves_start_position_one_line_per_move() -> None:
    p = run("moves", "--variant", "czech")
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    assert lines(p.stdout) == ["21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"]


def test_moves_international_start_position() -> None:
    p = run("moves", "--variant", "international", "--fen", "W:W31-50:B1-20")
    assert p.returncode == 0, p.stderr
    assert len(lines(p.stdout)) == 9
    assert lines(p.stdout)[0] == "31-26"


def test_moves_prints_full_routes_one_per_distinct_move() -> None:
    """A king going round b4 b6 d6 d4: the two routes home are one move, printed once."""
    p = run("moves", "--variant", "czech", "--fen", "W:WK22:B18,10,9,17")
    assert p.returncode == 0, p.stderr
    out = lines(p.stdout)
    assert len(out) == 5 == len(set(out))
    assert set(out) == {
        "22x13x6x15x22",
        "22x13x6x15x25",
        "22x13x6x15x29",
        "22x15x6x13x26",
        "22x15x6x13x31",
    }
    # the SDS international example: the full route, not 46x25
    p = run("moves", "--variant", "international", "--fen", "W:WK46:B41,42,30")
    assert lines(p.stdout) == ["46x37x48x25"]


def test_moves_routes_prints_every_route() -> None:
    p = run("moves", "--variant", "czech", "--fen", "W:WK22:B18,10,9,17", "--routes")
    assert p.returncode == 0, p.stderr
    out = lines(p.stdout)
    assert len(out) == 6 == len(set(out))
    assert {"22x13x6x15x22", "22x15x6x13x22"} <= set(out)
    b = Board("czech", "W:WK22:B18,10,9,17")
    assert set(out) == {m.route_str(i) for m in b.legal_moves for i in range(len(m.routes))}


def _key(route: str) -> tuple[int, int]:
    sq = [int(s) for s in re.split("[-x]", route)]
    return sq[0], sq[-1]


@pytest.mark.parametrize(
    ("variant", "fen"),
    [
        ("czech", "W:WK31,K13:B26,18,9"),
        ("brazilian", "W:WK29,K30,K31,K32:BK1,K2,K3"),
        ("international", "W:WK46,K50,33:B10,K4"),
        ("czech", "B:WK29,22:BK1,9,K12"),
    ],
)
def test_moves_stable_sorted_order(variant: str, fen: str) -> None:
    """Sorted by start then end square (numerically), the same on every run and for any FEN order."""
    p = run("moves", "--variant", variant, "--fen", fen)
    assert p.returncode == 0, p.stderr
    out = lines(p.stdout)
    assert out, "no moves"
    assert [_key(r) for r in out] == sorted(_key(r) for r in out)
    b = Board(variant, fen)
    assert out == [m.route_str() for m in b.legal_moves]
    # the same position written in another order prints the same lines
    turn, white, black = fen.split(":")
    shuffled = f"{turn}:W{','.join(reversed(white[1:].split(',')))}:B{','.join(reversed(black[1:].split(',')))}"
    assert lines(run("moves", "--variant", variant, "--fen", shuffled).stdout) == out
    assert lines(run("moves", "--variant", variant, "--fen", fen).stdout) == out


def test_moves_algebraic_fen_on_8x8() -> None:
    p = run("moves", "--variant", "brazilian", "--fen", "W:WKa1:Bb2,d2,g3")
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout) == ["29x22x31x20"]


def test_moves_no_legal_move_prints_nothing() -> None:
    p = run("moves", "--variant", "international", "--fen", "B:W50:B45")
    assert p.returncode == 0, p.stderr
    assert p.stdout == ""


# --------------------------------------------------------------------------------------------
# perft
# --------------------------------------------------------------------------------------------

PERFT_LINE = re.compile(r"^(\d+) (\d+) (\d+(?:\.\d+)?) (\d+)$")


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        ("czech", [7, 49, 302]),
        ("brazilian", [7, 49, 302]),
        ("international", [9, 81, 658]),
    ],
)
def test_perft_lines_depth_nodes_seconds_nps(variant: str, expected: list[int]) -> None:
    """One line per depth: DEPTH NODES SECONDS NODES_PER_SECOND (published counts, issue 2)."""
    p = run("perft", "--variant", variant, "--depth", str(len(expected)))
    assert p.returncode == 0, p.stderr
    out = lines(p.stdout)
    assert len(out) == len(expected)
    for depth, (line, nodes) in enumerate(zip(out, expected, strict=True), start=1):
        m = PERFT_LINE.match(line)
        assert m, line
        assert int(m.group(1)) == depth
        assert int(m.group(2)) == nodes
        seconds, nps = float(m.group(3)), int(m.group(4))
        if seconds >= 0.01:  # the last column is the second's: nodes / seconds
            assert abs(nps - nodes / seconds) <= 0.1 * nps + 1000, line


def test_perft_from_fen_counts_equivalent_routes_once() -> None:
    p = run("perft", "--variant", "czech", "--fen", "W:WK22:B18,10,9,17", "--depth", "1")
    assert p.returncode == 0, p.stderr
    m = PERFT_LINE.match(lines(p.stdout)[0])
    assert m and m.group(1) == "1" and m.group(2) == "5"


def test_perft_divide() -> None:
    p = run("perft", "--variant", "czech", "--depth", "2", "--divide")
    assert p.returncode == 0, p.stderr
    out = lines(p.stdout)
    per_move = dict(line.split() for line in out[:-1])
    assert set(per_move) == {"21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"}
    assert sum(int(n) for n in per_move.values()) == 49
    m = PERFT_LINE.match(out[-1])
    assert m and m.group(1) == "2" and m.group(2) == "49"


# --------------------------------------------------------------------------------------------
# bad input: exit status 2 and exactly one line on stderr
# --------------------------------------------------------------------------------------------

BAD = {
    "unknown variant (moves)": ("moves", "--variant", "checkers"),
    "unknown variant (perft)": ("perft", "--variant", "russian", "--depth", "2"),
    "bad FEN": ("moves", "--variant", "czech", "--fen", "W:W21:X5"),
    "bad FEN square": ("moves", "--variant", "czech", "--fen", "W:W33:B1"),
    "bad FEN turn": ("perft", "--variant", "czech", "--fen", "Q:W21:B1", "--depth", "1"),
    "FEN man on its crowning row": ("moves", "--variant", "czech", "--fen", "W:W1:B20"),
    "depth 0": ("perft", "--variant", "czech", "--depth", "0"),
    "depth 16": ("perft", "--variant", "czech", "--depth", "16"),
    "depth negative": ("perft", "--variant", "czech", "--depth", "-3"),
    "depth not a number": ("perft", "--variant", "czech", "--depth", "three"),
    "missing --variant": ("moves",),
    "missing --depth": ("perft", "--variant", "czech"),
    "missing --variant value": ("moves", "--variant"),
    "unknown option": ("moves", "--variant", "czech", "--colour", "white"),
    "unknown command": ("play", "--variant", "czech"),
    "no command": (),
}


@pytest.mark.parametrize("args", list(BAD.values()), ids=list(BAD))
def test_bad_input_exits_2_with_one_line(args: tuple[str, ...]) -> None:
    p = run(*args)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stdout == ""
    err = lines(p.stderr)
    assert len(err) == 1, p.stderr
    assert err[0].strip()
    assert "Traceback" not in p.stderr


def test_bad_input_messages_say_what_is_wrong() -> None:
    assert "checkers" in run("moves", "--variant", "checkers").stderr
    assert "depth" in run("perft", "--variant", "czech", "--depth", "99").stderr
    assert "--variant" in run("moves").stderr
    err = run("moves", "--variant", "czech", "--fen", "W:W33:B1").stderr
    assert "33" in err


def test_empty_fen_is_bad_input() -> None:
    """An empty --fen is a bad FEN (Board('czech', '') raises InvalidFenError), not the start."""
    p = run("moves", "--variant", "czech", "--fen", "")
    assert p.returncode == 2
    assert len(lines(p.stderr)) == 1


# --------------------------------------------------------------------------------------------
# --help
# --------------------------------------------------------------------------------------------

HELP = {
    (): ["moves", "perft"],
    ("moves",): ["--variant", "--fen", "--routes"],
    ("perft",): ["--variant", "--fen", "--depth", "--divide"],
}


@pytest.mark.parametrize("sub", list(HELP), ids=lambda s: " ".join(s) or "top")
def test_help_documents_every_option(sub: tuple[str, ...]) -> None:
    p = run(*sub, "--help")
    assert p.returncode == 0
    assert p.stderr == ""
    text = p.stdout
    assert text.startswith("usage:")
    body = text.split("\n\n", 1)[1]  # past the usage lines
    for opt in HELP[sub]:
        # the option is listed with a description on its line or the next
        m = re.search(rf"^\s+{re.escape(opt)}\b[^\n]*(?:\n[^\n]*)?", body, re.MULTILINE)
        assert m, f"{opt} not documented in {sub} --help"
        entry = m.group(0)
        described = re.sub(rf"{re.escape(opt)}(\s+[A-Z]+)?", "", entry).strip()
        assert described, f"{opt} has no description"
    assert "--help" in body
    if sub:
        assert "czech" in text and "international" in text and "brazilian" in text


def test_help_every_argparse_option_has_help_text() -> None:
    """Every option of every subcommand carries a help string (none left undocumented)."""
    import argparse

    from dama.cli import build_parser

    parser = build_parser()
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert subs
    for name, sp in subs[0].choices.items():
        for action in sp._actions:
            assert action.help and action.help != argparse.SUPPRESS, (name, action.dest)


# --------------------------------------------------------------------------------------------
# endgames
# --------------------------------------------------------------------------------------------


def test_endgames_build_info_verify_probe(tmp_path: Path) -> None:
    """Build the two-piece Czech databases, describe them, check them, probe a position."""
    d = str(tmp_path)
    p = run("endgames", "build", "--variant", "czech", "--max-pieces", "2", "--dir", d)
    assert p.returncode == 0, p.stderr
    assert "3/3 built MvM" in p.stdout
    assert (tmp_path / "czech" / "KvM.egdb").is_file()
    p = run("endgames", "info", "--dir", d, "--materials")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("czech: 4 materials, up to 2 pieces, 3,")
    assert "  KvK: 992 positions" in p.stdout
    p = run("endgames", "verify", "--variant", "czech", "--dir", d, "--positions", "200")
    assert p.returncode == 0, p.stdout
    assert lines(p.stdout) == ["czech: 200 positions checked, 0 wrong"]
    p = run("endgames", "probe", "--variant", "czech", "--fen", "W:WK29:B4", "--dir", d)
    assert p.returncode == 0, p.stderr
    assert lines(p.stdout)[0] == "win in 3 plies (2 moves)"


def test_endgames_probe_of_a_material_not_built(tmp_path: Path) -> None:
    p = run("endgames", "probe", "--variant", "czech", "--fen", "W:WK29:B4", "--dir", str(tmp_path))
    assert p.returncode == 1
    assert "not covered" in p.stdout
