# One command sets everything up and runs the job: `make train` / `make test`.
# `make train` installs what the job uses (the package, the recipes' scikit-learn, PyTorch);
# `make test`/`make lint` add the test suite's libraries (the dev extra) on top. Two stamps:
# the second never reinstalls the first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEV    := $(VENV)/.installed-dev
# Byte-compiling every file of PyTorch at install time costs more than the install itself;
# Python compiles what the job imports on first use instead.
PIP    := $(BIN)/python -m pip install --quiet --no-compile

.PHONY: setup setup-dev train test test-unit lint bench clean

setup: $(STAMP)

setup-dev: $(DEV)

# Machines without CUDA get PyTorch's CPU wheel (seconds, not a multi-GB CUDA download);
# machines with CUDA get the default build that the package's torch range admits.
# One pip call: one resolution for PyTorch, the package and the recipes' scikit-learn.
$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	if command -v nvidia-smi >/dev/null 2>&1; then \
	  $(PIP) "torch>=2.4" -e ".[recipes]"; \
	else \
	  $(PIP) "torch==2.13.0" -e ".[recipes]"; \
	fi
	touch $(STAMP)

# The suite starts hundreds of interpreters: byte-compile the libraries once, here (as pip
# would have; a few files of some packages are not valid Python 3 and, as with pip, are skipped).
$(DEV): $(STAMP)
	$(PIP) -e ".[dev,recipes]"
	-$(BIN)/python -m compileall -q -j 0 $(VENV)/lib >/dev/null 2>&1
	touch $(DEV)

train: setup
	$(BIN)/trainwell train $(ARGS)

# Both tiers, all of tests/ (pyproject's testpaths): tests/system runs subprocesses, torchrun
# and long runs too (~10 minutes).
test: setup-dev
	$(BIN)/python -m pytest $(ARGS)

# The unit tier alone: no subprocess, under a minute.
test-unit: setup-dev
	$(BIN)/python -m pytest tests/unit $(ARGS)

lint: setup-dev
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/ruff check src tests benchmarks

bench: setup-dev
	$(BIN)/python benchmarks/overhead.py

clean:
	rm -rf $(VENV) runs .pytest_cache .ruff_cache
