"""Behaviour of rankeval.plotting: it draws what the evaluation returns, and saves cleanly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rankeval import ScoredPrecisionRecallEvaluation
from rankeval.plotting import plot_evaluation, plot_pr, plot_roc, require_matplotlib, save_plot

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")  # no display here; pyplot must not look for one

from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from tests.conftest import RUNNING_EXAMPLE, evaluation_of  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ROOT = Path(__file__).resolve().parent.parent


def running_example() -> ScoredPrecisionRecallEvaluation:
    """The spec's running example: 10 cases and one miss."""
    return evaluation_of(RUNNING_EXAMPLE, misses=1)


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk, after checking the signature."""
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


@pytest.fixture
def axes() -> Axes:
    """A fresh Axes on a figure that pyplot does not know about."""
    ax: Axes = Figure().subplots()
    return ax


def labelled(ax: Axes) -> dict[str, np.ndarray]:
    """The data of each labelled line of ``ax``, by label."""
    return {
        str(line.get_label()): np.asarray(line.get_xydata())
        for line in ax.lines
        if not str(line.get_label()).startswith("_")
    }


class TestPlotPr:
    def test_draws_the_evaluations_curves(self, axes: Axes) -> None:
        """The raw and interpolated curves are exactly pr_curve(False) and pr_curve(True)."""
        evaluation = running_example()
        assert plot_pr(evaluation, axes) is axes
        lines = labelled(axes)
        np.testing.assert_array_equal(
            lines["uninterpolated (area 0.465)"], evaluation.pr_curve(False)
        )
        np.testing.assert_array_equal(lines["interpolated (area 0.549)"], evaluation.pr_curve(True))

    def test_breakeven_point_is_marked_where_p_equals_r(self, axes: Axes) -> None:
        """The break-even point 0.6 (precision at rank R = 5) is marked at (0.6, 0.6)."""
        plot_pr(running_example(), axes)
        np.testing.assert_array_equal(
            labelled(axes)["break-even point (P = R = 0.600)"], [[0.6, 0.6]]
        )

    def test_square_unit_axes_with_labels(self, axes: Axes) -> None:
        """Both axes run over [0, 1] in a square box, labelled recall and precision."""
        plot_pr(running_example(), axes)
        assert axes.get_xlim() == (0.0, 1.0)
        assert axes.get_ylim() == (0.0, 1.0)
        assert axes.get_box_aspect() == 1.0
        assert (axes.get_xlabel(), axes.get_ylabel()) == ("Recall", "Precision")
        assert axes.get_legend() is not None

    def test_no_positives_draws_no_breakeven_point(self, axes: Axes) -> None:
        """With R = 0 recall is NaN: no break-even marker, and no warning."""
        evaluation = ScoredPrecisionRecallEvaluation()
        evaluation.add_cases([False, False], [1.0, 2.0])
        plot_pr(evaluation, axes)
        assert not any(label.startswith("break-even") for label in labelled(axes))
        assert "uninterpolated (area NaN)" in labelled(axes)

    def test_current_pyplot_axes_by_default(self) -> None:
        """Without ax, the current pyplot Axes is used and returned."""
        import matplotlib.pyplot as plt

        try:
            ax = plot_pr(running_example())
            assert ax is plt.gca()
        finally:
            plt.close("all")

    def test_long_curves_have_no_markers(self, axes: Axes) -> None:
        """Curves of many points are plain lines; short ones mark each point."""
        evaluation = ScoredPrecisionRecallEvaluation()
        rng = np.random.default_rng(3)
        evaluation.add_cases(rng.random(500) < 0.3, rng.random(500))
        plot_pr(evaluation, axes)
        small = Figure().subplots()
        plot_pr(running_example(), small)
        for ax, marker in ((axes, "None"), (small, "o")):
            curves = [line for line in ax.lines if "interpolated" in str(line.get_label())]
            assert [line.get_marker() for line in curves] == [marker, marker]


class TestPlotRoc:
    def test_draws_the_evaluations_curves_and_diagonal(self, axes: Axes) -> None:
        """The ROC curves are roc_curve(False/True), areas in the legend, chance diagonal."""
        evaluation = running_example()
        assert plot_roc(evaluation, axes) is axes
        lines = labelled(axes)
        np.testing.assert_array_equal(
            lines["uninterpolated (AUC 0.467)"], evaluation.roc_curve(False)
        )
        np.testing.assert_array_equal(lines["interpolated (AUC 0.550)"], evaluation.roc_curve(True))
        np.testing.assert_array_equal(lines["chance"], [[0.0, 0.0], [1.0, 1.0]])
        assert axes.get_xlim() == axes.get_ylim() == (0.0, 1.0)
        assert axes.get_box_aspect() == 1.0
        assert axes.get_xlabel() == "False positive rate (1 - specificity)"
        assert axes.get_ylabel() == "True positive rate (sensitivity)"

    def test_no_negatives_is_quiet(self, axes: Axes) -> None:
        """With N = 0 the ROC x values are NaN: nothing is drawn, the area reads NaN, no warning."""
        evaluation = ScoredPrecisionRecallEvaluation()
        evaluation.add_cases([True, True], [1.0, 2.0])
        plot_roc(evaluation, axes)
        assert "uninterpolated (AUC NaN)" in labelled(axes)


class TestSavePlot:
    @pytest.mark.parametrize(("width", "height", "dpi"), [(1200, 600, 100), (1600, 800, 200)])
    def test_png_has_the_requested_size(
        self, tmp_path: Path, width: int, height: int, dpi: int
    ) -> None:
        """save_plot writes a valid PNG of exactly width x height pixels, and nothing else."""
        target = tmp_path / "curves.png"
        save_plot(running_example(), target, width_px=width, height_px=height, dpi=dpi, title="t")
        assert png_size(target.read_bytes()) == (width, height)
        assert os.listdir(tmp_path) == ["curves.png"]

    def test_svg(self, tmp_path: Path) -> None:
        """A .svg path gives an SVG document without a timestamp (reproducible files)."""
        target = tmp_path / "curves.svg"
        save_plot(running_example(), target)
        first = target.read_bytes()
        assert first.startswith(b"<?xml")
        assert b"<dc:date>" not in first

    def test_other_suffix_is_a_value_error(self, tmp_path: Path) -> None:
        """Only .png and .svg are written; anything else is refused before drawing."""
        with pytest.raises(ValueError, match=r"ending in \.png or \.svg, found '.*curves\.jpg'"):
            save_plot(running_example(), tmp_path / "curves.jpg")
        assert os.listdir(tmp_path) == []

    def test_figure_has_pr_beside_roc(self) -> None:
        """plot_evaluation makes one figure: PR on the left, ROC on the right, with the title."""
        figure = plot_evaluation(running_example(), title="example")
        left, right = figure.axes
        assert left.get_title() == "Precision-recall curve"
        assert right.get_title() == "ROC curve"
        assert figure.get_suptitle() == "example"
        assert left.get_position().x0 < right.get_position().x0


class TestMissingMatplotlib:
    def test_clear_import_error(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Without matplotlib, plotting raises ImportError naming the extra to install."""
        monkeypatch.setitem(sys.modules, "matplotlib", None)
        with pytest.raises(ImportError, match=r"pip install 'rankeval-exact\[plot\]'"):
            require_matplotlib()
        with pytest.raises(ImportError, match=r"pip install 'rankeval-exact\[plot\]'"):
            plot_evaluation(running_example())

    def test_import_rankeval_plotting_needs_no_matplotlib(self) -> None:
        """Importing the module does not import matplotlib (it is loaded on first use)."""
        code = "import sys, rankeval.plotting, rankeval.cli; print('matplotlib' in sys.modules)"
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
        )
        assert result.stdout == "False\n"


def test_the_reliability_diagram_draws_the_reliability_curve(axes: Axes) -> None:
    from rankeval.plotting import plot_reliability

    evaluation = ScoredPrecisionRecallEvaluation()
    evaluation.add_cases([True, False, True, True, False, True],
                         [0.9, 0.4, 0.7, 0.3, 0.2, 0.85])
    assert plot_reliability(evaluation, axes, bins=4) is axes
    curve = evaluation.reliability_curve(bins=4)
    drawn = labelled(axes)
    (label,) = drawn
    np.testing.assert_array_equal(drawn[label][:, 0], curve.mean_predicted)
    np.testing.assert_array_equal(drawn[label][:, 1], curve.fraction_positive)
    assert f"{evaluation.calibration_error(bins=4):.3f}" in label


# ---------------------------------------------------------------------------------------------
# decision plots: each draws exactly what the evaluator returns


def tied_example() -> ScoredPrecisionRecallEvaluation:
    rng = np.random.default_rng(4)
    labels = rng.random(300) < 0.3
    scores = np.clip(np.round(rng.normal(0.35 + 0.3 * labels, 0.25), 2), 0.01, 0.99)
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases(labels, scores)
    return ev


def test_plot_det_draws_the_det_curve_on_probit_axes(axes: Axes) -> None:
    from statistics import NormalDist

    from rankeval.plotting import plot_det

    ev = tied_example()
    plot_det(ev, axes)
    curve = ev.det_curve()
    (drawn,) = [line for line in axes.lines if line.get_label().startswith("DET")]
    deviate = np.vectorize(lambda r: NormalDist().inv_cdf(min(max(r, 1e-3), 1 - 1e-3)))
    np.testing.assert_allclose(drawn.get_xdata(), deviate(curve[:, 0]), rtol=1e-12)
    np.testing.assert_allclose(drawn.get_ydata(), deviate(curve[:, 1]), rtol=1e-12)


def test_plot_gains_lift_and_cost_draw_the_evaluators_curves(axes: Axes) -> None:
    from rankeval.plotting import plot_cost_curve, plot_gains, plot_lift

    ev = tied_example()
    np.testing.assert_array_equal(labelled(plot_gains(ev, axes))["gains"],
                                  ev.gains_curve()[:, :2])
    ax = Figure().subplots()
    np.testing.assert_array_equal(labelled(plot_lift(ev, ax))["lift"], ev.lift_curve()[:, :2])
    ax = Figure().subplots()
    np.testing.assert_array_equal(labelled(plot_cost_curve(ev, ax))["lower envelope"],
                                  ev.cost_curve())


def test_plot_decision_curve_draws_the_three_curves(axes: Axes) -> None:
    from rankeval.plotting import plot_decision_curve

    ev = tied_example()
    grid = [0.05, 0.1, 0.3, 0.6]
    lines = labelled(plot_decision_curve(ev, grid, axes))
    curve = ev.decision_curve(grid)
    for column, name in ((1, "model"), (2, "treat all"), (3, "treat none")):
        np.testing.assert_array_equal(lines[name], curve[:, [0, column]])


def test_operating_points_and_the_band_are_marked(axes: Axes) -> None:
    ev = tied_example()
    youden = ev.best_threshold("youden")
    constrained = ev.sensitivity_at(0.9)
    band = ev.roc_band(fpr=[0.0, 0.1, 0.5, 1.0], resamples=30)
    plot_roc(ev, axes, mark=[youden, constrained], band=band)
    lines = labelled(axes)
    marked = {name: xy for name, xy in lines.items() if " at " in name}
    assert sorted(marked) == sorted([f"youden at {youden.threshold:.4g} "
                                     f"({1 - youden.specificity:.3f}, {youden.sensitivity:.3f})",
                                     f"sensitivity_at at {constrained.threshold:.4g} "
                                     f"({1 - constrained.specificity:.3f}, "
                                     f"{constrained.sensitivity:.3f})"])
    assert [c.get_label() for c in axes.collections] == ["sensitivity band"]
    ax = Figure().subplots()
    plot_pr(ev, ax, mark=youden)
    (xy,) = [xy for name, xy in labelled(ax).items() if name.startswith("youden at")]
    assert xy.tolist() == [[youden.sensitivity, youden.precision]]
