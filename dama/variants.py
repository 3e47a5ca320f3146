"""The variants: rules as data, one registry.

>>> find_variant("czech").size
8
>>> find_variant("international").squares
50
>>> sorted(VARIANTS)
['brazilian', 'czech', 'international']
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import InvalidVariantError


@dataclass(frozen=True, slots=True)
class Variant:
    """The switches that make one variant. The move generator reads these; nothing is copied."""

    name: str
    title: str
    title_cs: str
    size: int
    #: men capture backward as well as forward
    men_capture_backward: bool
    #: the capture that takes the most pieces is compulsory (kings and men count alike)
    majority_rule: bool
    #: when a king and a man can both capture, a king must capture (CUD 2006 art. 4.14)
    king_priority: bool
    #: PDN GameType number
    gametype: int
    #: the notation players of this variant write by default
    algebraic_default: bool
    #: plies without a man move or capture that draw (0: rule not applied by default)
    quiet_move_limit: int
    #: which endgame count applies: "czech", "fmjd" or "" (none)
    endgame_rule: str
    #: article cited for the variant's rulebook
    rulebook: str

    @property
    def squares(self) -> int:
        return self.size * self.size // 2

    @property
    def men_per_side(self) -> int:
        return (self.size // 2 - 1) * (self.size // 2)


CZECH = Variant(
    name="czech",
    title="Czech draughts",
    title_cs="Česká dáma",
    size=8,
    men_capture_backward=False,
    majority_rule=False,
    king_priority=True,
    gametype=29,
    algebraic_default=False,
    quiet_move_limit=30,
    endgame_rule="czech",
    rulebook="CUD 2006",
)

INTERNATIONAL = Variant(
    name="international",
    title="International draughts",
    title_cs="Mezinárodní dáma",
    size=10,
    men_capture_backward=True,
    majority_rule=True,
    king_priority=False,
    gametype=20,
    algebraic_default=False,
    quiet_move_limit=50,
    endgame_rule="fmjd",
    rulebook="SDS international",
)

BRAZILIAN = Variant(
    name="brazilian",
    title="Brazilian draughts",
    title_cs="Brazilská dáma",
    size=8,
    men_capture_backward=True,
    majority_rule=True,
    king_priority=False,
    gametype=26,
    algebraic_default=True,
    quiet_move_limit=0,
    endgame_rule="",
    rulebook="SDS Brazilian",
)

VARIANTS: dict[str, Variant] = {v.name: v for v in (CZECH, INTERNATIONAL, BRAZILIAN)}
VARIANT_NAMES: tuple[str, ...] = ("czech", "international", "brazilian")
GAMETYPES: dict[int, Variant] = {v.gametype: v for v in VARIANTS.values()}


def find_variant(name: str | Variant) -> Variant:
    """Return the variant called ``name`` (case-insensitive), or raise :class:`InvalidVariantError`.

    >>> find_variant("Brazilian").gametype
    26
    """
    if isinstance(name, Variant):
        return name
    v = VARIANTS.get(str(name).strip().lower())
    if v is None:
        raise InvalidVariantError(
            f"unknown variant {name!r}: choose one of {', '.join(VARIANT_NAMES)}"
        )
    return v
