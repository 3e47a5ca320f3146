"""``{% class_race session role %}``: the class race panel of a live lesson (its template is the
live app's: a higher app's tag in a lower app's page, as ``{% tournament_of game %}``)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils import timezone

from ..views import race_context

register = template.Library()


@register.inclusion_tag("runs/_race.html", takes_context=True)
def class_race(context, session: Any, role: str) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    data = race_context(session, role, user, timezone.now())
    data["csrf_token"] = context.get("csrf_token")
    return data
