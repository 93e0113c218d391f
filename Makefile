# ygo-rulings — the two quick-start commands are `make run` and `make test`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DATA ?= data
HOST ?= 127.0.0.1
PORT ?= 8000
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install lock browser run test lint types unit ingest bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Every package (torch, the `dev` extra and their dependencies) comes from requirements.lock, each
# checked against its sha256; the project itself is then installed without resolving anything.
$(VENV)/.installed: requirements.lock pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

# Re-resolve requirements.lock from pyproject.toml (after changing a pin); see README, Development.
# WHEELS is a folder of local wheels (this machine's CPU build of torch) that the resolver also reads.
WHEELS ?= /opt/wheels
lock: $(VENV)/.installed
	$(BIN)/uv pip compile pyproject.toml --extra dev --generate-hashes --python-version 3.11 --custom-compile-command 'make lock' \
	  $(if $(wildcard $(WHEELS)),--find-links $(WHEELS)) --quiet -o requirements.lock

# The package's bytecode, compiled once: where the environment turns off writing it
# (PYTHONDONTWRITEBYTECODE), every command would otherwise compile each module it imports (~0.2 s
# of a CLI call).
install: $(VENV)/.installed
	$(BIN)/python -m compileall -q -j 0 kb api ingest
	$(BIN)/ygo-rulings model prepare --data $(DATA)

# Debian's Chromium and chromedriver for tests/test_web_browser.py (Playwright drives them; no
# browser download) and nginx for tests/test_nginx.py (deploy/nginx.conf in front of the API; the
# package's own service is not used). Needs root for apt-get; nothing to do when installed.
browser:
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] && [ -x /usr/sbin/nginx ]; then \
	echo "chromium, nginx: installed"; \
	else apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver nginx; fi

ingest: install
	$(BIN)/ygo-rulings ingest --data $(DATA)

run: ingest
	$(BIN)/ygo-rulings stats --data $(DATA)
	$(BIN)/ygo-rulings serve --data $(DATA) --host $(HOST) --port $(PORT)

lint: $(VENV)/.installed
	$(BIN)/ruff check kb ingest api tests bench
	$(BIN)/ruff format --check kb ingest api tests bench

types: $(VENV)/.installed
	$(BIN)/mypy

# One pytest worker per core (pytest-xdist); a test file's tests share one worker, so its
# module fixtures (a served KB, a browser) start once. The slowest tests are listed at the end.
unit: $(VENV)/.installed
	$(BIN)/pytest -n auto --dist loadfile --durations=25

test: lint types unit

bench: install
	$(BIN)/python -m bench.http --data $(DATA) $(BENCH_ARGS)
	$(BIN)/python -m bench.reasoning --data $(DATA)

clean:
	rm -rf $(DATA) .pytest_cache .mypy_cache .ruff_cache
