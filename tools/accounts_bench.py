"""Passwords, sign-up, log-in and children's accounts, timed in-process (issue 47 items 11, 14).

On a fresh SQLite database of its own (in a temporary folder, migrated here) with the site's
settings as they are (its ``PASSWORD_HASHERS``), it measures:

* the cost of checking one password (a log-in's hash) for Django's PBKDF2 hasher, Django's
  default Argon2 hasher, the site's (``accounts.hashers``, where the code has it) and OWASP's
  other Argon2id setting of the same strength (46 MiB, 1 pass): CPU and wall milliseconds,
  median and p95 of LOAD_HASHES (20) checks;
* sign-up and log-in: the server's own time (``Server-Timing``, ``core/timing.py``) of
  LOAD_SIGNUPS (20) sign-ups through the site's form, and of as many log-ins to those accounts;
* a teacher making children's accounts (2 and 30 names): the server time of the form's POST and,
  where the code makes them in a worker's job, the job's time run in this process (as a worker
  would: the work the request used to do).

It runs on any commit that has the views (copy it into an older checkout to measure that), and
prints a Markdown report.

    python tools/accounts_bench.py
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TMP = Path(tempfile.mkdtemp(prefix="dama-accounts-bench-"))
for name in ("REDIS_URL", "CELERY_BROKER_URL", "DATABASE_URL"):
    os.environ.pop(name, None)
os.environ.update(
    DJANGO_SETTINGS_MODULE="dama_learn.settings",
    DAMA_VAR_DIR=str(TMP / "var"),
    DATABASE_URL=f"sqlite:///{TMP / 'bench.sqlite3'}",
    CELERY_BROKER_URL="memory://localhost//",  # the request's enqueue costs a message in memory
    DAMA_SERVER_TIMING="1",
    DAMA_SIGNUPS_PER_HOUR="100000",
    LOG_LEVEL="WARNING",
)

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth.hashers import (  # noqa: E402
    Argon2PasswordHasher,
    PBKDF2PasswordHasher,
)
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

PASSWORD = "a-bench-password-42"
_SERVER = re.compile(r"app;dur=([0-9.]+)")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def figures(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} / {percentile(values, 95):.0f} / {max(values):.0f}"


def server_ms(response) -> float:
    return float(_SERVER.search(response["Server-Timing"]).group(1))


def timed_post(client, url: str, data: dict) -> tuple[object, float, float]:
    """The response to a POST, its server ms (Server-Timing) and the CPU ms this process spent
    on it (the test client's own share is a fraction of a millisecond)."""
    started = time.process_time()
    response = client.post(url, data)
    return response, server_ms(response), 1000 * (time.process_time() - started)


def hash_costs(count: int) -> list[tuple[str, str, list[float], list[float]]]:
    """(hasher, its parameters, CPU ms, wall ms) of ``count`` checks of one password."""
    hashers: list[tuple[str, object]] = [
        ("Django's PBKDF2 (the default before)", PBKDF2PasswordHasher()),
        ("Django's default Argon2", Argon2PasswordHasher()),
    ]
    try:
        from accounts.hashers import SiteArgon2PasswordHasher
    except ImportError:  # a commit from before the site's hasher
        pass
    else:
        hashers.append(("the site's Argon2id (accounts/hashers.py)", SiteArgon2PasswordHasher()))

    class OneLargePass(Argon2PasswordHasher):
        """OWASP's other setting of the same strength: 46 MiB, one pass, one lane."""

        memory_cost, time_cost, parallelism = 47104, 1, 1

    hashers.append(("OWASP's equal alternative (not used)", OneLargePass()))
    rows = []
    for label, hasher in hashers:
        encoded = hasher.encode(PASSWORD, hasher.salt())
        cpu, wall = [], []
        for _ in range(count):
            c, w = time.process_time(), time.perf_counter()
            assert hasher.verify(PASSWORD, encoded)
            cpu.append(1000 * (time.process_time() - c))
            wall.append(1000 * (time.perf_counter() - w))
        parts = encoded.split("$")
        if parts[0] == "argon2":  # argon2$argon2id$v=19$m=...,t=...,p=...$salt$hash
            name = f"{parts[1]} {parts[3]}"
        else:  # pbkdf2_sha256$rounds$salt$hash
            name = f"{parts[0]}, {parts[1]} rounds"
        rows.append((label, name, cpu, wall))
    return rows


def signups_and_logins(count: int) -> tuple[dict[str, list[float]], str]:
    """The server ms and CPU ms of ``count`` sign-ups and of a log-in to each account, and the
    hash the sign-ups stored."""
    from django.contrib.auth import get_user_model

    times: dict[str, list[float]] = {
        "sign-up": [],
        "sign-up CPU": [],
        "log-in": [],
        "log-in CPU": [],
    }
    for n in range(count):
        client = Client()
        client.get("/accounts/signup/")
        response, server, cpu = timed_post(
            client,
            "/accounts/signup/",
            {"username": f"bench-{n}", "password1": PASSWORD, "password2": PASSWORD},
        )
        assert response.status_code == 302, response.content.decode()[:2000]
        times["sign-up"].append(server)
        times["sign-up CPU"].append(cpu)
    for n in range(count):
        client = Client()
        client.get("/accounts/login/")
        response, server, cpu = timed_post(
            client, "/accounts/login/", {"username": f"bench-{n}", "password": PASSWORD}
        )
        assert response.status_code == 302, response.content.decode()[:2000]
        times["log-in"].append(server)
        times["log-in CPU"].append(cpu)
    stored = get_user_model().objects.get(username="bench-0").password
    return times, stored.rsplit("$", 2)[0]


def childrens_accounts(
    sizes: tuple[int, ...], repeats: int
) -> list[tuple[int, float, float, float, float]]:
    """(names, the POST's server ms and CPU ms, the job's wall and CPU ms in this process or 0
    without a job), the medians of ``repeats`` lists of each size."""
    from django.contrib.auth import get_user_model

    from accounts.models import profile_of
    from classroom import models as classroom_models
    from classroom.models import Classroom
    from core.models import Job

    teacher = get_user_model().objects.create_user("bench-teacher", password=PASSWORD)
    profile_of(teacher).grant_teacher_role()
    room = Classroom.objects.create(name="Bench club", variant="czech", created_by=teacher)
    room.teachers.add(teacher)
    client = Client()
    client.force_login(teacher)
    jobs = getattr(classroom_models, "ACCOUNTS_JOB", None)
    rows = []
    for size in sizes:
        posts, post_cpu, runs, run_cpu = [], [], [], []
        for r in range(repeats):
            names = "\n".join(f"Bench Kid {size}-{r}-{i}" for i in range(size))
            url = f"/teach/classes/{room.pk}/students/new/"
            response, server, cpu = timed_post(client, url, {"names": names})
            assert response.status_code in (200, 302), response.status_code
            posts.append(server)
            post_cpu.append(cpu)
            if jobs is not None:
                from classroom import tasks

                job = Job.objects.filter(kind=jobs).order_by("-created").first()
                started, started_cpu = time.perf_counter(), time.process_time()
                assert tasks.make_student_accounts(str(job.pk)) == "done"
                runs.append(1000 * (time.perf_counter() - started))
                run_cpu.append(1000 * (time.process_time() - started_cpu))
        median = statistics.median
        rows.append(
            (
                size,
                median(posts),
                median(post_cpu),
                median(runs) if runs else 0.0,
                median(run_cpu) if run_cpu else 0.0,
            )
        )
    return rows


def main() -> None:
    hashes = int(os.environ.get("LOAD_HASHES") or 20)
    signups = int(os.environ.get("LOAD_SIGNUPS") or 20)
    call_command("migrate", verbosity=0)
    setup_test_environment()
    commit = os.popen(f"git -C {ROOT} rev-parse --short HEAD").read().strip()
    print(
        f"### accounts_bench.py on {commit}: PASSWORD_HASHERS[0] = {settings.PASSWORD_HASHERS[0]}"
    )
    print()
    print(f"Checking one password ({hashes} checks), ms, median / p95 / max:")
    print()
    print("| hasher | hash | CPU ms | wall ms |")
    print("| --- | --- | --- | --- |")
    for label, name, cpu, wall in hash_costs(hashes):
        print(f"| {label} | `{name}` | {figures(cpu)} | {figures(wall)} |")
    print()
    times, stored = signups_and_logins(signups)
    print(f"Sign-up and log-in ({signups} each), ms, median / p95 / max: the server's time")
    print(f"(Server-Timing) and its CPU; the sign-ups stored `{stored}$...`:")
    print()
    print("| request | server ms | CPU ms |")
    print("| --- | --- | --- |")
    for name in ("sign-up", "log-in"):
        print(f"| {name} (POST) | {figures(times[name])} | {figures(times[name + ' CPU'])} |")
    print()
    print("A teacher making children's accounts, ms (medians of 3 lists of each size):")
    print()
    print("| names | the POST: server ms | CPU ms | the worker's job: ms | CPU ms |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for size, post, post_cpu, job, job_cpu in childrens_accounts((2, 30), 3):
        worker = f"{job:.0f} | {job_cpu:.0f}" if job else "- | - (made in the request)"
        print(f"| {size} | {post:.0f} | {post_cpu:.0f} | {worker} |")


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
