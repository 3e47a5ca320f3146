"""``{% class_review classroom %}``: the review column of a class's progress page (each student's
due cards and weakest motifs, and the form that adds a set to the class's review). The queries
are :func:`review.queue.class_summary`'s (two for the class) and one for the sets assigned to the class."""

from __future__ import annotations

from django import template

from ..queue import class_sets, class_summary

register = template.Library()


@register.inclusion_tag("review/_class_review.html", takes_context=True)
def class_review(context, classroom) -> dict:
    request = context["request"]
    students = list(classroom.students())
    return {
        "classroom": classroom,
        "summary": class_summary(students),
        "sets": list(class_sets(classroom)),
        "request": request,
        "csrf_token": context.get("csrf_token"),
    }
