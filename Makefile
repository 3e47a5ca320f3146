# dama_learn: every target creates or updates the virtual environment first.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: venv run test test-fast test-web-postgres test-engine bench lint format messages load fuzz faults

# The compiled engine (docs/engine.md): mypyc compiles the hot modules into dama/_compiled/ when
# a C compiler is present, again whenever one of them changes; without one dama runs as pure
# Python (the same code). DAMA_PURE=1 at run time forces pure Python.
# ENGINE_SOURCES: the modules of dama/_build.py's MODULES, and the builder
ENGINE_SOURCES := $(wildcard dama/_core.py dama/perft.py dama/solve.py dama/search.py dama/evaluate.py dama/egtb.py dama/_build.py)
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

# Test processes side by side (pytest-xdist; `make test TEST_PROCESSES=1` runs one): each has a
# test database, a Redis database and a broker file of its own (tests/conftest.py).
TEST_PROCESSES ?= 2
XDIST = -n $(TEST_PROCESSES) --dist worksteal

# The whole suite, as CI runs it. The engine's tests run twice: with the compiled engine (when
# built) and as pure Python; the web tests again on PostgreSQL.
test: venv
	$(PY) -m pytest $(XDIST)
	DAMA_PURE=1 $(PY) -m pytest tests/engine -q -m 'not build' $(XDIST)
	$(PY) tests/postgres_run.py $(XDIST)

# The edit-test loop (a few minutes on 2 cores): the engine, web, security and lesson tests
# without the browser, the services and the slow ones, in as many processes as there are cores.
test-fast: venv
	$(PY) -m pytest -n auto --dist worksteal -q -m 'not browser and not services and not slow' \
		tests/engine tests/web tests/security tests/lessons

# The web tests again on PostgreSQL (DAMA_TEST_POSTGRES_URL); skipped when it is not reachable,
# unless DAMA_REQUIRE_SERVICES=1.
test-web-postgres: venv
	$(PY) tests/postgres_run.py $(XDIST)

test-engine: venv
	$(PY) -m pytest tests/engine
	DAMA_PURE=1 $(PY) -m pytest tests/engine -q -m 'not build'

# Hardening (docs/hardening.md). The load test starts its own gunicorn, worker, Redis and
# PostgreSQL database on loopback: LOAD_SECONDS (300), LOAD_USERS (50), LOAD_BACKENDS (postgres,sqlite).
load: venv
	$(PY) tests/load/run_load.py

# Every form and endpoint that takes a FEN, PDN, move, square, id or file; FUZZ_EXAMPLES per test.
fuzz: venv
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-1200} $(PY) -m pytest tests/fuzz -q

# Redis stopped, a worker killed, the database restarted, a proof over its time limit (real processes).
faults: venv
	$(PY) -m pytest tests/faults -q

# The engine's benchmarks beside py-draughts (tools/bench.py; BENCH_ARGS, e.g. --quick or sections)
bench: venv
	$(PY) -m tools.bench $(BENCH_ARGS)

# lint, format and messages need the tools, not the compiled engine. lint-imports checks the
# import contracts of pyproject.toml (docs/architecture.md); .pre-commit-config.yaml runs the same.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# Refresh the gettext catalogues after changing user-facing text; commit locale/ (.po and .mo).
messages: $(STAMP)
	$(PY) manage.py makemessages -l cs -l en --ignore 'dama/*' --ignore 'tests/*' --ignore 'staticfiles/*' --no-obsolete
	$(PY) manage.py compilemessages --ignore '.venv/*'

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .
