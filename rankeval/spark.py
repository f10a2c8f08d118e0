"""``rankeval.spark``: exact evaluation of Spark DataFrames
(``pip install 'rankeval-exact[spark]'``).

The short public name of :mod:`rankeval.adapters.spark`, where the code lives: importing
either gives the same module object.
"""

import sys

from rankeval.adapters import spark as _module
from rankeval.adapters.spark import *  # noqa: F403  (for type checkers and help())
from rankeval.adapters.spark import __all__ as __all__

sys.modules[__name__] = _module
