"""Log-in rate limiting: after N failures for one username from one address the log-in page
answers 429 with a clear message (even to the right password) until the window ends; on the
locmem cache and on Redis; a cache that is down never locks anyone out."""

from __future__ import annotations

import uuid

import pytest
from django.core.cache import cache, caches

from core.ratelimit import Limiter
from tests.conftest import PASSWORD, redis_problem, redis_url, service_unavailable

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"


def fail(client, username="standa", address="10.0.0.1"):
    return client.post(LOGIN, {"username": username, "password": "wrong"}, REMOTE_ADDR=address)


def test_five_failures_block_the_sixth_attempt_with_a_clear_429(client, student, settings):
    settings.DAMA_LOGIN_FAILURES = 5
    for _ in range(5):
        response = fail(client)
        assert response.status_code == 200
        assert "correct username and password" in response.content.decode()
    blocked = client.post(
        LOGIN, {"username": "standa", "password": PASSWORD}, REMOTE_ADDR="10.0.0.1"
    )
    assert blocked.status_code == 429
    assert "Too many failed log-in attempts" in blocked.content.decode()
    assert blocked["Retry-After"] == str(settings.DAMA_LOGIN_WINDOW_SECONDS)
    assert "_auth_user_id" not in client.session


def test_the_block_is_per_username_and_address(client, student, outsider, settings):
    settings.DAMA_LOGIN_FAILURES = 3
    for _ in range(3):
        fail(client)
    assert fail(client).status_code == 429
    # the same user from another address, another user from the same address: not blocked
    ok = client.post(LOGIN, {"username": "standa", "password": PASSWORD}, REMOTE_ADDR="10.0.0.2")
    assert ok.status_code == 302
    client.logout()
    ok = client.post(LOGIN, {"username": "olga", "password": PASSWORD}, REMOTE_ADDR="10.0.0.1")
    assert ok.status_code == 302


def test_one_address_trying_many_usernames_is_blocked_too(client, student, settings):
    settings.DAMA_LOGIN_FAILURES = 2  # 8 failures per address, any username
    for n in range(8):
        assert fail(client, username=f"guess{n}").status_code == 200
    assert fail(client, username="someone-else").status_code == 429


def test_a_successful_login_clears_the_users_failures(client, student, settings):
    settings.DAMA_LOGIN_FAILURES = 3
    fail(client)
    fail(client)
    client.post(LOGIN, {"username": "standa", "password": PASSWORD}, REMOTE_ADDR="10.0.0.1")
    client.logout()
    fail(client)
    fail(client)
    assert fail(client).status_code == 200  # 3 counted from zero again: the 4th would be blocked
    assert fail(client).status_code == 429


def test_the_window_ends(client, student, settings, monkeypatch):
    settings.DAMA_LOGIN_FAILURES = 2
    fail(client)
    fail(client)
    assert fail(client).status_code == 429
    cache.clear()  # what the window's expiry does
    assert fail(client).status_code == 200


def test_usernames_differing_in_case_count_together(client, student, settings):
    settings.DAMA_LOGIN_FAILURES = 2
    fail(client, username="Standa")
    fail(client, username="STANDA")
    assert fail(client, username="standa").status_code == 429


@pytest.fixture
def redis_cache(settings):
    url = redis_url()
    problem = redis_problem(url)
    if problem:
        service_unavailable(f"Redis is not reachable at {url}: {problem}")
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "KEY_PREFIX": f"test-ratelimit-{uuid.uuid4().hex}",
        }
    }
    yield caches["default"]


def test_the_limiter_works_on_redis(client, student, settings, redis_cache):
    settings.DAMA_LOGIN_FAILURES = 2
    limiter = Limiter("login-user", 2, 300)
    assert "Redis" in type(redis_cache).__name__
    fail(client)
    fail(client)
    assert limiter.count("standa", "10.0.0.1") == 2
    assert (
        redis_cache._cache.get_client().ttl(
            redis_cache.make_and_validate_key(limiter.key("standa", "10.0.0.1"))
        )
        > 0
    )
    assert fail(client).status_code == 429
    limiter.reset("standa", "10.0.0.1")
    ip_limiter = Limiter("login-ip", 8, 300)
    ip_limiter.reset("10.0.0.1")


def test_a_cache_that_is_down_never_locks_anyone_out(client, student, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens there
        }
    }
    settings.DAMA_LOGIN_FAILURES = 1
    assert fail(client).status_code == 200
    assert fail(client).status_code == 200
    ok = client.post(LOGIN, {"username": "standa", "password": PASSWORD}, REMOTE_ADDR="10.0.0.1")
    assert ok.status_code == 302
