"""The two ir_measures names that ir_measures computes with providers of its own, not with
trec_eval: ``Compat`` and ``Accuracy``.

Both follow ir_measures' code (``compat_provider``, ``accuracy_provider``) rule for rule,
ranking, ties and averaging included:

``Compat(p=0.95, normalize=True)``
    The compatibility of Clarke, Vtyurina & Smucker (TOIS 2021): rank-biased overlap, with
    persistence p, between the run's ranking (score descending, ties by document id
    ascending) and an ideal ranking (the documents judged above 0, by grade descending, then
    by the run's score descending, a document the run lacks scoring 0, then in the qrels'
    order), to the depth of the longer of the two; ``normalize`` divides by the ideal's
    overlap with itself. For every query of both the run and the qrels.
``Accuracy(rel=1)@k``
    The share of (relevant, non-relevant) pairs among the top k retrieved documents (all of
    them without k; ranked by score descending, ties in the run's order) where the relevant
    document comes first; a document the qrels do not list is non-relevant. For the run's
    queries that have judgments and at least one relevant document among those k.
    ir_measures divides by zero where there is no non-relevant document among them (its
    evaluation fails); such a query scores 0 here, like the others it does not score.

As for every ir_measures name, each query of the qrels has a value, 0 where the measure
scores none (a query the run lacks, one with no relevant document among the top k); the
mean adds the values in the run's query order and divides by the number of qrels queries,
as ir_measures' does when another provider shares the call (alone, ir_measures averages
over the queries scored: its value would depend on its neighbours, which rankeval's never
does). The tests compare both with ir_measures itself on random inputs with ties.

Complexity: O(n log n) for n run and qrels rows, in Python loops per query (these two are
rarely asked for together with millions of rows).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rankeval import formulas
from rankeval.ranking.inputs import Qrels, Run, _text

__all__ = ["OWN_MEASURES", "as_dicts", "own_values"]

#: name -> the parameters it takes
OWN_MEASURES = {"Compat": frozenset({"p", "normalize"}), "Accuracy": frozenset({"rel"})}


Judged = dict[str, dict[str, int]]
Ranked = dict[str, list[tuple[str, float]]]


def as_dicts(qrels: Qrels, run: Run) -> tuple[Judged, Ranked]:
    """The qrels and the run as ir_measures' providers read them (built once for every own
    name of a call): ``{qid: {docid: grade}}`` and ``{qid: [(docid, score), ...]}``, queries
    and documents in row order."""
    return _qrels_of(qrels), _run_of(run)


def own_values(name: str, params: dict[str, Any], cutoff: int | None, judged: Judged,
               ranked: Ranked, queries: tuple[str, ...]
               ) -> tuple[np.ndarray[Any, np.dtype[np.float64]], float]:
    """Per-query values of ``name`` aligned with ``queries`` (0 where the measure scores no
    value) and their mean over ``queries``, added in the run's query order; ``judged`` and
    ``ranked`` from :func:`as_dicts`.

    >>> from rankeval.ranking import Qrels, Run
    >>> qrels = Qrels.from_dict({"q": {"a": 1, "b": 0}})
    >>> run = Run.from_dict({"q": {"a": 0.9, "b": 0.5, "c": 0.1}})
    >>> own_values("Accuracy", {}, None, *as_dicts(qrels, run), ("q",))[1]
    1.0
    """
    scored: dict[str, float] = {}
    for qid, documents in ranked.items():
        their = judged.get(qid)
        if their is None:
            continue
        value: float | None
        if name == "Compat":
            value = _compat(their, documents, float(params.get("p", 0.95)),
                            bool(params.get("normalize", True)))
        else:
            if not their:
                continue
            value = _accuracy(their, documents, int(params.get("rel", 1)), cutoff)
        if value is not None:
            scored[qid] = value
    values = np.array([scored.get(q, 0.0) for q in queries], dtype=np.float64)
    wanted = set(queries)
    order = [scored[q] for q in ranked if q in scored and q in wanted]
    total = formulas.sequential_total(np.array(order, dtype=np.float64)) if order else 0.0
    return values, total / len(queries) if queries else 0.0


def _qrels_of(qrels: Qrels) -> Judged:
    """``{qid: {docid: grade}}`` in the qrels' row order."""
    out: Judged = {}
    ids = qrels.query_ids
    for q, d, r in zip(qrels.query.tolist(), qrels.docid.tolist(), qrels.rel.tolist(),
                       strict=True):
        out.setdefault(ids[q], {})[_text(d)] = int(r)
    return out


def _run_of(run: Run) -> Ranked:
    """``{qid: [(docid, score), ...]}``, queries and documents in the run's row order."""
    out: Ranked = {}
    ids = run.query_ids
    for q, d, s in zip(run.query.tolist(), run.docid.tolist(), run.score.tolist(),
                       strict=True):
        out.setdefault(ids[q], []).append((_text(d), float(s)))
    return out


def _accuracy(judged: dict[str, int], documents: list[tuple[str, float]], rel: int,
              cutoff: int | None) -> float | None:
    ranking = sorted(documents, key=lambda item: item[1], reverse=True)  # stable: run order
    top = ranking[: cutoff or len(ranking)]
    relevant = np.array([judged.get(doc, 0) >= rel for doc, _ in top], dtype=bool)
    if not relevant.any():
        return None
    nonrelevant_above = np.cumsum(~relevant)[relevant]  # before each relevant document
    total_nonrelevant = int(np.count_nonzero(~relevant))
    if total_nonrelevant == 0:
        return None  # ir_measures divides by zero here
    pairs = float(total_nonrelevant) * int(relevant.sum())
    return 1.0 - formulas.sequential_total(nonrelevant_above.astype(np.float64)) / pairs


def _compat(judged: dict[str, int], documents: list[tuple[str, float]], p: float,
            normalize: bool) -> float:
    scores = dict(documents)  # the last score of a document listed twice, as a dict keeps
    ranking = sorted(scores)
    ranking.sort(key=lambda doc: scores[doc], reverse=True)
    ideal = [doc for doc in judged if judged[doc] > 0]
    ideal.sort(key=lambda doc: scores.get(doc, 0.0), reverse=True)
    ideal.sort(key=lambda doc: judged[doc], reverse=True)
    depth = max(len(ranking), len(ideal))
    score = _rbo(ranking, ideal, p, depth)
    if normalize:
        best = _rbo(ideal, ideal, p, depth)
        if best > 0.0:
            score = score / best
    return score


def _rbo(ranking: list[str], ideal: list[str], p: float, depth: int) -> float:
    """Rank-biased overlap to ``depth``, as ir_measures' loop computes it: the overlap of
    the two prefixes at each depth d (a document counts from the deeper of its two ranks),
    weighted by p**(d-1) (repeated products), both sums taken left to right."""
    if depth == 0:
        return math.nan  # ir_measures divides 0 by 0 (no document on either side)
    at_ideal = {doc: i for i, doc in enumerate(ideal)}
    counted = np.zeros(depth, dtype=np.int64)
    for i, doc in enumerate(ranking):
        j = at_ideal.get(doc)
        if j is not None:
            counted[max(i, j)] += 1
    overlap = np.cumsum(counted).astype(np.float64)
    weights = np.cumprod(np.concatenate(([1.0], np.full(depth - 1, p))))
    terms = weights * overlap / np.arange(1, depth + 1, dtype=np.float64)
    return formulas.sequential_total(terms) / formulas.sequential_total(weights)
