"""``python -m explore_sim``: the same as the ``explore-sim`` command."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
