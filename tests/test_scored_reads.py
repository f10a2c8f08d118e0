"""The registry of scored reads: every registered read reachable, with one value, through
every surface that lists scored values — summary() (and the segment frame), the partitioned
report, interval() where declared, the Prometheus gauges, `rankeval scored --json`, the
LingPipe alias, the sketch where declared, and the docs' catalogue. The surfaces are drawn
from the registry, never from a hand list."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rankeval import ScoredPrecisionRecallEvaluation, SegmentedEvaluation
from rankeval.cli import main
from rankeval.formulas import PRECISION_AT_RANKS
from rankeval.scored.partitioned import PartitionedReport
from rankeval.scored.reads import READERS, READS, ScoredRead, catalogue
from rankeval.scored.sketch import SketchEvaluation
from tests.helpers import read_options

ROOT = Path(__file__).resolve().parent.parent
RANK, BETA, THRESHOLD = 3, 0.5, 0.45
LABELS = [True, False, True, True, False, False, True, False, False, True, False, True]
SCORES = [0.9, 0.8, 0.8, 0.7, 0.6, 0.5, 0.5, 0.45, 0.3, 0.2, 0.2, 0.1]
MISSES = 2


def _evaluator(ties: str = "grouped") -> ScoredPrecisionRecallEvaluation:
    ev = ScoredPrecisionRecallEvaluation(ties=ties)  # type: ignore[arg-type]
    ev.add_cases(LABELS, SCORES)
    ev.add_misses(MISSES)
    return ev


def _argument(read: ScoredRead) -> Any:
    return {"rank": RANK, "beta": BETA, "threshold": THRESHOLD}.get(str(read.parameter))


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


VALUED = [read for read in READS.values()
          if (read.method is not None or read.compute) and not read.options
          and read.parameter != "threshold" and not read.probabilities]
ids = [read.name for read in READS.values()]


@pytest.mark.parametrize("read", READS.values(), ids=ids)
def test_each_reader_named_has_the_method(read: ScoredRead) -> None:
    classes = {"evaluator": ScoredPrecisionRecallEvaluation, "report": PartitionedReport,
               "sketch": SketchEvaluation}
    assert set(read.readers) <= set(READERS)
    for name in read.readers:
        if read.method is not None:
            assert callable(getattr(classes[name], read.method)), (name, read.method)
    if read.lingpipe is not None:
        assert getattr(ScoredPrecisionRecallEvaluation, read.lingpipe) is not None


@pytest.mark.parametrize("read", READS.values(), ids=ids)
def test_summary_report_and_segment_frame_hold_the_reads_value(read: ScoredRead) -> None:
    ev = _evaluator()
    summary = ev.summary((RANK,), BETA)
    keys = [r.key(RANK) for r in READS.values() if r.in_summary]
    assert list(summary) == keys
    report = ev.report(precision_at=(RANK,), beta=BETA)
    assert list(report.summary((RANK,), BETA)) == keys
    if not read.in_summary:
        assert read.key(RANK) not in summary
        return
    value = read.read(ev, _argument(read))
    assert _same(float(ev.read(read.name, _argument(read))), float(value))
    assert _same(summary[read.key(RANK)], float(value))
    assert _same(report.summary((RANK,), BETA)[read.key(RANK)], float(value))
    assert _same(float(read.read(report, _argument(read))), float(value))
    assert _same(float(report.read(read.name, _argument(read))), float(value))
    segments = SegmentedEvaluation(ScoredPrecisionRecallEvaluation)
    segments.add_cases(["s"] * len(LABELS), LABELS, SCORES)
    segments["s"].add_misses(MISSES)
    frame = segments.summary_frame(precision_at=(RANK,), beta=BETA)
    assert _same(float(frame[read.key(RANK)][0]), float(value))


@pytest.mark.parametrize("read", READS.values(), ids=ids)
def test_interval_where_declared_and_refused_elsewhere(read: ScoredRead) -> None:
    ev = _evaluator()
    extra: dict[str, Any] = {}
    if read.parameter == "rank":
        extra["k"] = RANK
    if read.parameter == "threshold":
        extra["threshold"] = THRESHOLD
    if not read.intervals:
        with pytest.raises(ValueError, match="measure"):
            ev.interval(read.name)
        return
    extra.update(read_options(read.name))
    if read.method is not None or read.compute is not None:
        want = float(read.read(ev, _argument(read), **read_options(read.name)))
    else:  # by hand: the cases scoring at least the threshold
        above = [lab for lab, s in zip(LABELS, SCORES, strict=True) if s >= THRESHOLD]
        positives = sum(LABELS) + MISSES
        want = sum(above) / (len(above) if read.name == "precision" else positives)
    for method in read.intervals:
        found = ev.interval(read.name, method=method, resamples=20, **extra)
        assert found.method == method
        assert found.value == pytest.approx(want, abs=1e-15), method
    assert ev.interval(read.name, **extra).method == read.intervals[0]
    if "report" in read.readers:
        report = ev.report(precision_at=(RANK,), beta=BETA)
        for method in read.intervals:
            if method != "bootstrap":  # the report holds no cases to resample
                got = report.interval(read.name, method=method, **extra)
                want_interval = ev.interval(read.name, method=method, **extra)
                assert (got.low, got.high) == pytest.approx(
                    (want_interval.low, want_interval.high), abs=1e-12, nan_ok=True)


@pytest.mark.parametrize("configured", [False, True])
def test_the_gauges_are_the_registrys(configured: bool) -> None:
    """Every exported read a gauge, with the registry's value: those of the summary always,
    those at a threshold and over a range when the collector is given them."""
    prometheus_client = pytest.importorskip("prometheus_client")
    from rankeval.prometheus import EvaluationCollector

    ev = _evaluator()
    registry = prometheus_client.CollectorRegistry()
    options: dict[str, Any] = ({"threshold": THRESHOLD, "partial_auc": (0.0, 0.4)}
                               if configured else {})
    collector = EvaluationCollector(precision_at=(RANK,), beta=BETA, **options)
    collector.watch(ev, model="m")
    registry.register(collector)
    families = {family.name: family for family in registry.collect()}
    for read in READS.values():
        exported = read.gauge in families
        assert exported == (read.exported and (read.in_summary or configured)), read.name
        if not exported:
            continue
        (sample,) = families[read.gauge].samples
        assert families[read.gauge].documentation == read.description
        want = (read.read(ev, fpr=(0.0, 0.4)) if "fpr" in read.options
                else read.read(ev, _argument(read)))
        assert _same(sample.value, float(want))
        if read.parameter == "rank":
            assert sample.labels["k"] == str(RANK)
        if read.parameter == "beta":
            assert sample.labels["beta"] == repr(BETA)
        if read.parameter == "threshold":
            assert sample.labels["threshold"] == repr(THRESHOLD)
        if "fpr" in read.options:
            assert sample.labels["fpr"] == "0.0,0.4"


def test_the_command_lines_json_holds_every_read_with_a_method(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cases.tsv"
    path.write_text("".join(f"{int(lab)}\t{s}\n" for lab, s in zip(LABELS, SCORES,
                                                                   strict=True)))
    assert main(["scored", str(path), "--misses", str(MISSES), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    ev = _evaluator()
    for read in VALUED:
        got = document[read.method or read.name]
        if read.interpolated:
            assert got["uninterpolated"] == pytest.approx(read.read(ev), abs=0)
            assert got["interpolated"] == pytest.approx(read.read(ev, interpolate=True), abs=0)
        elif read.parameter == "rank":
            assert got == {str(k): read.read(ev, k) for k in PRECISION_AT_RANKS}
        elif read.parameter == "beta":
            assert got == read.read(ev, 1.0)
        else:
            assert got == read.read(ev)


@pytest.mark.parametrize("read", [r for r in READS.values() if "sketch" in r.readers],
                         ids=lambda read: read.name)
def test_the_sketch_bounds_the_exact_value(read: ScoredRead) -> None:
    sketch = SketchEvaluation(exact_until=4)
    sketch.add_cases(LABELS, SCORES)
    sketch.add_misses(MISSES)
    ev = _evaluator("grouped")  # the sketch's values are the grouped policy's
    exact = float(read.read(ev))
    got = read.read(sketch)
    if isinstance(got, int):
        assert got == exact
    else:
        assert got.low <= exact <= got.high


def test_the_docs_catalogue_is_the_registry() -> None:
    page = (ROOT / "docs" / "scored-reads.md").read_text(encoding="utf-8")
    assert page == catalogue(), "regenerate: python -m rankeval.scored.reads > docs/scored-reads.md"
    for read in READS.values():
        assert f"| `{read.name}` |" in page


def test_a_read_added_to_the_registry_reaches_every_surface(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """One registry object (and a method the readers have) is all a new read needs."""
    import rankeval.scored.reads as reads

    new = ScoredRead("positive_share", "r_precision", None, "A read made up for the test.")
    monkeypatch.setitem(reads.READS, new.name, new)
    ev = _evaluator()
    assert ev.summary()["positive_share"] == ev.r_precision()
    assert ev.report().summary()["positive_share"] == ev.r_precision()
    assert "| `positive_share` |" in catalogue()
    assert np.isfinite(ev.summary()["positive_share"])
