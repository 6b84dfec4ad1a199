"""The ``neardup`` executable (and ``python -m neardup``).

Only the program sets up the process: numba's cache folder keyed by the kernel sources
(:mod:`neardup.kernel_cache`, before any kernel loads), and the collector paused before
anything heavy is imported, the command's start-up ending the pause (:mod:`neardup.startup`).
:func:`neardup.cli.main` is the same program without that; ``import neardup`` does none of it.
"""

import gc
import sys
import time


def program() -> int:
    """Run one ``neardup`` command from ``sys.argv``; returns the exit code."""
    started = time.perf_counter()
    gc.disable()
    from .kernel_cache import use_source_keyed_cache

    use_source_keyed_cache()  # before any kernel loads
    from .cli import main
    from .job import CLOCK

    CLOCK.start(started)  # the report's wall time counts the imports too

    return main()


if __name__ == "__main__":
    sys.exit(program())
