"""The class exams on the classroom's pages: a student's (My classes) and the teachers' (the class
page). The classroom's templates include them with one tag; the logic stays here."""

from __future__ import annotations

from datetime import timedelta

from django import template
from django.utils import timezone

from ..models import ClassExam, Exam

register = template.Library()
#: a finished class exam stays on My classes this long
RECENT_DAYS = 14


@register.inclusion_tag("exams/_student_class_exams.html", takes_context=True)
def student_class_exams(context, classroom) -> dict:
    user = context["request"].user
    now = timezone.now()
    exams = ClassExam.objects.filter(
        classroom=classroom, starts_at__gte=now - timedelta(days=RECENT_DAYS)
    ).order_by("starts_at")
    sittings = {e.class_exam_id: e for e in Exam.objects.filter(user=user, class_exam__in=exams)}
    return {
        "exams": [
            {
                "exam": exam,
                "sitting": sittings.get(exam.pk),
                "open": exam.is_open(now),
                "upcoming": exam.is_upcoming(now),
            }
            for exam in exams
        ]
    }


@register.inclusion_tag("exams/_teacher_class_exams.html")
def teacher_class_exams(classroom) -> dict:
    return {
        "classroom": classroom,
        "exams": list(ClassExam.objects.filter(classroom=classroom)[:5]),
    }
