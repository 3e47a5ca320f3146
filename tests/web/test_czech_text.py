"""The Czech text speaks with one voice and one vocabulary (docs/glossary.md): every Czech
``msgstr`` of the catalogues, the Czech texts of the lesson courses and the engine's Czech messages
address the reader with "ty", never "vy", and use none of the words the glossary says to avoid.
Wherever a number meets a noun the message has plural forms (Czech says 1 kámen, 2 kameny, 5
kamenů), all of them written."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
GLOSSARY = ROOT / "docs" / "glossary.md"
CATALOGUES = sorted(
    [ROOT / "locale", *ROOT.glob("*/locale")], key=lambda p: p.as_posix()
)  # the project's (every app's texts are there)
#: the engine's modules with Czech messages (explanations, outcomes, diagram descriptions)
ENGINE_MODULES = ["explain.py", "outcome.py", "svg.py", "lang.py", "variants.py"]

#: "vy": its pronouns and the verb forms of the second person plural (imperatives such as
#: "klikněte", "zkuste", "vyberte", the present "máte", "můžete"): every Czech word ending in -te
VY_PRONOUNS = {
    "vy", "vás", "vám", "vámi", "váš", "vaše", "vašeho", "vašemu", "vašem", "vaši", "vašich",
    "vašim", "vašimi", "jste", "nejste", "byste",
}  # fmt: skip
#: words ending in -te that are not the second person plural (names, English words)
NOT_VY = {"route", "update", "delete", "write", "suite"}
WORD = re.compile(r"[^\W\d_]+")
#: placeholders, which are not Czech: %(site_name)s, {square}
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w*\}")


def read_msgstrs(path: Path) -> list[str]:
    """Every msgstr (each plural form) of a .po file, fuzzy or not; obsolete entries left out."""
    texts: list[str] = []
    current: list[str] | None = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line.startswith("msgstr"):
            current = [ast.literal_eval(line.split(" ", 1)[1])]
            texts.append("")
        elif line.startswith('"') and current is not None:
            current.append(ast.literal_eval(line))
        else:
            current = None
            continue
        texts[-1] = "".join(current)
    return [t for t in texts[1:] if t]  # the first msgstr is the catalogue's header


def czech_texts() -> list[tuple[str, str]]:
    """(where, text) for every Czech text the site shows."""
    found: list[tuple[str, str]] = []
    for catalogue in CATALOGUES:
        po = catalogue / "cs" / "LC_MESSAGES" / "django.po"
        found += [(po.relative_to(ROOT).as_posix(), t) for t in read_msgstrs(po)]

    def walk(where: str, node) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "cs" and isinstance(value, str):
                    found.append((where, value))
                else:
                    walk(where, value)
        elif isinstance(node, list):
            for value in node:
                walk(where, value)

    for course in sorted((ROOT / "fixtures" / "lessons").glob("*.yaml")):
        walk(course.relative_to(ROOT).as_posix(), yaml.safe_load(course.read_text("utf-8")))
    for name in ENGINE_MODULES:
        module = ROOT / "dama" / name
        tree = ast.parse(module.read_text("utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and id(node) not in docstrings
                and isinstance(node.value, str)
                and re.search("[ěščřžýáíéůúňťď]", node.value)
            ):
                found.append((f"dama/{name}", node.value))
    return found


def avoided_words() -> list[str]:
    """The glossary's Avoid column: words (``*`` = any ending) that never appear in Czech text."""
    words = []
    for line in GLOSSARY.read_text("utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("**"):
            words += [w.strip() for w in cells[3].split(",") if w.strip()]
    return words


def test_the_glossary_defines_the_draughts_terms_with_english_and_the_rulebook_article():
    text = GLOSSARY.read_text("utf-8")
    rows = {
        re.sub(r"\*\*|\(.*?\)", "", line.split("|")[1]).strip(): line
        for line in text.splitlines()
        if line.startswith("| **")
    }
    for term, english in [
        ("kámen", "man"), ("dáma", "king"), ("braní, brát", "capture"), ("tah", "move"),
        ("skok, přeskočit", "jump"), ("proměna", "crowning"), ("figura", "piece"),
    ]:  # fmt: skip
        assert term in rows, term
        assert english in rows[term] and "čl. " in rows[term], rows[term]
    assert "pěšec" in avoided_words() and "figurk*" in avoided_words()


def test_czech_texts_are_collected_from_every_catalogue_course_and_engine_module():
    places = {where.split("/")[0] for where, _text in czech_texts()}
    assert {"locale", "fixtures", "dama"} <= places
    assert len(czech_texts()) > 1000


def test_czech_text_addresses_the_reader_with_ty_never_vy():
    offending = []
    for where, text in czech_texts():
        for word in WORD.findall(PLACEHOLDER.sub(" ", text)):
            lower = word.lower()
            if lower in VY_PRONOUNS or (
                lower.endswith("te") and len(lower) > 3 and lower not in NOT_VY
            ):
                offending.append(f"{where}: {word!r} in {text[:90]!r}")
    assert offending == []


def test_czech_text_uses_none_of_the_words_the_glossary_avoids():
    patterns = [
        re.compile(
            r"\b" + re.escape(word.rstrip("*")) + (r"\w*" if word.endswith("*") else r"\b"),
            re.IGNORECASE,
        )
        for word in avoided_words()
    ]
    offending = [
        f"{where}: {match.group(0)!r} in {text[:90]!r}"
        for where, text in czech_texts()
        for pattern in patterns
        for match in pattern.finditer(text)
    ]
    assert offending == []


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("Klikněte na kámen.", False), ("Zkuste to znovu.", False), ("Vaše třídy", False),
        ("Klikni na kámen.", True), ("Zkus to znovu.", True), ("Tvoje třídy", True),
    ],
)  # fmt: skip
def test_the_check_tells_vy_from_ty(text, verdict):
    words = [w.lower() for w in WORD.findall(text)]
    says_ty = not any(w in VY_PRONOUNS or (w.endswith("te") and len(w) > 3) for w in words)
    assert says_ty is verdict


# -- a number and a noun: plural forms ----------------------------------------------------------------

#: countable nouns of the site's English messages: a number before one of them (a placeholder or
#: digits, with at most two words between: "%(n)s new puzzles", "%(pass)s right answers") makes
#: a message that needs plural forms (ngettext, {% blocktranslate count %})
COUNTABLE = [
    "piece", "man", "men", "king", "move", "half-move", "puzzle", "student", "position", "step",
    "star", "account", "entry", "entries", "question", "minute", "second", "hour", "day",
    "answer", "card", "task", "node", "character", "attempt", "game", "point", "lesson", "class",
    "classes", "set", "exercise", "motif", "try", "tries", "square", "capture", "certificate",
    "page", "word", "time",
]  # fmt: skip
#: placeholders that never hold a number (a name, a move, a side, a wait written out ...)
NOT_NUMBERS = [
    "name", "move", "side", "reply", "wait", "square", "title", "set", "class", "cls", "what",
    "within", "when", "reason", "example", "text", "email", "owner", "motif", "variant", "date",
    "code", "char", "username", "site_name", "due", "route", "why", "selection", "label",
]  # fmt: skip
NUMBER = (
    r"(?:%\((?!(?:" + "|".join(NOT_NUMBERS) + r")\))\w+\)[sd]|%[sd]"
    r"|\{\{ ?(?!(?:" + "|".join(NOT_NUMBERS) + r") ?\}\})\w+ ?\}\}"
    r"|(?<![\w×.-])\d+(?![\w×.-]))"
)
NOUN = (
    r"(?:"
    + "|".join(re.escape(w) + ("" if w.endswith("s") else "(?:e?s)?") for w in COUNTABLE)
    + r")"
)
#: words between the number and the noun ("new", "rated", "right"), not ones that end the count
BETWEEN = r"(?:\s+(?!(?:or|and|to|from|for|than|if|of|is|are|in)\b)[a-z]+)"
COUNTED = re.compile(NUMBER + BETWEEN + r"{0,2}?\s+" + NOUN + r"\b", re.IGNORECASE)


def read_entries(path: Path) -> list[dict]:
    """Every entry of a .po file: its msgid, msgid_plural ("" when none), the msgstr forms and
    where it comes from; the header and obsolete entries left out."""
    entries: list[dict] = []
    entry: dict | None = None
    field = ""
    for raw in path.read_text(encoding="utf-8").splitlines() + [""]:
        line = raw.strip()
        if not line:
            if entry is not None and entry["msgid"]:
                entries.append(entry)
            entry, field = None, ""
            continue
        if entry is None:
            entry = {"msgid": "", "plural": "", "forms": {}, "where": []}
        if line.startswith("#:"):
            entry["where"] += line[2:].split()
        elif line.startswith("#"):
            continue
        elif line.startswith("msgctxt "):
            field = "ctx"
        elif line.startswith("msgid "):
            field, entry["msgid"] = "msgid", ast.literal_eval(line[6:])
        elif line.startswith("msgid_plural "):
            field, entry["plural"] = "plural", ast.literal_eval(line[13:])
        elif line.startswith("msgstr"):
            key, text = line.split(" ", 1)
            field = key
            entry["forms"][key] = ast.literal_eval(text)
        elif line.startswith('"') and field in ("msgid", "plural"):
            entry[field] += ast.literal_eval(line)
        elif line.startswith('"') and field.startswith("msgstr"):
            entry["forms"][field] += ast.literal_eval(line)
    return entries


def czech_entries() -> list[tuple[str, dict]]:
    return [
        (catalogue.relative_to(ROOT).as_posix(), entry)
        for catalogue in CATALOGUES
        for entry in read_entries(catalogue / "cs" / "LC_MESSAGES" / "django.po")
    ]


@pytest.mark.parametrize(
    ("text", "counted"),
    [
        ("%(n)d pieces", True), ("Rating after %(games)s rated puzzles.", True),
        ("{{ n }} puzzles", True), ("At most %(max)s accounts at once.", True),
        ("At least 8 characters", True), ("%(pass)s right answers are needed.", True),
        ("Position %(n)s of %(total)s", False), ("Level %(level)s", False),
        ("8×8 board, men capture", False), ("Write a square to mark (27)", False),
        ("The file is %(size)s KB", False), ("Say 1 (liked) or 0 (not liked).", False),
        ("%(name)s teaches this class too now.", False), ("Wait %(wait)s and try again.", False),
        ("empty: 1 for a capture, else 5.", False), ("%(move)s is a move, but not a capture.", False),
    ],
)  # fmt: skip
def test_the_check_finds_a_number_before_a_noun(text, counted):
    assert bool(COUNTED.search(text)) is counted


def test_a_number_before_a_noun_has_plural_forms():
    """ "Bílý na tahu získá 4 kamenů": a message where a number meets a noun is translated with
    plural forms, so that Czech can say 1 kámen, 4 kameny, 5 kamenů."""
    entries = czech_entries()
    assert len(entries) > 1000
    offending = [
        f"{where}: {entry['msgid']!r} ({', '.join(entry['where'][:2])})"
        for where, entry in entries
        if not entry["plural"] and COUNTED.search(entry["msgid"])
    ]
    assert offending == []


def test_every_czech_plural_message_has_all_its_forms():
    """Czech's catalogues declare four forms (one, two to four, a fraction, five and more):
    every plural message has them all, none empty."""
    for catalogue in CATALOGUES:
        header = (catalogue / "cs" / "LC_MESSAGES" / "django.po").read_text("utf-8")
        assert "nplurals=4;" in header, catalogue
    missing = [
        f"{where}: {entry['msgid']!r}"
        for where, entry in czech_entries()
        if entry["plural"]
        and [entry["forms"].get(f"msgstr[{n}]", "") != "" for n in range(4)] != [True] * 4
    ]
    assert missing == []
