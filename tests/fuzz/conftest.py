"""Fuzzing the web layer with hypothesis: every form and endpoint that takes a FEN, PDN, move,
square, id or file. ``FUZZ_EXAMPLES`` sets the examples per test (default 30: a few hundred cases
in `make test`; `make fuzz` runs 1000 per test, over 10,000 cases).

Each response is judged by :func:`judge`: never 500 or more, and every rejection (4xx) says what
is wrong in its body; :func:`counts` snapshots the rows of every model so a test can assert that a
refused submission wrote nothing.
"""

from __future__ import annotations

import os
import re
from html import unescape

import pytest
from django.apps import apps
from hypothesis import HealthCheck, settings

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "30"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
    database=None,
)
HX = {"HTTP_HX_REQUEST": "true"}
#: where pages put what went wrong: form errors, alerts, the board's status line, plain text
_MESSAGE = re.compile(
    r'<[^>]+(?:role="alert"|class="[^"]*(?:error|errors|errorlist|bad|is-error)[^"]*"|'
    r'aria-live="[^"]+")[^>]*>(.*?)</(?:div|p|ul|li|span|output|section)>',
    re.S,
)


def text_of(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def message_of(response) -> str:
    """What the response tells the user went wrong (empty when it says nothing)."""
    body = response.content.decode("utf-8", "replace")
    if response.get("Content-Type", "").startswith("text/plain") or "<" not in body:
        return body.strip()  # a bare message (htmx shows it as it is)
    return " ".join(text_of(m) for m in _MESSAGE.findall(body)).strip()


def judge(response, *, what: str = "") -> None:
    status = response.status_code
    assert status < 500, (what, status, response.content[:500])
    if 400 <= status < 500 and status not in (404, 405):
        assert len(message_of(response)) >= 8, (what, status, response.content[:800])
    if status == 404:
        assert b"<h1" in response.content or response.content.strip(), what


def counts() -> dict[str, int]:
    return {m._meta.label: m.objects.count() for m in apps.get_models()}


@pytest.fixture(autouse=True)
def _no_hourly_limits(settings):
    """The fuzzer sends far more imports, sign-ups and codes than one teacher or address may in an
    hour (the limits have tests of their own, tests/web and tests/security): it tests the input."""
    for name in (
        "DAMA_IMPORT_LIMIT",
        "DAMA_REPROOF_LIMIT",
        "DAMA_SIGNUPS_PER_HOUR",
        "DAMA_RESETS_PER_HOUR",
        "DAMA_MAILS_PER_ADDRESS_PER_HOUR",
        "DAMA_JOIN_GUESSES_PER_HOUR",
    ):
        setattr(settings, name, 10**6)
