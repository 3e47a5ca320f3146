"""Perft against the published tables (issue 2, "How it is proven").

The tables are in ``data/perft.json`` with their sources (duplicates removed: equivalent capture
routes count once). The tests run the shallow depths, through the fast core (``Board.perft``) and
through the public API (``legal_moves``, ``push``, ``pop``); ``make bench`` runs the deep ones, and
``DAMA_PERFT_MAX_DEPTH=10`` makes these tests check every depth of the tables (about a minute).
Also here: ``divide`` and the ``python -m dama perft`` command line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from dama import Board
from dama.perft import divide, perft

ROOT = Path(__file__).resolve().parents[2]
DATA = json.loads((Path(__file__).parent / "data" / "perft.json").read_text(encoding="utf-8"))
TABLES: dict[str, list[int]] = {v: d["nodes"] for v, d in DATA["variants"].items()}

#: deepest depth checked by default: fast core / public API (each variant well under a second)
FAST_DEPTH = {"international": 6, "brazilian": 7, "czech": 8}
API_DEPTH = {"international": 6, "brazilian": 7, "czech": 7}


def _max_depth(default: int, variant: str) -> int:
    """``default``, or DAMA_PERFT_MAX_DEPTH capped at the table's length when that is set."""
    raw = os.environ.get("DAMA_PERFT_MAX_DEPTH", "").strip()
    return min(int(raw), len(TABLES[variant])) if raw else default


FAST_CASES = [
    (variant, depth)
    for variant in ("international", "brazilian", "czech")
    for depth in range(1, _max_depth(FAST_DEPTH[variant], variant) + 1)
]


def test_perft_data_file_names_its_sources_and_start_positions() -> None:
    assert DATA["convention"] == "duplicates removed"
    assert sorted(TABLES) == ["brazilian", "czech", "international"]
    assert TABLES["international"][:3] == [9, 81, 658]
    assert [len(TABLES[v]) for v in ("international", "brazilian", "czech")] == [9, 9, 10]
    for variant, entry in DATA["variants"].items():
        assert entry["sources"] and all(isinstance(s, str) and s for s in entry["sources"])
        assert Board(variant, entry["fen"]) == Board(variant), f"{variant}: fen is not the start"
        nodes = entry["nodes"]
        assert all(isinstance(n, int) and n > 0 for n in nodes)
        assert nodes == sorted(nodes), f"{variant}: the table must grow with depth"


@pytest.mark.parametrize(("variant", "depth"), FAST_CASES)
def test_fast_perft_matches_published_table(variant: str, depth: int) -> None:
    board = Board(variant)
    assert board.perft(depth) == TABLES[variant][depth - 1]
    assert board == Board(variant)


def _api_perft(board: Board, depth: int) -> int:
    """Perft by the public API only: every node makes its full Move objects, push and pop."""
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += _api_perft(board, depth - 1)
        popped = board.pop()
        assert popped is move
    return total


@pytest.mark.parametrize("variant", ["international", "brazilian", "czech"])
def test_public_api_perft_matches_published_table(variant: str) -> None:
    board = Board(variant)
    start_fen, start_hash = board.fen(), board.zobrist_hash()
    deepest = API_DEPTH[variant]
    for depth in range(1, deepest + 1):
        assert _api_perft(board, depth) == TABLES[variant][depth - 1], f"depth {depth}"
    assert (board.fen(), board.zobrist_hash(), board.move_stack) == (start_fen, start_hash, [])


@pytest.mark.parametrize(
    ("variant", "depth"), [("international", 4), ("brazilian", 5), ("czech", 5)]
)
def test_divide_is_consistent_with_perft(variant: str, depth: int) -> None:
    board = Board(variant)
    parts = divide(board, depth)
    assert [m for m, _ in parts] == board.legal_moves
    assert sum(n for _, n in parts) == perft(board, depth) == TABLES[variant][depth - 1]
    for move, n in parts:
        board.push(move)
        assert n == board.perft(depth - 1), move.route_str()
        board.pop()
    assert board == Board(variant)


def test_equivalent_routes_count_once_in_perft_and_divide() -> None:
    # the king on 2 can take 7, 17, 18, 8 clockwise or anticlockwise and land back on 2:
    # two routes, one position, so one move and one leaf
    board = Board("international", "W:WK2:B7,8,17,18")
    (move,) = board.legal_moves
    assert move.routes == ((2, 11, 22, 13, 2), (2, 13, 22, 11, 2))
    assert perft(board, 1) == 1
    assert [(m, n) for m, n in divide(board, 1)] == [(move, 1)]
    board.push(move)
    assert board.perft(1) == 0  # Black has no piece left


# -- the command line --------------------------------------------------------------------------------
PERFT_LINE = re.compile(r"^(\d+) (\d+) (\d+\.\d{3}) (\d+)$")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "dama", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("variant", "depth"), [("czech", 6), ("brazilian", 5), ("international", 4)]
)
def test_cli_perft_prints_one_line_per_depth(variant: str, depth: int) -> None:
    res = _cli("perft", "--variant", variant, "--depth", str(depth))
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    lines = res.stdout.splitlines()
    assert len(lines) == depth
    for d, line in enumerate(lines, start=1):
        m = PERFT_LINE.match(line)
        assert m, f"not 'DEPTH NODES SECONDS NODES_PER_SECOND': {line!r}"
        assert int(m.group(1)) == d
        assert int(m.group(2)) == TABLES[variant][d - 1]
        seconds, nps = float(m.group(3)), int(m.group(4))
        if seconds >= 0.01:
            assert abs(nps - int(m.group(2)) / seconds) <= 0.1 * nps + 1000


def test_cli_perft_with_fen_and_divide() -> None:
    fen = "W:WK46,31,32,38:BK5,18,19,27"
    board = Board("international", fen)
    res = _cli("perft", "--variant", "international", "--fen", fen, "--depth", "3", "--divide")
    assert res.returncode == 0, res.stderr
    *moves, last = res.stdout.splitlines()
    expected = {m.route_str(0): n for m, n in divide(board, 3)}
    got = {}
    for line in moves:
        route, n = line.split(" ")
        got[route] = int(n)
    assert got == expected
    m = PERFT_LINE.match(last)
    assert (
        m and int(m.group(1)) == 3 and int(m.group(2)) == board.perft(3) == sum(expected.values())
    )


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["perft", "--variant", "checkers", "--depth", "2"], "checkers"),
        (["perft", "--variant", "czech", "--fen", "W:W33:B1", "--depth", "2"], "33"),
        (["perft", "--variant", "czech", "--fen", "X:W21:B1", "--depth", "2"], "side to move"),
        (["perft", "--variant", "czech", "--depth", "0"], "depth"),
        (["perft", "--variant", "czech", "--depth", "99"], "depth"),
        (["perft", "--variant", "czech", "--depth", "two"], "depth"),
        (["perft", "--variant", "czech"], "depth"),
    ],
)
def test_cli_perft_bad_input_exits_2_with_one_line(args: list[str], needle: str) -> None:
    res = _cli(*args)
    assert res.returncode == 2
    assert res.stdout == ""
    err = res.stderr.splitlines()
    assert len(err) == 1, res.stderr
    assert needle in err[0]


# -- make bench ----------------------------------------------------------------------------------------
def test_bench_quick_run_prints_the_table_and_ratios(draughts_module: ModuleType) -> None:
    from tools import bench

    lines: list[str] = []
    # the perft sections (the playing and build sections have their own tests: a whole quick run
    # plays dozens of games and builds pure Python in a subprocess, minutes)
    assert bench.main(["--quick", "perft", "api"], out=lines.append) == 0
    text = "\n".join(lines)
    for label in ("international", "brazilian", "czech", "public API", "py-draughts"):
        assert label in text
    # international and Brazilian, fast perft and public API: four ratios
    assert len(re.findall(r"ratio \d+\.\d\dx", text)) == 4, text
    assert "MISMATCH" not in text


def test_bench_says_clearly_when_py_draughts_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    from tools import bench

    monkeypatch.setitem(sys.modules, "draughts", None)  # makes `import draughts` fail
    lines: list[str] = []
    assert bench.main(["--quick", "--section", "perft"], out=lines.append) == 0
    text = "\n".join(lines)
    assert "py-draughts is NOT installed" in text
    assert "make venv" in text
    assert "international perft" in text and " ok " in text
    assert "ratio" not in text.split("Ratios")[1]
