"""Compile the engine's hot modules with mypyc: ``python dama/_build.py [--out DIR]``.

``make venv`` runs it on the source tree (output ``dama/_compiled/``, rebuilt when a compiled
source changes); ``pip install .`` runs it from ``setup.py`` into the wheel. Where there is no C
compiler (or no mypy) it prints one line and leaves no compiled engine: dama then runs as pure
Python, the same code. How the output is found at import time, and why it never sits beside its
sources, is in :mod:`dama._loader`.

This file is standalone (only the standard library, setuptools and mypyc, imported when building)
so that ``setup.py`` can load it without importing :mod:`dama`.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib
import importlib.machinery
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

#: the modules compiled, as paths under the project root (the hot path: move generation, perft,
#: the solver's search, the playing search, and the previous playing search that the benchmark
#: measures it against); the rest of dama stays pure Python
MODULES = (
    "dama/_core.py",
    "dama/perft.py",
    "dama/solve.py",
    "dama/search.py",
    "dama/evaluate.py",
    "dama/search_v1.py",
    "dama/evaluate_v1.py",
    "dama/egtb.py",
)
#: the shared library holding all compiled modules: ``dama._engine__mypyc``
GROUP = "dama._engine"
ROOT = Path(__file__).resolve().parent.parent


def _hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _module_name(rel: str) -> str:
    return rel[: -len(".py")].replace("/", ".")


@contextlib.contextmanager
def _in_dir(path: Path, env: dict[str, str]) -> Iterator[None]:
    old_cwd, old_env = os.getcwd(), {k: os.environ.get(k) for k in env}
    os.chdir(path)
    os.environ.update(env)
    try:
        yield
    finally:
        os.chdir(old_cwd)
        for k, v in old_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def compile_engine(out: Path, root: Path = ROOT, modules: Sequence[str] = MODULES) -> str:
    """Compile ``modules`` (paths under ``root``) into ``out`` with a manifest; return "" on
    success or the reason it could not (``out`` is then removed: dama runs as pure Python)."""
    hashes = {rel: _hash(root / rel) for rel in modules}
    work = Path(tempfile.mkdtemp(prefix="dama-mypyc-"))
    try:
        try:
            import mypy.version
            from mypyc.build import mypycify

            # setuptools may come without type hints: used as Any
            Distribution: Any = importlib.import_module("setuptools").Distribution
        except ImportError as exc:
            raise _BuildFailed(f"mypy/mypyc is not installed ({exc})") from exc
        # mypyc reads the sources relative to the root; its cache stays out of the tree
        with _in_dir(root, {"MYPY_CACHE_DIR": str(work / "mypy-cache")}):
            try:
                with contextlib.redirect_stdout(sys.stderr):  # mypyc's notes
                    exts = mypycify(
                        list(modules), target_dir=str(work / "c"), group_name=GROUP, opt_level="3"
                    )
            except BaseException as exc:  # mypyc exits with SystemExit on a type error
                raise _BuildFailed(f"mypyc failed: {exc!r}") from exc
            dist = Distribution({"name": "dama-engine", "ext_modules": exts})
            cmd = dist.get_command_obj("build_ext")
            cmd.build_lib = str(work / "lib")
            cmd.build_temp = str(work / "tmp")
            cmd.parallel = os.cpu_count() or 1
            try:
                with contextlib.redirect_stdout(sys.stderr):
                    cmd.ensure_finalized()
                    cmd.run()
            except BaseException as exc:  # CompileError, DistutilsExecError, SystemExit
                raise _BuildFailed(f"no C compiler could build it ({exc!r})") from exc
            built = {e.name: Path(cmd.get_ext_fullpath(e.name)) for e in exts}
        if {rel: _hash(root / rel) for rel in modules} != hashes:
            raise _BuildFailed("a source changed while it was compiled: run it again")
        stage = out.with_name(out.name + ".new")
        shutil.rmtree(stage, ignore_errors=True)
        stage.mkdir(parents=True)
        names = {_module_name(rel): rel for rel in modules}
        manifest: dict[str, object] = {
            "suffix": importlib.machinery.EXTENSION_SUFFIXES[0],
            "python": sys.version.split()[0],
            "mypy": mypy.version.__version__,
            "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "modules": {},
            "libs": {},
        }
        for name, path in built.items():
            shutil.copy2(path, stage / path.name)
            if name in names:
                rel = names[name]
                manifest["modules"][name] = {  # type: ignore[index]
                    "file": path.name,
                    "source": str(Path(rel).relative_to("dama")),
                    "sha256": hashes[rel],
                }
            else:
                manifest["libs"][name] = path.name  # type: ignore[index]
        (stage / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        shutil.rmtree(out, ignore_errors=True)
        stage.rename(out)
        return ""
    except _BuildFailed as exc:
        shutil.rmtree(out, ignore_errors=True)
        return str(exc)
    finally:
        shutil.rmtree(work, ignore_errors=True)


class _BuildFailed(Exception):
    pass


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dama._build", description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, default=ROOT / "dama" / "_compiled")
    p.add_argument("--root", type=Path, default=ROOT)
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    why = compile_engine(args.out, args.root)
    dt = time.perf_counter() - t0
    if why:
        print(f"dama: compiled engine not built, dama runs as pure Python: {why}")
    else:
        print(f"dama: compiled {', '.join(MODULES)} with mypyc in {dt:.0f} s into {args.out}")
    return 0


if __name__ == "__main__":
    # run as a script (``python dama/_build.py``: dama itself is not imported), its folder must
    # not shadow modules of the standard library or of mypyc
    if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
        del sys.path[0]
    sys.exit(main())
