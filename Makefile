# Every target builds .venv from nothing with only a system Python.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# torch (for the torchmetrics oracle) from PyTorch's CPU index: PyPI's Linux wheel of torch
# pulls the CUDA libraries, gigabytes a laptop does not need. Where that index cannot be
# reached, pip takes torch from its other indexes and local wheels.
TORCH  := torch==2.13.0
TORCH_INDEX := https://download.pytorch.org/whl/cpu

.PHONY: demo test fuzz lint docs dist clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-base: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --retries 1 --timeout 20 $(TORCH) --index-url $(TORCH_INDEX)
	$(BIN)/python -m pip install --quiet -e '.[test,plot]'
	touch $@

# Wheels of every extra's dependencies (and of the build backend), for the test that runs
# each guide in a fresh venv holding the built wheel and the extras the guide names: that
# test installs from here, offline, and writes nothing outside its temporary directory.
WHEELHOUSE := $(VENV)/wheelhouse
GUIDE_EXTRAS := plot,stats,frames,prometheus,spark,dask,sketch,sklearn,torch,irds,mlflow
# torch's CPU wheel first, from PyTorch's CPU index where it can be reached (as for the test
# venv): the second command then finds it here, a higher version than PyPI's CUDA build.
$(WHEELHOUSE)/.complete: pyproject.toml | $(BIN)/python
	rm -rf $(WHEELHOUSE)
	-$(BIN)/python -m pip wheel --quiet --no-deps --retries 1 --timeout 20 \
	  --wheel-dir $(WHEELHOUSE) $(TORCH) --index-url $(TORCH_INDEX)
	$(BIN)/python -m pip wheel --quiet --wheel-dir $(WHEELHOUSE) --find-links $(WHEELHOUSE) \
	  'setuptools>=77' wheel '.[$(GUIDE_EXTRAS)]' pandas
	rm -f $(WHEELHOUSE)/rankeval_exact-*.whl
	touch $@

demo: $(VENV)/.installed-base
	$(BIN)/python -m pip install --quiet -e '.[plot]'
	$(BIN)/rankeval demo --output-dir demo-output

# The whole suite, then lint and the docs build: what CI runs (.ci/run calls this).
test: $(VENV)/.installed-test $(WHEELHOUSE)/.complete
	$(BIN)/python -m pytest -q
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory docs

# Fresh seeds for the property tests, again and again until FUZZ_SECONDS have passed (the
# suite itself draws the same examples every run). What fails prints its example: add it to
# the test as an @example, so that the suite keeps it.
FUZZ_SECONDS ?= 600
FUZZ_TESTS = $(shell grep -l '@given' tests/test_*.py)
fuzz: $(VENV)/.installed-test
	@end=$$(( $$(date +%s) + $(FUZZ_SECONDS) )); round=0; \
	while [ $$(date +%s) -lt $$end ]; do \
	  round=$$((round + 1)); echo "fuzz round $$round"; \
	  RANKEVAL_HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest -q -x -m "not slow" $(FUZZ_TESTS) || exit 1; \
	done

# mypy --strict, ruff, and a static check that nothing needs a Python newer than the
# oldest one pyproject.toml promises (only one Python is installed on the build machines).
lint: $(VENV)/.installed-test
	$(BIN)/python -m mypy
	$(BIN)/ruff check rankeval tests benchmarks examples docs/sphinx_roles.py
	$(BIN)/vermin --no-tips --violations --eval-annotations -t=3.10- rankeval tests benchmarks examples

# The documentation site, strict: any warning (a broken link, a docstring mkdocstrings cannot
# parse, a page missing from the navigation) fails the build.
docs: $(VENV)/.installed-test
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir site

# Wheel and sdist; the wheel installed into a fresh venv runs `rankeval demo` and
# `rankeval --version` from another directory; the sdist's own tests run from its unpacked
# tree (the fast suite, in a venv of its test extras).
dist: $(VENV)/.installed-test
	rm -rf dist .dist-check
	$(BIN)/python -m build --outdir dist . > /dev/null
	ls -l dist
	$(BIN)/python -c "import collections, glob, zipfile; names = zipfile.ZipFile(glob.glob('dist/*.whl')[0]).namelist(); print(len(names), 'files in the wheel:', dict(collections.Counter(n.split('/')[1] if n.count('/') > 1 else n.split('/')[0] for n in names)))"
	$(PYTHON) -m venv .dist-check/wheel-venv
	.dist-check/wheel-venv/bin/python -m pip install --quiet dist/*.whl
	cd .dist-check && wheel-venv/bin/rankeval --version && wheel-venv/bin/rankeval demo --output-dir demo-output
	mkdir -p .dist-check/sdist && tar xzf dist/*.tar.gz -C .dist-check/sdist
	$(PYTHON) -m venv .dist-check/sdist-venv
	.dist-check/sdist-venv/bin/python -m pip install --quiet --retries 1 --timeout 20 $(TORCH) --index-url $(TORCH_INDEX)
	cd .dist-check/sdist/rankeval_exact-* && ../../sdist-venv/bin/python -m pip install --quiet '.[test,plot]' && ../../sdist-venv/bin/python -m pytest -q -p no:cacheprovider -m "not slow" -x

clean:
	rm -rf $(VENV) build dist .dist-check site *.egg-info .pytest_cache .mypy_cache .hypothesis demo-output
