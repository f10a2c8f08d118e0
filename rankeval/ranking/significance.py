"""Comparing systems: means, paired significance tests, corrections, effect sizes, tables.

:func:`compare` evaluates several runs against one set of qrels with the same measures
(trec_eval's names or ir_measures'), and for every measure and every pair of runs tests
whether their per-query values differ:

* ``"t-test"``: Student's paired t-test, two-sided (:func:`scipy.stats.ttest_rel`), with
  its confidence interval for the mean difference.
* ``"randomization"``: Fisher's randomization test (Smucker et al., CIKM 2007): the two
  systems' values are swapped query by query, and the p-value is the share of swap patterns
  whose summed difference is at least as large in magnitude as the observed one: every
  pattern when there are at most ``permutations`` of them (exact), else ``permutations``
  random ones, p = (k + 1) / (B + 1). The confidence interval is the t-test's.
* ``"bootstrap"``: the paired bootstrap test (shift method): the differences, centred on 0,
  are resampled with replacement ``permutations`` times, and the p-value is
  (k + 1) / (B + 1) for the k resampled means at least as large in magnitude as the observed
  one; the interval is scipy's BCa bootstrap interval (:func:`scipy.stats.bootstrap`).
* ``"wilcoxon"``: Wilcoxon's signed-rank test (:func:`scipy.stats.wilcoxon`, zero
  differences dropped); ``"sign"``: the sign test (an exact binomial test of the positive
  against the negative differences, :func:`scipy.stats.binomtest`). Both test a median or a
  share, not the mean difference that the measures average: Smucker, Allan & Carterette
  (CIKM 2007) advise against them for comparing retrieval systems; they are here for
  comparison with published work. Their interval is the t-test's.
* ``"tukey"``: Tukey's honestly significant difference over all the systems at once, for
  queries as blocks (Carterette, TOIS 2012): the residual mean square of the two-way
  analysis of variance (systems x queries, no interaction), ``q = |mean_a - mean_b| /
  sqrt(MSE / n)`` and its p-value from the studentized range distribution with k systems and
  (k - 1)(n - 1) degrees of freedom (:data:`scipy.stats.studentized_range`); the interval is
  ``d ± q_crit·sqrt(MSE / n)``. Its p-values already hold the family-wise error over the
  pairs, so ``correction`` is not applied to them.

Undefined cases, one rule: identical systems (every difference 0) have p = 1 under every
test. One query, or the same nonzero difference on every query (a zero spread), leave the
tests that weigh the difference against its spread nothing to weigh it against: the t-test,
the bootstrap and Tukey's HSD (one query, or a zero residual spread) give NaN (undefined).
(The bootstrap's resampled centred differences would all be 0, calling one query significant
at p = 1/(B + 1).) The randomization, sign and signed-rank tests stay defined there: their
null distributions come from the signs and ranks alone, whatever the spread (three queries
with one difference: the randomization p is exactly 2/8).

Each system's mean also gets a percentile bootstrap interval over its per-query values
(``permutations`` resamples from ``seed``): :attr:`Comparison.mean_intervals`.

"At least as large" is decided in exact arithmetic, not after rounding: per-query values
that tie (P@10 in tenths, reciprocal ranks) give swapped or resampled sums that are equal in
exact arithmetic but may differ in the last bits as floats, and counting those as smaller
only ever lowers p. A sum counts as at least the observed one when it falls short by less
than the largest rounding error its terms can make (n·8ε times the largest difference).

For each measure the p-values of all pairs form one family, adjusted by ``correction``:
``"holm"`` (Holm-Bonferroni, step-down) or ``"bonferroni"`` (both control the family-wise
error), or ``"bh"`` (Benjamini-Hochberg, step-up: controls the false discovery rate). A
difference is significant when its adjusted p-value is at most ``alpha``. Effect size:
Cohen's d for paired samples (d_z), the mean difference over the standard deviation of the
differences.

The per-query values come from :func:`rankeval.ranking.evaluate_run` with the same options
for every run; the runs are compared over the queries evaluated (the qrels' queries each
run has, or all of them with ``complete=True``), which must be the same for every run.

scipy is needed (``pip install rankeval-exact[stats]``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from rankeval.checks import check_choice, check_int, check_real
from rankeval.intervals import Interval
from rankeval.ranking.evaluate import check_query_weights, evaluate_run
from rankeval.ranking.inputs import QrelsLike, RunLike, as_qrels

__all__ = ["Comparison", "PairTest", "compare"]

Test = Literal["t-test", "randomization", "bootstrap", "wilcoxon", "sign", "tukey"]
Correction = Literal["holm", "bonferroni", "bh", "none"]
TESTS: tuple[Test, ...] = ("t-test", "randomization", "bootstrap", "wilcoxon", "sign", "tukey")
#: The tests that take ``query_weights``: they resample the queries, each keeping its weight.
WEIGHTED_TESTS: tuple[Test, ...] = ("randomization", "bootstrap")
CORRECTIONS: tuple[Correction, ...] = ("holm", "bonferroni", "bh", "none")
FloatArray = NDArray[np.float64]

_SUPERSCRIPTS = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ𐞥ʳˢᵗᵘᵛʷˣʸᶻ")


@dataclass(frozen=True)
class PairTest:
    """One measure, two systems: ``first`` minus ``second``.

    Attributes
    ----------
    measure, first, second : str
    difference : float
        Mean of the per-query differences (first - second).
    p_value, adjusted_p : float
        The test's two-sided p-value, and after the correction for the measure's pairs.
    significant : bool
        ``adjusted_p <= alpha`` (never for a NaN p-value: the t-test of a difference that is
        the same on every query, or of a single query, is undefined).
    effect_size : float
        Cohen's d_z: mean difference / standard deviation of the differences (NaN if that
        deviation is 0).
    low, high : float
        Confidence interval for the mean difference at level 1 - alpha.
    level : float
        That interval's level (1 - alpha).
    method : str
        The test (``"t-test"``, ``"bootstrap"``, ...).
    """

    measure: str
    first: str
    second: str
    difference: float
    p_value: float
    adjusted_p: float
    significant: bool
    effect_size: float
    low: float
    high: float
    level: float = math.nan
    method: str = ""

    @property
    def interval(self) -> Interval:
        """The mean difference and its interval, as the one :class:`~rankeval.Interval`."""
        return Interval(self.difference, self.low, self.high, self.level, self.method)

    def to_text(self, digits: int = 4) -> str:
        """One line: the measure, the pair, the difference with its interval, the p-values."""
        from rankeval._text import number

        verdict = "significant" if self.significant else "not significant"
        return (f"{self.measure}: {self.first} - {self.second} = "
                f"{number(self.difference, digits)} [{number(self.low, digits)}, "
                f"{number(self.high, digits)}], p {number(self.p_value, digits)} (adjusted "
                f"{number(self.adjusted_p, digits)}), {verdict}\n")


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare` (immutable).

    Attributes
    ----------
    systems : tuple of str
        Run names, in the order given.
    measures : tuple of str
        Result columns (one per cutoff: ``"P_5"``, ``"nDCG@10"``...).
    means : mapping of (system, measure) to float
        Each system's aggregate (trec_eval's, or ir_measures' for its names).
    tests : tuple of PairTest
        Every measure and pair, in measure order then pair order.
    test, correction : str
    alpha : float
    queries : tuple of str
        The queries compared.
    mean_intervals : mapping of (system, measure) to Interval
        The 1 - alpha percentile bootstrap interval of each system's mean over the queries.
    """

    systems: tuple[str, ...]
    measures: tuple[str, ...]
    means: Mapping[tuple[str, str], float]
    tests: tuple[PairTest, ...]
    test: Test
    correction: Correction
    alpha: float
    queries: tuple[str, ...]
    mean_intervals: Mapping[tuple[str, str], Interval] = field(default_factory=dict)

    def better_than(self, system: str, measure: str) -> list[str]:
        """Systems that ``system`` beats significantly on ``measure`` (higher mean).

        Complexity: O(pairs).
        """
        out = []
        for t in self.tests:
            if t.measure != measure or not t.significant:
                continue
            if t.first == system and t.difference > 0:
                out.append(t.second)
            elif t.second == system and t.difference < 0:
                out.append(t.first)
        return sorted(out, key=self.systems.index)

    def _rows(self, digits: int, superscript: bool) -> list[list[str]]:
        letters = {s: chr(ord("a") + i) for i, s in enumerate(self.systems)}
        rows = []
        for system in self.systems:
            row = [letters[system] if len(self.systems) <= 26 else "", system]
            for measure in self.measures:
                value = f"{self.means[system, measure]:.{digits}f}"
                beaten = "".join(letters[s] for s in self.better_than(system, measure))
                row.append(value + (beaten.translate(_SUPERSCRIPTS) if superscript else
                                    (f"^{{{beaten}}}" if beaten else "")))
            rows.append(row)
        return rows

    def _caption(self) -> str:
        correction = ("" if self.correction == "none" or self.test == "tukey"
                      else f", {self.correction} correction")
        return (f"{self.test}{correction}, alpha {self.alpha:g}, {len(self.queries)} queries; "
                "a letter marks a system significantly worse than the row's")

    def to_text(self, digits: int = 4) -> str:
        """An aligned table: means, with superscript letters of the systems beaten.

        Complexity: O(systems x measures x pairs).
        """
        header = ["#", "system", *self.measures]
        rows = [header, *self._rows(digits, True)]
        widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                 for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join([*lines, self._caption()]) + "\n"

    def to_markdown(self, digits: int = 4) -> str:
        """A Markdown table (superscript letters as in :meth:`to_text`).

        Complexity: as :meth:`to_text`.
        """
        header = ["#", "system", *self.measures]
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(r) + " |" for r in self._rows(digits, True)]
        return "\n".join([*lines, "", self._caption()]) + "\n"

    def to_latex(self, digits: int = 4) -> str:
        """A LaTeX ``tabular`` (letters as ``^{ab}``), with the caption as a comment.

        Complexity: as :meth:`to_text`.
        """
        def tex(text: str) -> str:
            return text.replace("_", r"\_").replace("&", r"\&").replace("%", r"\%")

        header = ["", "system", *map(tex, self.measures)]
        lines = [r"\begin{tabular}{ll" + "r" * len(self.measures) + "}", r"\hline",
                 " & ".join(header) + r" \\", r"\hline"]
        for row in self._rows(digits, False):
            cells = [row[0], tex(row[1])] + [f"${c}$" for c in row[2:]]
            lines.append(" & ".join(cells) + r" \\")
        lines += [r"\hline", r"\end{tabular}", f"% {self._caption()}"]
        return "\n".join(lines) + "\n"

    def to_frame(self, backend: str = "pandas") -> Any:
        """Every pair test as a table, one row each (narwhals and ``backend`` needed).

        Columns are :class:`PairTest`'s fields; ``backend`` is ``"pandas"``, ``"polars"``
        or ``"pyarrow"``.

        Complexity: O(pairs x measures).
        """
        from rankeval.ranking.frames import to_frame

        fields = list(PairTest.__dataclass_fields__)
        return to_frame({f: [getattr(t, f) for t in self.tests] for f in fields}, backend)

    def to_dataframe(self) -> Any:
        """:meth:`to_frame` with pandas."""
        return self.to_frame("pandas")

    def __str__(self) -> str:
        return self.to_text()


def compare(
    qrels: QrelsLike,
    runs: Mapping[str, RunLike] | Sequence[RunLike],
    measures: str | Iterable[str] = ("map",),
    *,
    test: Test = "t-test",
    correction: Correction = "holm",
    alpha: float = 0.05,
    permutations: int = 10_000,
    seed: int = 0,
    **options: Any,
) -> Comparison:
    """Evaluate several runs and test every pair of them on every measure.

    Parameters
    ----------
    qrels : Qrels, mapping or path
        The judgments, first as everywhere.
    runs : mapping of name to run, or sequence of runs
        Two or more. A sequence names them ``run_1``, ``run_2``, ... (or after their run id
        when read from files and distinct).
    measures : str or iterable of str
        trec_eval or ir_measures names (see :func:`rankeval.ranking.evaluate_run`).
    test : {"t-test", "randomization", "bootstrap", "wilcoxon", "sign", "tukey"}
    correction : {"holm", "bonferroni", "bh", "none"}
        Over the pairs of each measure.
    alpha : float
        Significance level, in (0, 1); intervals are at 1 - alpha.
    permutations : int
        Resamples of the randomization and bootstrap tests.
    seed : int
        Their random seed: the same seed gives the same p-values.
    options
        :func:`rankeval.ranking.evaluate_run`'s options, the same for every run.
        ``query_weights`` (a mapping of every query to a finite weight >= 0) weighs the
        queries: the means, their intervals and the differences are weighted means
        (``sum(w v) / sum(w)``), and the test must be ``"randomization"`` (the swaps flip the
        weighted differences) or ``"bootstrap"`` (the queries resampled with their weights;
        the interval of the difference its percentile interval, and Cohen's d_z the weighted
        mean over the weighted deviation, reliability weights). The t-test, Wilcoxon's,
        the sign test and Tukey's HSD count queries, and refuse weights.

    Notes
    -----
    Complexity: the evaluations, plus O(pairs x measures x permutations x queries).

    Examples
    --------
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    >>> good = {"q1": {"a": 2.0, "x": 1.0}, "q2": {"b": 2.0, "x": 1.0}, "q3": {"c": 2.0, "x": 1.0}}
    >>> bad = {"q1": {"a": 1.0, "x": 2.0}, "q2": {"b": 1.0, "x": 2.0}, "q3": {"c": 1.0, "x": 2.0}}
    >>> c = compare(qrels, {"good": good, "bad": bad}, "recip_rank", test="randomization")
    >>> c.tests[0].difference, c.tests[0].p_value  # 2 of the 8 swap patterns as extreme
    (0.5, 0.25)
    """
    query_weights = options.pop("query_weights", None)
    stats = _scipy_stats()
    test = check_choice(test, "test", TESTS)
    if query_weights is not None:
        check_query_weights(query_weights)
        if test not in WEIGHTED_TESTS:
            raise ValueError(f"query_weights take test='randomization' or 'bootstrap': "
                             f"the {test} counts queries, weighing each alike")
    correction = check_choice(correction, "correction", CORRECTIONS)
    alpha = check_real(alpha, "alpha")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")
    permutations = check_int(permutations, "permutations", minimum=1)
    seed = check_int(seed, "seed", minimum=0)
    named = _named_runs(runs)
    qrels_obj = as_qrels(qrels)
    evaluations = {name: evaluate_run(qrels_obj, run, measures, **options)
                   for name, run in named.items()}
    if query_weights is not None:
        evaluations = {name: ev.weighted(query_weights) for name, ev in evaluations.items()}
    first = next(iter(evaluations.values()))
    weights = None if query_weights is None else first.weights
    for name, ev in evaluations.items():
        if ev.queries != first.queries:
            raise ValueError(
                f"run {name!r} is evaluated on other queries than {next(iter(named))!r}; "
                "compare runs over the same queries (complete=True scores the missing ones 0)"
            )
    columns = tuple(c for c in first.columns if c in first.values)
    systems = tuple(evaluations)
    tests: list[PairTest] = []
    for measure in columns:
        raw = []
        if test == "tukey":
            raw = _tukey(stats, systems, [evaluations[s].values[measure] for s in systems],
                         alpha)
        for i, a in enumerate(systems):
            for b in systems[i + 1 :] if test != "tukey" else ():
                x, y = evaluations[a].values[measure], evaluations[b].values[measure]
                raw.append((a, b, *(_test(stats, test, x, y, alpha, permutations, seed)
                                    if weights is None else
                                    _weighted_test(test, x, y, weights, alpha, permutations,
                                                   seed))))
        adjusted = ([r[3] for r in raw] if test == "tukey"
                    else _adjust([r[3] for r in raw], correction))
        for (a, b, diff, p, d, low, high), q in zip(raw, adjusted, strict=True):
            tests.append(PairTest(measure, a, b, diff, p, q, q <= alpha, d, low, high,
                                  1.0 - alpha, test))
    means = {(s, m): float(evaluations[s].aggregates[m]) for s in systems for m in columns}
    intervals = {(s, m): mean_interval(evaluations[s].values[m], means[s, m], 1.0 - alpha,
                                       permutations, seed, weights)
                 for s in systems for m in columns}
    return Comparison(systems, columns, means, tuple(tests), test, correction, alpha,
                      first.queries, MappingProxyType(intervals))


def _scipy_stats() -> Any:
    try:
        import scipy.stats
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            "rankeval.compare needs scipy: pip install 'rankeval-exact[stats]'"
        ) from None
    return scipy.stats


def _named_runs(runs: Mapping[str, RunLike] | Sequence[RunLike]) -> dict[str, RunLike]:
    if isinstance(runs, Mapping):
        named = {str(k): v for k, v in runs.items()}
        if len(named) < len(runs):  # 1 and "1" name two runs but print alike
            seen: dict[str, object] = {}
            for key in runs:
                if str(key) in seen:
                    raise ValueError(f"two runs are named {str(key)!r} ({seen[str(key)]!r} and "
                                     f"{key!r}): give them names that print differently")
                seen[str(key)] = key
    elif isinstance(runs, (str, bytes)) or not isinstance(runs, Sequence):
        raise TypeError("runs must be a mapping of names to runs or a sequence of runs")
    else:
        named = {f"run_{i + 1}": run for i, run in enumerate(runs)}
    if len(named) < 2:
        raise ValueError(f"compare needs at least two runs, got {len(named)}")
    return named


def _spread(diff: FloatArray) -> float:
    """The differences' standard deviation: NaN for one, exactly 0 for equal ones (fixed: the
    mean's rounding could leave ``np.std`` a last-bit residue, and scipy then found p ~ 0)."""
    if diff.size < 2:
        return math.nan
    return 0.0 if bool(np.all(diff == diff[0])) else float(np.std(diff, ddof=1))


def _test(stats: Any, test: Test, x: FloatArray, y: FloatArray, alpha: float,
          permutations: int, seed: int) -> tuple[float, float, float, float, float]:
    """(mean difference, p-value, effect size, interval low, interval high)."""
    diff = x - y
    mean = float(np.mean(diff))
    spread = _spread(diff)
    effect = mean / spread if spread else math.nan
    if not diff.any():  # identical systems: nothing to test (scipy would divide 0 by 0)
        return mean, 1.0, effect, 0.0, 0.0
    if not spread or diff.size < 2:
        # One query, or the same difference on every query (a zero spread): the tests that
        # weigh the difference against its spread (the t-test, the bootstrap) are undefined
        # (NaN); the interval is that difference.
        if test in ("t-test", "bootstrap"):
            return mean, math.nan, effect, mean, mean
        low = high = mean
        t_p = math.nan
    else:
        t = stats.ttest_rel(x, y, alternative="two-sided")
        low, high = (float(v) for v in t.confidence_interval(confidence_level=1.0 - alpha))
        t_p = float(t.pvalue)
    if test in ("t-test", "wilcoxon", "sign"):
        if test == "t-test":
            return mean, t_p, effect, low, high
        if test == "wilcoxon":
            nonzero = diff[diff != 0]
            p = float(stats.wilcoxon(nonzero).pvalue) if nonzero.size else 1.0
        else:
            above, below = int(np.count_nonzero(diff > 0)), int(np.count_nonzero(diff < 0))
            p = float(stats.binomtest(above, above + below, 0.5).pvalue)
        return mean, p, effect, low, high
    rng = np.random.default_rng(seed)
    if test == "randomization":
        return mean, randomization_p(diff, permutations, rng), effect, low, high
    # Paired bootstrap, shift method: resample the centred differences.
    p = bootstrap_p(diff, permutations, rng)
    if low == high:  # constant differences: every resample has the same mean
        return mean, p, effect, low, high
    interval = stats.bootstrap((diff,), np.mean, confidence_level=1.0 - alpha,
                               n_resamples=permutations, random_state=rng, method="BCa")
    return (mean, p, effect, float(interval.confidence_interval.low),
            float(interval.confidence_interval.high))


def _weighted_test(test: Test, x: FloatArray, y: FloatArray, weights: FloatArray,
                   alpha: float, permutations: int, seed: int
                   ) -> tuple[float, float, float, float, float]:
    """:func:`_test` with each query weighted (randomization and bootstrap): (weighted mean
    difference, p-value, weighted d_z, the bootstrap interval's low and high)."""
    diff = x - y
    total = float(weights.sum())
    if total == 0.0:
        return math.nan, math.nan, math.nan, math.nan, math.nan
    mean = float(np.dot(weights, diff)) / total
    # The reliability-weights variance: with equal weights, the sample variance (ddof 1).
    squares = float(np.dot(weights, (diff - mean) ** 2))
    denominator = total - float(np.dot(weights, weights)) / total
    spread = math.sqrt(squares / denominator) if denominator > 0 else math.nan
    effect = mean / spread if spread else math.nan
    if not (weights * diff).any():  # no weighted difference: nothing to test
        return mean, 1.0, effect, mean, mean
    rng = np.random.default_rng(seed)
    p = (randomization_p(weights * diff, permutations, rng) if test == "randomization"
         else bootstrap_p(diff, permutations, rng, weights))
    found = mean_interval(diff, mean, 1.0 - alpha, permutations, seed, weights)
    return mean, p, effect, found.low, found.high


def _tukey(stats: Any, systems: tuple[str, ...], values: list[FloatArray], alpha: float
           ) -> list[tuple[str, str, float, float, float, float, float]]:
    """Tukey's HSD for queries as blocks: every pair's (a, b, mean difference, p-value,
    effect size, low, high)."""
    table = np.vstack(values)  # systems x queries
    k, n = table.shape
    if n < 2:  # no spread to estimate: every p-value and bound undefined, as the t-test's;
        # identical systems have p = 1 (fixed: they were NaN beside a differing system)
        return [(a, systems[j], float(table[i, 0] - table[j, 0]),
                 1.0 if table[i, 0] == table[j, 0] else math.nan, math.nan, math.nan,
                 math.nan) for i, a in enumerate(systems) for j in range(i + 1, k)]
    residual = (table - table.mean(axis=1, keepdims=True) - table.mean(axis=0, keepdims=True)
                + table.mean())
    df = (k - 1) * (n - 1)
    # Residuals within the rounding error of the means are a zero spread in exact
    # arithmetic (the same difference on every query), not a tiny one that makes p = 0.
    rounding = 8.0 * (k + n) * float(np.finfo(np.float64).eps) * float(np.abs(table).max())
    if float(np.abs(residual).max()) <= rounding:
        residual = np.zeros_like(residual)
    mse = float((residual**2).sum()) / df
    scale = math.sqrt(mse / n)
    crit = float(stats.studentized_range.ppf(1.0 - alpha, k, df)) if scale else 0.0
    out = []
    for i, a in enumerate(systems):
        for j in range(i + 1, k):
            diff = table[i] - table[j]
            mean = float(diff.mean())
            spread = _spread(diff)
            effect = mean / spread if spread else math.nan
            if scale == 0.0:  # zero spread: undefined, as in the paired tests
                p = 1.0 if not diff.any() else math.nan
            else:
                p = float(stats.studentized_range.sf(abs(mean) / scale, k, df))
            out.append((a, systems[j], mean, p, effect, mean - crit * scale,
                        mean + crit * scale))
    return out


def mean_interval(values: FloatArray, mean: float, level: float, resamples: int,
                  seed: int, weights: FloatArray | None = None) -> Interval:
    """The percentile bootstrap interval of the mean of per-query ``values`` (the queries
    resampled with replacement), its standard error the resampled means' deviation. With
    ``weights``, each resample's weighted mean (a resample whose weights are all 0 has none,
    and is left out).

    >>> i = mean_interval(np.array([0.2, 0.4, 0.6, 0.8]), 0.5, 0.9, 2000, 0)
    >>> 0.2 <= i.low < 0.5 < i.high <= 0.8
    True

    Complexity: O(B · n).
    """
    n = values.size
    if n == 0:
        return Interval(mean, math.nan, math.nan, level, "bootstrap", math.nan)
    rng = np.random.default_rng(seed)
    means = np.empty(resamples, dtype=np.float64)
    for start, count in _blocks_of(resamples, n):
        draws = rng.integers(0, n, size=(count, n))
        means[start:start + count] = (values[draws].mean(axis=1) if weights is None
                                      else _weighted_means(values, weights, draws))
    means = means[np.isfinite(means)] if weights is not None else means
    if means.size == 0:
        return Interval(mean, math.nan, math.nan, level, "bootstrap", math.nan)
    low, high = np.quantile(means, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    return Interval(mean, float(low), float(high), level, "bootstrap",
                    float(np.std(means, ddof=1)) if means.size > 1 else math.nan)


def _weighted_means(values: FloatArray, weights: FloatArray, draws: NDArray[Any]) -> FloatArray:
    """Each resample's weighted mean of ``values`` (a row of ``draws`` a resample of the
    queries); NaN for a resample whose weights are all 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        means: FloatArray = (weights[draws] * values[draws]).sum(axis=1) / weights[draws].sum(
            axis=1)
    return means


def _slack(diff: FloatArray) -> float:
    """How far below the observed sum a swapped or resampled sum may fall and still equal it
    in exact arithmetic: more than the rounding of a sum of n terms of at most max|d|."""
    return 8.0 * np.finfo(np.float64).eps * diff.size * float(np.max(np.abs(diff)))


# Swap patterns handled at once (rows of signs times queries stay near 4 MB).
_PATTERNS_AT_ONCE = 1 << 19


def _blocks_of(total: int, n: int) -> Iterator[tuple[int, int]]:
    """``(start, rows)`` of the blocks of ``total`` patterns (or resamples) of ``n`` queries
    handled at once: about :data:`_PATTERNS_AT_ONCE` cells a block."""
    step = max(1, _PATTERNS_AT_ONCE // max(n, 1))
    for start in range(0, total, step):
        yield start, min(total - start, step)


def randomization_p(diff: FloatArray, permutations: int, rng: np.random.Generator) -> float:
    """Two-sided p-value of Fisher's randomization test of the paired differences ``diff``.

    Exact when the 2**n swap patterns are at most ``permutations``: the share of them whose
    summed difference is at least the observed one in magnitude. Otherwise ``permutations``
    random patterns and (k + 1) / (B + 1).

    >>> randomization_p(np.array([0.1, -0.1, 0.1, -0.1]), 100, np.random.default_rng(0))
    1.0

    Complexity: O(min(2**n, B) · n).
    """
    n = diff.size
    observed = abs(float(diff.sum()))
    slack = _slack(diff)
    if n < 63 and 2**n <= permutations:
        count = 0
        codes = np.arange(2**n, dtype=np.int64)
        for start, rows in _blocks_of(2**n, n):
            block = codes[start:start + rows]
            signs = 1.0 - 2.0 * ((block[:, None] >> np.arange(n)) & 1)
            count += int(np.count_nonzero(np.abs(signs @ diff) >= observed - slack))
        return float(count / 2**n)
    count = 0
    for _, rows in _blocks_of(permutations, n):
        signs = rng.choice(np.array([-1.0, 1.0]), size=(rows, n))
        count += int(np.count_nonzero(np.abs(signs @ diff) >= observed - slack))
    return (count + 1) / (permutations + 1)


def bootstrap_p(diff: FloatArray, resamples: int, rng: np.random.Generator,
                weights: FloatArray | None = None) -> float:
    """Two-sided p-value of the paired bootstrap test (shift method): the centred
    differences resampled ``resamples`` times, (k + 1) / (B + 1) for the k resampled sums at
    least the observed one in magnitude. With ``weights``: the differences centred on their
    weighted mean, and each resample's weighted mean against the observed weighted mean (a
    resample whose weights are all 0 counts as not extreme).

    >>> round(bootstrap_p(np.array([0.2, 0.1, 0.1, 0.2, -0.1]), 999,
    ...                   np.random.default_rng(0)), 3) > 0.05
    True

    Complexity: O(B · n).
    """
    n = diff.size
    if weights is not None:
        mean = float(np.dot(weights, diff)) / float(weights.sum())
        centred = diff - mean
        slack = _slack(diff) + _slack(centred)
        count = 0
        for _, rows in _blocks_of(resamples, n):
            means = _weighted_means(centred, weights, rng.integers(0, n, size=(rows, n)))
            count += int(np.count_nonzero(np.abs(means) >= abs(mean) - slack))
        return (count + 1) / (resamples + 1)
    centred = diff - diff.mean()
    observed = abs(float(diff.sum()))
    slack = _slack(diff) + _slack(centred)
    count = 0
    for _, rows in _blocks_of(resamples, n):
        draws = rng.integers(0, n, size=(rows, n))
        count += int(np.count_nonzero(np.abs(centred[draws].sum(axis=1)) >= observed - slack))
    return (count + 1) / (resamples + 1)


def _adjust(p_values: list[float], correction: Correction) -> list[float]:
    """Adjusted p-values, capped at 1: Holm's step-down or Bonferroni (family-wise error), or
    Benjamini-Hochberg's step-up (false discovery rate; statsmodels' ``fdr_bh``).

    >>> _adjust([0.01, 0.04, 0.03], "holm")
    [0.03, 0.06, 0.06]
    >>> _adjust([0.01, 0.04, 0.03], "bonferroni")
    [0.03, 0.12, 0.09]
    >>> _adjust([0.01, 0.04, 0.03], "bh")  # min over j >= rank of p_(j) m / j
    [0.03, 0.04, 0.04]

    Complexity: O(m log m).
    """
    # An undefined (NaN) p-value stays undefined and is not one of the family's tests.
    tested = [i for i, p in enumerate(p_values) if not math.isnan(p)]
    m = len(tested)
    adjusted = list(p_values)
    if correction == "none" or m == 0:
        return adjusted
    if correction == "bonferroni":
        for i in tested:
            adjusted[i] = min(1.0, p_values[i] * m)
        return adjusted
    ordered = sorted(tested, key=p_values.__getitem__)
    if correction == "bh":
        running = 1.0
        for rank in range(m, 0, -1):  # step-up: from the largest p down
            i = ordered[rank - 1]
            running = min(running, p_values[i] * m / rank)
            adjusted[i] = running
        return adjusted
    running = 0.0
    for rank, i in enumerate(ordered):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted
