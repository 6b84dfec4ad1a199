"""The ``neardup`` executable (and ``python -m neardup``).

The collector is paused before anything heavy is imported; the command's start-up ends the
pause (:mod:`neardup.startup`).  :func:`neardup.cli.main` is the same program without that.
"""

import gc
import sys
import time


def program() -> int:
    """Run one ``neardup`` command from ``sys.argv``; returns the exit code."""
    started = time.perf_counter()
    gc.disable()
    from .cli import main
    from .job import CLOCK

    CLOCK.start(started)  # the report's wall time counts the imports too

    return main()


if __name__ == "__main__":
    sys.exit(program())
