"""ScoredClassifierEvaluation against scikit-learn on random inputs with ties and an absent
category: every multi_class / average mode of roc_auc_score, average_precision_score per
category and averaged, top_k_accuracy_score, and the arg-max confusion matrix."""

from __future__ import annotations

import warnings
from decimal import Decimal

import numpy as np
import pytest
from sklearn.metrics import (
    average_precision_score,
    confusion_matrix,
    roc_auc_score,
    top_k_accuracy_score,
)
from sklearn.preprocessing import label_binarize

from rankeval.scored.classifier import ScoredClassifierEvaluation

NAMES = ["ham", "spam", "promo", "social"]


def _data(seed: int, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 4, n)
    raw = np.round(rng.random((n, 4)) + 0.6 * np.eye(4)[labels], 1)  # ties
    scores = raw / raw.sum(axis=1, keepdims=True)  # probabilities, as sklearn's checks want
    return labels, scores


def _streamed(labels: np.ndarray, scores: np.ndarray) -> ScoredClassifierEvaluation:
    ev = ScoredClassifierEvaluation(NAMES)
    ev.add_case(NAMES[int(labels[0])], scores[0].tolist())
    ev.add_cases([NAMES[i] for i in labels[1:50]], scores[1:50])
    ev.add_cases(labels[50:], scores[50:])  # indices work too
    return ev


@pytest.mark.parametrize("seed", range(8))
def test_roc_auc_in_every_mode_is_sklearns(seed: int) -> None:
    labels, scores = _data(seed)
    ev = _streamed(labels, scores)
    for average in ("macro", "weighted"):
        for multi_class in ("ovr", "ovo"):
            want = roc_auc_score(labels, scores, multi_class=multi_class, average=average)
            assert ev.roc_auc(multi_class, average) == pytest.approx(want, abs=1e-12)
    onehot = np.eye(4, dtype=bool)[labels]
    assert ev.roc_auc("ovr", "micro") == pytest.approx(
        roc_auc_score(onehot, scores, average="micro"), abs=1e-12)
    per = ev.roc_auc("ovr", None)
    assert isinstance(per, dict)
    assert list(per.values()) == pytest.approx(
        list(roc_auc_score(onehot, scores, average=None)), abs=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_average_precision_is_sklearns(seed: int) -> None:
    labels, scores = _data(seed)
    ev = _streamed(labels, scores)
    onehot = np.eye(4, dtype=bool)[labels]
    for average in ("macro", "weighted", "micro"):
        assert ev.average_precision(average) == pytest.approx(
            average_precision_score(onehot, scores, average=average), abs=1e-12)
    per = ev.average_precision(None)
    assert isinstance(per, dict)
    assert list(per.values()) == pytest.approx(
        list(average_precision_score(onehot, scores, average=None)), abs=1e-12)
    for name, j in zip(NAMES, range(4), strict=True):
        assert ev.category(name).average_precision() == pytest.approx(per[name], abs=1e-15)
        assert ev.category(name).area_under_roc_curve() == pytest.approx(
            roc_auc_score(onehot[:, j], scores[:, j]), abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_top_k_accuracy_and_confusion_are_sklearns(seed: int) -> None:
    labels, scores = _data(seed)
    ev = _streamed(labels, scores)
    for k in (1, 2, 3):
        assert ev.top_k_accuracy(k) == pytest.approx(
            top_k_accuracy_score(labels, scores, k=k, labels=range(4)), abs=1e-15)
    assert ev.top_k_accuracy(4) == 1.0  # every category is in the top 4
    matrix = confusion_matrix(labels, np.argmax(scores, axis=1), labels=range(4))
    confusion = ev.confusion()
    for i, a in enumerate(NAMES):
        for j, b in enumerate(NAMES):
            assert confusion.count(a, b) == matrix[i, j]


def test_an_absent_category_is_nan_with_a_warning_never_an_error() -> None:
    labels, scores = _data(1)
    present = labels != 3  # "social" never the true category
    ev = ScoredClassifierEvaluation(NAMES)
    ev.add_cases(labels[present], scores[present])
    with pytest.warns(RuntimeWarning, match=r"'social' \(no positive\)"):
        per = ev.roc_auc("ovr", None)
    assert isinstance(per, dict)
    assert np.isnan(per["social"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        macro = ev.roc_auc()
        ovo = ev.roc_auc("ovo")
    assert macro == pytest.approx(np.mean([per[n] for n in NAMES[:3]]), abs=1e-15)
    # Hand & Till over the three pairs of present categories, each side by sklearn.
    y, s = labels[present], scores[present]
    pairs = []
    for a in range(3):
        for b in range(a + 1, 3):
            mask = (y == a) | (y == b)
            pairs.append((roc_auc_score(y[mask] == a, s[mask, a])
                          + roc_auc_score(y[mask] == b, s[mask, b])) / 2)
    assert ovo == pytest.approx(np.mean(pairs), abs=1e-12)


def test_bad_input_is_refused_and_leaves_the_evaluation_alone() -> None:
    ev = ScoredClassifierEvaluation(NAMES)
    ev.add_case("ham", [0.7, 0.1, 0.1, 0.1])
    with pytest.raises(ValueError, match="one column per category"):
        ev.add_cases(["ham"], [[0.5, 0.5]])
    with pytest.raises(ValueError, match="unknown category 'eggs'"):
        ev.add_cases(["ham", "eggs"], [[0.1] * 4, [0.2] * 4])
    with pytest.raises(ValueError, match="NaN"):
        ev.add_cases(["ham"], [[float("nan"), 0.1, 0.1, 0.1]])
    with pytest.raises(ValueError, match="at least two categories"):
        ScoredClassifierEvaluation(["only"])
    assert ev.num_cases() == 1


@pytest.mark.parametrize("seed", range(6))
def test_multi_label_is_sklearns_multilabel_indicator(seed: int) -> None:
    rng = np.random.default_rng(seed)
    members = rng.random((200, 4)) < 0.35
    members[:4] = np.eye(4, dtype=bool)  # every category has positives and negatives
    scores = np.round(rng.random((200, 4)) + 0.5 * members, 1)
    ev = ScoredClassifierEvaluation(NAMES, multi_label=True)
    ev.add_cases(members[:50].astype(int), scores[:50])
    ev.add_cases(members[50:], scores[50:])
    for average in ("macro", "weighted", "micro"):
        assert ev.roc_auc(average=average) == pytest.approx(
            roc_auc_score(members, scores, average=average), abs=1e-12)
        assert ev.average_precision(average) == pytest.approx(
            average_precision_score(members, scores, average=average), abs=1e-12)
    assert ev.category("promo").area_under_roc_curve() == pytest.approx(
        roc_auc_score(members[:, 2], scores[:, 2]), abs=1e-12)
    for refused in (lambda: ev.roc_auc("ovo"), lambda: ev.top_k_accuracy(1), ev.confusion):
        with pytest.raises(ValueError, match="multi_label"):
            refused()
    with pytest.raises(ValueError, match="0/1 matrix"):
        ev.add_cases(["ham"], [[0.1] * 4])


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("norm", ["l1", "l2", "max"])
def test_multi_class_calibration_is_sklearn_and_torchmetrics(seed: int, norm: str) -> None:
    import torch
    from sklearn.metrics import brier_score_loss, log_loss

    labels, scores = _data(seed)
    ev = _streamed(labels, scores)
    assert ev.brier_score() == pytest.approx(brier_score_loss(labels, scores), abs=1e-12)
    assert ev.log_loss() == pytest.approx(log_loss(labels, scores, labels=range(4)), abs=1e-12)
    got = ev.calibration_error(bins=10, norm=norm)
    # torchmetrics' MulticlassCalibrationError casts the confidences to float32, which moves
    # scores lying on bin edges; its own computation fed the top-label confidences in
    # float64 is the oracle, to 1e-12.
    from torchmetrics.functional.classification.calibration_error import _ce_compute

    top = torch.tensor(scores, dtype=torch.float64).max(dim=1)
    correct = top.indices.eq(torch.tensor(labels)).to(torch.float64)
    assert got == pytest.approx(float(_ce_compute(top.values, correct, 10, norm)), abs=1e-12)
    per = ev.category("spam").calibration_error(bins=10)  # one category's own, a binary read
    assert per >= 0.0


def test_merge_is_the_cases_of_both() -> None:
    labels, scores = _data(2)
    a, b = ScoredClassifierEvaluation(NAMES), ScoredClassifierEvaluation(NAMES)
    a.add_cases(labels[:100], scores[:100])
    b.add_cases(labels[100:], scores[100:])
    a.merge(b)
    assert a.num_cases() == labels.shape[0]
    assert a.roc_auc("ovo") == pytest.approx(
        roc_auc_score(labels, scores, multi_class="ovo"), abs=1e-12)
    with pytest.raises(ValueError, match="other categories"):
        a.merge(ScoredClassifierEvaluation(NAMES[:3]))


def _same_cases(a: ScoredClassifierEvaluation, b: ScoredClassifierEvaluation) -> bool:
    (la, sa), (lb, sb) = a._arrays(), b._arrays()
    return (a.categories, a.ties, a.multi_label) == (b.categories, b.ties, b.multi_label) and \
        np.array_equal(la, lb) and np.array_equal(sa, sb)


@pytest.mark.parametrize("multi_label", [False, True])
def test_save_load_and_pickle_keep_every_case(tmp_path: object, multi_label: bool) -> None:
    import pathlib
    import pickle

    labels, scores = _data(4, 120)
    ev = ScoredClassifierEvaluation(NAMES, ties="insertion", multi_label=multi_label)
    ev.add_cases(np.eye(4, dtype=bool)[labels] | (scores > 0.4) if multi_label else labels,
                 scores)
    path = pathlib.Path(str(tmp_path)) / "classifier.rkc"
    ev.save(path)
    for back in (ScoredClassifierEvaluation.load(path), pickle.loads(pickle.dumps(ev))):
        assert _same_cases(back, ev)
        assert back.roc_auc(average=None) == ev.roc_auc(average=None)
    empty = ScoredClassifierEvaluation(NAMES)
    assert _same_cases(ScoredClassifierEvaluation.from_bytes(empty.to_bytes()), empty)


def _crafted(data: bytes, **changes: str) -> bytes:
    """``data`` with metadata members replaced (raw JSON text) and a valid checksum."""
    import hashlib
    import json

    from rankeval import container

    _, version, meta_len = container._HEADER.unpack_from(data)
    start = container._HEADER.size
    meta = json.loads(data[start:start + meta_len])
    text = json.dumps(meta, sort_keys=True)
    for key, raw in changes.items():
        text = text.replace(f'"{key}": {json.dumps(meta[key])}', f'"{key}": {raw}')
    body = (container._HEADER.pack(data[:8], version, len(text.encode())) + text.encode()
            + data[start + meta_len:-32])
    return body + hashlib.sha256(body).digest()


@pytest.mark.parametrize(("changes", "message"), [
    ({"cases": "5"}, "do not hold 5 cases"),
    ({"cases": "-1"}, "not a count"),
    ({"labels": '"i8"'}, "labels stored as 'i8'"),
    ({"categories": '["a"]'}, "at least two categories"),
    ({"categories": '["a", "a", "b", "c"]'}, "distinct"),
    ({"ties": '"random"'}, "ties"),
    ({"multi_label": "1"}, "multi_label a boolean"),
])
def test_crafted_classifier_files_are_refused(changes: dict[str, str], message: str) -> None:
    from rankeval import PersistenceError

    labels, scores = _data(5, 20)
    ev = ScoredClassifierEvaluation(NAMES)
    ev.add_cases(labels, scores)
    data = ev.to_bytes()
    with pytest.raises(PersistenceError, match=message):
        ScoredClassifierEvaluation.from_bytes(_crafted(data, **changes))
    with pytest.raises(PersistenceError, match="checksum mismatch"):
        ScoredClassifierEvaluation.from_bytes(data[:40] + bytes([data[40] ^ 1]) + data[41:])
    with pytest.raises(PersistenceError, match="not a rankeval classifier file"):
        ScoredClassifierEvaluation.from_bytes(b"\x89RKQ\r\n\x1a\n" + data[8:])
    # A category code out of range, or a NaN score, in a file with a valid checksum.
    codes = 20 + len(_crafted(data).split(b"}", 1)[0]) + 1  # the labels section's start
    bad = bytearray(data[:-32])
    bad[codes:codes + 2] = (7).to_bytes(2, "little")
    import hashlib

    with pytest.raises(PersistenceError, match="category index 7"):
        ScoredClassifierEvaluation.from_bytes(bytes(bad) + hashlib.sha256(bad).digest())


def test_threads_adding_and_reading_lose_no_case() -> None:
    import threading

    labels, scores = _data(6, 4000)
    ev = ScoredClassifierEvaluation(NAMES)
    chunks = np.array_split(np.arange(labels.shape[0]), 40)
    errors: list[BaseException] = []

    def add(part: list[np.ndarray]) -> None:
        try:
            for rows in part:
                ev.add_cases(labels[rows], scores[rows])
                ev.roc_auc()  # a read between adds sees a consistent state
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=add, args=(chunks[i::4],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert ev.num_cases() == labels.shape[0]
    # Grouped ties: the values do not depend on the order the threads added in.
    assert ev.roc_auc(average=None) == pytest.approx(
        dict(zip(NAMES, roc_auc_score(labels, scores, multi_class="ovr", average=None),
                 strict=True)), abs=1e-12)


def test_keys_keep_their_identity_and_scores_are_real_numbers() -> None:
    """Fixed: names and indices passed through np.asarray were changed."""
    ev = ScoredClassifierEvaluation(["0", "1", "a", "a\x00"])
    row = [[0.1, 0.2, 0.3, 0.4]] * 2
    with pytest.raises(TypeError, match="mixes names and integers"):
        ev.add_cases(["0", 1], row)  # "1" would have been the category of case 1
    with pytest.raises(TypeError, match="one category per case, got one str"):
        ev.add_cases("ab", row)
    ev.add_cases(["a\x00", "a"], row)  # the trailing NUL is kept
    assert ev.category("a\x00").num_positive_ref() == 1
    assert ev.category("a").num_positive_ref() == 1
    for bad in ([["0.1", 0.2, 0.3, 0.4]], [[True, 0.2, 0.3, 0.4]],
                [[Decimal("0.1"), 0.2, 0.3, 0.4]], np.array([["0.1", "0.2", "0.3", "0.4"]])):
        with pytest.raises(TypeError, match=r"real number|dtype"):
            ev.add_cases(["a"], bad)
    assert ev.num_cases() == 2


def test_integer_categories_are_named_by_value() -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(10, 13, 200)
    s = rng.random((200, 3)).round(1) + 0.05
    s /= s.sum(axis=1, keepdims=True)  # scikit-learn's multi-class area wants probabilities
    ev = ScoredClassifierEvaluation([10, 11, 12])
    ev.add_cases(y, s)
    ev.add_cases(y.tolist(), s)  # a list of ints: values too, never indices
    yy, ss = np.concatenate([y, y]), np.concatenate([s, s])
    assert ev.roc_auc() == pytest.approx(
        roc_auc_score(yy, ss, multi_class="ovr", labels=[10, 11, 12]), abs=1e-12)
    assert ev.category(11).num_positive_ref() == int((yy == 11).sum())
    with pytest.raises(ValueError, match="unknown category 0"):
        ev.add_cases([0], s[:1])
    with pytest.raises(TypeError, match=r"all names .* or all integers"):
        ScoredClassifierEvaluation([1, "b"])


def test_many_absent_categories_warn_once_a_call() -> None:
    ev = ScoredClassifierEvaluation([f"c{i}" for i in range(300)])
    rng = np.random.default_rng(0)
    ev.add_cases(rng.integers(0, 3, 50), rng.random((50, 300)))
    for read in (lambda: ev.roc_auc("ovo"), lambda: ev.roc_auc(), ev.average_precision):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            read()
        assert len(caught) == 1, [str(w.message) for w in caught]
        assert "297 of 300 categories" in str(caught[0].message)


def test_macro_ap_of_an_absent_category_is_the_documented_rule() -> None:
    """The rule of the docs: a category with no positive is NaN and left out of the averages
    (as for the ROC area). scikit-learn scores it 0 and keeps it in the macro mean."""
    y = np.array([0, 1, 0, 1, 0, 1])
    s = np.random.default_rng(5).random((6, 3))
    ev = ScoredClassifierEvaluation(["a", "b", "c"])
    ev.add_cases(y, s)
    onehot = label_binarize(y, classes=[0, 1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = ev.average_precision()
        theirs = average_precision_score(onehot, s, average=None)
    assert theirs[2] == 0.0
    assert ours == pytest.approx(np.mean(theirs[:2]), abs=1e-15)
    assert ours * 2 / 3 == pytest.approx(np.mean(theirs), abs=1e-15)  # the docs' conversion


def test_summary_and_reprs_show_the_values() -> None:
    labels, scores = _data(2)
    ev = ScoredClassifierEvaluation(NAMES)
    ev.add_cases(labels, scores)
    summary = ev.summary()
    onehot = label_binarize(labels, classes=range(len(NAMES)))
    assert summary["cases"] == labels.shape[0]
    assert summary["roc_auc"] == pytest.approx(
        roc_auc_score(labels, scores, multi_class="ovr"), abs=1e-12)
    assert summary["roc_auc_ovo"] == pytest.approx(
        roc_auc_score(labels, scores, multi_class="ovo"), abs=1e-12)
    assert summary["average_precision_micro"] == pytest.approx(
        average_precision_score(onehot, scores, average="micro"), abs=1e-12)
    assert summary["top_1_accuracy"] == pytest.approx(
        top_k_accuracy_score(labels, scores, k=1), abs=1e-12)
    assert repr(ev) == (f"ScoredClassifierEvaluation(categories={list(NAMES)!r}, "
                        f"ties='grouped', cases={labels.shape[0]})")
    cm = ev.confusion().confusion_matrix()
    counts = confusion_matrix(labels, np.argmax(scores, axis=1))
    assert repr(cm).endswith(np.array2string(counts, separator=", ") + ")")
