"""Deprecated module path: what the engine adapters share is now
:mod:`rankeval.adapters.common`. This module keeps old imports working, with a
``DeprecationWarning``.
"""

import sys
import warnings

from rankeval.adapters import common as _module
from rankeval.adapters.common import *  # noqa: F403
from rankeval.adapters.common import __all__ as __all__

warnings.warn("the module rankeval.engines is now rankeval.adapters.common",
              DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _module
