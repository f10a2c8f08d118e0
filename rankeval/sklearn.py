"""``rankeval.sklearn``: rankeval's reads as scikit-learn scorers, for model selection.

Needs ``pip install 'rankeval-exact[sklearn]'``.

The short public name of :mod:`rankeval.adapters.sklearn`, where the code lives: importing
either gives the same module object.
"""

import sys

from rankeval.adapters import sklearn as _module
from rankeval.adapters.sklearn import *  # noqa: F403  (for type checkers and help())
from rankeval.adapters.sklearn import __all__ as __all__

sys.modules[__name__] = _module
