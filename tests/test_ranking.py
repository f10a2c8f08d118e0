"""Multi-query evaluation from Python: input shapes, options, seed examples, rank statistics."""

from __future__ import annotations

import json
import math
from itertools import combinations
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval.ranking import (
    Qrels,
    Run,
    evaluate_run,
    first_relevant_ranks,
    join,
    kendall_tau,
    kendall_tau_counts,
    median_first_relevant_rank,
    median_relevant_rank,
    relevant_ranks,
    trec_files,
    trec_sort,
)

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def seeds() -> dict[str, dict[str, Any]]:
    with (DATA / "seed_golden.json").open() as handle:
        return {entry["name"]: entry for entry in json.load(handle)}


def ranked(relevance: list[int], num_relevant: int) -> tuple[Qrels, Run]:
    """Qrels and a one-query run ranking d0, d1, ... with the given relevance.

    Misses make up num_relevant.
    """
    docs = [f"d{i}" for i in range(len(relevance))]
    judged = {d: 1 for d, r in zip(docs, relevance, strict=True) if r}
    judged.update({f"miss{i}": 1 for i in range(num_relevant - len(judged))})
    judged.update({d: 0 for d, r in zip(docs, relevance, strict=True) if not r})
    return Qrels.from_dict({"q": judged}), Run.from_ranked_lists({"q": docs})


def values(ev: Any, names: list[str]) -> list[float]:
    return [ev[name] for name in names]


# ---------------------------------------------------------------------------------------------
# seed documents


class TestBgeTutorial:
    """The BGE tutorial's printed recall@k, MRR@k, precision@k and MAP@k, by named option."""

    @pytest.fixture
    def data(self, seeds: dict[str, dict[str, Any]]) -> tuple[Qrels, Run]:
        inputs = seeds["bge_recall_at_k"]["input"]
        return Qrels.from_relevant(inputs["ground_truth"]), Run.from_ranked_lists(inputs["results"])

    def test_capped_recall(self, data: tuple[Qrels, Run], seeds: dict[str, Any]) -> None:
        """recall@k with capped_recall=True is the tutorial's hits / min(k, |rel|)."""
        ev = evaluate_run(*data, "recall.1,5,10", capped_recall=True)
        assert values(ev, ["recall_1", "recall_5", "recall_10"]) == seeds["bge_recall_at_k"][
            "expected"]

    def test_trec_recall(self, data: tuple[Qrels, Run]) -> None:
        """Without the option recall@k divides by |rel| (trec_eval)."""
        ev = evaluate_run(*data, "recall.1,5,10")
        assert values(ev, ["recall_1", "recall_5", "recall_10"]) == pytest.approx(
            [0.1777777778, 0.8055555556, 0.9166666667], abs=1e-10)

    def test_mrr_at_k_is_recip_rank_after_truncation(
        self, data: tuple[Qrels, Run], seeds: dict[str, Any]
    ) -> None:
        """MRR@k = recip_rank with max_docs=k (trec_eval's -M k)."""
        got = [evaluate_run(*data, "recip_rank", max_docs=k)["recip_rank"] for k in (1, 5, 10)]
        assert got == seeds["bge_mrr_at_k"]["expected"]

    def test_precision(self, data: tuple[Qrels, Run], seeds: dict[str, Any]) -> None:
        """P@k is trec_eval's P_k."""
        ev = evaluate_run(*data, "P.1,5,10")
        assert values(ev, ["P_1", "P_5", "P_10"]) == seeds["bge_precision_at_k"]["expected"]

    def test_map_over_relevant_found(self, data: tuple[Qrels, Run], seeds: dict[str, Any]) -> None:
        """The tutorial's MAP@k divides by relevant documents found: ap_denominator='retrieved'."""
        ev = evaluate_run(*data, "map_cut.1,5,10", ap_denominator="retrieved")
        assert values(ev, ["map_cut_1", "map_cut_5", "map_cut_10"]) == seeds["bge_map_at_k"][
            "expected"]

    def test_map_other_denominators(self, data: tuple[Qrels, Run]) -> None:
        """trec_eval's map_cut divides by R; 'min_k_r' by min(k, R) (the seed notes' values)."""
        names = ["map_cut_1", "map_cut_5", "map_cut_10"]
        trec = values(evaluate_run(*data, "map_cut.1,5,10"), names)
        capped = values(evaluate_run(*data, "map_cut.1,5,10", ap_denominator="min_k_r"), names)
        assert trec == pytest.approx([0.1777777778, 0.7027777778, 0.7583333333], abs=1e-10)
        assert capped == pytest.approx([0.6666666667, 0.7027777778, 0.7583333333], abs=1e-10)

    def test_ndcg_in_rank_order(self, data: tuple[Qrels, Run], seeds: dict[str, Any]) -> None:
        """nDCG@k with the system's order: trec_eval's ideal, and the retrieved-only ideal."""
        expected = seeds["bge_ndcg_at_k_correct"]["expected"]
        names = ["ndcg_cut_1", "ndcg_cut_5", "ndcg_cut_10"]
        trec = values(evaluate_run(*data, "ndcg_cut.1,5,10"), names)
        retrieved = values(evaluate_run(*data, "ndcg_cut.1,5,10", ideal="retrieved"), names)
        assert trec == pytest.approx(expected["trec_eval_ndcg_cut"], abs=1e-10)
        assert retrieved == pytest.approx(expected["sklearn_ideal_over_retrieved_only"], abs=1e-10)

    def test_ndcg_as_printed(self, seeds: dict[str, Any]) -> None:
        """The tutorial's buggy call (doc ids used as scores) reproduced via Run.from_scores."""
        inputs = seeds["bge_ndcg_at_k_as_printed"]["input"]
        run = Run.from_scores(inputs["y_score"])
        qrels = Qrels.from_dict({str(i): dict(enumerate(row))
                                 for i, row in enumerate(inputs["y_true"])})
        ev = evaluate_run(qrels, run, "ndcg_cut.1,5,10", ideal="retrieved")
        # sklearn multiplies by 1/log2 and sums with a dot product; trec_eval divides and
        # accumulates, which can differ in the last bit.
        assert values(ev, ["ndcg_cut_1", "ndcg_cut_5", "ndcg_cut_10"]) == pytest.approx(
            seeds["bge_ndcg_at_k_as_printed"]["expected"], rel=1e-15, abs=0)


class TestCourseNotes:
    """The IR course notes' DCG, AP, R-precision and interpolated precision examples."""

    def test_dcg_example_jk2002(self, seeds: dict[str, Any]) -> None:
        """DCG5 = 4, IDCG5 = 4.63, NDCG5 = 0.8638 with discount='jk2002', ideal='retrieved'."""
        gains = seeds["zh_dcg_example"]["input"]["gains_in_rank_order"]
        docs = [f"d{i}" for i in range(len(gains))]
        run = Run.from_ranked_lists({"q": docs})
        qrels = Qrels.from_dict({"q": dict(zip(docs, gains, strict=True))})
        ev = evaluate_run(qrels, run, ["dcg", "ideal_dcg", "ndcg"], discount="jk2002",
                          ideal="retrieved")
        expected = seeds["zh_dcg_example"]["expected"]
        assert values(ev, ["dcg", "ideal_dcg", "ndcg"]) == [
            expected["DCG5"], expected["IDCG5"], expected["NDCG5"]]
        assert evaluate_run(qrels, run, "ndcg")["ndcg"] == pytest.approx(0.928340, abs=1e-6)
        assert evaluate_run(qrels, run, "ndcg", gain="exp")["ndcg"] == pytest.approx(
            0.912878, abs=1e-6)

    @pytest.mark.parametrize("name", ["zh_map_RNRNN_NNNRR", "zh_map_NRNNR_RRNNN"])
    def test_ap_and_rprec(self, seeds: dict[str, Any], name: str) -> None:
        """The 'MAP' examples are single-query AP with R = 4, and RP(4) = Rprec."""
        entry = seeds[name]
        ev = evaluate_run(*ranked(entry["input"]["relevance_in_rank_order"],
                                  entry["input"]["num_relevant"]))
        assert {"AP": ev["map"], "Rprec": ev["Rprec"]} == entry["expected"]

    def test_ap_over_seen_relevant(self, seeds: dict[str, Any]) -> None:
        """Dividing by the 5 relevant documents seen gives 0.58; trec_eval (R = 10) 0.29."""
        entry = seeds["zh_ap_seen_relevant"]
        data = ranked(entry["input"]["relevance_in_rank_order"],
                      entry["input"]["num_relevant_total"])
        assert evaluate_run(*data, "map", ap_denominator="retrieved")["map"] == entry["expected"]
        assert evaluate_run(*data, "map")["map"] == pytest.approx(0.29, abs=1e-12)

    def test_precision_at_recall_levels(self, seeds: dict[str, Any]) -> None:
        """Precision at recall 10/20/30% of the reconstructed ranking."""
        entry = seeds["zh_pr_tradeoff"]
        ev = evaluate_run(*ranked(entry["input"]["relevance_in_rank_order"],
                                  entry["input"]["num_relevant"]), "iprec_at_recall.0.1,0.2,0.3")
        assert values(ev, ["iprec_at_recall_0.10", "iprec_at_recall_0.20",
                           "iprec_at_recall_0.30"]) == pytest.approx([1.0, 2 / 3, 0.5], abs=1e-15)

    @pytest.mark.parametrize(
        ("rule", "profile", "key"),
        [("trec9", "trec_eval9", "trec_eval_v9_pytrec_eval"),
         ("lround", "trec_eval10", "trec_eval_v10"),
         ("ceil", "trec_eval9", "textbook_max_prec_at_recall_ge_r")],
    )
    def test_interpolation_rules(self, seeds: dict[str, Any], rule: str, profile: str,
                                 key: str) -> None:
        """Relevant at ranks 3, 8, 15 (R = 3): the three cutoff rules give the three curves."""
        entry = seeds["zh_interpolated_precision_3rel"]
        data = ranked(entry["input"]["relevance_in_rank_order"], entry["input"]["num_relevant"])
        by_option = evaluate_run(*data, "iprec_at_recall", iprec_rule=rule)
        assert [by_option[c] for c in by_option.columns] == entry["expected"][key]
        if rule != "ceil":
            by_profile = evaluate_run(*data, "iprec_at_recall", profile=profile)
            assert by_profile.aggregates == by_option.aggregates

    def test_kendall_tau(self, seeds: dict[str, Any]) -> None:
        """C = 7, D = 3, tau = 0.4 (both variants, no ties)."""
        entry = seeds["zh_kendall_tau"]
        counts = kendall_tau_counts(entry["input"]["ground_truth_order"],
                                    entry["input"]["result_order"])
        assert (counts.concordant, counts.discordant) == (7, 3)
        assert counts.tau_a == counts.tau_b == entry["expected"]["tau"]
        assert counts.tau_b == pytest.approx(entry["expected"]["scipy_tau_b"], abs=1e-15)

    def test_precision_at_5(self) -> None:
        """Two hits in the top 5: P@5 = 0.4."""
        assert evaluate_run(*ranked([1, 0, 0, 1, 0, 0], 3), "P.5")["P_5"] == 0.4


class TestFmpNotebook:
    """The FMP notebook's rankings from score arrays, P(r), R(r), AP and break-even point."""

    @pytest.mark.parametrize(("ranking", "ap", "bep"), [
        ("fmp_toy_ranking", "fmp_toy_ap", "fmp_toy_bep"),
        ("fmp_ex7_12_table", "fmp_ex7_12_ap", "fmp_ex7_12_bep"),
    ])
    def test_scores_to_ap_and_bep(self, seeds: dict[str, Any], ranking: str, ap: str,
                                  bep: str) -> None:
        """Score arrays rank the documents; AP = map, break-even point = Rprec."""
        inputs = seeds[ranking]["input"]
        relevant = inputs.get("relevant")
        run = Run.from_scores({"q": inputs["scores"]}, doc_ids=inputs["ids"])
        qrels = Qrels.from_relevant({"q": relevant})
        ev = evaluate_run(qrels, run, ["map", "Rprec", "relstring"])
        assert ev["map"] == seeds[ap]["expected"]
        assert ev["Rprec"] == seeds[bep]["expected"]
        chi = seeds[ranking]["expected"]["chi"]
        assert ev.texts["relstring"][0] == "".join("1" if c else "-" for c in chi)[:10]

    def test_precision_recall_table(self, seeds: dict[str, Any]) -> None:
        """P(r) and R(r) for r = 1..10 are P_r and recall_r."""
        entry = seeds["fmp_toy_pr_table"]
        data = ranked(entry["input"]["relevance_in_rank_order"], entry["input"]["num_relevant"])
        cutoffs = ",".join(str(r) for r in range(1, 11))
        ev = evaluate_run(*data, [f"P.{cutoffs}", f"recall.{cutoffs}"])
        assert [ev[f"P_{r}"] for r in range(1, 11)] == pytest.approx(entry["expected"]["P"],
                                                                      abs=1e-10)
        assert [ev[f"recall_{r}"] for r in range(1, 11)] == entry["expected"]["R"]


class TestLingPipeRunningExample:
    """The scored evaluator's running example as one query: AP with a miss, 11-point curves."""

    @pytest.fixture
    def data(self, seeds: dict[str, Any]) -> tuple[Qrels, Run]:
        cases = seeds["lingpipe_averagePrecision_derived"]["input"]["cases_in_rank_order"]
        run = Run.from_scores({"q": [score for score, _ in cases]})
        judged = {i: int(correct) for i, (_, correct) in enumerate(cases)}
        judged[len(cases)] = 1  # the miss: relevant, never retrieved
        return Qrels.from_dict({"q": judged}), run

    def test_average_precision_counts_the_miss(self, data: tuple[Qrels, Run],
                                               seeds: dict[str, Any]) -> None:
        """map = 0.408889 (R = 5 includes the unretrieved relevant document)."""
        ev = evaluate_run(*data, ["map", "Rprec", "recip_rank"])
        assert ev["map"] == seeds["lingpipe_averagePrecision_derived"]["expected"]
        assert (ev["Rprec"], ev["recip_rank"]) == (0.6, 0.5)

    def test_eleven_point_rules(self, data: tuple[Qrels, Run], seeds: dict[str, Any]) -> None:
        """iprec_rule='lingpipe' forces 1.0 at recall 0; trec_eval reports the best precision."""
        from rankeval.ranking import eleven_point_precision

        expected = seeds["lingpipe_elevenPtInterpPrecision_derived"]["expected"]
        lingpipe = eleven_point_precision(*data, iprec_rule="lingpipe")
        trec = eleven_point_precision(*data)
        assert lingpipe.round(6).tolist() == expected["lingpipe"]
        assert trec.round(6).tolist() == expected["trec_eval_v9"]


# ---------------------------------------------------------------------------------------------
# input shapes


RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 2.0, "d4": 0.5}, "q2": {"a": 1.0, "b": 2.0},
       "q3": {"x": 1.0}}
QRELS = {"q1": {"d2": 1, "d3": 2, "d9": 1, "d4": 0}, "q2": {"a": 1, "c": 1}, "q4": {"z": 1}}
MEASURES = ["all_trec"]


def _same(a: Any, b: Any) -> None:
    assert a.queries == b.queries
    assert a.columns == b.columns
    assert dict(a.aggregates) == dict(b.aggregates)
    for name in a.values:
        assert a.values[name].tolist() == b.values[name].tolist(), name
    assert dict(a.texts) == dict(b.texts)


class TestInputShapes:
    """Every input shape describes the same run and gives identical results."""

    def test_dicts_and_objects(self) -> None:
        """Raw dicts equal Run.from_dict / Qrels.from_dict."""
        _same(evaluate_run(QRELS, RUN, MEASURES),
              evaluate_run(Qrels.from_dict(QRELS), Run.from_dict(RUN), MEASURES))

    def test_files(self, tmp_path: Path) -> None:
        """TREC files (paths) equal the dicts they were written from."""
        run_path, qrels_path = tmp_path / "run", tmp_path / "qrels"
        run_path.write_text("".join(f"{q} Q0 {d} 0 {s!r} run\n" for q, docs in RUN.items()
                                    for d, s in docs.items()))
        qrels_path.write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in QRELS.items()
                                      for d, r in docs.items()))
        _same(evaluate_run(qrels_path, str(run_path), MEASURES),
              evaluate_run(QRELS, RUN, MEASURES))

    def test_columnar_arrays(self) -> None:
        """NumPy columns (any row order) equal the dicts."""
        rows = [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()][::-1]
        qid, docid, score = (np.array(c) for c in zip(*rows, strict=True))
        judged = [(q, d, r) for q, docs in QRELS.items() for d, r in docs.items()]
        jq, jd, jr = (np.array(c) for c in zip(*judged, strict=True))
        _same(evaluate_run(Qrels.from_arrays(jq, jd, jr), Run.from_arrays(qid, docid, score),
                           MEASURES),
              evaluate_run(QRELS, RUN, MEASURES))

    def test_integer_ids_tie_break_as_strings(self) -> None:
        """Integer document ids tie-break like their decimal strings ('9' before '10')."""
        ints = evaluate_run(Qrels.from_arrays(["q"], [10], [1]),
                            Run.from_arrays(["q"] * 2, [9, 10], [1.0, 1.0]), "recip_rank")
        text = evaluate_run({"q": {"10": 1}}, {"q": {"9": 1.0, "10": 1.0}}, "recip_rank")
        assert ints["recip_rank"] == text["recip_rank"] == 0.5

    def test_ranked_lists_and_relevant_sets(self) -> None:
        """Ranked id lists score n - position; relevant sets judge 1."""
        run = Run.from_ranked_lists({"q1": ["d1", "d2", "d3"]})
        assert run.to_dict() == {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
        assert Qrels.from_relevant({"q1": ["d2"]}).to_dict() == {"q1": {"d2": 1}}

    def test_mixed_id_kinds_join(self) -> None:
        """A run with integer ids joins qrels with text ids."""
        ev = evaluate_run({"q": {"7": 1}}, Run.from_ranked_lists({"q": [5, 7]}), "recip_rank")
        assert ev["recip_rank"] == 0.5

    def test_unevaluated_rows_do_not_shift_rankings(self) -> None:
        """Rows of a query without judgments are dropped before the per-query sort."""
        run = {"a": {"x": 1.0, "y": 0.5}, "b": {"x": 1.0}, "c": {"z": 1.0}}
        ev = evaluate_run({"a": {"x": 0}, "b": {"x": 1}}, run, ["num_ret", "recip_rank"])
        assert ev.per_query("num_ret") == {"a": 2.0, "b": 1.0}
        assert ev.per_query("recip_rank") == {"a": 0.0, "b": 1.0}

    def test_empty_run_query_is_evaluated(self) -> None:
        """A run query with no documents exists and scores 0 (pytrec_eval's behaviour)."""
        ev = evaluate_run(QRELS, {"q1": {"d2": 1.0}, "q2": {}}, ["map", "num_ret"])
        assert ev.queries == ("q1", "q2")
        assert ev.per_query("map")["q2"] == 0.0
        assert ev.num_queries == 2


class TestValidation:
    """Bad inputs and options fail at the boundary with precise messages."""

    def test_nan_score(self) -> None:
        """NaN cannot be ranked."""
        with pytest.raises(ValueError, match="NaN"):
            Run.from_dict({"q": {"a": float("nan")}})

    def test_nan_score_row_in_columns(self) -> None:
        """The error names the first NaN row; +inf beside -inf is no NaN."""
        inf = float("inf")
        with pytest.raises(ValueError, match=r"NaN \(row 2\)"):
            Run.from_arrays(["q"] * 4, ["a", "b", "c", "d"], [inf, -inf, float("nan"), 1.0])
        assert Run.from_arrays(["q", "q"], ["a", "b"], [inf, -inf]).score.tolist() == [inf, -inf]

    def test_duplicate_pair_in_arrays(self) -> None:
        """A (qid, docid) pair twice in columns names both rows."""
        with pytest.raises(ValueError, match=r"listed twice .*\(rows 0 and 2\)"):
            Run.from_arrays(["q", "q", "q"], ["a", "b", "a"], [1.0, 2.0, 3.0])
        with pytest.raises(ValueError, match="judged twice"):
            Qrels.from_arrays(["q", "q"], ["a", "a"], [1, 0])

    def test_unequal_columns(self) -> None:
        """Columns of different lengths are refused."""
        with pytest.raises(ValueError, match="equal lengths"):
            Run.from_arrays(["q"], ["a", "b"], [1.0])

    def test_non_integer_relevance(self) -> None:
        """Relevance must be an integer."""
        with pytest.raises(TypeError, match="must be an integer"):
            Qrels.from_dict({"q": {"a": 0.5}})  # type: ignore[dict-item]

    @pytest.mark.parametrize(("option", "value"), [
        ("profile", "trec_eval8"), ("ties", "random"), ("iprec_rule", "floor"),
        ("ap_denominator", "k"), ("gain", "log"), ("discount", "log10"), ("ideal", "all"),
        ("no_relevant", "nan"), ("score_precision", "half"),
    ])
    def test_unknown_option_values(self, option: str, value: str) -> None:
        """Every named option lists its allowed values."""
        with pytest.raises(ValueError, match=option):
            evaluate_run(QRELS, RUN, "map", **{option: value})

    def test_unknown_measure(self) -> None:
        """An unknown measure name lists the known ones."""
        with pytest.raises(ValueError, match="unknown measure 'mapp'"):
            evaluate_run(QRELS, RUN, "mapp")

    def test_average_ties_only_for_linear_measures(self) -> None:
        """ties='average' refuses measures it does not define (map)."""
        with pytest.raises(ValueError, match="ties='average'"):
            evaluate_run(QRELS, RUN, "map", ties="average")

    def test_no_common_query(self) -> None:
        """No query with both results and judgments is an error, not an empty mean."""
        with pytest.raises(ValueError, match="no queries"):
            evaluate_run(QRELS, {"x": {"a": 1.0}}, "map")


class TestRunReport:
    """Results are read-only values with per-query arrays and trec_eval's aggregates."""

    def test_values_are_read_only(self) -> None:
        """Per-query arrays cannot be written."""
        ev = evaluate_run(QRELS, RUN, "map")
        with pytest.raises(ValueError, match="read-only"):
            ev.values["map"][0] = 1.0

    def test_counts_are_summed_and_measures_averaged(self) -> None:
        """num_ret sums over queries; map is the mean of the per-query values."""
        ev = evaluate_run(QRELS, RUN, ["num_ret", "map"])
        assert ev["num_ret"] == 6.0
        assert ev["map"] == sum(ev.per_query("map").values()) / 2

    def test_to_dict_is_pytrec_eval_shaped(self) -> None:
        """to_dict() gives {qid: {measure: value}}."""
        assert evaluate_run(QRELS, RUN, "P.1").to_dict() == {"q1": {"P_1": 0.0},
                                                             "q2": {"P_1": 0.0}}

    def test_complete_counts_missing_queries(self) -> None:
        """complete=True (-c) averages over every qrels query; q4 scores 0."""
        plain = evaluate_run(QRELS, RUN, "map")
        complete = evaluate_run(QRELS, RUN, "map", complete=True)
        assert complete.queries == ("q1", "q2", "q4")
        assert complete["map"] == pytest.approx(plain["map"] * 2 / 3, abs=1e-15)

    def test_skip_queries_without_relevant(self) -> None:
        """no_relevant='skip' leaves out queries with no relevant judgment."""
        qrels = {**QRELS, "q3": {"x": 0}}
        assert evaluate_run(qrels, RUN, "map").queries == ("q1", "q2", "q3")
        assert evaluate_run(qrels, RUN, "map", no_relevant="skip").queries == ("q1", "q2")

    def test_merged_cutoffs(self) -> None:
        """P_5 and P_10 named separately are computed together, in cutoff order."""
        assert evaluate_run(QRELS, RUN, ["P_10", "P_5"]).columns == ("P_5", "P_10")


# ---------------------------------------------------------------------------------------------
# ties and properties


class TestTies:
    """Ties are semantics: each policy gives its documented order."""

    DATA = ({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 1.0, "c": 1.0}})

    @pytest.mark.parametrize(("ties", "rank"), [("docid_desc", 3), ("docid_asc", 1),
                                                 ("input", 1)])
    def test_policies(self, ties: str, rank: int) -> None:
        """Relevant 'a' tied with 'b', 'c': last by docid desc, first by asc and by input."""
        ev = evaluate_run(*self.DATA, "recip_rank", ties=ties)  # type: ignore[arg-type]
        assert ev["recip_rank"] == 1 / rank

    def test_float32_ties(self) -> None:
        """Scores equal in float32 tie (trec_eval 9); double keeps them apart (10)."""
        data = ({"q": {"a": 1}}, {"q": {"a": 1.0 + 1e-9, "b": 1.0}})
        assert evaluate_run(*data, "recip_rank")["recip_rank"] == 0.5
        assert evaluate_run(*data, "recip_rank", profile="trec_eval10")["recip_rank"] == 1.0

    def test_average_ties_is_the_expected_value(self) -> None:
        """ties='average' gives the mean over every order of the tied block (P@1 = 1/3)."""
        ev = evaluate_run(*self.DATA, ["P.1", "ndcg_cut.1"], ties="average")
        assert ev["P_1"] == pytest.approx(1 / 3, abs=1e-15)
        assert ev["ndcg_cut_1"] == pytest.approx(1 / 3, abs=1e-15)

    def test_average_ties_match_sklearn_ndcg(self) -> None:
        """ties='average' + ideal='retrieved' is sklearn's ndcg_score."""
        sklearn_metrics = pytest.importorskip("sklearn.metrics")
        rng = np.random.default_rng(7)
        y_true = rng.integers(0, 4, size=(6, 12))
        y_score = rng.integers(0, 4, size=(6, 12)).astype(float)
        run = Run.from_scores(list(y_score))
        qrels = Qrels.from_dict({str(i): dict(enumerate(row.tolist()))
                                 for i, row in enumerate(y_true)})
        for k in (1, 3, 12):
            ev = evaluate_run(qrels, run, f"ndcg_cut.{k}", ties="average", ideal="retrieved")
            mine = ev.values[f"ndcg_cut_{k}"]
            for i in range(6):
                expected = sklearn_metrics.ndcg_score(y_true[i:i + 1], y_score[i:i + 1], k=k)
                assert mine[ev.queries.index(str(i))] == pytest.approx(expected, abs=1e-12)


scores = st.lists(st.integers(min_value=0, max_value=1000), min_size=1, max_size=30, unique=True)


@settings(max_examples=40, deadline=None)
@given(scores=scores, relevant=st.lists(st.booleans(), min_size=30, max_size=30),
       seed=st.integers(0, 2**32 - 1))
def test_row_order_is_irrelevant_with_distinct_scores(
    scores: list[int], relevant: list[bool], seed: int
) -> None:
    """Shuffling the rows of a run with distinct scores changes nothing."""
    docs = [f"d{i}" for i in range(len(scores))]
    qrels = {"q": {d: int(r) for d, r in zip(docs, relevant, strict=False)}}
    order = np.random.default_rng(seed).permutation(len(docs))
    run = Run.from_arrays(["q"] * len(docs), docs, scores)
    shuffled = Run.from_arrays(["q"] * len(docs), np.array(docs)[order],
                               np.array(scores)[order])
    _same(evaluate_run(qrels, run, MEASURES), evaluate_run(qrels, shuffled, MEASURES))


@st.composite
def multi_query_runs(draw: st.DrawFn) -> tuple[dict[str, dict[str, float]],
                                                dict[str, dict[str, int]]]:
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for qid in draw(st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=1,
                             max_size=5, unique=True)):
        docs = draw(st.lists(st.sampled_from([f"d{i}" for i in range(12)]), min_size=1,
                             max_size=12, unique=True))
        run[qid] = {d: float(draw(st.integers(0, 3))) for d in docs}
        if draw(st.booleans()):
            qrels[qid] = {d: draw(st.integers(-1, 2)) for d in docs[::2]} or {"zz": 1}
    qrels.setdefault(next(iter(run)), {"d0": 1})
    return run, qrels


@settings(max_examples=60, deadline=None)
@given(data=multi_query_runs(), seed=st.integers(0, 2**32 - 1),
       ties=st.sampled_from(["docid_desc", "docid_asc"]))
def test_interleaved_rows_rank_like_grouped_ones(
    data: tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]], seed: int, ties: str
) -> None:
    """Rows of many queries in any interleaving (tied scores) rank as the grouped dict does."""
    run, qrels = data
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    order = np.random.default_rng(seed).permutation(len(rows))
    qid, docid, score = (np.array(c) for c in zip(*[rows[i] for i in order], strict=True))
    shuffled = Run.from_arrays(qid, docid, score.astype(float))
    _same(evaluate_run(qrels, run, MEASURES, ties=ties),  # type: ignore[arg-type]
          evaluate_run(qrels, shuffled, MEASURES, ties=ties))  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(data=multi_query_runs(), block=st.sampled_from([1, 3, 1 << 17]),
       cutoff=st.sampled_from([None, 2]))
def test_a_run_read_from_a_file_joins_like_one_built_from_arrays(
    data: tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]], block: int,
    cutoff: int | None,
) -> None:
    """A run read from a file is hashed block by block as it is joined (its hashes are never
    all kept); it ranks and joins exactly as the same run built from a dict (hashed once),
    whatever the rows joined at a time, on the equal-length path and the general one."""
    run, qrels = data
    text = "".join(f"{q} Q0 {d} 1 {s!r} r\n" for q, docs in run.items() for d, s in docs.items())
    read = Run.from_table(trec_files.parse_run(text.encode()))
    assert "_hashes" not in read.__dict__
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trec_sort, "_JOIN_ROWS", block)
        got = evaluate_run(qrels, read, MEASURES, max_docs=cutoff)
    _same(evaluate_run(qrels, Run.from_dict(run), MEASURES, max_docs=cutoff), got)


score_values = st.one_of(
    # 1e-50 and -1e-50 are 0.0 and -0.0 as C floats (ties with 0.0 under trec_eval 9).
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, float("inf"), float("-inf"), 1.0 + 2.0**-30,
                     1e-50, -1e-50]),
    st.floats(allow_nan=False, width=32),
)


@settings(max_examples=60, deadline=None)
@given(grid=st.lists(st.lists(score_values, min_size=6, max_size=6), min_size=1, max_size=6),
       profile=st.sampled_from(["trec_eval9", "trec_eval10"]),
       ties=st.sampled_from(["docid_desc", "docid_asc", "input"]),
       block=st.sampled_from([6, 12, 1 << 20]))
def test_ranking_order_matches_a_plain_sort(grid: list[list[float]], profile: str,
                                           ties: str, block: int) -> None:
    """Equal-length queries (the matrix fast path) rank exactly as a plain Python sort does,
    whether their rows are sorted and joined all at once or a few queries at a time."""
    docs = ["b", "a", "D", "10", "9", "é"]
    run = {f"q{i}": dict(zip(docs, row, strict=True)) for i, row in enumerate(grid)}
    # Each document's relevance is its position in `docs`, so relstring spells the order.
    qrels = {q: {d: i for i, d in enumerate(docs)} for q in run}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trec_sort, "_SORT_CELLS", block)
        patch.setattr(trec_sort, "_JOIN_ROWS", block)
        patch.setattr(join, "_PROBE_ROWS", block)
        ev = evaluate_run(qrels, run, "relstring", profile=profile,  # type: ignore[arg-type]
                          ties=ties)  # type: ignore[arg-type]
    for i, row in enumerate(grid):
        cast = (lambda x: float(np.float32(x))) if profile == "trec_eval9" else float
        order = list(range(len(docs)))
        if ties != "input":
            order.sort(key=lambda j: docs[j].encode(), reverse=ties == "docid_desc")
        order.sort(key=lambda j: -cast(row[j]))
        assert ev.texts["relstring"][ev.queries.index(f"q{i}")] == "".join(map(str, order))


@settings(max_examples=40, deadline=None)
@given(scores=scores, relevant=st.lists(st.booleans(), min_size=30, max_size=30))
def test_monotone_score_transform_is_irrelevant(scores: list[int], relevant: list[bool]) -> None:
    """Any increasing transform of the scores (exact in float32) gives the same values."""
    docs = [f"d{i}" for i in range(len(scores))]
    qrels = {"q": {d: int(r) for d, r in zip(docs, relevant, strict=False)}}
    base = Run.from_arrays(["q"] * len(docs), docs, scores)
    moved = Run.from_arrays(["q"] * len(docs), docs, 4.0 * np.array(scores) - 3.0)
    _same(evaluate_run(qrels, base, MEASURES), evaluate_run(qrels, moved, MEASURES))


@settings(max_examples=30, deadline=None)
@given(k=st.integers(1, 12), grid=st.lists(st.integers(0, 3), min_size=1, max_size=15),
       relevant=st.lists(st.integers(0, 2), min_size=15, max_size=15))
def test_truncation_after_the_sort(k: int, grid: list[int], relevant: list[int]) -> None:
    """max_docs=k keeps the first k documents of trec_eval's order (ties included)."""
    docs = [f"d{i:02d}" for i in range(len(grid))]
    run = {"q": {d: float(s) for d, s in zip(docs, grid, strict=True)}}
    qrels = {"q": {d: r for d, r in zip(docs, relevant, strict=False)}}
    full = evaluate_run(qrels, run, "relstring.100").texts["relstring_100"][0]
    cut = evaluate_run(qrels, run, "relstring.100", max_docs=k).texts["relstring_100"][0]
    assert cut == full[:k]


# ---------------------------------------------------------------------------------------------
# rank statistics


def _kendall_brute(x: list[float], y: list[float]) -> tuple[int, int, float, float]:
    c = d = tx = ty = 0
    for i, j in combinations(range(len(x)), 2):
        sx, sy = np.sign(x[j] - x[i]), np.sign(y[j] - y[i])
        if sx == 0 and sy == 0:
            continue
        if sx == 0:
            tx += 1
        elif sy == 0:
            ty += 1
        elif sx == sy:
            c += 1
        else:
            d += 1
    pairs = len(x) * (len(x) - 1) // 2
    both = pairs - c - d - tx - ty
    den = math.sqrt((pairs - tx - both) * (pairs - ty - both))
    return c, d, (c - d) / pairs, (c - d) / den if den else math.nan


class TestKendallTau:
    """Kendall's tau-a and tau-b, O(n log² n), against brute force and scipy."""

    @settings(max_examples=60, deadline=None)
    @given(pairs=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=2,
                          max_size=40))
    def test_against_brute_force_with_ties(self, pairs: list[tuple[int, int]]) -> None:
        """Counts and both coefficients equal the O(n²) definition, ties included."""
        x, y = [float(a) for a, _ in pairs], [float(b) for _, b in pairs]
        counts = kendall_tau_counts(x, y)
        c, d, tau_a, tau_b = _kendall_brute(x, y)
        assert (counts.concordant, counts.discordant) == (c, d)
        assert counts.tau_a == pytest.approx(tau_a, abs=1e-12)
        if math.isnan(tau_b):
            assert math.isnan(counts.tau_b)
        else:
            assert counts.tau_b == pytest.approx(tau_b, abs=1e-12)

    def test_tau_b_against_scipy(self) -> None:
        """tau-b equals scipy.stats.kendalltau on tied data of 2,000 items."""
        stats = pytest.importorskip("scipy.stats")
        rng = np.random.default_rng(3)
        x, y = rng.integers(0, 50, 2000), rng.integers(0, 30, 2000)
        assert kendall_tau(x, y) == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)

    def test_undefined_cases(self) -> None:
        """n < 2 gives NaN; a constant side makes tau-b NaN but not tau-a."""
        assert math.isnan(kendall_tau([1.0], [2.0]))
        assert math.isnan(kendall_tau([1, 1, 1], [1, 2, 3]))
        assert kendall_tau([1, 1, 1], [1, 2, 3], variant="a") == 0.0


class TestFirstRelevantRank:
    """Rank of the first relevant document per query, and its median (music chapter)."""

    def test_ranks_and_median(self) -> None:
        """Ranks 1, 2, 4 and a query with no hit (inf): median (2 + 4) / 2 = 3."""
        run = Run.from_ranked_lists({"a": ["r", "x"], "b": ["x", "r"], "c": ["x", "y", "z", "r"],
                                     "d": ["x"]})
        qrels = Qrels.from_relevant({q: ["r"] for q in "abcd"})
        assert first_relevant_ranks(qrels, run) == {"a": 1.0, "b": 2.0, "c": 4.0,
                                                    "d": math.inf}
        assert median_first_relevant_rank(qrels, run) == 3.0

    def test_median_is_inf_when_most_queries_miss(self) -> None:
        """More than half the queries without a hit: the median rank is inf."""
        run = Run.from_ranked_lists({"a": ["x"], "b": ["x"], "c": ["r"]})
        qrels = Qrels.from_relevant({q: ["r"] for q in "abc"})
        assert median_first_relevant_rank(qrels, run) == math.inf


class TestOptions:
    """Each named option changes exactly the convention it names."""

    RUN: ClassVar = {"q": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0}}
    QRELS: ClassVar = {"q": {"a": 1, "c": 2, "e": -1, "x": 1, "y": 0}}

    def test_precision_over_retrieved(self) -> None:
        """precision_denominator='retrieved' divides by the documents actually ranked."""
        assert evaluate_run(self.QRELS, self.RUN, "P.10")["P_10"] == 0.2
        got = evaluate_run(self.QRELS, self.RUN, "P.10", precision_denominator="retrieved")
        assert got["P_10"] == 0.4

    def test_relevance_level_keeps_ndcg_gains(self) -> None:
        """relevance_level=2 changes map (only 'c' relevant) but not nDCG's gains (trec_eval)."""
        one = evaluate_run(self.QRELS, self.RUN, ["map", "ndcg"])
        two = evaluate_run(self.QRELS, self.RUN, ["map", "ndcg"], relevance_level=2)
        assert two["map"] == pytest.approx(1 / 3, abs=1e-15)
        assert one["map"] != two["map"]
        assert one["ndcg"] == two["ndcg"]

    def test_judged_only(self) -> None:
        """judged_only drops 'b', 'd' (not judged) and 'e' (judged -1) before ranking."""
        ev = evaluate_run(self.QRELS, self.RUN, ["num_ret", "relstring"], judged_only=True)
        assert (ev["num_ret"], ev.texts["relstring"][0]) == (2.0, "12")

    def test_utility_uses_collection_size(self) -> None:
        """utility's fourth coefficient multiplies documents neither retrieved nor relevant."""
        # 100 documents, 5 retrieved, 3 relevant, 2 of them retrieved: 100 - (5 + 3 - 2).
        ev = evaluate_run(self.QRELS, self.RUN, "utility.0,0,0,1", num_docs=100)
        assert ev["utility_0,0,0,1"] == 94.0

    def test_map_denominators(self) -> None:
        """map divides by R (3), by relevant retrieved (2), or min(k, R) = R without a cutoff."""
        sums = 1 / 1 + 2 / 3
        assert evaluate_run(self.QRELS, self.RUN, "map")["map"] == sums / 3
        assert evaluate_run(self.QRELS, self.RUN, "map", ap_denominator="retrieved")[
            "map"] == sums / 2
        assert evaluate_run(self.QRELS, self.RUN, "map", ap_denominator="min_k_r")[
            "map"] == sums / 3

    def test_lingpipe_rule_reports_one_at_recall_zero(self) -> None:
        """iprec_rule='lingpipe' gives 1.0 at recall 0 even when rank 1 is not relevant."""
        run = {"q": {"a": 2.0, "b": 1.0}}
        qrels = {"q": {"b": 1}}
        assert evaluate_run(qrels, run, "iprec_at_recall.0")["iprec_at_recall_0.00"] == 0.5
        assert evaluate_run(qrels, run, "iprec_at_recall.0", iprec_rule="lingpipe")[
            "iprec_at_recall_0.00"] == 1.0

    def test_complete_and_profiles_print_missing_queries_differently(self) -> None:
        """With complete=True, trec_eval 10 prints the missing query's zeros, 9 does not."""
        run = {"q": {"a": 1.0}}
        qrels = {"q": {"a": 1}, "r": {"b": 1}}
        nine = evaluate_run(qrels, run, "map", complete=True).to_text(per_query=True)
        ten = evaluate_run(qrels, run, "map", complete=True, profile="trec_eval10").to_text(
            per_query=True)
        assert "\tr\t" not in nine
        assert "map                   \tr\t0.0000\n" in ten
        assert nine.endswith("map                   \tall\t0.5000\n")
        assert ten.endswith("map                   \tall\t0.5000\n")


measure_sets = st.sampled_from([
    ["all_trec"],
    ["ndcg.1=3,2=0.5", "G.2=5", "rbp.p=0.5,2=2", "rbp_resid", "unj.1,3", "ndcg_rel.0=1",
     "Rndcg.1=2", "relstring.3", "11pt_avg.0.2,0.5", "set_F.0.5", "utility.2,-1,0,0"],
])


@settings(max_examples=40, deadline=None)
@given(data=multi_query_runs(), measures=measure_sets,
       profile=st.sampled_from(["trec_eval9", "trec_eval10"]),
       options=st.fixed_dictionaries({
           "complete": st.booleans(), "judged_only": st.booleans(),
           "max_docs": st.sampled_from([None, 0, 1, 3]),
           "relevance_level": st.integers(0, 2), "gain": st.sampled_from(["linear", "exp"]),
           "discount": st.sampled_from(["log2", "jk2002"]),
           "ideal": st.sampled_from(["judged", "retrieved"]),
           "iprec_rule": st.sampled_from(["trec9", "lround", "ceil", "lingpipe"]),
       }))
def test_every_measure_and_option_evaluates(
    data: tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]], measures: list[str],
    profile: str, options: dict[str, Any],
) -> None:
    """Any measure with any option combination gives one value per query and column.

    Only Rndcg may be NaN: like trec_eval it divides by the number of gain-level changes of
    the ideal ranking, which is 0 when no judged document has a positive gain; and, as in
    trec_eval, iprec_at_recall and 11pt_avg for a query left with no retrieved document.
    """
    run, qrels = data
    ev = evaluate_run(qrels, run, measures, profile=profile, **options)  # type: ignore[arg-type]
    retrieved = ev.values["num_ret"] > 0 if "num_ret" in ev.values else None
    for name in ev.values:
        assert ev.values[name].shape == (len(ev.queries),)
        nan = np.isnan(ev.values[name])
        if name.startswith(("iprec_at_recall", "11pt_avg")) and retrieved is not None:
            nan &= retrieved
        elif name.startswith(("iprec_at_recall", "11pt_avg")):
            continue
        assert not nan.any() or name.startswith("Rndcg"), name
    text = ev.to_text(per_query=True)
    assert text.count("\n") >= len(ev.aggregates)


class TestQrelsFirst:
    """The qrels come first, as in every peer; swapped arguments are a TypeError saying so."""

    QRELS: ClassVar[dict[str, dict[str, int]]] = {"q": {"a": 1, "b": 0, "c": 1}}
    RUN: ClassVar[dict[str, dict[str, int]]] = {"q": {"a": 1, "b": 4, "c": 3, "d": 2}}

    def test_the_issue_example(self) -> None:
        """Right order: map 0.5 (hand: c at rank 2, a at rank 4 -> (1/2 + 2/4) / 2)."""
        assert evaluate_run(self.QRELS, self.RUN, "map")["map"] == 0.5
        with pytest.raises(TypeError, match=r"these look swapped.*the qrels come first"):
            evaluate_run(self.RUN, self.QRELS, "map")

    def test_objects_in_the_wrong_places(self) -> None:
        run, qrels = Run.from_dict(self.RUN), Qrels.from_dict(self.QRELS)
        assert evaluate_run(qrels, run, "map")["map"] == 0.5
        with pytest.raises(TypeError, match="got a Run where the qrels belong and a Qrels"):
            evaluate_run(run, qrels, "map")
        with pytest.raises(TypeError, match="got a Run where the qrels belong"):
            evaluate_run(run, self.RUN, "map")
        with pytest.raises(TypeError, match="and a Qrels where the run belongs"):
            evaluate_run(self.QRELS, qrels, "map")

    def test_a_score_where_a_relevance_belongs(self) -> None:
        with pytest.raises(TypeError, match=r"'a' has 0.9, not an integer relevance \(a score\?"):
            evaluate_run({"q": {"a": 0.9}}, self.QRELS, "map")

    def test_objects_are_taken_at_their_word(self) -> None:
        """The guess applies to mappings only: the same data as objects is evaluated."""
        ev = evaluate_run(Qrels.from_dict(self.RUN), Run.from_dict(self.QRELS), "map")
        # By hand: c, a (tied at 1, docid descending), b retrieved, all relevant; R = 4.
        assert ev["map"] == (1 / 1 + 2 / 2 + 3 / 3) / 4

    def test_swapped_files_name_the_likely_mistake(self, tmp_path: Path) -> None:
        from rankeval.errors import DataError

        qrels, run = tmp_path / "qrels", tmp_path / "run"
        qrels.write_text("q 0 a 1\n")
        run.write_text("q Q0 a 1 0.5 r\n")
        with pytest.raises(DataError, match=r"found 6 \(a run file\? the qrels come first\)"):
            evaluate_run(str(run), str(qrels), "map")
        with pytest.raises(DataError, match=r"found 4 \(a qrels file\? the qrels come first\)"):
            evaluate_run(str(qrels), str(qrels), "map")


def _slow_relevant_ranks(qrels: dict[str, dict[str, int]],
                         run: dict[str, dict[str, float]]) -> dict[str, list[float]]:
    """trec_eval's order written out: score as C float descending, then docid descending."""
    out = {}
    for qid in sorted(set(qrels) & set(run)):
        if not qrels[qid]:
            continue
        docs = sorted(run[qid], key=lambda d: d.encode(), reverse=True)
        docs.sort(key=lambda d: -float(np.float32(run[qid][d])))
        relevant = {d for d, r in qrels[qid].items() if r >= 1}
        ranks = [float(i + 1) for i, d in enumerate(docs) if d in relevant]
        out[qid] = ranks + [math.inf] * (len(relevant) - len(ranks))
    return out


class TestRelevantRanks:
    """Every relevant document's rank, and the pooled median of the music-retrieval chapter."""

    def test_by_hand(self) -> None:
        qrels = {"a": {"x": 1, "y": 2, "gone": 1, "no": 0}, "b": {"z": 1}}
        run = {"a": {"x": 0.5, "y": 0.9, "no": 0.7, "w": 0.1}, "b": {"z": 2.0, "v": 3.0}}
        ranks = relevant_ranks(qrels, run)
        assert {q: r.tolist() for q, r in ranks.items()} == {"a": [1.0, 3.0, math.inf],
                                                             "b": [2.0]}
        # Pooled: 1, 2, 3, inf -> (2 + 3) / 2; first relevant per query: 1, 2 -> 1.5.
        assert median_relevant_rank(qrels, run) == 2.5
        assert median_first_relevant_rank(qrels, run) == 1.5
        assert relevant_ranks(qrels, run, max_docs=2)["a"].tolist() == [1.0, math.inf, math.inf]

    def test_ties_average_is_refused(self) -> None:
        with pytest.raises(ValueError, match="ties='average' gives no rank"):
            relevant_ranks({"q": {"a": 1}}, {"q": {"a": 1.0}}, ties="average")

    @settings(max_examples=80, deadline=None)
    @given(data=multi_query_runs())
    def test_against_a_slow_reference(
        self, data: tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]
    ) -> None:
        run, qrels = data
        expected = _slow_relevant_ranks(qrels, run)
        if not expected:
            return
        got = relevant_ranks(qrels, run)
        assert {q: r.tolist() for q, r in got.items()} == expected
        pooled = sorted(r for ranks in expected.values() for r in ranks)
        if pooled:
            assert median_relevant_rank(qrels, run) == _slow_median(pooled)


def _slow_median(ordered: list[float]) -> float:
    n = len(ordered)
    if n % 2:
        return ordered[n // 2]
    low, high = ordered[n // 2 - 1], ordered[n // 2]
    return high if high == math.inf else (low + high) / 2


class TestSeedConventionsByName:
    """The BGE tutorial's conventions as measure names, several cutoffs in one call."""

    def test_by_name(self, seeds: dict[str, dict[str, Any]]) -> None:
        inputs = seeds["bge_recall_at_k"]["input"]
        qrels = Qrels.from_relevant(inputs["ground_truth"])
        run = Run.from_ranked_lists(inputs["results"])
        names = ["R_cap@1", "R_cap@5", "R_cap@10", "RR@1", "RR@5", "RR@10",
                 "AP(denominator=retrieved)@1", "AP(denominator=retrieved)@5",
                 "AP(denominator=retrieved)@10", "P@1", "P@5", "P@10"]
        ev = evaluate_run(qrels, run, names)
        assert values(ev, names[:3]) == seeds["bge_recall_at_k"]["expected"]
        assert values(ev, names[3:6]) == seeds["bge_mrr_at_k"]["expected"]
        assert values(ev, names[6:9]) == seeds["bge_map_at_k"]["expected"]
        assert values(ev, names[9:]) == seeds["bge_precision_at_k"]["expected"]
        expected = seeds["bge_ndcg_at_k_correct"]["expected"]["sklearn_ideal_over_retrieved_only"]
        got = values(evaluate_run(qrels, run, ["nDCG(ideal=retrieved)@1",
                                               "nDCG(ideal=retrieved)@5",
                                               "nDCG(ideal=retrieved)@10"]),
                      ["nDCG(ideal=retrieved)@1", "nDCG(ideal=retrieved)@5",
                       "nDCG(ideal=retrieved)@10"])
        assert got == pytest.approx(expected, abs=1e-10)


@pytest.mark.parametrize("span", [3, 40, 10**6])
def test_judged_counts_equal_a_count_of_every_pair(span: int) -> None:
    """The judged documents per (query, value): counted in cells when the values span little,
    sorted otherwise; both against a dict of every judgment."""
    rng = np.random.default_rng(span)
    for _ in range(60):
        queries = int(rng.integers(1, 40))
        m = int(rng.integers(0, 300))
        query, rel = rng.integers(0, queries, m), rng.integers(-2, span, m)
        found: dict[tuple[int, int], int] = {}
        for q, r in zip(query.tolist(), rel.tolist(), strict=True):
            if r >= 0:
                found[(q, r)] = found.get((q, r), 0) + 1
        pairs = sorted(found)
        offsets = np.zeros(queries + 1, dtype=np.int64)
        for q, _ in pairs:
            offsets[q + 1] += 1
        counts = trec_sort.judged_counts(query, rel, queries)
        assert counts.offsets.tolist() == np.cumsum(offsets).tolist()
        assert counts.grades.tolist() == [r for _, r in pairs]
        assert counts.counts.tolist() == [found[pair] for pair in pairs]


@pytest.mark.parametrize("collide", [False, True])
def test_query_ids_are_distinct_exactly_when_a_set_says(collide: bool,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The segments' first query ids are judged distinct by their sorted hashes, and by a set
    of the texts when two hashes agree: both ways against a set, text and bytes, and with
    every hash made equal (every pair a collision). The query codes follow: a query whose
    rows come in two runs has one code, and each row's code names its query."""
    from rankeval.ranking import inputs

    if collide:
        monkeypatch.setattr(inputs, "doc_hash",
                            lambda ids: np.zeros(ids.shape[0], dtype=np.uint64))
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(0, 30))
        texts = [f"q{v}" for v in rng.integers(0, 40, n)]
        for ids in (np.array(texts, dtype=str), np.array([t.encode() for t in texts])):
            assert inputs._distinct(ids, inputs._texts(ids)) == (len(set(texts)) == n)
    for rows, grouped in ((["b", "b", "a", "c", "a", "a"], False),
                          (["b", "b", "a", "c", "c"], True)):
        coded = inputs._query_codes(np.array(rows))
        assert sorted(coded.ids) == sorted(set(rows))
        assert [coded.ids[c] for c in coded.codes.tolist()] == rows
        assert coded.grouped == grouped
