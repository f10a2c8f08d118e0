"""Pictures of an evaluation: the precision-recall and ROC curves.

Everything drawn is what the evaluation returns (``pr_curve``, ``roc_curve``, their areas and
``pr_breakeven_point``); nothing is recomputed here. matplotlib is imported only when a
function is called, so ``import rankeval`` never needs it; install it with
``pip install 'rankeval-exact[plot]'``.

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

__all__ = ["plot_evaluation", "plot_pr", "plot_reliability", "plot_roc", "require_matplotlib",
           "save_plot"]

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


def plot_pr(evaluation: Plottable, ax: Axes | None = None) -> Axes:
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
    ax.legend(loc="lower left", fontsize="small")
    return ax


def plot_roc(evaluation: Plottable, ax: Axes | None = None) -> Axes:
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
    ax.legend(loc="lower right", fontsize="small")
    return ax


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
