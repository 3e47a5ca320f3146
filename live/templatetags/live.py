"""``{% live_lessons %}``: "Join the live lesson" for the running lessons of the classes the
signed-in user attends (My classes, the dashboards); ``{% live_start_link classroom %}`` for
a class's teachers."""

from __future__ import annotations

from django import template

from ..models import LiveSession

register = template.Library()


@register.inclusion_tag("live/_join.html", takes_context=True)
def live_lessons(context) -> dict:
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"lessons": []}
    return {"lessons": list(LiveSession.objects.for_student(user).select_related("classroom"))}
