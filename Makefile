# One command sets everything up and runs the job: `make train` / `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup train test test-unit lint bench clean

setup: $(STAMP)

# Machines without CUDA get PyTorch's CPU wheel (seconds, not a multi-GB CUDA download);
# machines with CUDA get the default build that the package's torch range admits.
$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	if command -v nvidia-smi >/dev/null 2>&1; then \
	  $(BIN)/python -m pip install --quiet "torch>=2.4"; \
	else \
	  $(BIN)/python -m pip install --quiet "torch==2.13.0"; \
	fi
	$(BIN)/python -m pip install --quiet -e ".[dev,recipes]"
	touch $(STAMP)

train: setup
	$(BIN)/trainwell train $(ARGS)

# Both tiers, all of tests/ (pyproject's testpaths): tests/system runs subprocesses, torchrun
# and long runs too (~10 minutes).
test: setup
	$(BIN)/python -m pytest $(ARGS)

# The unit tier alone: no subprocess, under a minute.
test-unit: setup
	$(BIN)/python -m pytest tests/unit $(ARGS)

lint: setup
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/ruff check src tests benchmarks

bench: setup
	$(BIN)/python benchmarks/overhead.py

clean:
	rm -rf $(VENV) runs .pytest_cache .ruff_cache
