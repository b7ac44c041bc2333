# BangScore: one target per task. CI (.ci/run) calls these same targets.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
RUNTIME := $(VENV)/.runtime
LOCK    := requirements.lock
PINNED   = $(if $(wildcard $(LOCK)),--constraint $(LOCK))
COV_DIR := coverage
# `make test` fails below this share of lines and branches covered: a little under main's level
# when it was set (96.9 % on 25 Nov 2026, after issue 28's tests).
COV_FLOOR := 96.5
# Container images often set PYTHONDONTWRITEBYTECODE: then no run is ever warm, every one
# compiling each module (and pytest rewriting each test module) again. Targets write the caches.
unexport PYTHONDONTWRITEBYTECODE
HOST    ?= 127.0.0.1
PORT    ?= 8000
# The Bulk export's store: `make build` writes it beside the snapshot, `make serve` answers
# GET /api/v1/export from it (bulk keys: links to the files of the newest export).
EXPORT  ?= var/export
# Local development's mail: `make serve` (and so `make run`) keeps the sign-up emails, watch
# confirmations and alerts as .eml files here, delivered every 2 s, and prints each file with
# its links; `MAIL=` (empty) keeps none (then `bangscore alerts send` needs an SMTP server).
MAIL    ?= var/mail
# fonts-wqy-microhei: CJK glyphs, so the browser tests' screenshots show the catalog's Chinese,
# Japanese and Korean game names instead of empty boxes.
APT_PACKAGES := chromium nginx wrk fonts-wqy-microhei
AXE     := node_modules/axe-core/axe.min.js

# `make check` leaves out the tests with these markers (pyproject.toml; `server` is added by
# fixture in tests/conftest.py, `thorough` by the list in tests/support/thorough.py, the tests
# measured too costly for the fast loop): what remains needs no server and runs in seconds.
CHECK_MARKERS := not slow and not s3 and not redis and not browser and not server and not thorough
# `make check` runs its tests as CHECK_SHARDS pytest processes side by side, one per core, each
# collecting only its part of the test modules (`--shard`, tests/support/shards.py: pytest-xdist's
# workers would each import and collect the whole suite, 13 s more CPU in all); on a machine
# busy with other work CHECK_SHARDS=1 (one process) can be faster.
CHECK_SHARDS  ?= $(shell nproc 2>/dev/null || echo 1)
CHECK_PARTS   := $(addprefix check-shard-,$(shell seq 1 $(CHECK_SHARDS)))
# pytest-xdist workers for `make test-clock`.
CHECK_WORKERS ?= auto

.PHONY: help venv deps lock hooks build run serve demo-key test check check-tests $(CHECK_PARTS) lint format docs typecheck imports ranking \
        calibrate forecast-backtest test-clock port-free build-if-changed \
        bench bench-compare stack clean

help:  ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' \
	  '{ name[NR] = $$1; text[NR] = $$2; if (length($$1) > width) width = length($$1) } \
	   END { for (i = 1; i <= NR; i++) printf "  %-" width "s  %s\n", name[i], text[i] }'

# Every install takes the versions pinned in $(LOCK) (constraints: a package the lock does
# not name yet, just added to pyproject.toml, still installs; then run `make lock`).
# Two stamps: what serving needs ($(RUNTIME), enough for `make run`) and the dev tools on top
# ($(STAMP): tests, linters, browsers' drivers). The installer is uv, itself installed at the
# version the lock pins, so a fresh machine needs nothing but python3: it installs the same
# pinned wheels as pip in a fraction of the time (a fresh venv for `make run`:
# README.md#the-first-run). The venv is made without pip and uv put in it by python3's own pip
# (`pip --python`): the venv's copy of pip took 2.7 of the venv's 4.6 s on a fresh clone (3 Dec
# 2026), and uv installs it after, pinned (other tools call it). A python3 without pip of its
# own gets the venv's (ensurepip), as before.
UV      := $(BIN)/uv
UV_PIN   = $(or $(shell grep -m 1 '^uv==' $(LOCK) 2>/dev/null),uv)
INSTALL  = $(UV) pip install --quiet --python $(BIN)/python $(PINNED)
PIP_UV   = pip install --quiet --disable-pip-version-check $(UV_PIN)

$(RUNTIME): pyproject.toml $(wildcard $(LOCK))
	$(PY) -m venv --without-pip $(VENV)
	$(PY) -m $(subst pip install,pip --python $(BIN)/python install,$(PIP_UV)) 2>/dev/null \
	  || { $(BIN)/python -m ensurepip --default-pip >/dev/null && $(BIN)/python -m $(PIP_UV); }
	$(INSTALL) pip -e ".[server]"
	touch $(RUNTIME)

$(STAMP): $(RUNTIME)
	$(INSTALL) -e ".[dev]"
	touch $(STAMP)

venv: $(STAMP)  ## create .venv and install the project with its dev tools, as pinned in the lock

# pip-compile runs from a venv of its own, so the lock pins what the project uses, not pip-tools.
LOCK_TOOLS := $(VENV)/lock-tools
PIP_TOOLS  := pip-tools==7.6.2

lock:  ## regenerate requirements.lock from pyproject.toml (LOCK_FLAGS=--upgrade: newest)
	test -x $(LOCK_TOOLS)/bin/pip-compile || \
	  { $(PY) -m venv $(LOCK_TOOLS) && $(LOCK_TOOLS)/bin/pip install --quiet $(PIP_TOOLS); }
	$(LOCK_TOOLS)/bin/pip-compile --quiet $(LOCK_FLAGS) --extra dev --strip-extras --allow-unsafe \
	  --no-emit-index-url --no-emit-find-links --no-emit-trusted-host \
	  --output-file $(LOCK) pyproject.toml

hooks: $(STAMP)  ## install the git pre-commit hook: `make check` before every commit
	$(BIN)/pre-commit install

deps:  ## install what the tests and benchmarks use: chromium, a CJK font, nginx, wrk (Debian), axe-core (npm)
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	command -v npm >/dev/null 2>&1 || missing="$$missing nodejs npm"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi
	@# axe-core, the accessibility engine the browser tests inject (pinned in package-lock.json)
	@[ -f $(AXE) ] || npm ci --no-audit --no-fund --loglevel=error

# Processes rendering the game pages: every core (the build is the machine's only work here).
BUILD_WORKERS ?= $(shell nproc 2>/dev/null || echo 1)

build: $(RUNTIME)  ## score the bundled real catalog, publish a snapshot under ./var and its Bulk export under EXPORT
	BANGSCORE_HOST=$(HOST) BANGSCORE_PORT=$(PORT) BANGSCORE_BUILD_WORKERS=$(BUILD_WORKERS) \
	  BANGSCORE_EXPORT=$(EXPORT) $(BIN)/bangscore build

demo-key: $(RUNTIME)  ## create a demo key (free plan) and print it with a curl example
	@key=$$($(BIN)/bangscore keys create --account demo@bangscore.example --plan free | tail -n 1); \
	echo; echo "Demo API key (shown once): $$key"; echo; \
	echo "Try:"; \
	echo "  curl -H 'Authorization: Bearer $$key' 'http://$(HOST):$(PORT)/api/v1/games?genre=rpg&on_sale=true'"; \
	echo "  curl -H 'Authorization: Bearer $$key' 'http://$(HOST):$(PORT)/api/v1/search?q=portal'"; \
	echo "  curl -H 'Authorization: Bearer $$key' 'http://$(HOST):$(PORT)/api/v1/games/620'"; \
	echo "  curl -H 'Authorization: Bearer $$key' 'http://$(HOST):$(PORT)/api/v1/lookup?appids=620,1145360,570'"; \
	echo "Bulk data (Parquet, JSON lines, CSV; a bulk key):"; \
	echo "  bulk=\$$($(BIN)/bangscore keys create --account demo@bangscore.example --plan bulk --limit 100000 | tail -n 1)"; \
	echo "  curl -H \"Authorization: Bearer \$$bulk\" 'http://$(HOST):$(PORT)/api/v1/export'"; \
	echo "Website: http://$(HOST):$(PORT)/   Docs: http://$(HOST):$(PORT)/docs"; \
	$(if $(MAIL),echo "Mail (sign-up links and watch confirmations and alerts) is kept as .eml files in $(MAIL):"; \
	echo "  each one's file and links are printed below within 2 s of the form that queued it."; echo,\
	echo "Website sign-up goes by email: set BANGSCORE_SMTP_URL and run $(BIN)/bangscore alerts send"; echo)

serve: $(RUNTIME)  ## serve the current snapshot (and the Bulk export under EXPORT) on HOST:PORT, keeping mail in MAIL
	$(BIN)/bangscore serve --host $(HOST) --port $(PORT) --export $(EXPORT) $(if $(MAIL),--mail-dir $(MAIL))

# `make run`: the port is asked first (a busy one fails in a second, naming it), and the build
# is skipped while the current snapshot was built from the same data, code and day
# (`bangscore build --if-changed`, bangscore/cli/inputs.py): a second `make run` serves at once,
# and so does `make run PORT=9001` after it (the server moves the bodies to its own address,
# bangscore/shim/readdress.py).
port-free: $(RUNTIME)
	@$(BIN)/python -m bangscore.cli.port $(HOST) $(PORT)

# The games' pages and badges, then the Bulk export, are written in the background once the
# snapshot is current (its log: var/background.log), so the server starts without waiting for
# them (README.md#the-first-run).
build-if-changed: $(RUNTIME)
	BANGSCORE_HOST=$(HOST) BANGSCORE_PORT=$(PORT) BANGSCORE_BUILD_WORKERS=$(BUILD_WORKERS) \
	  BANGSCORE_EXPORT=$(EXPORT) $(BIN)/bangscore build --if-changed --finish-in-background

run: port-free build-if-changed demo-key serve  ## the main job: build the snapshot from bundled data (unless current), make a demo key, serve it

# Dead code: what vulture is sure of (80% and up: unused imports, variables, unreachable code).
# Every module of the package: its root and each subpackage (the layer folders through their
# links), found rather than listed, so a new subpackage is read too.
VULTURE_PATHS := bangscore/*.py $(filter-out %/__pycache__,$(patsubst %/,%,$(wildcard bangscore/*/)))

# Generated files (bench/generated.py): the cog blocks of README.md and docs/API.md and the
# manifest schema are checked by writing them again in memory; the heavy ones (the calibration,
# the backtest, API.md's real record, the build's figures: minutes each) by the digests of
# their inputs and outputs that docs/generated.json records, in about a second.
lint: $(STAMP)  ## ruff lint and format check, vulture (dead code), every generated file current
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/vulture $(VULTURE_PATHS) --min-confidence 80
	$(BIN)/python -m bench.generated check

# The heavy generators run (under nice -n 10) only when their inputs changed: on a fresh clone
# `make docs` rewrites the same bytes. DOCS_FLAGS=--force runs them all (a build and two
# scorings of the catalogue: 15-20 min on this 2-core machine).
docs: $(STAMP)  ## regenerate every generated file: cog blocks, manifest schema, calibration, backtest, API.md's record, build figures
	$(BIN)/python -m bench.generated write $(DOCS_FLAGS)

format: $(STAMP)  ## apply ruff formatting and safe fixes
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

typecheck: $(STAMP)  ## mypy --strict over the four packages, tests/ and bench/
	$(BIN)/mypy

# import-linter's graph builder does not follow symbolic links, and build/ has no __init__.py (so
# `python -m build` finds PyPA's tool): it reads a copy of the package, links resolved.
IMPORT_TREE := .import-tree

imports: $(STAMP)  ## check the import contracts of pyproject.toml (import-linter): layers, independence, forbidden
	rm -rf $(IMPORT_TREE) && mkdir $(IMPORT_TREE)
	tar -ch --exclude=__pycache__ bangscore | tar -x -C $(IMPORT_TREE)
	touch $(IMPORT_TREE)/bangscore/build/__init__.py
	cd $(IMPORT_TREE) && PYTHONPATH=. ../$(BIN)/lint-imports ../pyproject.toml --no-cache

# The linters, mypy and the import contracts run beside the tests' shards (make -j): together
# about 5 s of CPU, filling the gaps the shards leave (one ends first, or waits on a timeout).
# Each target's output is printed whole when it ends (--output-sync). It ends by printing
# its own wall time, the CPU time of everything it ran (the shell's `times`: children's user
# and system) and the load average, so a figure quoted from it carries how busy the machine was.
check: $(STAMP)  ## the fast loop (goal: under 20 s on 2 quiet cores; prints its time): lint, typecheck, import contracts, tests that need no server
	@start=$$(date +%s%N); \
	$(MAKE) --no-print-directory -j $(words lint typecheck imports $(CHECK_PARTS)) --output-sync=target \
	  lint typecheck imports check-tests; rc=$$?; \
	end=$$(date +%s%N); cpu=$$(mktemp); times >"$$cpu"; \
	printf 'make check: %s s wall, CPU (user, system) %s, load %s\n' \
	  "$$(awk "BEGIN { printf \"%.1f\", ($$end - $$start) / 1e9 }")" "$$(tail -n 1 "$$cpu")" \
	  "$$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"; \
	rm -f "$$cpu"; exit $$rc

check-tests: $(CHECK_PARTS)

$(CHECK_PARTS): check-shard-%: $(STAMP)
	$(BIN)/pytest -q -n 0 -m "$(CHECK_MARKERS)" --hypothesis-profile=check --shard=$*/$(CHECK_SHARDS)

# `make test`: the tools are checked first (a missing one fails at once, tests/support/tools.py). Then
# `python -m tests.support.real_catalogue` fills the real catalogue's cache (tests/support/real_catalogue.py)
# beside the tests, untraced by coverage: first beside the `serial` tests, which assert
# wall-clock timings and so run alone in one process (each of the two has a core), then beside
# every other test on TEST_WORKERS pytest-xdist workers, which run the modules reading the cache
# last (tests/conftest.py), each module whole on one worker (`--dist loadscope`: its fixtures
# built once, not once a worker; in the order given, not by size). Once the cache is filled, the
# SIDE_TESTS modules run in one more pytest process, on the core the warm-up leaves: with the
# cache already warm, beside the `serial` tests (where that core sat idle a minute), then beside
# the workers; its output is printed when it ends. Coverage adds up over the three runs, leaving
# out the tests tests/support/untraced.py lists, and is reported once all have ended; each runs
# even if another fails.
# One worker more than cores: the tests wait on servers, browsers and sockets, and a third
# worker fills that time (make test on 2 cores, 3 Dec 2026, quiet: 9 min 48 s with 2 workers
# at 03:57, 9 min 22 s and 9 min 12 s with 3 at 04:08 and 04:18; the same tests passed). A
# fourth does not: 9 min 59 s and 1,063 s of CPU with 4 at 11:30, against 8 min 37 s and 905 s
# with 3 at 11:19 (3a2f1eb); a fourth worker unpickles the real catalogue once more (its
# share of the extra CPU not measured apart).
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
# In-process tests, CPU-bound (no server, no timing), that fill the core beside the `serial`
# tests: about 80 s of CPU under coverage, longer than the serial tests' minute.
SIDE_TESTS := tests/ingest/dumps/test_expectations.py tests/cli/test_calibrate.py
SIDE_DATA  := $(COV_DIR)/side
# Each of the two pytest runs ends by listing its slowest tests (setup, call and teardown
# apart), so what makes the suite slow is in every run's output; TEST_FLAGS=--durations=40
# lists more, and any other pytest option can be added the same way.
TEST_FLAGS ?= --durations=25
# It prints the machine probe (bench/machine.py: the CPU time of a fixed loop) when it starts
# and when it ends: on 3 Dec 2026 nearly the same tests took 980 s of CPU at 08:20 UTC and
# 1,349 s at 08:57, the machine's speed moving, and the probe tells such an hour from a slower suite.

test: $(STAMP) deps  ## the whole suite (real servers, chromium), with coverage: coverage/html
	$(BIN)/python -m tests.support.tools
	$(BIN)/python -m bench.machine
	rm -rf $(COV_DIR) .coverage .coverage.*
	mkdir -p $(SIDE_DATA)
	{ $(BIN)/python -m tests.support.real_catalogue; \
	  COVERAGE_FILE=$(SIDE_DATA)/.coverage.side $(BIN)/pytest -q -n 0 -m "not serial" --cov \
	    --cov-report= $(TEST_FLAGS) $(SIDE_TESTS) >$(SIDE_DATA)/pytest.log 2>&1; } & side=$$!; \
	  $(BIN)/pytest -q -n 0 -m serial --cov --cov-report= $(TEST_FLAGS); serial=$$?; \
	  $(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder -m "not serial" \
	    $(addprefix --ignore=,$(SIDE_TESTS)) --cov --cov-append --cov-report= $(TEST_FLAGS); rest=$$?; \
	  wait $$side; side=$$?; echo "== $(SIDE_TESTS), beside:"; cat $(SIDE_DATA)/pytest.log; \
	  $(BIN)/coverage combine --append --quiet $(SIDE_DATA); \
	  $(BIN)/coverage html --quiet -d $(COV_DIR)/html & html=$$!; \
	  $(BIN)/coverage xml --quiet -o $(COV_DIR)/coverage.xml & xml=$$!; \
	  $(BIN)/coverage report --precision=2 --fail-under=$(COV_FLOOR); covered=$$?; \
	  wait $$html $$xml; $(BIN)/python -m bench.machine; \
	  test $$serial -eq 0 && test $$rest -eq 0 && test $$side -eq 0 && test $$covered -eq 0

# `make test-clock`: the suite's in-process tests at three instants (issue 60): half an hour after
# midnight UTC (an hour-after-the-day rule's edge), the last second of a month, a leap day. Each
# process's wall clock starts there and ticks (time-machine); servers the tests start keep the
# real time, so the tests that start one are left to `make test`, which CI runs at any hour.
CLOCKS := 2026-11-30T00:30:00Z 2026-11-30T23:59:59Z 2028-02-29T12:00:00Z
CLOCK_MARKERS := not slow and not browser and not server

test-clock: $(STAMP)  ## the in-process tests at 00:30 UTC, 23:59:59 on a month's last day and 29 Feb 2028
	@for clock in $(CLOCKS); do \
	  echo "== --clock=$$clock"; \
	  $(BIN)/pytest -q -n $(CHECK_WORKERS) -m "$(CLOCK_MARKERS)" --clock=$$clock || exit 1; \
	done

bench: $(STAMP) deps  ## run the benchmark suite and write bench/RESULTS.md
	$(BIN)/python -m bench.run

# A regression shows in make bench only as a ratio to bare Starlette that fell since the last
# run, and those ratios move 10-15% between runs on a shared machine: this runs the earlier
# commit's build and shim beside this checkout's, alternating (bench/compare.py).
bench-compare: $(STAMP) deps  ## paired regression check against an earlier commit: make bench-compare REF=<commit> writes bench/COMPARE.md
	@test -n "$(REF)" || { echo "make bench-compare: name the earlier commit, REF=<commit>" >&2; exit 2; }
	$(BIN)/python -m bench.compare $(REF)

calibrate: $(STAMP)  ## score the bundled dumps and rewrite scoring/CALIBRATION.md and its histogram
	$(BIN)/python -m bangscore.cli.calibrate --progress

forecast-backtest: $(STAMP)  ## a build as of 24 Jun 2026 against the 2026 Summer Sale: the forecast, its baselines and calibration, and the verdicts in dollars; writes docs/FORECAST.md (not part of make build)
	$(BIN)/python -m bench.forecast_backtest

ranking: $(STAMP)  ## score the bundled dumps and print the ranking and verdicts as a player reads them
	$(BIN)/python -m bench.ranking

stack: $(STAMP) deps  ## start SeaweedFS, Redis, two shim replicas and nginx on loopback
	bash infra/stack.sh

clean:  ## remove the state folder and caches (keeps .venv)
	rm -rf var .pytest_cache .mypy_cache .ruff_cache .hypothesis tests/output node_modules $(IMPORT_TREE) \
	  $(COV_DIR) .coverage .coverage.*
