"""The ``rankeval`` console script: ``rankeval trec`` goes straight to its module.

``rankeval trec`` is a drop-in for a C program that starts in a millisecond, so it should
not import what it never uses: the scored evaluator, argparse's parser of the other
commands, the plotting and CSV readers. Everything else goes through :mod:`rankeval.cli`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (see :func:`rankeval.cli.main`)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    # NumPy starts a BLAS thread per core at import; rankeval never calls BLAS.
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    if arguments[:1] == ["trec"]:
        from rankeval.ranking.trec_cli import main as trec_main

        return trec_main(arguments[1:])
    from rankeval.cli import main as cli_main

    return cli_main(arguments)


if __name__ == "__main__":
    sys.exit(main())
