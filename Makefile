# ygo-rulings — the two quick-start commands are `make run` and `make test`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DATA ?= data
HOST ?= 127.0.0.1
PORT ?= 8000
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install browser run test lint types unit ingest bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed
	$(BIN)/ygo-rulings model prepare --data $(DATA)

# Debian's Chromium and chromedriver for tests/test_web_browser.py (Playwright drives them; no
# browser download). Needs root for apt-get; nothing to do when they are already installed.
browser:
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then echo "chromium: installed"; \
	else apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; fi

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

unit: $(VENV)/.installed
	$(BIN)/pytest

test: lint types unit

bench: install
	$(BIN)/python -m bench.http --data $(DATA)

clean:
	rm -rf $(DATA) .pytest_cache .mypy_cache .ruff_cache
