"""gunicorn's settings for dama_learn (``gunicorn dama_learn.wsgi -c gunicorn.conf.py``).

A request here is mostly Python work (judging a move, drawing a board, rendering a page), with
short database round trips in between. Sync workers, one per core, keep each request on a core of
its own: with more workers than cores they share the cores and every request takes longer
(docs/benchmarks/load.md: on 2 cores, 50 users, the move check's server time p50/p95/p99 went from
21.5/50.1/77.7 ms with 4 workers to 12.3/23.5/30.3 ms with 2, and requests per second rose).
``GUNICORN_WORKERS`` overrides the count (more when the database is on a slow network).

gunicorn serves HTTP only. The live lessons' WebSockets (``/ws/``) need an ASGI server beside it,
``uvicorn dama_learn.asgi:application``, with the proxy sending ``/ws/`` there and the Redis
channel layer shared by both (docs/production.md); a live lesson's page without its socket
follows by polling.
"""

import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS") or os.cpu_count() or 2)
worker_class = "sync"
timeout = int(os.environ.get("GUNICORN_TIMEOUT") or 60)
accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or None


def post_worker_init(worker):
    """The application is loaded: load what its first requests would load too (the URLconf, with
    every view module and library it imports), then move all of it out of the collector's sight
    with ``gc.freeze()``, so that a full collection walks only what requests made. Left to the
    first request, the URLconf's modules (the views, reportlab, PIL, the Redis client) stayed in
    the collector's oldest generation: 37,000 objects and 196,000 references that every full
    collection walked, 20-60 ms on a 2-core machine, inside some request. The judges of the
    proofs a worker keeps and the pool's rows are tuples of strings and numbers, which the
    collector stops tracking (``puzzles/trainer.py``, ``puzzles/stream.py``). Python's own
    collector runs as usual.

    The servable puzzles of the site's pool are read here too, in one query, and kept as the
    puzzle pages would keep them one by one (``puzzles.stream.keep_served_pool``): no page of the
    pool waits for its row, and the rows are frozen with the rest. A database that is down now
    leaves them to the pages."""
    import contextlib
    import gc
    import logging

    from django.core.cache import caches
    from django.urls import reverse

    reverse("home")  # imports the whole URLconf
    for cache in caches.all():
        # its client library (redis) and connection pool, as the first request makes them; a
        # cache that is down now is the requests' concern, not the start's
        with contextlib.suppress(Exception):
            cache.get("gunicorn-worker-start")
    from puzzles.stream import keep_served_pool

    try:
        keep_served_pool()
    except Exception as exc:  # the database is down or not migrated: the pages read the rows
        logging.getLogger("gunicorn.error").warning("the puzzle pool was not kept: %s", exc)
    gc.collect()
    gc.freeze()
