"""The traffic of a draughts class, for locust (run by tests/load/run_load.py).

Students (most users) log in and, with pauses of 1-3 s, open puzzles from the stream and solve
them move by move (some wrong moves, some hints, an illegal move now and then), follow the Czech
lesson steps in order answering each, open the daily puzzle, their dashboard and the home board.
A few visitors do the same without an account; the teacher watches the class's progress table.
``PageReader`` (LOAD_MIX=pages) only opens puzzle pages, without pauses, to measure how many
pages the server's cores answer a second. ``Player`` (LOAD_MIX=play, LOAD_PLAYERS of them) plays
the computer at level 8: a move, then the page's poll until the computer's reply is there.
``Rival`` and ``Hog`` (LOAD_MIX=fairplay) are two players of the computer, each from an address
of its own: a student at level 5 whose reply times are the figure ("level-5 reply"), and a
visitor holding LOAD_HOG_GAMES (12) games at level 8 with the computer to move in each.
``Runner`` (LOAD_MIX=runs, LOAD_RUNNERS of them, 20) plays puzzle storms: starts one in a variant
and answers each puzzle with its solution as fast as the page comes back (a short pause between
puzzles, an illegal move now and then), on to a new storm when one ends ("run move": the figure
of docs/benchmarks/runs.md).
``Arrival`` (LOAD_MIX=lessonstart, LOAD_ARRIVALS of them, 30) is a class starting a lesson: the
students arrive evenly within LOAD_ARRIVAL_SECONDS (10) from LOAD_ARRIVAL_AFTER (45) seconds
after the start of the run, each logging in with an account of its own and opening the lesson
map, while the others (the students, visitors and teacher above, already logged in) go on.

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
#: LOAD_MIX=lessonstart: the last LOAD_ARRIVALS accounts of the plan are the arriving class's
ARRIVALS = int(os.environ.get("LOAD_ARRIVALS") or 0)
ARRIVAL_AFTER = float(os.environ.get("LOAD_ARRIVAL_AFTER") or 45)
ARRIVAL_SECONDS = float(os.environ.get("LOAD_ARRIVAL_SECONDS") or 10)
_others = len(PLAN["students"]) - ARRIVALS
_accounts = itertools.cycle(PLAN["students"][:_others])
_arrivals = iter(enumerate(PLAN["students"][_others:]))
#: when the run started (locust's test_start), for the arrivals' moments
_run_start = time.time()
#: by request name: the client's latency (ms) and when each request started (epoch seconds),
#: the server's own time (ms, Server-Timing) and when it came
_timings: dict[str, dict[str, list[float]]] = defaultdict(
    lambda: {"client": [], "started": [], "server": [], "at": []}
)
_errors: dict[str, list[str]] = defaultdict(list)
_SERVER = re.compile(r"app;dur=([0-9.]+)")
_TOKEN = re.compile(r'"X-CSRFToken": "([^"]+)"')
_ATTEMPT = re.compile(r'data-attempt="(\d+)"')
#: a run's page: the puzzle's number in the run and the board's position
_RUN_AT = re.compile(r'name="at" value="(\d+)"')
_RUN_FEN = re.compile(r'data-board[^>]*?data-fen="([^"]+)"', re.S)
#: the puzzles by their start position (a run's page shows the board, not the puzzle)
BY_FEN = {p["fen"]: p for p in PLAN["puzzles"] if p.get("fen")}


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
    row["started"].append(time.time() - response_time / 1000)
    if response is not None and response.headers is not None:
        match = _SERVER.search(response.headers.get("Server-Timing", ""))
        if match:
            row["server"].append(float(match.group(1)))
            row["at"].append(time.time())  # when the server's time was taken, for the timeline
    if exception is not None:
        _errors[name].append(str(exception)[:200])


@events.test_start.add_listener
def _started(environment, **kw):
    global _run_start
    _run_start = time.time()


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
    #: the client's own address, as the proxy in front of the site passes it on (LOAD_MIX=fairplay
    #: trusts 127.0.0.1 as that proxy): "" sends none
    address = ""

    def headers(self) -> dict[str, str]:
        return {"X-Forwarded-For": self.address} if self.address else {}

    def page(self, url: str, name: str, ok=(200,)) -> str:
        with self.client.get(
            url, name=name, catch_response=True, allow_redirects=False, headers=self.headers()
        ) as r:
            self._judge(r, ok)
            text = r.text or ""
        match = _TOKEN.search(text)
        if match:
            self.token = match.group(1)
        return text

    def post(self, url, name, data, ok=(200,), htmx=False, redirects=False):
        headers = {"X-CSRFToken": self.token, **(HX if htmx else {}), **self.headers()}
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


class Runner(Browsing):
    """A student playing puzzle storms (LOAD_MIX=runs): each answer brings the next puzzle."""

    fixed_count = int(os.environ.get("LOAD_RUNNERS", "0"))
    wait_time = between(0.2, 0.8)

    def on_start(self):
        self.token = ""
        self.run = ""
        self.html = ""
        self.variant_cycle = itertools.cycle(["czech", "international", "brazilian"])
        self.page("/accounts/login/", "login page")
        self.post(
            "/accounts/login/",
            "login",
            {"username": next(_accounts), "password": PLAN["password"]},
            ok=(302,),
        )

    def _start(self) -> None:
        variant = next(self.variant_cycle)
        self.page(f"/runs/{variant}/", "runs page")
        response = self.post(f"/runs/{variant}/storm/start", "run start", {}, ok=(302,))
        self.run = response.headers.get("Location", "").rstrip("/")
        self.html = self.page(self.run + "/", "run page") if self.run else ""

    @task
    def solve_a_run_puzzle(self):
        if not self.run or 'data-state="playing"' not in self.html:
            self._start()
            return
        at = _RUN_AT.search(self.html)
        fen = _RUN_FEN.search(self.html)
        puzzle = BY_FEN.get(fen.group(1)) if fen else None
        if at is None or puzzle is None:
            self.post(self.run + "/finish", "run finish", {"at": at.group(1) if at else "0"},
                      htmx=True)  # fmt: skip
            self.run = ""
            return
        if random.random() < 0.05:  # illegal: refused (400), the puzzle goes on
            self.post(self.run + "/move", "run move", {"at": at.group(1), "move": "1-2"},
                      ok=(400,), htmx=True)  # fmt: skip
        for move in puzzle["moves"]:
            response = self.post(
                self.run + "/move", "run move", {"at": at.group(1), "move": move}, htmx=True,
                ok=(200, 400),
            )  # fmt: skip
            self.html = response.text or ""
            if response.status_code != 200 or 'data-testid="solved"' in self.html:
                return


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


class Arrival(Browsing):
    """A student of a class starting a lesson (LOAD_MIX=lessonstart): at its moment (the
    arrivals spread evenly over LOAD_ARRIVAL_SECONDS from LOAD_ARRIVAL_AFTER seconds after the
    run's start) it logs in with an account of its own and opens the lesson map, then stays on
    that page. Its requests are named "arrival ...", apart from the others'."""

    fixed_count = ARRIVALS
    wait_time = constant(60)

    def on_start(self):
        self.token = ""
        index, username = next(_arrivals)
        spread = ARRIVAL_SECONDS * index / max(1, ARRIVALS - 1)
        time.sleep(max(0.0, _run_start + ARRIVAL_AFTER + spread - time.time()))
        self.page("/accounts/login/", "arrival login page")
        self.post(
            "/accounts/login/", "arrival login",
            {"username": username, "password": PLAN["password"]}, ok=(302,),
        )  # fmt: skip
        self.page("/learn/czech/", "arrival lesson map")

    @task
    def stay(self):
        """Reading the lesson map: nothing more is asked of the server."""


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


def _reply_event(name: str, started: float, exception=None) -> None:
    """A figure that is no request: the time since ``started`` (time.perf_counter) as a request
    named ``name`` (the report's tables read it as any other)."""
    events.request.fire(
        request_type="REPLY", name=name, response_time=1000 * (time.perf_counter() - started),
        response_length=0, response=None, context={}, exception=exception,
    )  # fmt: skip


class Rival(Browsing):
    """Another player of the computer (LOAD_MIX=fairplay, LOAD_RIVALS of them, 1): a student
    at level 5 in Czech draughts, a random legal move after a pause of 0.5-1.5 s, then the
    game's ``wait`` address (204 while the computer thinks) every LOAD_REPLY_POLL_MS (50) ms
    until the reply is there. "level-5 reply" is the time from sending the move to the reply
    seen: what the computer's turn on the workers costs this player (the page itself polls
    after 0.5 s, 1 s, ...: a finer poll than the page's, so that the figure is the reply's)."""

    fixed_count = int(os.environ.get("LOAD_RIVALS", "0"))
    wait_time = between(0.5, 1.5)
    address = "198.51.100.20"
    poll = int(os.environ.get("LOAD_REPLY_POLL_MS") or 50) / 1000

    def on_start(self):
        self.token = ""
        self.game = None
        self.html = ""
        self.page("/accounts/login/", "login page")
        self.post(
            "/accounts/login/", "login",
            {"username": next(_accounts), "password": PLAN["password"]}, ok=(302,),
        )  # fmt: skip

    def _new_game(self):
        self.page("/play/czech/", "rival play page")
        response = self.post(
            "/play/czech/", "rival start", {"level": "5", "color": "white"}, ok=(302,)
        )
        match = re.search(r"/play/game/(\d+)/", response.headers.get("Location", ""))
        self.game = int(match.group(1)) if match else None
        self.html = self.page(f"/play/game/{self.game}/", "rival game page") if match else ""

    @task
    def play_a_move(self):
        import dama

        found = _GAME.search(self.html or "") if self.game else None
        fen = _FEN.search(self.html or "")
        if found is None or found.group(1) != "player" or fen is None:
            self._new_game()
            return
        board = dama.Board("czech", fen.group(1).replace("&#x27;", "'"))
        route = ",".join(map(str, random.choice(board.legal_moves).routes[0]))
        started = time.perf_counter()
        response = self.post(
            f"/play/game/{self.game}/move", "rival move", {"route": route}, htmx=True
        )
        after = _GAME.search(response.text or "")
        if after is not None and after.group(1) == "thinking":
            replied = self._wait(f"/play/game/{self.game}/wait?v={after.group(2)}")
            _reply_event("level-5 reply", started, None if replied else "no reply in 120 s")
        self.html = self.page(f"/play/game/{self.game}/", "rival game page")

    def _wait(self, url: str, seconds: float = 120) -> bool:
        """Poll ``url`` until it says the game moved on (True), or ``seconds`` pass (False)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            time.sleep(self.poll)
            with self.client.get(
                url, name="rival reply poll", catch_response=True, allow_redirects=False,
                headers=self.headers(),
            ) as r:  # fmt: skip
                self._judge(r, (204, 302))
                if r.status_code != 204:
                    return True
        return False


class Hog(Browsing):
    """One client holding LOAD_HOG_GAMES (12) games at level 8 (LOAD_MIX=fairplay, LOAD_HOGS of
    them when loaded): a visitor that starts them all at once with the computer to move in
    each, then keeps them going as twelve tabs would: each game's ``wait`` address polled after
    the pauses its page waits (1 s, 2 s, then every 3 s: ``play.engine.poll_ms``), and a random
    legal move the moment the computer has replied. A game that ends is replaced by a new one.
    "hog reply" is the time from a move to its reply."""

    fixed_count = int(os.environ.get("LOAD_HOGS", "0"))
    games_held = int(os.environ.get("LOAD_HOG_GAMES") or 12)
    wait_time = constant(0)
    address = "203.0.113.66"

    def on_start(self):
        self.token = ""
        self.page("/play/czech/", "hog play page")
        # each game: {"id", "version" waited for, "sent" (when the move was sent), "polls", "at"}
        self.games = [g for g in (self._start() for _ in range(self.games_held)) if g]

    def _start(self) -> dict | None:
        response = self.post(
            "/play/czech/", "hog start", {"level": "8", "color": "black"}, ok=(302,)
        )
        match = re.search(r"/play/game/(\d+)/", response.headers.get("Location", ""))
        if not match:
            return None
        return self._waiting(int(match.group(1)), 0)

    def _waiting(self, game: int, version: int) -> dict:
        now = time.perf_counter()
        return {"id": game, "version": version, "sent": now, "polls": 0, "at": now + 1.0}

    @task
    def tend(self):
        import dama

        if not self.games:
            time.sleep(1)
            return
        game = min(self.games, key=lambda g: g["at"])
        time.sleep(max(0.0, game["at"] - time.perf_counter()))
        with self.client.get(
            f"/play/game/{game['id']}/wait?v={game['version']}", name="hog poll",
            catch_response=True, allow_redirects=False, headers=self.headers(),
        ) as r:  # fmt: skip
            self._judge(r, (204, 302))
            waiting = r.status_code == 204
        if waiting:
            game["polls"] += 1
            game["at"] = time.perf_counter() + min(game["polls"] + 1, 3)
            return
        _reply_event("hog reply", game["sent"])
        index = self.games.index(game)
        html = self.page(f"/play/game/{game['id']}/", "hog game page")
        found, fen = _GAME.search(html), _FEN.search(html)
        if found is None or found.group(1) != "player" or fen is None:
            self.games[index] = self._start() or game
            return
        board = dama.Board("czech", fen.group(1).replace("&#x27;", "'"))
        route = ",".join(map(str, random.choice(board.legal_moves).routes[0]))
        response = self.post(
            f"/play/game/{game['id']}/move", "hog move", {"route": route}, htmx=True
        )
        after = _GAME.search(response.text or "")
        if after is not None:
            self.games[index] = self._waiting(game["id"], int(after.group(2)))
