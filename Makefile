# Every target builds .venv from nothing with only a system Python.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-base: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,plot]'
	touch $@

demo: $(VENV)/.installed-base
	$(BIN)/python -m pip install --quiet -e '.[plot]'
	$(BIN)/rankeval demo --output-dir demo-output

# The whole suite, then lint: what CI runs (.ci/run calls this).
test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q
	$(MAKE) --no-print-directory lint

# mypy --strict, ruff, and a static check that nothing needs a Python newer than the
# oldest one pyproject.toml promises (only one Python is installed on the build machines).
lint: $(VENV)/.installed-test
	$(BIN)/python -m mypy
	$(BIN)/ruff check rankeval tests benchmarks examples
	$(BIN)/vermin --no-tips --violations --eval-annotations -t=3.10- rankeval tests benchmarks examples

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .hypothesis demo-output
