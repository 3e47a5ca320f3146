"""Every page of the foundation answers, with friendly 404s for unknown variants and ids."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse

from core.variants import VARIANTS

pytestmark = pytest.mark.django_db

VARIANT_PAGES = ["/learn/{}/", "/puzzles/{}/", "/daily/{}/"]


def test_home_page_shows_a_board_for_the_default_variant(client):
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-board data-variant="czech"' in html
    assert "data-moves=" in html
    assert "data-square=" in html
    assert "htmx-2.0.11.min.js" in html


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("page", VARIANT_PAGES)
def test_variant_pages_render_for_every_variant(client, page, variant):
    response = client.get(page.format(variant))
    assert response.status_code == 200
    assert str(VARIANTS[variant].title) in response.content.decode()


@pytest.mark.parametrize(
    "page", ["/learn/klingon/", "/puzzles/chess/", "/daily/go/", "/?variant=chess"]
)
def test_unknown_variant_is_a_friendly_404(client, page):
    response = client.get(page)
    assert response.status_code == 404
    html = response.content.decode()
    assert "There is nothing here" in html
    assert reverse("lessons:course", args=["international"]) in html  # links to the real variants


def test_unknown_address_is_a_friendly_404(client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert "There is nothing here" in response.content.decode()


@pytest.mark.parametrize(
    "index, target",
    [("/learn/", "/learn/{}/"), ("/puzzles/", "/puzzles/{}/"), ("/daily/", "/daily/{}/")],
)
def test_section_index_redirects_to_the_chosen_variant(client, index, target):
    client.get("/?variant=brazilian")
    response = client.get(index)
    assert response.status_code == 302
    assert response["Location"] == target.format("brazilian")


def test_choosing_a_variant_on_home_is_remembered_in_the_session(client):
    response = client.get("/?variant=international")
    assert 'data-variant="international"' in response.content.decode()
    assert client.session["dama_variant"] == "international"
    assert 'data-board data-variant="international"' in client.get("/").content.decode()


def test_variant_switcher_on_a_variant_page_links_to_the_same_page(client):
    html = client.get("/learn/czech/").content.decode()
    assert 'href="/learn/international/" data-variant="international"' in html
    assert 'href="/learn/brazilian/" data-variant="brazilian"' in html


def test_navigation_links_to_every_section(client):
    html = client.get("/").content.decode()
    for href in [
        "/learn/czech/",
        "/puzzles/czech/",
        "/daily/czech/",
        "/teach/",
        "/accounts/login/",
        "/accounts/signup/",
    ]:
        assert f'href="{href}"' in html


def test_teach_asks_anonymous_visitors_to_log_in(client):
    response = client.get("/teach/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/teach/"


def test_teacher_sees_the_teach_dashboard(client, teacher):
    client.force_login(teacher)
    html = client.get("/teach/").content.decode()
    assert 'data-testid="teach-dashboard"' in html


def test_student_sees_how_to_become_a_teacher(client, student):
    client.force_login(student)
    html = client.get("/teach/").content.decode()
    assert 'data-testid="teach-request"' in html
    assert 'data-testid="teach-dashboard"' not in html


def test_teacher_required_decorator_lets_teachers_in_and_keeps_others_out(rf, teacher, student):
    from django.contrib.auth.models import AnonymousUser
    from django.core.exceptions import PermissionDenied
    from django.http import HttpResponse

    from accounts.decorators import teacher_required

    view = teacher_required(lambda request: HttpResponse("ok"))
    request = rf.get("/teach/x")
    request.user = teacher
    assert view(request).status_code == 200
    request.user = student
    with pytest.raises(PermissionDenied):
        view(request)
    request.user = AnonymousUser()
    assert view(request).status_code == 302


def test_unknown_job_is_a_404(client, staff):
    client.force_login(staff)
    assert client.get(f"/jobs/{uuid.uuid4()}").status_code == 404
    assert client.get("/jobs/not-a-uuid").status_code == 404


def test_pages_work_on_a_phone_sized_layout(client):
    html = client.get("/").content.decode()
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html


def test_every_page_carries_the_csrf_token_for_htmx(client):
    html = client.get("/").content.decode()
    assert 'hx-headers=\'{"X-CSRFToken": "' in html
