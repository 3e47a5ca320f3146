"""core.gcpolicy: in a gunicorn worker, garbage is collected between requests, never lost."""

from __future__ import annotations

import gc
import weakref

import pytest
from django.core.signals import request_finished

from core import gcpolicy


class Node:
    """An object that can be part of a reference cycle (freed only by the cyclic collector)."""

    def __init__(self) -> None:
        self.other: Node | None = None


def a_cycle() -> weakref.ref:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


@pytest.fixture
def collector_off():
    """The collector as a worker has it after ``install`` (restored after the test)."""
    was_enabled, thresholds = gc.isenabled(), gc.get_threshold()
    gc.collect()
    gc.disable()
    yield
    gc.set_threshold(*thresholds)
    if was_enabled:
        gc.enable()


def test_nothing_is_collected_before_the_threshold(collector_off):
    gc.set_threshold(10_000, 10, 10)
    gc.collect()
    cycle = a_cycle()
    assert gcpolicy.collect_if_due() is None
    assert cycle() is not None  # not collected yet: the allocations are below the threshold


def test_a_finished_request_collects_the_cycles_left_by_it(collector_off):
    gc.set_threshold(50, 10, 10)
    cycle = a_cycle()
    # what a request leaves (allocated and kept: freed objects don't count towards a collection)
    kept = [Node() for _ in range(200)]
    assert cycle() is not None  # the automatic collector is off: nothing happened meanwhile
    assert gcpolicy.collect_if_due() is not None  # what request_finished runs
    assert cycle() is None
    assert len(kept) == 200


def test_the_oldest_generation_waits_for_a_quarter_more_survivors(collector_off, monkeypatch):
    gc.set_threshold(1, 1, 1)
    gc.collect()
    monkeypatch.setattr(gcpolicy, "_long_lived", len(gc.get_objects(2)) + 10_000)
    seen = set()
    litter = []
    for _ in range(40):
        litter.append([Node() for _ in range(5)])
        seen.add(gcpolicy.collect_if_due())
    assert seen - {None} <= {0, 1} and 1 in seen  # few survivors: never a full collection
    monkeypatch.setattr(gcpolicy, "_long_lived", 0)
    keep = [Node() for _ in range(1000)]  # these survive into the oldest generation
    for _ in range(40):
        litter.append([Node() for _ in range(5)])
        seen.add(gcpolicy.collect_if_due())
    assert 2 in seen
    assert gcpolicy._long_lived >= len(keep)  # measured again after the full collection


def test_install_freezes_the_started_application_and_hands_collection_to_request_finished():
    was_enabled = gc.isenabled()
    installed = gcpolicy._installed

    def ours():
        return [r for r in request_finished.receivers if r[0][0] == "core.gcpolicy"]

    try:
        gcpolicy._installed = False
        gcpolicy.install()
        assert not gc.isenabled() and gc.get_freeze_count() > 0
        assert len(ours()) == 1
        gcpolicy.install()  # once per process
        assert len(ours()) == 1
    finally:
        request_finished.disconnect(dispatch_uid="core.gcpolicy")
        gc.unfreeze()
        gcpolicy._installed = installed
        if was_enabled:
            gc.enable()
