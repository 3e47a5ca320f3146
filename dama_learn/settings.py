"""Settings for dama_learn, read from the environment.

Laptop defaults need nothing: DEBUG on, SQLite in the project folder, and a broker that needs no
server (Kombu's SQLAlchemy transport on a SQLite file under ``var/``). Production sets ``DEBUG=0``,
``DJANGO_SECRET_KEY``, ``ALLOWED_HOSTS``, ``DATABASE_URL`` and ``REDIS_URL`` (docs/settings.md).
A bad value stops start-up with an ``ImproperlyConfigured`` that names the variable.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from pathlib import Path
from urllib.parse import urlparse

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("DAMA_VAR_DIR", BASE_DIR / "var"))

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name}={raw!r} is not a boolean: use 1/0, true/false, yes/no or on/off."
    )


def env_int(name: str, default: int, *, minimum: int = 0) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number.") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name}={raw!r} must be at least {minimum}.")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_url(name: str, schemes: set[str]) -> str | None:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    scheme = urlparse(raw).scheme
    if scheme not in schemes:
        allowed = ", ".join(sorted(schemes))
        raise ImproperlyConfigured(
            f"{name} must be a URL starting with one of: {allowed} (got {scheme or 'no scheme'!r})."
        )
    return raw


DEBUG = env_bool("DEBUG", True)

# --- secret key -----------------------------------------------------------------------------------
DEV_SECRET_KEY_FILE = Path(os.environ.get("DAMA_DEV_SECRET_KEY_FILE", BASE_DIR / ".dev-secret-key"))


def _dev_secret_key() -> str:
    """A random key made once for this checkout and kept in an ignored file."""
    try:
        key = DEV_SECRET_KEY_FILE.read_text().strip()
    except FileNotFoundError:
        key = ""
    if len(key) < 50:
        key = secrets.token_urlsafe(50)
        DEV_SECRET_KEY_FILE.write_text(key + "\n")
        DEV_SECRET_KEY_FILE.chmod(0o600)
    return key


SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "").strip()
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY must be set when DEBUG is off: use a random string of 50 or more characters."
        )
    SECRET_KEY = _dev_secret_key()
elif not DEBUG and (len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5):
    raise ImproperlyConfigured(
        "DJANGO_SECRET_KEY is too weak: use a random string of 50 or more characters."
    )

# --- hosts ----------------------------------------------------------------------------------------
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
if not DEBUG and not ALLOWED_HOSTS:
    raise ImproperlyConfigured(
        "ALLOWED_HOSTS must be set when DEBUG is off, e.g. ALLOWED_HOSTS=dama.example.org."
    )
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
for _origin in CSRF_TRUSTED_ORIGINS:
    if urlparse(_origin).scheme not in {"http", "https"}:
        raise ImproperlyConfigured(
            f"CSRF_TRUSTED_ORIGINS entry {_origin!r} must start with https:// or http://."
        )

# --- apps -----------------------------------------------------------------------------------------
INSTALLED_APPS = [
    # Channels' ASGI server: `manage.py runserver` (so `make run`) serves the WebSockets of the live
    # lessons too (live/); listed first so that its runserver is the one used
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "core",
    "accounts",
    "lessons",
    "puzzles",
    "classroom",
    "review",
    "live",
    "play",
    "exams",
    "versus",
    "tournaments",
    "explore",
    "analysis",
]

MIDDLEWARE = [
    "core.timing.ServerTimingMiddleware",  # Server-Timing when DAMA_SERVER_TIMING (load tests)
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",  # Content-Security-Policy on every response (below)
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]


ROOT_URLCONF = "dama_learn.urls"
WSGI_APPLICATION = "dama_learn.wsgi.application"
# HTTP and the live lessons' WebSockets (dama_learn/asgi.py; docs/live.md)
ASGI_APPLICATION = "dama_learn.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "core.context_processors.site",
                "review.context_processors.review",
            ],
        },
    },
]

# --- database -------------------------------------------------------------------------------------
_database_url = (
    env_url("DATABASE_URL", {"sqlite", "postgres", "postgresql", "pgsql", "postgis", "mysql"})
    or f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
)
try:
    DATABASES = {
        # health checks: a persistent connection cut by a database restart is replaced before
        # the next request uses it, instead of failing that request (tests/faults)
        "default": dj_database_url.parse(
            _database_url, conn_max_age=env_int("DB_CONN_MAX_AGE", 0), conn_health_checks=True
        )
    }
except ValueError as exc:
    raise ImproperlyConfigured(f"DATABASE_URL is not a usable database URL: {exc}") from None
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Web server and worker processes share the file: wait for locks, write-ahead log.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # A file (not memory) so that a Celery worker started by a test sees the test database.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-db.sqlite3")}
elif os.environ.get("DAMA_TEST_DB_NAME"):
    # the test run's own database on a shared server (tests/postgres_run.py names it per run)
    DATABASES["default"]["TEST"] = {"NAME": os.environ["DAMA_TEST_DB_NAME"]}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- cache ----------------------------------------------------------------------------------------
REDIS_URL = env_url("REDIS_URL", {"redis", "rediss", "unix"})
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# Redis through django-redis: its client is made once per process and cache alias, where
# Django's own RedisCache makes a redis-py client object on every call (about 0.07 ms of the
# 0.1 ms a read took here; a request makes two to eight of them). The default alias raises when
# Redis is down: its users (core.kept, core.ratelimit, review) catch that and go on without it.


def redis_caches(url: str) -> dict[str, dict]:
    """The cache aliases on the Redis at ``url``: ``default``, and ``sessions`` for the cached_db
    session store (below). The tests that move the caches to another Redis take them from here."""
    return {
        "default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": url},
        "sessions": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": url,
            "KEY_PREFIX": "sessions",
            "OPTIONS": {"IGNORE_EXCEPTIONS": True},
        },
    }


if REDIS_URL:
    CACHES = {"default": redis_caches(REDIS_URL)["default"]}
# The page parts every visitor of a kind shares (the main navigation: its links and words by
# language, variant and section), kept by each process ({% cache %} uses this alias): the same for
# everyone and changed only by a deploy, so not worth a round trip to Redis.
CACHES["template_fragments"] = {
    "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
    "LOCATION": "template-fragments",
    "OPTIONS": {"MAX_ENTRIES": 2000},
}
# The live lessons' channel layer (Django Channels): Redis when REDIS_URL (or
# DAMA_CHANNELS_REDIS_URL, a database of its own) is set, which every process of the site shares
# (gunicorn's workers send, the ASGI server's consumers receive); otherwise one process's memory,
# enough for `make run` (daphne's runserver serves HTTP and WebSockets in one process).
DAMA_CHANNELS_REDIS_URL = (
    env_url("DAMA_CHANNELS_REDIS_URL", {"redis", "rediss", "unix"}) or REDIS_URL
)
CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
# which of channels-redis's layers: "core" (lists and sorted sets: several round trips a group
# message) or "pubsub" (Redis's publish/subscribe: one PUBLISH a group message). pubsub relays a
# game's moves faster (docs/benchmarks/versus.md), but while Redis is down its sockets stay open
# and silent, where core closes them and the pages poll (tests/faults/test_versus_faults.py)
DAMA_CHANNELS_LAYER = os.environ.get("DAMA_CHANNELS_LAYER", "core").strip() or "core"
#: the layer's class for each choice
CHANNELS_LAYER_BACKENDS = {
    "core": "channels_redis.core.RedisChannelLayer",
    "pubsub": "channels_redis.pubsub.RedisPubSubChannelLayer",
}
if DAMA_CHANNELS_LAYER not in ("core", "pubsub"):
    raise ImproperlyConfigured("DAMA_CHANNELS_LAYER must be core or pubsub.")
if DAMA_CHANNELS_REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": CHANNELS_LAYER_BACKENDS[DAMA_CHANNELS_LAYER],
            "CONFIG": {
                "hosts": [DAMA_CHANNELS_REDIS_URL],
                "prefix": os.environ.get("DAMA_CHANNELS_PREFIX", "dama-live"),
            },
        }
    }
# Open sockets of one user in one live lesson (tabs, devices): one more is refused (close code
# 4429), so that one account cannot slow every push of the lesson (live.models.LiveSocket)
DAMA_LIVE_SOCKETS_PER_USER = env_int("DAMA_LIVE_SOCKETS_PER_USER", 4, minimum=1)
# Open game sockets (/ws/versus/...) of one signed-in account across the site
# (counted in the default cache: Redis when REDIS_URL is set, else one process's memory); one more
# is refused with 4429 (versus.sockets)
DAMA_VERSUS_SOCKETS_PER_USER = env_int("DAMA_VERSUS_SOCKETS_PER_USER", 8, minimum=1)
# Sessions: Django's database store; with Redis, its cached_db store, which reads a request's
# session from Redis (the database stays the record: every write goes there first). Its cache
# ignores Redis's connection errors (django-redis's IGNORE_EXCEPTIONS: a read is a miss, a write
# is skipped, each logged): Django's cached_db store catches the cache's errors on some paths
# (reading, saving) but not on others (writing a session read from the database back to the
# cache, asking whether a new key exists, deleting at logout), so with Redis down the sessions
# come from the database instead of failing every request (tests/faults). Without Redis the db
# store: a locmem cache is per process.
SESSION_ENGINE = "django.contrib.sessions.backends.db"
if REDIS_URL:
    CACHES["sessions"] = redis_caches(REDIS_URL)["sessions"]
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    SESSION_CACHE_ALIAS = "sessions"
DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
DJANGO_REDIS_LOGGER = "dama_learn.cache"

# --- auth -----------------------------------------------------------------------------------------
# Argon2id at OWASP's recommended cost (19 MiB, 2 passes, 1 lane: about 20 ms a hash, where
# Django's default PBKDF2 takes 0.3 s), so that a class logging in at once does not stall the site
# (accounts/hashers.py). Django's other hashers follow: it still checks their hashes (the demo
# fixture's, every account made before) and replaces each with an Argon2 one at its next log-in.
PASSWORD_HASHERS = [
    "accounts.hashers.SiteArgon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Log-in attempts (core/ratelimit.py, on the cache): after DAMA_LOGIN_FAILURES failures of one
# account (from any address) each further attempt waits DAMA_LOGIN_DELAY_SECONDS, doubled after
# every failure up to DAMA_LOGIN_MAX_DELAY_SECONDS (429 with Retry-After meanwhile); one address
# gets 4x DAMA_LOGIN_FAILURES failures (any user names) per DAMA_LOGIN_WINDOW_SECONDS.
DAMA_LOGIN_FAILURES = env_int("DAMA_LOGIN_FAILURES", 5, minimum=1)
DAMA_LOGIN_WINDOW_SECONDS = env_int("DAMA_LOGIN_WINDOW_SECONDS", 300, minimum=1)
DAMA_LOGIN_DELAY_SECONDS = env_int("DAMA_LOGIN_DELAY_SECONDS", 2, minimum=1)
DAMA_LOGIN_MAX_DELAY_SECONDS = env_int("DAMA_LOGIN_MAX_DELAY_SECONDS", 900, minimum=1)
if DAMA_LOGIN_MAX_DELAY_SECONDS < DAMA_LOGIN_DELAY_SECONDS:
    raise ImproperlyConfigured(
        f"DAMA_LOGIN_MAX_DELAY_SECONDS={DAMA_LOGIN_MAX_DELAY_SECONDS} must be at least "
        f"DAMA_LOGIN_DELAY_SECONDS={DAMA_LOGIN_DELAY_SECONDS}."
    )
# Per client address and hour: sign-ups, and password-reset requests (also e-mail changes per
# account); per target address and hour: mails (reset links, address confirmations).
DAMA_SIGNUPS_PER_HOUR = env_int("DAMA_SIGNUPS_PER_HOUR", 10, minimum=1)
DAMA_RESETS_PER_HOUR = env_int("DAMA_RESETS_PER_HOUR", 10, minimum=1)
DAMA_MAILS_PER_ADDRESS_PER_HOUR = env_int("DAMA_MAILS_PER_ADDRESS_PER_HOUR", 3, minimum=1)
# Wrong join codes per client address and hour (classroom.views.join): then every code gets 429
# until the hour is over. Only wrong codes count (a class joining from a school shares an address).
DAMA_JOIN_GUESSES_PER_HOUR = env_int("DAMA_JOIN_GUESSES_PER_HOUR", 60, minimum=1)
# Exams (exams/): hours before a real exam of a level can be taken again, and the percentage of the
# corpus's proven puzzles kept for the exams (practice never serves them; exams.pool).
DAMA_EXAM_COOLDOWN_HOURS = env_int("DAMA_EXAM_COOLDOWN_HOURS", 24)
DAMA_EXAM_SHARE = env_int("DAMA_EXAM_SHARE_PERCENT", 25, minimum=0) / 100
# the play app's level (1-8) at which the computer defends an exam's endgame (on a worker)
DAMA_EXAM_ENGINE_LEVEL = env_int("DAMA_EXAM_ENGINE_LEVEL", 6, minimum=1)
# The reverse proxies in front of the site (addresses or networks, comma separated). Only a request
# that comes from one of them has its client address read from X-Forwarded-For (the right-most
# address that is not a trusted proxy); without this, every client behind a proxy is the proxy.
DAMA_TRUSTED_PROXIES = env_list("DAMA_TRUSTED_PROXIES", [])
for _proxy in DAMA_TRUSTED_PROXIES:
    try:
        ipaddress.ip_network(_proxy, strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"DAMA_TRUSTED_PROXIES entry {_proxy!r} is not an IP address or network "
            "(e.g. 127.0.0.1 or 10.0.0.0/8)."
        ) from None
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
# Teachers asked for at sign-up are granted at once when this is on (the default with DEBUG);
# otherwise an admin grants the role in the admin.
DAMA_TEACHERS_AUTO_APPROVE = env_bool("DAMA_TEACHERS_AUTO_APPROVE", DEBUG)

# --- i18n -----------------------------------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [("cs", _("Czech")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = os.environ.get("TIME_ZONE", "Europe/Prague")
USE_TZ = True

# --- static files ---------------------------------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
# Without collectstatic (development, tests) WhiteNoise serves straight from the finders.
WHITENOISE_AUTOREFRESH = DEBUG
WHITENOISE_USE_FINDERS = DEBUG
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# --- e-mail ---------------------------------------------------------------------------------------
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "dama_learn <noreply@localhost>")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1)
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"

# --- security (all on in production; `manage.py check --deploy` is clean) -------------------------
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    if env_bool("SECURE_PROXY_SSL_HEADER", False):
        # Only behind a proxy that sets X-Forwarded-Proto itself.
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # The health check is probed over plain HTTP by load balancers.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
# Content-Security-Policy (django-csp): scripts, styles and everything else only from the site's own
# files; no inline script, event handler, style attribute or eval anywhere (htmx's indicator style
# and eval are off in base.html's htmx-config, and so is its copying of an element's style attribute
# to the new one with the same id when it settles a swap: a style an extension or a tool set through
# the CSSOM, which the policy allows, became a style attribute set by a script, which it refuses).
# tests/browser/test_a11y.py and test_layout.py fail on any violation.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        # htmx and the live lessons' WebSocket: the site itself only ('self' covers ws:// and wss://
        # to the page's own host in CSP Level 3 browsers; an older browser that refuses the socket
        # follows the lesson by polling, live/static/live/live.js)
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    }
}
# The Server-Timing header (core/timing.py) helps timing attacks: sent only with DEBUG, or when
# DAMA_SERVER_TIMING=1 (the load test sets it to report the server's own times).
DAMA_SERVER_TIMING = env_bool("DAMA_SERVER_TIMING", DEBUG)
# /healthz tells anyone "ok" or "unavailable"; staff, and callers that send
# "Authorization: Bearer <DAMA_HEALTHZ_TOKEN>", also get the details (database, broker, workers).
DAMA_HEALTHZ_TOKEN = os.environ.get("DAMA_HEALTHZ_TOKEN", "").strip()
if DAMA_HEALTHZ_TOKEN and len(DAMA_HEALTHZ_TOKEN) < 32:
    raise ImproperlyConfigured(
        "DAMA_HEALTHZ_TOKEN is too short: use a random string of 32 or more characters."
    )

# The engine's endgame databases (docs/endgames.md): built by `python -m dama endgames build --dir
# DIR` or the core.deep_build_endgames task; core hands the directory to the engine as
# $DAMA_ENDGAMES. Without the files everything works as before (nothing is covered).
DAMA_ENDGAMES_DIR = Path(
    os.environ.get("DAMA_ENDGAMES_DIR", "").strip()
    or os.environ.get("DAMA_ENDGAMES", "").strip()
    or BASE_DIR / "var" / "endgames"
)

# --- Celery ---------------------------------------------------------------------------------------
_broker = env_url(
    "CELERY_BROKER_URL",
    {"redis", "rediss", "amqp", "amqps", "sqla+sqlite", "sqla+postgresql", "filesystem", "memory"},
)
CELERY_BROKER_URL = _broker or REDIS_URL or f"sqla+sqlite:///{VAR_DIR / 'celery-broker.sqlite3'}"
CELERY_TASK_IGNORE_RESULT = True  # results are written to the database by the tasks themselves
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "default"
# Deep searches, puzzle proofs and the computer's moves in games get their own queues
# (workers: -Q default,deep,verify, -Q exam,play and -Q analysis); an exam's endgame's searches are sent to the
# "exam" queue (play.models.Search).
CELERY_TASK_ROUTES = {
    "*.deep_*": {"queue": "deep"},
    "puzzles.verify_puzzle": {"queue": "verify"},
    "play.*": {"queue": "play"},
    "analysis.*": {"queue": "analysis"},
}


def hard_time_limit(soft: int) -> int:
    """The hard limit that follows a soft one: up to 30 s of grace (less for short limits)."""
    return soft + min(30, max(2, soft // 4))


CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 300, minimum=1)
CELERY_TASK_TIME_LIMIT = hard_time_limit(CELERY_TASK_SOFT_TIME_LIMIT)

# Puzzle proofs (puzzles.tasks.verify_puzzle, queue "verify"). A puzzle's own limits default to
# DAMA_PROOF_NODES / DAMA_PROOF_SECONDS and may not ask for more than DAMA_PROOF_MAX_SECONDS; the
# task's soft time limit leaves a minute for building the proof tree on top of that. 40 M nodes take
# about 18 s with the compiled engine (the time limit stops pure Python at about 19 M).
DAMA_PROOF_NODES = env_int("DAMA_PROOF_NODES", 40_000_000, minimum=1)
DAMA_PROOF_SECONDS = env_int("DAMA_PROOF_SECONDS", 60, minimum=1)
DAMA_PROOF_MAX_SECONDS = env_int("DAMA_PROOF_MAX_SECONDS", 300, minimum=1)
if DAMA_PROOF_SECONDS > DAMA_PROOF_MAX_SECONDS:
    raise ImproperlyConfigured(
        f"DAMA_PROOF_SECONDS={DAMA_PROOF_SECONDS} must not exceed DAMA_PROOF_MAX_SECONDS={DAMA_PROOF_MAX_SECONDS}."
    )
DAMA_VERIFY_SOFT_TIME_LIMIT = env_int(
    "DAMA_VERIFY_SOFT_TIME_LIMIT", DAMA_PROOF_MAX_SECONDS + 60, minimum=1
)
if DAMA_VERIFY_SOFT_TIME_LIMIT <= DAMA_PROOF_MAX_SECONDS:
    raise ImproperlyConfigured(
        f"DAMA_VERIFY_SOFT_TIME_LIMIT={DAMA_VERIFY_SOFT_TIME_LIMIT} must be longer than "
        f"DAMA_PROOF_MAX_SECONDS={DAMA_PROOF_MAX_SECONDS} (the solver stops itself first)."
    )
DAMA_VERIFY_TIME_LIMIT = hard_time_limit(DAMA_VERIFY_SOFT_TIME_LIMIT)
# A running proof writes its progress every DAMA_VERIFY_PROGRESS_SECONDS; one silent for
# DAMA_VERIFY_STALL_SECONDS is taken as lost (its worker died). The sweeper re-enqueues those and
# puzzles pending for DAMA_VERIFY_PENDING_SECONDS, and gives up after DAMA_VERIFY_MAX_ATTEMPTS.
DAMA_VERIFY_PROGRESS_SECONDS = 0.5
DAMA_VERIFY_STALL_SECONDS = env_int("DAMA_VERIFY_STALL_SECONDS", 120, minimum=1)
DAMA_VERIFY_PENDING_SECONDS = env_int("DAMA_VERIFY_PENDING_SECONDS", 900, minimum=1)
DAMA_VERIFY_MAX_ATTEMPTS = env_int("DAMA_VERIFY_MAX_ATTEMPTS", 3, minimum=1)
# After a unique verdict the worker refutes the tempting wrong moves (stored with the proof, read by
# the trainer) within DAMA_REFUTATION_SECONDS, and never past the task's soft time limit.
DAMA_REFUTATION_SECONDS = env_int("DAMA_REFUTATION_SECONDS", 20, minimum=0)
# Teachers' puzzles (puzzles with an author): a horizon of at most DAMA_AUTHOR_MAX_HORIZON moves, a
# proof of at most DAMA_AUTHOR_PROOF_NODES nodes and DAMA_AUTHOR_PROOF_SECONDS seconds, and at most
# DAMA_AUTHOR_ACTIVE_PROOFS proofs of one author on the workers at once (the rest wait their turn).
DAMA_AUTHOR_MAX_HORIZON = env_int("DAMA_AUTHOR_MAX_HORIZON", 10, minimum=1)
# (8 M nodes: about 4 s with the compiled engine; pure Python stops at the 20 s, about 6 M)
DAMA_AUTHOR_PROOF_NODES = env_int("DAMA_AUTHOR_PROOF_NODES", 8_000_000, minimum=1)
DAMA_AUTHOR_PROOF_SECONDS = env_int("DAMA_AUTHOR_PROOF_SECONDS", 20, minimum=1)
DAMA_AUTHOR_ACTIVE_PROOFS = env_int("DAMA_AUTHOR_ACTIVE_PROOFS", 2, minimum=1)
# The analysis of finished games (analysis/, queue "analysis"): at most DAMA_ANALYSIS_ACTIVE_PER_USER
# analyses of one user on the workers at once (the rest wait their turn in the database),
# DAMA_ANALYSIS_DAILY_GAMES analyses a user may ask for in 24 hours, an uploaded PDN file of at most
# DAMA_ANALYSIS_UPLOAD_BYTES bytes and DAMA_ANALYSIS_UPLOAD_GAMES games; an analysis sent but not
# done after DAMA_ANALYSIS_LOST_SECONDS is sent again by the sweeper.
DAMA_ANALYSIS_ACTIVE_PER_USER = env_int("DAMA_ANALYSIS_ACTIVE_PER_USER", 1, minimum=1)
DAMA_ANALYSIS_DAILY_GAMES = env_int("DAMA_ANALYSIS_DAILY_GAMES", 100, minimum=1)
DAMA_ANALYSIS_UPLOAD_BYTES = env_int("DAMA_ANALYSIS_UPLOAD_BYTES", 512 * 1024, minimum=1)
DAMA_ANALYSIS_UPLOAD_GAMES = env_int("DAMA_ANALYSIS_UPLOAD_GAMES", 200, minimum=1)
DAMA_ANALYSIS_LOST_SECONDS = env_int("DAMA_ANALYSIS_LOST_SECONDS", 1800, minimum=1)
if DAMA_AUTHOR_MAX_HORIZON > 30:
    raise ImproperlyConfigured(
        f"DAMA_AUTHOR_MAX_HORIZON={DAMA_AUTHOR_MAX_HORIZON}: the engine searches at most 30 moves."
    )
# Per teacher: at most DAMA_IMPORT_LIMIT PDN imports and DAMA_REPROOF_LIMIT "prove again" requests
# within DAMA_PROOF_RATE_WINDOW seconds (then 429 until the window ends; staff are not limited).
DAMA_IMPORT_LIMIT = env_int("DAMA_IMPORT_LIMIT", 10, minimum=1)
DAMA_REPROOF_LIMIT = env_int("DAMA_REPROOF_LIMIT", 30, minimum=1)
DAMA_PROOF_RATE_WINDOW = env_int("DAMA_PROOF_RATE_WINDOW", 3600, minimum=1)

# Games against the computer (play/): a player (an account, or a visitor's session) may start
# DAMA_PLAY_GAMES_PER_HOUR games an hour, and one client address DAMA_PLAY_GAMES_PER_HOUR_PER_ADDRESS
# (a class behind one school address; an exam's endgame is never refused). Each player has one
# search of the computer's on the workers at a time (the next is sent when it ends, to the back of
# the queue); the visitors of one address share DAMA_PLAY_SEARCHES_PER_ADDRESS of them besides (a
# client that drops its cookie each game); a search not done DAMA_PLAY_SEARCH_LOST_SECONDS after it
# was sent is taken as lost and gives its turn up (above the play tasks' 40 s time limit).
DAMA_PLAY_GAMES_PER_HOUR = env_int("DAMA_PLAY_GAMES_PER_HOUR", 60, minimum=1)
DAMA_PLAY_GAMES_PER_HOUR_PER_ADDRESS = env_int(
    "DAMA_PLAY_GAMES_PER_HOUR_PER_ADDRESS", 300, minimum=1
)
DAMA_PLAY_SEARCHES_PER_ADDRESS = env_int("DAMA_PLAY_SEARCHES_PER_ADDRESS", 2, minimum=1)
DAMA_PLAY_SEARCH_LOST_SECONDS = env_int("DAMA_PLAY_SEARCH_LOST_SECONDS", 60, minimum=1)

# Redis redelivers a message that was taken but not acknowledged (acks_late: a worker that died
# mid-task) once this many seconds have passed since delivery. Every time limit must stay below
# it, or a task still running would be delivered a second time.
_LONGEST_TASK = max(CELERY_TASK_TIME_LIMIT, DAMA_VERIFY_TIME_LIMIT)
CELERY_VISIBILITY_TIMEOUT = env_int("CELERY_VISIBILITY_TIMEOUT", 4 * _LONGEST_TASK, minimum=1)
if CELERY_VISIBILITY_TIMEOUT <= _LONGEST_TASK:
    raise ImproperlyConfigured(
        f"CELERY_VISIBILITY_TIMEOUT={CELERY_VISIBILITY_TIMEOUT} must be longer than the longest task "
        f"time limit ({_LONGEST_TASK} s): lower CELERY_TASK_SOFT_TIME_LIMIT or DAMA_VERIFY_SOFT_TIME_LIMIT."
    )
if CELERY_BROKER_URL.startswith(("redis", "rediss")):
    # (The SQLAlchemy transport hands its options to create_engine, so only Redis gets these.)
    # Unacknowledged messages are looked at every tenth of the timeout (1-60 s); a worker killed
    # while it held the lock of that sweep blocks the others for at most half the timeout.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
        "unacked_restore_interval": max(1, min(60, CELERY_VISIBILITY_TIMEOUT // 10)),
        "unacked_restore_throttle": 1,
        "unacked_mutex_expire": max(5, min(300, CELERY_VISIBILITY_TIMEOUT // 2)),
    }
    # Sites (or test runs) sharing one Redis database keep apart with a prefix on every key.
    if os.environ.get("CELERY_REDIS_KEY_PREFIX"):
        CELERY_BROKER_TRANSPORT_OPTIONS["global_keyprefix"] = os.environ["CELERY_REDIS_KEY_PREFIX"]
CELERY_WORKER_CONCURRENCY = env_int("CELERY_WORKER_CONCURRENCY", 0) or None
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# A worker that stopped writing its heartbeat this many seconds ago counts as gone (see /healthz).
DAMA_WORKER_HEARTBEAT_SECONDS = 10
DAMA_WORKER_STALE_SECONDS = 45
# The games between players pause while the site is down (versus.models, docs/versus.md): each
# web process writes "the site answered at T" every DAMA_HEARTBEAT_SECONDS (0: off, as in the
# tests), and a gap between two heartbeats longer than DAMA_OUTAGE_SECONDS is an outage whose
# length is given back to every running clock.
DAMA_HEARTBEAT_SECONDS = env_int("DAMA_HEARTBEAT_SECONDS", 2)
DAMA_OUTAGE_SECONDS = env_int("DAMA_OUTAGE_SECONDS", 10, minimum=1)
if DAMA_HEARTBEAT_SECONDS and DAMA_OUTAGE_SECONDS <= 2 * DAMA_HEARTBEAT_SECONDS:
    raise ImproperlyConfigured(
        f"DAMA_OUTAGE_SECONDS={DAMA_OUTAGE_SECONDS} must be more than twice "
        f"DAMA_HEARTBEAT_SECONDS={DAMA_HEARTBEAT_SECONDS}: a heartbeat late by one beat is no outage."
    )
# Each process of this worker on a core of its own (DAMA_WORKER_PIN_CORES=1): for the `play`
# worker that runs only when the web leaves a core idle (docs/play.md).
DAMA_WORKER_PIN_CORES = env_bool("DAMA_WORKER_PIN_CORES", False)

# Fixtures that `manage.py load_demo` (and so `make run`) loads; later features add theirs.
DAMA_DEMO_FIXTURES = ["demo_accounts"]
FIXTURE_DIRS = [BASE_DIR / "fixtures"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "INFO"}},
}

VAR_DIR.mkdir(parents=True, exist_ok=True)
