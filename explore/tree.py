"""The line on the analysis board: the moves tried from a position, as a tree of variations.

A tree is a list of ``(parent, move)`` pairs: node ``n`` (numbered from 1; 0 is the start
position) is ``move`` played in the position of node ``parent``, which comes before it. A node's
first child is its main line, the others are side lines. It travels in the page's address and
its forms as text (``0:22-18 1:11-15 1:9-13``), so a reload, a link or the back button keep it;
every move in it is checked again by the engine when it is read (:meth:`Tree.parse`).

>>> tree = Tree.parse("czech", "W:W21-32:B1-12", "0:22-18 1:11-15 1:9-13")
>>> tree.main_line(), tree.children(1)
([1, 2], [2, 3])
>>> tree.play(1, text="9-13"), tree.play(3, text="18-14"), tree.encode()
(3, 4, '0:22-18 1:11-15 1:9-13 3:18-14')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core import board as core_board

#: the most moves a tree holds (a longer one is refused: the address would grow without end)
MAX_NODES = 400


def too_long() -> str:
    return ngettext(
        "The line is too long: at most %(n)s move.",
        "The line is too long: at most %(n)s moves.",
        MAX_NODES,
    ) % {"n": MAX_NODES}


@dataclass
class Token:
    """One item of the move list: a move (``node``, its ``number`` text, ``text``), or the
    start (``open``) or end (``close``) of a side line."""

    kind: str
    node: int = 0
    number: str = ""
    text: str = ""
    #: the address of the board at this move (the page fills it in)
    url: str = ""


@dataclass
class Tree:
    variant: str
    fen: str
    moves: list[tuple[int, str]] = field(default_factory=list)
    #: the position after each node (index 0: the start)
    boards: list[Any] = field(default_factory=list)

    @classmethod
    def parse(cls, variant: str, fen: str, text: str = "") -> Tree:
        """The tree ``text`` from ``fen``; a ``ValidationError`` naming the first move that is
        not legal where it is played, or what else is wrong."""
        start = core_board.board_from_fen(fen, variant)
        tree = cls(variant, start.fen(), [], [start])
        items = text.split()
        if len(items) > MAX_NODES:
            raise ValidationError(too_long(), code="tree")
        for item in items:
            parent_text, _sep, move = item.partition(":")
            if not parent_text.isdigit() or int(parent_text) > len(tree.moves) or not move:
                raise ValidationError(_("The line of moves is not readable."), code="tree")
            tree.add(int(parent_text), text=move)
        return tree

    def add(self, parent: int, *, route: str = "", text: str = "") -> int:
        """Play the entered move after node ``parent`` as a new node; its number."""
        if not 0 <= parent < len(self.boards):
            raise ValidationError(_("The line of moves is not readable."), code="tree")
        board = self.boards[parent].copy()
        move = core_board.find_move(board, route=route, text=text)
        notation = board.move_text(move)
        board.push(move)
        self.moves.append((parent, notation))
        self.boards.append(board)
        return len(self.moves)

    def play(self, at: int, *, route: str = "", text: str = "") -> int:
        """The node of the entered move after node ``at``: the one already there, or a new side
        line (the first move after a node is its main line); a ``ValidationError`` with the rule
        when it is not a legal move there."""
        board = self.boards[at]
        move = core_board.find_move(board.copy(), route=route, text=text)
        notation = board.move_text(move)
        for child in self.children(at):
            if self.moves[child - 1][1] == notation:
                return child
        if len(self.moves) >= MAX_NODES:
            raise ValidationError(too_long(), code="tree")
        return self.add(at, text=notation)

    def encode(self) -> str:
        return " ".join(f"{parent}:{move}" for parent, move in self.moves)

    def children(self, node: int) -> list[int]:
        return [n for n, (parent, _m) in enumerate(self.moves, 1) if parent == node]

    def parent(self, node: int) -> int:
        return self.moves[node - 1][0] if node else 0

    def path(self, node: int) -> list[int]:
        """The nodes from the start to ``node``."""
        out = []
        while node:
            out.append(node)
            node = self.parent(node)
        return out[::-1]

    def main_line(self, node: int = 0) -> list[int]:
        out = []
        kids = self.children(node)
        while kids:
            out.append(kids[0])
            kids = self.children(kids[0])
        return out

    def depth(self, node: int) -> int:
        return len(self.path(node))

    def number(self, node: int, first: bool) -> str:
        """The move number written before ``node`` ("3." before White's move; "3..." before
        Black's when it opens a line)."""
        black_first = not core_board.white_to_move(self.fen)
        ply = self.depth(node) - 1 + (1 if black_first else 0)
        if ply % 2 == 0:
            return f"{ply // 2 + 1}."
        return f"{ply // 2 + 1}..." if first else ""

    def tokens(self) -> list[Token]:
        """The move list as PDN writes it: the main line, each side line in parentheses after
        the move it is an alternative to."""
        out: list[Token] = []

        def line(first: int) -> None:
            n: int | None = first
            opens = True
            while n is not None:
                out.append(Token("move", n, self.number(n, opens), self.moves[n - 1][1]))
                opens = False
                siblings = self.children(self.parent(n))
                if siblings[0] == n and len(siblings) > 1:
                    for other in siblings[1:]:
                        out.append(Token("open"))
                        line(other)
                        out.append(Token("close"))
                    opens = True
                kids = self.children(n)
                n = kids[0] if kids else None

        kids = self.children(0)
        if kids:
            line(kids[0])
        return out


def board_url(tree: Tree, at: int, flipped: bool = False) -> str:
    """The address of the board showing node ``at`` of ``tree`` (a link keeps the whole line)."""
    params = {"variant": tree.variant, "fen": tree.fen}
    if tree.moves:
        params["tree"] = tree.encode()
    if at:
        params["at"] = str(at)
    if flipped:
        params["flipped"] = "1"
    return f"{reverse('explore:board')}?{urlencode(params)}"


def with_line(tree: Tree, at: int, moves: list[str]) -> tuple[Tree, int]:
    """A copy of ``tree`` with ``moves`` played from node ``at`` (as far as they are legal: an
    engine's line may stop at a draw by the rules) and the node of the first of them (``at`` when
    none is)."""
    copy = Tree.parse(tree.variant, tree.fen, tree.encode())
    first, node = at, at
    for move in moves:
        try:
            node = copy.play(node, text=move)
        except ValidationError:
            break
        if first == at:
            first = node
    return copy, first
