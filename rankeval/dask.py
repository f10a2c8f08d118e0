"""``rankeval.dask``: exact evaluation of Dask DataFrames (``pip install 'rankeval-exact[dask]'``).

The short public name of :mod:`rankeval.adapters.dask`, where the code lives: importing
either gives the same module object.
"""

import sys

from rankeval.adapters import dask as _module
from rankeval.adapters.dask import *  # noqa: F403  (for type checkers and help())
from rankeval.adapters.dask import __all__ as __all__

sys.modules[__name__] = _module
