"""A game's move list as the game pages show it (the game against the computer, ``play``, and
the game between players, ``versus``): the moves in numbered pairs, each a link to the position
after it (``?ply=N``), the steps to the start, the move before, the move after and the game as
it stands, and each move's sound.

The pages give the moves as their notation and the address of the game; the positions are
theirs to draw.

>>> url = ply_url("/g/7/", 3)
>>> url(1), url(3)
('/g/7/?ply=1', '/g/7/')
>>> rows = numbered(["22-18", "11-15", "18x11"], True, url, shown=2)
>>> [(row["n"], row["white"]["text"], row["black"] and row["black"]["current"]) for row in rows]
[(1, '22-18', True), (2, '18x11', None)]
>>> steps(url, 0, 3)
{'first': '', 'prev': '', 'next': '/g/7/?ply=1', 'last': '/g/7/'}
>>> ply_label(2, ["22-18", "11-15"], True), ply_label(1, ["11-15"], False)
('1… 11-15', '1… 11-15')
>>> kinds(["22-18", "11-15", "18x11"])
'mmc'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .numbers import read_int

PlyUrl = Callable[[int], str]


def ply_url(page: str, total: int) -> PlyUrl:
    """The address of the position after ``ply`` moves: ``page`` itself for the last one."""

    def url(ply: int) -> str:
        return page if ply >= total else f"{page}?ply={ply}"

    return url


def read_ply(value: str | None, total: int) -> int | None:
    """``?ply=`` read: a number from 0 to ``total`` (the moves one may see), else None.

    >>> read_ply("2", 3), read_ply("4", 3), read_ply("x", 3), read_ply("-1", 3)
    (2, None, None, None)
    """
    return read_int(value, 0, total)


def steps(url: PlyUrl, shown: int, total: int) -> dict[str, str]:
    """The steps from the position after ``shown`` moves: the start, the move before, the move
    after, the game as it stands ("" where there is no such step)."""
    return {
        "first": url(0) if shown > 0 else "",
        "prev": url(shown - 1) if shown > 0 else "",
        "next": url(shown + 1) if shown < total else "",
        "last": url(total) if shown < total else "",
    }


def ply_label(ply: int, texts: list[str], start_white: bool) -> str:
    """Move ``ply`` (from 1) as a move list writes it: ``3. 22-18`` or ``3… 11-15``."""
    index = ply - 1 + (0 if start_white else 1)  # counted from White's first move
    number = index // 2 + 1
    return f"{number}. {texts[ply - 1]}" if index % 2 == 0 else f"{number}… {texts[ply - 1]}"


def kinds(texts: list[str]) -> str:
    """Each move's sound: ``c`` a capture, ``m`` a move (the pages' sound on moves)."""
    return "".join("c" if "x" in text else "m" for text in texts)


def numbered(
    texts: list[str], start_white: bool, url: PlyUrl | None = None, shown: int | None = None
) -> list[dict[str, Any]]:
    """The moves in pairs: [{"n": 1, "white": {"ply": 1, "text": "22-18", "url": ...,
    "current": False, "label": "1. 22-18"}, "black": {...}}, ...]: ``url(ply)`` the address of
    each position (none in a list that only shows them), ``shown`` the position the page shows
    (its move is current). A game that Black began has no White move in its first pair (None)."""
    cells: list[dict[str, Any] | None] = [
        {
            "ply": ply,
            "text": text,
            "url": url(ply) if url else "",
            "current": ply == shown,
            "label": ply_label(ply, texts, start_white),
        }
        for ply, text in enumerate(texts, 1)
    ]
    if not start_white and cells:
        cells.insert(0, None)
    return [
        {
            "n": i // 2 + 1,
            "white": cells[i],
            "black": cells[i + 1] if i + 1 < len(cells) else None,
        }
        for i in range(0, len(cells), 2)
    ]
