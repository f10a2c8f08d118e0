"""Deprecated module path: Kendall's tau is now :mod:`rankeval.ranking.correlation` (only the
ranking half uses it). This module keeps old imports working, with a ``DeprecationWarning``.
"""

import sys

from rankeval._deprecation import deprecated
from rankeval.ranking import correlation as _module
from rankeval.ranking.correlation import *  # noqa: F403
from rankeval.ranking.correlation import __all__ as __all__

deprecated("the module rankeval.correlation is now rankeval.ranking.correlation")
sys.modules[__name__] = _module
