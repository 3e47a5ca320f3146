"""Games between players under load (issue 48): N games (100 by default) on loopback, each
player a real WebSocket client of a real ASGI server (uvicorn serving dama_learn.asgi), playing
random legal moves over the game's socket.

    .venv/bin/python tests/load/versus_load.py                     # 100 games, 60 s
    .venv/bin/python tests/load/versus_load.py --games 5 --seconds 5 --servers 2 --json out.json

What it measures:

* **A move's relay**: from a player's page sending its move on the socket to the opponent's
  socket receiving the new state with that move in it (``versus.push``): p50, p95, p99 and the
  slowest over every move (the goal: p95 under 150 ms, p99 under 300 ms on 2 cores).
* **The mover's answer**: from sending the move to the mover's socket receiving the reply.
* **Lost and doubled moves** (both must be 0): a move answered ``moved`` that the opponent never
  received, a ply received twice, a game whose stored moves are not the ones answered. A share of
  the moves (``--resend``) is sent a second time, as a page that reconnects does: the second
  frame must be answered ``conflict`` and not played.

Each player thinks ``--think-ms`` (500 to 1500 ms by default, uniformly) before moving, then
plays a random legal move: the first move from the start position's moves (computed here with
``dama``), the others from the ``legal`` routes the server pushes with the opponent's move. A
game that ends is followed by the pair's next game (each pair has ``--per-pair`` games).

The script sets up a fresh SQLite database in a temporary folder (or uses DATABASE_URL), the
players and the games, logs everyone in (session cookies), starts ``--servers`` uvicorn
processes on free ports (the two players of a game on different ones when there are two: the
channel layer must then be Redis, database 11 unless DAMA_CHANNELS_REDIS_URL says otherwise)
and drives them. ``run_games`` is the measuring part, used by the smoke test against a server in
the test process (tests/load/test_versus_load.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.load.live_load import percentile  # noqa: E402
from tests.load.servers import free_port, script_env, serve_in_process  # noqa: E402

#: uvicorn under pyinstrument (its main thread: the event loop, the sockets, the channel layer);
#: the report is written when the server stops (uvicorn raises the signal that stopped it again
#: once stopped: a handler of ours takes it, so that the report gets written)
PROFILED = """
import signal, sys
import uvicorn
from pyinstrument import Profiler
signal.signal(signal.SIGTERM, lambda *args: None)
config = uvicorn.Config("dama_learn.asgi:application", host="127.0.0.1", port=int(sys.argv[1]),
                        ws="websockets-sansio", lifespan="off", log_level="warning")
profiler = Profiler(interval=0.002)
profiler.start()
try:
    uvicorn.Server(config).run()
finally:
    profiler.stop()
    with open(sys.argv[2], "w") as out:
        out.write(profiler.output_text(unicode=False, color=False))
"""


def serve(env: dict[str, str], profile: str = ""):
    """uvicorn serving the site as a separate process (under pyinstrument when ``profile``
    names the report's file): a context that yields (base URL, process)."""
    port = free_port()
    command = [sys.executable, "-c", PROFILED, str(port), profile] if profile else None
    return serve_in_process(env, command, port=port, stop_seconds=30)


def cpu_seconds(pid: int) -> float:
    """The user and system CPU seconds process ``pid`` has used (Linux's /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Pair:
    """Two players (name, session cookie) and the tokens of their games, in order."""

    white: tuple[str, str]
    black: tuple[str, str]
    tokens: list[str]


@dataclass
class Figures:
    sent: dict[tuple[str, int], float] = field(default_factory=dict)
    acked: dict[tuple[str, int], float] = field(default_factory=dict)
    received: dict[tuple[str, int], list[float]] = field(default_factory=lambda: defaultdict(list))
    answered: set[tuple[str, int]] = field(default_factory=set)
    resent: int = 0
    resend_conflicts: int = 0
    resend_played: int = 0
    refused: list[str] = field(default_factory=list)
    games_finished: int = 0
    connect_failures: list[str] = field(default_factory=list)


class Player:
    """One player's page in one game: follows the socket, moves in turn after thinking."""

    def __init__(self, *, token, side, cookie, base, first, figures, rng, think, resend, stop):
        self.token, self.side, self.cookie, self.base = token, side, cookie, base
        self.first, self.figures, self.rng = first, figures, rng
        self.think, self.resend, self.stop = think, resend, stop
        self.version = 0
        self.ws = None
        self.over = asyncio.Event()
        #: Black follows the game (its first message came): White may make the first move
        self.black_ready = asyncio.Event()
        self.tasks: set[asyncio.Task] = set()

    async def run(self) -> None:
        from websockets.asyncio.client import connect

        url = self.base.replace("http://", "ws://") + f"/ws/versus/{self.token}/"
        try:
            ws = await connect(url, origin=self.base, open_timeout=30,
                               additional_headers={"Cookie": self.cookie})  # fmt: skip
        except Exception as exc:
            self.figures.connect_failures.append(f"{self.token} {self.side}: {exc!r}")
            self.over.set()
            return
        self.ws = ws
        try:
            async for raw in ws:
                self.on_message(json.loads(raw))
                if self.over.is_set():
                    break
        except Exception:  # closed under us: the pair's game is left
            pass
        finally:
            self.over.set()
            for task in self.tasks:
                task.cancel()
            await ws.close()

    def later(self, routes: list, plies: int, version: int) -> None:
        task = asyncio.create_task(self.move(routes, plies, version))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def on_message(self, message: dict) -> None:
        now = time.monotonic()
        if message.get("type") == "state":
            version = message.get("version", 0)
            self.version = max(self.version, version)
            move = message.get("move")
            if "plies" not in message:  # the first message: the game's version alone
                if self.side == "b":
                    self.black_ready.set()
                elif version == self.version and not self.tasks:
                    self.later(self.first, 0, version)
                return
            if move and move["by"] != self.side:
                self.figures.received[(self.token, message["plies"])].append(now)
                if message["state"] == "playing" and move.get("legal"):
                    self.later(move["legal"], message["plies"], version)
            if message["state"] == "over":
                if self.side == "w":
                    self.figures.games_finished += 1
                self.over.set()
        elif message.get("type") == "reply":
            if message.get("id", "").startswith("again"):
                if message["kind"] == "conflict":
                    self.figures.resend_conflicts += 1
                else:
                    self.figures.resend_played += 1
                return
            ply = int(message["id"].split(":")[1])
            key = (self.token, ply)
            self.figures.answered.add(key)
            if message["kind"] == "moved":
                self.figures.acked[key] = now
            else:
                self.figures.refused.append(f"{key}: {message['kind']} {message['message']}")

    async def move(self, routes: list, plies: int, version: int) -> None:
        await asyncio.sleep(self.rng.uniform(*self.think))
        if plies == 0:
            await self.black_ready.wait()
        if time.monotonic() >= self.stop or self.ws is None:
            return
        route = self.rng.choice(routes)
        frame = {"type": "move", "route": route, "version": version, "id": f"m:{plies + 1}"}
        self.figures.sent[(self.token, plies + 1)] = time.monotonic()
        await self.ws.send(json.dumps(frame))
        if self.rng.random() < self.resend:
            await asyncio.sleep(0.05)
            self.figures.resent += 1
            await self.ws.send(json.dumps({**frame, "id": f"again:{plies + 1}"}))


#: the longest a game's players wait for its last moves' messages once it ended or time is up
SETTLE_SECONDS = 10.0


def settled(figures: Figures, token: str) -> bool:
    """Whether every move sent in game ``token`` was answered, and every move played there
    reached the opponent."""
    sent = [k for k in figures.sent if k[0] == token]
    return all(k in figures.answered for k in sent) and all(
        k in figures.received for k in sent if k in figures.acked
    )


async def play_pair(pair: Pair, base: tuple[str, str], first: list, figures: Figures, *,
                    seed: int, think: tuple[float, float], resend: float, stop: float) -> None:  # fmt: skip
    rng = random.Random(seed)
    for token in pair.tokens:
        if time.monotonic() >= stop:
            return
        players = [
            Player(
                token=token,
                side=side,
                cookie=cookie,
                base=url,
                first=first,
                figures=figures,
                rng=rng,
                think=think,
                resend=resend,
                stop=stop,
            )  # fmt: skip
            for side, (_name, cookie), url in (
                ("w", pair.white, base[0]),
                ("b", pair.black, base[1]),
            )
        ]
        # White's first move waits until Black follows the game
        players[0].black_ready = players[1].black_ready
        tasks = [asyncio.create_task(p.run()) for p in players]
        await asyncio.wait([asyncio.create_task(p.over.wait()) for p in players],
                           timeout=max(0.1, stop - time.monotonic() + 3),
                           return_when=asyncio.FIRST_COMPLETED)  # fmt: skip
        # the last moves' messages arrive: every move sent is answered, and every move played
        # reached the opponent (or SETTLE_SECONDS pass: what did not is lost)
        deadline = time.monotonic() + SETTLE_SECONDS
        while time.monotonic() < deadline and not settled(figures, token):
            await asyncio.sleep(0.05)
        for p in players:
            p.over.set()
            if p.ws is not None:
                with contextlib.suppress(Exception):
                    await p.ws.close()
        await asyncio.gather(*tasks, return_exceptions=True)


async def run_games(bases: list[str], pairs: list[Pair], first: list, *, seconds: float,
                    think: tuple[float, float] = (0.5, 1.5), resend: float = 0.02,
                    seed: int = 48) -> dict:  # fmt: skip
    """Play the ``pairs``' games for ``seconds`` against the servers at ``bases`` (a game's
    White on the first, its Black on the last). Returns the figures."""
    import resource

    figures = Figures()
    started = time.monotonic()
    cpu_before = resource.getrusage(resource.RUSAGE_SELF)
    stop = started + seconds
    base = (bases[0], bases[-1])
    await asyncio.gather(
        *(
            play_pair(
                pair, base, first, figures, seed=seed + n, think=think, resend=resend, stop=stop
            )  # fmt: skip
            for n, pair in enumerate(pairs)
        )
    )
    relay = []
    lost = []
    doubled = 0
    for key in figures.acked:
        got = figures.received.get(key, [])
        if not got:
            lost.append(key)
            continue
        doubled += len(got) - 1
        relay.append(got[0] - figures.sent[key])
    unasked = [key for key in figures.received if key not in figures.acked]
    # the moves received by the opponent, by the side that played them (White plays the odd plies)
    relayed = {"w": 0, "b": 0}
    for _token, ply in figures.received:
        relayed["w" if ply % 2 else "b"] += 1
    answers = [figures.acked[k] - figures.sent[k] for k in figures.acked]

    def ms(values: list[float], p: float) -> float:
        return round(percentile(values, p) * 1000, 1)

    elapsed = time.monotonic() - started
    cpu_after = resource.getrusage(resource.RUSAGE_SELF)
    clients_cpu = (cpu_after.ru_utime + cpu_after.ru_stime) - (
        cpu_before.ru_utime + cpu_before.ru_stime
    )
    return {
        "games": sum(len(p.tokens) for p in pairs),
        "pairs": len(pairs),
        "clients": 2 * len(pairs),
        "seconds": round(elapsed, 1),
        "moves": len(figures.acked),
        "moves_per_second": round(len(figures.acked) / elapsed, 1),
        "relay_p50_ms": ms(relay, 50),
        "relay_p95_ms": ms(relay, 95),
        "relay_p99_ms": ms(relay, 99),
        "relay_max_ms": round(max(relay) * 1000, 1) if relay else None,
        "relay_mean_ms": round(statistics.fmean(relay) * 1000, 1) if relay else None,
        "answer_p50_ms": ms(answers, 50),
        "answer_p95_ms": ms(answers, 95),
        "lost": len(lost),
        "lost_moves": [f"{t}:{p}" for t, p in lost[:20]],
        "doubled": doubled,
        "received_not_answered": len(unasked),
        "relayed": relayed,
        "resent": figures.resent,
        "resend_conflicts": figures.resend_conflicts,
        "resend_played": figures.resend_played,
        "games_finished": figures.games_finished,
        "clients_cpu_seconds": round(clients_cpu, 1),
        "load_average": [round(x, 1) for x in os.getloadavg()],
        "refused": figures.refused[:20],
        "connect_failures": figures.connect_failures[:20],
        "acked": sorted(f"{t}:{p}" for t, p in figures.acked),
    }


def first_routes(variant: str = "czech") -> list[list[int]]:
    """The routes of the start position's moves."""
    from core.board import start_board

    board = start_board(variant)
    return [list(r) for m in board.generate_legal_moves() for r in m.routes]


def make_pairs(pairs: int, per_pair: int, tag: str = "") -> list[Pair]:
    """``pairs`` pairs of players, each with ``per_pair`` casual 10+5 games (White the first of
    the pair), accepted; everyone logged in."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from versus.models import VersusGame

    User = get_user_model()
    tag = tag or str(os.getpid())

    def cookie(user) -> str:
        client = Client()
        client.force_login(user)
        return f"sessionid={client.cookies['sessionid'].value}"

    out = []
    for n in range(pairs):
        white = User.objects.create_user(f"w{n}-{tag}", password=None)
        black = User.objects.create_user(f"b{n}-{tag}", password=None)
        tokens = []
        for _ in range(per_pair):
            game = VersusGame.challenge(white, variant="czech", colour="white", base_minutes=10,
                                        increment_seconds=5)  # fmt: skip
            game.accept(black)
            tokens.append(game.token)
        out.append(Pair((white.username, cookie(white)), (black.username, cookie(black)), tokens))
    return out


def stored_check(figures: dict) -> dict:
    """The games' stored moves against the moves answered ``moved``: a game whose count
    differs lost or doubled a move."""
    from versus.models import VersusGame

    acked: dict[str, int] = defaultdict(int)
    for key in figures["acked"]:
        token, _ply = key.rsplit(":", 1)
        acked[token] += 1
    stored = dict(VersusGame.objects.filter(token__in=list(acked)).values_list("token", "moves"))
    mismatched = [t for t, n in acked.items() if len(stored.get(t) or []) != n]
    return {"stored_mismatched": len(mismatched), "stored_moves": sum(acked.values())}


def forget(pairs: list[Pair], urls: list[str], prefix: str) -> None:
    """Delete what the run left on Redis: its players' sessions (the session cache) and the keys
    under the run's prefix (the channel layer's, the queued flag tasks)."""
    from importlib import import_module

    import redis
    from django.conf import settings

    store = import_module(settings.SESSION_ENGINE).SessionStore
    for pair in pairs:
        for _name, cookie in (pair.white, pair.black):
            store(session_key=cookie.split("=", 1)[1]).delete()
    for url in {u for u in urls if u}:
        client = redis.Redis.from_url(url)
        for key in client.scan_iter(match=f"{prefix}*", count=1000):
            client.delete(key)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games played at once")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--per-pair", type=int, default=3, help="games ready for each pair")
    parser.add_argument("--servers", type=int, default=1, choices=(1, 2))
    parser.add_argument("--think-ms", type=int, nargs=2, default=(500, 1500))
    parser.add_argument("--resend", type=float, default=0.02)
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument(
        "--profile", help="profile the (first) server with pyinstrument into this file"
    )
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="versus-load-"))
    env = script_env(
        workdir,
        "versus.sqlite3",
        DEBUG="0",
        DJANGO_SECRET_KEY="versus-load-not-secret-" + "x" * 40,
    )
    run = f"versus-load-{os.getpid()}"
    # the run's keys on Redis (the channel layer's, the flag tasks queued by the moves) under
    # prefixes of its own, deleted at the end
    env.setdefault("DAMA_CHANNELS_PREFIX", run)
    env.setdefault("CELERY_REDIS_KEY_PREFIX", run + ":")
    if args.servers > 1 and not env.get("DAMA_CHANNELS_REDIS_URL"):
        parser.error("two servers share their games through Redis: set REDIS_URL")
    os.environ.update(env)
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    pairs = make_pairs(args.games, args.per_pair)
    first = first_routes()
    think = (args.think_ms[0] / 1000, args.think_ms[1] / 1000)
    with contextlib.ExitStack() as stack:
        servers = [
            stack.enter_context(serve(env, args.profile if n == 0 else ""))
            for n in range(args.servers)
        ]
        before = [cpu_seconds(p.pid) for _b, p in servers]
        figures = asyncio.run(
            run_games(
                [b for b, _p in servers],
                pairs,
                first,
                seconds=args.seconds,
                think=think,
                resend=args.resend,
            )  # fmt: skip
        )
        spent = sum(cpu_seconds(p.pid) - b for (_b, p), b in zip(servers, before, strict=True))
    figures["server_cpu_seconds"] = round(spent, 1)
    figures["server_cpu_ms_per_move"] = round(1000 * spent / max(1, figures["moves"]), 2)
    figures.update(stored_check(figures))
    forget(pairs, [env.get("REDIS_URL", ""), env.get("DAMA_CHANNELS_REDIS_URL", "")], run)
    figures["servers"] = args.servers
    figures["channel_layer"] = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    figures["database"] = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    figures["cores"] = os.cpu_count()
    acked = figures.pop("acked")
    print(json.dumps(figures, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps({**figures, "acked": acked}, indent=2))
    ok = (
        figures["lost"] == 0
        and figures["doubled"] == 0
        and figures["resend_played"] == 0
        and figures["stored_mismatched"] == 0
        and not figures["connect_failures"]
        and figures["moves"] > 0
    )
    target = figures["relay_p95_ms"] < 150 and figures["relay_p99_ms"] < 300
    print(
        "OK" if ok else "FAILED: see the figures above", "" if target else "(latency target missed)"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
