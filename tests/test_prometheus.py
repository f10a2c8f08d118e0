"""The Prometheus exporter: scraped over HTTP, parsed with prometheus_client's parser."""

from __future__ import annotations

import math
import threading
import urllib.request
from typing import Any

import numpy as np
import pytest
from prometheus_client.parser import text_string_to_metric_families

from rankeval import ScoredPrecisionRecallEvaluation, evaluate_run
from rankeval.prometheus import EvaluationCollector, serve
from tests.helpers import race


def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the endpoint: (name, sorted labels) -> value."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as response:
        text = response.read().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def labels(**extra: str) -> tuple[tuple[str, str], ...]:
    return tuple(sorted({"model": "m", "window": "none", "ties": "grouped", **extra}.items()))


def test_scraped_values_are_the_evaluators() -> None:
    ev = ScoredPrecisionRecallEvaluation(ties="grouped")
    rng = np.random.default_rng(3)
    ev.add_cases(rng.random(500) < 0.3, np.round(rng.random(500), 2))
    ev.add_misses(4)
    collector = EvaluationCollector(precision_at=(1, 10, 100), beta=2.0)
    collector.watch(ev, model="m")
    run = evaluate_run({"q": {"a": 1, "b": 1}}, {"q": {"a": 0.2, "b": 0.9, "c": 0.5}},
                       ["map", "nDCG@10"], complete=True)
    collector.watch_run(run, model="search")
    with serve(collector, port=0, addr="127.0.0.1") as server:
        got = scrape(server.port)
    assert got["rankeval_cases", labels()] == ev.num_cases()
    assert got["rankeval_positive_cases", labels()] == ev.num_positive_ref()
    assert got["rankeval_roc_auc", labels()] == ev.area_under_roc_curve()
    assert got["rankeval_pr_auc", labels()] == ev.area_under_pr_curve()
    assert got["rankeval_average_precision", labels()] == ev.average_precision()
    assert got["rankeval_reciprocal_rank", labels()] == ev.reciprocal_rank()
    for k in (1, 10, 100):
        assert got["rankeval_precision_at", labels(k=str(k))] == ev.precision_at(k)
    assert got["rankeval_max_f_measure", labels(beta="2.0")] == ev.maximum_f_measure(2.0)
    for name in ("map", "nDCG@10"):
        key = ("rankeval_query_measure", (("measure", name), ("model", "search")))
        assert got[key] == run[name]


def test_scrapes_under_eight_writers_lose_nothing_and_agree_with_themselves() -> None:
    """Writers add (positive 0.5, negative 0.9, positive 0.5, negative 0.1) in turn.

    Whatever the interleaving, every state has N_low negatives at 0.1 with
    N_low <= N_high <= N_low + 8, and grouped ROC AUC = N_low / N: a scrape mixing two
    states (counts from one, area from another) would almost never satisfy that.
    """
    ev = ScoredPrecisionRecallEvaluation(ties="grouped")
    collector = EvaluationCollector()
    collector.watch(ev, model="m")
    server = serve(collector, port=0, addr="127.0.0.1")
    per_writer = 15_000
    def writer() -> None:
        for i in range(per_writer):
            ev.add_case(True, 0.5)
            ev.add_case(False, 0.9 if i % 2 == 0 else 0.1)

    scrapes: list[dict[Any, float]] = []
    try:
        race([threading.Thread(target=writer) for _ in range(8)],
             lambda: scrapes.append(scrape(server.port)))
        final = scrape(server.port)
    finally:
        server.close()
    assert len(scrapes) >= 2  # scrapes really overlapped the writes
    for got in [*scrapes, final]:
        cases = got["rankeval_cases", labels()]
        positives = got["rankeval_positive_cases", labels()]
        negatives = got["rankeval_negative_cases", labels()]
        assert cases == positives + negatives
        assert negatives <= positives <= negatives + 8
        if positives and negatives:
            low = got["rankeval_roc_auc", labels()] * negatives
            assert abs(low - round(low)) < 1e-6
            assert 0 <= negatives - 2 * round(low) <= 8
    assert final["rankeval_cases", labels()] == 8 * 2 * per_writer  # nothing lost
    assert final["rankeval_roc_auc", labels()] == 0.5


def test_user_labels_cannot_take_ours_or_reserved_names() -> None:
    collector = EvaluationCollector()
    ev = ScoredPrecisionRecallEvaluation()
    for name in ("k", "beta", "measure", "window", "ties"):
        with pytest.raises(ValueError, match="set by rankeval itself"):
            collector.watch(ev, model="m", **{name: "x"})
    for name in ("__name__", "__x", "9lives", "a-b"):
        with pytest.raises(ValueError, match="not a Prometheus label name"):
            collector.watch(ev, model="m", **{name: "x"})
    with pytest.raises(ValueError, match="set by rankeval itself"):
        collector.watch_run(lambda: evaluate_run({"q": {"a": 1}}, {"q": {"a": 1.0}}, "map"),
                            model="m", measure="x")
    assert list(collector.collect()) == []  # nothing was watched


def test_a_failing_evaluation_fails_only_its_own_series() -> None:
    def broken_clock() -> float:
        raise OSError("the clock is gone")

    good = ScoredPrecisionRecallEvaluation(ties="grouped")
    good.add_cases([True, False], [0.9, 0.1])
    bad = ScoredPrecisionRecallEvaluation(horizon=60.0, clock=broken_clock)
    collector = EvaluationCollector()
    collector.watch(good, model="m")
    collector.watch(bad, model="broken")
    collector.watch_run(lambda: 1 / 0, model="search")  # type: ignore[arg-type,return-value]
    with serve(collector, port=0, addr="127.0.0.1") as server:
        got = scrape(server.port)
    assert got["rankeval_roc_auc", labels()] == 1.0
    assert got["rankeval_read_ok", labels()] == 1.0
    broken = tuple(sorted({"model": "broken", "window": "60.0s", "ties": "grouped"}.items()))
    assert got["rankeval_read_ok", broken] == 0.0
    assert ("rankeval_roc_auc", broken) not in got


def test_horizons_that_differ_export_different_series() -> None:
    collector = EvaluationCollector()
    for horizon in (1000000.4, 1000000.2):
        collector.watch(ScoredPrecisionRecallEvaluation(horizon=horizon), model="m")
    windows = {sample.labels["window"] for family in collector.collect()
               for sample in family.samples if family.name == "rankeval_cases"}
    assert windows == {"1000000.4s", "1000000.2s"}
    with pytest.raises(ValueError, match="watched already"):
        collector.watch(ScoredPrecisionRecallEvaluation(horizon=1000000.4), model="m")


def test_unwatch_stops_exporting() -> None:
    collector = EvaluationCollector()
    a, b = ScoredPrecisionRecallEvaluation(), ScoredPrecisionRecallEvaluation()
    collector.watch(a, model="a")
    collector.watch(b, model="b")
    run = evaluate_run({"q": {"a": 1}}, {"q": {"a": 1.0}}, "map")
    collector.watch_run(run, model="search")
    collector.unwatch(a)
    collector.unwatch(run)
    models = {sample.labels["model"] for family in collector.collect()
              for sample in family.samples}
    assert models == {"b"}
    with pytest.raises(KeyError, match="not watched"):
        collector.unwatch(a)


def test_segments_are_series_with_their_key_as_a_label() -> None:
    from rankeval import SegmentedEvaluation

    seg = SegmentedEvaluation(lambda: ScoredPrecisionRecallEvaluation(ties="grouped"))
    seg.add_cases(["de", "fr", "de"], [True, False, False], [0.9, 0.4, 0.2])
    collector = EvaluationCollector()
    collector.watch_segments(seg, model="m", label="country")
    with serve(collector, port=0, addr="127.0.0.1") as server:
        first = scrape(server.port)
        seg.add_case("us", True, 0.5)  # a segment seen later joins at the next scrape
        second = scrape(server.port)
    assert first["rankeval_roc_auc", labels(country="de")] == seg["de"].area_under_roc_curve()
    assert ("rankeval_roc_auc", labels(country="us")) not in first
    assert second["rankeval_cases", labels(country="us")] == 1.0
    collector.unwatch(seg)
    with pytest.raises(KeyError):
        collector.unwatch(seg)
    with pytest.raises(ValueError, match="taken"):
        collector.watch_segments(seg, model="m", label="ties")


def test_segment_keys_that_print_alike_stay_distinct_series() -> None:
    """Fixed: 1 and "1", None and "None" exported duplicate series (invalid exposition)."""
    from prometheus_client import CollectorRegistry, generate_latest

    from rankeval import SegmentedEvaluation

    seg = SegmentedEvaluation(lambda: ScoredPrecisionRecallEvaluation(ties="grouped"))
    keys: list[Any] = [1, "1", None, "None", ("a", 1), "('a', 1)", "x"]
    for i, key in enumerate(keys):
        seg.add_cases([key, key], [True, False], [0.9 - i / 100, 0.1])
    collector = EvaluationCollector()
    collector.watch_segments(seg, model="m", label="segment")
    registry = CollectorRegistry()
    registry.register(collector)
    text = generate_latest(registry).decode()
    # The reference parser reads it back, every series once.
    series = [(family.name, tuple(sorted(sample.labels.items())))
              for family in text_string_to_metric_families(text) for sample in family.samples]
    assert len(series) == len(set(series))
    cases = {sample.labels["segment"] for family in text_string_to_metric_families(text)
             for sample in family.samples if sample.name == "rankeval_cases"}
    assert cases == {"1", "'1'", "None", "'None'", "('a', 1)", "\"('a', 1)\"", "x"}
    with pytest.raises(ValueError, match="tuple holding NaN"):
        seg.add_case(("a", float("nan")), True, 0.5)


def test_a_collector_refuses_a_bad_threshold_or_range() -> None:
    from rankeval.prometheus import EvaluationCollector

    for bad in (math.nan, math.inf):
        with pytest.raises(ValueError, match="threshold must be a finite score"):
            EvaluationCollector(threshold=bad)
    with pytest.raises(ValueError, match="is reversed"):
        EvaluationCollector(partial_auc=(0.2, 0.1))
    with pytest.raises(TypeError, match="must be a pair"):
        EvaluationCollector(partial_auc=0.1)  # type: ignore[arg-type]
    collector = EvaluationCollector(threshold=0.5)
    for taken in ("threshold", "fpr"):
        with pytest.raises(ValueError, match="is set by rankeval itself"):
            collector.watch(ScoredPrecisionRecallEvaluation(), model="m", **{taken: "x"})
