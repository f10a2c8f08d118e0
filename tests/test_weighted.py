"""Weighted cases in the binary evaluator: scikit-learn's ``sample_weight`` as the oracle,
repeated cases as the exact one (integer weights), and every read the registry says has no
weighted value refused."""

from __future__ import annotations

import math
import pickle
from typing import Any

import numpy as np
import pytest
from sklearn import metrics

from rankeval import ScoredPrecisionRecallEvaluation as Evaluation
from rankeval.scored.reads import READS
from tests.helpers import DECISIONS, assert_decisions_match, same_bits

SEEDS = range(8)


def _data(seed: int, n: int = 400, *, integer: bool = False) -> tuple[Any, Any, Any]:
    """Labels, probabilities with many ties, weights with zeros (integers if asked)."""
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < 0.35
    scores = np.round(rng.random(n) * 0.6 + 0.4 * labels * rng.random(n), 2)
    weights = (rng.integers(0, 5, n).astype(np.float64) if integer
               else rng.random(n) * 4.0)
    weights[rng.random(n) < 0.1] = 0.0
    return labels, scores, weights


def _weighted(labels: Any, scores: Any, weights: Any, **kwargs: Any) -> Evaluation:
    ev = Evaluation(**kwargs)
    ev.add_cases(labels, scores, weights=weights)
    return ev


@pytest.mark.parametrize("seed", SEEDS)
def test_sklearn_sample_weight(seed: int) -> None:
    y, s, w = _data(seed)
    ev = _weighted(y, s, w)
    assert ev.weighted
    assert ev.area_under_roc_curve() == pytest.approx(
        metrics.roc_auc_score(y, s, sample_weight=w), abs=1e-12)
    assert ev.average_precision() == pytest.approx(
        metrics.average_precision_score(y, s, sample_weight=w), abs=1e-12)
    assert ev.brier_score() == pytest.approx(
        metrics.brier_score_loss(y, s, sample_weight=w), abs=1e-12)
    assert ev.log_loss() == pytest.approx(
        metrics.log_loss(y, s, sample_weight=w), abs=1e-12)
    assert ev.num_positive_ref() == pytest.approx(w[y].sum(), abs=1e-9)
    assert ev.num_negative_ref() == pytest.approx(w[~y].sum(), abs=1e-9)
    # The curves: scikit-learn's thresholds are ours (zero-weight cases make none).
    fpr, tpr, _ = metrics.roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    roc = ev.roc_curve()
    np.testing.assert_allclose(roc[:-1], np.column_stack((fpr, tpr)), rtol=0, atol=1e-12)
    precision, recall, _ = metrics.precision_recall_curve(y, s, sample_weight=w,
                                                          drop_intermediate=False)
    pr = ev.pr_curve()
    expected = np.column_stack((recall[::-1], precision[::-1]))
    np.testing.assert_allclose(pr[:-1], expected, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(pr[-1], [1.0, 0.0])
    # Maximum F and the eleven points, from scikit-learn's curve.
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.nan_to_num(2 * precision * recall / (precision + recall))
    assert ev.maximum_f_measure() == pytest.approx(f1.max(), abs=1e-12)
    eleven = [max(precision[recall >= level - 1e-12], default=0.0)
              for level in np.linspace(0, 1, 11)]
    eleven[0] = 1.0  # LingPipe's convention at recall 0
    np.testing.assert_allclose(ev.eleven_point_interpolated_precision(), eleven, atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_without_ties_the_weighted_mann_whitney(seed: int) -> None:
    """Without ties the weighted area is the weighted Mann-Whitney statistic, by hand."""
    rng = np.random.default_rng(seed)
    y = rng.random(50) < 0.5
    s = rng.random(50)
    w = rng.random(50)
    ev = _weighted(y, s, w)
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    above = (s[pos][:, None] > s[neg][None, :]) * w[pos][:, None] * w[neg][None, :]
    assert ev.area_under_roc_curve() == pytest.approx(above.sum() / (w[y].sum() * w[~y].sum()),
                                                      abs=1e-12)


def _curves(ev: Evaluation) -> list[Any]:
    return [ev.pr_curve(), ev.pr_curve(True), ev.roc_curve(), ev.roc_curve(True),
            ev.pr_score_curve(), ev.pr_score_curve(True),
            ev.eleven_point_interpolated_precision()]


def _weighted_reads() -> list[Any]:
    """Every registered read a weighted evaluator gives (the registry's list) but those that
    take options (the decision calls' table and the calibration tests cover them)."""
    return [read for read in READS.values() if read.weighted and not read.options]


def _value(ev: Evaluation, read: Any) -> Any:
    """A read without options (those with: every decision call, the calibration tests)."""
    argument = {"beta": 0.5, "threshold": 0.5}.get(str(read.parameter))
    value = read.read(ev, argument)
    if read.interpolated:
        return value, read.read(ev, argument, interpolate=True)
    return value


@pytest.mark.parametrize("seed", SEEDS)
def test_integer_weights_are_repeated_cases(seed: int) -> None:
    y, s, w = _data(seed, integer=True)
    weighted = _weighted(y, s, w)
    repeated = Evaluation()
    counts = w.astype(np.int64)
    repeated.add_cases(np.repeat(y, counts), np.repeat(s, counts))
    for ev in (weighted, repeated):
        ev.add_misses(3)
        ev.add_negative_misses(2)
    reads = _weighted_reads()
    assert {r.name for r in reads} >= {"roc_auc", "average_precision", "max_f", "brier_score"}
    for read in reads:  # the calibration reads too: the same terms and counts
        assert same_bits(_value(weighted, read), _value(repeated, read)), read.name
    for mine, theirs in zip(_curves(weighted), _curves(repeated), strict=True):
        np.testing.assert_array_equal(mine, theirs)
    for bins, strategy in ((10, "uniform"), (3, "uniform"), (4, "quantile"), (7, "quantile")):
        a = weighted.reliability_curve(bins, strategy)
        b = repeated.reliability_curve(bins, strategy)
        assert same_bits(a.fraction_positive, b.fraction_positive)
        assert same_bits(a.mean_predicted, b.mean_predicted)
        assert same_bits(a.counts, b.counts.astype(np.float64))
        for norm in ("l1", "l2", "max"):
            assert same_bits(weighted.calibration_error(bins, strategy, norm),
                             repeated.calibration_error(bins, strategy, norm))
        mine = weighted.brier_decomposition(bins, strategy)
        theirs = repeated.brier_decomposition(bins, strategy)
        assert same_bits([mine.reliability, mine.resolution, mine.uncertainty, mine.brier],
                         [theirs.reliability, theirs.resolution, theirs.uncertainty,
                          theirs.brier])
    mine, theirs = weighted.brier_decomposition(), repeated.brier_decomposition()
    assert same_bits([mine.reliability, mine.resolution, mine.brier],
                     [theirs.reliability, theirs.resolution, theirs.brier])


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_integer_weights_decide_as_repeated_cases(seed: int) -> None:
    """Every decision read with every argument combination (the partitioned tests' table):
    the repeated cases' bits, or their error."""
    y, s, w = _data(seed, integer=True)
    weighted = _weighted(y, s, w)
    repeated = Evaluation()
    repeated.add_cases(np.repeat(y, w.astype(np.int64)), np.repeat(s, w.astype(np.int64)))
    for ev in (weighted, repeated):
        ev.add_misses(seed)
        ev.add_negative_misses(2)
    assert_decisions_match(weighted, repeated, DECISIONS)
    for threshold in (0.0, 0.3, 0.55, 2.0):
        a, b = weighted.confusion_at(threshold), repeated.confusion_at(threshold)
        assert a.weighted
        assert (a.true_positive, a.false_positive, a.true_negative, a.false_negative) == (
            b.true_positive, b.false_positive, b.true_negative, b.false_negative)
        assert same_bits(a.f_measure(), b.f_measure())
        assert same_bits(a.matthews_corrcoef(), b.matthews_corrcoef())


@pytest.mark.parametrize("seed", SEEDS)
def test_decisions_against_scikit_learn(seed: int) -> None:
    """KS and Youden's best threshold from scikit-learn's weighted ROC curve; the thresholds
    table's counts from its weighted confusion matrix."""
    y, s, w = _data(seed)
    ev = _weighted(y, s, w)
    fpr, tpr, thresholds = metrics.roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    ks = ev.ks_statistic()
    assert ks.value == pytest.approx(np.abs(tpr - fpr).max(), abs=1e-12)
    best = ev.best_threshold("youden")
    j = int(np.argmax(tpr - fpr))
    assert best.threshold == thresholds[j]
    assert best.value == pytest.approx(tpr[j] - fpr[j], abs=1e-12)
    table = ev.thresholds_table()
    for row in table[1::7]:
        predicted = s >= row["threshold"]
        cells = metrics.confusion_matrix(y, predicted, sample_weight=w, labels=[False, True])
        np.testing.assert_allclose([row["tn"], row["fp"], row["fn"], row["tp"]],
                                   cells.ravel(), rtol=1e-12)
    point = ev.confusion_at(0.5)
    assert point.f_measure() == pytest.approx(
        metrics.f1_score(y, s >= 0.5, sample_weight=w), abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_float_weights_same_bits_in_any_order(seed: int) -> None:
    """One order of summation: arrival order, batches, single adds and merges give the same
    bits."""
    y, s, w = _data(seed)
    one = _weighted(y, s, w)
    order = np.random.default_rng(seed + 100).permutation(y.shape[0])
    shuffled = Evaluation()
    half = y.shape[0] // 2
    shuffled.add_cases(y[order[:half]], s[order[:half]], weights=w[order[:half]])
    shuffled.area_under_roc_curve()  # a fold between the batches
    for i in order[half:]:
        shuffled.add_case(bool(y[i]), float(s[i]), weight=float(w[i]))
    merged = _weighted(y[order[:half]], s[order[:half]], w[order[:half]])
    merged.merge(_weighted(y[order[half:]], s[order[half:]], w[order[half:]]))
    for other in (shuffled, merged, pickle.loads(pickle.dumps(one)), one.snapshot()):
        assert other == one
        other._merged()._check()  # the store's invariants: canonical order, totals
        for read in _weighted_reads():
            assert _value(other, read) == _value(one, read), read.name
        for mine, theirs in zip(_curves(other), _curves(one), strict=True):
            np.testing.assert_array_equal(mine, theirs)


def test_earlier_cases_weigh_one() -> None:
    y, s, w = _data(3)
    ev = Evaluation()
    ev.add_cases(y[:100], s[:100])
    assert not ev.weighted
    ev.add_case(bool(y[100]), float(s[100]))  # pending, unweighted
    ev.add_cases(y[101:], s[101:], weights=w[101:])
    ones = np.concatenate((np.ones(101), w[101:]))
    assert ev == _weighted(y, s, ones)


def test_float_counts_are_weights() -> None:
    ev = Evaluation()
    ev.add_counts(positives=[2.5, 0.0, 1.0], negatives=[0.5, 3.0, 0.0], scores=[0.9, 0.4, 0.4])
    assert ev.weighted
    expected = _weighted([True, False, False, True], [0.9, 0.9, 0.4, 0.4], [2.5, 0.5, 3.0, 1.0])
    assert ev == expected
    # integer counts on a weighted evaluator: weights too, the same as the cases repeated
    ev.add_counts(positives=[2], negatives=[1], scores=[0.7])
    expected.add_cases([True, True, False], [0.7, 0.7, 0.7], weights=[1, 1, 1])
    assert ev.area_under_roc_curve() == expected.area_under_roc_curve()
    assert ev.average_precision() == expected.average_precision()


@pytest.mark.parametrize(("positives", "negatives", "message"), [
    ([1.5], [-1.0], r"negatives\[0\] must be finite and non-negative"),
    ([math.nan], [1.0], r"positives\[0\]"),
    ([1.5, 2.0], [1.0], "negatives has 1 entries, scores 2"),
])
def test_bad_float_counts_add_nothing(positives: Any, negatives: Any, message: str) -> None:
    ev = Evaluation()
    ev.add_cases([True], [0.5])
    with pytest.raises(ValueError, match=message):
        ev.add_counts(positives=positives, negatives=negatives,
                      scores=[0.5, 0.25][:len(positives)])
    assert not ev.weighted
    assert ev.num_cases() == 1


def test_zero_weight_counts_for_nothing() -> None:
    ev = _weighted([True, False, True], [0.9, 0.5, 0.1], [1.0, 0.0, 2.0])
    assert ev == _weighted([True, True], [0.9, 0.1], [1.0, 2.0])
    assert math.isnan(ev.area_under_roc_curve())  # N = 0: undefined, as unweighted
    only_zero = _weighted([True], [0.5], [0.0])
    assert only_zero.weighted
    assert only_zero.num_cases() == 0.0


def _unweighted_calls() -> list[tuple[str, Any, dict[str, Any]]]:
    """Every read the registry says a weighted evaluator does not give, with its argument."""
    calls: list[tuple[str, Any, dict[str, Any]]] = []
    for read in READS.values():
        if read.weighted:
            continue
        if read.options:  # the decision calls' arguments the registry's read takes
            taken = {repr(sorted(kept.items())): kept for kept in (
                {k: v for k, v in args.items() if k in read.options}
                for name, args in DECISIONS if name == read.method)}
            calls.extend((read.name, None, kept) for kept in taken.values())
            continue
        argument = {"rank": 3, "threshold": 0.5, "beta": 1.0}.get(str(read.parameter))
        calls.append((read.name, argument, {}))
    assert calls  # the reads by rank
    return calls


@pytest.mark.parametrize(("name", "argument", "options"), _unweighted_calls())
def test_reads_without_weighted_value_raise(name: str, argument: Any,
                                            options: dict[str, Any]) -> None:
    y, s, w = _data(1)
    ev = _weighted(y, s, w)
    before = pickle.dumps(ev)
    with pytest.raises(ValueError, match="has no weighted meaning"):
        ev.read(name, argument, **options)
    assert pickle.dumps(ev) == before


@pytest.mark.parametrize("method", ["delong", "wilson", "davis_goadrich"])
def test_other_unweighted_surfaces_raise(method: str, tmp_path: Any) -> None:
    ev = _weighted([True, False], [0.9, 0.1], [2.0, 1.5])
    calls = {"delong": lambda: ev.interval("roc_auc", method="delong"),
             "wilson": lambda: ev.interval("precision", threshold=0.5),
             "davis_goadrich": lambda: ev.area_under_pr_curve(method="davis_goadrich")}
    with pytest.raises(ValueError, match="weight"):
        calls[method]()


def test_summary_holds_the_weighted_reads() -> None:
    ev = _weighted([True, False, True], [0.9, 0.5, 0.1], [1.0, 2.0, 3.0])
    assert list(ev.summary()) == [read.name for read in READS.values()
                                  if read.in_summary and read.weighted]
    assert ev.summary()["cases"] == 6.0


BAD_WEIGHTS: list[tuple[Any, type[Exception], str]] = [
    ([1.0, -0.5, 1.0], ValueError, r"weights\[1\] must be finite and non-negative"),
    ([1.0, math.nan, 1.0], ValueError, r"weights\[1\]"),
    ([1.0, 1.0, math.inf], ValueError, r"weights\[2\]"),
    ([1.0, 1.0], ValueError, "weights has 2 entries, scores 3"),
    ([[1.0, 1.0, 1.0]], (TypeError, ValueError), "weights"),  # type: ignore[list-item]
    ([True, False, True], TypeError, "bool"),
    (["a", "b", "c"], TypeError, "weights"),
]


@pytest.mark.parametrize(("weights", "error", "message"), BAD_WEIGHTS)
def test_bad_weights_add_nothing(weights: Any, error: Any, message: str) -> None:
    ev = Evaluation()
    ev.add_cases([True, False], [0.3, 0.2])
    before = pickle.dumps(ev)
    with pytest.raises(error, match=message):
        ev.add_cases([True, False, True], [0.9, 0.5, 0.1], weights=weights)
    assert pickle.dumps(ev) == before
    assert not ev.weighted


@pytest.mark.parametrize("weight", [-1.0, math.nan, math.inf, "1", None.__class__])
def test_bad_single_weight(weight: Any) -> None:
    ev = Evaluation()
    with pytest.raises((TypeError, ValueError), match="weight"):
        ev.add_case(True, 0.5, weight=weight)
    assert not ev.weighted
    assert ev.num_cases() == 0


@pytest.mark.parametrize("kwargs", [{"ties": "insertion"},
                                    {"ties": "insertion", "window": 10}])
def test_weights_need_grouped_ties(kwargs: dict[str, Any]) -> None:
    ev = Evaluation(**kwargs)
    with pytest.raises(ValueError, match="weighted cases need"):
        ev.add_cases([True], [0.5], weights=[2.0])
    with pytest.raises(ValueError, match="weighted cases need"):
        ev.add_case(True, 0.5, weight=2.0)
    assert not ev.weighted
    assert ev.num_cases() == 0


def test_reset_forgets_the_weights() -> None:
    ev = _weighted([True, False], [0.9, 0.1], [2.0, 1.5])
    ev.reset()
    assert not ev.weighted
    ev.add_cases([True, False], [0.9, 0.1])
    assert ev.precision_at(1) == 1.0


def test_snapshot_refuses_weighted_adds() -> None:
    ev = _weighted([True, False], [0.9, 0.1], [2.0, 1.5])
    frozen = ev.snapshot()
    with pytest.raises(TypeError):
        frozen.add_case(True, 0.3, weight=1.0)
    with pytest.raises(TypeError):
        frozen.add_cases([True], [0.3], weights=[1.0])


def test_float32_scores_with_weights() -> None:
    y, s, w = _data(5)
    narrow = Evaluation(score_dtype="float32")
    narrow.add_cases(y, s.astype(np.float32), weights=w)
    wide = _weighted(y, s.astype(np.float32).astype(np.float64), w)
    assert narrow.area_under_roc_curve() == wide.area_under_roc_curve()
    np.testing.assert_array_equal(narrow.pr_curve(), wide.pr_curve())


@pytest.mark.parametrize(("n", "decimals"), [(1, 2), (2, 1), (1000, 9), (1000, 1),
                                             (5000, 3), (300_000, 5)])
def test_canonical_order_is_the_lexsort(n: int, decimals: int) -> None:
    """Against NumPy's lexsort by (key, label, weight): the same sorted cases (cases equal in
    all three are interchangeable); from no tie to more than 2^16 tie blocks."""
    from rankeval.scored.weighted import canonical_order

    rng = np.random.default_rng(n + decimals)
    keys = -np.round(rng.random(n), decimals)
    keys[rng.random(n) < 0.01] = -0.0
    labels = rng.random(n) < 0.4
    weights = np.round(rng.random(n) * 3, 1)
    mine = canonical_order(keys, labels, weights)
    assert sorted(mine.tolist()) == list(range(n))
    theirs = np.lexsort((weights, labels, keys))
    for column in (keys, labels, weights):
        np.testing.assert_array_equal(column[mine], column[theirs])


@pytest.mark.parametrize(("measure", "oracle"), [
    ("roc_auc", lambda y, s, w: metrics.roc_auc_score(y, s, sample_weight=w)),
    ("average_precision", lambda y, s, w: metrics.average_precision_score(y, s, sample_weight=w)),
    ("ks", lambda y, s, w: float(np.abs(np.subtract(
        *metrics.roc_curve(y, s, sample_weight=w)[1::-1])).max())),
])
def test_bootstrap_resamples_cases_with_their_weights(measure: str, oracle: Any) -> None:
    """Each resample draws the positives among the positive cases and the negatives among
    the negatives (the stratified bootstrap's draws, replayed here), every drawn case carrying
    its weight: the interval is the quantiles of scikit-learn's weighted values of those
    resamples."""
    y, s, w = _data(11, n=120)
    ev = _weighted(y, s, w)
    found = ev.interval(measure, resamples=60, seed=3)  # the default method for weights
    assert found.method == "bootstrap"
    keep = w > 0  # a zero weight is no case: not drawn
    y, s, w = y[keep], s[keep], w[keep]
    order = np.lexsort((w, y, -s))  # the ranking's order, as the evaluator draws along it
    y, s, w = y[order], s[order], w[order]
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    rng = np.random.default_rng(3)
    values = []
    for _ in range(60):
        times = np.zeros(y.shape[0])
        times[pos] = np.bincount(rng.integers(0, pos.size, pos.size), minlength=pos.size)
        times[neg] = np.bincount(rng.integers(0, neg.size, neg.size), minlength=neg.size)
        values.append(oracle(y, s, w * times))
    low, high = np.quantile(values, [0.025, 0.975])
    assert found.low == pytest.approx(low, abs=1e-9)
    assert found.high == pytest.approx(high, abs=1e-9)
    assert found.value == pytest.approx(oracle(y, s, w), abs=1e-12)
    band = ev.roc_band(fpr=[0.1, 0.5], resamples=30)
    assert band.shape == (2, 4)
    assert bool(np.all(band[:, 2] <= band[:, 1]))
    assert bool(np.all(band[:, 1] <= band[:, 3]))


def test_save_and_load_keep_the_weights(tmp_path: Any) -> None:
    y, s, w = _data(4)
    for dtype in ("float64", "float32"):
        ev = Evaluation(score_dtype=dtype)
        ev.add_cases(y, s.astype(dtype), weights=w)
        ev.add_misses(2)
        loaded = Evaluation.from_bytes(ev.to_bytes())
        path = tmp_path / f"weighted-{dtype}.rkv"
        ev.save(path)
        for other in (loaded, Evaluation.load(path)):
            assert other.weighted
            assert other.score_dtype == dtype
            assert other == ev
            for read in _weighted_reads():
                assert same_bits(_value(other, read), _value(ev, read)), read.name


def _assembled(keys: list[float], labels: list[bool], weights: list[float], *,
               flags: int = 4, ties: str = "grouped", version: int = 3) -> bytes:
    """A state file put together by hand from the format's description: version 3 (the
    container: keys, weights, labels), or version 2 (rankeval 0.2's, with header flags)."""
    import hashlib
    import json
    import struct

    n = len(keys)
    fields: dict[str, Any] = {"cases": n, "neg_missed": "0", "next_age": n, "pos_missed": "0",
                              "ties": ties, "window": None}
    sections = (np.array(keys, "<f8").tobytes() + np.array(weights, "<f8").tobytes()
                + np.array(labels, np.uint8).tobytes())
    if version == 3:
        fields.update(score_dtype="float64", weighted=True, blobs=[8 * n, 8 * n, n])
        meta = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
        meta += b" " * (-(20 + len(meta)) % 8)
        body = struct.pack("<8sIQ", b"\x89RKV\r\n\x1a\n", 3, len(meta)) + meta + sections
    else:
        meta = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
        meta += b" " * (-(48 + len(meta)) % 8)
        body = (struct.pack("<8sIIQQQQ", b"\x89RKV\r\n\x1a\n", 2, flags, len(meta), 8 * n,
                            0, n) + meta + sections)
    return body + hashlib.sha256(body).digest()


def test_a_hand_made_weighted_file_loads() -> None:
    """The format as documented: the file of these three weighted cases is ours; rankeval
    0.2's (version 2) loads to the same evaluator."""
    ev = _weighted([True, False, False], [0.9, 0.5, 0.5], [1.0, 2.0, 3.0])
    data = _assembled([-0.9, -0.5, -0.5], [True, False, False], [1.0, 2.0, 3.0])
    assert ev.to_bytes() == data
    assert Evaluation.from_bytes(data) == ev
    old = _assembled([-0.9, -0.5, -0.5], [True, False, False], [1.0, 2.0, 3.0], version=2)
    assert Evaluation.from_bytes(old) == ev


_CRAFTED = [
    ([1.0, -1.0, 3.0], None, 4, "grouped", "finite and positive"),
    ([1.0, math.nan, 3.0], None, 4, "grouped", "finite and positive"),
    ([1.0, 0.0, 3.0], None, 4, "grouped", "finite and positive"),
    ([1.0, math.inf, 3.0], None, 4, "grouped", "finite and positive"),
    ([1.0, 3.0, 2.0], None, 4, "grouped", "sorted by key, then label, then weight"),
    ([1.0, 2.0, 3.0], [True, True, False], 4, "grouped", "sorted by key, then label"),
    ([1.0, 2.0, 3.0], None, 7, "grouped", "unknown header flags"),
    ([1.0, 2.0, 3.0], None, 4, "insertion", "weights need ties 'grouped'"),
]


# Version 3 has no header flags (its metadata says what they said): the flags case is 2's.
@pytest.mark.parametrize(("weights", "labels", "flags", "ties", "message", "version"), [
    (*case, version) for case in _CRAFTED for version in (2, 3) if version == 2 or case[2] == 4
])
def test_crafted_weighted_files_are_refused(weights: list[float], labels: Any, flags: int,
                                            ties: str, message: str, version: int) -> None:
    from rankeval.errors import PersistenceError

    data = _assembled([-0.9, -0.5, -0.5], labels or [True, False, False], weights,
                      flags=flags, ties=ties, version=version)
    with pytest.raises(PersistenceError, match=message):
        Evaluation.from_bytes(data)


def _categories_data(seed: int, n: int = 400, k: int = 4) -> tuple[Any, Any, Any]:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, k, n)
    scores = np.round(rng.dirichlet(np.ones(k), n) + 0.3 * np.eye(k)[labels], 2)
    scores /= scores.sum(axis=1, keepdims=True)
    weights = rng.random(n) * 3
    weights[rng.random(n) < 0.1] = 0.0
    return labels, scores, weights


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_categories_against_scikit_learn(seed: int) -> None:
    from rankeval import ScoredClassifierEvaluation

    y, s, w = _categories_data(seed)
    ev = ScoredClassifierEvaluation(["a", "b", "c", "d"])
    ev.add_cases(y, s, weights=w)
    onehot = np.eye(4)[y]
    assert ev.weighted
    for average in ("macro", "weighted"):
        assert ev.roc_auc(average=average) == pytest.approx(metrics.roc_auc_score(
            y, s, multi_class="ovr", average=average, sample_weight=w), abs=1e-12)
    assert ev.roc_auc(average="micro") == pytest.approx(
        metrics.roc_auc_score(onehot, s, average="micro", sample_weight=w), abs=1e-12)
    per_category = ev.roc_auc(average=None)
    assert isinstance(per_category, dict)
    np.testing.assert_allclose(list(per_category.values()), metrics.roc_auc_score(
        onehot, s, average=None, sample_weight=w), atol=1e-12)
    for average in ("macro", "weighted", "micro"):
        assert ev.average_precision(average) == pytest.approx(metrics.average_precision_score(
            onehot, s, average=average, sample_weight=w), abs=1e-12)
    for k in (1, 2):
        assert ev.top_k_accuracy(k) == pytest.approx(
            metrics.top_k_accuracy_score(y, s, k=k, sample_weight=w), abs=1e-12)
    assert ev.brier_score() == pytest.approx(
        metrics.brier_score_loss(y, s, sample_weight=w), abs=1e-12)
    assert ev.log_loss() == pytest.approx(metrics.log_loss(y, s, sample_weight=w), abs=1e-12)
    assert ev.category("b").area_under_roc_curve() == pytest.approx(
        metrics.roc_auc_score(y == 1, s[:, 1], sample_weight=w), abs=1e-12)
    assert ev.num_cases() == pytest.approx(w.sum(), rel=1e-12)
    assert "roc_auc_ovo" not in ev.summary()


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_categories_integer_weights_are_repeated_cases(seed: int) -> None:
    """Every weighted read of the categories, bit for bit: the calibration reads average
    each distinct term once, with its count or sum of weights."""
    from rankeval import ScoredClassifierEvaluation

    y, s, _ = _categories_data(9 + seed)
    w = np.random.default_rng(99 + seed).integers(0, 4, y.shape[0])  # another seed
    weighted = ScoredClassifierEvaluation(["a", "b", "c", "d"])
    weighted.add_cases(y, s, weights=w)
    repeated = ScoredClassifierEvaluation(["a", "b", "c", "d"])
    repeated.add_cases(np.repeat(y, w), np.repeat(s, w, axis=0))
    for average in ("macro", "weighted", "micro"):
        assert weighted.roc_auc(average=average) == repeated.roc_auc(average=average)
        assert weighted.average_precision(average) == repeated.average_precision(average)
    assert same_bits(weighted.top_k_accuracy(2), repeated.top_k_accuracy(2))
    assert same_bits(weighted.brier_score(), repeated.brier_score())
    assert same_bits(weighted.log_loss(), repeated.log_loss())
    for norm in ("l1", "l2", "max"):
        for strategy in ("uniform", "quantile"):
            assert same_bits(weighted.calibration_error(6, strategy, norm),
                             repeated.calibration_error(6, strategy, norm))
    for name in ("a", "d"):
        mine, theirs = weighted.category(name), repeated.category(name)
        for read in ("brier_score", "log_loss", "calibration_error"):
            assert same_bits(getattr(mine, read)(), getattr(theirs, read)()), (name, read)


def test_categories_weights_keep_through_merge_and_files() -> None:
    from rankeval import ScoredClassifierEvaluation

    y, s, w = _categories_data(5)
    whole = ScoredClassifierEvaluation([10, 20, 30, 40])  # integer categories, by value
    whole.add_cases([[10, 20, 30, 40][c] for c in y[:200]], s[:200])
    whole.add_cases([[10, 20, 30, 40][c] for c in y[200:]], s[200:], weights=w[200:])
    first = ScoredClassifierEvaluation([10, 20, 30, 40])
    first.add_cases([[10, 20, 30, 40][c] for c in y[:200]], s[:200])
    second = ScoredClassifierEvaluation([10, 20, 30, 40])
    second.add_cases([[10, 20, 30, 40][c] for c in y[200:]], s[200:], weights=w[200:])
    first.merge(second)
    expected = metrics.roc_auc_score(y, s, multi_class="ovr",
                                     sample_weight=np.concatenate((np.ones(200), w[200:])))
    for ev in (whole, first, ScoredClassifierEvaluation.from_bytes(first.to_bytes()),
               pickle.loads(pickle.dumps(first))):
        assert ev.weighted
        assert ev.roc_auc() == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("call", ["ovo", "confusion", "interval", "insertion", "bad"])
def test_categories_refusals(call: str) -> None:
    from rankeval import ScoredClassifierEvaluation

    y, s, w = _categories_data(2, n=40)
    ev = ScoredClassifierEvaluation(["a", "b", "c", "d"],
                                    ties="insertion" if call == "insertion" else "grouped")
    if call in ("insertion", "bad"):
        with pytest.raises(ValueError, match="grouped" if call == "insertion" else "weights"):
            ev.add_cases(y, s, weights=w if call == "insertion" else -w - 1)
        assert ev.num_cases() == 0
        assert not ev.weighted
        return
    ev.add_cases(y, s, weights=w)
    calls = {"ovo": lambda: ev.roc_auc("ovo"), "confusion": ev.confusion,
             "interval": lambda: ev.interval("roc_auc", resamples=10)}
    with pytest.raises(ValueError, match="weighted cases"):
        calls[call]()


def test_segments_give_each_evaluator_its_cases_weights() -> None:
    from rankeval import SegmentedEvaluation

    y, s, w = _data(6)
    keys = np.array(["de", "fr", "it"])[np.random.default_rng(6).integers(0, 3, y.shape[0])]
    segmented = SegmentedEvaluation(Evaluation)
    segmented.add_cases(keys, y, s, weights=w)
    segmented.add_case("de", True, 0.5, weight=2.5)
    for key in ("de", "fr", "it"):
        mine = keys == key
        extra = key == "de"
        expected = metrics.roc_auc_score(
            np.append(y[mine], True) if extra else y[mine],
            np.append(s[mine], 0.5) if extra else s[mine],
            sample_weight=np.append(w[mine], 2.5) if extra else w[mine])
        assert segmented[key].weighted
        assert segmented[key].area_under_roc_curve() == pytest.approx(expected, abs=1e-12)
    copy = SegmentedEvaluation.from_bytes(segmented.to_bytes(), Evaluation)
    assert all(copy[key] == segmented[key] for key in ("de", "fr", "it"))
    with pytest.raises(ValueError, match=r"weights\[0\]"):
        segmented.add_cases(["de"], [True], [0.5], weights=[-1.0])
    assert segmented["de"].num_cases() == pytest.approx(w[keys == "de"].sum() + 2.5)


def test_prometheus_exports_the_weighted_reads() -> None:
    """A weighted evaluation's series hold its weighted reads; the reads by rank, which it
    has not, are left out of its series (not the scrape), and an unweighted one keeps them."""
    from rankeval.prometheus import EvaluationCollector

    weighted = _weighted([True, False, True], [0.9, 0.2, 0.5], [1.0, 2.0, 3.0])
    plain = Evaluation()
    plain.add_cases([True, False, True], [0.9, 0.2, 0.5])
    collector = EvaluationCollector(threshold=0.5)
    collector.watch(weighted, model="weighted")
    collector.watch(plain, model="plain")
    families = {family.name: family for family in collector.collect()}
    models = {name: {sample.labels["model"]: sample.value for sample in family.samples}
              for name, family in families.items() if family.samples}
    assert models["rankeval_negative_cases"] == {"weighted": 2.0, "plain": 1.0}
    assert models["rankeval_precision_at_threshold"] == {"weighted": 1.0, "plain": 1.0}
    assert set(models["rankeval_r_precision"]) == {"plain"}
    assert models["rankeval_read_ok"] == {"weighted": 1.0, "plain": 1.0}


def test_scikit_learn_scorers_take_sample_weight() -> None:
    """Scikit-learn passes ``sample_weight`` to a scorer (directly, or routed by
    ``cross_validate(params=)``): the weighted read, equal to scikit-learn's own weighted
    metric on the same folds."""
    import sklearn
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import KFold, cross_validate

    from rankeval.sklearn import confusion_scorer, scorer

    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 3))
    y = (x[:, 0] + rng.normal(size=300) > 0).astype(int)
    w = rng.random(300) * 2
    model = LogisticRegression().fit(x, y)
    assert scorer("roc_auc")(model, x, y, sample_weight=w) == pytest.approx(
        metrics.roc_auc_score(y, model.predict_proba(x)[:, 1], sample_weight=w), abs=1e-12)
    assert confusion_scorer("f_measure")(model, x, y, sample_weight=w) == pytest.approx(
        metrics.f1_score(y, model.predict(x), sample_weight=w), abs=1e-12)
    with pytest.raises(ValueError, match="has no weighted meaning"):
        scorer("precision_at", argument=10)(model, x, y, sample_weight=w)
    with sklearn.config_context(enable_metadata_routing=True):
        ours = scorer("average_precision").set_score_request(sample_weight=True)
        theirs = metrics.make_scorer(metrics.average_precision_score,
                                     response_method="predict_proba").set_score_request(
                                         sample_weight=True)
        folds = KFold(3, shuffle=True, random_state=0)
        model = LogisticRegression().set_fit_request(sample_weight=False)
        found = cross_validate(model, x, y, cv=folds, params={"sample_weight": w},
                               scoring={"ours": ours, "theirs": theirs})
    assert np.isfinite(found["test_ours"]).all()
    np.testing.assert_allclose(found["test_ours"], found["test_theirs"], atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_misses_weigh_one_below_every_case(seed: int) -> None:
    """Misses are cases of weight 1 that no threshold reaches: for the ROC area, cases
    scoring below every ranked one (scikit-learn's, with them appended)."""
    y, s, w = _data(seed)
    ev = _weighted(y, s, w)
    ev.add_misses(3)
    ev.add_negative_misses(5)
    low = float(s.min()) - 1.0
    labels = np.concatenate((y, [True] * 3, [False] * 5))
    scores = np.concatenate((s, [low] * 8))
    weights = np.concatenate((w, np.ones(8)))
    assert ev.area_under_roc_curve() == pytest.approx(
        metrics.roc_auc_score(labels, scores, sample_weight=weights), abs=1e-12)
    assert ev.num_positive_ref() == pytest.approx(w[y].sum() + 3, abs=1e-9)
    fpr, tpr, _ = metrics.roc_curve(labels, scores, sample_weight=weights,
                                    drop_intermediate=False)
    np.testing.assert_allclose(ev.roc_curve()[:-1], np.column_stack((fpr, tpr))[:-1],
                               atol=1e-12)


def test_weighted_curves_that_would_not_fit_are_refused_before_allocating(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from rankeval.scored import evaluation as evaluation_module

    ev = _weighted([True, False, True, False], [0.9, 0.8, 0.7, 0.1], [1.0, 2.0, 0.5, 3.0])
    monkeypatch.setattr(evaluation_module, "LARGE_CASES", 1)
    monkeypatch.setattr(evaluation_module, "_available_memory", lambda: 100)
    with pytest.raises(ValueError, match=r"curves of 4 weighted cases .*no bounded report"):
        ev.pr_curve()
    assert "points" not in ev._cache  # nothing was built


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_a_window_holds_the_last_cases_with_their_weights(seed: int) -> None:
    """The window of W cases as given (a zero weight takes its place and counts for
    nothing), read at random points between batches and single adds: scikit-learn's weighted
    values of the last W cases each time; the cases before the first weight weigh 1."""
    y, s, w = _data(seed, n=600)
    rng = np.random.default_rng(seed)
    window = 150
    ev = Evaluation(window=window)
    ev.add_cases(y[:40], s[:40])  # unweighted first
    given = np.concatenate((np.ones(40), w[40:]))
    at = 40
    while at < y.shape[0]:
        step = int(rng.integers(1, 90))
        if step % 3:
            ev.add_cases(y[at:at + step], s[at:at + step], weights=w[at:at + step])
        else:
            for i in range(at, min(at + step, y.shape[0])):
                ev.add_case(bool(y[i]), float(s[i]), weight=float(w[i]))
        at = min(at + step, y.shape[0])
        last = slice(max(0, at - window), at)
        yy, ss, ww = y[last], s[last], given[last]
        assert ev.weighted
        assert ev.num_cases() == pytest.approx(ww.sum(), rel=1e-12)
        if (yy & (ww > 0)).any() and (~yy & (ww > 0)).any():
            assert ev.area_under_roc_curve() == pytest.approx(
                metrics.roc_auc_score(yy, ss, sample_weight=ww), abs=1e-12)
            assert ev.average_precision() == pytest.approx(
                metrics.average_precision_score(yy, ss, sample_weight=ww), abs=1e-12)
        ev._merged()._check()


def test_weighted_windows_merge_as_one_that_saw_both() -> None:
    y, s, w = _data(8, n=300)
    a, b, one = (Evaluation(window=100) for _ in range(3))
    a.add_cases(y[:180], s[:180], weights=w[:180])
    b.add_cases(y[180:], s[180:])  # unweighted: its cases weigh 1
    one.add_cases(y[:180], s[:180], weights=w[:180])
    one.add_cases(y[180:], s[180:], weights=np.ones(120))
    a.merge(b)
    assert a == one
    assert a.window == 100
    assert pickle.loads(pickle.dumps(a)) == one
    loaded = Evaluation.from_bytes(a.to_bytes())  # ages and weights, zeros included
    assert loaded == one
    loaded.add_cases(y[:30], s[:30], weights=w[:30])  # the same window goes on
    one.add_cases(y[:30], s[:30], weights=w[:30])
    assert loaded == one
    with pytest.raises(ValueError, match="does not apply to a window"):
        a.add_counts(positives=[1.5], negatives=[2.0], scores=[0.5])


def test_threads_adding_weighted_and_unit_cases_lose_none() -> None:
    """Weighted adds (under the lock) race with unit adds (no lock) and with reads: every
    case arrives, each with its weight."""
    import threading

    ev = Evaluation()
    ev.add_case(True, 0.5, weight=2.0)  # weighted from the start
    per_thread = 2000

    def weighted(seed: int) -> None:
        rng = np.random.default_rng(seed)
        for _ in range(per_thread):
            ev.add_case(bool(rng.random() < 0.5), float(rng.random()), weight=0.5)

    def unit() -> None:
        rng = np.random.default_rng(99)
        for _ in range(per_thread):
            ev.add_case(bool(rng.random() < 0.5), float(rng.random()))

    def reader() -> None:
        for _ in range(50):
            ev.area_under_roc_curve()

    threads = [threading.Thread(target=weighted, args=(i,)) for i in range(3)]
    threads += [threading.Thread(target=unit), threading.Thread(target=reader)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert ev.num_cases() == 2.0 + 3 * per_thread * 0.5 + per_thread
    ev._merged()._check()


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_a_time_window_holds_the_last_seconds_with_their_weights(seed: int) -> None:
    """Cases of the last ``horizon`` seconds, each with its weight (the earlier unweighted
    ones weighing 1): scikit-learn's weighted values of those cases at random read times;
    single adds by the clock, batches with timestamps."""
    y, s, w = _data(seed, n=500)
    rng = np.random.default_rng(seed)
    times = np.cumsum(rng.random(500) * 0.8)
    now = [0.0]
    ev = Evaluation(horizon=40.0, clock=lambda: now[0])
    given = np.concatenate((np.ones(25), w[25:]))
    at = 0
    while at < 500:
        step = int(rng.integers(1, 60))
        end = min(at + step, 500)
        if at < 25:
            end = 25
            for i in range(at, end):
                now[0] = float(times[i])
                ev.add_case(bool(y[i]), float(s[i]))
        elif step % 2:
            ev.add_cases(y[at:end], s[at:end], timestamps=times[at:end], weights=w[at:end])
        else:
            for i in range(at, end):
                now[0] = float(times[i])
                ev.add_case(bool(y[i]), float(s[i]), weight=float(w[i]))
        at = end
        now[0] = float(times[at - 1])  # reads at the latest case's time
        live = (times[:at] > now[0] - 40.0)
        yy, ss, ww = y[:at][live], s[:at][live], given[:at][live]
        if at > 25:
            assert ev.weighted
            assert ev.num_cases() == pytest.approx(ww.sum(), rel=1e-12)
        if (yy & (ww > 0)).any() and (~yy & (ww > 0)).any():
            assert ev.area_under_roc_curve() == pytest.approx(
                metrics.roc_auc_score(yy, ss, sample_weight=ww), abs=1e-12)
        ev._merged()._check()


def test_weighted_time_windows_merge_by_time() -> None:
    y, s, w = _data(12, n=200)
    times = np.arange(200, dtype=np.float64)
    now = [0.0]
    a, b, one = (Evaluation(horizon=120.0, clock=lambda: now[0]) for _ in range(3))
    mine = np.arange(200) % 3 == 0
    a.add_cases(y[mine], s[mine], timestamps=times[mine], weights=w[mine])
    b.add_cases(y[~mine], s[~mine], timestamps=times[~mine])  # unweighted: weight 1
    one.add_cases(y, s, timestamps=times, weights=np.where(mine, w, 1.0))
    now[0] = 199.0
    a.merge(b)
    assert a.weighted
    assert a == one
    assert a.area_under_roc_curve() == one.area_under_roc_curve()
    assert a.snapshot() == one  # (its clock, a local function, does not pickle)
    loaded = Evaluation.from_bytes(a.to_bytes(), clock=lambda: now[0])
    assert loaded == one
    now[0] = 260.0  # the loaded window goes on by its clock: cases leave as the original's
    assert loaded.num_cases() == one.num_cases()
    assert loaded == one
    with pytest.raises(ValueError, match="does not apply to a window"):
        a.add_counts(positives=[1.5], negatives=[2.0], scores=[0.5])


def test_repr_and_text_say_the_cases_are_weighted() -> None:
    ev = _weighted([True, False], [0.9, 0.1], [2.5, 1.0])
    assert repr(ev) == ("ScoredPrecisionRecallEvaluation(ties='grouped', window=None) with "
                        "cases of total weight 3.5, 0 misses, 0 negative misses")
    title = ev.to_text().splitlines()[0]
    assert title == "ScoredPrecisionRecallEvaluation (ties=grouped, weighted)"
    plain = Evaluation()
    plain.add_cases([True, False], [0.9, 0.1])
    assert repr(plain).endswith("with 2 cases, 0 misses, 0 negative misses")


# ---------------------------------------------------------------- paired evaluations
def _paired_data(seed: int, n: int = 120) -> tuple[Any, Any, Any, Any]:
    labels, a, weights = _data(seed, n)
    rng = np.random.default_rng(seed + 100)
    b = np.round(rng.random(n) * 0.7 + 0.3 * labels * rng.random(n), 2)
    return labels, a, b, weights


def _paired(labels: Any, a: Any, b: Any, weights: Any = None) -> Any:
    from rankeval import PairedEvaluation

    paired = PairedEvaluation()
    paired.add_cases(labels, a, b, weights)
    return paired


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_paired_weighted_areas_are_sklearn_sample_weight(seed: int) -> None:
    labels, a, b, weights = _paired_data(seed)
    paired = _paired(labels, a, b, weights)
    assert paired.weighted
    for evaluator, scores in ((paired.a, a), (paired.b, b)):
        expected = metrics.roc_auc_score(labels, scores, sample_weight=weights)
        assert evaluator.area_under_roc_curve() == pytest.approx(expected, abs=1e-12)
    assert paired.num_cases() == pytest.approx(float(weights.sum()), rel=1e-12)


def test_paired_weighted_bootstrap_is_sklearn_on_each_resample() -> None:
    """Each resample's areas are scikit-learn's ``roc_auc_score`` with the drawn cases'
    weights (a case drawn k times weighs k times its weight); the test is D over their
    standard deviation."""
    from rankeval.scored.uncertainty import draws

    labels, a, b, weights = _paired_data(3, 80)
    paired = _paired(labels, a, b, weights)
    resamples = 60
    test = paired.partial_roc_test(fpr=(0.0, 1.0), resamples=resamples, seed=5)
    kept = weights > 0
    y, sa, sb, w = labels[kept], a[kept], b[kept], weights[kept]
    positives, negatives = np.flatnonzero(y), np.flatnonzero(~y)
    rng = np.random.default_rng(5)
    differences = []
    for _ in range(resamples):
        drawn = np.zeros(y.shape[0])
        drawn[positives] = draws(rng, positives.shape[0])
        drawn[negatives] = draws(rng, negatives.shape[0])
        differences.append(metrics.roc_auc_score(y, sa, sample_weight=drawn * w)
                           - metrics.roc_auc_score(y, sb, sample_weight=drawn * w))
    d = (metrics.roc_auc_score(y, sa, sample_weight=w)
         - metrics.roc_auc_score(y, sb, sample_weight=w))
    assert test.difference == pytest.approx(d, abs=1e-12)
    assert test.statistic == pytest.approx(d / np.std(differences, ddof=1), rel=1e-9)


def test_paired_unit_weights_and_zero_weights_change_no_bit() -> None:
    labels, a, b, _ = _paired_data(1)
    plain = _paired(labels, a, b).partial_roc_test(fpr=(0.0, 0.4), resamples=50)
    unit = _paired(labels, a, b, np.ones(labels.shape[0]))
    assert unit.partial_roc_test(fpr=(0.0, 0.4), resamples=50) == plain
    # Zero-weight cases count for nothing: not kept, not drawn.
    extra = np.array([True, False, True])
    with_zeros = _paired(np.concatenate((labels, extra)), np.concatenate((a, [0.5, 0.9, 0.1])),
                         np.concatenate((b, [0.3, 0.2, 0.8])),
                         np.concatenate((np.ones(labels.shape[0]), np.zeros(3))))
    assert with_zeros == unit
    assert with_zeros.partial_roc_test(fpr=(0.0, 0.4), resamples=50) == plain


def test_paired_weighted_refuses_delong_and_bad_weights_add_nothing() -> None:
    labels, a, b, weights = _paired_data(2)
    paired = _paired(labels, a, b, weights)
    with pytest.raises(ValueError, match="DeLong's paired test counts cases"):
        paired.roc_test()
    assert "weighted cases" in paired.to_text()
    assert "weighted" in repr(paired)
    before = paired.to_bytes()
    for bad, error in (([1.0, -1.0], ValueError), ([1.0, math.nan], ValueError),
                       ([1.0, math.inf], ValueError), ([1.0], ValueError),
                       (["a", 1.0], TypeError)):
        with pytest.raises(error):
            paired.add_cases([True, False], [0.3, 0.2], [0.1, 0.4], bad)
    with pytest.raises(ValueError, match="non-negative"):
        paired.add_case(True, 0.3, 0.1, weight=-2.0)
    assert paired.to_bytes() == before


def test_paired_weights_persist_and_merge() -> None:
    from rankeval import PairedEvaluation, PersistenceError, container
    from rankeval.scored import paired as paired_module

    labels, a, b, weights = _paired_data(4)
    paired = _paired(labels, a, b, weights)
    for copy in (PairedEvaluation.from_bytes(paired.to_bytes()),
                 pickle.loads(pickle.dumps(paired))):
        assert copy == paired
        assert copy.weighted
        assert same_bits(copy.a.area_under_roc_curve(), paired.a.area_under_roc_curve())
    # An unweighted evaluation's bytes keep the earlier three sections.
    plain = _paired(labels, a, b)
    assert not PairedEvaluation.from_bytes(plain.to_bytes()).weighted
    # Merging unweighted cases into weighted ones: they weigh 1.
    merged = _paired(labels[:60], a[:60], b[:60], weights[:60])
    merged.merge(_paired(labels[60:], a[60:], b[60:]))
    whole = np.concatenate((weights[:60], np.ones(labels.shape[0] - 60)))
    assert merged == _paired(labels, a, b, whole)
    # A crafted file: a negative weight, a weights flag without its section.
    n = 2
    sections = [bytes([1, 0]), np.array([0.5, 0.2]).tobytes(), np.array([0.1, 0.3]).tobytes()]
    crafted = container.pack(paired_module._MAGIC, paired_module._VERSION,
                             {"cases": n, "weights": True},
                             [*sections, np.array([1.0, -1.0]).tobytes()])
    with pytest.raises(PersistenceError, match="weight"):
        PairedEvaluation.from_bytes(crafted)
    missing = container.pack(paired_module._MAGIC, paired_module._VERSION,
                             {"cases": n, "weights": True}, sections)
    with pytest.raises(PersistenceError, match="sections"):
        PairedEvaluation.from_bytes(missing)


def test_unpaired_delong_refuses_a_weighted_evaluator() -> None:
    """It used to read the weighted ranking's cases as if each weighed 1."""
    from rankeval import roc_test

    labels, scores, weights = _data(5)
    weighted, plain = _weighted(labels, scores, weights), Evaluation(ties="grouped")
    plain.add_cases(labels, scores)
    for pair, name in (((weighted, plain), "a"), ((plain, weighted), "b")):
        with pytest.raises(ValueError, match=f"evaluator {name} holds weighted cases"):
            roc_test(*pair)


def test_report_of_weighted_cases_is_the_weighted_report() -> None:
    """report() gives what an engine's evaluate(weight_col=) of the same rows gives."""
    from rankeval.scored import weighted_parts

    y, s, w = _data(6, 3000)
    ev = _weighted(y, s, w)
    ev.add_misses(2)
    report = ev.report(curve_points=40)
    assert isinstance(report, weighted_parts.WeightedReport)
    engine_like = weighted_parts.evaluate_buckets(s, y, w, np.array([-0.7, -0.4]), 2, 0, 40)
    for mine, theirs in ((report.summary(), ev.summary(())),
                         (report.summary(), engine_like.summary())):
        assert mine.keys() == theirs.keys()
        assert all(same_bits(mine[key], theirs[key]) for key in mine)
    assert same_bits(report.roc_curve(), ev.roc_curve(max_points=40))
    assert same_bits(report.pr_curve(True), engine_like.pr_curve(True))


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_integer_weights_asked_an_analytic_interval_are_frequencies(seed: int) -> None:
    """Asked by name, every analytic interval of integer weights is the repeated cases', bit
    for bit; the default stays the bootstrap, and other weights are refused."""
    from rankeval.scored.reads import interval_methods

    y, s, w = _data(seed, integer=True)
    weighted = _weighted(y, s, w)
    repeated = Evaluation()
    repeated.add_cases(np.repeat(y, w.astype(np.int64)), np.repeat(s, w.astype(np.int64)))
    for ev in (weighted, repeated):
        ev.add_misses(2)
        ev.add_negative_misses(1)
    asked = 0
    for read in READS.values():
        if not read.weighted or read.options:
            continue
        for method in interval_methods().get(read.name, ()):
            if method == "bootstrap":
                continue
            extra = {"threshold": 0.5} if read.name in ("precision", "recall") else {}
            mine = weighted.interval(read.name, method=method, **extra)
            theirs = repeated.interval(read.name, method=method, **extra)
            assert same_bits([mine.value, mine.low, mine.high, mine.std_error],
                             [theirs.value, theirs.low, theirs.high, theirs.std_error]), (
                read.name, method)
            asked += 1
    assert asked >= 10  # the ROC area's, Gini's, AP's two, precision's and recall's five each
    assert weighted.interval("roc_auc", resamples=20).method == "bootstrap"
    halves = _weighted(y, s, w * 0.5 + 0.25)
    with pytest.raises(ValueError, match="applies to integer weights"):
        halves.interval("roc_auc", method="delong")


def test_frequency_percentiles_are_numpys_of_the_repeated_values() -> None:
    """The quantile bins' edges of weighted cases: NumPy's percentiles of the values repeated
    as often as their (integer) weights, bit for bit, without repeating them."""
    from rankeval.scored.calibration import frequency_percentiles

    rng = np.random.default_rng(3)
    for _ in range(400):
        n = int(rng.integers(1, 30))
        values = np.round(rng.random(n), int(rng.integers(1, 4)))
        weights = rng.integers(0, 5, n).astype(np.float64)
        weights[0] += 1.0
        percents = np.linspace(0, 1, int(rng.integers(2, 12))) * 100
        expected = np.percentile(np.repeat(values, weights.astype(np.int64)), percents)
        assert same_bits(frequency_percentiles(values, weights, percents), expected)
