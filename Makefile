# Two entry points that do all the set-up on a fresh machine:
#   make demo   runs the main job end to end on a small default
#   make test   runs the test suite
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: venv demo test bench clean sandbox-deps

$(VENV)/.installed: pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first: the pinned CPU wheel; a bare requirement would fetch a multi-GB CUDA build
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e '.[all,release-test]'
	touch $@

venv: $(VENV)/.installed

demo: venv
	bash scripts/demo.sh $(VENV)

# the sandbox's bubblewrap layer (and libseccomp for its seccomp layer), installed where this can be done
# (root or password-less sudo with apt-get, as .ci/run does); elsewhere the tests that need them are skipped
sandbox-deps:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else SUDO=none; fi; \
	  if [ "$$SUDO" != none ] && command -v apt-get >/dev/null 2>&1; then \
	    $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1; \
	    $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap libseccomp2 >/dev/null 2>&1; \
	  fi; \
	  command -v bwrap >/dev/null 2>&1 || echo "note: bubblewrap is not installed (Debian package bubblewrap); the sandbox tests that need it are skipped"; }

# headless Chromium for the browser tests of `execverify view` (Debian's packages; skipped without them)
CHROMIUM_APT := DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null

test: venv sandbox-deps
	@command -v chromedriver >/dev/null 2>&1 || { command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && \
	  { $(CHROMIUM_APT) || { apt-get update -qq && $(CHROMIUM_APT); }; }; } || \
	  echo "warning: could not install chromium/chromium-driver; the browser tests of execverify view will be skipped"
	$(PY) -m pytest

bench: venv
	for b in benchmarks/bench_*.py; do $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
