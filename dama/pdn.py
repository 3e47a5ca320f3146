"""PDN: read and write draughts games and positions.

A PDN file holds one or more *entries*: a tag section (``[Event "..."]``, ``[GameType "20"]``,
``[FEN "W:W31-50:B1-20"]``, ...) followed by move text (numbered moves, ``{comments}``,
``(variations)``, NAGs ``$1`` or ``!``/``?`` annotations) and a result (``2-0``, ``0-2``, ``1-1``,
``0-0``, ``*``; the chess forms ``1-0``, ``0-1``, ``1/2-1/2`` are read and normalised).

``GameType`` decides the variant: 20 international, 26 Brazilian, 29 Czech (only the first field
of forms like ``20,W,10,10,N2,0`` is needed). Without it PDN's default, 20, applies unless the
reader is given ``default_variant``.

>>> game = read_game('''[GameType "29"]
... 1. 22-18 {the usual start} 11-15 (1... 9-13 2. 18-14) 2. 18x11 8x15 *''')
>>> game.variant.name, [node.move_text for node in game.moves]
('czech', ['22-18', '11-15', '18x11', '8x15'])
>>> game.moves[1].variations[0][0].move_text, game.moves[0].comment
('9-13', 'the usual start')
>>> game.end_board().fen()
'W:W21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,9,10,12,15'
>>> read_game(game.pdn()) == game
True

A collection is read entry by entry; a broken entry becomes a :class:`GameError` and reading goes
on with the next one:

>>> items = list(read_games('[FEN "W:W21:B5"]\\n*\\n\\n[FEN "W:W99:B5"]\\n*\\n'))
>>> [type(item).__name__ for item in items]
['Game', 'GameError']
>>> print(items[1])
line 4: bad FEN: square 99 in the white pieces (field 2, '99') is not on the 10x10 board (1-50)
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TypeAlias

from .baseboard import WHITE, Move
from .board import Board
from .errors import DamaError, InvalidPdnError
from .notation import read_number
from .variants import GAMETYPES, INTERNATIONAL, Variant, find_variant

#: the largest PDN text read, in bytes (UTF-8)
MAX_PDN_BYTES = 5_000_000
#: the deepest nesting of variations accepted (a variation inside a variation ... )
MAX_VARIATION_DEPTH = 32
#: the width of written move text
LINE_WIDTH = 80

#: result tokens as written in PDN, and the draughts form each one is read as
RESULTS: dict[str, str] = {
    "2-0": "2-0",
    "0-2": "0-2",
    "1-1": "1-1",
    "0-0": "0-0",
    "*": "*",
    "1-0": "2-0",
    "0-1": "0-2",
    "1/2-1/2": "1-1",
}

#: move suffix annotations and the NAG each one stands for (as in PGN)
ANNOTATIONS: dict[str, int] = {"!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6}
_NAG_SUFFIX = {v: k for k, v in ANNOTATIONS.items()}

#: tags written from a game's fields rather than from ``Game.tags``
_DERIVED_TAGS = ("GameType", "FEN", "SetUp", "Result")


class PdnLineError(InvalidPdnError):
    """An :class:`~dama.InvalidPdnError` that knows the (1-based) line it is about.

    ``code`` names the kind of error and ``params`` its values, so that an application can say it
    in its own language (the message is English); ``explanation`` is the engine's explanation of
    an unplayable move (an :class:`~dama.explain.Explanation`, with ``message(lang)``), if any.

    >>> error = PdnLineError("NAG $1 comes before any move", 3, "nag_before_move", nag="$1")
    >>> (str(error), error.code, error.params)
    ('line 3: NAG $1 comes before any move', 'nag_before_move', {'nag': '$1'})
    """

    def __init__(
        self,
        message: str,
        line: int,
        code: str = "syntax",
        explanation: object | None = None,
        **params: object,
    ) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.reason = message
        self.code = code
        self.params = params
        self.explanation = explanation


@dataclass(eq=True)
class Node:
    """One move of a game tree.

    ``variations`` are alternatives to *this* move (each a list of nodes played from the position
    before it). ``comment`` follows the move; ``starting_comment`` precedes it (used for the first
    move of a variation). ``move`` is the engine's :class:`~dama.Move` once the game is replayed.
    """

    move_text: str
    comment: str = ""
    starting_comment: str = ""
    nags: list[int] = field(default_factory=list)
    variations: list[list[Node]] = field(default_factory=list)
    move: Move | None = field(default=None, compare=False, repr=False)
    #: the line of the PDN text the move was read from (0 when built in code)
    line: int = field(default=0, compare=False, repr=False)


@dataclass(eq=False)
class Game:
    """A game (or a position: a game without moves) with its tags, start position and move tree.

    ``fen`` is None for the variant's start position. ``moves`` is the main line. ``comment``
    precedes the first move. Equality compares the variant, start position, move tree, comments,
    result and the tags other than the ones written from those fields (GameType, FEN, SetUp,
    Result).
    """

    variant: Variant = INTERNATIONAL
    tags: dict[str, str] = field(default_factory=dict)
    fen: str | None = None
    moves: list[Node] = field(default_factory=list)
    comment: str = ""
    result: str = "*"
    #: the 1-based line on which the entry starts in the text it was read from
    line: int = 0
    #: the 1-based number of the entry in the text it was read from
    index: int = 0

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self._compare_key() == other._compare_key()

    __hash__ = None  # type: ignore[assignment]

    def _compare_key(self) -> tuple[object, ...]:
        tags = [(k, v) for k, v in self.tags.items() if k not in _DERIVED_TAGS]
        return (self.variant.name, self.fen, self.moves, self.comment, self.result, tags)

    # -- construction ------------------------------------------------------------------
    @classmethod
    def from_board(
        cls, board: Board, tags: dict[str, str] | None = None, result: str | None = None
    ) -> Game:
        """The game played on ``board`` (its move stack from the position it was set up in).

        >>> b = Board("czech")
        >>> for text in ("22-18", "11-15", "18x11"):
        ...     _ = b.push_text(text)
        >>> Game.from_board(b, {"Event": "Lesson 1"}).pdn().splitlines()[-1]
        '1. 22-18 11-15 2. 18x11 *'
        """
        root = board.copy()
        played: list[Move] = []
        while root.peek() is not None:
            played.append(root.pop())
        played.reverse()
        start = Board(root.variant)
        fen = None if start.key() == root.key() else root.fen()
        nodes = []
        for m in played:
            nodes.append(Node(move_text=root.move_text(m), move=m))
            root.push(m)
        if result is None:
            out = board.outcome()
            result = out.result() if out is not None else "*"
        return cls(
            variant=board.variant, tags=dict(tags or {}), fen=fen, moves=nodes, result=result
        )

    # -- positions ---------------------------------------------------------------------
    def board(self) -> Board:
        """The start position of the game."""
        return Board(self.variant, self.fen)

    def end_board(self) -> Board:
        """The position after the main line (with the main line on its move stack)."""
        b = self.board()
        for node in self.moves:
            b.push(node.move if node.move is not None else b.parse_move(node.move_text))
        return b

    def replay(self) -> None:
        """Check every move (main line and variations) with the engine and fill ``Node.move``.

        Raises :class:`PdnLineError` at the first illegal move.
        """
        board = self.board()
        _replay(board, self.moves, 0, board.turn != WHITE)

    # -- writing -----------------------------------------------------------------------
    def pdn(self, width: int = LINE_WIDTH) -> str:
        """The game as PDN text (see :func:`write_game`)."""
        return write_game(self, width=width)


@dataclass(frozen=True)
class GameError:
    """A PDN entry that could not be read: where it starts, the line at fault and why."""

    #: the 1-based number of the entry in the text
    index: int
    #: the line on which the entry starts
    start_line: int
    #: the line the error is about
    line: int
    message: str
    #: the entry's text, so that it can be shown or corrected
    source: str = field(default="", repr=False)
    #: the kind of error and its values (:class:`PdnLineError`'s ``code`` and ``params``)
    code: str = "syntax"
    params: dict[str, object] = field(default_factory=dict, repr=False, compare=False)
    #: the engine's explanation of an unplayable move, if any
    explanation: object | None = field(default=None, repr=False, compare=False)

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"

    def exception(self) -> PdnLineError:
        return PdnLineError(self.message, self.line, self.code, self.explanation, **self.params)


GameOrError: TypeAlias = Game | GameError


# ---------------------------------------------------------------------------------------
# tokens
# ---------------------------------------------------------------------------------------
_SQ = r"(?:\d{1,2}|[a-jA-J](?:10|[1-9]))"
_TAG_LINE = r'[ \t]*\[[ \t]*[A-Za-z0-9_]+[ \t]+"(?:[^"\\\n]|\\.)*"[ \t]*\]'
_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<tag>\[[ \t]*(?P<tname>[A-Za-z0-9_]+)[ \t]+"(?P<tval>(?:[^"\\\n]|\\.)*)"[ \t]*\])
  | (?P<linecomment>;[^\n]*)
  | (?P<result>(?:2-0|0-2|1-1|0-0|1-0|0-1|1/2-1/2|\*)(?![\w/-]))
  | (?P<move>"""
    + _SQ
    + r"(?:[-xX:×]"
    + _SQ
    + r""")+)(?P<ann>[!?]{1,2})?(?![\w-])
  | (?P<number>\d+[ \t]*\.(?:[ \t]*\.)*)
  | (?P<nag>\$\d{1,3}(?!\d))
  | (?P<open>\()
  | (?P<close>\))
    """,
    re.VERBOSE,
)
_TAG_LINE_IN_COMMENT = re.compile(r"\n(?=" + _TAG_LINE + r"[ \t]*(?:\n|$))")
_ESCAPE_LINE = re.compile(r"%[^\n]*")
_ESCAPED = re.compile(r"\\(.)")
_FIRST_GROUP = operator.methodcaller("group", 1)
_WORD = re.compile(r"[^\s{}()\[\];]+")
_TAG_START = re.compile(r"\[[^\n]*")


@dataclass(slots=True)
class _Tok:
    kind: str
    text: str
    line: int
    value: str = ""
    name: str = ""


def _tokenize(text: str) -> Iterator[_Tok]:
    pos, line, n = 0, 1, len(text)
    while pos < n:
        ch = text[pos]
        if ch == "%" and (pos == 0 or text[pos - 1] == "\n"):
            m = _ESCAPE_LINE.match(text, pos)
            assert m is not None
            pos = m.end()
            continue
        if ch == "{":
            end = text.find("}", pos + 1)
            stop = end if end >= 0 else n
            # a comment that runs into the tag section of a next entry was never closed
            cut = _TAG_LINE_IN_COMMENT.search(text, pos, stop)
            if end < 0 or cut is not None:
                resume = cut.start() if cut is not None else n
                yield _Tok(
                    "error",
                    "{",
                    line,
                    "a comment opened here with { is never closed by }",
                    "unclosed_comment",
                )
                line += text.count("\n", pos, resume)
                pos = resume
                continue
            body = text[pos + 1 : end]
            yield _Tok("comment", text[pos : end + 1], line, " ".join(body.split()))
            line += body.count("\n")
            pos = end + 1
            continue
        m = _TOKEN.match(text, pos)
        if m is None:
            if ch == "[":
                bad = _TAG_START.match(text, pos)
                assert bad is not None
                yield _Tok(
                    "tagerror",
                    bad.group(),
                    line,
                    f'malformed tag {bad.group().strip()!r}: write tags like [Event "Club game"]',
                    "malformed_tag",
                )
                pos = bad.end()
                continue
            w = _WORD.match(text, pos)
            word = w.group() if w is not None else ch
            yield _Tok(
                "error",
                word,
                line,
                f"{word!r} is not a move, move number, comment or result",
                "not_a_move",
            )
            pos += len(word)
            continue
        tok_text = m.group()
        if m.group("tag") is not None:
            yield _Tok("tag", tok_text, line, _unescape(m.group("tval")), m.group("tname"))
        elif m.group("move") is not None:
            yield _Tok("move", m.group("move"), line, m.group("ann") or "")
        elif m.group("linecomment") is not None:
            yield _Tok("comment", tok_text, line, " ".join(tok_text[1:].split()))
        elif m.group("ws") is None:
            kind = m.lastgroup
            assert kind is not None
            yield _Tok(kind, tok_text, line)
        line += tok_text.count("\n")
        pos = m.end()


def _unescape(value: str) -> str:
    # a callable made in C, not the template "\\1" (which runs Python code for every escape):
    # a proof's tag holds thousands of escaped quotes
    return _ESCAPED.sub(_FIRST_GROUP, value) if "\\" in value else value


def tag_line(name: str, value: str) -> str:
    """One tag as PDN writes it: the value's backslashes and quotes escaped, its whitespace
    (newlines too) collapsed to single spaces, since a tag stands on one line.

    >>> print(tag_line("Event", 'The "Spring" cup\\n  round 2'))
    [Event "The \\"Spring\\" cup round 2"]
    """
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{" ".join(escaped.split())}"]'


def read_tags(text: str) -> list[dict[str, str]]:
    """The tags of each entry of a PDN text, values unescaped, in file order; entries are split
    as :func:`read_games` splits them, move text is skipped unread (entries without tags too).

    >>> read_tags('[FEN "W:W21:B5"]\\n*\\n[FEN "W:W22:B6"]\\n[Title "a \\\\"b\\\\""]\\n')
    [{'FEN': 'W:W21:B5'}, {'FEN': 'W:W22:B6', 'Title': 'a "b"'}]
    """
    out = []
    for entry in _entries(_tokenize(text)):
        tags = {tok.name: tok.value for tok in entry if tok.kind == "tag"}
        if tags:
            out.append(tags)
    return out


def _entries(tokens: Iterator[_Tok]) -> Iterator[list[_Tok]]:
    """Split the token stream into entries: a tag section, move text and a result.

    An entry ends after its result, before a tag that follows move text, or before a tag whose
    name already appeared in its tag section (entries written without a result).
    """
    cur: list[_Tok] = []
    body = False
    names: set[str] = set()
    for tok in tokens:
        if tok.kind == "tag" and (body or tok.name in names) and cur:
            yield cur
            cur, body, names = [], False, set()
        cur.append(tok)
        if tok.kind == "tag":
            names.add(tok.name)
        elif tok.kind != "tagerror":
            body = True
        if tok.kind == "result":
            yield cur
            cur, body, names = [], False, set()
    if cur:
        yield cur


# ---------------------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------------------
def _variant_of(value: str, line: int) -> Variant:
    fields = [f.strip() for f in value.split(",")]
    gt = read_number(fields[0])
    if gt is None:
        raise PdnLineError(
            f"GameType {value[:40]!r} must start with a number: 20 (international), "
            "26 (Brazilian) or 29 (Czech)",
            line,
            "gametype_not_number",
            value=value[:40],
        )
    variant = GAMETYPES.get(gt)
    if variant is None:
        raise PdnLineError(
            f"GameType {gt} is not supported: this site plays 20 (international), "
            "26 (Brazilian) and 29 (Czech)",
            line,
            "gametype_unsupported",
            gametype=gt,
        )
    w = read_number(fields[2]) if len(fields) >= 4 else None
    h = read_number(fields[3]) if len(fields) >= 4 else None
    if w is not None and h is not None and (w, h) != (variant.size, variant.size):
        raise PdnLineError(
            f"GameType {value[:40]!r} gives a {w}x{h} board, but GameType {gt} is played on "
            f"{variant.size}x{variant.size}",
            line,
            "gametype_board",
            gametype=gt,
            width=w,
            height=h,
            size=variant.size,
        )
    return variant


class _MoveTextParser:
    def __init__(self, toks: list[_Tok], pos: int) -> None:
        self.toks = toks
        self.pos = pos

    def parse_line(self, depth: int) -> tuple[list[Node], str]:
        """Nodes of one line and the comment before its first move. Stops at ')' or a result."""
        nodes: list[Node] = []
        lead: list[str] = []
        toks = self.toks
        while self.pos < len(toks):
            t = toks[self.pos]
            k = t.kind
            if k == "close":
                if depth == 0:
                    raise PdnLineError(
                        "')' closes a variation that was never opened", t.line, "unopened_variation"
                    )
                break
            if k == "result":  # inside a variation: the caller reports the missing ')'
                break
            self.pos += 1
            if k == "number":
                continue
            if k == "comment":
                if not t.value:
                    continue
                if nodes:
                    prev = nodes[-1].comment
                    nodes[-1].comment = f"{prev} {t.value}" if prev else t.value
                else:
                    lead.append(t.value)
            elif k == "move":
                nags = [ANNOTATIONS[t.value]] if t.value else []
                nodes.append(Node(move_text=t.text, nags=nags, line=t.line))
            elif k == "nag":
                if not nodes:
                    raise PdnLineError(
                        f"NAG {t.text} comes before any move", t.line, "nag_before_move", nag=t.text
                    )
                nodes[-1].nags.append(int(t.text[1:]))
            elif k == "open":
                if not nodes:
                    raise PdnLineError(
                        "a variation '(' must follow the move it is an alternative to",
                        t.line,
                        "variation_first",
                    )
                if depth + 1 > MAX_VARIATION_DEPTH:
                    raise PdnLineError(
                        f"variations are nested more than {MAX_VARIATION_DEPTH} deep",
                        t.line,
                        "variations_too_deep",
                        max=MAX_VARIATION_DEPTH,
                    )
                var, var_lead = self.parse_line(depth + 1)
                if self.pos >= len(toks) or toks[self.pos].kind != "close":
                    raise PdnLineError(
                        "the variation opened here is never closed by ')'",
                        t.line,
                        "unclosed_variation",
                    )
                self.pos += 1
                if not var:
                    raise PdnLineError(
                        "empty variation: '(' must be followed by moves", t.line, "empty_variation"
                    )
                var[0].starting_comment = var_lead
                nodes[-1].variations.append(var)
            elif k in ("error", "tagerror"):
                raise PdnLineError(t.value, t.line, t.name or "syntax", text=t.text.strip())
            elif k == "tag":
                raise PdnLineError(
                    f"tag [{t.name}] inside the move text", t.line, "tag_in_moves", tag=t.name
                )
        return nodes, " ".join(lead)


def _number(ply: int, black_first: bool) -> str:
    k = ply + (1 if black_first else 0)
    n = 1 + k // 2
    return f"{n}." if k % 2 == 0 else f"{n}..."


def _replay(board: Board, nodes: list[Node], ply: int, black_first: bool) -> None:
    """Play ``nodes`` on ``board`` (the first one being ply ``ply`` of the game), each node's
    variations from the position before it."""
    for node in nodes:
        for var in node.variations:
            _replay(board.copy(stack=False), var, ply, black_first)
        try:
            m = board.parse_move(node.move_text)
        except DamaError as e:
            num = _number(ply, black_first)
            raise PdnLineError(
                f"{num} {node.move_text} is not playable: {e}",
                node.line,
                "unplayable_move",
                getattr(e, "explanation", None),
                number=num,
                move=node.move_text,
                reason=str(e),
            ) from None
        node.move = m
        board.push(m)
        ply += 1


def _parse_entry(toks: list[_Tok], index: int, default_variant: Variant | None) -> Game:
    start_line = toks[0].line
    tags: dict[str, str] = {}
    tag_lines: dict[str, int] = {}
    pos = 0
    while pos < len(toks) and toks[pos].kind in ("tag", "tagerror"):
        t = toks[pos]
        if t.kind == "tagerror":
            raise PdnLineError(t.value, t.line, t.name or "syntax", text=t.text.strip())
        tags[t.name] = t.value
        tag_lines[t.name] = t.line
        pos += 1
    variant = default_variant or INTERNATIONAL
    if "GameType" in tags:
        variant = _variant_of(tags["GameType"], tag_lines["GameType"])
    fen: str | None = None
    if "FEN" in tags and tags["FEN"].strip():
        try:
            fen = Board(variant, tags["FEN"]).fen()
        except DamaError as e:
            raise PdnLineError(
                f"bad FEN: {e}", tag_lines["FEN"], "bad_fen", fen=tags["FEN"], reason=str(e)
            ) from None
    parser = _MoveTextParser(toks, pos)
    nodes, lead = parser.parse_line(0)
    result = RESULTS.get(tags.get("Result", "*").strip(), "*")
    if parser.pos < len(toks):
        t = toks[parser.pos]
        assert t.kind == "result"
        result = RESULTS[t.text]
        if parser.pos + 1 < len(toks):  # pragma: no cover - entries end at their result
            raise PdnLineError(
                "text after the result", toks[parser.pos + 1].line, "text_after_result"
            )
    game = Game(
        variant=variant,
        tags=tags,
        fen=fen,
        moves=nodes,
        comment=lead,
        result=result,
        line=start_line,
        index=index,
    )
    game.replay()
    return game


def _decode(data: str | bytes) -> str:
    if isinstance(data, bytes):
        if len(data) > MAX_PDN_BYTES:
            raise InvalidPdnError(_too_big(len(data)))
        for enc in ("utf-8-sig", "cp1252"):
            try:
                return data.decode(enc)
            except UnicodeDecodeError:
                continue
        return data.decode("latin-1")
    if len(data) > MAX_PDN_BYTES or len(data.encode("utf-8")) > MAX_PDN_BYTES:
        raise InvalidPdnError(_too_big(len(data.encode("utf-8"))))
    return data[1:] if data.startswith("\ufeff") else data


def _too_big(n: int) -> str:
    return f"the PDN text is {n} bytes long; at most {MAX_PDN_BYTES} bytes are read at once"


def read_games(
    text: str | bytes, *, default_variant: str | Variant | None = None
) -> Iterator[GameOrError]:
    """Every entry of a PDN text, in order: a :class:`Game`, or a :class:`GameError` for an entry
    that cannot be read (reading goes on with the next entry).

    Bytes are decoded as UTF-8, else Windows-1252. Raises :class:`~dama.InvalidPdnError` at once
    when the text is larger than :data:`MAX_PDN_BYTES`.
    """
    source = _decode(text)
    dv = find_variant(default_variant) if default_variant is not None else None
    return _iter_games(source, dv)


def _iter_games(source: str, dv: Variant | None) -> Iterator[GameOrError]:
    lines = source.splitlines()
    for index, toks in enumerate(_entries(_tokenize(source)), start=1):
        try:
            yield _parse_entry(toks, index, dv)
        except PdnLineError as e:
            first, last = toks[0].line, toks[-1].line
            yield GameError(
                index=index,
                start_line=first,
                line=e.line,
                message=e.reason,
                source="\n".join(lines[first - 1 : last]),
                code=e.code,
                params=dict(e.params),
                explanation=e.explanation,
            )


def read_game(text: str | bytes, *, default_variant: str | Variant | None = None) -> Game:
    """The first game of a PDN text; raises :class:`PdnLineError` (an
    :class:`~dama.InvalidPdnError`) naming the line when it cannot be read."""
    for item in read_games(text, default_variant=default_variant):
        if isinstance(item, GameError):
            raise item.exception()
        return item
    raise InvalidPdnError("the PDN text holds no game")


# ---------------------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------------------
def _tag_lines(game: Game) -> list[str]:
    tags: dict[str, str] = {}
    for k, v in game.tags.items():
        tags[k] = v
    gt = tags.get("GameType", "")
    if read_number(gt.split(",")[0]) != game.variant.gametype:
        tags["GameType"] = str(game.variant.gametype)
    if game.fen is not None:
        tags["SetUp"] = "1"
        tags["FEN"] = game.fen
    else:
        tags.pop("FEN", None)
        tags.pop("SetUp", None)
    tags["Result"] = game.result
    return [tag_line(k, v) for k, v in tags.items()]


def _comment_units(text: str) -> list[str]:
    words = text.replace("}", ")").split()
    if not words:
        return []
    words[0] = "{" + words[0]
    words[-1] = words[-1] + "}"
    return words


def _line_units(nodes: list[Node], ply: int, black_first: bool, units: list[str]) -> None:
    need_number = True
    for node in nodes:
        if node.starting_comment:
            units.extend(_comment_units(node.starting_comment))
            need_number = True
        text = node.move_text
        nags = list(node.nags)
        if nags and nags[0] in _NAG_SUFFIX:
            text += _NAG_SUFFIX[nags.pop(0)]
        num = _number(ply, black_first)
        # the move number and its move are kept on one line
        units.append(text if num.endswith("...") and not need_number else f"{num} {text}")
        units.extend(f"${n}" for n in nags)
        need_number = False
        if node.comment:
            units.extend(_comment_units(node.comment))
            need_number = True
        for var in node.variations:
            sub: list[str] = []
            _line_units(var, ply, black_first, sub)
            sub[0] = "(" + sub[0]
            sub[-1] = sub[-1] + ")"
            units.extend(sub)
            need_number = True
        ply += 1


def _wrap(units: list[str], width: int) -> list[str]:
    lines: list[str] = []
    cur = ""
    for u in units:
        if cur and len(cur) + 1 + len(u) > width:
            lines.append(cur)
            cur = u
        else:
            cur = f"{cur} {u}" if cur else u
    if cur:
        lines.append(cur)
    return lines


def write_game(game: Game, *, width: int = LINE_WIDTH) -> str:
    """``game`` as PDN: tags (GameType always, SetUp and FEN for a set-up position, Result),
    a blank line, numbered move text with comments, NAGs and variations wrapped at ``width``
    characters, and the result.
    """
    units: list[str] = _comment_units(game.comment)
    black_first = Board(game.variant, game.fen).turn != WHITE
    _line_units(game.moves, 0, black_first, units)
    units.append(game.result)
    return "\n".join(_tag_lines(game)) + "\n\n" + "\n".join(_wrap(units, width)) + "\n"


def position_pdn(
    board: Board, tags: dict[str, str] | None = None, *, result: str = "*", comment: str = ""
) -> str:
    """One position (a puzzle) as a PDN entry without moves.

    >>> print(position_pdn(Board("czech", "W:W21,K30:B5,6"), {"Event": "Puzzle 7"}))
    [Event "Puzzle 7"]
    [GameType "29"]
    [SetUp "1"]
    [FEN "W:W21,K30:B5,6"]
    [Result "*"]
    <BLANKLINE>
    *
    <BLANKLINE>
    """
    game = Game(
        variant=board.variant,
        tags=dict(tags or {}),
        fen=board.fen(),
        result=result,
        comment=comment,
    )
    return write_game(game)
