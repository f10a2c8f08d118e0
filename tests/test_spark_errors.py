"""Spark's failures said plainly: a Java heap error and a worker without pyarrow
used to surface as "need at least one array to concatenate"."""

from __future__ import annotations

from typing import Any

import pytest

from rankeval import spark as rs


class Failing:
    """A frame whose collect fails as a Spark job does."""

    def __init__(self, text: str) -> None:
        self.text = text

    def collect(self) -> list[Any]:
        raise RuntimeError(self.text)


def test_a_java_heap_error_is_a_memory_error() -> None:
    text = ("An error occurred while calling o123.collectToPython.\n"
            ": java.lang.OutOfMemoryError: Java heap space")
    with pytest.raises(MemoryError, match=r"raise spark\.driver\.memory"):
        rs._collect(Failing(text))


def test_a_worker_without_pyarrow_is_named() -> None:
    text = ("org.apache.spark.api.python.PythonException: Traceback (most recent call last):\n"
            "ModuleNotFoundError: No module named 'pyarrow'")
    with pytest.raises(ModuleNotFoundError, match="workers' Python has no pyarrow"):
        rs._collect(Failing(text))


def test_other_errors_pass_through() -> None:
    with pytest.raises(RuntimeError, match="something else"):
        rs._collect(Failing("something else"))


def test_collect_evaluator_of_an_empty_table(spark: Any) -> None:
    frame = spark.createDataFrame([(0.5, True)], "score double, label boolean").limit(0)
    with pytest.raises(ValueError, match="the table has no rows"):
        rs.collect_evaluator(frame)


def test_collect_evaluator_that_gets_no_rows_says_so(spark: Any,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    frame = spark.createDataFrame([(0.5, True), (0.25, False)], "score double, label boolean")
    monkeypatch.setattr(rs, "_unblob", lambda rows: [])  # a job that lost its results
    with pytest.raises(RuntimeError, match="Spark returned none of the table's 2 rows"):
        rs.collect_evaluator(frame)


def test_a_group_column_of_arrays_or_structs_is_refused(spark: Any) -> None:
    df = spark.createDataFrame([(0.5, True, [1, 2], (1, "a"))],
                               "score double, label boolean, a array<int>, "
                               "s struct<x:int, y:string>")
    for column in ("a", "s"):
        with pytest.raises(TypeError, match=f"group column '{column}' must hold plain values"):
            rs.evaluate(df, group_col=column)
