"""Build hook: ``pip install .`` also compiles the engine's hot modules with mypyc.

Everything else about the package is in pyproject.toml. After the ordinary ``build_py``, the
compiler of :mod:`dama._build` (loaded from its file: dama itself is not imported) writes the
compiled modules and their manifest into the build's ``dama/_compiled/``; where there is no C
compiler it says so in one line and the package is pure Python (:mod:`dama._loader`). An editable
install (``pip install -e``, what ``make venv`` does) compiles nothing here: ``make venv`` then
runs ``python -m dama._build`` on the source tree itself.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def _compile(out: Path) -> str:
    spec = importlib.util.spec_from_file_location("dama_build", ROOT / "dama" / "_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["dama_build"] = module
    spec.loader.exec_module(module)
    return str(module.compile_engine(out, ROOT))


class BuildPyAndEngine(build_py):
    """``build_py``, then the compiled engine into the build (not for editable installs)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        why = _compile(Path(self.build_lib) / "dama" / "_compiled")
        if why:
            print(f"dama: compiled engine not built, dama runs as pure Python: {why}")


class EngineDistribution(Distribution):
    """A wheel that may hold compiled modules is tagged for this Python and platform."""

    def has_ext_modules(self) -> bool:
        return True


setup(cmdclass={"build_py": BuildPyAndEngine}, distclass=EngineDistribution)
