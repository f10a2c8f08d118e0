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

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q

lint: $(VENV)/.installed-test
	$(BIN)/python -m mypy
	$(BIN)/python -m pip install --quiet ruff && $(BIN)/ruff check rankeval tests benchmarks

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .hypothesis demo-output
