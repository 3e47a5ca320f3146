"""The navigation's count of due review cards: read only when a page shows it (lazily), and for an
account kept in the cache until a card changes or the next one falls due
(:meth:`review.learner.Learner.due_count`)."""

from __future__ import annotations

from django.utils.functional import SimpleLazyObject

from .learner import Learner

#: the lesson step the review session last sent the learner to: [course, step, the session's URL]
STEP_KEY = "review_step"


def review(request) -> dict:
    if not hasattr(request, "session"):
        return {}
    return {
        "review_due": SimpleLazyObject(lambda: Learner.of(request).due_count()),
        "review_back": SimpleLazyObject(lambda: review_back(request)),
    }


def review_back(request) -> str:
    """On the page of the lesson step the review session sent the learner to (and its answers):
    the session's address, for the step's "Back to the review" button; else empty."""
    match = getattr(request, "resolver_match", None)
    if match is None or match.app_name != "lessons" or "step" not in match.kwargs:
        return ""
    sent = request.session.get(STEP_KEY)
    if not isinstance(sent, list) or len(sent) != 3:
        return ""
    course, step, url = sent
    if (match.kwargs.get("variant"), match.kwargs["step"]) != (course, step):
        return ""
    return url if isinstance(url, str) and url.startswith("/review/") else ""
