"""Every option of :func:`rankeval.ranking.evaluate_run`, in one frozen object checked once.

:func:`~rankeval.ranking.evaluate_run` builds a :class:`RunOptions` from its keywords (the
test suite holds its signature to this class's fields and defaults), and passes it down
whole: the ranking rules to :func:`~rankeval.ranking.trec_sort.rank_queries`, the measure
conventions to :mod:`rankeval.ranking.measures`, the ir_measures names' own settings as a
:meth:`RunOptions.replace`. The engines build one on the driver, before any job runs.

>>> o = RunOptions(profile="10.0", max_docs=10)
>>> o.rules.score_precision, o.measure_options.iprec_rule
('double', 'lround')
>>> RunOptions(gain="cubic")
Traceback (most recent call last):
...
ValueError: gain must be one of ('linear', 'exp'), got 'cubic'
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property
from typing import Any, get_args

from rankeval.checks import check_choice, check_flag, check_int
from rankeval.formulas import NO_RELEVANT, NoRelevant
from rankeval.ranking import catalogue
from rankeval.ranking.catalogue import Profile
from rankeval.ranking.measures import (
    ApDenominator,
    Discount,
    Gain,
    Ideal,
    IprecRule,
    MeasureOptions,
    PrecisionDenominator,
)
from rankeval.ranking.trec_sort import DocumentTies, RankingRules, ScorePrecision

__all__ = ["PROFILE_DEFAULTS", "RunOptions"]

#: What each profile implies when ``score_precision`` or ``iprec_rule`` is left out.
PROFILE_DEFAULTS: dict[Profile, tuple[ScorePrecision, IprecRule]] = {
    "9.0.8-2020": ("float32", "trec9"),
    "9.0.8": ("double", "trec9"),
    "10.0": ("double", "lround"),
}


@dataclass(frozen=True)
class RunOptions:
    """The options of :func:`rankeval.ranking.evaluate_run` (see it for each one's meaning),
    checked when made: a bad value raises here, naming the option, before any work. The
    allowed values of each option are those of its type (``get_args`` of the ``Literal``).

    ``score_precision`` and ``iprec_rule`` left as None take the profile's; the ranking rules
    and the measure conventions derived from the options are :attr:`rules` and
    :attr:`measure_options`. Immutable and hashable; :meth:`replace` makes a checked copy.
    """

    profile: Profile = catalogue.DEFAULT_PROFILE
    relevance_level: int = 1
    complete: bool = False
    max_docs: int | None = None
    judged_only: bool = False
    ties: DocumentTies = "docid_desc"
    score_precision: ScorePrecision | None = None
    iprec_rule: IprecRule | None = None
    ap_denominator: ApDenominator = "relevant"
    precision_denominator: PrecisionDenominator = "k"
    capped_recall: bool = False
    gain: Gain = "linear"
    discount: Discount = "log2"
    ideal: Ideal = "judged"
    no_relevant: NoRelevant = "zero"
    num_docs: int = 0
    first_params_win: bool = False
    trec_quirks: bool = True

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "profile", catalogue.check_profile(self.profile))
        set_(self, "first_params_win", check_flag(self.first_params_win, "first_params_win"))
        set_(self, "relevance_level", check_int(self.relevance_level, "relevance_level"))
        if self.iprec_rule is not None:
            check_choice(self.iprec_rule, "iprec_rule", get_args(IprecRule))
        check_choice(self.ap_denominator, "ap_denominator", get_args(ApDenominator))
        check_choice(self.precision_denominator, "precision_denominator",
                     get_args(PrecisionDenominator))
        set_(self, "capped_recall", check_flag(self.capped_recall, "capped_recall"))
        check_choice(self.gain, "gain", get_args(Gain))
        check_choice(self.discount, "discount", get_args(Discount))
        check_choice(self.ideal, "ideal", get_args(Ideal))
        check_choice(self.ties, "ties", get_args(DocumentTies))
        set_(self, "num_docs", check_int(self.num_docs, "num_docs", minimum=0))
        set_(self, "trec_quirks", check_flag(self.trec_quirks, "trec_quirks"))
        if self.score_precision is not None:
            check_choice(self.score_precision, "score_precision", get_args(ScorePrecision))
        if self.max_docs is not None:
            set_(self, "max_docs", check_int(self.max_docs, "max_docs", minimum=0))
        set_(self, "complete", check_flag(self.complete, "complete"))
        check_choice(self.no_relevant, "no_relevant", NO_RELEVANT)
        set_(self, "judged_only", check_flag(self.judged_only, "judged_only"))

    def replace(self, **changes: Any) -> RunOptions:
        """A copy with ``changes``, checked like a new one.

        >>> RunOptions().replace(complete=True).complete
        True
        """
        return dataclasses.replace(self, **changes)

    @cached_property
    def rules(self) -> RankingRules:
        """The ranking rules: level, ties, score precision (the profile's unless given),
        ``max_docs``, ``judged_only``."""
        precision = self.score_precision or PROFILE_DEFAULTS[self.profile][0]
        return RankingRules(self.relevance_level, self.ties, precision, self.max_docs,
                            self.judged_only)

    @cached_property
    def measure_options(self) -> MeasureOptions:
        """The conventions the measure functions consult."""
        return MeasureOptions(
            iprec_rule=self.iprec_rule or PROFILE_DEFAULTS[self.profile][1],
            ap_denominator=self.ap_denominator,
            precision_denominator=self.precision_denominator,
            capped_recall=self.capped_recall,
            gain=self.gain,
            discount=self.discount,
            ideal=self.ideal,
            average_ties=self.ties == "average",
            num_docs=self.num_docs,
            empty_iprec_nan=self.trec_quirks,
        )

    @property
    def trec_ten_complete(self) -> bool:
        """trec_eval 10 under ``-c``: every qrels query is evaluated, as one the run lacks when
        it has no results (so no shared query is needed)."""
        return self.complete and not catalogue.is_nine(self.profile)
