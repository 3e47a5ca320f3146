"""The web's requests marked for the play worker's searches to give way (``core.webbusy``)."""

from __future__ import annotations

import doctest
import multiprocessing
import runpy
import threading
import time
from pathlib import Path

import pytest

from core import webbusy
from core.webbusy import WebBusy

ROOT = Path(__file__).resolve().parents[2]


def test_the_module_examples_run():
    result = doctest.testmod(webbusy)
    assert result.attempted > 0 and result.failed == 0


def test_a_request_marked_in_one_process_is_seen_in_another(tmp_path):
    path = str(tmp_path / "busy")
    search = WebBusy(path)
    assert not search.busy()
    ctx = multiprocessing.get_context("fork")
    started, finish = ctx.Event(), ctx.Event()

    def serve() -> None:
        web = WebBusy(path)
        web.start()
        started.set()
        finish.wait(10)
        web.end()

    proc = ctx.Process(target=serve)
    proc.start()
    try:
        assert started.wait(10)
        assert search.busy()
        finish.set()
        proc.join(10)
        assert not search.busy()
    finally:
        finish.set()
        proc.join(10)


def test_the_search_waits_until_the_request_is_over(tmp_path):
    web, busy = WebBusy(str(tmp_path / "busy")), WebBusy(str(tmp_path / "busy"))
    busy._slot = (web._slot + 1) % webbusy.SLOTS  # two slots of one file, as two processes
    assert busy.wait() == 0.0  # nothing runs: no wait at all
    web.start()
    threading.Timer(0.15, web.end).start()
    t0 = time.monotonic()
    waited = busy.wait()
    assert 0.1 < waited < webbusy.MOST_SECONDS and time.monotonic() - t0 >= 0.1
    web.start()  # a request longer than a wait: the search looks again later
    try:
        assert webbusy.MOST_SECONDS <= busy.wait() < webbusy.MOST_SECONDS + 0.2
    finally:
        web.end()


def test_a_stale_mark_is_not_waited_for(tmp_path, monkeypatch):
    web, search = WebBusy(str(tmp_path / "busy")), WebBusy(str(tmp_path / "busy"))
    web.start()
    assert search.busy()
    later = time.monotonic() + webbusy.STALE_SECONDS + 1
    monkeypatch.setattr(webbusy.time, "monotonic", lambda: later)
    assert not search.busy() and search.wait() == 0.0


@pytest.mark.parametrize("slot", [0, 1, webbusy.SLOTS // 2, webbusy.SLOTS - 1])
def test_a_mark_in_any_slot_is_seen_and_a_cleared_file_is_not_busy(tmp_path, slot):
    path = str(tmp_path / "busy")
    web, search = WebBusy(path), WebBusy(path)
    web._slot = slot  # the process ids of the web's workers fall anywhere in the file
    assert not search.busy()
    web.start()
    assert search.busy()
    web.end()
    assert not search.busy() and search.wait() == 0.0


def test_the_setting_names_the_file_and_without_it_nothing_is_marked(tmp_path, monkeypatch):
    monkeypatch.delenv("DAMA_WEB_BUSY_FILE", raising=False)
    assert webbusy.opened() is None and webbusy.opened("") is None
    monkeypatch.setenv("DAMA_WEB_BUSY_FILE", str(tmp_path / "busy"))
    first = webbusy.opened()
    assert first is not None and webbusy.opened() is first
    assert webbusy.opened(str(tmp_path / "busy")) is first
    assert webbusy.opened(str(tmp_path / "no-such-folder" / "busy")) is None  # logged, no error


def test_gunicorns_hooks_mark_each_request(tmp_path, monkeypatch):
    """gunicorn.conf.py marks a request from ``pre_request`` to ``post_request`` (called even
    when the request failed); without the setting the hooks do nothing."""
    hooks = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    monkeypatch.delenv("DAMA_WEB_BUSY_FILE", raising=False)
    hooks["pre_request"](None, None)  # no file: nothing to mark, no error
    monkeypatch.setenv("DAMA_WEB_BUSY_FILE", str(tmp_path / "busy"))
    search = WebBusy(str(tmp_path / "busy"))
    hooks["pre_request"](None, None)
    assert search.busy()
    hooks["post_request"](None, None, {}, None)
    assert not search.busy()


@pytest.mark.parametrize("instant", [True, False])
def test_the_play_workers_search_waits_for_the_web_and_plays_the_same_move(
    tmp_path, settings, instant
):
    """A worker level's search waits while a request runs (the move is the one it plays
    unhindered); a level played in the request itself never waits for requests."""
    import dama
    from play import engine

    level = 2 if instant else 4
    assert engine.is_instant(level) is instant
    board = dama.Board("czech")
    unhindered = engine.search(board, level, seed=3)
    settings.DAMA_WEB_BUSY_FILE = str(tmp_path / "busy")
    web = WebBusy(settings.DAMA_WEB_BUSY_FILE)
    web._slot = (web._slot + 1) % webbusy.SLOTS  # another process's request
    web.start()
    threading.Timer(0.3, web.end).start()
    t0 = time.monotonic()
    found = engine.search(board, level, seed=3)
    spent = time.monotonic() - t0
    assert found.notation == unhindered.notation
    if instant:
        assert spent < 0.25
    else:
        assert spent >= 0.28
