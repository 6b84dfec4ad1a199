"""Compiled work over independent items on threads, results in input order.

A kernel compiled with ``nogil=True`` runs without Python's lock, so threads of one process run
it on several cores at once with no copy of its inputs (processes would pickle them).  The
aligner's stages are such work: its key partitions reduced one at a time, its ranges of document
pairs chained one at a time, each independent of the others
(:meth:`neardup.align.aligner.Aligner.chains`).  The answer does not depend on the number of
threads: results come back in input order.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future

T = TypeVar("T")
R = TypeVar("R")

#: Results finished ahead of the one the caller waits for, per thread (memory holds these).
AHEAD_PER_THREAD = 2


def kernel_threads() -> int:
    """Threads the compiled kernels may use (numba's setting: ``NUMBA_NUM_THREADS``, else every core)."""
    import numba

    return int(numba.get_num_threads())


def in_order_threads(fn: Callable[[T], R], items: Iterable[T], threads: int) -> Iterator[R]:
    """``fn(item)`` of every item, computed on ``threads`` threads and yielded in input order;
    at most :data:`AHEAD_PER_THREAD` x ``threads`` results wait to be taken."""
    if threads <= 1:
        yield from map(fn, items)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads, thread_name_prefix="neardup-kernel") as pool:
        waiting: deque[Future[R]] = deque()
        for item in items:
            waiting.append(pool.submit(fn, item))
            if len(waiting) >= AHEAD_PER_THREAD * threads:
                yield waiting.popleft().result()
        while waiting:
            yield waiting.popleft().result()
