"""Run the docstring examples of every module of the engine (``dama``) as doctests."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import dama

MODULES = sorted(["dama", *(m.name for m in pkgutil.walk_packages(dama.__path__, prefix="dama."))])


def test_every_module_is_listed() -> None:
    """The package has the modules the engine is built from (so the list below is not empty)."""
    for name in ("dama.board", "dama.fen", "dama.notation", "dama.outcome", "dama.variants"):
        assert name in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    """Every example in the module's docstrings gives the output written there."""
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctest examples failed"
