"""Slow textbook implementation of the scored evaluation, written from the spec alone.

Plain Python loops over a freshly sorted list, one function per quantity; it
shares no code with ``rankeval`` so the two can disagree. Grouped ties are
handled by collapsing tie blocks into one operating point, and rank-based
values by brute-force expectation (exact fractions).
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import groupby, pairwise
from math import comb

Case = tuple[bool, float]


class Reference:
    """What LingPipe's rules plus rankeval's documented differences say, computed the slow way."""

    def __init__(
        self, cases: list[Case], misses: int = 0, negative_misses: int = 0, ties: str = "insertion"
    ) -> None:
        self.cases = list(cases)
        # Python's sort is stable: equal scores keep insertion order.
        self.ranked = sorted(self.cases, key=lambda case: -case[1])
        self.R = sum(1 for c, _ in cases if c) + misses
        self.N = sum(1 for c, _ in cases if not c) + negative_misses
        self.ties = ties

    # operating points: (tp, fp, score) after each rank or each tie block
    def points(self) -> list[tuple[int, int, float]]:
        out = []
        tp = fp = 0
        for i, (correct, score) in enumerate(self.ranked):
            tp += correct
            fp += not correct
            last_of_block = i + 1 == len(self.ranked) or self.ranked[i + 1][1] != score
            if self.ties == "insertion":
                out.append((tp, fp, score))
            elif last_of_block:  # a block of zeros of either sign scores 0.0
                out.append((tp, fp, score + 0.0))
        return out

    @staticmethod
    def _div(a: float, b: float) -> float:
        if b == 0:
            return math.nan if a == 0 else math.copysign(math.inf, a)
        return a / b

    def pr_curve(self, interpolate: bool = False) -> list[list[float]]:
        rows = [[0.0, 1.0]]
        for tp, fp, _ in self.points():
            r, p = self._div(tp, self.R), tp / (tp + fp)
            if not (r == 0.0 and p == 0.0):
                rows.append([r, p])
        rows.append([1.0, 0.0])
        return self._interp(rows, [0.0, 1.0]) if interpolate else rows

    def pr_score_curve(self, interpolate: bool = False) -> list[list[float]]:
        rows = [[self._div(tp, self.R), tp / (tp + fp), s] for tp, fp, s in self.points()]
        return self._interp(rows, [0.0, 1.0, math.inf]) if interpolate else rows

    @staticmethod
    def _interp(rows: list[list[float]], start: list[float]) -> list[list[float]]:
        rows = [list(r) for r in rows]
        best = 0.0
        for row in reversed(rows):
            if row[1] > best:
                best = row[1]
            else:
                row[1] = best
        out = []
        held = start
        for row in rows:
            if row[0] == held[0]:
                continue
            out.append(held)
            held = row
        out.append(held)
        return out

    def roc_curve(self, interpolate: bool = False) -> list[list[float]]:
        rows = [[0.0, 0.0]]
        for tp, fp, _ in self.points():
            rows.append([1.0 - self._div(self.N - fp, self.N), self._div(tp, self.R)])
        rows.append([1.0, 1.0])
        if not interpolate:
            return rows
        return [row for j, row in enumerate(rows) if j == len(rows) - 1 or row[0] != rows[j + 1][0]]

    @staticmethod
    def area(rows: list[list[float]]) -> float:
        total = 0.0
        for (x0, y0), (x1, y1) in pairwise([r[:2] for r in rows]):
            total += (y0 + y1) * (x1 - x0) / 2.0
        return total

    def average_precision(self) -> float:
        total = 0.0
        previous_tp = 0
        for tp, fp, _ in self.points():
            total += (tp - previous_tp) * (tp / (tp + fp))
            previous_tp = tp
        return self._div(total, self.R)

    def eleven_point(self) -> list[float]:
        curve = self.pr_curve(True)
        out = []
        for i in range(11):
            target = 0.1 * i
            out.append(next((p for r, p in curve if r + 1e-13 >= target), 0.0))
        return out

    def maximum_f(self, beta: float) -> float:
        b2 = beta * beta
        best = 0.0
        for r, p in self.pr_curve():
            f = self._div((1 + b2) * r * p, r + b2 * p)
            # Spelled out on purpose: Java's Math.max returns NaN if either argument is NaN,
            # while Python's max() depends on argument order.
            if math.isnan(f) or math.isnan(best):  # noqa: SIM108
                best = math.nan
            else:
                best = max(best, f)
        return best

    # rank-based values, exact
    def _blocks(self) -> list[list[bool]]:
        if self.ties == "insertion":
            return [[c] for c, _ in self.ranked]
        return [[c for c, _ in group] for _, group in groupby(self.ranked, key=lambda x: x[1])]

    def precision_at(self, rank: int) -> float:
        if rank == 0:
            return 1.0
        hits = Fraction(0)
        seen = 0
        for block in self._blocks():
            if seen >= rank:
                break
            take = min(len(block), rank - seen)
            hits += Fraction(sum(block) * take, len(block))
            seen += take
        return float(hits / rank)

    def r_precision(self) -> float:
        return self.precision_at(self.R) if self.R else 1.0

    def reciprocal_rank(self) -> float:
        above = 0
        for block in self._blocks():
            p = sum(block)
            m = len(block) - p
            if p:
                # E[1/(above + J)], P(J = j) = C(p+m-j, p-1) / C(p+m, p)
                expectation = sum(
                    Fraction(comb(p + m - j, p - 1), comb(p + m, p)) / (above + j)
                    for j in range(1, m + 2)
                )
                return float(expectation)
            above += len(block)
        return 0.0

    def roc_auc_pairs(self, misses: int, negative_misses: int) -> float:
        """Mann-Whitney pair count (ties per policy), misses as the spec says."""
        if not self.ranked:
            return 0.5
        if self.R == 0 or self.N == 0:
            return math.nan
        credit = Fraction(0)
        positives = [(i, s) for i, (c, s) in enumerate(self.ranked) if c]
        negatives = [(i, s) for i, (c, s) in enumerate(self.ranked) if not c]
        for i, s in positives:
            for k, t in negatives:
                if self.ties == "grouped" and s == t:
                    credit += Fraction(1, 2)
                elif i < k:
                    credit += 1
        credit += len(positives) * negative_misses + Fraction(misses * negative_misses, 2)
        return float(credit / (self.R * self.N))
