"""The languages of the engine's messages (English and Czech) and rulebook citations in each.

Explanations (:class:`~dama.explain.Explanation`) and game ends (:class:`~dama.outcome.Outcome`)
carry their message in both languages; :func:`lang_code` reads a language tag the way a web page
has it (``cs``, ``cs-cz``, ``en-gb``) and :func:`cite` writes a rulebook article in that language.

>>> lang_code("cs-cz"), lang_code("en-gb"), lang_code("")
('cs', 'en', 'en')
>>> cite("CUD 2006 art. 4.14", "cs")
'CUD 2006 čl. 4.14'
>>> cite("FMJD rules: 25-move rule", "cs")
'pravidla FMJD: pravidlo 25 tahů'
>>> cite("SDS Brazilian art. 4", "en")
'SDS Brazilian art. 4'
"""

from __future__ import annotations

from typing import Literal

Lang = Literal["en", "cs"]

# how an article citation reads in Czech (the rulebooks are cited in English in the data)
_CZECH_CITATION = (
    (" art. ", " čl. "),
    ("SDS international", "SDS mezinárodní dáma"),
    ("SDS Brazilian", "SDS brazilská dáma"),
    ("FMJD rules: ", "pravidla FMJD: pravidlo "),
    ("-move rule", " tahů"),
)


def lang_code(lang: str | None) -> Lang:
    """``cs`` for a Czech language tag (``cs``, ``cs-CZ``), else ``en``."""
    return "cs" if (lang or "").lower().startswith("cs") else "en"


def cite(article: str, lang: str | None = "en") -> str:
    """A rulebook citation (as the engine stores it) in ``lang``."""
    if lang_code(lang) == "cs":
        for old, new in _CZECH_CITATION:
            article = article.replace(old, new)
    return article
