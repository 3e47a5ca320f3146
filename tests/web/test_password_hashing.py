"""Passwords are hashed with Argon2id at OWASP's recommended cost (accounts/hashers.py), and an
older hash (PBKDF2, or Argon2 of other parameters) is replaced at the account's next log-in.

The tests' own settings hash with MD5 (tests/conftest.py); these tests use the production list,
``dama_learn.settings.PASSWORD_HASHERS``, with the real hashers."""

from __future__ import annotations

import importlib

import pytest
from django.contrib.auth.hashers import Argon2PasswordHasher, check_password, make_password
from django.core.cache import cache
from django.test import override_settings

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

#: the hash of the site's hasher starts so: Argon2id, version 19, 19 MiB, 2 passes, 1 lane
SITE_ARGON2 = "argon2$argon2id$v=19$m=19456,t=2,p=1$"


def production_hashers() -> list[str]:
    return importlib.import_module("dama_learn.settings").PASSWORD_HASHERS


@pytest.fixture(autouse=True)
def empty_cache():
    """The log-in limits count in the cache: each test starts with none counted."""
    cache.clear()
    yield
    cache.clear()


def test_the_production_hasher_list_starts_with_argon2_at_owasps_cost_and_keeps_pbkdf2():
    hashers = production_hashers()
    assert hashers[0] == "accounts.hashers.SiteArgon2PasswordHasher", hashers
    # the hashes made before (the demo fixture's, every older account) still verify
    assert "django.contrib.auth.hashers.PBKDF2PasswordHasher" in hashers[1:], hashers
    with override_settings(PASSWORD_HASHERS=hashers):
        hashed = make_password(PASSWORD)
        assert hashed.startswith(SITE_ARGON2), hashed
        assert check_password(PASSWORD, hashed) and not check_password("wrong", hashed)


@pytest.mark.parametrize(
    "old_hasher",
    ["pbkdf2_sha256", Argon2PasswordHasher()],  # Django's default Argon2: 100 MiB, 8 lanes
    ids=["pbkdf2", "argon2-other-parameters"],
)
def test_an_older_hash_is_replaced_by_the_sites_argon2_at_log_in(
    client, django_user_model, old_hasher
):
    with override_settings(PASSWORD_HASHERS=production_hashers()):
        old = make_password(PASSWORD, hasher=old_hasher)
        assert not old.startswith(SITE_ARGON2), old
        user = django_user_model.objects.create(username="olda", password=old)

        response = client.post("/accounts/login/", {"username": "olda", "password": PASSWORD})
        assert response.status_code == 302, response.content.decode()[:500]
        user.refresh_from_db()
        assert user.password.startswith(SITE_ARGON2), user.password
        assert user.password != old

        client.logout()
        again = client.post("/accounts/login/", {"username": "olda", "password": PASSWORD})
        assert again.status_code == 302, "the new hash lets the account log in"
