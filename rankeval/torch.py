"""``rankeval.torch``: exact evaluation under ``torch.distributed``, and torchmetrics'
``Metric`` protocol.

Needs ``pip install 'rankeval-exact[torch]'``.

The short public name of :mod:`rankeval.adapters.torch`, where the code lives: importing
either gives the same module object.
"""

import sys

from rankeval.adapters import torch as _module
from rankeval.adapters.torch import *  # noqa: F403  (for type checkers and help())
from rankeval.adapters.torch import __all__ as __all__

sys.modules[__name__] = _module
