"""The two halves cannot drift apart: one query through the streaming evaluator and through
``evaluate_run`` gives the same AP, P@k, reciprocal rank and R-precision, bit for bit.

Both halves end in the same formulas (:mod:`rankeval.formulas`); this checks that they feed
them the same counts. Scores are distinct (the halves break ties by different rules on
purpose) and at least one relevant item exists (R = 0 is where trec_eval and LingPipe
disagree: Rprec 0 against 1, AP 0 against NaN).
"""

from __future__ import annotations

from hypothesis import assume, given, settings

from rankeval import ScoredPrecisionRecallEvaluation, evaluate_run
from tests import strategies

CUTOFFS = (1, 2, 3, 5, 10, 30)


@settings(max_examples=300, deadline=None)
@given(cases=strategies.distinct_cases, misses=strategies.miss_counts, ties=strategies.ties)
def test_one_query_two_ways(cases: list[tuple[bool, float]], misses: int, ties: str) -> None:
    """Streaming evaluator == evaluate_run for AP, P@k, RR, R-precision (distinct scores, R > 0)."""
    assume(cases)  # trec_eval evaluates no query without a retrieved document
    if not any(label for label, _ in cases) and misses == 0:
        misses = 1  # R > 0
    streaming = ScoredPrecisionRecallEvaluation(ties=ties)  # no ties: both policies agree
    for label, score in cases:
        streaming.add_case(label, score)
    streaming.add_misses(misses)

    run = {"q": {f"d{i}": score for i, (_, score) in enumerate(cases)}}
    judged = {f"d{i}": int(label) for i, (label, _) in enumerate(cases)}
    judged.update({f"missed{j}": 1 for j in range(misses)})
    measures = ["map", "recip_rank", "Rprec", "P." + ",".join(map(str, CUTOFFS))]
    # trec_eval 10 compares scores as doubles; 9 as floats, which can tie distinct doubles.
    batch = evaluate_run({"q": judged}, run, measures, profile="trec_eval10")
    got = {name: batch[name] for name in batch.columns}

    expected = {
        "map": streaming.average_precision(),
        "recip_rank": streaming.reciprocal_rank(),
        "Rprec": streaming.r_precision(),
        **{f"P_{k}": streaming.precision_at(k) for k in CUTOFFS},
    }
    assert got == expected


def test_the_property_can_fail() -> None:
    """A drift of one rank shows: the relevant item one place lower gives another AP."""
    streaming = ScoredPrecisionRecallEvaluation()
    streaming.add_cases([False, True, False], [3.0, 2.0, 1.0])
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    same = evaluate_run({"q": {"a": 0, "b": 1, "c": 0}}, run, ["map"], profile="trec_eval10")
    moved = evaluate_run({"q": {"a": 0, "b": 0, "c": 1}}, run, ["map"], profile="trec_eval10")
    assert same["map"] == streaming.average_precision() == 0.5
    assert moved["map"] != streaming.average_precision()
