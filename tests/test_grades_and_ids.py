"""Memory and time never grow with a relevance grade's size or a document id's length
(docs/semantics.md, "Gains"): judged counts are kept per distinct grade (sparse), never one
column per integer up to the largest grade. Memory itself is measured in
``benchmarks/bench_trec_memory.py``; these tests check the values.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

from rankeval import evaluate_run
from rankeval.ranking import Qrels, trec_cli


@pytest.mark.parametrize("grade", [10**8, 2**40, 2**62, 2**63 - 1])
def test_a_huge_grade_is_one_value(grade: int) -> None:
    qrels = Qrels.from_arrays(["q", "q", "q"], ["big", "one", "zero"],
                              np.array([grade, 1, 0], dtype=np.int64))
    run = {"q": {"one": 3.0, "big": 2.0, "zero": 1.0}}
    ev = evaluate_run(qrels, run, ["ndcg", "ndcg_cut.2", "map", "P.2", "num_rel"])
    # By hand: gains 1, grade, 0 at ranks 1..3; the ideal ranks grade, then 1.
    dcg = 1.0 + grade / math.log2(3)
    ideal = grade + 1.0 / math.log2(3)
    assert ev["ndcg"] == pytest.approx(dcg / ideal, rel=1e-12)
    assert ev["ndcg_cut_2"] == pytest.approx(dcg / ideal, rel=1e-12)
    # Binary measures do not see the grade's size: as trec_eval with a grade of 2.
    small = {"q": {"big": 2, "one": 1, "zero": 0}}
    theirs = pytrec_eval.RelevanceEvaluator(small, {"map", "P_2", "num_rel"}).evaluate(run)
    assert (ev["map"], ev["P_2"], ev["num_rel"]) == (
        theirs["q"]["map"], theirs["q"]["P_2"], theirs["q"]["num_rel"])


def test_many_distinct_grades_stay_small() -> None:
    """20,000 queries, each judging one document with a grade of its own: a dense
    queries x grades matrix would have 4e8 cells (3.2 GB); per-batch grades keep it
    small. Each query ranks its relevant document first: nDCG 1, AP 1."""
    n = 20_000
    queries = [f"q{i}" for i in range(n)]
    qrels = Qrels.from_arrays(queries, ["d"] * n, np.arange(1, n + 1) * 1000)
    run = {q: {"d": 1.0, "x": 0.5} for q in queries}
    ev = evaluate_run(qrels, run, ["ndcg", "map", "Rndcg", "G"])
    assert (ev["ndcg"], ev["map"]) == (1.0, 1.0)
    assert set(ev.per_query("Rndcg").values()) == {1.0}


@pytest.mark.parametrize(("value", "dtype"), [(2**64 - 1, np.uint64), (2**63, np.uint64),
                                             (1e30, np.float64), (-1e30, np.float64)])
def test_grades_outside_int64_are_refused(value: float, dtype: type) -> None:
    with pytest.raises(ValueError, match=r"rel\[1\] is .* outside the int64 range"):
        Qrels.from_arrays(["q", "q"], ["a", "b"], np.array([1, value], dtype=dtype))


def test_a_frame_grade_of_2_62_evaluates() -> None:
    import pandas

    frame = pandas.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"],
                              "relevance": np.array([2**62, 1], dtype=np.int64)})
    ev = evaluate_run(frame, {"q": {"b": 2.0, "a": 1.0}}, ["ndcg", "Rndcg", "G", "rbp"],
                      profile="10.0")
    dcg, ideal = 1.0 + 2.0**62 / math.log2(3), 2.0**62 + 1.0 / math.log2(3)
    assert ev["ndcg"] == pytest.approx(dcg / ideal, rel=1e-12)


def test_a_file_grade_too_long_is_named(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q 0 a 18446744073709551615\n")
    run.write_text("q Q0 a 1 1.0 r\n")
    assert trec_cli.main([str(qrels), str(run)]) == 1
    err = capsys.readouterr().err
    assert "line 1" in err or ":1:" in err
    assert "relevance 18446744073709551615 is too large (at most 18 digits)" in err


def test_a_one_megabyte_id_reads_and_joins(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """One 1 MB document id among short ones: no false "out of memory" (a column padded to
    the longest id for every row it might hold), and the same values as with a short name
    for that document (trec_eval's, by pytrec_eval)."""
    long_id = "x" * 1_000_000
    qrels_lines = [f"q{i % 50} 0 d{i} {i % 3}" for i in range(2000)] + [f"q7 0 {long_id} 2"]
    run_lines = [f"q{i % 50} Q0 d{i} 0 {i / 7:.3f} r" for i in range(0, 2000, 3)]
    run_lines.append(f"q7 Q0 {long_id} 0 1000.0 r")
    (tmp_path / "qrels").write_text("\n".join(qrels_lines) + "\n")
    (tmp_path / "run").write_text("\n".join(run_lines) + "\n")
    assert trec_cli.main(["-q", "-m", "map", "-m", "ndcg", str(tmp_path / "qrels"),
                          str(tmp_path / "run")]) == 0
    ours = capsys.readouterr().out
    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_lines:
        q, _, d, r = line.split()
        qrels.setdefault(q, {})["LONG" if d == long_id else d] = int(r)
    run: dict[str, dict[str, float]] = {}
    for line in run_lines:
        q, _, d, _, score, _ = line.split()
        run.setdefault(q, {})["LONG" if d == long_id else d] = float(score)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg"}).evaluate(run)
    for line in ours.splitlines():
        name, qid, value = line.split()
        if qid != "all":
            assert float(value) == pytest.approx(theirs[qid][name], abs=5e-5), (name, qid)


@pytest.mark.parametrize("width", [257, 300, 1000, 4099])
def test_wide_ids_hash_as_narrow_ones(width: int) -> None:
    """Ids past 256 bytes hash by whole word matrices: the same values as the word-by-word
    loop, and the same in an array of any width."""
    from rankeval.ranking import join

    rng = np.random.default_rng(width)
    ids = np.array([bytes(rng.integers(1, 256, int(rng.integers(0, width + 1)),
                                        dtype=np.uint8)) for _ in range(300)] + [b"x" * width],
                   dtype=f"S{width}")
    wide = join.doc_hash(ids)
    words = join._words(np.ascontiguousarray(ids).view(np.uint8).reshape(len(ids), width))
    def factor(c: int) -> np.uint64:  # the word multiplier, in Python's exact integers
        return np.uint64((0x9E3779B97F4A7C15 * (2 * c + 1)) & 0xFFFFFFFFFFFFFFFF | 1)

    expected = np.zeros(len(ids), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for c, word in enumerate(words):
            expected ^= join._read_word(word, slice(None), np.empty(len(ids), np.uint64)
                                        ).copy() * factor(c)
    expected ^= join._GOLDEN
    assert np.array_equal(wide, join._mix(expected, np.empty_like(expected)))
    assert np.array_equal(join.doc_hash(ids.astype(f"S{width + 13}")), wide)
