"""The traffic of a draughts class, for locust (run by tests/load/run_load.py).

Students (most users) log in and, with pauses of 1-3 s, open puzzles from the stream and solve
them move by move (some wrong moves, some hints, an illegal move now and then), follow the Czech
lesson steps in order answering each, open the daily puzzle, their dashboard and the home board.
A few visitors do the same without an account; the teacher watches the class's progress table.
``PageReader`` (LOAD_MIX=pages) only opens puzzle pages, without pauses, to measure how many
pages the server's cores answer a second. ``Player`` (LOAD_MIX=play, LOAD_PLAYERS of them) plays
the computer at level 8: a move, then the page's poll until the computer's reply is there.

Every request records the client's latency and the server's own time (the ``Server-Timing``
header of core.timing); an unexpected status is an error. The numbers go to LOAD_RESULTS (JSON).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import time
from collections import defaultdict

from locust import FastHttpUser, between, constant, events, task

PLAN = json.loads(open(os.environ["LOAD_PLAN"]).read())  # noqa: SIM115
PUZZLES = {p["id"]: p for p in PLAN["puzzles"]}
RESULTS = os.environ.get("LOAD_RESULTS", "load-results.json")
HX = {"HX-Request": "true"}
_accounts = itertools.cycle(PLAN["students"])
_timings: dict[str, dict[str, list[float]]] = defaultdict(
    lambda: {"client": [], "server": [], "at": []}
)
_errors: dict[str, list[str]] = defaultdict(list)
_SERVER = re.compile(r"app;dur=([0-9.]+)")
_TOKEN = re.compile(r'"X-CSRFToken": "([^"]+)"')
_ATTEMPT = re.compile(r'data-attempt="(\d+)"')


def plain_http(jar) -> None:
    """Send the production settings' Secure cookies (session, CSRF) back over loopback HTTP, as
    the TLS proxy in front of gunicorn would: drop their Secure flag in the client's jar."""
    for cookie in jar:
        cookie.secure = False


@events.request.add_listener
def _record(
    request_type, name, response_time, response_length, response=None, exception=None, **kw
):
    row = _timings[name]
    row["client"].append(response_time)
    if response is not None and response.headers is not None:
        match = _SERVER.search(response.headers.get("Server-Timing", ""))
        if match:
            row["server"].append(float(match.group(1)))
            row["at"].append(time.time())  # when the server's time was taken, for the timeline
    if exception is not None:
        _errors[name].append(str(exception)[:200])


@events.quitting.add_listener
def _write(environment, **kw):
    with open(RESULTS, "w") as out:
        json.dump({"timings": _timings, "errors": _errors}, out)


class Browsing(FastHttpUser):
    """What every simulated user shares: cookies, the CSRF token, requests judged by status.
    FastHttpUser (geventhttpclient) takes a fraction of the CPU that the requests-based client
    does: locust runs on the same cores as the server it measures."""

    abstract = True

    token = ""

    def page(self, url: str, name: str, ok=(200,)) -> str:
        with self.client.get(url, name=name, catch_response=True, allow_redirects=False) as r:
            self._judge(r, ok)
            text = r.text or ""
        match = _TOKEN.search(text)
        if match:
            self.token = match.group(1)
        return text

    def post(self, url, name, data, ok=(200,), htmx=False, redirects=False):
        headers = {"X-CSRFToken": self.token, **(HX if htmx else {})}
        with self.client.post(
            url, data=data, name=name, headers=headers, catch_response=True,
            allow_redirects=redirects,
        ) as r:  # fmt: skip
            self._judge(r, ok)
            return r

    def _judge(self, response, ok):
        plain_http(self.client.cookiejar)
        if response.status_code in ok:
            response.success()
        else:
            response.failure(f"status {response.status_code}, expected {ok}")


class Student(Browsing):
    weight = 8
    wait_time = between(1, 3)
    log_in = True

    def on_start(self):
        self.token = ""
        self.step = 0
        self.variant_cycle = itertools.cycle(["czech", "international", "brazilian"])
        if self.log_in:
            self.page("/accounts/login/", "login page")
            self.post(
                "/accounts/login/",
                "login",
                {"username": next(_accounts), "password": PLAN["password"]},
                ok=(302,),
                redirects=False,
            )

    # -- what a student does -----------------------------------------------------------------------

    @task(6)
    def solve_a_puzzle(self):
        variant = next(self.variant_cycle)
        with self.client.get(
            f"/puzzles/{variant}/", name="stream", allow_redirects=False, catch_response=True
        ) as r:
            self._judge(r, (302,))
            location = r.headers.get("Location", "")
        match = re.search(r"/puzzles/\w+/(\d+)/", location)
        if not match:
            return
        html = self.page(location, "puzzle page")
        attempt = _ATTEMPT.search(html)
        if not attempt:
            return
        base = f"/puzzles/attempt/{attempt.group(1)}"
        if 'data-state="playing"' not in html:
            # solved before (the pool of a variant ran out): play it again
            html = self.post(f"{base}/retry", "retry", {}, htmx=True).text or ""
            attempt = _ATTEMPT.search(html)
            if not attempt:
                return
            base = f"/puzzles/attempt/{attempt.group(1)}"
        puzzle = PUZZLES[int(match.group(1))]
        roll = random.random()
        if roll < 0.05:
            # unreadable input: 400 with the reason, the attempt goes on
            self.post(f"{base}/move", "move", {"move": "22-"}, ok=(400,), htmx=True)
        elif roll < 0.15:
            self.post(f"{base}/hint", "hint", {}, htmx=True)
        elif roll < 0.2:
            # an illegal move (1-2: never along a diagonal, in every variant): refused with the
            # engine's rule (400), not a mistake and not rated; solving goes on from the same
            # position
            self.post(f"{base}/move", "move", {"move": "1-2"}, ok=(400,), htmx=True)
        elif roll < 0.25:
            self.post(f"{base}/solution", "solution", {}, htmx=True)
            return
        for move in puzzle["moves"]:
            response = self.post(f"{base}/move", "move", {"move": move}, htmx=True)
            if response.status_code != 200 or 'data-state="playing"' not in (response.text or ""):
                return  # solved (the defence may end a long puzzle early) or shown

    @task(4)
    def follow_the_lesson(self):
        steps = PLAN["steps"]
        step = steps[self.step % len(steps)]
        self.page(step["url"], "lesson step")
        self.post(step["url"] + "check", "lesson check", step["data"], htmx=True)
        self.step += 1

    @task(1)
    def lesson_map(self):
        self.page("/learn/czech/", "lesson map")

    @task(1)
    def daily(self):
        self.page(f"/daily/{next(self.variant_cycle)}/", "daily")

    @task(1)
    def dashboard(self):
        self.page(f"/puzzles/{next(self.variant_cycle)}/dashboard/", "dashboard")

    @task(1)
    def home_board(self):
        self.page("/", "home")
        self.post(
            "/board/czech/move", "home board move",
            {"fen": "W:W21-32:B1-12", "move": random.choice(["22-18", "21-17", "24-20"])},
            htmx=True,
        )  # fmt: skip


class Visitor(Student):
    """Someone without an account trying the puzzles and lessons."""

    weight = 1
    log_in = False


class Teacher(Browsing):
    """The class's teacher watching the progress table."""

    fixed_count = 1
    wait_time = between(5, 10)

    def on_start(self):
        self.token = ""
        self.page("/accounts/login/", "login page")
        self.post(
            "/accounts/login/", "login",
            {"username": PLAN["teacher"], "password": PLAN["password"]}, ok=(302,),
        )  # fmt: skip

    @task
    def progress(self):
        self.page(f"/teach/classes/{PLAN['classroom']}/progress/", "class progress")
        self.page(f"/teach/classes/{PLAN['classroom']}/", "class page")


class PageReader(Browsing):
    """Opens puzzle pages of the pool one after another without a pause (LOAD_MIX=pages): the
    throughput of the page a puzzle site serves most. Visitors, so no log-in in the figures."""

    wait_time = constant(0)

    @task
    def puzzle_page(self):
        puzzle = random.choice(PLAN["puzzles"])
        self.page(f"/puzzles/{puzzle['variant']}/{puzzle['id']}/", "puzzle page")


_GAME = re.compile(r'id="game"[^>]*data-state="(\w+)" data-version="(\d+)"')
_FEN = re.compile(r'id="game-board"[^>]*data-fen="([^"]+)"')
_VARIANT = re.compile(r'id="game-board"[^>]*data-variant="(\w+)"')
_POLL = re.compile(r'class="poll" hx-get="([^"]+)" hx-trigger="load delay:(\d+)ms"')


class Player(Browsing):
    """A student playing the computer at level 8 (LOAD_MIX=play): a random legal move after a
    pause, then the game page's polls (after the pauses they name, as the page's htmx does) until
    the computer's reply (a worker's search of about a second) is there; a new game when one
    ends."""

    fixed_count = int(os.environ.get("LOAD_PLAYERS", "0"))
    wait_time = between(1, 3)

    def on_start(self):
        self.token = ""
        self.game = None
        self.variants = itertools.cycle(["czech", "international", "brazilian"])
        self.page("/accounts/login/", "login page")
        self.post(
            "/accounts/login/", "login",
            {"username": next(_accounts), "password": PLAN["password"]}, ok=(302,),
        )  # fmt: skip

    def _new_game(self):
        variant = next(self.variants)
        self.page(f"/play/{variant}/", "play page")
        response = self.post(
            f"/play/{variant}/", "play start", {"level": "8", "color": "white"}, ok=(302,)
        )
        location = response.headers.get("Location", "")
        match = re.search(r"/play/game/(\d+)/", location)
        self.game = int(match.group(1)) if match else None
        self.html = self.page(location, "play game page") if match else ""

    def _follow(self, html: str) -> str:
        """Poll as the page does while the computer thinks (after the pause each poll names,
        growing up to 3 s); the game region once its reply is there."""
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            poll = _POLL.search(html)
            if poll is None:
                return html
            time.sleep(int(poll.group(2)) / 1000)
            with self.client.get(
                poll.group(1).replace("&amp;", "&"), name="play wait",
                headers=HX, catch_response=True, allow_redirects=False,
            ) as r:  # fmt: skip
                self._judge(r, (200,))
                html = r.text or ""
        return html

    @task
    def play_a_move(self):
        import dama

        found = _GAME.search(self.html or "") if self.game else None
        if found is None or found.group(1) == "over":
            self._new_game()
            return
        fen, variant = _FEN.search(self.html), _VARIANT.search(self.html)
        if fen is None or variant is None:
            self._new_game()
            return
        board = dama.Board(variant.group(1), fen.group(1).replace("&#x27;", "'"))
        moves = board.legal_moves
        if not moves:
            self._new_game()
            return
        route = ",".join(map(str, random.choice(moves).routes[0]))
        response = self.post(
            f"/play/game/{self.game}/move", "play move", {"route": route}, htmx=True
        )
        self.html = self._follow(response.text or "")
