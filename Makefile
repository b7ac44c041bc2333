# BangScore: one target per task. CI (.ci/run) calls these same targets.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
HOST    ?= 127.0.0.1
PORT    ?= 8000
APT_PACKAGES := chromium nginx wrk

.PHONY: help venv deps build run serve demo-key test lint format typecheck bench stack clean

help:  ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

venv: $(STAMP)  ## create .venv and install the project with its dev tools

deps:  ## install the Debian packages the tests and benchmarks use (chromium, nginx, wrk)
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

build: $(STAMP)  ## score the bundled real catalog and publish a snapshot under ./var
	BANGSCORE_HOST=$(HOST) BANGSCORE_PORT=$(PORT) $(BIN)/bangscore build

demo-key: $(STAMP)  ## create a demo key (free plan) and print it with a curl example
	@key=$$($(BIN)/bangscore keys create --account demo@bangscore.local --plan free | tail -n 1); \
	echo; echo "Demo API key (shown once): $$key"; echo; \
	echo "Try:"; \
	echo "  curl -H 'Authorization: Bearer $$key' 'http://$(HOST):$(PORT)/api/v1/games?genre=rpg&on_sale=true'"; \
	echo "  curl -H 'Authorization: Bearer $$key' 'http://$(HOST):$(PORT)/api/v1/search?q=portal'"; \
	echo "  curl -H 'Authorization: Bearer $$key' 'http://$(HOST):$(PORT)/api/v1/games/620'"; \
	echo "Website: http://$(HOST):$(PORT)/   Docs: http://$(HOST):$(PORT)/docs"; echo

serve: $(STAMP)  ## serve the current snapshot on HOST:PORT
	$(BIN)/bangscore serve --host $(HOST) --port $(PORT)

run: build demo-key serve  ## the main job: build the snapshot from bundled data, make a demo key, serve it

lint: $(STAMP)  ## ruff lint and format check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)  ## apply ruff formatting and safe fixes
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

typecheck: $(STAMP)  ## mypy --strict over the four packages
	$(BIN)/mypy

test: $(STAMP) deps  ## run the test suite (real SQLite, Redis, SeaweedFS, nginx and chromium)
	$(BIN)/pytest -q

bench: $(STAMP) deps  ## run the benchmark suite and write bench/RESULTS.md
	$(BIN)/python -m bench.run

stack: $(STAMP) deps  ## start SeaweedFS, Redis, two shim replicas and nginx on loopback
	bash infra/stack.sh

clean:  ## remove the state folder and caches (keeps .venv)
	rm -rf var .pytest_cache .mypy_cache .ruff_cache .hypothesis tests/output
