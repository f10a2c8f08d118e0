"""``rankeval.mlflow``: evaluations, run reports and comparisons logged in MLflow.

Needs ``pip install 'rankeval-exact[mlflow]'``.

The short public name of :mod:`rankeval.adapters.mlflow`, where the code lives: importing
either gives the same module object.
"""

import sys

from rankeval.adapters import mlflow as _module
from rankeval.adapters.mlflow import *  # noqa: F403  (for type checkers and help())
from rankeval.adapters.mlflow import __all__ as __all__

sys.modules[__name__] = _module
