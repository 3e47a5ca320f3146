"""Whole numbers read from outside (a request's parameters, session data, a file's tags), bounded
before they are converted.

``text.isdecimal() and int(text)`` is not a safe reader: Python refuses ``int()`` of more than
4,300 digits (``ValueError``, a 500 for a 4,400-digit ``?v=``), ``isdigit()`` passes ``'²'``,
which ``int()`` refuses, and ``int()`` reads digits of any script (``'١٢'`` is 12) and
underscores (``'1_0'`` is 10). :func:`read_int` takes ASCII digits only, at most
:data:`MAX_DIGITS` of them, with a minus sign only where ``minimum`` is negative, and answers
``None`` for anything else or a number out of ``[minimum, maximum]``: the caller says what is
wrong in words (a 400 or a form error). An ``int`` (JSON, session data) is taken as it is, when
in range; a ``bool`` or a ``float`` is not.

    >>> read_int("12", 1, 99), read_int(" 7 ", 1, 99), read_int(7, 1, 99)
    (12, 7, 7)
    >>> [read_int(t, 1, 99) for t in ("١٢", "²", "1_0", "1e3", "+3", "", "0", "100", "9" * 5000)]
    [None, None, None, None, None, None, None, None, None]
    >>> read_int("-3", -5, 5), read_int("-3", 0, 5), read_int(True, 0, 5)
    (-3, None, None)

The engine reads its own files (FEN, PDN) with its own reader, ``dama.notation.read_number``:
``dama`` never imports the web.
"""

from __future__ import annotations

import re

#: the most digits read: 19 hold any 64-bit number (a database id); more is not a number we use
MAX_DIGITS = 19
#: the largest database id (a 64-bit signed integer)
MAX_ID = 2**63 - 1

_NUMBER = re.compile(rf"-?[0-9]{{1,{MAX_DIGITS}}}", re.ASCII)


def read_int(value: object, minimum: int, maximum: int) -> int | None:
    """``value`` as a whole number from ``minimum`` to ``maximum``, or None (see the module)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        text = value.strip(" \t\r\n")
        if not _NUMBER.fullmatch(text):
            return None
        number = int(text)
    else:
        return None
    return number if minimum <= number <= maximum else None


def read_id(value: object) -> int | None:
    """A database id (1 to :data:`MAX_ID`), or None.

    >>> read_id("42"), read_id("0"), read_id(str(2**63))
    (42, None, None)
    """
    return read_int(value, 1, MAX_ID)
