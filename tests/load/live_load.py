"""A live lesson under load (issue 20): a teacher and N students (30 by default) on loopback,
each student a real WebSocket client of a real ASGI server (uvicorn serving dama_learn.asgi).

    .venv/bin/python tests/load/live_load.py                 # 30 students, 12 teacher actions
    .venv/bin/python tests/load/live_load.py --students 5 --rounds 4 --json out.json

What it measures:

* **The teacher's action to the students' screens**: the teacher's page posts an action (the next
  position, a move on the board, an arrow, a question); each student's socket receives the new
  stage. The time from sending the action to each student's message: p50, p95 and the slowest,
  over every student and action (the goal: p95 under one second).
* **Answers from all at once**: every student posts an answer within the same moment (half one
  move, half another); the answers the lesson counted (database and the teacher's panel, pushed
  over the teacher's socket) must be exactly the ones sent, and the spread of the posts is shown.

The script sets up a fresh SQLite database in a temporary folder (or uses DATABASE_URL), a
teacher, a class of N students and a lesson, logs everyone in (session cookies), starts uvicorn as
a separate process on a free port and drives it. With REDIS_URL the channel layer is Redis
(database 11 unless DAMA_CHANNELS_REDIS_URL says otherwise); without, uvicorn's process memory.
``run_lesson`` is the measuring part, used by the smoke test against a server in the test process
(tests/load/test_live_load.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.load.servers import script_env, serve_in_process  # noqa: E402

#: the lesson's positions: White 22 and 27 against Black 13 and 9 (quiet moves), then the same
#: shifted; the teacher's actions cycle through moving on, playing, drawing and asking
FREE = "W:W22,27:B13,9"
FREE_2 = "W:W21,26:B13,9"
ANSWERS = ("22-18", "27-23")  # half the class gives each


# -- the clients ------------------------------------------------------------------------------------


@dataclass
class Browser:
    """One user's cookies (the session, and the CSRF cookie once a page was read)."""

    base: str
    session_cookie: str
    csrf: str = ""

    @property
    def cookie(self) -> str:
        return "; ".join(
            c for c in (self.session_cookie, f"csrftoken={self.csrf}" if self.csrf else "") if c
        )

    def request(self, path: str, data: dict | None = None) -> tuple[int, str, dict]:
        headers = {"Cookie": self.cookie, "HX-Request": "true"}
        body = None
        if data is not None:
            body = urllib.parse.urlencode(data).encode()
            headers.update(
                {
                    "X-CSRFToken": self.csrf,
                    "Content-Type": "application/x-www-form-urlencoded",
                    "Origin": self.base,
                    "Referer": self.base + path,
                }
            )
        req = urllib.request.Request(self.base + path, data=body, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=30) as response:
                return response.status, response.read().decode(), dict(response.headers)
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode(), dict(exc.headers)

    def open_page(self, path: str) -> str:
        """Read a page (as a visitor's browser does) and keep the CSRF cookie it sets."""
        req = urllib.request.Request(self.base + path, headers={"Cookie": self.cookie})
        with urllib.request.urlopen(req, timeout=30) as response:
            for header in response.headers.get_all("Set-Cookie") or []:
                m = re.match(r"csrftoken=([^;]+)", header)
                if m:
                    self.csrf = m.group(1)
            return response.read().decode()


@dataclass
class Student:
    name: str
    browser: Browser
    version: int = 0
    #: (version, monotonic time) of each stage received
    seen: list[tuple[int, float]] = field(default_factory=list)
    got: asyncio.Event = field(default_factory=asyncio.Event)


async def listen(student: Student, ws_url: str, ready: asyncio.Event, count: list[int]) -> None:
    from websockets.asyncio.client import connect

    async with connect(
        ws_url,
        origin=student.browser.base,
        additional_headers={"Cookie": student.browser.cookie},
        open_timeout=20,
        max_size=2**22,
    ) as ws:
        async for raw in ws:
            message = json.loads(raw)
            if message.get("type") != "state":
                continue
            now = time.monotonic()
            if message["version"] > student.version:
                student.version = message["version"]
                student.seen.append((message["version"], now))
                if len(student.seen) == 1:
                    count[0] += 1
                    if count[0] == count[1]:
                        ready.set()
                student.got.set()


async def teacher_listen(ws_url: str, browser: Browser, answered: dict) -> None:
    """The teacher's socket: the answers panel's count of answers, as it is pushed."""
    from websockets.asyncio.client import connect

    async with connect(
        ws_url, origin=browser.base, additional_headers={"Cookie": browser.cookie}, open_timeout=20
    ) as ws:
        async for raw in ws:
            message = json.loads(raw)
            if message.get("type") == "results":
                m = re.search(r'data-answered="(\d+)"', message["html"])
                if m:
                    answered["count"] = int(m.group(1))
                    answered["at"] = time.monotonic()
                    answered["html"] = message["html"]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


async def hold(ws_url: str, browser: Browser, held: dict) -> None:
    """One more socket of the same student, held open and read (as a hog's tabs would be): how
    many opened, how many the server closed and with which code."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    ws = None
    try:
        async with connect(
            ws_url, origin=browser.base, additional_headers={"Cookie": browser.cookie}
        ) as ws:
            held["opened"] += 1
            async for _raw in ws:
                held["messages"] += 1
    except (ConnectionClosed, OSError):
        pass
    finally:
        code = ws.close_code if ws is not None else None
        if code is not None:
            held["closed"][code] = held["closed"].get(code, 0) + 1


async def run_lesson(
    base: str,
    session_id: int,
    teacher_cookie: str,
    students: list[tuple[str, str]],
    rounds: int = 12,
    hog: int = 0,
) -> dict:
    """Drive lesson ``session_id`` on the server at ``base``: the teacher (``teacher_cookie``)
    acts ``rounds`` times, each student (name, session cookie) follows over a WebSocket (the
    first student holds ``hog`` more sockets, as one student with many tabs or a script would);
    then everybody answers a question at once. Returns the figures."""
    pool = ThreadPoolExecutor(max_workers=len(students) + 4)
    loop = asyncio.get_running_loop()
    page = f"/live/{session_id}/"
    ws_url = base.replace("http://", "ws://") + f"/ws/live/{session_id}/?lang=en"
    teacher = Browser(base, teacher_cookie)
    await loop.run_in_executor(pool, teacher.open_page, page)
    clients = [Student(name, Browser(base, cookie)) for name, cookie in students]
    # every student opens the page (the CSRF cookie for answering), then the socket
    await asyncio.gather(*(loop.run_in_executor(pool, c.browser.open_page, page) for c in clients))
    ready = asyncio.Event()
    count = [0, len(clients)]
    answered: dict = {"count": -1}
    tasks = [asyncio.create_task(listen(c, ws_url, ready, count)) for c in clients]
    tasks.append(asyncio.create_task(teacher_listen(ws_url, teacher, answered)))
    await asyncio.wait_for(ready.wait(), 30)
    held: dict = {"asked": hog, "opened": 0, "messages": 0, "closed": {}}
    if hog:
        tasks += [asyncio.create_task(hold(ws_url, clients[0].browser, held)) for _ in range(hog)]
        deadline = time.monotonic() + 30
        while held["opened"] < hog and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        await asyncio.sleep(1)  # the server's refusals, if any, arrive

    actions = [
        {"action": "goto", "index": "1"},
        {"action": "goto", "index": "0"},
        {"action": "play", "move": "22-17"},
        {"action": "draw", "draw": "13-22"},
        {"action": "draw", "draw": "9"},
        {"action": "clear"},
    ]
    latencies: list[float] = []
    posts: list[float] = []  # the teacher's own request, from sending it to its answer
    missed = 0
    control = f"/live/{session_id}/control/"
    errors: list[str] = []
    for n in range(rounds):
        action = actions[n % len(actions)]
        for c in clients:
            c.got.clear()
        sent = time.monotonic()
        status, body, _headers = await loop.run_in_executor(pool, teacher.request, control, action)
        posts.append(time.monotonic() - sent)
        if status != 200:
            errors.append(f"{action}: {status} {body[:200]}")
            continue
        version = int(re.search(r'data-version="(\d+)"', body).group(1))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(wait_version(c, version) for c in clients)), 10)
        for c in clients:
            at = next((t for v, t in c.seen if v >= version), None)
            if at is None:
                missed += 1
            else:
                latencies.append(at - sent)

    # a question, and every student answers at once
    await loop.run_in_executor(pool, teacher.request, control, {"action": "goto", "index": "0"})
    status, body, _ = await loop.run_in_executor(
        pool, teacher.request, control, {"action": "ask", "expected": ANSWERS[0]}
    )
    if status != 200:
        errors.append(f"ask: {status} {body[:200]}")
    version = int(re.search(r'data-version="(\d+)"', body).group(1))
    await asyncio.wait_for(asyncio.gather(*(wait_version(c, version) for c in clients)), 10)
    answer_url = f"/live/{session_id}/answer/"
    sent_at: list[float] = []

    def post_answer(i: int, c: Student) -> tuple[int, str]:
        sent_at.append(time.monotonic())
        status, body, _ = c.browser.request(answer_url, {"move": ANSWERS[i % 2], "route": ""})
        return status, body

    started = time.monotonic()
    replies = await asyncio.gather(
        *(loop.run_in_executor(pool, post_answer, i, c) for i, c in enumerate(clients))
    )
    all_in = time.monotonic()
    for status, body in replies:
        if status != 200 or "Your answer" not in body:
            errors.append(f"answer: {status} {body[:200]}")
    expected = {ANSWERS[0]: (len(clients) + 1) // 2, ANSWERS[1]: len(clients) // 2}
    deadline = time.monotonic() + 10
    while answered["count"] != len(clients) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    panel_counts = {
        m.group(1): int(m.group(2))
        for m in re.finditer(
            r"<tr data-testid=\"live-count\"><td>([^<]+)</td><td>(\d+)</td>",
            answered.get("html", ""),
        )
    }
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    pool.shutdown(wait=False)
    return {
        "students": len(clients),
        "actions": rounds,
        "latencies": len(latencies),
        "missed": missed,
        "p50_ms": round(percentile(latencies, 50) * 1000, 1),
        "p95_ms": round(percentile(latencies, 95) * 1000, 1),
        "max_ms": round(max(latencies) * 1000, 1) if latencies else None,
        "mean_ms": round(statistics.fmean(latencies) * 1000, 1) if latencies else None,
        "teacher_request_p50_ms": round(percentile(posts, 50) * 1000, 1),
        "answers_sent": len(replies),
        "answers_spread_ms": round((max(sent_at) - min(sent_at)) * 1000, 1) if sent_at else None,
        "answers_all_in_ms": round((all_in - started) * 1000, 1),
        "teacher_counted": answered["count"],
        "teacher_saw_all_ms": round((answered["at"] - started) * 1000, 1)
        if answered["count"] == len(clients)
        else None,
        "panel_counts": panel_counts,
        "expected_counts": expected,
        "errors": errors,
        **({"hog_sockets": held} if hog else {}),
    }


async def wait_version(c: Student, version: int) -> None:
    while c.version < version:
        c.got.clear()
        await c.got.wait()


# -- the command line ---------------------------------------------------------------------------


def setup(students: int) -> tuple[int, str, list[tuple[str, str]]]:
    """A teacher, a class of ``students`` and a lesson on two positions; everyone logged in."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from classroom.models import Classroom
    from live.models import LiveSession, StepData
    from tests.conftest import _make_user  # noqa: PLC0415 - the tests' user maker

    User = get_user_model()
    teacher = _make_user(User, f"teacher-{os.getpid()}", teacher=True)
    classroom = Classroom.objects.create(name="Load class", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    users = []
    for n in range(students):
        user = User.objects.create_user(f"s{n}-{os.getpid()}", password=None)
        classroom.add_student(user)
        users.append(user)
    session = LiveSession.start(
        classroom, teacher, [StepData(FREE, "one"), StepData(FREE_2, "two")], "Load"
    )

    def cookie(user) -> str:
        client = Client()
        client.force_login(user)
        return f"sessionid={client.cookies['sessionid'].value}"

    return session.pk, cookie(teacher), [(u.username, cookie(u)) for u in users]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument(
        "--hog", type=int, default=0, help="more sockets held open by the first student"
    )
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="live-load-"))
    env = script_env(workdir, "live.sqlite3", DEBUG="1")
    os.environ.update(env)
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    session_id, teacher_cookie, students = setup(args.students)
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    with serve_in_process(env) as (base, _process):
        figures = asyncio.run(
            run_lesson(base, session_id, teacher_cookie, students, args.rounds, args.hog)
        )
    from live.models import LiveAnswer

    stored = LiveAnswer.objects.filter(session_id=session_id)
    figures["stored_answers"] = stored.count()
    figures["stored_counts"] = {
        move: stored.filter(notation=move).count() for move in figures["expected_counts"]
    }
    figures["channel_layer"] = layer
    figures["database"] = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    print(json.dumps(figures, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    ok = (
        not figures["errors"]
        and figures["missed"] == 0
        and figures["p95_ms"] < 1000
        and figures["stored_answers"] == args.students
        and figures["stored_counts"] == figures["expected_counts"]
        and figures["panel_counts"] == figures["expected_counts"]
        and figures["teacher_counted"] == args.students
    )
    print("OK" if ok else "FAILED: see the figures above")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
