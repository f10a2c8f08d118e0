"""Prometheus metrics from live evaluators, computed at scrape time.

>>> from rankeval import ScoredPrecisionRecallEvaluation
>>> from rankeval.prometheus import EvaluationCollector
>>> ev = ScoredPrecisionRecallEvaluation()
>>> ev.add_cases([True, False], [0.9, 0.1])
>>> collector = EvaluationCollector()
>>> collector.watch(ev, model="fraud-v2")
>>> [m.name for m in collector.collect()][:3]
['rankeval_cases', 'rankeval_positive_cases', 'rankeval_negative_cases']

A scrape reads each evaluator once, through
:meth:`~rankeval.ScoredPrecisionRecallEvaluation.summary`: every value of one evaluator comes
from one state (one hold of its lock), however many threads add cases meanwhile, and no copy
is made (the evaluator caches what a change did not invalidate). Names follow Prometheus'
conventions: a ``rankeval_`` prefix, base units, ``_total`` only on counters (these are all
gauges: a window's cases go down), labels ``model``, ``window`` and ``ties`` (plus ``k``
and ``beta`` where they apply, and ``measure`` for many-query evaluations); a user's label
may not take one of those names, nor one Prometheus reserves. An evaluation that fails to
be read (its clock raising, say) is logged and exported as ``rankeval_read_ok 0`` without
values, and the others are exported as usual.

``serve(collector, port)`` starts the standard exporter on its own registry, in a
background thread. Needs
``prometheus_client`` (``pip install 'rankeval-exact[prometheus]'``).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from rankeval.checks import check_beta, check_rank
from rankeval.ranking.evaluate import RunReport
from rankeval.scored.evaluation import ScoredPrecisionRecallEvaluation
from rankeval.scored.reads import READS, ScoredRead

__all__ = ["EvaluationCollector", "MetricsServer", "serve"]

def _exported(threshold: float | None = None,
              partial_auc: tuple[float, float] | None = None) -> list[ScoredRead]:
    """The registered reads the collector exports, in the registry's order: those of the
    summary, those at a threshold when it has one, the partial ROC area when it has a range."""
    return [read for read in READS.values() if read.exported and (
        read.in_summary or (read.parameter == "threshold" and threshold is not None)
        or ("fpr" in read.options and partial_auc is not None))]


# Labels rankeval sets itself; a user's label of one of these names would overwrite it.
_OURS = frozenset({"model", "window", "ties", "k", "beta", "measure", "threshold", "fpr"})
_LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*\Z")
_log = logging.getLogger("rankeval.prometheus")


def _finite_threshold(threshold: object) -> float:
    from rankeval.checks import check_real

    value = check_real(threshold, "threshold")
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"threshold must be a finite score; got {threshold!r}")
    return value


def _labels(model: object, labels: Mapping[str, object]) -> dict[str, str]:
    """``model`` and the user's labels as text, their names checked."""
    for name in labels:
        if name in _OURS:
            raise ValueError(f"label {name!r} is set by rankeval itself; choose another name")
        if not _LABEL_NAME.match(name) or name.startswith("__"):
            raise ValueError(f"{name!r} is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, "
                             "not starting with __, which Prometheus reserves)")
    return {"model": str(model), **{k: str(v) for k, v in labels.items()}}


def _evaluation_labels(evaluation: ScoredPrecisionRecallEvaluation,
                       labels: dict[str, str]) -> dict[str, str]:
    """``window`` and ``ties`` of ``evaluation``, then ``labels``."""
    if evaluation.horizon is not None:
        window = f"{evaluation.horizon!r}s"  # a window of time, every digit kept
    else:
        window = "none" if evaluation.window is None else str(evaluation.window)
    return {"window": window, "ties": evaluation.ties, **labels}


def _client() -> Any:
    try:
        import prometheus_client
        import prometheus_client.core
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            "rankeval.prometheus needs prometheus_client: pip install 'rankeval-exact[prometheus]'"
        ) from None
    return prometheus_client


class EvaluationCollector:
    """A Prometheus collector over any number of live evaluations.

    Register it with a ``prometheus_client`` registry (or pass it to :func:`serve`);
    :meth:`watch` adds a streaming evaluator, :meth:`watch_run` a many-query evaluation.

    Parameters
    ----------
    precision_at : tuple of int
        Ranks k of the ``rankeval_precision_at`` gauge (label ``k``).
    beta : float
        The F-measure's beta for ``rankeval_max_f_measure`` (label ``beta``).
    threshold : float, optional
        A decision threshold: ``rankeval_precision_at_threshold`` and
        ``rankeval_recall_at_threshold`` of the cases scoring at least it (label
        ``threshold``).
    partial_auc : (float, float), optional
        A range of false-positive rates: ``rankeval_partial_roc_auc`` over it, the raw area
        (label ``fpr``, as ``"0.0,0.1"``).
    """

    def __init__(self, precision_at: tuple[int, ...] = (10,), beta: float = 1.0, *,
                 threshold: float | None = None,
                 partial_auc: tuple[float, float] | None = None) -> None:
        from rankeval.scored.decisions import check_range

        self._ranks = tuple(check_rank(k) for k in precision_at)
        self._beta = check_beta(beta)
        self._threshold = None if threshold is None else _finite_threshold(threshold)
        self._partial = None if partial_auc is None else check_range(partial_auc,
                                                                      "partial_auc")
        self._watched: list[tuple[ScoredPrecisionRecallEvaluation, dict[str, str]]] = []
        # (source, labels, what watch_run was given: for unwatch)
        self._runs: list[tuple[Callable[[], RunReport], dict[str, str], object]] = []
        # (segmented evaluation, its labels, the segment's label name)
        self._segmented: list[tuple[Any, dict[str, str], str]] = []
        self._guard = threading.Lock()

    def watch(self, evaluation: ScoredPrecisionRecallEvaluation, *, model: str,
              **labels: str) -> None:
        """Export ``evaluation`` with labels ``model``, ``window``, ``ties`` and ``labels``.

        Complexity: O(1).
        """
        if not isinstance(evaluation, ScoredPrecisionRecallEvaluation):
            raise TypeError(f"can watch a ScoredPrecisionRecallEvaluation, got "
                            f"{type(evaluation).__name__}")
        all_labels = _evaluation_labels(evaluation, _labels(model, labels))
        with self._guard:
            if any(theirs == all_labels for _, theirs in self._watched):
                raise ValueError(f"an evaluation with the labels {all_labels} is watched "
                                 "already: two would export one series twice")
            self._watched.append((evaluation, all_labels))

    def unwatch(self, evaluation: ScoredPrecisionRecallEvaluation | RunReport
                | Callable[[], RunReport]) -> None:
        """Stop exporting ``evaluation`` (as given to :meth:`watch` or :meth:`watch_run`).

        Raises ``KeyError`` if it is not watched. Complexity: O(watched).
        """
        with self._guard:
            watched = [(ev, labels) for ev, labels in self._watched if ev is not evaluation]
            runs = [(source, labels, given) for source, labels, given in self._runs
                    if given is not evaluation]
            segmented = [entry for entry in self._segmented if entry[0] is not evaluation]
            if (len(watched) == len(self._watched) and len(runs) == len(self._runs)
                    and len(segmented) == len(self._segmented)):
                raise KeyError(f"{evaluation!r} is not watched")
            self._watched, self._runs, self._segmented = watched, runs, segmented

    def watch_segments(self, segmented: Any, *, model: str, label: str = "segment",
                       **labels: str) -> None:
        """Export every segment of a :class:`~rankeval.SegmentedEvaluation`, each its own
        series with the segment's key (as text) in label ``label``; segments first seen
        later join at the next scrape. Segments whose evaluator is not a
        ``ScoredPrecisionRecallEvaluation`` are left out.

        The key's text is the key itself for text keys and ``str(key)`` for others; keys
        that would print alike (``1`` and ``"1"``, ``None`` and ``"None"``) are told apart
        by quoting the text ones (``'1'``), so no two segments ever share a series (which
        would make the exposition invalid); two keys still alike after that (objects with
        one repr) are left out of the scrape, with an error in the log.

        Complexity: O(1); each scrape reads every segment.
        """
        from rankeval.scored.segments import SegmentedEvaluation

        if not isinstance(segmented, SegmentedEvaluation):
            raise TypeError(f"can watch the segments of a SegmentedEvaluation, got "
                            f"{type(segmented).__name__}")
        if not isinstance(label, str) or not label.isidentifier():
            raise ValueError(f"label must be a label name, got {label!r}")
        base = _labels(model, labels)
        if label in base or label in ("window", "ties"):
            raise ValueError(f"label {label!r} is taken by another label")
        with self._guard:
            self._segmented.append((segmented, base, label))

    def watch_run(self, evaluation: RunReport | Callable[[], RunReport], *,
                  model: str, **labels: str) -> None:
        """Export a many-query evaluation's aggregates as ``rankeval_query_measure``.

        ``evaluation`` is a :class:`~rankeval.ranking.RunReport` or a function
        returning the current one (called at each scrape).

        Complexity: O(1).
        """
        source = evaluation if callable(evaluation) else (lambda: evaluation)
        all_labels = _labels(model, labels)
        with self._guard:
            if any(theirs == all_labels for _, theirs, _ in self._runs):
                raise ValueError(f"a run evaluation with the labels {all_labels} is watched "
                                 "already: two would export one series twice")
            self._runs.append((source, all_labels, evaluation))

    def _reading(self, ev: ScoredPrecisionRecallEvaluation) -> dict[str, float]:
        """Every exported value of ``ev`` from one state: its summary and, where configured,
        the reads at the threshold and over the range, all under one hold of its (re-entrant)
        lock."""
        with ev._lock:
            reading = ev.summary(self._ranks, self._beta)
            for read in _exported(self._threshold, self._partial):
                if read.parameter == "threshold":
                    reading[read.name] = float(read.read(ev, self._threshold))
                elif "fpr" in read.options:
                    reading[read.name] = float(read.read(ev, fpr=self._partial))
        return reading

    def describe(self) -> list[Any]:
        """No description up front: the metrics are made at scrape time."""
        return []

    def collect(self) -> Iterator[Any]:
        """The metric families, computed now from the live evaluations."""
        client = _client()
        gauge = client.core.GaugeMetricFamily
        with self._guard:
            watched, runs = list(self._watched), list(self._runs)
            segmented = list(self._segmented)
        for seg, base, label in segmented:
            texts = _segment_texts([key for key, _ in seg.items()])
            for key, ev in seg.items():
                if isinstance(ev, ScoredPrecisionRecallEvaluation) and key in texts:
                    watched.append((ev, _evaluation_labels(ev, {**base, label: texts[key]})))
        first = ("model", "window", "ties")  # then any other labels, sorted
        extra = sorted({k for _, labels in watched for k in labels} - set(first))
        label_names = [*first, *extra]
        readings: list[tuple[dict[str, float], dict[str, str]]] = []
        failed: list[dict[str, str]] = []
        for ev, labels in watched:
            try:  # one evaluator failing (a clock raising, memory) fails its own series only
                readings.append((self._reading(ev), labels))
            except Exception:
                _log.exception("rankeval.prometheus: reading the evaluation %s failed", labels)
                failed.append(labels)

        def values(labels: dict[str, str]) -> list[str]:
            return [labels.get(n, "") for n in label_names]

        if watched:
            for read in _exported(self._threshold, self._partial):  # a family each
                # A read with a parameter gets a label for it: a sample per rank asked for
                # (label k), or the one beta, threshold or range; each sample's reading key.
                by_parameter: dict[str, tuple[list[str], list[tuple[list[str], str]]]] = {
                    "rank": (["k"], [([str(k)], read.key(k)) for k in self._ranks]),
                    "beta": (["beta"], [([repr(self._beta)], read.name)]),
                    "threshold": (["threshold"], [([repr(self._threshold)], read.name)]),
                }
                if "fpr" in read.options and self._partial is not None:
                    low, high = self._partial
                    own, samples = ["fpr"], [([f"{low!r},{high!r}"], read.name)]
                else:
                    own, samples = by_parameter.get(str(read.parameter),
                                                    ([], [([], read.name)]))
                family = gauge(read.gauge, read.description, labels=[*label_names, *own])
                for reading, labels in readings:
                    for label_values, key in samples:
                        if key in reading:  # a weighted evaluation has no reads by rank
                            family.add_metric([*values(labels), *label_values], reading[key])
                yield family
            family = gauge("rankeval_read_ok",
                           "1 if the evaluation was read at this scrape, 0 if reading failed.",
                           labels=label_names)
            for _, labels in readings:
                family.add_metric(values(labels), 1.0)
            for labels in failed:
                family.add_metric(values(labels), 0.0)
            yield family
        if runs:
            run_labels = sorted({k for _, labels, _ in runs for k in labels},
                                key=lambda k: (k != "model", k))
            family = gauge("rankeval_query_measure",
                           "A many-query evaluation's aggregate (trec_eval's or ir_measures').",
                           labels=[*run_labels, "measure"])
            for source, labels, _ in runs:
                try:
                    run = source()
                except Exception:
                    _log.exception("rankeval.prometheus: the run evaluation %s failed", labels)
                    continue
                for name in run.columns:
                    if name in run.aggregates:
                        family.add_metric([*(labels.get(n, "") for n in run_labels), name],
                                          run.aggregates[name])
            yield family


class MetricsServer:
    """A running exporter: :attr:`port`, and :meth:`close` to stop it and free the port."""

    def __init__(self, server: Any, thread: threading.Thread) -> None:
        self._server = server
        self._thread = thread

    @property
    def port(self) -> int:
        """The port served (the one picked when ``port=0`` was asked)."""
        return int(self._server.server_port)

    def close(self) -> None:
        """Stop serving and close the socket. Complexity: O(1)."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> MetricsServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve(collector: EvaluationCollector, port: int = 9100,
          addr: str = "0.0.0.0") -> MetricsServer:
    """Serve ``collector`` on ``http://addr:port/metrics`` from a background thread.

    ``port=0`` picks a free port (:attr:`MetricsServer.port`). Use the result as a context
    manager, or call :meth:`MetricsServer.close`.

    Complexity: O(1); each scrape costs what :meth:`EvaluationCollector.collect` does.
    """
    client = _client()
    registry = client.CollectorRegistry(auto_describe=False)
    registry.register(collector)
    server, thread = client.start_http_server(port, addr=addr, registry=registry)
    return MetricsServer(server, thread)


def _segment_texts(keys: list[Any]) -> dict[Any, str]:
    """Each segment key's label text, distinct (see ``watch_segments``)."""
    plain = {key: key if isinstance(key, str) else str(key) for key in keys}
    counts: dict[str, int] = {}
    for text in plain.values():
        counts[text] = counts.get(text, 0) + 1
    texts = {key: (repr(key) if counts[text] > 1 and isinstance(key, str) else text)
             for key, text in plain.items()}
    seen: dict[str, Any] = {}
    out: dict[Any, str] = {}
    for key, text in texts.items():
        if text in seen:
            _log.error("rankeval.prometheus: segments %r and %r print alike (%r): %r is left "
                       "out of this scrape", seen[text], key, text, key)
            continue
        seen[text] = key
        out[key] = text
    return out
