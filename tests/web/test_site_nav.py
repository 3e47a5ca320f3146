"""The site's main navigation (templates/base.html): the same for every visitor of a kind, so each
process keeps it by language, variant, section, account or not and review count (Django's
``{% cache %}`` on the ``template_fragments`` cache), and a page never shows the navigation kept
for another language, variant, section or kind of visitor."""

from __future__ import annotations

import re

from django.core.cache import caches
from django.core.cache.utils import make_template_fragment_key
from django.utils import timezone

from review.models import Card
from tests.puzzle_fixtures import make_puzzle


def main_nav(html: str) -> str:
    found = re.search(r'<nav class="main-nav"[^>]*>(.*?)</nav>', html, re.S)
    assert found, "no main navigation on the page"
    return found.group(1)


def current(nav: str) -> list[str]:
    """The words of the links marked as the current page."""
    return re.findall(r'aria-current="page">([^<]+)<', nav)


def test_the_navigation_is_kept_by_the_process_after_the_first_page(client, db):
    # a visitor on the Czech course, in English, with nothing to review
    key = make_template_fragment_key("main_nav", ["en", "czech", "lessons", "course", False, 0])
    fragments = caches["template_fragments"]
    assert fragments.get(key) is None
    first = main_nav(client.get("/learn/czech/").content.decode())
    kept = fragments.get(key)
    assert kept is not None and kept.strip() in first
    # what is kept is what the next page shows
    fragments.set(key, kept.replace(">Learn<", ">Learn (kept)<"))
    assert ">Learn (kept)<" in main_nav(client.get("/learn/czech/").content.decode())


def test_the_navigation_follows_the_section_of_the_page(client, db):
    assert current(main_nav(client.get("/learn/czech/").content.decode())) == ["Learn"]
    assert current(main_nav(client.get("/daily/czech/").content.decode())) == ["Daily"]
    assert current(main_nav(client.get("/exams/czech/").content.decode())) == ["Exams"]
    assert current(main_nav(client.get("/learn/czech/").content.decode())) == ["Learn"]


def test_the_navigation_follows_the_variant_and_the_language(client, db):
    czech = main_nav(client.get("/learn/czech/").content.decode())
    assert 'href="/puzzles/czech/"' in czech and ">Puzzles<" in czech
    international = main_nav(client.get("/learn/international/").content.decode())
    assert 'href="/puzzles/international/"' in international
    assert 'href="/puzzles/czech/"' not in international
    client.post("/language", {"language": "cs", "next": "/"})
    in_czech = main_nav(client.get("/learn/international/").content.decode())
    assert 'href="/puzzles/international/"' in in_czech
    assert ">Úlohy<" in in_czech and ">Puzzles<" not in in_czech


def test_an_account_and_a_visitor_never_share_the_navigation(client, student):
    visitor = main_nav(client.get("/learn/czech/").content.decode())
    assert "/teach/my/" not in visitor
    client.force_login(student)
    account = main_nav(client.get("/learn/czech/").content.decode())
    assert 'href="/teach/my/"' in account
    client.logout()
    assert main_nav(client.get("/learn/czech/").content.decode()) == visitor


def test_the_review_count_is_never_one_kept_for_another_count(client, student):
    from review.learner import forget_count

    # a count kept by an earlier test for an account of the same id (SQLite reuses the ids of a
    # rolled-back test; the cache may be a Redis that outlives the run) is not this account's
    forget_count(student.pk)
    client.force_login(student)
    assert "nav-count" not in main_nav(client.get("/learn/czech/").content.decode())
    puzzle = make_puzzle("czech_capture", fen="W:W14,17,21,28,30,32:B1,5,8,11,16,23,24")
    Card.objects.create(user=student, puzzle=puzzle, variant="czech", due=timezone.now())
    # the count itself is kept until a card changes (review.learner): a new card made here
    # directly is counted once that count is gone, as the trainer's cards drop it
    forget_count(student.pk)
    nav = main_nav(client.get("/learn/czech/").content.decode())
    assert re.search(r'class="nav-count"><span class="sr-only">\(due: </span>1<', nav)
