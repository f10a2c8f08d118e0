"""The adapters wing: rankeval on other machinery, imported by nothing in the core.

* :mod:`.spark` — exact evaluation of Spark DataFrames (``rankeval.spark`` for short).
* :mod:`.dask` — the same on Dask DataFrames (``rankeval.dask``).
* :mod:`.common` — what the engine adapters share: table checks, one task's work, the
  options of a scored table's evaluation.
* :mod:`.prometheus` — a Prometheus collector over live evaluators (``rankeval.prometheus``).

A new engine goes here, beside ``spark.py`` and ``dask.py`` (see docs/architecture.md).
"""
