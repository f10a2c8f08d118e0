"""The dict and table inputs judge their values by type in one pass (no Python step a row):
NumPy scalars and str subclasses are read as their Python kin, and the first bad value is
still named, as before."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rankeval import evaluate_run
from rankeval.ranking.inputs import Qrels, Run


class Name(str):
    """A str subclass, as some id libraries hand out."""


def test_numpy_scalars_and_str_subclasses_are_their_python_kin() -> None:
    qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"a": 1}}
    run = {"q1": {"a": 0.5, "b": 0.9, "c": 0.1}, "q2": {"a": 0.3, "d": 0.2}}
    numpy_qrels = {q: {Name(d): np.int64(r) for d, r in j.items()} for q, j in qrels.items()}
    numpy_run = {q: {Name(d): np.float32(s) for d, s in r.items()} for q, r in run.items()}
    want = evaluate_run(qrels, run, ["map", "ndcg", "P.2"])
    got = evaluate_run(numpy_qrels, numpy_run, ["map", "ndcg", "P.2"])
    for name in ("map", "ndcg", "P_2"):
        assert got[name] == pytest.approx(want[name], abs=1e-7)


@pytest.mark.parametrize(("qrels", "message"), [
    ({"q1": {"a": 1, "b": True}}, "document 'b' must be an integer, got bool"),
    ({"q1": {"a": 1}, "q2": {"x": 0, "y": 1.5}}, "document 'y' must be an integer, got float"),
])
def test_the_first_bad_grade_is_named(qrels: dict, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        Qrels.from_dict(qrels)


def test_a_bad_score_is_named() -> None:
    with pytest.raises(TypeError, match=r"scores must be real numbers, got str '0\.5'"):
        Run.from_dict({"q": {"a": 1.0, "b": "0.5"}})
    with pytest.raises(TypeError, match="got bool True"):
        Run.from_dict({"q": {"a": True}})


def test_a_null_id_in_an_object_column_is_named_by_its_row() -> None:
    run = pd.DataFrame({"query_id": ["q1", "q1", None], "doc_id": ["a", "b", "c"],
                        "score": [0.5, 0.4, 0.3]})
    with pytest.raises(ValueError, match="query id at row 2 is missing"):
        Run.from_frame(run)
