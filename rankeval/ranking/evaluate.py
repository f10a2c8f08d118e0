"""Ranked retrieval over many queries: trec_eval's numbers from Python, plus the seeds' conventions.

:func:`evaluate_run` scores a :class:`Run` (retrieved documents with scores, per query)
against :class:`Qrels` (relevance judgments) with any trec_eval measure, exactly as
the trec_eval release of the ``profile`` does (default the 2020 tag ``v9.0.8``; ``"9.0.8"``
for the 2023 release, ``"10.0"``), and returns a
:class:`RunReport` holding the per-query values and trec_eval's ``all`` aggregates.
Named options select the other conventions found in the literature (capped recall, AP over the
relevant documents found, exponential nDCG gains, textbook interpolation, ...).

Inputs come in the shapes people have them in:

* TREC files: :meth:`Run.from_file`, :meth:`Qrels.from_file` (or just pass a path);
* pytrec_eval's dicts ``{qid: {docid: score}}`` / ``{qid: {docid: rel}}`` (or pass the dict);
* ranked id lists and relevant-id sets (a retrieval tutorial's shape):
  :meth:`Run.from_ranked_lists`, :meth:`Qrels.from_relevant`;
* per-query score arrays over a document list: :meth:`Run.from_scores`;
* columnar NumPy arrays ``(qid, docid, score)`` for speed: :meth:`Run.from_arrays`,
  :meth:`Qrels.from_arrays`.

A ten-line tour:

>>> from rankeval.ranking import Qrels, Run, evaluate_run
>>> run = Run.from_dict({"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d1": 1.0, "d4": 0.5}})
>>> qrels = Qrels.from_dict({"q1": {"d2": 1, "d9": 1}, "q2": {"d4": 2, "d1": 0}})
>>> ev = evaluate_run(qrels, run, ["map", "P.2", "recip_rank", "ndcg_cut.2"])
>>> ev["map"], ev["P_2"], ev["recip_rank"]
(0.375, 0.5, 0.5)
>>> ev.per_query("map")
{'q1': 0.25, 'q2': 0.5}
>>> print(ev.to_text().replace(chr(9), " | "), end="")  # trec_eval's report; tabs shown as |
map                    | all | 0.3750
recip_rank             | all | 0.5000
P_2                    | all | 0.5000
ndcg_cut_2             | all | 0.5089
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from rankeval import formulas
from rankeval._deprecation import deprecated
from rankeval.formulas import NoRelevant
from rankeval.ranking import catalogue, registry
from rankeval.ranking.catalogue import Column, MeasureRequest, Profile
from rankeval.ranking.inputs import Qrels, QrelsLike, Run, RunLike, _utf8, qrels_and_run
from rankeval.ranking.ir_names import IrMeasure, is_ir_name, parse_ir_name
from rankeval.ranking.measures import (
    MIN_GEO_MEAN,
    ApDenominator,
    Discount,
    Gain,
    Ideal,
    IprecRule,
    MeasureOptions,
    PrecisionDenominator,
    compute,
    cutoff_count,
)
from rankeval.ranking.options import RunOptions
from rankeval.ranking.trec_sort import (
    NONPOOL,
    DocumentTies,
    JudgmentRows,
    QueryBatch,
    RankedQueries,
    RunRows,
    ScorePrecision,
    rank_queries,
)
from rankeval.workers import check_workers

__all__ = [
    "Qrels",
    "Run",
    "RunReport",
    "eleven_point_precision",
    "evaluate_part",
    "evaluate_run",
    "first_relevant_ranks",
    "median_first_relevant_rank",
    "median_relevant_rank",
    "merge_evaluations",
    "relevant_ranks",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]
_COUNT_MEASURES = frozenset({"runid", "num_q", "num_ret", "num_rel", "num_rel_ret"})


# ---------------------------------------------------------------------------------------------
# result


@dataclass(frozen=True)
class RunReport:
    """Per-query values and trec_eval's aggregates for one run (immutable).

    The package's naming rule: what you add to is an *Evaluation*
    (:class:`~rankeval.ScoredPrecisionRecallEvaluation`, ``PrecisionRecallEvaluation``);
    what a computation returns and never changes is a *Report* (this class,
    :class:`~rankeval.scored.partitioned.PartitionedReport`). This class was named
    ``RunEvaluation``; that name still works, with a ``DeprecationWarning``.

    Attributes
    ----------
    profile : {"9.0.8-2020", "9.0.8", "10.0"}
        The trec_eval release reproduced.
    runid : str
        The run's name.
    queries : tuple of str
        Evaluated queries in trec_eval's order (query ids sorted byte-wise). With
        ``complete=True`` this includes qrels queries the run has no results for.
    retrieved : ndarray of bool
        Per query: the run has results for it.
    columns : tuple of str
        Value names in trec_eval's output order (``"map"``, ``"P_5"``, ...).
    values : mapping of str to ndarray
        Per-query values of each numeric column, aligned with ``queries`` (read-only).
        Geometric-mean measures hold the per-query base value (AP for ``gm_map``).
    texts : mapping of str to tuple of str
        Per-query strings of text columns (``relstring``).
    aggregates : mapping of str to float
        trec_eval's ``all`` values: means (``num_q`` queries), sums for counts, geometric
        means for ``gm_*``; weighted means with :attr:`weights`.
    num_queries : int
        ``num_q``: queries averaged over.
    weights : ndarray of float64 or None
        Per query, its weight in the means (:meth:`weighted`), aligned with ``queries``;
        None: every query counts once.
    """

    profile: Profile
    runid: str
    queries: tuple[str, ...]
    retrieved: BoolArray
    columns: tuple[str, ...]
    values: Mapping[str, FloatArray]
    texts: Mapping[str, tuple[str, ...]]
    aggregates: Mapping[str, float]
    num_queries: int
    _layout: tuple[Column, ...] = field(repr=False, compare=False)
    weights: FloatArray | None = field(default=None, repr=False, compare=False)

    def weighted(self, query_weights: Mapping[Any, float]) -> RunReport:
        """This report with every mean over queries weighted: ``sum(w v) / sum(w)`` over the
        evaluated queries, summed in query order (a geometric mean ``exp(sum(w log v) /
        sum(w))``); NaN when every weight is 0. The per-query values are unchanged, and so are
        the counts (``num_q``, ``num_ret``, ``num_rel``, ...: they count queries and
        documents). Integer weights give the means of each query repeated that many times.

        ``query_weights`` maps every evaluated query's id (or anything whose ``str`` is) to a
        finite weight >= 0; weights of other queries are ignored.

        >>> report = evaluate_run({"q1": {"a": 1}, "q2": {"b": 1}},
        ...                       {"q1": {"a": 1.0}, "q2": {"a": 2.0, "b": 1.0}}, "recip_rank")
        >>> report["recip_rank"], report.weighted({"q1": 1, "q2": 3})["recip_rank"]
        (0.75, 0.625)

        Raises
        ------
        TypeError
            ``query_weights`` not a mapping, or a weight not a real number.
        ValueError
            An evaluated query without a weight, or a weight negative, infinite or NaN.

        Complexity: O(Q · columns).
        """
        weights = _query_weights(self.queries, query_weights)
        aggregates = dict(self.aggregates)
        for column in self._layout:
            m = column.measure
            if column.name in aggregates and m.aggregate != "sum":
                aggregates[column.name] = _aggregate(self.values[column.name], m.aggregate,
                                                     self.retrieved, self.num_queries,
                                                     self.profile, weights)
        return dataclasses.replace(self, aggregates=MappingProxyType(aggregates),
                                   weights=_read_only(weights))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickle support (the read-only mappings are not picklable themselves)."""
        state = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        for name in ("values", "texts", "aggregates"):
            state[name] = dict(state[name])
        return _unpickle_evaluation, (state,)

    def __getitem__(self, name: str) -> float:
        """The aggregate (trec_eval's ``all`` value) of column ``name``.

        Raises
        ------
        KeyError
            When ``name`` is not an aggregated column.

        >>> evaluate_run({"q": {"b": 1}}, {"q": {"a": 1.0, "b": 0.5}}, "recip_rank")["recip_rank"]
        0.5

        Complexity: O(1).
        """
        try:
            return self.aggregates[name]
        except KeyError:
            raise KeyError(
                f"no aggregate named {name!r}; columns are {', '.join(self.columns)}"
            ) from None

    def per_query(self, name: str) -> dict[str, float]:
        """``{qid: value}`` for one numeric column.

        >>> evaluate_run({"q": {"a": 1}, "r": {"b": 1}}, {"q": {"a": 1.0}, "r": {"a": 1.0}},
        ...              "P.1").per_query("P_1")
        {'q': 1.0, 'r': 0.0}

        Complexity: O(Q).
        """
        if name not in self.values:
            if name in self.columns:
                raise KeyError(f"{name!r} is a summary value only, with no per-query values; "
                               "per-query columns are "
                               f"{', '.join(c for c in self.columns if c in self.values)}")
            raise KeyError(f"no per-query values named {name!r}; columns are "
                           f"{', '.join(self.columns)}")
        return dict(zip(self.queries, self.values[name].tolist(), strict=True))

    def to_dict(self) -> dict[str, dict[str, float]]:
        """pytrec_eval's shape ``{qid: {measure: value}}`` over the numeric columns.

        >>> evaluate_run({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["map", "num_ret"]).to_dict()
        {'q': {'num_ret': 1.0, 'map': 1.0}}

        Complexity: O(Q · columns).
        """
        out: dict[str, dict[str, float]] = {q: {} for q in self.queries}
        for name, column in self.values.items():
            for qid, value in zip(self.queries, column.tolist(), strict=True):
                out[qid][name] = value
        return out

    def to_frame(self, backend: str = "pandas") -> Any:
        """Per-query values as a table: ``query_id``, then one column per numeric measure.

        ``backend``: ``"pandas"``, ``"polars"`` or ``"pyarrow"`` (narwhals and that
        library needed). The aggregates stay in :attr:`aggregates`.

        Complexity: O(Q · columns).
        """
        from rankeval.ranking.frames import to_frame

        data: dict[str, Any] = {"query_id": list(self.queries)}
        data.update((name, self.values[name]) for name in self.columns if name in self.values)
        return to_frame(data, backend)

    def _with_aggregate(self, name: str, value: float) -> RunReport:
        """A copy with the aggregate ``name`` replaced (trec_eval's summary quirks)."""
        aggregates = dict(self.aggregates)
        aggregates[name] = value
        return dataclasses.replace(self, aggregates=MappingProxyType(aggregates))

    def format(self, *, per_query: bool = False, summary: bool = True) -> str:
        """Deprecated spelling of :meth:`to_text` (results render with ``to_text``, as
        :class:`~rankeval.ranking.Comparison` does).

        Complexity: that of :meth:`to_text`.
        """
        deprecated("RunReport.format() is now RunReport.to_text()")
        return self.to_text(per_query=per_query, summary=summary)

    def to_text(self, *, per_query: bool = False, summary: bool = True) -> str:
        """trec_eval's output text: ``-q`` per-query lines, then the ``all`` lines.

        >>> ev = evaluate_run({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["num_ret", "map"])
        >>> print(ev.to_text(per_query=True).replace(chr(9), " | "), end="")
        num_ret                | q | 1
        map                    | q | 1.0000
        num_ret                | all | 1
        map                    | all | 1.0000

        Complexity: O(Q · columns).
        """
        lines: list[str] = []
        if per_query:
            show = (self.retrieved if catalogue.is_nine(self.profile)
                    else np.ones_like(self.retrieved))
            for i, qid in enumerate(self.queries):
                if not show[i]:
                    continue
                for column in self._layout:
                    m = column.measure
                    if not m.per_query:
                        continue
                    if m.printed == "text":
                        text = self.texts[column.name][i]
                        lines.append(catalogue.format_line(column.name, qid, text, "text"))
                    else:
                        lines.append(catalogue.format_line(column.name, qid,
                                                      float(self.values[column.name][i]),
                                                      m.printed))
        if summary:
            for column in self._layout:
                m = column.measure
                if not m.summary:
                    continue
                if m.name == "runid":
                    lines.append(catalogue.format_line("runid", "all", self.runid, "id"))
                else:
                    lines.append(catalogue.format_line(column.name, "all",
                                                  self.aggregates[column.name], m.printed))
        return "".join(lines)


def _unpickle_evaluation(state: dict[str, Any]) -> RunReport:
    for array in (state["retrieved"], *state["values"].values()):
        array.flags.writeable = False
    for name in ("values", "texts", "aggregates"):
        state[name] = MappingProxyType(state[name])
    return RunReport(**state)


# ---------------------------------------------------------------------------------------------
# evaluation


def evaluate_run(
    qrels: QrelsLike,
    run: RunLike,
    measures: str | Iterable[str] = ("official",),
    *,
    profile: Profile = catalogue.DEFAULT_PROFILE,
    relevance_level: int = 1,
    complete: bool = False,
    max_docs: int | None = None,
    judged_only: bool = False,
    ties: DocumentTies = "docid_desc",
    score_precision: ScorePrecision | None = None,
    iprec_rule: IprecRule | None = None,
    ap_denominator: ApDenominator = "relevant",
    precision_denominator: PrecisionDenominator = "k",
    capped_recall: bool = False,
    gain: Gain = "linear",
    discount: Discount = "log2",
    ideal: Ideal = "judged",
    no_relevant: NoRelevant = "zero",
    num_docs: int = 0,
    first_params_win: bool = False,
    trec_quirks: bool = True,
    known: QrelsLike | None = None,
    query_weights: Mapping[Any, float] | None = None,
    workers: int | None = 1,
) -> RunReport:
    """Evaluate a run against qrels with trec_eval's measures.

    By default the numbers are trec_eval 9.0.x's (and pytrec_eval-terrier's) bit for bit.
    The qrels come first, as in trec_eval, ``rankeval trec``, pytrec_eval, ranx and
    ir_measures; arguments that are clearly swapped are refused
    (see :func:`rankeval.ranking.inputs.qrels_and_run`).

    Parameters
    ----------
    qrels : Qrels, mapping ``{qid: {docid: rel}}`` or path of a TREC qrels file
    run : Run, mapping ``{qid: {docid: score}}`` or path of a TREC run file
    measures : str or iterable of str
        trec_eval ``-m`` specifications: ``"map"``, ``"P.5,10"``, ``"ndcg_cut_10"``,
        ``"official"`` (default), ``"all_trec"``, ...
    profile : {"9.0.8-2020", "9.0.8", "10.0"}
        Which trec_eval release to reproduce (see :mod:`rankeval.ranking.catalogue`; default
        the 2020 tag that pytrec_eval bundles); sets the defaults of ``score_precision`` and
        ``iprec_rule`` and what ``all_trec`` means.
    relevance_level : int
        ``-l``: judgments at or above it are relevant (nDCG gains are unaffected).
    complete : bool
        ``-c``: average over every qrels query; queries the run misses score 0.
    max_docs : int, optional
        ``-M``: keep only the top ``max_docs`` documents of each ranking (after sorting), the
        way to get MRR@k, AP@k, ... for every measure.
    judged_only : bool
        ``-J``: drop retrieved documents that have no judgment.
    ties : {"docid_desc", "docid_asc", "input", "average"}
        Order of equal scores: trec_eval's document id descending, ascending (ir_measures'
        ``RR@k``), the order given (ranx, LingPipe), or the expected value over all orders
        (sklearn's nDCG; supported by ``P``, ``recall``, ``dcg``, ``ndcg``, ``ndcg_cut``).
    score_precision : {"float32", "double"}, optional
        Compare scores as C float (the 2020 tag) or double (the 9.0.8 release, 10.0).
    iprec_rule : {"trec9", "lround", "ceil", "lingpipe"}, optional
        Relevant documents needed for a recall level: ``(long)(p*R+0.9)`` (trec_eval 9),
        ``lround(p*R)`` (trec_eval 10), ``ceil(p*R)`` (textbook), ``ceil`` with precision 1 at
        recall 0 (LingPipe).
    ap_denominator : {"relevant", "retrieved", "min_k_r"}
        AP (``map``, ``map_cut``) divided by R, by the relevant documents found (in the
        cutoff), or by min(k, R).
    precision_denominator : {"k", "retrieved"}
        ``P_k`` divided by k or by the documents actually ranked in the top k.
    capped_recall : bool
        ``recall_k`` divided by min(k, R) (BEIR's R_cap).
    gain, discount, ideal
        nDCG: ``"linear"`` (rel) or ``"exp"`` (2^rel - 1) gains; ``"log2"`` (log2(i+1)) or
        ``"jk2002"`` (1 for ranks 1-2, log2 i after) discounts; ideal ranking from all
        ``"judged"`` documents or from the ``"retrieved"`` ones only.
    no_relevant : {"zero", "skip"}
        Queries without a relevant judgment score 0 and count in the mean (trec_eval), or
        are not evaluated.
    num_docs : int
        ``-N``: documents in the collection (``utility`` only).
    first_params_win : bool
        trec_eval's rule for a measure given twice with parameters (the first wins) instead
        of merging the cutoffs.
    trec_quirks : bool
        Reproduce two numbers of every trec_eval release that follow from its code rather
        than from a definition (default True, as ``rankeval trec`` does): a query left with
        no retrieved document (``judged_only`` dropped them all, ``max_docs=0``) gets NaN
        (0/0) in ``iprec_at_recall`` at the levels that need no relevant document and in
        ``11pt_avg``, and under ``complete=True`` the ``num_rel`` aggregate counts every
        judgment above 0 in the qrels, whatever ``relevance_level``. False gives 0 for the
        former and the sum of the per-query values for the latter.
    known : Qrels, mapping or path, optional
        The documents each user already knew (the known set U of ``coverage`` and
        ``novelty``), in any form the qrels take (``{qid: {docid: 1}}``, a qrels file, a
        table); a document listed with a value of 1 or more is known. Needed by those two
        measures only.
    query_weights : mapping of query id to weight, optional
        Weights of the queries in every mean over queries (:meth:`RunReport.weighted`); the
        per-query values and the counts are unchanged.
    workers : int or None
        Processes evaluating blocks of queries at once (forked: they share the inputs, read
        once here); the result is bit for bit one worker's. Default 1: evaluated here (on a
        two-CPU machine two workers were slower end to end, see ``benchmarks/results/
        bench_ranx.txt``). None: every CPU this process may use, one per
        :data:`~rankeval.ranking.parallel.MIN_ROWS` (2·10^6) run rows; a number is taken up
        to four per CPU. One worker when the platform cannot fork or this interpreter runs
        other threads (forking them is unsafe).

    Returns
    -------
    RunReport

    Raises
    ------
    ValueError
        Unknown measure or option value, a measure that does not support ``ties="average"``,
        or no query with both results and judgments (except under ``profile="10.0"`` with
        ``complete=True``, where trec_eval 10 evaluates every qrels query as one the run
        lacks).
    TypeError
        Wrong input types.

    Notes
    -----
    A negative ``relevance_level`` follows trec_eval: the rank-wise tests of P, AP, ...
    (``value >= level``) then take unjudged documents too, but ``num_rel_ret`` and the set
    measures count judged documents only.

    Complexity: O(n log n + m) for n run rows and m judgments, plus O(Q·L) per measure.

    Examples
    --------
    The BGE tutorial's capped recall and MRR@5:

    >>> run = Run.from_ranked_lists([[11, 1, 17, 7, 21, 8, 0, 28, 9, 20]])
    >>> qrels = Qrels.from_relevant([[11, 1, 7, 17, 21, 99]])
    >>> evaluate_run(qrels, run, "recall.5", capped_recall=True)["recall_5"]
    1.0
    >>> evaluate_run(qrels, run, "recall.5")["recall_5"]
    0.8333333333333334
    """
    options = RunOptions(
        profile=profile, relevance_level=relevance_level, complete=complete,
        max_docs=max_docs, judged_only=judged_only, ties=ties, score_precision=score_precision,
        iprec_rule=iprec_rule, ap_denominator=ap_denominator,
        precision_denominator=precision_denominator, capped_recall=capped_recall, gain=gain,
        discount=discount, ideal=ideal, no_relevant=no_relevant, num_docs=num_docs,
        first_params_win=first_params_win, trec_quirks=trec_quirks,
    )
    if query_weights is not None:
        check_query_weights(query_weights)  # before any work
    check_workers(workers)  # before any work
    if workers != 1:  # forks only where it can (rankeval.workers.workers_for)
        from rankeval.ranking.parallel import evaluate_in_blocks

        report = evaluate_in_blocks(qrels, run, measures, options, known, workers)
    else:
        qrels_obj, run_obj = qrels_and_run(qrels, run)
        report = _evaluate_run(qrels_obj, run_obj, measures, options, known)
    return report if query_weights is None else report.weighted(query_weights)


def evaluate_part(
    qrels: QrelsLike,
    run: RunLike,
    measures: str | Iterable[str] = ("official",),
    known: QrelsLike | None = None,
    **options: Any,
) -> RunReport:
    """One part of a run evaluated for :func:`merge_evaluations`: as :func:`evaluate_run`
    (same ``options``), except that the part may share no query with the qrels (it then
    evaluates no query). The engines evaluate a run's parts this way, one per task.

    >>> part = evaluate_part({"q1": {"a": 1}}, {"q2": {"a": 1.0}}, "map")
    >>> part.queries
    ()

    Complexity: as :func:`evaluate_run`.
    """
    qrels_obj, run_obj = qrels_and_run(qrels, run)
    return _evaluate_run(qrels_obj, run_obj, measures, RunOptions(**options), known,
                         part=True)


def _evaluate_run(
    qrels_obj: Qrels,
    run_obj: Run,
    measures: str | Iterable[str],
    options: RunOptions,
    known: QrelsLike | None = None,
    *,
    part: bool = False,
) -> RunReport:
    """:func:`evaluate_run` with its inputs and options checked (``part``: see
    :func:`evaluate_part`)."""
    specs = [measures] if isinstance(measures, str) else list(measures)
    if any(is_ir_name(spec) for spec in specs):
        return _with_ir_names(qrels_obj, run_obj, specs, options, known, part)
    profile = options.profile
    resolved = catalogue.resolve(specs, profile, first_wins=options.first_params_win)
    if options.ties == "average":
        unsupported = [r.measure.name for r in resolved.requests
                       if r.measure.name not in registry.AVERAGE_TIES_MEASURES | _COUNT_MEASURES]
        if unsupported:
            raise ValueError(
                f"ties='average' is defined for {sorted(registry.AVERAGE_TIES_MEASURES)} only, "
                f"not for {unsupported}"
            )
    known_obj = _known_set(known, resolved.requests, options.relevance_level)
    ranked, queries, retrieved = _rank(
        qrels_obj, run_obj, options,
        # trec_eval 10 evaluates every qrels query under -c, so it needs no shared query.
        require_shared=not part and not options.trec_ten_complete,
        known=known_obj,
    )
    # trec_eval 10 ranks a query the run lacks (-c) as one unjudged document, which -J and
    # -M 0 then drop; see _evaluate.
    placeholder = 0 if options.judged_only or options.max_docs == 0 else 1
    evaluation = _evaluate(ranked, resolved.requests, resolved.columns, options.measure_options,
                           profile, queries, retrieved, run_obj.runid, options.complete,
                           placeholder if options.trec_quirks and not catalogue.is_nine(profile)
                           else None)
    if options.complete and options.trec_quirks and "num_rel" in evaluation.aggregates:
        # trec_eval's -c summary of num_rel recounts the qrels: every judgment above 0.
        evaluation = evaluation._with_aggregate(
            "num_rel", float(np.count_nonzero(qrels_obj.rel > 0)))
    return evaluation


def _with_ir_names(
    qrels: Qrels, run: Run, specs: list[str], options: RunOptions, known: QrelsLike | None,
    part: bool,
) -> RunReport:
    """Evaluate trec_eval names and ir_measures names together, in the order given.

    trec_eval names use the call's options; each ir_measures name carries its own (see
    :mod:`rankeval.ranking.ir_names`). ir_measures reports every query of the qrels, a query
    the run lacks scoring 0 (``num_rel`` included), so its names are evaluated with
    ``complete=True``; trec_eval names in the same call must then use it too. Names
    needing the same options are evaluated together.
    """
    # Names both spell alike (Rprec, infAP) are trec_eval's, whatever their neighbours.
    ir = [spec for spec in specs if is_ir_name(spec)]
    trec = [spec for spec in specs if spec not in ir]
    named = list({m.name: m for m in map(parse_ir_name, ir)}.values())
    own = [m for m in named if m.own]  # Compat, Accuracy: ir_measures' own providers
    if trec and (options.complete is not True or options.no_relevant != "zero"):
        raise ValueError(
            "ir_measures names score every qrels query (as ir_measures does: complete=True, "
            "no_relevant='zero'); with trec_eval names in the same call "
            f"({', '.join(trec)}) pass complete=True, or evaluate the two kinds of names in "
            "separate calls (RPrec and infAP() are ir_measures' spellings of Rprec and infAP)"
        )
    which = options.replace(complete=True, no_relevant="zero")
    groups: dict[tuple[tuple[tuple[str, Any], ...], str], list[IrMeasure]] = {}
    for measure in named:
        if measure.own:
            continue
        # set_F takes its first beta only (trec_eval's rule): one call per beta.
        alone = measure.trec if measure.trec.startswith("set_F") else ""
        groups.setdefault((measure.options, alone), []).append(measure)
    parts: list[tuple[RunReport, dict[str, list[str]]]] = []
    if trec:
        done = _evaluate_run(qrels, run, trec, options, known, part=part)
        parts.append((done, {c: [c] for c in done.columns}))
    ir_parts = len(parts)
    for (own_options, _), members in groups.items():
        done = _evaluate_run(qrels, run, list(dict.fromkeys(m.trec for m in members)),
                             which.replace(**dict(own_options)), known, part=part)
        names: dict[str, list[str]] = {}
        for m in members:  # two spellings may share a column (SetRelP, SetP(relative=True))
            names.setdefault(m.column, []).append(m.name)
        parts.append((_as_ir_measures(done, run), names))
    if not parts:  # only Compat or Accuracy: the queries ir_measures names score
        parts.append((_evaluate_run(qrels, run, "num_q", which, part=part), {}))
    first = parts[0][0]
    if any(done.queries != first.queries for done, _ in parts):
        raise ValueError("these measures evaluate different queries (rel= with "
                         "no_relevant='skip'); evaluate them in separate calls")
    layout: list[Column] = []
    values: dict[str, FloatArray] = {}
    texts: dict[str, tuple[str, ...]] = {}
    aggregates: dict[str, float] = {}
    for number, (done, renames) in enumerate(parts):
        for column in done._layout:
            for name in renames.get(column.name, ()):
                layout.append(dataclasses.replace(column, name=name,
                                                  ir_measures=number >= ir_parts))
                if column.name in done.values:
                    values[name] = done.values[column.name]
                if column.name in done.texts:
                    texts[name] = done.texts[column.name]
                if column.name in done.aggregates:
                    aggregates[name] = done.aggregates[column.name]
    if own:
        from rankeval.ranking.ir_own import as_dicts, own_values

        judged, ranked = as_dicts(qrels, run)
    for measure in own:
        per_query, mean = own_values(measure.own, dict(measure.own_params), measure.cutoff,
                                     judged, ranked, first.queries)
        per_query.flags.writeable = False
        definition = registry.by_ir_name(measure.own)
        layout.append(Column(measure.name, catalogue.MeasureRequest(definition, ()), 0,
                             ir_measures=True))
        values[measure.name] = per_query
        aggregates[measure.name] = mean
    # trec_eval's columns in its order, then the ir_measures names in the order given.
    given = {m.name: i for i, m in enumerate(named)}
    layout.sort(key=lambda c: given.get(c.name, -1))
    return dataclasses.replace(
        first, columns=tuple(c.name for c in layout), values=MappingProxyType(values),
        texts=MappingProxyType(texts), aggregates=MappingProxyType(aggregates),
        _layout=tuple(layout),
    )


def _as_ir_measures(ev: RunReport, run: Run) -> RunReport:
    """Per-query values and means as ir_measures reports them, to the last bit.

    ``complete=True`` already scores the queries the run lacks 0, except ``num_rel`` (their
    judgments still exist) and ``num_q``; ir_measures gives them 0 and counts only the
    queries the run has. Its means add the values in the run's query order (the order its
    providers yield them), then divide by the number of qrels queries.
    """
    values, aggregates = dict(ev.values), dict(ev.aggregates)
    missing = ~ev.retrieved
    if "num_rel" in values and missing.any():
        num_rel = values["num_rel"].copy()
        num_rel[missing] = 0.0
        num_rel.flags.writeable = False
        values["num_rel"] = num_rel
        aggregates["num_rel"] = formulas.sequential_total(num_rel)
    if "num_q" in aggregates:
        aggregates["num_q"] = float(np.count_nonzero(ev.retrieved))
        # ir_measures' NumQ for each query: 1 if the run has it, else 0.
        num_q = ev.retrieved.astype(np.float64)
        num_q.flags.writeable = False
        values["num_q"] = num_q
    order = _run_order(ev, run.query_ids)
    for column in ev._layout:
        if column.name in values and column.measure.aggregate == "mean":
            aggregates[column.name] = _ir_mean(values[column.name], order, len(ev.queries))
    return dataclasses.replace(ev, values=MappingProxyType(values),
                               aggregates=MappingProxyType(aggregates))


def _run_order(ev: RunReport, run_queries: Iterable[str]) -> list[int]:
    """The retrieved queries' positions in ``ev.queries``, in the run's order."""
    position = {q: i for i, q in enumerate(run_queries)}
    return sorted(np.flatnonzero(ev.retrieved).tolist(), key=lambda i: position[ev.queries[i]])


def _ir_mean(values: FloatArray, order: list[int], num_queries: int) -> float:
    """ir_measures' mean: the values in the run's order, over every qrels query."""
    return formulas.sequential_total(values[order]) / num_queries if num_queries else 0.0


def check_query_weights(query_weights: object) -> None:
    """Refuse ``query_weights`` that are not a mapping to finite weights >= 0 (before an
    evaluation; :meth:`RunReport.weighted` then checks that every query has one)."""
    if isinstance(query_weights, Mapping):
        _query_weights(tuple(str(k) for k in query_weights), query_weights)
    else:
        _query_weights((), query_weights)


def _query_weights(queries: tuple[str, ...], query_weights: object) -> FloatArray:
    """Each query's weight from a mapping of query ids (keys taken as their ``str``),
    checked: a real number, finite, >= 0; every query must have one."""
    if not isinstance(query_weights, Mapping):
        raise TypeError(f"query_weights must map query ids to weights, got "
                        f"{type(query_weights).__name__}")
    by_id = {str(k): v for k, v in query_weights.items()}
    found = list(map(by_id.get, queries))
    if None in found:
        raise ValueError(f"query_weights has no weight for query "
                         f"{queries[found.index(None)]!r}")
    for query, value in zip(queries, found, strict=True):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                           np.floating)):
            raise TypeError(f"query_weights[{query!r}] must be a real number, got "
                            f"{type(value).__name__} {value!r}")
    weights = np.array(found, dtype=np.float64).reshape(len(queries))
    bad = ~(np.isfinite(weights) & (weights >= 0.0))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"query_weights[{queries[i]!r}] must be finite and >= 0, got "
                         f"{found[i]!r}")
    return weights


def _no_shared_query() -> ValueError:
    return ValueError("no queries with both results and relevance information")


def merge_evaluations(
    parts: Iterable[RunReport], run_queries: Iterable[str] | None = None
) -> RunReport:
    """One evaluation from evaluations of disjoint sets of queries, as if made in one call.

    The partitioned engines (:mod:`rankeval.spark`, :mod:`rankeval.dask`) evaluate each
    batch of queries with :func:`evaluate_run` and merge here. Per-query values are kept
    as they are; aggregates are computed again over all queries by the rules of
    :func:`evaluate_run`: means and geometric means in trec_eval's query order, counts
    added up (integers, so any order gives the same bits; this also keeps trec_eval's
    ``num_rel`` recount under ``complete=True``). ir_measures names add their queries in
    the run's order, ``run_queries``; without it, in query id order. Weighted parts
    (:meth:`RunReport.weighted`) merge weighted.

    Raises
    ------
    ValueError
        No part, parts with different measures, profiles or runs, a query in two parts, or
        no query with both results and judgments in any part.

    Complexity: O(Q log Q · columns).
    """
    return _merged(parts, run_queries)


def _merged(parts: Iterable[RunReport], run_queries: Iterable[str] | None = None, *,
            require_shared: bool = True) -> RunReport:
    """:func:`merge_evaluations`; ``require_shared=False`` allows no query the run has (what
    trec_eval 10 evaluates under ``-c``)."""
    chunks = list(parts)
    if not chunks:
        raise ValueError("no evaluation to merge")
    first = chunks[0]
    for part in chunks[1:]:
        if (part.columns, part.profile, part.runid) != (first.columns, first.profile,
                                                        first.runid):
            raise ValueError("evaluations to merge must have the same measures, profile and "
                             "run id")
    queries = [q for part in chunks for q in part.queries]
    if len(set(queries)) != len(queries):
        raise ValueError("evaluations to merge must cover disjoint queries")
    order = np.argsort(_utf8(queries), kind="stable")
    ordered = tuple(queries[i] for i in order.tolist())

    def joined(arrays: list[NDArray[Any]]) -> NDArray[Any]:
        out = np.concatenate(arrays)[order]
        out.flags.writeable = False
        return out

    retrieved = joined([part.retrieved for part in chunks])
    if require_shared and not retrieved.any():
        raise _no_shared_query()
    num_q = sum(part.num_queries for part in chunks)
    values = {name: joined([part.values[name] for part in chunks]) for name in first.values}
    texts = {name: tuple(joined([np.array(part.texts[name], dtype=object)
                                 for part in chunks]).tolist()) for name in first.texts}
    merged = dataclasses.replace(first, queries=ordered, retrieved=retrieved, num_queries=num_q,
                                 values=MappingProxyType(values),
                                 texts=MappingProxyType(texts))
    run_order = _run_order(merged, ordered if run_queries is None else run_queries)
    aggregates: dict[str, float] = {}
    for column in first._layout:
        m = column.measure
        if column.name not in first.aggregates:
            continue
        if m.name == "num_q" or m.aggregate == "sum":
            # Whole numbers: the sum has the same bits in any order.
            aggregates[column.name] = float(sum(part.aggregates[column.name] for part in chunks))
        elif column.ir_measures and m.aggregate == "mean":
            aggregates[column.name] = _ir_mean(values[column.name], run_order, len(ordered))
        else:
            aggregates[column.name] = _aggregate(values[column.name], m.aggregate, retrieved,
                                                 num_q, first.profile)
    result = dataclasses.replace(merged, aggregates=MappingProxyType(aggregates), weights=None)
    weights = [part.weights for part in chunks]
    if any(w is not None for w in weights):  # the parts' weights carry over (weighted())
        if any(w is None for w in weights):
            raise ValueError("evaluations to merge must all be weighted (weighted()) or none")
        return result.weighted({q: w for part, part_weights in zip(chunks, weights, strict=True)
                                for q, w in zip(part.queries, np.asarray(part_weights).tolist(),
                                                strict=True)})
    return result


def _rank(
    qrels_obj: Qrels,
    run_obj: Run,
    options: RunOptions,
    *,
    require_shared: bool = True,
    known: Qrels | None = None,
) -> tuple[RankedQueries, tuple[str, ...], BoolArray]:
    """The evaluated queries ranked: the rankings, their query ids, and which the run has.

    Shared by :func:`evaluate_run` and :func:`relevant_ranks`.
    """
    # Evaluated queries, in trec_eval's order (query ids sorted byte-wise). The run's ids are
    # found through the qrels' dict (built once per Qrels): cheaper than sorting them.
    qrels_sorted = qrels_obj._sorted_queries
    if run_obj.query_ids == qrels_obj.query_ids:
        # Columns from one source often list the same queries in the same order.
        qrels_code = np.arange(len(run_obj.query_ids), dtype=np.int64)
    else:
        position = qrels_obj._query_position
        qrels_code = np.fromiter(map(position.get, run_obj.query_ids,
                                     itertools.repeat(-1, len(run_obj.query_ids))),
                                 dtype=np.int64, count=len(run_obj.query_ids))
    shared = np.flatnonzero(qrels_code >= 0)
    run_of_qrels = np.full(len(qrels_obj.query_ids), -1, dtype=np.int64)
    run_of_qrels[qrels_code[shared]] = shared
    run_of_qrels = run_of_qrels[qrels_sorted]
    in_run = run_of_qrels >= 0
    chosen = np.ones(qrels_sorted.size, dtype=bool) if options.complete else in_run
    if options.no_relevant == "skip":
        relevant = np.bincount(qrels_obj.query[qrels_obj.rel >= options.relevance_level],
                               minlength=len(qrels_obj.query_ids))
        chosen &= relevant[qrels_sorted] > 0
    if require_shared and not (chosen & in_run).any():
        raise _no_shared_query()
    evaluated_qrels = qrels_sorted[chosen].astype(np.int64)
    evaluated_run = run_of_qrels[chosen].astype(np.int64)
    names = qrels_obj.query_ids
    queries = tuple(map(names.__getitem__, evaluated_qrels.tolist()))

    run_docid, run_hash, index = qrels_obj._join(run_obj)
    rows = RunRows(run_obj.query, run_docid, run_obj.score, run_hash, len(run_obj.query_ids),
                   run_obj._segments)
    judgments = JudgmentRows(qrels_obj.query, qrels_obj.rel, index, len(qrels_obj.query_ids),
                             qrels_obj._judged_counts)
    ranked = rank_queries(rows, judgments, evaluated_run, evaluated_qrels, options.rules)
    if known is not None:
        # The same rankings judged against the known set: a judged document the user did not
        # know becomes judged non-relevant (0), so the rankings, their truncation and -J's
        # choice of documents are the same; unjudged and pooled values are kept.
        marks = _known_marks(qrels_obj, known)
        side_rel = np.where(marks | (qrels_obj.rel < 0), qrels_obj.rel, 0)
        side = dataclasses.replace(judgments, rel=side_rel, levels=None)
        ranked.sides["known"] = rank_queries(rows, side, evaluated_run, evaluated_qrels,
                                             options.rules)
    return ranked, queries, evaluated_run >= 0


def _known_set(known: QrelsLike | None, requests: Iterable[MeasureRequest],
               level: int) -> Qrels | None:
    """The known set as Qrels, checked against the measures that need it."""
    needing = [r.measure.name for r in requests if "known" in r.measure.inputs]
    if known is None:
        if needing:
            raise ValueError(f"{' and '.join(needing)} need{'s' if len(needing) == 1 else ''} "
                             "the known set: pass known= (the "
                             "documents each user already knew, as a qrels file, a "
                             "{qid: {docid: 1}} dict or a table)")
        return None
    if needing and level < 1:
        raise ValueError(f"{' and '.join(needing)} need a relevance_level of 1 or more, got "
                         f"{level}")
    from rankeval.ranking.inputs import as_qrels

    return as_qrels(known)


def _known_marks(qrels: Qrels, known: Qrels) -> BoolArray:
    """Which qrels rows the known set lists with a value of 1 or more."""
    listed = known.rel >= 1
    pairs = set(zip(
        map(known.query_ids.__getitem__, known.query[listed].tolist()),
        _doc_keys(known.docid[listed]), strict=True))
    marks = np.zeros(qrels.rel.shape[0], dtype=bool)
    if not pairs:
        return marks
    wanted = {qid for qid, _ in pairs}
    code = np.fromiter((qid in wanted for qid in qrels.query_ids), dtype=bool,
                       count=len(qrels.query_ids))
    rows = np.flatnonzero(code[qrels.query])
    ids = qrels.query_ids
    keys = zip(map(ids.__getitem__, qrels.query[rows].tolist()), _doc_keys(qrels.docid[rows]),
               strict=True)
    marks[rows] = np.fromiter((key in pairs for key in keys), dtype=bool, count=rows.size)
    return marks


def _doc_keys(docid: NDArray[Any]) -> list[str]:
    """Document ids as text, whatever the column's type (bytes, text or integers)."""
    if docid.dtype.kind == "S":
        return [d.decode("utf-8", "surrogateescape") for d in docid.tolist()]
    return [str(d) for d in docid.tolist()]


def _evaluate(
    ranked: RankedQueries,
    requests: tuple[MeasureRequest, ...],
    columns: tuple[Column, ...],
    options: MeasureOptions,
    profile: Profile,
    queries: tuple[str, ...],
    retrieved: BoolArray,
    runid: str,
    complete: bool,
    placeholder: int | None = None,
) -> RunReport:
    q = len(queries)
    numeric: dict[str, FloatArray] = {}
    texts: dict[str, list[str]] = {}
    for request in requests:
        if request.measure.printed == "text":
            texts[request.measure.name] = [""] * q
        else:
            numeric[request.measure.name] = np.zeros((q, cutoff_count(request)))
    missing = ~retrieved
    # missing members, their judged counts and the grades counted
    absent: list[tuple[IntArray, IntArray, IntArray]] = []
    for members, batch in ranked.batches():  # members: evaluated positions
        if placeholder is not None and missing[members].any():
            chosen = missing[members]
            absent.append((members[chosen], batch.rel_levels[chosen], batch.grades))
        for request in requests:
            if request.measure.name == "runid":
                continue
            result = compute(batch, request, options)
            if isinstance(result, list):
                target = texts[request.measure.name]
                for member, text in zip(members.tolist(), result, strict=True):
                    target[member] = text
            else:
                numeric[request.measure.name][members] = result
    if missing.any():
        # A query the run misses scores 0, but its relevant documents still count (-c).
        for name, array in numeric.items():
            if name != "num_rel":
                array[missing] = 0.0
        for strings in texts.values():
            for i in np.flatnonzero(missing).tolist():
                strings[i] = ""
        for members, rel_levels, grades in absent:
            _placeholder_values(numeric, texts, requests, options, members, rel_levels, grades,
                                ranked.level, placeholder or 0)

    num_q = q if complete else int(retrieved.sum())
    values: dict[str, FloatArray] = {}
    text_values: dict[str, tuple[str, ...]] = {}
    aggregates: dict[str, float] = {}
    for column in columns:
        m = column.measure
        if m.name == "runid":
            continue
        if m.printed == "text":
            text_values[column.name] = tuple(texts[m.name])
            continue
        per_query = np.ascontiguousarray(numeric[m.name][:, column.index])
        if m.name == "num_q":
            aggregates[column.name] = float(num_q)
            continue
        per_query.flags.writeable = False
        values[column.name] = per_query
        aggregates[column.name] = _aggregate(per_query, m.aggregate, retrieved, num_q, profile)
    return RunReport(
        profile=profile,
        runid=runid,
        queries=queries,
        retrieved=_read_only(retrieved.copy()),
        columns=tuple(c.name for c in columns),
        values=MappingProxyType(values),
        texts=MappingProxyType(text_values),
        aggregates=MappingProxyType(aggregates),
        num_queries=num_q,
        _layout=columns,
    )


# Values trec_eval 10 resets after evaluating the placeholder ranking, by printed name: these
# when printed under their bare name (no parameters given), and every unj_k.
_PLACEHOLDER_RESET = frozenset({"num_ret", "utility", "rbp_resid", "relstring"})


def _placeholder_values(
    numeric: dict[str, FloatArray], texts: dict[str, list[str]],
    requests: tuple[MeasureRequest, ...],
    options: MeasureOptions, members: IntArray, rel_levels: IntArray, grades: IntArray,
    level: int, width: int,
) -> None:
    """trec_eval 10's values for queries the run lacks under -c.

    It ranks such a query as one unjudged document (``"ceci_nest_pas_un_docno"``; gone
    under -J or -M 0), evaluates every measure on that, then sets back to nothing the
    values it finds by their printed name: ``num_ret``, ``utility``, ``rbp_resid``,
    ``relstring`` (so not ``relstring_4``, which prints ``'-'``) and every ``unj_k``.
    Mostly this gives 0, but not always: the
    empty ranking's 0/0 in iprec_at_recall, or, at a relevance level of -1 or below, an
    unjudged document counting as relevant in P, AP, ...
    """
    b = int(members.size)
    rels = np.full((b, width), NONPOOL, dtype=np.int64)
    batch = QueryBatch(rels, np.full(b, width, dtype=np.int64), rel_levels, level, None,
                       grades)
    for request in requests:
        name = request.measure.name
        if name == "runid" or name == "unj" or request.measure.inputs or (
                name in _PLACEHOLDER_RESET and request.text is None):
            continue
        result = compute(batch, request, options)
        if isinstance(result, list):
            for member, text in zip(members.tolist(), result, strict=True):
                texts[name][member] = text
        else:
            numeric[name][members] = result


_Array = TypeVar("_Array", bound=NDArray[Any])


def _read_only(array: _Array) -> _Array:
    array.flags.writeable = False
    return array


def _aggregate(
    values: FloatArray, how: str, retrieved: BoolArray, num_q: int, profile: Profile,
    weights: FloatArray | None = None,
) -> float:
    if how == "sum":
        return formulas.sequential_total(values)
    if weights is not None:  # every evaluated query, in query order (see RunReport.weighted)
        total = formulas.sequential_total(weights)
        if how == "geometric":
            logs = np.log(np.maximum(values, MIN_GEO_MEAN))
            return math.exp(formulas.sequential_total(weights * logs) / total) if total else (
                math.nan)
        return formulas.sequential_total(weights * values) / total if total else math.nan
    if how == "geometric":
        logs = np.log(np.maximum(values, MIN_GEO_MEAN))
        if catalogue.is_nine(profile):
            # trec_eval 9 adds the missing queries (-c) in one term after the others.
            missing = num_q - int(retrieved.sum())
            total = formulas.sequential_total(logs[retrieved]) + missing * math.log(MIN_GEO_MEAN)
        else:
            total = formulas.sequential_total(logs)
        return math.exp(total / num_q) if num_q else 0.0
    # trec_eval 9 lists only the retrieved queries (the others add 0 under -c).
    nine = catalogue.is_nine(profile)
    return formulas.mean_over_queries(values[retrieved] if nine else values, num_q)


# ---------------------------------------------------------------------------------------------
# rank statistics


def first_relevant_ranks(qrels: QrelsLike, run: RunLike, **options: Any) -> dict[str, float]:
    """Rank (1-based) of the first relevant document per query; ``inf`` when none is retrieved.

    ``options`` are :func:`evaluate_run`'s (ranking rules, ``relevance_level``, ...).

    >>> first_relevant_ranks({"q": {"b": 1}}, {"q": {"a": 3.0, "b": 2.0}})
    {'q': 2.0}

    Complexity: as :func:`evaluate_run` with ``recip_rank``.
    """
    ev = evaluate_run(qrels, run, ["recip_rank"], **options)
    rr = ev.values["recip_rank"]
    ranks = np.full(rr.shape, math.inf)
    found = rr > 0
    ranks[found] = np.rint(1.0 / rr[found])
    return dict(zip(ev.queries, ranks.tolist(), strict=True))


def median_first_relevant_rank(qrels: QrelsLike, run: RunLike, **options: Any) -> float:
    """Median over queries of the rank of the first relevant document.

    Queries with no relevant document retrieved count as rank ``inf`` (worse than any), so
    the median is ``inf`` when more than half the queries find nothing.

    Undefined when no query is evaluated (``ValueError`` from :func:`evaluate_run`).

    >>> median_first_relevant_rank({"a": {"y": 1}, "b": {"x": 1}},
    ...                            {"a": {"x": 2.0, "y": 1.0}, "b": {"x": 1.0}})
    1.5

    Complexity: as :func:`evaluate_run` plus O(Q log Q).
    """
    return _median_rank(np.array(list(first_relevant_ranks(qrels, run, **options).values())))


def _median_rank(ranks: FloatArray) -> float:
    """Median of ranks where ``inf`` (never retrieved) is worse than any rank.

    Of an even count, the mean of the middle two, or ``inf`` if the upper one is.
    """
    ordered = np.sort(ranks)
    mid = ordered.size // 2
    if ordered.size % 2:
        return float(ordered[mid])
    low, high = float(ordered[mid - 1]), float(ordered[mid])
    return high if math.isinf(high) else (low + high) / 2.0


def relevant_ranks(
    qrels: QrelsLike,
    run: RunLike,
    *,
    relevance_level: int = 1,
    complete: bool = False,
    max_docs: int | None = None,
    judged_only: bool = False,
    ties: DocumentTies = "docid_desc",
    profile: Profile = catalogue.DEFAULT_PROFILE,
    score_precision: ScorePrecision | None = None,
    no_relevant: NoRelevant = "zero",
) -> dict[str, FloatArray]:
    """The rank (1-based) of every relevant document of every evaluated query.

    Rankings, evaluated queries and the options are :func:`evaluate_run`'s; a relevant
    document the run does not rank (or ranks below ``max_docs``) has rank ``inf``. Each
    array is ascending. ``ties="average"`` is refused: a rank inside a tie block is not
    one number.

    >>> relevant_ranks({"q": {"a": 1, "c": 1, "z": 2}}, {"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    {'q': array([ 1.,  3., inf])}

    Complexity: as :func:`evaluate_run` with one measure.
    """
    qrels_obj, run_obj = qrels_and_run(qrels, run)
    options = RunOptions(profile=profile, relevance_level=relevance_level, complete=complete,
                         max_docs=max_docs, judged_only=judged_only, ties=ties,
                         score_precision=score_precision, no_relevant=no_relevant)
    if options.ties == "average":
        raise ValueError("ties='average' gives no rank to a document in a tie block; "
                         "use 'docid_desc', 'docid_asc' or 'input'")
    ranked, queries, _ = _rank(qrels_obj, run_obj, options)
    out: list[FloatArray] = [np.zeros(0)] * len(queries)
    for members, batch in ranked.batches():
        rows, columns = batch._relevant_cells
        found = np.bincount(rows, minlength=batch.size)
        bounds = np.concatenate(([0], np.cumsum(found)))
        for b, member in enumerate(members.tolist()):
            ranks = np.full(int(batch.num_rel[b]), math.inf)
            ranks[: found[b]] = columns[bounds[b] : bounds[b + 1]] + 1.0
            out[member] = ranks
    return dict(zip(queries, out, strict=True))


def median_relevant_rank(qrels: QrelsLike, run: RunLike, **options: Any) -> float:
    """Median rank over every relevant document of every query, pooled (``inf``: unranked).

    The music-retrieval convention, beside :func:`median_first_relevant_rank` (one rank
    per query). ``options`` are :func:`relevant_ranks`'. Undefined without any relevant
    document (``ValueError``).

    >>> median_relevant_rank({"a": {"x": 1, "y": 1}, "b": {"z": 1}},
    ...                      {"a": {"x": 3.0, "y": 1.0, "w": 2.0}, "b": {"z": 1.0}})
    1.0

    Complexity: as :func:`relevant_ranks` plus O(r log r) for r relevant documents.
    """
    pooled = list(relevant_ranks(qrels, run, **options).values())
    ranks = np.concatenate(pooled) if pooled else np.zeros(0)
    if ranks.size == 0:
        raise ValueError("no relevant document in the evaluated queries: no median rank")
    return _median_rank(ranks)


def eleven_point_precision(
    qrels: QrelsLike, run: RunLike, *, iprec_rule: IprecRule | None = None, **options: Any
) -> FloatArray:
    """Macro-averaged interpolated precision at recall 0.0, 0.1, ..., 1.0 (11 values).

    The mean over queries of trec_eval's ``iprec_at_recall``; ``iprec_rule`` picks the
    convention (``"trec9"``, ``"lround"``, ``"ceil"`` textbook, ``"lingpipe"``).

    >>> run = Run.from_ranked_lists({"q": [f"d{i}" for i in range(1, 16)]})
    >>> qrels = Qrels.from_relevant({"q": ["d3", "d8", "d15"]})
    >>> eleven_point_precision(qrels, run, iprec_rule="ceil").round(4).tolist()
    [0.3333, 0.3333, 0.3333, 0.3333, 0.25, 0.25, 0.25, 0.2, 0.2, 0.2, 0.2]

    Complexity: as :func:`evaluate_run` with ``iprec_at_recall``.
    """
    ev = evaluate_run(qrels, run, ["iprec_at_recall"], iprec_rule=iprec_rule, **options)
    return np.array([ev[name] for name in ev.columns], dtype=np.float64)


def __getattr__(name: str) -> Any:
    """``RunEvaluation``: the earlier name of :class:`RunReport`, deprecated."""
    if name == "RunEvaluation":
        deprecated("rankeval.ranking.evaluate.RunEvaluation is now RunReport")
        return RunReport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
