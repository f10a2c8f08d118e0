"""The dict and table inputs judge their values by type in one pass (no Python step a row):
NumPy scalars and str subclasses are read as their Python kin, and the first bad value is
still named, as before."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

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


def test_a_grade_past_64_bits_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"relevance grades must fit in 64 bits"):
        Qrels.from_dict({"q": {"a": 2**63}})


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


@pytest.mark.parametrize("missing", [None, math.nan, pd.NA, pd.NaT])
def test_a_missing_id_after_runs_of_equal_ids_is_named_by_its_row(missing: object) -> None:
    """Only the first id of each run of equal ids is looked at: the row named is still the
    column's, for a missing id repeated (one object twice) or not."""
    ids = np.array(["a", "a", "a", missing, missing, "b", "b"], dtype=object)
    with pytest.raises(ValueError, match="query id at row 3 is missing"):
        Run.from_arrays(ids, np.array(list("cdefghi")), np.arange(7.0))


# Document ids of every kind a mapping may hold: the fast reading (joined, cut by NumPy)
# must give the ids the general one gives, and fall back where it cannot carry them.
_ID_TEXT = st.text(st.characters(codec="utf-8") | st.sampled_from(
    ["\n", "\x00", "é", "\U0001f600", "\udc80", "\ud800", " "]), max_size=70)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(max_size=3), st.dictionaries(
    _ID_TEXT, st.floats(allow_nan=False) | st.integers(-3, 3), max_size=6), max_size=4))
@example({"q": {"a\nb": 1.0, "c": 0.5}})  # a newline inside an id
@example({"q": {"a\x00": 1.0, "c": 0.5}})  # a NUL, which a fixed-width array would drop
@example({"q": {"a\x00b": 1.0, "c": 0.5}})  # one inside, which it keeps
@example({"q": {"": 1.0}})  # every id empty
@example({"q": {"x" * 70: 1.0, "y": 2.0}})  # wider than the fast reader takes
@example({"q": {"\ud800": 1.0}})  # a lone surrogate that UTF-8 cannot encode
def test_mapping_ids_read_back_as_given(table: dict[str, dict[str, float]]) -> None:
    if any(d.endswith("\x00") for docs in table.values() for d in docs):
        with pytest.raises(ValueError, match="ends with a NUL character"):
            Run.from_dict(table)
        return
    run = Run.from_dict(table)
    assert run.to_dict() == {q: {d: float(s) for d, s in docs.items()}
                             for q, docs in table.items()}
    judged = {q: {d: len(d) % 4 for d in docs} for q, docs in table.items()}
    assert Qrels.from_dict(judged).to_dict() == {q: docs for q, docs in judged.items() if docs}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]),
                          st.text(st.characters(codec="utf-8"), min_size=1, max_size=8),
                          st.integers(0, 3), st.integers(-2, 2), st.booleans()),
                min_size=1, max_size=40))
def test_mapping_ids_evaluate_as_array_ids(rows: list[tuple[str, str, int, int, bool]]
                                           ) -> None:
    """Ties included (scores from five values): the order of tied documents is the ids' UTF-8
    byte order from a mapping and code point order from a ``U`` column, the same for every
    encodable text."""
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for qid, doc, rel, score, judged in rows:
        run.setdefault(qid, {})[doc] = float(score)
        if judged:
            qrels.setdefault(qid, {})[doc] = rel
    if not qrels:
        return
    columns = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    judgments = [(q, d, r) for q, docs in qrels.items() for d, r in docs.items()]
    as_arrays = (Qrels.from_arrays(*map(np.array, zip(*judgments, strict=True))),
                 Run.from_arrays(*map(np.array, zip(*columns, strict=True))))
    measures = ["map", "recip_rank", "ndcg", "P.3", "relstring"]
    want = evaluate_run(*as_arrays, measures, workers=1)
    got = evaluate_run(Qrels.from_dict(qrels), Run.from_dict(run), measures, workers=1)
    assert got.to_text(per_query=True) == want.to_text(per_query=True)
    # A table's object columns of strings take the same fast way as a mapping's ids.
    def as_objects(rows: list[tuple[str, str, Any]]) -> list[np.ndarray]:
        return [np.array(c, dtype=object) if i < 2 else np.array(c)
                for i, c in enumerate(zip(*rows, strict=True))]

    objects = (Qrels.from_arrays(*as_objects(judgments)), Run.from_arrays(*as_objects(columns)))
    carried = not any("\n" in doc for _, doc, _ in columns)  # else the general way
    assert objects[1].docid.dtype.kind == ("S" if carried else "U")
    got = evaluate_run(*objects, measures, workers=1)
    assert got.to_text(per_query=True) == want.to_text(per_query=True)


def test_an_object_column_id_ending_with_nul_is_refused() -> None:
    with pytest.raises(ValueError, match="ends with a NUL character"):
        Run.from_arrays(np.array(["q", "q"], dtype=object), np.array(["a", "a\x00"],
                                                                    dtype=object), [1.0, 2.0])
