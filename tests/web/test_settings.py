"""Settings come from the environment: safe laptop defaults, clear errors, a clean deploy check."""

from __future__ import annotations

import os
import subprocess
import sys

from django.conf import settings

ROOT = settings.BASE_DIR
GOOD_KEY = "k3y-" + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOP"
SETTING_VARS = [
    "DEBUG",
    "DJANGO_SECRET_KEY",
    "ALLOWED_HOSTS",
    "DATABASE_URL",
    "REDIS_URL",
    "CELERY_BROKER_URL",
    "CSRF_TRUSTED_ORIGINS",
    "DAMA_TEACHERS_AUTO_APPROVE",
    "DAMA_TRUSTED_PROXIES",
    "DAMA_LOGIN_DELAY_SECONDS",
    "DAMA_LOGIN_MAX_DELAY_SECONDS",
    "DAMA_SERVER_TIMING",
    "DAMA_HEALTHZ_TOKEN",
    "DJANGO_ALLOW_ASYNC_UNSAFE",
    "DAMA_HEARTBEAT_SECONDS",
    "DAMA_OUTAGE_SECONDS",
]


def run(code: str, tmp_path, **env: str) -> subprocess.CompletedProcess[str]:
    """Import the settings in a fresh interpreter with exactly ``env`` set."""
    clean = {k: v for k, v in os.environ.items() if k not in SETTING_VARS}
    clean.update(
        DJANGO_SETTINGS_MODULE="dama_learn.settings",
        DAMA_DEV_SECRET_KEY_FILE=str(tmp_path / "dev-key"),
        DAMA_VAR_DIR=str(tmp_path / "var"),
        **env,
    )
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings as s; " + code,
        ],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )


PRODUCTION = {"DEBUG": "0", "DJANGO_SECRET_KEY": GOOD_KEY, "ALLOWED_HOSTS": "dama.example.org"}


def test_laptop_defaults_need_no_environment(tmp_path):
    result = run(
        "print(s.DEBUG, s.DATABASES['default']['ENGINE'], s.CELERY_BROKER_URL.split(':')[0])",
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "django.db.backends.sqlite3", "sqla+sqlite"]


def test_dev_secret_key_is_made_once_and_kept(tmp_path):
    first = run("print(s.SECRET_KEY)", tmp_path)
    second = run("print(s.SECRET_KEY)", tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert (tmp_path / "dev-key").read_text().strip() == first.stdout.strip()
    assert len(first.stdout.strip()) >= 50


def test_production_requires_a_secret_key(tmp_path):
    result = run("", tmp_path, DEBUG="0", ALLOWED_HOSTS="dama.example.org")
    assert result.returncode != 0
    assert "ImproperlyConfigured: DJANGO_SECRET_KEY must be set" in result.stderr


def test_production_refuses_a_weak_secret_key(tmp_path):
    result = run("", tmp_path, DEBUG="0", ALLOWED_HOSTS="x.org", DJANGO_SECRET_KEY="short")
    assert "DJANGO_SECRET_KEY is too weak" in result.stderr


def test_production_requires_allowed_hosts(tmp_path):
    result = run("", tmp_path, DEBUG="0", DJANGO_SECRET_KEY=GOOD_KEY)
    assert "ALLOWED_HOSTS must be set" in result.stderr


def test_a_bad_boolean_names_the_variable(tmp_path):
    result = run("", tmp_path, DEBUG="maybe")
    assert "ImproperlyConfigured: DEBUG='maybe' is not a boolean" in result.stderr


def test_a_bad_database_url_names_the_variable(tmp_path):
    result = run("", tmp_path, DATABASE_URL="oracle-ish://nowhere")
    assert "ImproperlyConfigured: DATABASE_URL must be a URL" in result.stderr


def test_a_bad_redis_url_names_the_variable(tmp_path):
    result = run("", tmp_path, REDIS_URL="http://127.0.0.1:6379")
    assert "ImproperlyConfigured: REDIS_URL must be a URL" in result.stderr


def test_a_bad_broker_url_names_the_variable(tmp_path):
    result = run("", tmp_path, CELERY_BROKER_URL="ftp://x")
    assert "ImproperlyConfigured: CELERY_BROKER_URL must be a URL" in result.stderr


def test_an_outage_threshold_within_two_heartbeats_is_refused(tmp_path):
    result = run("", tmp_path, DAMA_HEARTBEAT_SECONDS="5", DAMA_OUTAGE_SECONDS="10")
    assert "ImproperlyConfigured: DAMA_OUTAGE_SECONDS=10 must be more than twice" in result.stderr
    ok = run("print(s.DAMA_OUTAGE_SECONDS)", tmp_path, DAMA_HEARTBEAT_SECONDS="0")
    assert ok.stdout.strip() == "10", ok.stderr


def test_redis_url_switches_broker_and_cache(tmp_path):
    result = run(
        "print(s.CELERY_BROKER_URL, s.CACHES['default']['BACKEND'])",
        tmp_path,
        REDIS_URL="redis://r:6379/1",
    )
    assert result.stdout.split() == [
        "redis://r:6379/1",
        "django_redis.cache.RedisCache",
    ]


def test_celery_broker_url_wins_over_redis_url(tmp_path):
    result = run(
        "print(s.CELERY_BROKER_URL)",
        tmp_path,
        REDIS_URL="redis://r/1",
        CELERY_BROKER_URL="amqp://q//",
    )
    assert result.stdout.strip() == "amqp://q//"


def test_database_url_switches_the_database(tmp_path):
    result = run(
        "print(s.DATABASES['default']['ENGINE'], s.DATABASES['default']['NAME'])",
        tmp_path,
        DATABASE_URL="postgres://u@h:5432/dama",
    )
    assert result.stdout.split() == ["django.db.backends.postgresql", "dama"]


def test_teacher_approval_follows_debug_unless_set(tmp_path):
    assert run("print(s.DAMA_TEACHERS_AUTO_APPROVE)", tmp_path).stdout.strip() == "True"
    assert (
        run("print(s.DAMA_TEACHERS_AUTO_APPROVE)", tmp_path, **PRODUCTION).stdout.strip() == "False"
    )
    result = run("print(s.DAMA_TEACHERS_AUTO_APPROVE)", tmp_path, DAMA_TEACHERS_AUTO_APPROVE="no")
    assert result.stdout.strip() == "False"


def test_server_timing_follows_debug_unless_set(tmp_path):
    code = "print(s.DAMA_SERVER_TIMING)"
    assert run(code, tmp_path).stdout.strip() == "True"
    assert run(code, tmp_path, **PRODUCTION).stdout.strip() == "False"
    assert run(code, tmp_path, **PRODUCTION, DAMA_SERVER_TIMING="1").stdout.strip() == "True"
    assert (
        "DAMA_SERVER_TIMING='sometimes'" in run("", tmp_path, DAMA_SERVER_TIMING="sometimes").stderr
    )


def test_a_short_healthz_token_is_refused(tmp_path):
    result = run("", tmp_path, DAMA_HEALTHZ_TOKEN="secret")
    assert result.returncode != 0
    assert "DAMA_HEALTHZ_TOKEN is too short" in result.stderr
    good = "t0ken-" + "x" * 40
    assert (
        run("print(s.DAMA_HEALTHZ_TOKEN)", tmp_path, DAMA_HEALTHZ_TOKEN=good).stdout.strip() == good
    )


def test_production_sends_a_strict_content_security_policy(tmp_path):
    code = (
        "from csp.utils import build_policy; "
        "print(s.MIDDLEWARE.index('csp.middleware.CSPMiddleware')); print(build_policy())"
    )
    result = run(code, tmp_path, **PRODUCTION)
    assert result.returncode == 0, result.stderr
    position, policy = result.stdout.strip().splitlines()[-2:]
    assert int(position) <= 2  # above WhiteNoise: static files carry it too
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives == {
        "default-src": "'self'",
        "script-src": "'self'",
        "style-src": "'self'",
        "connect-src": "'self'",  # htmx and the live lessons' WebSocket to the site itself
        "object-src": "'none'",
        "base-uri": "'self'",
        "frame-ancestors": "'none'",
        "form-action": "'self'",
    }


def check_deploy(tmp_path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in SETTING_VARS}
    env.update(
        PRODUCTION,
        DAMA_VAR_DIR=str(tmp_path / "var"),
        DAMA_DEV_SECRET_KEY_FILE=str(tmp_path / "k"),
        **extra,
    )
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_pass_the_deploy_check_without_warnings(tmp_path):
    result = check_deploy(tmp_path, REDIS_URL="redis://redis.internal:6379/0")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_the_deploy_check_fails_without_a_shared_cache(tmp_path):
    # each gunicorn worker would count log-in failures in a cache of its own (issue 22, item 6)
    result = check_deploy(tmp_path)
    assert result.returncode != 0
    assert "dama.E001" in result.stderr and "Set REDIS_URL" in result.stderr


def test_the_shared_cache_check_is_for_production_only(settings):
    from core.ratelimit import check_shared_cache

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.DEBUG = True
    assert check_shared_cache() == []
    settings.DEBUG = False
    assert [error.id for error in check_shared_cache()] == ["dama.E001"]
    for backend in ("django_redis.cache.RedisCache", "django.core.cache.backends.redis.RedisCache"):
        settings.CACHES = {"default": {"BACKEND": backend, "LOCATION": "redis://r"}}
        assert check_shared_cache() == []


def test_trusted_proxies_are_addresses_or_networks(tmp_path):
    result = run(
        "print(s.DAMA_TRUSTED_PROXIES)", tmp_path, DAMA_TRUSTED_PROXIES="127.0.0.1, 10.0.0.0/8"
    )
    assert result.stdout.strip() == "['127.0.0.1', '10.0.0.0/8']"
    assert run("print(s.DAMA_TRUSTED_PROXIES)", tmp_path).stdout.strip() == "[]"
    result = run("", tmp_path, DAMA_TRUSTED_PROXIES="127.0.0.1,proxy.internal")
    assert "ImproperlyConfigured: DAMA_TRUSTED_PROXIES entry 'proxy.internal'" in result.stderr


def test_the_longest_login_delay_cannot_be_shorter_than_the_first(tmp_path):
    result = run("", tmp_path, DAMA_LOGIN_DELAY_SECONDS="60", DAMA_LOGIN_MAX_DELAY_SECONDS="10")
    assert "ImproperlyConfigured: DAMA_LOGIN_MAX_DELAY_SECONDS=10 must be at least" in result.stderr


def test_gunicorn_runs_one_sync_worker_per_core_unless_told(monkeypatch):
    import runpy

    monkeypatch.delenv("GUNICORN_WORKERS", raising=False)
    config = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    assert config["workers"] == (os.cpu_count() or 2)
    assert config["worker_class"] == "sync"
    monkeypatch.setenv("GUNICORN_WORKERS", "7")
    assert runpy.run_path(str(ROOT / "gunicorn.conf.py"))["workers"] == 7
