"""The compiled engine (dama._build, dama._loader): which engine runs, a build that matches its
source is used, a stale one or none falls back to pure Python, DAMA_PURE=1 forces pure Python,
and without a C compiler the build leaves pure Python behind.

The whole engine suite runs against both builds (``make test``: compiled, then ``DAMA_PURE=1``);
:func:`test_the_engine_in_use_is_the_expected_one` makes CI fail if the compiled run was not
compiled (``DAMA_EXPECT_COMPILED=1`` in .ci/run).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import dama
import dama._core
import dama.solve
from dama import _loader

ROOT = Path(__file__).resolve().parents[2]
PURE = os.environ.get("DAMA_PURE", "").strip() not in ("", "0")


def test_the_engine_in_use_is_the_expected_one():
    info = dama.build_info()
    if PURE:
        assert not dama.COMPILED
        assert info["reason"] == "DAMA_PURE is set"
    elif os.environ.get("DAMA_EXPECT_COMPILED") == "1":
        assert dama.COMPILED, f"the compiled engine is not in use: {info['reason']}"
    assert info["compiled"] is dama.COMPILED
    for module in (dama._core, dama.solve):
        assert module.__file__ is not None
        if dama.COMPILED:
            assert Path(module.__file__).parent.name == "_compiled"
            assert not module.__file__.endswith(".py")
        else:
            assert Path(module.__file__) == Path(dama.__file__).parent / Path(module.__file__).name
            assert module.__file__.endswith(".py")


def test_version_says_which_engine_runs():
    out = subprocess.run(
        [sys.executable, "-m", "dama", "--version"], capture_output=True, text=True, check=True
    ).stdout
    assert out.startswith(f"dama {dama.__version__}, ")
    assert ("compiled with mypyc" in out) is dama.COMPILED
    assert ("pure Python" in out) is not dama.COMPILED


def _manifest(dir: Path, **kw: object) -> Path:
    dir.mkdir(parents=True, exist_ok=True)
    source = ROOT / "dama" / "_core.py"
    data = {
        "suffix": kw.get("suffix", ".cpython-311-x86_64-linux-gnu.so"),
        "mypy": "2.4.1",
        "modules": {
            "dama._core": {
                "file": "_core.so",
                "source": "_core.py",
                "sha256": kw.get("sha256", _loader.source_hash(source)),
            }
        },
        "libs": {"dama._engine__mypyc": "_engine__mypyc.so"},
    }
    (dir / "manifest.json").write_text(json.dumps(data))
    return dir


def test_dama_pure_forces_pure_python(monkeypatch, tmp_path):
    monkeypatch.setenv("DAMA_PURE", "1")
    state, warning = _loader.check(ROOT / "dama", _manifest(tmp_path / "c"))
    assert state == {"compiled": False, "reason": "DAMA_PURE is set"}
    assert warning == ""


def test_no_build_is_pure_python_without_a_warning(monkeypatch, tmp_path):
    monkeypatch.delenv("DAMA_PURE", raising=False)
    state, warning = _loader.check(ROOT / "dama", tmp_path / "missing")
    assert state == {"compiled": False, "reason": "not built"}
    assert warning == ""


def test_a_build_older_than_its_source_is_not_used(monkeypatch, tmp_path):
    monkeypatch.delenv("DAMA_PURE", raising=False)
    state, warning = _loader.check(ROOT / "dama", _manifest(tmp_path / "c", sha256="0" * 64))
    assert state["compiled"] is False
    assert "older than _core.py" in state["reason"]
    assert warning == state["reason"]


def test_a_build_for_another_python_is_not_used(monkeypatch, tmp_path):
    monkeypatch.delenv("DAMA_PURE", raising=False)
    c = _manifest(tmp_path / "c", suffix=".cpython-39-x86_64-linux-gnu.so")
    state, warning = _loader.check(ROOT / "dama", c)
    assert state["compiled"] is False
    assert "another Python" in warning


def test_a_build_matching_its_source_is_served_from_its_own_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("DAMA_PURE", raising=False)
    c = _manifest(tmp_path / "c")
    state, warning = _loader.check(ROOT / "dama", c)
    assert warning == ""
    assert state["compiled"] is True
    assert state["files"] == {
        "dama._core": c / "_core.so",
        "dama._engine__mypyc": c / "_engine__mypyc.so",
    }
    finder = _loader.CompiledFinder(state["files"])
    spec = finder.find_spec("dama._core")
    assert spec is not None and spec.origin == str(c / "_core.so")
    assert finder.find_spec("dama.board") is None  # everything else: the ordinary import


# -- real builds, in a copy of the package (never in the checkout): the checkout's own, and one ---
# -- without a C compiler -------------------------------------------------------------------------

#: the builds are tested once, in the compiled run (make test's pure run deselects them)
once = pytest.mark.build


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    shutil.copytree(
        ROOT / "dama", root / "dama", ignore=shutil.ignore_patterns("_compiled*", "__pycache__")
    )
    return root


def _run(root: Path, code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "DAMA_PURE"}
    environ.update(env)
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        env=environ,
        capture_output=True,
        text=True,
        check=True,
    )


#: international perft at depth 4 (tests/engine/data/perft.json): both builds must count it
PERFT_4 = json.loads((ROOT / "tests" / "engine" / "data" / "perft.json").read_text())["variants"][
    "international"
]["nodes"][3]
PROBE = (
    "import dama, dama._core, json; from dama import Board; "
    "print(json.dumps([dama.COMPILED, dama._core.__file__, Board('international').perft(4)]))"
)


def the_checkouts_build() -> Path:
    """``dama/_compiled/`` of the checkout, built by ``make venv`` (``dama/_build.py``) from the
    current sources; skipped when there is none (no C compiler), failed when CI expects one."""
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("DAMA_PURE", raising=False)
        state, _warning = _loader.check(ROOT / "dama", ROOT / "dama" / "_compiled")
    if not state["compiled"]:
        if os.environ.get("DAMA_EXPECT_COMPILED") == "1":
            pytest.fail(f"no current compiled engine in the checkout: {state['reason']}")
        pytest.skip(f"no current compiled engine in the checkout (make venv): {state['reason']}")
    return ROOT / "dama" / "_compiled"


@once
def test_a_compiled_build_runs_until_its_source_changes(tmp_path):
    """The build ``make venv`` made (``dama/_build.py``, the same the wheel's ``setup.py`` runs),
    in a copy of the package: it runs and counts as the sources do, DAMA_PURE=1 runs the sources,
    and once a compiled source changes the copy runs pure Python with a warning. (Building it
    again here would take minutes for nothing: the build is the checkout's, made from these very
    sources, which the loader checks by their hashes.)"""
    build = the_checkouts_build()
    assert (build / "manifest.json").is_file()
    assert not list((ROOT / "dama").glob("*.so"))  # nothing beside the sources
    root = _copy(tmp_path)
    shutil.copytree(build, root / "dama" / "_compiled")

    run = _run(root, PROBE)
    compiled, file, nodes = json.loads(run.stdout)
    assert compiled is True and file.startswith(str(root / "dama" / "_compiled"))
    assert nodes == PERFT_4
    assert run.stderr == ""

    pure = _run(root, PROBE, DAMA_PURE="1")
    assert json.loads(pure.stdout)[:2] == [False, str(root / "dama" / "_core.py")]

    with (root / "dama" / "solve.py").open("a") as f:
        f.write("\n# edited after the build\n")
    stale = _run(root, PROBE)
    compiled, file, nodes = json.loads(stale.stdout)
    assert compiled is False and file.endswith("/dama/_core.py") and nodes == PERFT_4
    assert stale.stderr.strip() == (
        "dama: running pure Python: the compiled engine is older than solve.py: run make venv"
    )


@pytest.mark.slow
@once
def test_without_a_c_compiler_the_build_leaves_pure_python(tmp_path):
    root = _copy(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "DAMA_PURE"}
    env["CC"] = "false"
    build = subprocess.run(
        [sys.executable, "dama/_build.py"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert build.stdout.startswith("dama: compiled engine not built, dama runs as pure Python")
    assert not (root / "dama" / "_compiled").exists()
    compiled, file, nodes = json.loads(_run(root, PROBE).stdout)
    assert compiled is False and file.endswith("/dama/_core.py") and nodes == PERFT_4
