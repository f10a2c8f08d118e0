"""Pictures of an evaluation: the precision-recall and ROC curves (with operating points and
a band marked where asked), reliability, and the curves for decisions (DET, gains, lift, cost,
decision curves).

Everything drawn is what the evaluation returns (``pr_curve``, ``roc_curve``, their areas and
``pr_breakeven_point``, ``det_curve``, ...); nothing is recomputed here. matplotlib is
imported only when a function is called, so ``import rankeval`` never needs it; install it
with ``pip install 'rankeval-exact[plot]'``.

Typical use::

    from rankeval import ScoredPrecisionRecallEvaluation
    from rankeval.plotting import save_plot

    evaluation = ScoredPrecisionRecallEvaluation()
    evaluation.add_cases(labels, scores)
    save_plot(evaluation, "curves.png")   # PR beside ROC, 1200 x 600 pixels
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from numpy.typing import NDArray

from rankeval.files import atomic_output

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_cost_curve", "plot_decision_curve", "plot_det", "plot_evaluation",
           "plot_gains", "plot_lift", "plot_pr", "plot_reliability", "plot_roc",
           "require_matplotlib", "save_plot"]

_INSTALL_HINT = "rankeval.plotting needs matplotlib: pip install 'rankeval-exact[plot]'"
#: Curves with at most this many points show a marker at each point; longer ones are lines.
_MARKER_LIMIT = 60
_FORMATS = (".png", ".svg")


class Plottable(Protocol):
    """What the plotting functions read from an evaluation."""

    def pr_curve(self, interpolate: bool = False) -> NDArray[np.float64]: ...
    def roc_curve(self, interpolate: bool = False) -> NDArray[np.float64]: ...
    def area_under_pr_curve(self, interpolate: bool = False) -> float: ...
    def area_under_roc_curve(self, interpolate: bool = False) -> float: ...
    def pr_breakeven_point(self) -> float: ...
    def num_positive_ref(self) -> int: ...


def require_matplotlib() -> None:
    """Raise ImportError with the install command when matplotlib is missing.

    Complexity: O(1) once matplotlib is imported.
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError as error:
        raise ImportError(_INSTALL_HINT) from error


def _number(value: float) -> str:
    """Three decimals for a legend, or NaN."""
    return "NaN" if math.isnan(value) else f"{value:.3f}"


def _square_unit_axes(ax: Axes, xlabel: str, ylabel: str, title: str) -> None:
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_box_aspect(1.0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.set_xticks(np.linspace(0.0, 1.0, 6))
    ax.set_yticks(np.linspace(0.0, 1.0, 6))
    ax.grid(True, color="0.85", linewidth=0.6)
    ax.set_axisbelow(True)


def _draw_both(
    ax: Axes, curve: Callable[[bool], Any], area: Callable[[bool], float], area_name: str
) -> None:
    """The uninterpolated and interpolated curves, each with its area in the legend."""
    for interpolate, color, width, style, name in (
        (False, "C0", 1.3, "-", "uninterpolated"),
        (True, "C1", 1.8, "--", "interpolated"),
    ):
        _draw(
            ax,
            curve(interpolate),
            color=color,
            linewidth=width,
            linestyle=style,
            label=f"{name} ({area_name} {_number(area(interpolate))})",
        )


def _draw(ax: Axes, curve: NDArray[np.float64], **style: Any) -> None:
    """One curve; points at 0 or 1 sit on the frame, so they are not clipped."""
    if curve.shape[0] <= _MARKER_LIMIT:
        style.setdefault("marker", "o")
        style.setdefault("markersize", 3.5)
    ax.plot(curve[:, 0], curve[:, 1], clip_on=False, **style)


def _axes(ax: Axes | None) -> Axes:
    if ax is not None:
        return ax
    require_matplotlib()
    import matplotlib.pyplot as plt

    return plt.gca()


def plot_pr(evaluation: Plottable, ax: Axes | None = None, *, mark: Any = None) -> Axes:
    """Draw the precision-recall curve, raw and interpolated, and mark the break-even point.

    The raw curve is ``evaluation.pr_curve(False)``, the interpolated one
    ``pr_curve(True)`` (precision = the best precision at equal or higher recall); the
    legend gives each area (``area_under_pr_curve``). The break-even point
    ``b = pr_breakeven_point()`` is where precision equals recall, so it is marked at
    ``(b, b)`` on the dotted diagonal P = R.

    Parameters
    ----------
    evaluation : ScoredPrecisionRecallEvaluation
        Or anything with the same curve methods.
    ax : matplotlib Axes, optional
        Where to draw; the current pyplot Axes by default.
    mark : OperatingPoint or list of them, optional
        Operating points to mark at their (recall, precision).

    Returns
    -------
    matplotlib Axes
        ``ax``, with recall on x and precision on y, both on [0, 1], square.

    Undefined when: with no positives (R = 0) recall is NaN, so only the limit points are
    drawn, and no break-even point is marked (its value, 1.0 by LingPipe's convention, is
    not a point of any curve).

    Complexity: O(m) for m curve points (drawing dominates).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from rankeval import ScoredPrecisionRecallEvaluation
    >>> evaluation = ScoredPrecisionRecallEvaluation()
    >>> evaluation.add_cases([True, False, True, False], [0.9, 0.8, 0.7, 0.1])
    >>> ax = plot_pr(evaluation, Figure().subplots())
    >>> [line.get_label() for line in ax.lines][1:]
    ['uninterpolated (area 0.792)', 'interpolated (area 0.917)', 'break-even point (P = R = 0.500)']
    """
    ax = _axes(ax)
    _square_unit_axes(ax, "Recall", "Precision", "Precision-recall curve")
    ax.plot([0.0, 1.0], [0.0, 1.0], linestyle=":", color="0.6", linewidth=0.9)
    _draw_both(ax, evaluation.pr_curve, evaluation.area_under_pr_curve, "area")
    breakeven = evaluation.pr_breakeven_point()
    if evaluation.num_positive_ref() > 0 and math.isfinite(breakeven):
        ax.plot(
            [breakeven],
            [breakeven],
            linestyle="none",
            marker="D",
            markersize=7,
            color="C3",
            clip_on=False,
            zorder=5,
            label=f"break-even point (P = R = {_number(breakeven)})",
        )
    _mark(ax, mark, lambda point: (point.sensitivity, point.precision))
    ax.legend(loc="lower left", fontsize="small")
    return ax


def _mark(ax: Axes, mark: Any, where: Callable[[Any], tuple[float, float]]) -> None:
    """Operating points (:class:`~rankeval.scored.decisions.OperatingPoint`, one or several)
    as markers at ``where(point)``, each labelled with its rule and threshold."""
    if mark is None:
        return
    for i, point in enumerate(mark if isinstance(mark, (list, tuple)) else [mark]):
        x, y = where(point)
        ax.plot([x], [y], linestyle="none", marker="o", markersize=8, color=f"C{3 + i}",
                clip_on=False, zorder=6,
                label=f"{point.rule} at {point.threshold:.4g} ({x:.3f}, {y:.3f})")


def plot_roc(evaluation: Plottable, ax: Axes | None = None, *, mark: Any = None,
             band: NDArray[np.float64] | None = None) -> Axes:
    """Draw the ROC curve, raw and interpolated, with the chance diagonal for reference.

    The raw curve is ``evaluation.roc_curve(False)`` and the interpolated one
    ``roc_curve(True)``; the legend gives each area (``area_under_roc_curve``).

    Parameters
    ----------
    evaluation : ScoredPrecisionRecallEvaluation
        Or anything with the same curve methods.
    ax : matplotlib Axes, optional
        Where to draw; the current pyplot Axes by default.

    Returns
    -------
    matplotlib Axes
        ``ax``, with 1 - specificity on x and sensitivity on y, both on [0, 1], square.

    mark : OperatingPoint or list of them, optional
        Operating points (``best_threshold()``, ``sensitivity_at()``, ...) to mark.
    band : ndarray, optional
        ``roc_band()``'s rows, drawn as a shaded band of sensitivities.

    Undefined when: with no positives (R = 0) or no negatives (N = 0) one coordinate is
    NaN and the curve is not drawn; its area reads NaN.

    Complexity: O(m) for m curve points (drawing dominates).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from rankeval import ScoredPrecisionRecallEvaluation
    >>> evaluation = ScoredPrecisionRecallEvaluation()
    >>> evaluation.add_cases([True, False, True, False], [0.9, 0.8, 0.7, 0.1])
    >>> ax = plot_roc(evaluation, Figure().subplots())
    >>> [line.get_label() for line in ax.lines]
    ['chance', 'uninterpolated (AUC 0.750)', 'interpolated (AUC 0.875)']
    """
    ax = _axes(ax)
    _square_unit_axes(
        ax,
        "False positive rate (1 - specificity)",
        "True positive rate (sensitivity)",
        "ROC curve",
    )
    ax.plot([0.0, 1.0], [0.0, 1.0], linestyle=":", color="0.6", linewidth=0.9, label="chance")
    _draw_both(ax, evaluation.roc_curve, evaluation.area_under_roc_curve, "AUC")
    if band is not None:  # rows [fpr, sensitivity, low, high] of roc_band()
        ax.fill_between(band[:, 0], band[:, 2], band[:, 3], color="C0", alpha=0.2,
                        linewidth=0, label="sensitivity band")
    _mark(ax, mark, lambda point: (1.0 - point.specificity, point.sensitivity))
    ax.legend(loc="lower right", fontsize="small")
    return ax


def _titled(ax: Axes, xlabel: str, ylabel: str, title: str) -> Axes:
    """The axes' labels, title, grid and legend (upper right) of a plot whose axes are not
    the unit square's."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, color="0.85", linewidth=0.6)
    ax.legend(loc="upper right", fontsize="small")
    return ax


def plot_det(evaluation: Any, ax: Axes | None = None) -> Axes:
    """Draw the detection error tradeoff curve (``det_curve()``) on probit axes (normal
    deviates of the false-positive and false-negative rates, ticks at the rates), as
    scikit-learn's ``DetCurveDisplay`` does; rates of 0 or 1 sit at the axes' ends.

    >>> from matplotlib.figure import Figure
    >>> from rankeval import ScoredPrecisionRecallEvaluation
    >>> evaluation = ScoredPrecisionRecallEvaluation()
    >>> evaluation.add_cases([True, False, True, False, True], [0.9, 0.8, 0.7, 0.4, 0.3])
    >>> ax = plot_det(evaluation, Figure().subplots())
    >>> ax.get_xlabel()
    'False positive rate'
    """
    from statistics import NormalDist

    curve = evaluation.det_curve()
    ax = _axes(ax)
    normal = NormalDist()
    limit = 1e-3

    def deviate(rates: NDArray[np.float64]) -> list[float]:
        return [normal.inv_cdf(min(max(r, limit), 1 - limit)) for r in rates.tolist()]

    ax.plot(deviate(curve[:, 0]), deviate(curve[:, 1]), color="C0",
            label=f"DET ({curve.shape[0]} thresholds)")
    ticks = np.array([0.001, 0.01, 0.05, 0.2, 0.5, 0.8, 0.95, 0.99, 0.999])
    for set_ticks, set_labels, set_limits in ((ax.set_xticks, ax.set_xticklabels, ax.set_xlim),
                                              (ax.set_yticks, ax.set_yticklabels, ax.set_ylim)):
        set_ticks(deviate(ticks))
        set_labels([f"{t:g}" for t in ticks.tolist()])
        set_limits(normal.inv_cdf(limit), normal.inv_cdf(1 - limit))
    return _titled(ax, "False positive rate", "False negative rate", "Detection error tradeoff")


def plot_gains(evaluation: Any, ax: Axes | None = None) -> Axes:
    """Draw the cumulative gains curve (``gains_curve()``: the share of the positives among
    the top cases against the share of cases taken) and the random and perfect ones.

    >>> from matplotlib.figure import Figure
    >>> from rankeval import ScoredPrecisionRecallEvaluation
    >>> evaluation = ScoredPrecisionRecallEvaluation()
    >>> evaluation.add_cases([True, False, True, False], [0.9, 0.8, 0.7, 0.1])
    >>> [line.get_label() for line in plot_gains(evaluation, Figure().subplots()).lines]
    ['random', 'perfect', 'gains']
    """
    curve = evaluation.gains_curve()
    ax = _axes(ax)
    _square_unit_axes(ax, "Share of cases targeted", "Share of positives captured",
                      "Cumulative gains")
    rate = evaluation.num_positive_ref() / max(evaluation.num_cases(), 1)
    ax.plot([0.0, 1.0], [0.0, 1.0], linestyle=":", color="0.6", label="random")
    ax.plot([0.0, rate, 1.0], [0.0, 1.0, 1.0], linestyle="--", color="0.4", label="perfect")
    _draw(ax, curve[:, :2], color="C0", label="gains")
    ax.legend(loc="lower right", fontsize="small")
    return ax


def plot_lift(evaluation: Any, ax: Axes | None = None) -> Axes:
    """Draw the lift curve (``lift_curve()``: the precision of the top cases over the
    positive rate, against the share of cases taken) and the line of no lift.

    >>> from matplotlib.figure import Figure
    >>> from rankeval import ScoredPrecisionRecallEvaluation
    >>> evaluation = ScoredPrecisionRecallEvaluation()
    >>> evaluation.add_cases([True, False, True, False], [0.9, 0.8, 0.7, 0.1])
    >>> [line.get_label() for line in plot_lift(evaluation, Figure().subplots()).lines]
    ['no lift', 'lift']
    """
    curve = evaluation.lift_curve()
    ax = _axes(ax)
    ax.axhline(1.0, linestyle=":", color="0.6", label="no lift")
    _draw(ax, curve[:, :2], color="C0", label="lift")
    ax.set_xlim(0.0, 1.0)
    return _titled(ax, "Share of cases targeted", "Lift", "Lift")


def plot_cost_curve(evaluation: Any, ax: Axes | None = None) -> Axes:
    """Draw Drummond & Holte's cost curve (``cost_curve()``, the lower envelope) with the
    trivial classifiers' lines (all negative: cost = pc; all positive: cost = 1 - pc).

    >>> from matplotlib.figure import Figure
    >>> from rankeval import ScoredPrecisionRecallEvaluation
    >>> evaluation = ScoredPrecisionRecallEvaluation()
    >>> evaluation.add_cases([True, False, True, False], [0.9, 0.8, 0.7, 0.1])
    >>> [line.get_label() for line in plot_cost_curve(evaluation, Figure().subplots()).lines]
    ['trivial classifiers', 'lower envelope']
    """
    curve = evaluation.cost_curve()
    ax = _axes(ax)
    _square_unit_axes(ax, "Probability cost function PC(+)", "Normalised expected cost",
                      "Cost curve")
    ax.set_ylim(0.0, 0.5 if curve.shape[0] and curve[:, 1].max() <= 0.5 else 1.0)
    ax.plot([0.0, 0.5, 1.0], [0.0, 0.5, 0.0], linestyle=":", color="0.6",
            label="trivial classifiers")
    _draw(ax, curve, color="C0", label="lower envelope")
    ax.legend(loc="upper right", fontsize="small")
    return ax


def plot_decision_curve(evaluation: Any, thresholds: Any = None, ax: Axes | None = None,
                        prevalence: float | None = None) -> Axes:
    """Draw the decision curve (``decision_curve(thresholds)``: net benefit against the
    threshold probability) beside treating every case and treating none, as dcurves does;
    thresholds 0, 0.01, ..., 0.99 by default.

    >>> from matplotlib.figure import Figure
    >>> from rankeval import ScoredPrecisionRecallEvaluation
    >>> evaluation = ScoredPrecisionRecallEvaluation()
    >>> evaluation.add_cases([True, False, True, False], [0.9, 0.8, 0.7, 0.1])
    >>> ax = plot_decision_curve(evaluation, ax=Figure().subplots())
    >>> [line.get_label() for line in ax.lines]
    ['model', 'treat all', 'treat none']
    """
    grid = np.arange(100) / 100 if thresholds is None else thresholds
    curve = evaluation.decision_curve(grid, prevalence)
    ax = _axes(ax)
    ax.plot(curve[:, 0], curve[:, 1], color="C0", label="model")
    ax.plot(curve[:, 0], curve[:, 2], color="0.4", linestyle="--", label="treat all")
    ax.plot(curve[:, 0], curve[:, 3], color="0.6", linestyle=":", label="treat none")
    top = float(np.nanmax(curve[:, 1:])) if curve.shape[0] else 1.0
    ax.set_ylim(min(-0.05, -0.1 * abs(top)), max(top * 1.1, 0.05))
    ax.set_xlim(float(curve[0, 0]), float(curve[-1, 0]))
    return _titled(ax, "Threshold probability", "Net benefit", "Decision curve")


def plot_reliability(evaluation: Any, ax: Axes | None = None, bins: int = 10,
                     strategy: str = "uniform") -> Axes:
    """Draw the reliability diagram: each bin's share of positives against its mean score
    (``evaluation.reliability_curve(bins, strategy)``), the diagonal of perfect calibration,
    and the expected calibration error in the legend.

    Complexity: that of ``reliability_curve``.
    """
    curve = evaluation.reliability_curve(bins=bins, strategy=strategy)
    error = evaluation.calibration_error(bins=bins, strategy=strategy)
    ax = _axes(ax)
    ax.plot([0.0, 1.0], [0.0, 1.0], linestyle=":", color="0.5", label="_perfect")
    ax.plot(curve.mean_predicted, curve.fraction_positive, marker="o", clip_on=False,
            label=f"{strategy} bins (ECE {_number(error)})")
    _square_unit_axes(ax, "mean score", "fraction of positives", "Reliability")
    ax.legend(loc="lower right")
    return ax


def plot_evaluation(
    evaluation: Plottable,
    *,
    title: str | None = None,
    width_px: int = 1200,
    height_px: int = 600,
    dpi: int = 100,
) -> Figure:
    """One figure: the precision-recall curve (left) beside the ROC curve (right).

    The figure is not attached to pyplot (no window, no global state); save it with
    ``fig.savefig`` or use :func:`save_plot`.

    Complexity: O(m) for m curve points.

    Examples
    --------
    >>> from rankeval import ScoredPrecisionRecallEvaluation
    >>> figure = plot_evaluation(ScoredPrecisionRecallEvaluation(), title="nothing yet")
    >>> [ax.get_title() for ax in figure.axes], figure.get_size_inches().tolist()
    (['Precision-recall curve', 'ROC curve'], [12.0, 6.0])
    """
    require_matplotlib()
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    # A margin of about a tenth of an inch keeps the axis labels clear of the image's edge.
    layout = ConstrainedLayoutEngine(w_pad=0.12, h_pad=0.12)
    figure = Figure(figsize=(width_px / dpi, height_px / dpi), dpi=dpi, layout=layout)
    pr_axes, roc_axes = figure.subplots(1, 2)
    plot_pr(evaluation, pr_axes)
    plot_roc(evaluation, roc_axes)
    if title:
        figure.suptitle(title)
    return figure


def save_plot(
    evaluation: Plottable,
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    width_px: int = 1200,
    height_px: int = 600,
    dpi: int = 100,
) -> None:
    """Write :func:`plot_evaluation`'s figure to ``path`` (``.png`` or ``.svg``), atomically.

    PNGs are rendered with the Agg backend at exactly ``width_px`` x ``height_px`` pixels.
    The file appears complete or not at all: it is written beside ``path`` under a temporary
    name and renamed.

    Raises
    ------
    ValueError
        If ``path`` does not end in ``.png`` or ``.svg``.
    ImportError
        If matplotlib is missing (with the install command).

    Complexity: O(m) for m curve points.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from rankeval import ScoredPrecisionRecallEvaluation
    >>> evaluation = ScoredPrecisionRecallEvaluation()
    >>> evaluation.add_cases([True, False, True, False], [0.9, 0.8, 0.7, 0.1])
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "curves.png"
    >>> save_plot(evaluation, target, width_px=1000, height_px=500)
    >>> target.read_bytes()[:4]
    b'\x89PNG'
    """
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix not in _FORMATS:
        found = os.fspath(path)
        raise ValueError(f"expected a plot file name ending in .png or .svg, found {found!r}")
    figure = plot_evaluation(
        evaluation, title=title, width_px=width_px, height_px=height_px, dpi=dpi
    )
    if suffix == ".png":
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(figure)
        metadata: dict[str, Any] = {}
    else:
        from matplotlib.backends.backend_svg import FigureCanvasSVG

        FigureCanvasSVG(figure)
        metadata = {"Date": None}  # reproducible files: no timestamp
    with atomic_output(path, binary=True) as out:
        figure.savefig(out, format=suffix[1:], dpi=dpi, metadata=metadata)
