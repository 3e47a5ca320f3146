"""Which engine runs: the compiled hot modules when they match their source, else pure Python.

The hot modules (``dama._build.MODULES``: the move generator, perft, the solver's search, the
playing search) are ordinary typed Python. ``make venv`` and ``pip install .`` also compile them
with mypyc (:mod:`dama._build`) into ``dama/_compiled/``: one small extension per module, the
group's shared library, and ``manifest.json`` with the SHA-256 of each source as compiled.

The extensions never sit beside their sources. An extension next to ``solve.py`` would be imported
instead of it, so a forgotten build would silently run old code. In ``dama/_compiled/`` Python
never finds them by itself: :func:`activate`, run first thing by ``dama/__init__``, puts a finder
(:class:`CompiledFinder`) at the front of :data:`sys.meta_path` that serves them, and only when

* ``DAMA_PURE`` is unset, empty or ``0`` (``DAMA_PURE=1`` forces pure Python);
* the manifest was built for this Python (its extension suffix is one this interpreter loads);
* every compiled module's source still has the hash it was compiled from (an edited source after
  ``git pull`` or in an editor means pure Python, with one line on stderr, until ``make venv``);
* the shared library loads.

Otherwise no finder is installed and every module is imported from its source. It is all or none:
compiled modules call each other's native classes directly, so a mix cannot work.
``dama.COMPILED`` and ``dama.build_info()`` say which engine is in use
(``python -m dama --version``, ``/healthz``).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
COMPILED_DIR = HERE / "_compiled"


class CompiledFinder(importlib.abc.MetaPathFinder):
    """Finds the compiled extension of each module named in the manifest (and nothing else)."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        file = self.files.get(fullname)
        if file is None:
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(file))
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


#: what :func:`activate` found, for :func:`build_info`
_STATE: dict[str, Any] = {"compiled": False, "reason": "not activated"}


def source_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check(here: Path = HERE, compiled_dir: Path = COMPILED_DIR) -> tuple[dict[str, Any], str]:
    """What :func:`activate` would do, without doing it: ``(state, warning)``. ``state`` has
    ``compiled`` (True: usable, the finder may be installed), ``reason`` (why not) and, when
    usable, ``files`` (module name -> extension file); ``warning`` is the line to print, if any."""
    if os.environ.get("DAMA_PURE", "").strip() not in ("", "0"):
        return {"compiled": False, "reason": "DAMA_PURE is set"}, ""
    manifest_file = compiled_dir / "manifest.json"
    if not manifest_file.is_file():
        return {"compiled": False, "reason": "not built"}, ""
    try:
        manifest = json.loads(manifest_file.read_text())
        suffix = manifest["suffix"]
        modules: dict[str, dict[str, str]] = manifest["modules"]
        libs: dict[str, str] = manifest["libs"]
        files = {name: compiled_dir / info["file"] for name, info in modules.items()}
        files.update({name: compiled_dir / file for name, file in libs.items()})
    except (OSError, ValueError, KeyError, TypeError) as exc:
        why = f"unreadable {manifest_file}: {exc!r}"
        return {"compiled": False, "reason": why}, why
    if suffix not in importlib.machinery.EXTENSION_SUFFIXES:
        why = f"compiled for another Python ({suffix}): run make venv"
        return {"compiled": False, "reason": why}, why
    stale = [
        info["source"]
        for info in modules.values()
        if not (here / info["source"]).is_file()
        or source_hash(here / info["source"]) != info["sha256"]
    ]
    if stale:
        why = f"the compiled engine is older than {', '.join(stale)}: run make venv"
        return {"compiled": False, "reason": why}, why
    state = {
        "compiled": True,
        "reason": "",
        "modules": sorted(modules),
        "libs": sorted(libs),
        "mypy": manifest.get("mypy", ""),
        "built": manifest.get("built", ""),
        "files": files,
    }
    return state, ""


def activate() -> bool:
    """Install the finder when the compiled build is usable; True when it is (see the module)."""
    state, warning = check()
    files: dict[str, Path] = state.pop("files", {})
    if state["compiled"] and any(name in sys.modules for name in files):
        state = {"compiled": False, "reason": "pure modules were imported before dama"}
    if state["compiled"]:
        finder = CompiledFinder(files)
        sys.meta_path.insert(0, finder)
        try:
            for name in state["libs"]:
                importlib.import_module(name)
        except ImportError as exc:
            sys.meta_path.remove(finder)
            for name in state["libs"]:
                sys.modules.pop(name, None)
            warning = f"the compiled engine does not load ({exc}): run make venv"
            state = {"compiled": False, "reason": warning}
    if warning:
        sys.stderr.write(f"dama: running pure Python: {warning}\n")
    _STATE.clear()
    _STATE.update(state)
    return bool(state["compiled"])


def build_info() -> dict[str, Any]:
    """Which engine runs: ``{"compiled": bool, "reason": why not, "modules": [...], ...}``."""
    return dict(_STATE)


def describe() -> str:
    """A few words: ``compiled with mypyc 2.4.1`` or ``pure Python (why)``."""
    if _STATE.get("compiled"):
        return f"compiled with mypyc {_STATE.get('mypy', '?')}"
    return f"pure Python ({_STATE.get('reason', '')})"


#: True when the compiled engine is in use (decided once, when dama is first imported)
COMPILED = activate()
