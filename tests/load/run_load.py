"""The load test: the mixed traffic of a class against the production stack on loopback.

For each backend it starts, in a temporary folder and on free loopback ports:

* ``postgres``: a PostgreSQL database of its own (created on DAMA_LOAD_POSTGRES_URL's server and
  dropped after), its own ``redis-server`` (broker and cache), gunicorn with the production
  settings (DEBUG=0) and one Celery worker;
* ``sqlite``: the embedded default, SQLite and the SQLite-file broker, gunicorn and one worker;

seeds it (tests/load/seed.py), runs locust headless (tests/load/locustfile.py) with LOAD_USERS
users for LOAD_SECONDS (at nice 10, LOAD_CLIENT_NICE, so that the load generator on the same
cores yields to the server it measures), stops everything and prints requests per second, p50/p95/p99 per endpoint
(client latency and the server's own time from the Server-Timing header) and the errors, and
the CPU the run took (:class:`CpuMeter`): the server's processes (web, database, Redis, worker)
and the load generator, each in seconds and per request, with the requests a second the
server's own CPU would answer on the machine's cores were the load generator elsewhere. The
report is also written to LOAD_REPORT (default var/load-report.md), its figures to the same name
with ``.json`` and every request's server time, by backend and endpoint, with ``.times.json``
(to pool the runs of an experiment). Exit status 1 on any error.

LOAD_MIX=play adds LOAD_PLAYERS (30) students playing the computer at level 8 to the class's
traffic, with a worker of its own for the ``play`` queue (a process per core:
LOAD_PLAY_CONCURRENCY) that takes only the CPU the rest leaves:
in a cgroup with ``cpu.idle`` set (LOAD_PLAY_SCHED=cgroup, the default where the kernel offers
it; systemd's ``CPUWeight=idle`` in production), or under the SCHED_IDLE policy in a session
whose autogroup is at nice 19 (LOAD_PLAY_SCHED=idle), or at nice LOAD_PLAY_NICE (10) with its
autogroup at the same (LOAD_PLAY_SCHED=nice). Each of its processes keeps to a core of its own
(``DAMA_WORKER_PIN_CORES=1``; LOAD_PLAY_PIN=0 lets them move). LOAD_PLAY_WORKER=0 starts no play
worker: the players' own web traffic without the searches (their games then wait for a reply that
never comes). LOAD_PLAY_THINK=sleep starts a play worker whose computer sleeps instead of
searching (tools/play_asleep.py, LOAD_PLAY_SLEEP seconds a move): the players' requests at
about the real pace, with no search taking a core.

LOAD_MIX=fairplay measures what one player's games cost another's: a student playing the computer
at level 5 (``Rival``: each move's reply time, polled every 50 ms) for LOAD_SECONDS alone, then
for LOAD_SECONDS beside one visitor holding LOAD_HOG_GAMES (12) games at level 8 with the
computer to move in each (``Hog``), each from an address of its own (gunicorn trusts 127.0.0.1
as the proxy that passes it on); the play worker as above, serving the ``exam`` and ``play``
queues. It prints both phases and the replies' p50/p95/p99, quiet and beside the hog.

LOAD_MIX=runs adds LOAD_RUNNERS (20) students playing puzzle storms (``Runner``: each answer to a
run's puzzle is "run move", the next puzzle coming in the answer) to the class's traffic.

LOAD_MIX=lessonstart measures a class starting a lesson: besides the class's traffic (LOAD_USERS,
logged in at the start), LOAD_ARRIVALS (30) more students log in within LOAD_ARRIVAL_SECONDS (10),
the first LOAD_ARRIVAL_AFTER (45) seconds into the run, each with an account of its own
(``Arrival``). The report adds the arrivals' log-ins and what the others' requests cost them
meanwhile: their client p50/p95/p99 during the log-ins, and in the calm before them (after the
others' own log-ins). LOAD_SEED_HASHER (e.g. ``pbkdf2_sha256``) seeds the accounts' passwords
with that hasher instead of the site's first: the first lesson after a change of hasher, each
log-in checking the old hash and writing a new one.

    make load                                    # 50 users, 300 s, postgres then sqlite
    LOAD_SECONDS=20 LOAD_USERS=10 LOAD_BACKENDS=sqlite python tests/load/run_load.py

Only 127.0.0.1 is contacted; every process started here is stopped before the script exits.
"""

from __future__ import annotations

import json
import os
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PY = sys.executable
SERVER_TIMED = ("move", "lesson check", "puzzle page", "lesson step", "run move")


def env_int(name: str, default: int) -> int:
    return int(os.environ.get(name) or default)


def arrivals() -> int:
    """The students arriving for the lesson (LOAD_MIX=lessonstart), else none."""
    return env_int("LOAD_ARRIVALS", 30) if os.environ.get("LOAD_MIX") == "lessonstart" else 0


def playing() -> bool:
    """The mix has games against the computer (a play worker, the web marking its requests)."""
    return os.environ.get("LOAD_MIX") in ("play", "fairplay")


def group_nice(pid: int, nice: int) -> None:
    """Give the session of ``pid`` (its autogroup) the priority ``nice``.

    Where Linux groups processes by session for scheduling (``kernel.sched_autogroup_enabled``,
    on by default on most distributions' kernels), the cores are first shared fairly between the
    sessions and a process's own nice value (or SCHED_IDLE policy) only counts against the
    processes of its session: a niced worker started in a session of its own still takes a
    session's full share from the web server. The group's priority is set in
    ``/proc/<pid>/autogroup`` (no-op where the kernel has no autogroups)."""
    path = Path(f"/proc/{pid}/autogroup")
    if path.exists():
        path.write_text(str(nice))


def idle_cgroup(name: str) -> Path | None:
    """A new CPU cgroup whose processes run only when no other process wants the core
    (``cpu.idle``, Linux 5.15 or later: SCHED_IDLE for the whole group, across sessions); None
    where there is none to make (no cgroup CPU controller, or no right to write it)."""
    for base in (Path("/sys/fs/cgroup/cpu"), Path("/sys/fs/cgroup")):
        if not (base / "cgroup.procs").exists():
            continue
        group = base / name
        try:
            group.mkdir(exist_ok=True)
            (group / "cpu.idle").write_text("1")
        except OSError:
            if group.exists():
                group.rmdir()
            continue
        return group
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


class CpuMeter:
    """The CPU seconds (user + system) that the processes of a run take while locust runs, by
    role: ``web`` (gunicorn and its workers), ``worker`` (Celery, its pool too), ``redis`` (the
    run's own server), ``database`` (PostgreSQL's processes: the server is shared, but during a
    run only the run uses it) and ``play worker``; the load generator's is read by
    :func:`run_locust` (``resource.getrusage`` of the child it waits for).

    A thread reads every process's total with psutil once a second and keeps the last reading of
    each, so a process that ends during the run (a database connection Django closes after
    ``DB_CONN_MAX_AGE``, a new one opened for the next request) loses at most a second of its
    CPU; a process that was there before the run counts only what it took after the first
    reading. The machine's busy and idle time (``psutil.cpu_times``) is read the same way."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.first: dict[int, float] = {}
        self.last: dict[int, tuple[str, float]] = {}
        self.started = False
        self.machine_first = psutil.cpu_times()
        self.machine_last = self.machine_first
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _processes(self):
        for name, proc in self.stack.procs:
            role = "web" if name == "gunicorn" else name
            try:
                root = psutil.Process(proc.pid)
                yield from ((role, p) for p in [root, *root.children(recursive=True)])
            except psutil.NoSuchProcess:
                continue
        if self.stack.database:
            for p in psutil.process_iter(["name"]):
                if p.info["name"] == "postgres" or (p.info["name"] or "").startswith("postgres:"):
                    yield "database", p

    def read(self) -> None:
        for role, p in self._processes():
            try:
                t = p.cpu_times()
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            total = t.user + t.system
            # a process first seen after the start took all of its CPU during the run
            self.first.setdefault(p.pid, 0.0 if self.started else total)
            self.last[p.pid] = (role, total)
        self.machine_last = psutil.cpu_times()
        self.started = True

    def _loop(self) -> None:
        while not self._stop.wait(1.0):
            self.read()

    def start(self) -> None:
        self.read()
        self._thread.start()

    def stop(self) -> dict[str, float]:
        """Seconds of CPU by role during the run, and the machine's (``machine busy``,
        ``machine idle``: all its cores)."""
        self._stop.set()
        self._thread.join()
        self.read()
        roles: dict[str, float] = {}
        for pid, (role, total) in self.last.items():
            roles[role] = roles.get(role, 0.0) + total - self.first.get(pid, 0.0)
        a, b = self.machine_first, self.machine_last
        idle = (b.idle - a.idle) + (getattr(b, "iowait", 0.0) - getattr(a, "iowait", 0.0))
        roles["machine idle"] = idle
        roles["machine busy"] = sum(b) - sum(a) - idle
        return roles


class Stack:
    """The processes of one backend; ``stop()`` ends each of them (process groups)."""

    def __init__(self, backend: str, workdir: Path, users: int, log=print) -> None:
        self.backend = backend
        self.dir = workdir
        self.users = users
        self.log = log
        self.procs: list[tuple[str, subprocess.Popen]] = []
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.database = None
        self.cgroup: Path | None = None
        self.env = {
            **os.environ,
            "DEBUG": "0",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(60),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_SSL_REDIRECT": "0",
            # Server-Timing is off in production (timing attacks): on here, the report reads it
            "DAMA_SERVER_TIMING": "1",
            "DAMA_VAR_DIR": str(workdir / "var"),
            "STATIC_ROOT": str(workdir / "static"),
            "LOG_LEVEL": "WARNING",
            "DJANGO_SETTINGS_MODULE": "dama_learn.settings",
            "PYTHONPATH": str(ROOT),
        }
        for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"):
            self.env.pop(name, None)
        if os.environ.get("LOAD_CORPUS", "1") == "0":
            # the six test puzzles only, two a variant: none kept for the exams, or a variant's
            # one practice puzzle would be its daily puzzle, and the stream would serve nothing else
            self.env.setdefault("DAMA_EXAM_SHARE_PERCENT", "0")

    # -- services ----------------------------------------------------------------------------------

    def _start(
        self,
        name: str,
        args: list[str],
        nice: int = 0,
        cgroup: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> subprocess.Popen:
        """Start ``args`` in a session of its own (its autogroup at ``nice``), in ``cgroup``
        before it runs (so that every process it forks is there too), with ``env`` added to the
        services' environment."""

        def enter() -> None:
            assert cgroup is not None
            (cgroup / "cgroup.procs").write_text(str(os.getpid()))

        out = open(self.dir / f"{name}.log", "w")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(
            args, cwd=ROOT, env={**self.env, **(env or {})}, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=enter if cgroup else None,
        )  # fmt: skip
        if nice:
            group_nice(proc.pid, nice)
        self.procs.append((name, proc))
        return proc

    def _run(self, args: list[str], timeout: float = 300) -> None:
        done = subprocess.run(
            args, cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=timeout
        )
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")

    def start(self) -> None:
        if self.backend == "postgres":
            self._postgres()
            redis_port = free_port()
            self._start(
                "redis",
                ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                 "--save", "", "--appendonly", "no", "--dir", str(self.dir)],
            )  # fmt: skip
            self.env["REDIS_URL"] = f"redis://127.0.0.1:{redis_port}/0"
            self.env["DB_CONN_MAX_AGE"] = "60"
        else:
            self.env["DATABASE_URL"] = f"sqlite:///{self.dir / 'load.sqlite3'}"
        self.log(f"[{self.backend}] migrate, collectstatic, seed")
        self._run([PY, "manage.py", "migrate", "--noinput", "-v0"])
        self._run([PY, "manage.py", "collectstatic", "--noinput", "-v0"])
        self._run([PY, str(HERE / "seed.py"), str(self.users), str(self.dir / "plan.json")])
        if self.backend == "postgres":
            self._analyze()
        # the production settings (gunicorn.conf.py: one sync worker per core) unless
        # LOAD_GUNICORN_WORKERS says otherwise
        if os.environ.get("LOAD_GUNICORN_WORKERS"):
            self.env["GUNICORN_WORKERS"] = os.environ["LOAD_GUNICORN_WORKERS"]
        if os.environ.get("LOAD_MIX") == "fairplay":
            # each simulated player sends its own address, as a proxy in front would
            self.env["DAMA_TRUSTED_PROXIES"] = "127.0.0.1"
        self._start(
            "gunicorn",
            [PY, "-m", "gunicorn", "dama_learn.wsgi", "-c", str(ROOT / "gunicorn.conf.py"),
             "--bind", f"127.0.0.1:{self.port}"],
        )  # fmt: skip
        self._start(
            "worker",
            [PY, "-m", "celery", "-A", "dama_learn", "worker", "-Q", "default,deep,verify",
             "--concurrency", "1", "--loglevel", "WARNING", "-n", f"load-{self.port}@localhost"],
        )  # fmt: skip
        if playing() and os.environ.get("LOAD_PLAY_WORKER") != "0":
            self._start_play_worker()
        self._wait_healthy()

    def _start_play_worker(self) -> None:
        """The computer's moves (queues "exam" and "play") on a worker of their own, one process per core
        (LOAD_PLAY_CONCURRENCY), taking only the CPU the web requests leave (LOAD_PLAY_SCHED:
        see the module docstring). A niced process alone does not give way: with the kernel's
        autogroups the cores are shared between sessions first (see :func:`group_nice`)."""
        mode = os.environ.get("LOAD_PLAY_SCHED") or "cgroup"
        cgroup = idle_cgroup(f"dama-load-{self.port}") if mode == "cgroup" else None
        if mode == "cgroup" and cgroup is None:
            self.log("[play] no cgroup with cpu.idle here: SCHED_IDLE at autogroup nice 19")
            mode = "idle"
        self.cgroup = cgroup
        nice = 19 if mode == "idle" else env_int("LOAD_PLAY_NICE", 10)
        low = ["chrt", "--idle", "0"] if mode == "idle" else ["nice", "-n", str(nice)]
        asleep = os.environ.get("LOAD_PLAY_THINK") == "sleep"
        self.log(
            f"[play] play worker: {'cgroup ' + str(cgroup) if cgroup else mode}"
            + (" (its computer sleeps instead of searching)" if asleep else "")
        )
        self._start(
            "play worker",
            [*([] if cgroup else low), PY, "-m", "celery", "-A",
             "tools.play_asleep" if asleep else "dama_learn", "worker", "-Q", "exam,play",
             "--concurrency",
             str(env_int("LOAD_PLAY_CONCURRENCY", os.cpu_count() or 1)),
             "--loglevel", "WARNING", "-n", f"load-play-{self.port}@localhost"],
            nice=0 if cgroup else nice,
            cgroup=cgroup,
            # each search process on a core of its own (dama_learn.celery.pin_to_core)
            env={"DAMA_WORKER_PIN_CORES": "0" if os.environ.get("LOAD_PLAY_PIN") == "0" else "1"},
        )  # fmt: skip

    def _postgres(self) -> None:
        import psycopg

        base = os.environ.get(
            "DAMA_LOAD_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres"
        )
        name = f"dama_load_{os.getpid()}_{secrets.token_hex(3)}"
        with psycopg.connect(base, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        self.database = (base, name)
        self.env["DATABASE_URL"] = base.rsplit("/", 1)[0] + "/" + name

    def _analyze(self) -> None:
        """Give the planner its statistics after the bulk load, as a production server does.

        A production PostgreSQL runs autovacuum, which analyzes a table within a minute of a
        bulk load. A server started with ``autovacuum = off`` (as this machine's and CI's are)
        never does: every query of the run would then be planned on default estimates. So the
        harness runs PostgreSQL's own maintenance tool, ``vacuumdb --analyze-only``, as a
        deployment does after loading data (skipped, and said so, where it is not installed)."""
        base, name = self.database
        url = base.rsplit("/", 1)[0] + "/" + name
        if shutil.which("vacuumdb") is None:
            self.log(f"[{self.backend}] vacuumdb not installed: the planner has no statistics")
            return
        self._run(["vacuumdb", "--analyze-only", "--quiet", f"--dbname={url}"])
        self.log(f"[{self.backend}] analyzed after the seed (vacuumdb --analyze-only)")

    def _wait_healthy(self, seconds: float = 90) -> None:
        deadline = time.monotonic() + seconds
        last = ""
        while time.monotonic() < deadline:
            for name, proc in self.procs:
                if proc.poll() is not None:
                    raise RuntimeError(
                        f"{name} exited: {(self.dir / f'{name}.log').read_text()[-3000:]}"
                    )
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=5) as r:
                    if r.status == 200:
                        return
            except Exception as exc:  # 503 while the worker's first heartbeat is not there
                last = str(exc)
            time.sleep(1)
        raise RuntimeError(f"the site did not become healthy within {seconds} s: {last}")

    def stop(self) -> None:
        for _name, proc in reversed(self.procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for _name, proc in reversed(self.procs):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        if self.cgroup is not None:
            # the worker's forked children may take a moment to leave the group after it exits
            for _ in range(50):
                try:
                    self.cgroup.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)
        if self.database:
            import psycopg

            base, name = self.database
            with psycopg.connect(base, autocommit=True, connect_timeout=5) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def wait_for_quiet(self, seconds: float = 300) -> None:
        """Until no game waits for the computer (a client that left keeps its games' searches
        going: its last ones are answered after it), polled every 2 s."""
        count = [PY, "manage.py", "shell", "-c",
                 "from play.models import Game; print(Game.objects.filter(state='thinking').count())"]  # fmt: skip
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            done = subprocess.run(count, cwd=ROOT, env=self.env, capture_output=True, text=True)
            if done.returncode == 0 and done.stdout.split()[-1:] == ["0"]:
                return
            time.sleep(2)
        self.log(f"[{self.backend}] games still waiting for the computer after {seconds} s")

    def server_errors(self) -> list[str]:
        text = (self.dir / "gunicorn.log").read_text(errors="replace")
        return [
            line
            for line in text.splitlines()
            if "Traceback" in line or "Error handling request" in line
        ]


def run_locust(
    stack: Stack,
    users: int,
    seconds: int,
    classes: list[str] | None = None,
    env: dict[str, str] | None = None,
    name: str = "results",
) -> tuple[dict, dict[str, float]]:
    """Locust's results, and the CPU seconds by role while it ran (:class:`CpuMeter`, and
    ``load generator``: locust's own). ``classes``: the simulated users (else the mix's),
    ``env``: added to locust's environment, ``name``: of its results file."""
    results = stack.dir / f"{name}.json"
    env = {
        **stack.env,
        **(env or {}),
        "LOAD_PLAN": str(stack.dir / "plan.json"),
        "LOAD_RESULTS": str(results),
    }
    args = [
        PY, "-m", "locust", "-f", str(HERE / "locustfile.py"), "--headless",
        "-u", str(users), "-r", os.environ.get("LOAD_SPAWN_RATE") or str(max(1, users // 5)),
        "-t", f"{seconds}s",
        "--host", stack.url, "--only-summary", "--stop-timeout", "10", "--loglevel", "WARNING",
    ]  # fmt: skip
    # LOAD_MIX=pages: only puzzle pages, without pauses (the pages a second the cores answer);
    # otherwise the class's mixed traffic
    if classes is not None:
        args += classes
    else:
        args += ["PageReader"] if os.environ.get("LOAD_MIX") == "pages" else [
            "Student", "Visitor", "Teacher"
        ]  # fmt: skip
    if arrivals():
        # ... and a class arriving for a lesson, logging in within seconds
        env["LOAD_ARRIVALS"] = str(arrivals())
        args[args.index("-u") + 1] = str(users + arrivals())
        args.append("Arrival")
    if os.environ.get("LOAD_MIX") == "runs":
        # ... and besides them LOAD_RUNNERS (20) students playing puzzle storms
        runners = env_int("LOAD_RUNNERS", 20)
        env["LOAD_RUNNERS"] = str(runners)
        args[args.index("-u") + 1] = str(users + runners)
        args.append("Runner")
    if os.environ.get("LOAD_MIX") == "play":
        # ... and besides them LOAD_PLAYERS (30) students playing the computer at level 8
        players = env_int("LOAD_PLAYERS", 30)
        env["LOAD_PLAYERS"] = str(players)
        args[args.index("-u") + 1] = str(users + players)
        args.append("Player")
    # the load generator shares the cores with the server it measures (in production the
    # clients are elsewhere): it runs at a lower priority (LOAD_CLIENT_NICE, 10; 0 turns it off),
    # so that it takes the CPU the server leaves rather than preempting a request mid-way
    # (a session of its own whose autogroup has that priority: see group_nice)
    nice = env_int("LOAD_CLIENT_NICE", 10)

    def lower() -> None:
        os.nice(nice)
        group_nice(os.getpid(), nice)

    meter = CpuMeter(stack)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    meter.start()
    with open(stack.dir / f"locust-{name}.log", "w") as out:
        subprocess.run(
            args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, timeout=seconds + 120,
            start_new_session=True, preexec_fn=lower if nice else None,
        )  # fmt: skip
    cpu = meter.stop()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu["load generator"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(results.read_text()), cpu


SERVER_ROLES = ("web", "database", "redis", "worker")


def cpu_summary(cpu: dict[str, float], requests: int) -> dict:
    """The run's CPU by role (seconds), the server's CPU a request (ms) and the requests a second
    the server's own CPU would answer on this machine's cores with the load generator elsewhere
    (``capacity_rps``: an upper bound, as if nothing but CPU limited the server)."""
    server = sum(cpu.get(role, 0.0) for role in SERVER_ROLES)
    per_request = 1000 * server / requests if requests else 0.0
    cores = os.cpu_count() or 1
    return {
        "seconds": {k: round(v, 2) for k, v in cpu.items()},
        "server_ms_per_request": per_request,
        "role_ms_per_request": {
            role: 1000 * cpu.get(role, 0.0) / requests if requests else 0.0
            for role in (*SERVER_ROLES, "load generator")
        },
        "cores": cores,
        "capacity_rps": 1000 * cores / per_request if per_request else 0.0,
    }


def summarize(
    backend: str, raw: dict, seconds: int, server_errors: list[str], cpu: dict[str, float]
) -> dict:
    rows = []
    total = 0
    errors = sum(len(v) for v in raw["errors"].values())
    # the ramp-up: users arrive (LOAD_SPAWN_RATE a second) and log in (a password hash each:
    # Argon2id about 20 ms of a core, PBKDF2 0.3 s); "steady" counts what the server answered
    # after the last log-in
    stamps = [a for t in raw["timings"].values() for a in t.get("at", [])]
    start = min(stamps, default=0.0)
    ramp_end = max(raw["timings"].get("login", {}).get("at", []), default=start)
    for name, t in sorted(raw["timings"].items()):
        client, server = t["client"], t["server"]
        steady = [s for s, a in zip(server, t.get("at", []), strict=False) if a > ramp_end]
        total += len(client)
        rows.append(
            {
                "endpoint": name,
                "requests": len(client),
                "rps": len(client) / seconds,
                "client": [percentile(client, q) for q in (50, 95, 99)],
                "server": [percentile(server, q) for q in (50, 95, 99)],
                "steady": [percentile(steady, q) for q in (50, 95, 99)],
                "errors": len(raw["errors"].get(name, [])),
            }
        )
    return {
        "lesson_start": lesson_start(raw, start, ramp_end),
        "ramp_seconds": ramp_end - start,
        "backend": backend,
        "seconds": seconds,
        "requests": total,
        "rps": total / seconds,
        "errors": errors,
        "error_samples": {k: v[:3] for k, v in raw["errors"].items()},
        "server_errors": server_errors[:10],
        "rows": rows,
        "cpu": cpu_summary(cpu, total),
    }


def lesson_start(raw: dict, start: float, ramp_end: float) -> dict | None:
    """LOAD_MIX=lessonstart: the arrivals' log-ins (client and server p50/p95/max, ms), and the
    client p50/p95/p99 of the others' requests (every request but the arrivals' and the log-ins)
    that started while the arrivals logged in (from the first log-in's start to the last one's
    answer), and of those that started in the calm before (after the others' own log-ins). None
    without arrivals."""
    logins = raw["timings"].get("arrival login")
    if not logins or not logins.get("started"):
        return None
    begin = min(logins["started"])
    end = max(s + c / 1000 for s, c in zip(logins["started"], logins["client"], strict=True))
    during: list[float] = []
    before: list[float] = []
    for name, t in raw["timings"].items():
        if name.startswith("arrival") or name in ("login", "login page"):
            continue
        for client, started in zip(t["client"], t.get("started", []), strict=False):
            if begin <= started <= end:
                during.append(client)
            elif ramp_end < started < begin:
                before.append(client)

    def figures(values: list[float], qs=(50, 95, 99)) -> list[float]:
        return [percentile(values, q) for q in qs]

    return {
        "arrivals": len(logins["client"]),
        "from": begin - start,
        "to": end - start,
        "login_client": [*figures(logins["client"], (50, 95)), max(logins["client"])],
        "login_server": [*figures(logins["server"], (50, 95)), max(logins["server"], default=0)],
        "others_during": figures(during),
        "others_during_requests": len(during),
        "others_before": figures(before),
        "others_before_requests": len(before),
    }


def markdown(summary: dict, users: int) -> str:
    lines = [
        f"### {summary['backend']}: {users} users, {summary['seconds']} s",
        "",
        f"{summary['requests']} requests, {summary['rps']:.1f} requests/s, "
        f"{summary['errors']} errors, {len(summary['server_errors'])} server error log lines; "
        f"ramp-up (users arriving and logging in) {summary['ramp_seconds']:.0f} s",
        "",
        "| endpoint | requests | req/s | client p50/p95/p99 ms | server p50/p95/p99 ms "
        "| server after ramp-up p50/p95/p99 ms | errors |",
        "| --- | ---: | ---: | --- | --- | --- | ---: |",
    ]
    for row in summary["rows"]:
        c = "/".join(f"{v:.0f}" for v in row["client"])
        s = "/".join(f"{v:.1f}" for v in row["server"])
        st = "/".join(f"{v:.1f}" for v in row["steady"]) if any(row["steady"]) else "-"
        lines.append(
            f"| {row['endpoint']} | {row['requests']} | {row['rps']:.2f} | {c} | {s} | {st} "
            f"| {row['errors']} |"
        )
    cpu = summary["cpu"]
    seconds = cpu["seconds"]
    busy, idle = seconds.get("machine busy", 0.0), seconds.get("machine idle", 0.0)
    each = cpu["role_ms_per_request"]
    lines += [
        "",
        "CPU while locust ran, seconds: "
        + ", ".join(
            f"{role} {seconds[role]:.1f}"
            for role in (*SERVER_ROLES, "play worker", "load generator")
            if role in seconds
        )
        + f"; the machine busy {busy:.1f}, idle {idle:.1f} "
        f"({100 * busy / (busy + idle) if busy + idle else 0:.0f} % busy).",
        f"The server's CPU a request: {cpu['server_ms_per_request']:.2f} ms ("
        + ", ".join(f"{role} {each[role]:.2f}" for role in SERVER_ROLES if role in seconds)
        + f"); the load generator's {each['load generator']:.2f} ms. With the load generator "
        f"elsewhere, the server's {cpu['cores']} cores would answer at most about "
        f"{cpu['capacity_rps']:.0f} requests/s of this mix.",
    ]
    start = summary.get("lesson_start")
    if start:

        def ms(values: list[float]) -> str:
            return "/".join(f"{v:.0f}" for v in values)

        lines += [
            "",
            f"Lesson start: {start['arrivals']} log-ins from {start['from']:.1f} s to "
            f"{start['to']:.1f} s into the run; their client p50/p95/max "
            f"{ms(start['login_client'])} ms, server p50/p95/max {ms(start['login_server'])} ms. "
            f"The others' requests meanwhile ({start['others_during_requests']}): client "
            f"p50/p95/p99 **{ms(start['others_during'])} ms**; in the calm before, after their own "
            f"log-ins ({start['others_before_requests']}): {ms(start['others_before'])} ms.",
        ]
    if summary["errors"]:
        lines += ["", "Errors: " + json.dumps(summary["error_samples"])]
    return "\n".join(lines) + "\n"


def fair_play(stack: Stack, seconds: int) -> tuple[list[tuple[str, dict]], str]:
    """LOAD_MIX=fairplay: another player's level-5 replies (``Rival``, tests/load/locustfile.py)
    for ``seconds`` alone, then for ``seconds`` beside one client holding LOAD_HOG_GAMES (12)
    games at level 8 (``Hog``), LOAD_FAIR_ROUNDS (1) times in turn: on a machine shared with
    other work, rounds in turn meet its ups and downs alike, and the replies of all rounds are
    pooled. After each hog the computer answers the games it left (``wait_for_quiet``) before
    the next quiet phase. Returns the phases' summaries and a line comparing the replies."""
    pooled: dict[str, dict[str, list[float]]] = {"quiet": {}, "hog": {}}
    summaries = []
    rounds = env_int("LOAD_FAIR_ROUNDS", 1)
    for n in range(1, rounds + 1):
        for phase, classes in (("quiet", ["Rival"]), ("hog", ["Hog", "Rival"])):
            env = {"LOAD_RIVALS": "1", "LOAD_HOGS": "1" if "Hog" in classes else "0"}
            label = f"{phase} {n}" if rounds > 1 else phase
            print(f"[{stack.backend}] {label}: {', '.join(classes)} for {seconds} s", flush=True)
            raw, cpu = run_locust(stack, len(classes), seconds, classes, env, name=f"{phase}-{n}")
            summaries.append((label, summarize(f"{stack.backend}, {label}", raw, seconds, [], cpu)))
            for name, t in raw["timings"].items():
                pooled[phase].setdefault(name, []).extend(t["client"])
            if phase == "hog":
                stack.wait_for_quiet()

    def figures(phase: str, name: str) -> str:
        times = pooled[phase].get(name, [])
        p50, p95, p99 = (percentile(times, q) for q in (50, 95, 99))
        return f"{p50:.0f}/{p95:.0f}/{p99:.0f} ms ({len(times)} replies)"

    quiet95 = percentile(pooled["quiet"].get("level-5 reply", []), 95)
    hog95 = percentile(pooled["hog"].get("level-5 reply", []), 95)
    line = (
        f"level-5 reply p50/p95/p99 ({rounds} round{'s' if rounds > 1 else ''} of {seconds} s "
        f"each): quiet {figures('quiet', 'level-5 reply')}, beside the hog "
        f"{figures('hog', 'level-5 reply')}: p95 {hog95 / quiet95 if quiet95 else 0:.2f}x the "
        f"quiet one; the hog's own replies {figures('hog', 'hog reply')}"
    )
    return summaries, line


def main() -> int:
    seconds = env_int("LOAD_SECONDS", 300)
    if os.environ.get("LOAD_MIX") == "fairplay":
        # two players: a student's account to log in, and no puzzle corpus to load
        os.environ.setdefault("LOAD_USERS", "2")
        os.environ.setdefault("LOAD_CORPUS", "0")
    users = env_int("LOAD_USERS", 50)
    backends = [
        b.strip()
        for b in os.environ.get("LOAD_BACKENDS", "postgres,sqlite").split(",")
        if b.strip()
    ]
    report_path = Path(os.environ.get("LOAD_REPORT", ROOT / "var" / "load-report.md"))
    keep = os.environ.get("LOAD_KEEP_DIR") == "1"
    summaries = []
    fair_lines: list[str] = []
    times: dict[str, dict[str, list[float]]] = {}
    for backend in backends:
        workdir = Path(tempfile.mkdtemp(prefix=f"dama-load-{backend}-"))
        stack = Stack(backend, workdir, users + arrivals())
        try:
            stack.start()
            if os.environ.get("LOAD_MIX") == "fairplay":
                fair, line = fair_play(stack, seconds)
            else:
                print(f"[{backend}] {users} users for {seconds} s against {stack.url}", flush=True)
                raw, cpu = run_locust(stack, users, seconds)
        finally:
            stack.stop()
        if os.environ.get("LOAD_MIX") == "fairplay":
            errors = stack.server_errors()
            for _phase, summary in fair:
                summary["server_errors"] = errors
                summaries.append(summary)
                print(markdown(summary, 2), flush=True)
            print(line, flush=True)
            fair_lines.append(f"{backend}: {line}")
            if not keep:
                shutil.rmtree(workdir, ignore_errors=True)
            continue
        summary = summarize(backend, raw, seconds, stack.server_errors(), cpu)
        summaries.append(summary)
        times[backend] = {name: t["server"] for name, t in sorted(raw["timings"].items())}
        print(markdown(summary, users), flush=True)
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print(f"[{backend}] logs in {workdir}")
    report_path.parent.mkdir(parents=True, exist_ok=True)
    report_path.write_text(
        "".join(markdown(s, users) + "\n" for s in summaries)
        + "".join(f"{x}\n" for x in fair_lines)
    )
    report_path.with_suffix(".json").write_text(json.dumps(summaries, indent=1))
    # every request's server time, by backend and endpoint: runs pooled give steadier tails
    # than the mean of their p99s (a 120 s run's p99 rests on a dozen requests)
    report_path.with_suffix(".times.json").write_text(json.dumps(times))
    bad = [s["backend"] for s in summaries if s["errors"] or s["server_errors"]]
    if bad:
        print(f"errors on: {', '.join(bad)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
