"""``{% square_trainer_link step %}``: on the rules courses' steps that teach the squares' names
or numbers, a link to the square trainer set to that board and notation.

A tag of the squares app, loaded by the lessons' templates: the lessons import no app beside
them (``make lint``'s contracts); which steps teach the squares is the trainer's to say.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse

register = template.Library()

#: the steps that teach how squares are named or numbered: (variant, notation)
STEPS = {
    "cz-square-names-letters": ("czech", "names"),
    "cz-square-numbers": ("czech", "numbers"),
    "br-square-names": ("brazilian", "names"),
    "br-square-numbers": ("brazilian", "numbers"),
    "int-square-numbers": ("international", "numbers"),
}

#: each course's step where its map links to the trainer (the first of its square steps)
COURSES = {
    "czech": "cz-square-names-letters",
    "brazilian": "br-square-names",
    "international": "int-square-numbers",
}


def trainer_url(variant: str, notation: str) -> str:
    return f"{reverse('squares:trainer', args=[variant])}?notation={notation}"


@register.inclusion_tag("squares/_link.html")
def square_trainer_link(step: Any) -> dict[str, Any]:
    """The link for ``step`` (a lesson step), or nothing when it does not teach the squares."""
    found = STEPS.get(getattr(step, "slug", ""))
    return {"url": trainer_url(*found) if found else ""}


@register.inclusion_tag("squares/_link.html")
def course_square_trainer_link(course: Any) -> dict[str, Any]:
    """The link for a course's map (its variant's board), or nothing for a course without
    square steps (the comparison course)."""
    slug = COURSES.get(getattr(course, "slug", ""))
    return {"url": trainer_url(*STEPS[slug]) if slug else ""}
