"""Endgame databases: won, drawn or lost with best play, and how fast, for every position of few
pieces, one database per variant, built by retrograde analysis (:mod:`dama.egtb`).

A position is covered when the file of its material is built: ``<directory>/<variant>/<name>.egdb``
where the name lists White's kings and men, ``v``, Black's (``KKvK``, ``KMvK``, ``MMvK``), for
White to move; a position with Black to move is read as its colour flip, so ``KvKK`` (White to
move) answers ``KKvK`` with Black to move. Each file is a 32-byte header and one byte per index
(see :mod:`dama.egtb`), memory-mapped read-only. Without the files nothing changes: a probe says
None.

Distances are in plies to the end of the game (the side to move has no piece or no move) with best
play: the winner takes the fastest win, the loser the slowest loss. Draw rules are not part of the
values (a draw is a position neither side can win by play); whether a win fits the variant's draw
counts is :func:`fits_count`.

>>> import tempfile
>>> from dama import Board
>>> d = tempfile.mkdtemp()
>>> t = Tables.open(d)
>>> b = Board("czech", "W:WK29:B4")
>>> t.probe(b) is None
True
>>> t.ensure("czech", b)
['KvK', 'KvM']
>>> t.probe(b), [str(m) for m in t.best_moves(b)][:2]
(Probe(result='win', plies=3), ['29-11', '29-15'])
>>> b = Board("czech", "W:WK1,K32:BK15")
>>> _ = t.ensure("czech", b)
>>> p = t.probe(b); p.result, p.plies > 0
('win', True)
"""

from __future__ import annotations

import json
import mmap
import os
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .egtb import (
    Indexer,
    Lookup,
    Slice,
    build_material,
    material_key,
    material_name,
    parse_material,
)
from .outcome import endgame_limit
from .variants import VARIANT_NAMES, Variant, find_variant

if TYPE_CHECKING:
    from .baseboard import BaseBoard, Move
    from .board import Board

__all__ = [
    "ENV_VAR",
    "Probe",
    "Tables",
    "build",
    "closure",
    "counts",
    "default_tables",
    "fits_count",
    "info",
    "material_name",
    "materials",
    "parse_material",
    "random_position",
    "verify",
]

#: the environment variable naming the directory of the databases
ENV_VAR = "DAMA_ENDGAMES"
MAGIC = b"DAMAEGDB"
VERSION = 1
HEADER = 32
#: the most pieces built by default: 4 on every board, 5 on 8x8
DEFAULT_MAX = {"czech": 5, "brazilian": 5, "international": 4}
#: progress callback: one line of text
Progress = Callable[[str], None]
Material = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Probe:
    """A position's value for the side to move: ``result`` is ``win``, ``draw`` or ``loss``;
    ``plies`` the plies to the end of the game with best play (0 for a draw, and for a side that
    has already lost).

    >>> Probe("win", 5).moves, Probe("loss", 4).moves
    (3, 2)
    """

    result: str
    plies: int

    @property
    def moves(self) -> int:
        """The side to move's own moves until the win or the loss."""
        return (self.plies + 1) // 2

    @classmethod
    def from_byte(cls, v: int) -> Probe:
        if v == 0:
            return cls("draw", 0)
        plies = v - 1
        return cls("win" if plies & 1 else "loss", plies)

    def after(self) -> Probe:
        """The value one ply earlier, for the other side (the mover's view of this position)."""
        if self.result == "draw":
            return self
        return Probe("loss" if self.result == "win" else "win", self.plies + 1)

    def order(self) -> tuple[int, int]:
        """A sort key: best for the side to move first (fast wins, draws, slow losses)."""
        if self.result == "win":
            return (0, self.plies)
        if self.result == "draw":
            return (1, 0)
        return (2, -self.plies)


# -- materials ------------------------------------------------------------------------------------


def materials(max_pieces: int) -> list[Material]:
    """Every material with 2..``max_pieces`` pieces and both sides on the board, in build order
    (pieces, then men; each before its colour flip).

    >>> [material_name(*m) for m in materials(2)]
    ['KvK', 'KvM', 'MvK', 'MvM']
    """
    out = []
    for p in range(2, max_pieces + 1):
        for w in range(1, p):
            b = p - w
            for wm in range(w + 1):
                for bm in range(b + 1):
                    out.append((w - wm, wm, b - bm, bm))
    out.sort(key=lambda m: (sum(m), m[1] + m[3], -m[0] - m[1], -m[0], -m[2]))
    return out


def flip(m: Material) -> Material:
    return (m[2], m[3], m[0], m[1])


def successors(m: Material) -> set[Material]:
    """The materials a move from ``m`` (either side to move) can lead to that are not ``m`` or its
    flip, as White-to-move keys, both sides on the board."""
    out: set[Material] = set()
    for wk, wm, bk, bm in (m, flip(m)):
        for promote in (0, 1) if wm else (0,):
            nwk, nwm = wk + promote, wm - promote
            for lk in range(bk + 1):
                for lm in range(bm + 1):
                    if promote == 0 and lk == lm == 0:
                        continue
                    nbk, nbm = bk - lk, bm - lm
                    if nbk + nbm == 0:
                        continue
                    # after White's move Black is to move: the flip is the key
                    out.add((nbk, nbm, nwk, nwm))
    out.discard(m)
    out.discard(flip(m))
    return out


def closure(m: Material) -> list[Material]:
    """``m`` and everything it depends on, in build order (one of each colour-flip pair)."""
    seen: set[Material] = set()
    todo = [m]
    while todo:
        x = todo.pop()
        if x in seen or flip(x) in seen:
            continue
        seen.add(x)
        todo.extend(successors(x))
    order = {x: i for i, x in enumerate(materials(sum(m)))}
    return sorted(seen, key=lambda x: min(order[x], order[flip(x)]))


def _pairs(max_pieces: int) -> list[Material]:
    out: list[Material] = []
    for m in materials(max_pieces):
        if flip(m) not in out:
            out.append(m)
    return out


def _material_of(board: BaseBoard) -> Material:
    """The material of ``board`` as its White-to-move key (flipped when Black is to move)."""
    wm, wk = board.count(True)
    bm, bk = board.count(False)
    return (wk, wm, bk, bm) if board.turn else (bk, bm, wk, wm)


# -- files ----------------------------------------------------------------------------------------


def _path(directory: Path, variant: Variant, m: Material) -> Path:
    return directory / variant.name / f"{material_name(*m)}.egdb"


def _header(variant: Variant, size: int) -> bytes:
    name = variant.name.encode().ljust(15, b"\0")
    return MAGIC + bytes([VERSION]) + name + size.to_bytes(8, "little")


def _write(directory: Path, variant: Variant, s: Slice, data: bytes) -> Path:
    path = _path(directory, variant, (s.wk, s.wm, s.bk, s.bm))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(_header(variant, s.size))
        f.write(data)
    tmp.replace(path)
    return path


def _read(path: Path, variant: Variant, size: int) -> bytes:
    raw = path.read_bytes()
    if raw[:HEADER] != _header(variant, size) or len(raw) != HEADER + size:
        raise ValueError(f"{path} is not a {variant.name} endgame database of {size} positions")
    return raw[HEADER:]


_INDEXERS: dict[int, Indexer] = {}


def indexer(variant: Variant) -> Indexer:
    ix = _INDEXERS.get(variant.size)
    if ix is None:
        ix = _INDEXERS[variant.size] = Indexer(variant.size)
    return ix


# -- building -------------------------------------------------------------------------------------


def _build_pair(variant_name: str, directory: str, m: Material) -> tuple[Material, float, str]:
    """Build one material and its flip from the files of the materials it reaches (a worker);
    returns the CPU seconds it took and the counts (JSON)."""
    variant = find_variant(variant_name)
    ix = indexer(variant)
    look = Lookup(ix)
    for dep in successors(m):
        s = Slice(ix, *dep)
        look.add(s, _read(_path(Path(directory), variant, dep), variant, s.size))
    t0 = time.process_time()
    built = build_material(variant, look, *m)
    seconds = time.process_time() - t0
    stats = {}
    for s, data in built:
        _write(Path(directory), variant, s, data)
        stats[s.name] = _stats(ix, (s.wk, s.wm, s.bk, s.bm), data)
    return m, seconds, json.dumps(stats)


def _build_star(a: tuple[str, str, Material]) -> tuple[Material, float, str]:
    return _build_pair(*a)


def _stats(ix: Indexer, m: Material, data: bytes) -> dict[str, int]:
    """Positions, won, drawn, lost (for the side to move) and the longest distance in plies."""
    hist = Counter(data)
    won = sum(n for b, n in hist.items() if b and (b - 1) & 1)
    lost = sum(n for b, n in hist.items() if b and not (b - 1) & 1)
    valid = _valid_positions(ix, m)
    return {
        "positions": valid,
        "won": won,
        "drawn": valid - won - lost,
        "lost": lost,
        "longest": max((b - 1 for b in hist if b), default=0),
    }


def _build_list(
    variant: Variant,
    todo: list[Material],
    directory: Path,
    progress: Progress | None,
    processes: int,
) -> dict[str, float]:
    """Build the pairs of ``todo`` (in build order) into ``directory``; CPU seconds per pair."""
    times: dict[str, float] = {}
    stats: dict[str, dict[str, int]] = {}
    total = len(todo)
    done = 0
    # one level (pieces, men) at a time: the pairs of a level never depend on each other
    levels: dict[tuple[int, int], list[Material]] = {}
    for m in todo:
        levels.setdefault((sum(m), m[1] + m[3]), []).append(m)
    pool = None
    if processes > 1 and total > 1:
        import multiprocessing

        pool = multiprocessing.get_context("spawn").Pool(processes)
    try:
        for level in sorted(levels):
            ms = levels[level]
            args = [(variant.name, str(directory), m) for m in ms]
            results: Iterable[tuple[Material, float, str]]
            if pool is not None and len(ms) > 1:
                results = pool.imap_unordered(_build_star, args)
            else:
                results = (_build_pair(*a) for a in args)
            for m, seconds, st in results:
                stats.update(json.loads(st))
                done += 1
                name = material_name(*m)
                if flip(m) != m:
                    name += f" + {material_name(*flip(m))}"
                times[material_name(*m)] = seconds
                if progress is not None:
                    progress(
                        f"{variant.name}: {done}/{total} built {name} in {seconds:.1f} s of CPU"
                    )
            _save_stats(directory, variant, times, stats)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return times


def _save_stats(
    directory: Path, variant: Variant, times: dict[str, float], stats: dict[str, dict[str, int]]
) -> None:
    """Record each material's counts and each pair's build time in ``<variant>/build.json``."""
    path = directory / variant.name / "build.json"
    old = _load_stats(directory, variant)
    old.setdefault("seconds", {}).update({k: round(v, 3) for k, v in times.items()})
    old.setdefault("counts", {}).update(stats)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(old, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def _load_stats(directory: Path, variant: Variant) -> dict[str, Any]:
    try:
        data = json.loads((directory / variant.name / "build.json").read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def build(
    variant: str | Variant,
    max_pieces: int,
    directory: str | os.PathLike[str],
    progress: Progress | None = None,
    processes: int = 1,
    rebuild: bool = False,
) -> dict[str, float]:
    """Build every material of ``variant`` with up to ``max_pieces`` pieces into ``directory``
    (those already there are kept unless ``rebuild``); returns the CPU seconds each pair took
    (by its first material's name)."""
    v = find_variant(variant)
    d = Path(directory)
    todo = [m for m in _pairs(max_pieces) if rebuild or not _built(d, v, m)]
    return _build_list(v, todo, d, progress, processes)


def _built(directory: Path, variant: Variant, m: Material) -> bool:
    return _path(directory, variant, m).is_file() and _path(directory, variant, flip(m)).is_file()


# -- probing --------------------------------------------------------------------------------------


class Tables:
    """The databases in one directory, opened lazily, file by file (memory-mapped)."""

    def __init__(self, directory: str | os.PathLike[str] | None) -> None:
        self.directory = Path(directory) if directory is not None else None
        self._looks: dict[str, Lookup] = {}
        self._maps: list[mmap.mmap] = []

    @classmethod
    def open(cls, directory: str | os.PathLike[str]) -> Tables:
        return cls(directory)

    def __repr__(self) -> str:
        return f"Tables({str(self.directory)!r})"

    def _lookup(self, variant: Variant) -> Lookup:
        look = self._looks.get(variant.name)
        if look is None:
            look = self._looks[variant.name] = Lookup(indexer(variant), HEADER)
        return look

    def lookup(self, variant: str | Variant) -> Lookup | None:
        """Every built material of ``variant`` opened, for the search and the solver (raw
        positions in, stored bytes out: :meth:`dama.egtb.Lookup.value`); None when none is."""
        v = find_variant(variant)
        for name in self.built(v):
            self._load(v, parse_material(name))
        look = self._looks.get(v.name)
        return look if look is not None and look.slices else None

    def _load(self, variant: Variant, m: Material) -> bool:
        look = self._lookup(variant)
        key = material_key(*m)
        if key in look.slices:
            return True
        if self.directory is None:
            return False
        path = _path(self.directory, variant, m)
        s = Slice(look.ix, *m)
        try:
            with open(path, "rb") as f:
                mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # not built (or empty)
            return False
        if mm[:HEADER] != _header(variant, s.size) or len(mm) != HEADER + s.size:
            mm.close()
            raise ValueError(f"{path} is not a {variant.name} endgame database")
        self._maps.append(mm)
        look.add(s, mm)
        return True

    def probe(self, board: BaseBoard) -> Probe | None:
        """The value of ``board`` for the side to move, or None when it is not covered."""
        own = board.white if board.turn else board.black
        if not own:
            return Probe("loss", 0)
        if not (board.black if board.turn else board.white):
            return None  # the other side has no piece: the game ended on the last move
        m = _material_of(board)
        if not self._load(board.variant, m):
            return None
        v = self._lookup(board.variant).value(board.white, board.black, board.kings, board.turn)
        return None if v < 0 else Probe.from_byte(v)

    def covers(self, board: BaseBoard) -> bool:
        """True when :meth:`probe` answers for ``board``."""
        return self.probe(board) is not None

    def after(self, board: BaseBoard, move: Move) -> Probe | None:
        """The value after ``move`` (legal in ``board``), from the mover's point of view."""
        b = board.copy(stack=False)
        b.push(move)
        p = self.probe(b)
        return None if p is None else p.after()

    def rank_moves(self, board: BaseBoard) -> list[tuple[Move, Probe]]:
        """Every legal move with its value for the mover, best first (empty if not covered)."""
        out = []
        for move in board.generate_legal_moves():
            p = self.after(board, move)
            if p is None:
                return []
            out.append((move, p))
        out.sort(key=lambda mp: mp[1].order())
        return out

    def best_moves(self, board: BaseBoard) -> list[Move]:
        """The legal moves keeping the best result (fastest win or slowest loss first); empty
        when the position is not covered."""
        ranked = self.rank_moves(board)
        if not ranked:
            return []
        best = ranked[0][1].result
        return [m for m, p in ranked if p.result == best]

    def ensure(
        self,
        variant: str | Variant,
        board_or_material: BaseBoard | str | Material,
        progress: Progress | None = None,
    ) -> list[str]:
        """Build the material of a position (or named, ``KKvK``) and all it depends on, where
        missing, into this directory; returns the names built (empty: all there already)."""
        if self.directory is None:
            raise ValueError("these tables have no directory to build into")
        v = find_variant(variant)
        if isinstance(board_or_material, str):
            m = parse_material(board_or_material)
        elif isinstance(board_or_material, tuple):
            m = board_or_material
        else:
            m = _material_of(board_or_material)
        todo = [x for x in closure(m) if not _built(self.directory, v, x)]
        if not todo:
            return []
        _build_list(v, todo, self.directory, progress, 1)
        return [material_name(*x) for x in todo]

    def built(self, variant: str | Variant) -> list[str]:
        """The names of the materials built for ``variant``."""
        if self.directory is None:
            return []
        d = self.directory / find_variant(variant).name
        return sorted(p.stem for p in d.glob("*.egdb")) if d.is_dir() else []

    def close(self) -> None:
        for mm in self._maps:
            mm.close()
        self._maps = []
        self._looks = {}


_DEFAULT: dict[str, Tables] = {}


def default_tables() -> Tables:
    """The tables in ``$DAMA_ENDGAMES`` (empty tables when it is unset), opened once per
    directory."""
    d = os.environ.get(ENV_VAR, "").strip()
    t = _DEFAULT.get(d)
    if t is None:
        t = _DEFAULT[d] = Tables(d or None)
    return t


def fits_count(board: BaseBoard, probe: Probe) -> bool | None:
    """Whether the win of ``probe`` (the value of ``board``) comes within the draw counts that
    apply to ``board`` now (the variant's endgame count, and the 15/25-move rule for positions
    with kings only); None when no count applies or the position is not a win.

    The distance counts to the end of the game, so a win that fits is sure to fit; one that
    changes the material on the way (a crowning restarts the count) may also fit when this says
    False (see docs/endgames.md)."""
    if probe.result != "win":
        return None
    limits = []
    eg = endgame_limit(board)
    if eg is not None:
        limits.append(eg[0] - board.endgame_plies)
    q = board.variant.quiet_move_limit
    if q and not (board.white | board.black) & ~board.kings:
        limits.append(q - board.quiet_plies)
    if not limits:
        return None
    return probe.plies <= min(limits)


def counts(directory: str | os.PathLike[str], variant: str | Variant) -> dict[str, dict[str, int]]:
    """Positions, won, drawn and lost (for the side to move, White) and the longest distance of
    each built material of ``variant``, as recorded when it was built."""
    v = find_variant(variant)
    recorded = _load_stats(Path(directory), v).get("counts", {})
    d = Path(directory) / v.name
    names = sorted(p.stem for p in d.glob("*.egdb")) if d.is_dir() else []
    return {n: recorded[n] for n in names if n in recorded}


def info(directory: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """What is built in ``directory``, per variant: materials, the most pieces, positions, bytes
    on disk, won/drawn/lost, the longest win in plies, build seconds, and the counts per
    material."""
    out: dict[str, dict[str, Any]] = {}
    for name in VARIANT_NAMES:
        v = find_variant(name)
        d = Path(directory) / name
        files = sorted(d.glob("*.egdb")) if d.is_dir() else []
        if not files:
            continue
        by = counts(directory, v)
        stats = _load_stats(Path(directory), v)
        row: dict[str, Any] = {
            "materials": len(files),
            "max_pieces": max(sum(parse_material(f.stem)) for f in files),
            "bytes": sum(f.stat().st_size for f in files),
            "seconds": sum(stats.get("seconds", {}).values()),
            "by_material": by,
        }
        for k in ("positions", "won", "drawn", "lost"):
            row[k] = sum(c[k] for c in by.values())
        row["longest"] = max((c["longest"] for c in by.values()), default=0)
        out[name] = row
    return out


def random_position(
    tables: Tables, variant: str | Variant, rng: random.Random, names: list[str] | None = None
) -> Board | None:
    """A random covered position of ``variant`` (a built material at random, then a position of
    it, either side to move), or None when nothing is built."""
    from .board import Board

    v = find_variant(variant)
    names = names if names is not None else tables.built(v)
    if not names:
        return None
    ix = indexer(v)
    while True:
        m = parse_material(rng.choice(names))
        s = Slice(ix, *m)
        wkb, wmb, bkb, bmb = s.decode(rng.randrange(s.size))
        if int(wkb | wmb | bkb | bmb).bit_count() != sum(m):
            continue
        b = Board(v)
        b.white, b.black, b.kings, b.turn = wkb | wmb, bkb | bmb, wkb | bkb, True
        if rng.random() < 0.5:
            b.white, b.black, b.kings = (
                ix.flipped(b.black),
                ix.flipped(b.white),
                ix.flipped(b.kings),
            )
            b.turn = False
        b.clear_stack()
        return b


def verify(
    tables: Tables, variant: str | Variant, positions: int, seed: int = 0
) -> tuple[int, list[str]]:
    """Check ``positions`` random covered positions: each value must be the best over its
    successors (a win one ply more than the fastest lost successor, a loss one more than the
    slowest won one, a draw with a drawn successor and none lost). Returns (checked, errors)."""
    rng = random.Random(seed)
    v = find_variant(variant)
    names = tables.built(v)
    errors: list[str] = []
    checked = 0
    for _ in range(positions if names else 0):
        b = random_position(tables, v, rng, names)
        assert b is not None
        p = tables.probe(b)
        ranked = tables.rank_moves(b)
        moves = b.generate_legal_moves()
        checked += 1
        if p is None or (moves and not ranked):
            errors.append(f"{v.name} {b.fen()}: not covered (a material is missing)")
            continue
        want = ranked[0][1] if ranked else Probe("loss", 0)
        if p != want:
            errors.append(f"{v.name} {b.fen()}: stored {p}, best over the moves {want}")
    return checked, errors


def _valid_positions(ix: Indexer, m: Material) -> int:
    """Positions of a material without two pieces on a square: the men placed one by one (a few
    thousand placements at most), the kings then on the squares left."""
    from itertools import combinations

    from .egtb import _choose

    wk, wm, bk, bm = m
    n, half = int(ix.n), int(ix.half)
    men_places = 0
    for ws in combinations(range(half, n), wm):
        free_black = sum(1 for s in range(n - half) if s not in ws)
        men_places += _choose(free_black, bm)
    free = n - wm - bm
    return men_places * _choose(free, wk) * _choose(free - wk, bk)
