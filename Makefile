# Two commands do all the set-up on a fresh machine (Python 3.11+, Node 18+, make):
#   make serve   build the page and serve it on http://127.0.0.1:8000/
#   make test    run every test, browser tests included
# They install what they need: a .venv, node_modules (npm ci), micropip's wheel, a Chromium.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
HOST ?= 127.0.0.1
BROWSER_FILE := $(VENV)/chromium-path
# Test workers (pytest-xdist): two lanes of the browser's test files, and the rest spread over
# every worker (tests/lanes.py); `make test JOBS=1` runs them one after another.
JOBS ?= 3
BROWSER_ENV = CHROMIUM=$$(cat $(BROWSER_FILE)) BROWSER_PATH=$$(cat $(BROWSER_FILE))

.PHONY: all setup build serve site test fast bench figures docs clean

all: build

# The pinned tools, then sim itself, editable: `python -m sim` and `pdsplit` work from any
# folder with the venv's Python (.venv/bin/python, or after `. .venv/bin/activate`).
$(VENV)/.installed: requirements-dev.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# micropip is not in the pyodide npm package: take the lock's version from PyPI.
build/wheels/.installed: node_modules/.installed $(VENV)/.installed
	version=$$($(PY) -c "import json; print(json.load(open('node_modules/pyodide/pyodide-lock.json'))['packages']['micropip']['version'])") && \
	$(PY) -m pip download --quiet --disable-pip-version-check --no-deps --python-version 3.14 \
		--only-binary=:all: "micropip==$$version" -d build/wheels
	touch $@

# A Chromium for the browser tests and the figures: the system's first, then Playwright's
# download, then Debian's package.
$(BROWSER_FILE): $(VENV)/.installed
	@found=""; \
	for b in "$$CHROMIUM" /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome \
	         "$$(command -v chromium 2>/dev/null)" "$$(command -v chromium-browser 2>/dev/null)"; do \
		if [ -n "$$b" ] && [ -x "$$b" ]; then found="$$b"; break; fi; \
	done; \
	if [ -z "$$found" ] && $(VENV)/bin/playwright install chromium >/dev/null 2>&1; then \
		found=$$($(PY) -c "from playwright.sync_api import sync_playwright as p; s=p().start(); print(s.chromium.executable_path); s.stop()"); \
	fi; \
	if [ -z "$$found" ]; then \
		echo "No Chromium found; installing Debian's chromium package"; \
		if [ "$$(id -u)" = 0 ]; then apt-get install -y chromium >/dev/null; else sudo apt-get install -y chromium >/dev/null; fi; \
		found=/usr/bin/chromium; \
	fi; \
	[ -x "$$found" ] || { echo "No Chromium could be found or installed"; exit 1; }; \
	echo "$$found" > $@; echo "Chromium: $$found"

setup: $(VENV)/.installed node_modules/.installed build/wheels/.installed $(BROWSER_FILE)

figures: setup
	BROWSER_PATH=$$(cat $(BROWSER_FILE)) $(PY) figures/export.py

build: setup figures
	$(PY) build.py

serve: build
	@echo "Serving dist/ on http://$(HOST):$(PORT)/"
	$(PY) -m http.server $(PORT) --bind $(HOST) --directory dist

# dist/ as one archive to upload to a course site (docs/course-sites.md, "Without a build
# machine"): pdsplit-site-<version>.tar.gz, which unpacks to pdsplit/.
site: build
	$(PY) build.py --site

# Everything in the README and docs/ written from the code (docs/write.py): docs/cli.md, the
# settings' limits table, every example's output. The simulator is the standard library alone,
# so this needs no venv: the system's Python 3.11+ runs it.
docs:
	$(PYTHON) docs/write.py

# Every test, the browser's included, on JOBS workers; the 15 slowest are listed at the end.
test: build
	$(BROWSER_ENV) $(PY) -m pytest -n $(JOBS)

# docs/development.md's fast loop: every test that needs no browser and no build, on both cores.
fast: setup
	$(PY) -m pytest -n 2 -m "not browser" tests/model tests/workload tests/show tests/test_*.py

# Every script runs even if one before it misses a target or fails (the leading -); the last
# line writes what they noted into docs/benchmarks.md, naming any script that noted nothing.
bench: build
	rm -f build/bench/notes.jsonl
	-$(PY) bench/sim_speed.py
	-CHROMIUM=$$(cat $(BROWSER_FILE)) $(PY) bench/page_speed.py
	-CHROMIUM=$$(cat $(BROWSER_FILE)) $(PY) bench/explorer_speed.py
	-CHROMIUM=$$(cat $(BROWSER_FILE)) $(PY) bench/chart_speed.py
	-CHROMIUM=$$(cat $(BROWSER_FILE)) $(PY) bench/chart_speed.py --cores 4
	-CHROMIUM=$$(cat $(BROWSER_FILE)) $(PY) bench/model_speed.py
	-CHROMIUM=$$(cat $(BROWSER_FILE)) $(PY) bench/stage_speed.py
	-CHROMIUM=$$(cat $(BROWSER_FILE)) $(PY) bench/traffic_speed.py
	-CHROMIUM=$$(cat $(BROWSER_FILE)) $(PY) bench/price_speed.py
	-CHROMIUM=$$(cat $(BROWSER_FILE)) $(PY) bench/hub_cost.py
	-CHROMIUM=$$(cat $(BROWSER_FILE)) $(PY) bench/watch_speed.py
	-CHROMIUM=$$(cat $(BROWSER_FILE)) $(PY) bench/phone_speed.py
	CHROMIUM=$$(cat $(BROWSER_FILE)) $(PY) bench/report.py

clean:
	rm -rf dist build test-artifacts .pytest_cache .hypothesis pdsplit-site-*.tar.gz
