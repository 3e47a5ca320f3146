"""Garbage collection between requests, for the site's gunicorn workers (``gunicorn.conf.py``).

Python's cyclic collector runs whenever enough objects were allocated, so its pauses land on
whichever request is running. In a worker they grow with the caches a process keeps (proof trees,
boards, the pool of puzzles): with 1,000 puzzles' proofs in memory a full collection took 20-30 ms
(measured with ``gc.callbacks``), longer than a whole move check. :func:`install` freezes what the
application allocated at start (never collected again: modules, URLconf, templates), turns the
automatic collector off and runs the same collections, by the same thresholds, when a request has
finished (Django's ``request_finished``: in a sync worker the response is sent by then). Nothing
is left uncollected: the collector only changes its moment.
"""

from __future__ import annotations

import gc

_installed = False
#: objects in the oldest generation after the last full collection (CPython's long_lived_total)
_long_lived = 0


def collect_if_due(**_signal: object) -> int | None:
    """Run the collection the automatic collector would have run by now, if any: the youngest
    generation past its threshold's elder, the oldest only when the objects that reached it since
    the last full collection are a quarter of those that were there (CPython's rule). The
    generation collected, or None."""
    global _long_lived
    count0, count1, count2 = gc.get_count()
    threshold0, threshold1, threshold2 = gc.get_threshold()
    if count0 < threshold0:
        return None
    generation = 1 if count1 >= threshold1 else 0
    if count2 >= threshold2 and len(gc.get_objects(2)) - _long_lived > _long_lived // 4:
        generation = 2
    gc.collect(generation)
    if generation == 2:
        _long_lived = len(gc.get_objects(2))
    return generation


def install() -> None:
    """Freeze the objects of the started application and collect between requests from now on
    (once per process)."""
    global _installed
    if _installed:
        return
    from django.core.signals import request_finished

    gc.collect()
    gc.freeze()
    gc.disable()
    request_finished.connect(collect_if_due, dispatch_uid="core.gcpolicy")
    _installed = True
