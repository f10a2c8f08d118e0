"""Small refusals: each names the problem and changes nothing; each
accepted input gives the right value."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from rankeval import ScoredPrecisionRecallEvaluation, compare, evaluate_run


@pytest.mark.parametrize(("name", "message"), [
    ("set_F.0", "beta must be finite and > 0"),
    ("set_F.-1", "beta must be finite and > 0"),
    ("set_F.1e200", "finite, non-zero square"),
    ("set_F.inf", "expected a finite number"),
    ("SetF(beta=0)", "beta must be finite and > 0"),
    ("SetF(beta=1e200)", "finite, non-zero square"),
])
def test_set_f_follows_the_one_beta_rule(name: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate_run({"q": {"a": 1, "b": 0}}, {"q": {"a": 1.0, "b": 0.5}}, name)


def test_set_f_with_a_valid_beta() -> None:
    """trec_eval's set_F.x = (x + 1) P R / (x P + R): here P = 1/2, R = 1 and x = 0.5."""
    ev = evaluate_run({"q": {"a": 1, "b": 0}}, {"q": {"a": 1.0, "b": 0.5}}, "set_F.0.5")
    assert ev["set_F_0.5"] == pytest.approx(1.5 * 0.5 / (0.5 * 0.5 + 1.0))


@pytest.mark.parametrize("missing", [None, math.nan, pd.NA])
@pytest.mark.parametrize("side", ["qrels", "run"])
def test_a_missing_query_id_is_refused_by_row(missing: object, side: str) -> None:
    ids = pd.array(["a", missing, "a"], dtype=object)
    qrels = pd.DataFrame({"query_id": ids, "doc_id": ["d", "e", "f"], "relevance": [1, 1, 0]})
    run = pd.DataFrame({"query_id": ids, "doc_id": ["d", "e", "f"], "score": [1.0, 2.0, 3.0]})
    pair = (qrels, {"a": {"d": 1.0}}) if side == "qrels" else ({"a": {"d": 1}}, run)
    with pytest.raises(ValueError, match=r"query id at row 1 is missing"):
        evaluate_run(*pair, "P.1")


def test_runs_whose_names_print_alike_are_refused() -> None:
    qrels = {"q": {"a": 1}}
    with pytest.raises(ValueError, match="two runs are named '1'"):
        compare(qrels, {1: {"q": {"a": 1.0}}, "1": {"q": {"a": 0.5}}}, "map")


@pytest.mark.parametrize("labels", [pd.array([1, 0, None, 1], dtype="Int64"),
                                    pd.array([True, False, None, True], dtype="boolean")])
def test_a_null_label_names_its_index(labels: object) -> None:
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases([True], [0.5])
    with pytest.raises(ValueError, match=r"correct\[2\] is missing"):
        ev.add_cases(labels, pd.Series([0.1, 0.2, 0.3, 0.4]))
    assert ev.num_cases() == 1


def test_bfloat16_scores_are_read_exactly() -> None:
    scores = torch.tensor([0.5, 0.25, 0.75, 0.125], dtype=torch.bfloat16)
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases(torch.tensor([1, 0, 0, 1]), scores)
    expected = ScoredPrecisionRecallEvaluation()
    expected.add_cases([True, False, False, True], np.array([0.5, 0.25, 0.75, 0.125]))
    assert ev.summary() == expected.summary()


def test_g_sums_from_positive_zero() -> None:
    """trec_eval's G starts its sum at 0.0: a first term of -0.0 (a gain over log2(0)) leaves
    +0.0, printed 0.0000 (found by the differential test: rankeval printed -0.0000). Here the
    query the run lacks is ranked, under 10.0's -c, as one unjudged document whose gain is 3
    ('-1=3'): 2 + cost 1 - gained 3 = 0."""
    ev = evaluate_run({"q": {"a": 1}, "r": {"z": 1}}, {"q": {"x": 3.0, "a": 2.0}}, "G.-1=3",
                      profile="10.0", complete=True)
    value = ev.per_query("G_-1=3")["r"]
    assert value == 0.0
    assert math.copysign(1.0, value) == 1.0


def test_a_run_or_qrels_entry_that_is_not_a_mapping_is_named() -> None:
    """Fixed: evaluate_run(qrels, {"q": []}) raised a raw AttributeError."""
    for qrels, run, message in [({"q": {"d": 1}}, {"q": []}, r"run\['q'\] must map"),
                                ({"q": ["d"]}, {"q": {"d": 1.0}}, r"qrels\['q'\] must map")]:
        with pytest.raises(TypeError, match=message):
            evaluate_run(qrels, run, ["map"])


def test_relstring_of_a_huge_length_shows_every_document(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Fixed: -m relstring.99999999999999999999999 printed an OverflowError traceback."""
    from rankeval import data
    from rankeval.cli import main

    files = [str(data.path("example.qrels")), str(data.path("bm25.run"))]
    assert main(["trec", "-q", "-m", "relstring.99999999999999999999999", *files]) == 0
    huge = capsys.readouterr().out.splitlines()
    assert main(["trec", "-q", "-m", "relstring.100000", *files]) == 0
    enough = capsys.readouterr().out.splitlines()
    assert [line.split(maxsplit=1)[1] for line in huge] == [
        line.split(maxsplit=1)[1] for line in enough]


def test_the_bundled_data_has_a_public_accessor(capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    from rankeval import data
    from rankeval.cli import main

    assert data.names() == ["bm25.run", "dense.run", "example.qrels",
                            "lingpipe_running_example.tsv", "spam_filter_20k.tsv"]
    for name in data.names():
        assert data.path(name).is_file()
    assert main(["data", "example.qrels"]) == 0
    assert Path(capsys.readouterr().out.strip()) == data.path("example.qrels")
    assert main(["data", "missing.run"]) == 1
    assert capsys.readouterr().err.startswith("rankeval: error: no example file 'missing.run'")


def test_numpy_text_names_a_choice() -> None:
    """Fixed: ties=np.str_("grouped") was refused."""
    ev = ScoredPrecisionRecallEvaluation(ties=np.str_("grouped"))  # type: ignore[arg-type]
    assert ev.ties == "grouped"
    assert type(ev.ties) is str
    with pytest.raises(ValueError, match="ties must be one of"):
        ScoredPrecisionRecallEvaluation(ties=np.str_("group"))  # type: ignore[arg-type]


def test_an_empty_known_file_is_a_user_who_knew_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fixed: --known refused an empty file, and its errors named the run file too."""
    from rankeval import data
    from rankeval.cli import main

    files = [str(data.path("example.qrels")), str(data.path("bm25.run"))]
    empty = tmp_path / "known"
    empty.write_text("")
    assert main(["trec", "-m", "coverage", "-m", "novelty", "--known", str(empty), *files]) == 0
    printed = capsys.readouterr().out
    api = evaluate_run(files[0], files[1], ["coverage", "novelty"], known={})
    assert printed.split() == ["coverage", "all", f"{api['coverage']:.4f}", "novelty", "all",
                               f"{api['novelty']:.4f}"]
    bad = tmp_path / "bad"
    bad.write_text("q1 0 d1 x\n")
    assert main(["trec", "-m", "coverage", "--known", str(bad), *files]) == 1
    assert capsys.readouterr().err == (f"rankeval: error: {bad}:1: expected an integer "
                                       "relevance, found 'x'\n")
