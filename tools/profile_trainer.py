"""Per-request CPU of the trainer's hot requests, in-process (Django's test client), and where it
goes (pyinstrument or cProfile): the stream, the puzzle page and the move check.

Students log in and, as in the load test, open puzzles from the stream (the three variants in
turn) and play the proof's solution against the site's defence. Each request's CPU time
(``time.process_time``) is recorded; the first few are left out (warm-up). Production settings
(``DEBUG=0``), the database of ``DATABASE_URL`` (and Redis from ``REDIS_URL``, as in production).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/trainer_bench python tools/profile_trainer.py setup
    DATABASE_URL=... python tools/profile_trainer.py run --users 4 --puzzles 40
    DATABASE_URL=... python tools/profile_trainer.py run --profile pyinstrument --kinds move

``floor`` is what any request on an attempt pays with Django's own machinery and nothing of the
trainer: after each move, the same client posts to a view of this script's own (``floor``) that
reads the user (Django's session and auth, as ``request.user``), reads the attempt as the
trainer does (``Attempt.objects.of(player).get``), writes back the fields a move writes with the
trainer's versioned write (``Attempt._write``), and renders a one-line template with the CSRF
token, through the site's middleware and context processors. Set beside ``move``, it tells how
much of a move check is Django's floor and how much is the trainer's own work.

``run move`` (``--runs N``): after the puzzles, each student plays N puzzle storms (``runs``, the
three variants in turn), up to 30 puzzles each, answering each with the proof's solution (the
puzzle found by the board's position); each answer to a run's puzzle is timed, the next puzzle
coming in the answer.

``setup`` migrates, collects the static files and loads the corpus (fixtures/puzzles) into that
database: use a database of its own, never one with data you keep.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import runpy
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dama_learn.settings")
os.environ.setdefault("DEBUG", "0")
os.environ.setdefault("DJANGO_SECRET_KEY", "profile-only-secret-key-" + "x7Yq2" * 10)
os.environ.setdefault("ALLOWED_HOSTS", "testserver")
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
os.environ.setdefault("LOG_LEVEL", "ERROR")
os.environ.setdefault("DB_CONN_MAX_AGE", "60")
os.environ.setdefault("STATIC_ROOT", str(ROOT / "var" / "profile-static"))

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

KINDS = ("stream", "page", "move", "floor", "run move")
RUN_AT = re.compile(r'name="at" value="(\d+)"')
RUN_FEN = re.compile(r'data-board[^>]*?data-fen="([^"]+)"', re.S)
ATTEMPT = re.compile(r"/puzzles/attempt/(\d+)/move")
WARM_UP = 5


def setup() -> None:
    from io import StringIO

    call_command("migrate", "--noinput", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)
    call_command("load_puzzles", str(ROOT / "fixtures" / "puzzles"), stdout=StringIO())
    if os.environ.get("DATABASE_URL", "").startswith("postgres"):
        # the planner's statistics, as autovacuum would make them (run_load.py's ``_analyze``)
        subprocess.run(
            ["vacuumdb", "--analyze-only", "--quiet", f"--dbname={os.environ['DATABASE_URL']}"],
            check=True,
        )


class Profiler:
    """pyinstrument, cProfile or nothing, switched on around the requests of ``kinds``."""

    def __init__(self, kind: str, kinds: set[str]) -> None:
        self.kind, self.kinds, self.tool = kind, kinds, None
        if kind == "pyinstrument":
            from pyinstrument import Profiler as Pyinstrument

            self.tool = Pyinstrument(interval=0.0002)
        elif kind == "cprofile":
            import cProfile

            self.tool = cProfile.Profile()

    def on(self, kind: str) -> None:
        if self.tool is not None and kind in self.kinds:
            (self.tool.start if self.kind == "pyinstrument" else self.tool.enable)()

    def off(self, kind: str) -> None:
        if self.tool is not None and kind in self.kinds:
            (self.tool.stop if self.kind == "pyinstrument" else self.tool.disable)()

    def report(self) -> str:
        if self.kind == "pyinstrument":
            return self.tool.output_text(unicode=False, color=False)
        if self.kind == "cprofile":
            import io
            import pstats

            out = io.StringIO()
            pstats.Stats(self.tool, stream=out).sort_stats(
                os.environ.get("PROFILE_SORT", "cumulative")
            ).print_stats(int(os.environ.get("PROFILE_LINES", "50")))
            return out.getvalue()
        return ""


def floor(request, pk: int):
    """The floor of a move check (module docstring): the user, the attempt, its versioned write
    and a template with the CSRF token."""
    from django.http import Http404, HttpResponse

    from puzzles.models import Attempt
    from puzzles.player import Player

    try:
        attempt = Attempt.objects.of(Player.of(request)).get(pk=pk)
    except Attempt.DoesNotExist:
        raise Http404 from None
    attempt._write(["moves", "line", "position"])  # the trainer's own versioned write
    return HttpResponse(floor_template().render({"attempt": attempt}, request))


@functools.cache
def floor_template():
    """The floor's answer: the attempt's number and the form's CSRF token, as the trainer's
    region has."""
    from django.template import engines

    return engines["django"].from_string('<p data-attempt="{{ attempt.pk }}">{% csrf_token %}</p>')


#: this script's URLconf (``ROOT_URLCONF`` while it runs): the site's, with :func:`floor` beside it
urlpatterns: list = []


def run(users: int, puzzles: int, profiler: Profiler, runs: int = 0) -> dict[str, dict[str, float]]:
    from django.test import override_settings
    from django.urls import include, path

    from puzzles.models import Puzzle

    urlpatterns[:] = [path("profile-floor/<int:pk>", floor), path("", include("dama_learn.urls"))]
    override_settings(ROOT_URLCONF=__name__).enable()  # before the first request builds it

    rows = list(Puzzle.objects.filter(author__isnull=True, proof__isnull=False))
    moves_of = {p.pk: list((p.proof or {}).get("solution", []))[::2] for p in rows}
    by_fen = {p.fen: moves_of[p.pk] for p in rows}
    times: dict[str, list[float]] = {k: [] for k in KINDS}
    runpy.run_path(str(ROOT / "gunicorn.conf.py"))["post_worker_init"](worker=None)

    def timed(kind, request, *args, **kwargs):
        profiler.on(kind)
        start = time.process_time()
        response = request(*args, **kwargs)
        times[kind].append((time.process_time() - start) * 1000)
        profiler.off(kind)
        return response

    stamp = int(time.time())
    for n in range(users):
        user, _created = get_user_model().objects.get_or_create(username=f"profile-{stamp}-{n}")
        client = Client()
        client.force_login(user)
        for i in range(puzzles):
            variant = ("czech", "international", "brazilian")[i % 3]
            response = timed("stream", client.get, f"/puzzles/{variant}/")
            location = response.headers.get("Location", "")
            found = re.search(r"/puzzles/\w+/(\d+)/", location)
            if not found:
                continue
            html = timed("page", client.get, location).content.decode()
            attempt = ATTEMPT.search(html)
            if not attempt or 'data-state="playing"' not in html:
                continue
            url = f"/puzzles/attempt/{attempt.group(1)}/move"
            for move in moves_of.get(int(found.group(1)), []):
                response = timed(
                    "move",
                    client.post,
                    url,
                    urlencode({"move": move}),
                    content_type="application/x-www-form-urlencoded",
                    HTTP_HX_REQUEST="true",
                )
                floored = timed("floor", client.post, f"/profile-floor/{attempt.group(1)}")
                assert floored.status_code == 200, floored
                if response.status_code != 200 or 'data-state="playing"' not in (
                    response.content.decode()
                ):
                    break
        for i in range(runs):
            variant = ("czech", "international", "brazilian")[i % 3]
            location = client.post(f"/runs/{variant}/storm/start").headers.get("Location", "")
            if not location:
                continue
            html = client.get(location).content.decode()
            for _puzzle in range(30):
                at, fen = RUN_AT.search(html), RUN_FEN.search(html)
                moves = by_fen.get(fen.group(1)) if fen else None
                if at is None or not moves or 'data-state="playing"' not in html:
                    break
                for move in moves:
                    response = timed(
                        "run move",
                        client.post,
                        location + "move",
                        urlencode({"at": at.group(1), "move": move}),
                        content_type="application/x-www-form-urlencoded",
                        HTTP_HX_REQUEST="true",
                    )
                    html = response.content.decode()
                    if response.status_code != 200 or 'data-testid="solved"' in html:
                        break
            client.post(location + "finish", {"at": "0"})
    out = {}
    for kind, values in times.items():
        values = sorted(values[WARM_UP:])
        if values:
            out[kind] = {
                "requests": len(values),
                "p50": round(statistics.median(values), 2),
                "mean": round(statistics.mean(values), 2),
                "p90": round(values[int(len(values) * 0.9)], 2),
                "p99": round(values[min(len(values) - 1, int(len(values) * 0.99))], 2),
            }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("setup", "run"))
    parser.add_argument("--users", type=int, default=4)
    parser.add_argument("--puzzles", type=int, default=40, help="stream requests per user")
    parser.add_argument("--runs", type=int, default=0, help="puzzle storms per user")
    parser.add_argument("--profile", choices=("", "pyinstrument", "cprofile"), default="")
    parser.add_argument("--kinds", default=",".join(KINDS), help="requests to profile")
    args = parser.parse_args()
    if args.command == "setup":
        setup()
        return
    profiler = Profiler(args.profile, set(args.kinds.split(",")))
    print(json.dumps(run(args.users, args.puzzles, profiler, args.runs)))
    print(profiler.report())


if __name__ == "__main__":
    main()
