"""``rankeval.prometheus``: a Prometheus collector over live evaluators.

Needs ``pip install 'rankeval-exact[prometheus]'``.

The short public name of :mod:`rankeval.adapters.prometheus`, where the code lives: importing
either gives the same module object.
"""

import sys

from rankeval.adapters import prometheus as _module
from rankeval.adapters.prometheus import *  # noqa: F403  (for type checkers and help())
from rankeval.adapters.prometheus import __all__ as __all__

sys.modules[__name__] = _module
