# The two commands: `make run` and `make test`. Each builds its own virtualenv.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test bench chromium clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/citycam serve

test: $(STAMP) chromium
	$(PY) -m pytest

# Browser tests drive Debian's Chromium; install it when missing (needs root).
chromium:
	@command -v chromium >/dev/null 2>&1 || { apt-get update -q && apt-get install -y -q chromium; }

bench: $(STAMP)
	$(PY) -m bench.score
	$(PY) -m bench.vision
	$(PY) -m bench.perturbed
	$(PY) -m bench.calibrate

clean:
	rm -rf $(VENV) build *.egg-info
