"""A person's name as a certificate prints it: letters of any alphabet the certificate's font has
(Latin with every accent, Greek, Cyrillic), words joined by single spaces, hyphens, apostrophes
and dots between or after letters; nothing else (no digits, no "@", so no user name or e-mail
slips in).

The alphabets are data (:data:`SCRIPTS`): the certificate is set in DejaVu Sans
(``exams/fonts``), which draws every letter of these ranges (``tests/web/test_exam_names.py``
checks that against the font's own table); a script added here needs a font that has it.

>>> clean_name("  Anna   Nováková ")
'Anna Nováková'
>>> name_problem("Ludvík Šťastný"), name_problem("Jean-Luc O’Neil Jr."), name_problem("Дмитрий")
('', '', '')
>>> name_problem("standa94519") != "" and name_problem("a@b.cz") != "" and name_problem("-Anna") != ""
True
"""

from __future__ import annotations

import unicodedata

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

#: the fewest letters and the most characters of a name (the model field's ``max_length``; a
#: long name is set smaller on the certificate)
MIN_LETTERS, MAX_LENGTH = 2, 60
#: code point ranges whose letters (and combining marks) a name may use
SCRIPTS: tuple[tuple[int, int], ...] = (
    (0x0041, 0x024F),  # Basic Latin, Latin-1, Latin Extended-A and -B
    (0x0300, 0x034F),  # combining accents (a letter NFC cannot compose)
    (0x0370, 0x03FF),  # Greek
    (0x0400, 0x04FF),  # Cyrillic
    (0x1E00, 0x1EFB),  # Latin Extended Additional (Vietnamese, Welsh...)
    (0x1F00, 0x1FFF),  # Greek Extended
)
#: apostrophes (typewriter, typographic, modifier letter) and the hyphen: between letters only
JOINERS = "'’ʼ-"


def is_name_letter(char: str) -> bool:
    """A letter (or combining mark) of :data:`SCRIPTS`."""
    code = ord(char)
    return unicodedata.category(char)[0] in "LM" and any(a <= code <= b for a, b in SCRIPTS)


def clean_name(value: str) -> str:
    """``value`` composed (NFC: "e" and a combining acute become one "é"), its runs of white
    space made single spaces, trimmed."""
    return " ".join(unicodedata.normalize("NFC", value or "").split())


def name_problem(value: str) -> str:
    """What is wrong with ``value`` (already :func:`clean_name`-ed) as a name to print, in the
    page's language; "" when it is a name."""
    letters = 0
    for word in value.split(" "):
        before = ""  # "": the word's start; "l": a letter; "j": a joiner; ".": a dot
        for char in word:
            if is_name_letter(char):
                if unicodedata.category(char)[0] == "M" and before != "l":
                    return gettext("An accent must follow a letter.")
                letters += unicodedata.category(char)[0] == "L"
                before = "l"
            elif char in JOINERS or char == ".":
                if not (before == "l" or (before == "." and char in JOINERS)):
                    return gettext("A hyphen, an apostrophe or a dot must follow a letter.")
                before = "." if char == "." else "j"
            else:
                return gettext(
                    "Write your name in letters of the Latin, Greek or Cyrillic alphabet, with "
                    "spaces, hyphens, apostrophes or dots: the certificate cannot print "
                    "“%(char)s”."
                ) % {"char": char}
        if before == "j":
            return gettext("A hyphen or an apostrophe must stand between letters.")
    if letters < MIN_LETTERS:
        return gettext("Write your name: at least two letters.")
    return ""


def validate_name(value: str) -> None:
    """The model field's validator: :func:`name_problem` as a ``ValidationError``."""
    problem = name_problem(clean_name(value))
    if problem:
        raise ValidationError(problem, code="invalid_name")
