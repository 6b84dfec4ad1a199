"""The ``neardup`` executable (and ``python -m neardup``).

Only the program sets up the process: numba's cache folder keyed by the kernel sources
(:mod:`neardup.kernel_cache`, before any kernel loads), the collector paused before
anything heavy is imported, the command's start-up ending the pause (:mod:`neardup.startup`),
and one BLAS thread (:func:`one_blas_thread`).
:func:`neardup.cli.main` is the same program without that; ``import neardup`` does none of it.
"""

import gc
import os
import sys
import time


BLAS_THREADS = "OPENBLAS_NUM_THREADS"
"""Read by numpy's OpenBLAS once, when numpy is first imported."""


def one_blas_thread(argv: list[str]) -> None:
    """Give numpy's BLAS one thread unless the user chose a number, for every command but ``train``.

    neardup runs in parallel by processes (``--workers``, Spark's tasks), and its matrix products
    are small (the extraction model's scores of a page's blocks): OpenBLAS's own threads, one per
    core in each process, only wake and spin beside the work -- a few percent more CPU for the same
    wall time on one process, and more threads than cores with several.  ``train`` fits models on
    whole collections, where BLAS's threads pay."""
    if argv[1:2] != ["train"]:
        os.environ.setdefault(BLAS_THREADS, "1")


def program() -> int:
    """Run one ``neardup`` command from ``sys.argv``; returns the exit code."""
    started = time.perf_counter()
    gc.disable()
    one_blas_thread(sys.argv)
    from .kernel_cache import use_source_keyed_cache

    use_source_keyed_cache()  # before any kernel loads
    from .cli import main
    from .job import CLOCK

    CLOCK.start(started)  # the report's wall time counts the imports too

    return main()


if __name__ == "__main__":
    sys.exit(program())
