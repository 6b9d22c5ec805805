"""``python -m explore_sim``: the same as the ``explore-sim`` command."""

from .cli import run

if __name__ == "__main__":
    run()
