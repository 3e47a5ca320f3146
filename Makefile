# dama_learn: every target creates or updates the virtual environment first.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: venv run test test-web-postgres test-engine bench lint format messages load fuzz faults

# The compiled engine (README "Speed"): mypyc compiles the hot modules into dama/_compiled/ when
# a C compiler is present, again whenever one of them changes; without one dama runs as pure
# Python (the same code). DAMA_PURE=1 at run time forces pure Python.
# ENGINE_SOURCES: the modules of dama/_build.py's MODULES, and the builder
ENGINE_SOURCES := $(wildcard dama/_core.py dama/perft.py dama/solve.py dama/search.py dama/evaluate.py dama/_build.py)
ENGINE_STAMP := $(VENV)/.engine-stamp

venv: $(STAMP) $(ENGINE_STAMP)

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "$(PYTHON) not found: install Python 3.11"; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	@touch $(STAMP)

$(ENGINE_STAMP): $(STAMP) $(ENGINE_SOURCES)
	$(PY) dama/_build.py
	@touch $(ENGINE_STAMP)

# The site on http://127.0.0.1:$(PORT) (8000 unless `make run PORT=8100`) with a real Celery
# worker; Ctrl-C stops both. Defaults: SQLite and a SQLite-file broker; set DATABASE_URL /
# REDIS_URL to use servers.
PORT ?= 8000
run: venv
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo
	$(PY) manage.py rundev 127.0.0.1:$(PORT)

# The engine's tests run twice: with the compiled engine (when built) and as pure Python.
test: venv
	$(PY) -m pytest
	DAMA_PURE=1 $(PY) -m pytest tests/engine -q -m 'not build'
	$(PY) tests/postgres_run.py

# The web tests again on PostgreSQL (DAMA_TEST_POSTGRES_URL); skipped when it is not reachable,
# unless DAMA_REQUIRE_SERVICES=1.
test-web-postgres: venv
	$(PY) tests/postgres_run.py

test-engine: venv
	$(PY) -m pytest tests/engine
	DAMA_PURE=1 $(PY) -m pytest tests/engine -q -m 'not build'

# Hardening (README "Hardening"). The load test starts its own gunicorn, worker, Redis and
# PostgreSQL database on loopback: LOAD_SECONDS (300), LOAD_USERS (50), LOAD_BACKENDS (postgres,sqlite).
load: venv
	$(PY) tests/load/run_load.py

# Every form and endpoint that takes a FEN, PDN, move, square, id or file; FUZZ_EXAMPLES per test.
fuzz: venv
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-1200} $(PY) -m pytest tests/fuzz -q

# Redis stopped, a worker killed, the database restarted, a proof over its time limit (real processes).
faults: venv
	$(PY) -m pytest tests/faults -q

bench: venv
	$(PY) -m dama.bench

# lint, format and messages need the tools, not the compiled engine
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# Refresh the gettext catalogues after changing user-facing text; commit locale/ (.po and .mo).
messages: $(STAMP)
	$(PY) manage.py makemessages -l cs -l en --ignore 'dama/*' --ignore 'tests/*' --ignore 'staticfiles/*' --no-obsolete
	$(PY) manage.py compilemessages --ignore '.venv/*'

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .
