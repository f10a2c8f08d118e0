"""Deprecated module path: what the engine adapters share is now
:mod:`rankeval.adapters.common`. This module keeps old imports working, with a
``DeprecationWarning``.
"""

import sys

from rankeval._deprecation import deprecated
from rankeval.adapters import common as _module
from rankeval.adapters.common import *  # noqa: F403
from rankeval.adapters.common import __all__ as __all__

deprecated("the module rankeval.engines is now rankeval.adapters.common")
sys.modules[__name__] = _module
