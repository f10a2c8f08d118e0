"""``python -m rankeval``: the same command line as the ``rankeval`` script."""

import sys

from rankeval._launch import main

if __name__ == "__main__":
    sys.exit(main())
