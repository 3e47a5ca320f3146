"""Errors raised by the engine. All are :class:`ValueError` subclasses with a clear message."""

from __future__ import annotations


class DamaError(ValueError):
    """Base class of every error the engine raises for bad input."""


class InvalidVariantError(DamaError):
    """An unknown variant name."""


class InvalidSquareError(DamaError):
    """A square name or number that does not exist on the board."""


class InvalidFenError(DamaError):
    """A malformed FEN string. The message says what is wrong and where."""


class InvalidPdnError(DamaError):
    """A malformed PDN text. The message names the line."""


class InvalidMoveError(DamaError):
    """Move text that cannot be read as a move at all (syntax)."""


class IllegalMoveError(DamaError):
    """A well-formed move that the rules do not allow in this position.

    ``explanation`` holds the rule it breaks, when the engine can name it.
    """

    def __init__(self, message: str, explanation: object | None = None) -> None:
        super().__init__(message)
        self.explanation = explanation


class AmbiguousMoveError(DamaError):
    """Short move text that matches several distinct moves; ``routes`` lists their full routes."""

    def __init__(self, message: str, routes: list[str]) -> None:
        super().__init__(message)
        self.routes = routes
