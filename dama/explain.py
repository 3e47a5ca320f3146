"""Why a move is illegal. (Placeholder: the full rule explanations are being written.)"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .board import Board


@dataclass(frozen=True, slots=True)
class Explanation:
    code: str
    article: str
    message_en: str
    message_cs: str


def explain_illegal(board: Board, text: str) -> Explanation | None:
    return None
