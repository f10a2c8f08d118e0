"""Every code block of the README and the docs runs and shows what it prints.

* ``python`` blocks are doctests (``>>>``), run page by page from the repository root;
* ``console`` blocks are commands (``$ rankeval ...``) run as one bash script from an empty
  directory (the bundled files by ``$(rankeval data)``, never a checkout's path), their output
  compared byte for byte;
* ``sh`` blocks are install lines: each ``make`` target must exist in the Makefile and each
  ``pip install`` extra in pyproject.toml (installing is what ``make test`` and ``make dist``
  do for real);
* ``text`` blocks are literal text; a block of any other kind, or a ``python`` block without
  ``>>>``, fails.

The numbers the pages show are then recomputed here by the oracles (scikit-learn, statsmodels,
an O(n^2) DeLong) on the same data.
"""

from __future__ import annotations

import doctest
import importlib.util
import math
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import (
    average_precision_score,
    brier_score_loss,
    precision_recall_curve,
    precision_score,
    recall_score,
    roc_auc_score,
    top_k_accuracy_score,
)

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in DOCS.rglob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)


def _blocks(page: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in FENCE.finditer((ROOT / page).read_text("utf-8"))]


@pytest.mark.parametrize("page", PAGES)
def test_every_block_is_of_a_kind_that_runs(page: str) -> None:
    for kind, body in _blocks(page):
        assert kind in ("python", "console", "sh", "text"), (page, kind, body[:80])
        if kind == "python":
            assert ">>> " in body, (page, "a python block must be a doctest", body[:80])
        if kind == "console":
            assert body.startswith("$ "), (page, body[:80])


@pytest.mark.parametrize("page", [p for p in PAGES if any(kind == "sh" for kind, _ in
                                                         _blocks(p))])
def test_install_lines_name_real_targets_and_extras(page: str) -> None:
    targets = set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(), re.M))
    section = (ROOT / "pyproject.toml").read_text().split("[project.optional-dependencies]")[1]
    extras = set(re.findall(r"^([a-z][\w-]*) = \[", section.split("\n[")[0], re.M))
    for kind, body in _blocks(page):
        if kind != "sh":
            continue
        for line in body.splitlines():
            command = line.split("#", 1)[0].strip()
            if not command:
                continue
            words = shlex.split(command)
            if words[0] == "make":
                assert set(words[1:]) <= targets, (page, command)
            else:
                assert words[:2] == ["pip", "install"], (page, command)
                for spec in words[2:]:
                    # The distribution's name (rankeval is another project's on the index).
                    found = re.fullmatch(r"(?:rankeval-exact|\.|-e \.)(?:\[([\w,]+)\])?", spec)
                    assert found, (page, spec)
                    assert set((found.group(1) or "").split(",")) - {""} <= extras, (page, spec)


@pytest.mark.parametrize("page", [p for p in PAGES if ">>> " in (ROOT / p).read_text("utf-8")])
def test_the_page_runs_as_shown(page: str, monkeypatch: pytest.MonkeyPatch,
                                request: pytest.FixtureRequest) -> None:
    if "rankeval import spark" in (ROOT / page).read_text("utf-8"):
        request.getfixturevalue("spark")  # the suite's one Spark session, stopped at the end
    monkeypatch.chdir(ROOT)
    result = doctest.testfile(str(ROOT / page), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def _console(page: str) -> list[tuple[list[str], str]]:
    """Each console block's commands (the lines after ``$ ``) and the output they print."""
    found = []
    for kind, body in _blocks(page):
        if kind == "console":
            commands, output = [], []
            for chunk in re.split(r"^\$ ", body, flags=re.M)[1:]:
                command, _, printed = chunk.partition("\n")
                commands.append(command)
                output.append(printed)
            found.append((commands, "".join(output)))
    return found


def run_console(commands: list[str], bin_dir: Path, cwd: Path,
                environ: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """A console block's commands, one bash script (a variable set by one line is seen by the
    next), with ``rankeval`` the one in ``bin_dir``, from ``cwd`` (no checkout's files)."""
    for command in commands:
        words = shlex.split(command)
        assert words[0] == "rankeval" or re.fullmatch(r"\w+=\$\(rankeval [^)]*\)", command), \
            command
    base = os.environ if environ is None else environ
    env = {**base, "PATH": f"{bin_dir}{os.pathsep}{base.get('PATH', '')}"}
    script = "set -e -o pipefail\n" + "\n".join(commands) + "\n"
    return subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True, check=False)


@pytest.mark.parametrize(("page", "commands", "output"),
                         [(p, c, o) for p in PAGES for c, o in _console(p)])
def test_console_commands_print_what_the_page_shows(page: str, commands: list[str],
                                                    output: str, tmp_path: Path) -> None:
    done = run_console(commands, Path(sys.executable).parent, tmp_path)
    assert (done.returncode, done.stderr) == (0, ""), page
    assert done.stdout == output


def test_the_bundled_trec_example_is_its_script_output() -> None:
    spec = importlib.util.spec_from_file_location(
        "make_trec_example", ROOT / "rankeval" / "data" / "make_trec_example.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, text in module.trec_example().items():
        assert (ROOT / "rankeval" / "data" / name).read_text("utf-8") == text


# ---------------------------------------------------------------------------------------------
# the pages' numbers, by the oracles


def _delong(labels: np.ndarray, scores: np.ndarray) -> tuple[float, float]:
    """The ROC area and DeLong's standard error, from the O(n^2) matrix of pairs (1988)."""
    pos, neg = scores[labels], scores[~labels]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    auc = float(psi.mean())
    return auc, math.sqrt(v10.var(ddof=1) / pos.size + v01.var(ddof=1) / neg.size)


def _z() -> float:
    from scipy.stats import norm

    return float(norm.ppf(0.975))


def test_the_home_page_shows_the_oracles_numbers() -> None:
    rng = np.random.default_rng(0)
    labels = rng.random(1000) < 0.3
    scores = labels + rng.normal(0.0, 1.0, 1000)
    assert round(roc_auc_score(labels, scores), 4) == 0.766
    assert round(average_precision_score(labels, scores), 4) == 0.5774
    auc, se = _delong(labels, scores)
    assert (round(auc - _z() * se, 4), round(auc + _z() * se, 4)) == (0.7339, 0.7981)


def test_the_classifier_loop_page_shows_the_oracles_numbers() -> None:
    from statsmodels.stats.proportion import proportion_confint

    rng = np.random.default_rng(1)
    batches = []
    for _ in range(10):
        labels = rng.random(500) < 0.2
        scores = np.round(1 / (1 + np.exp(-(2 * labels - 1 + rng.normal(0, 1.2, 500)))), 3)
        batches.append((labels, scores))
    labels = np.concatenate([b[0] for b in batches])
    scores = np.concatenate([b[1] for b in batches])
    assert int(labels.sum()) == 973
    assert round(roc_auc_score(labels, scores), 4) == 0.8746
    assert round(average_precision_score(labels, scores), 4) == 0.681
    auc, se = _delong(labels, scores)
    assert (round(auc - _z() * se, 4), round(auc + _z() * se, 4)) == (0.8625, 0.8868)
    low, high = proportion_confint(91, 100, method="wilson")  # P@100 = 0.91, no tie at 100
    assert (round(low, 4), round(high, 4)) == (0.8377, 0.9519)
    # The paired test's difference of areas (its p-value: tests/test_roc_test.py).
    pair = rng.random(2000) < 0.3
    a = pair + rng.normal(0, 1.0, 2000)
    b = pair + rng.normal(0, 1.6, 2000)
    assert round(roc_auc_score(pair, a) - roc_auc_score(pair, b), 4) == 0.072
    names = np.array([0, 1, 2, 1])
    probabilities = np.array([[0.7, 0.2, 0.1], [0.3, 0.6, 0.1], [0.2, 0.2, 0.6],
                              [0.5, 0.4, 0.1]])
    assert roc_auc_score(names, probabilities, multi_class="ovr") == 1.0
    assert top_k_accuracy_score(names, probabilities, k=1) == 0.75
    onehot = np.eye(3)[names]
    assert round(float(((probabilities - onehot) ** 2).sum(axis=1).mean()), 4) == 0.315


def test_the_classifier_loop_pages_weighted_numbers_are_scikit_learns() -> None:
    rng = np.random.default_rng(7)
    n = 200_000
    labels = rng.random(n) < 0.01
    scores = np.round(1 / (1 + np.exp(-(4 * labels - 5 + rng.normal(0, 1.5, n)))), 3)
    keep = labels | (rng.random(n) < 0.05)
    weights = np.where(labels, 1.0, 20.0)[keep]
    y, s = labels[keep], scores[keep]
    for measure, shown in ((average_precision_score, [0.8988, 0.5597, 0.5484]),
                           (brier_score_loss, [0.0861, 0.0067, 0.0067])):
        assert [round(measure(y, s), 4), round(measure(y, s, sample_weight=weights), 4),
                round(measure(labels, scores), 4)] == shown
    assert (float(weights[y].sum()), float(weights[~y].sum())) == (1960.0, 197480.0)
    assert round(roc_auc_score(y, s), 4) == 0.9719
    assert round(roc_auc_score(y, s, sample_weight=weights), 4) == 0.9719
    # The best F1 threshold of the weighted sample, and what it gives on the full stream.
    precision, recall, thresholds = precision_recall_curve(y, s, sample_weight=weights)
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.nan_to_num(2 * precision * recall / (precision + recall))[:-1]
    best = int(np.argmax(f1))
    assert (thresholds[best], round(precision[best], 4), round(recall[best], 4)) == (
        0.247, 0.5989, 0.5332)
    predicted = scores >= thresholds[best]
    assert (round(precision_score(labels, predicted), 4),
            round(recall_score(labels, predicted), 4)) == (0.5313, 0.5332)


def test_the_data_lake_page_shows_the_oracles_numbers() -> None:
    rng = np.random.default_rng(7)
    labels = rng.random(20_000) < 0.25
    scores = np.round(labels + rng.normal(0, 1, 20_000), 2)
    country = rng.choice(["de", "fr", "it"], 20_000)
    assert round(roc_auc_score(labels, scores), 4) == 0.7652
    assert round(average_precision_score(labels, scores), 4) == 0.5278
    auc, se = _delong(labels, scores)
    assert round(auc - _z() * se, 4) == 0.7576
    got = [[c, float((country == c).sum()), round(roc_auc_score(labels[country == c],
                                                                 scores[country == c]), 4)]
           for c in ("de", "fr", "it")]
    assert got == [["de", 6707.0, 0.7605], ["fr", 6645.0, 0.7685], ["it", 6648.0, 0.7663]]
    # the decision reads: F2's best threshold, sensitivity at specificity 0.9, KS, max_fpr
    from scipy.stats import ks_2samp
    from sklearn.metrics import precision_recall_curve, roc_curve

    precision, recall, thresholds = precision_recall_curve(labels, scores)
    with np.errstate(invalid="ignore"):
        f2 = 5 * precision * recall / (4 * precision + recall)
    best = int(np.nanargmax(f2))
    assert (thresholds[best], round(f2[best], 4)) == (-0.25, 0.6696)
    above = scores >= -0.25
    assert (int((above & labels).sum()), int((above & ~labels).sum())) == (4450, 8953)
    fpr, tpr, cuts = roc_curve(labels, scores, drop_intermediate=False)
    assert cuts[np.argmax(np.where(1 - fpr >= 0.9, tpr, -1.0))] == 1.29
    assert round(ks_2samp(scores[labels], scores[~labels]).statistic, 4) == 0.3979
    assert round(roc_auc_score(labels, scores, max_fpr=0.1), 4) == 0.6034
    # weighted rows: one negative kept in twenty, weighing 20
    weights = np.where(labels, 1.0, 20.0)
    assert round(roc_auc_score(labels, scores, sample_weight=weights), 4) == 0.7652
    assert round(average_precision_score(labels, scores, sample_weight=weights), 4) == 0.0679
    assert weights.sum() == 305817.0


def _trec_file(name: str, run: bool) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for line in (ROOT / "rankeval" / "data" / name).read_text().splitlines():
        fields = line.split()
        value = float(fields[4]) if run else int(fields[3])
        out.setdefault(fields[0], {})[fields[2]] = value
    return out


def test_the_ir_pages_show_pytrec_evals_numbers() -> None:
    """The README's and the IR guide's numbers, by pytrec_eval (trec_eval 9.0.8-2020)."""
    import pytrec_eval

    def means(qrels: object, run: object, measures: set[str]) -> dict[str, float]:
        per_query = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
        names = next(iter(per_query.values()))
        return {m: sum(q[m] for q in per_query.values()) / len(per_query) for m in names}

    small = means({"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1}},
                  {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d5": 2.0, "d4": 1.0}},
                  {"map", "P_2", "recip_rank"})
    assert (small["map"], small["P_2"], small["recip_rank"]) == (0.6666666666666666, 0.5, 0.75)
    per_query = pytrec_eval.RelevanceEvaluator(
        {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1}}, {"map", "recip_rank"}).evaluate(
        {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d5": 2.0, "d4": 1.0}})
    assert [float(np.average([per_query[q][m] for q in ("q1", "q2")], weights=[3, 1]))
            for m in ("map", "recip_rank")] == [0.75, 0.875]
    qrels = _trec_file("example.qrels", run=False)
    wanted = {"map", "P_5", "P_10", "ndcg_cut_10"}
    bm25 = means(qrels, _trec_file("bm25.run", run=True), wanted)
    dense = means(qrels, _trec_file("dense.run", run=True), wanted)
    assert [f"{bm25[m]:.4f}" for m in ("map", "P_5", "P_10", "ndcg_cut_10")] == [
        "0.7228", "0.9280", "0.8120", "0.7512"]
    assert [f"{dense[m]:.4f}" for m in ("map", "ndcg_cut_10")] == ["0.8584", "0.8951"]


def test_the_categories_page_shows_the_oracles_numbers() -> None:
    """docs/categories.md's example, recomputed by scikit-learn."""
    labels = np.array([0, 1, 2, 1, 0, 2])
    scores = np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4],
                       [0.4, 0.4, 0.2], [0.5, 0.1, 0.4], [0.2, 0.6, 0.2]])
    onehot = np.eye(3, dtype=bool)[labels]
    assert list(roc_auc_score(onehot, scores, average=None)) == [1.0, 0.75, 0.625]
    assert round(roc_auc_score(labels, scores, multi_class="ovr"), 4) == 0.7917
    assert round(roc_auc_score(labels, scores, multi_class="ovo"), 4) == 0.7917
    assert average_precision_score(onehot, scores, average="micro") == 0.6875
    assert round(top_k_accuracy_score(labels, scores, k=1), 4) == 0.8333
    assert top_k_accuracy_score(labels, scores, k=2) == 1.0
    y = np.array([1, 0, 1, 1, 0])
    p = np.array([0.9, 0.4, 0.7, 0.3, 0.2])
    assert round(brier_score_loss(y, p), 4) == 0.158
    # The segments example: de holds (T, 0.9), (F, 0.3), (T, 0.2); fr (T, 0.8), (F, 0.1).
    assert roc_auc_score([1, 0, 1], [0.9, 0.3, 0.2]) == 0.5
    assert roc_auc_score([1, 0], [0.8, 0.1]) == 1.0
    prob_true, prob_pred = calibration_curve(y, p, n_bins=2)
    assert (prob_true.round(4).tolist(), prob_pred.round(4).tolist()) == ([0.3333, 1.0],
                                                                          [0.3, 0.8])


def test_the_intervals_page_shows_the_oracles_numbers() -> None:
    from statsmodels.stats.proportion import proportion_confint

    labels = np.array([True, False, True, False, True])
    scores = np.array([0.9, 0.8, 0.7, 0.4, 0.3])
    auc, se = _delong(labels, scores)
    assert (auc, round(se, 12)) == (0.5, round(1 / 3, 12))
    low, high = proportion_confint(2, 3, method="wilson")  # P@3: 2 of 3
    assert (round(low, 4), round(high, 4)) == (0.2077, 0.9385)


def test_the_service_page_shows_hand_computed_numbers() -> None:
    """a + b: positives 0.9, 0.3, 0.1 and negatives 0.8, 0.4; only 0.9 outranks them: 2 of 6
    pairs. The count window's last three cases: 0.8 (negative), 0.7 (positive), 0.1
    (negative): the positive beats one of two negatives."""
    assert roc_auc_score([1, 0, 1, 0, 1], [0.9, 0.4, 0.3, 0.8, 0.1]) == pytest.approx(1 / 3)
    assert roc_auc_score([0, 1, 0], [0.8, 0.7, 0.1]) == 0.5


def test_the_readmes_links_work_outside_the_repository() -> None:
    """Fixed: the package index shows the README away from the repository, where a
    relative link breaks. Every link is absolute (or an anchor), and each one into this
    repository names a file that exists."""
    from urllib.parse import urlparse

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r'^Source = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert found
    source = found.group(1)
    links = re.findall(r"\]\(([^)\s]+)\)", readme)
    assert links
    for link in links:
        assert link.startswith(("https://", "#")), link
        if link.startswith(source + "/blob/main/"):
            path = urlparse(link).path.split("/blob/main/", 1)[1]
            assert (ROOT / path).exists(), link


def test_the_migration_pages_numbers_are_the_peers() -> None:
    """docs/migration.md shows our values beside the peers' calls: each is the peer's."""
    from sklearn.metrics import average_precision_score, roc_auc_score

    y, s = [1, 0, 1, 1, 0], [0.9, 0.8, 0.8, 0.3, 0.1]
    page = (ROOT / "docs" / "migration.md").read_text()
    assert f"\n{roc_auc_score(y, s)}\n" in page
    assert f"\n{round(average_precision_score(y, s), 4)}\n" in page
    import pytrec_eval

    qrels = {"q1": {"d1": 1, "d3": 1}}
    run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_5", "recip_rank"}).evaluate(run)
    assert f"({round(theirs['q1']['map'], 4)}, {theirs['q1']['P_5']})" in page
    assert f"({theirs['q1']['recip_rank']}, {theirs['q1']['P_5']})" in page


def test_the_threshold_page_shows_the_oracles_numbers() -> None:
    """docs/choosing-a-threshold.md, recomputed by scikit-learn, scipy, torchmetrics and
    pROC's algorithm (ported in tests/test_decisions.py)."""
    import torch
    from scipy.stats import ks_2samp
    from sklearn.metrics import confusion_matrix, precision_recall_curve, roc_curve
    from torchmetrics.classification import BinarySensitivityAtSpecificity

    from tests.test_decisions import proc_coords, proc_partial_auc, proc_roc

    rng = np.random.default_rng(3)
    labels = rng.random(5000) < 0.1
    scores = np.round(1 / (1 + np.exp(-(3 * labels - 2 + rng.normal(0, 1.3, 5000)))), 3)
    assert int(labels.sum()) == 562
    tn, fp, fn, tp = confusion_matrix(labels, scores >= 0.5).ravel().tolist()
    assert (tp, fn, fp, tn) == (439, 123, 277, 4161)
    assert (round(tp / (tp + fp), 4), round(tp / (tp + fn), 4)) == (0.6131, 0.7811)
    fpr, tpr, thresholds = roc_curve(labels, scores)
    best = int(np.argmax(tpr - fpr))  # the first maximum: the highest threshold
    assert (thresholds[best], round(tpr[best] - fpr[best], 4)) == (0.377, 0.7635)
    assert (round(tpr[best], 4), round(1 - fpr[best], 4)) == (0.8879, 0.8756)
    precision, recall, cuts = precision_recall_curve(labels, scores)
    with np.errstate(invalid="ignore"):
        f1 = np.nan_to_num(2 * precision * recall / (precision + recall))[:-1]
    assert (cuts[int(np.argmax(f1))], round(float(f1.max()), 4)) == (0.605, 0.7046)
    distinct = np.unique(scores)[::-1]
    costs = [(np.sum(~labels & (scores >= t)) * 1.0 + np.sum(labels & (scores < t)) * 20.0)
             / 5000 for t in distinct]
    cheapest = int(np.argmin(costs))
    assert (distinct[cheapest], round(costs[cheapest], 4)) == (0.323, 0.3392)
    value, threshold = BinarySensitivityAtSpecificity(min_specificity=0.95, thresholds=None)(
        torch.tensor(scores, dtype=torch.float64), torch.tensor(labels.astype(np.int64)))
    assert (round(float(threshold), 3), round(float(value), 4)) == (0.548, 0.7331)
    se, sp = proc_roc(labels, scores)
    assert round(proc_coords(sp, se, 0.95, decreasing=False), 4) == 0.7348
    assert round(proc_partial_auc(se, sp, 1.0, 0.9, "specificity"), 4) == 0.0704
    assert round(roc_auc_score(labels, scores, max_fpr=0.1), 4) == 0.8442
    assert round(ks_2samp(scores[labels], scores[~labels]).statistic, 4) == 0.7635
    ranked = np.sort(scores)[::-1]
    edge = ranked[499]  # the 500th case: its tie block shares its positives pro rata
    above = scores > edge
    block = scores == edge
    share = (500 - above.sum()) / block.sum()
    positives = (labels & above).sum() + share * (labels & block).sum()
    assert round(positives / 562 / 0.1, 4) == 6.605
    ends = [ranked[k * 5000 // 5 - 1] for k in range(1, 6)]  # a group takes its last tie block
    taken = [int(np.sum(scores >= e)) for e in ends]
    hits = [int(np.sum(labels & (scores >= e))) for e in ends]
    assert np.diff([0, *taken]).tolist() == [1001, 1001, 1003, 1014, 981]
    assert np.diff([0, *hits]).tolist() == [492, 49, 14, 6, 1]
    assert [round(h / 562 / (t / 5000), 3) for h, t in zip(hits, taken, strict=True)] == [
        4.373, 2.404, 1.643, 1.242, 1.0]


def test_the_scikit_learn_page_shows_torchmetrics_choice() -> None:
    """docs/scikit-learn.md: the grid's pick by sensitivity at specificity 0.9, recomputed
    fold by fold with torchmetrics' BinarySensitivityAtSpecificity."""
    import torch
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold
    from torchmetrics.classification import BinarySensitivityAtSpecificity

    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 3))
    y = (x @ np.array([1.0, -0.5, 0.3]) + rng.normal(0, 1.2, 600) > 0.4).astype(int)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    means = []
    for c in (0.001, 0.01, 1.0):
        folds = []
        for train, test in cv.split(x, y):
            proba = LogisticRegression(C=c).fit(x[train], y[train]).predict_proba(x[test])[:, 1]
            value, _ = BinarySensitivityAtSpecificity(min_specificity=0.9, thresholds=None)(
                torch.tensor(proba, dtype=torch.float64), torch.tensor(y[test]))
            folds.append(float(value))
        means.append(np.mean(folds))
    assert (0.001, 0.01, 1.0)[int(np.argmax(means))] == 0.001


def test_the_pytorch_page_shows_scikit_learns_area() -> None:
    labels = [1, 0, 0, 1, 1]
    scores = [0.9, 0.2, 0.7, 0.4, 0.8]
    assert roc_auc_score(labels, scores) == pytest.approx(0.8333333333333334, abs=1e-15)
    assert 5 / 6 == 0.8333333333333334  # by hand: five of the six pairs ordered right


def test_the_ir_datasets_page_shows_pytrec_evals_map() -> None:
    import pytrec_eval

    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d1": 1}}
    run = {"q1": {"d1": 3.5, "d3": 2.0}, "q2": {"d2": 1.0}}
    values = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    assert np.mean([v["map"] for v in values.values()]) == 0.5


def test_the_mlflow_page_shows_scikit_learns_values() -> None:
    labels, scores = [1, 0, 1, 0, 1], [0.9, 0.8, 0.7, 0.4, 0.3]
    assert roc_auc_score(labels, scores) == 0.5
    assert average_precision_score(labels, scores) == pytest.approx(0.7555555555555555,
                                                                    abs=1e-15)
