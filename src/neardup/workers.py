"""Pages extracted by worker processes, in input order: the input stage's use of the machine's cores.

Extraction is nearly all of the work of reading web pages (and of ``dedup`` on them), and it is
pure per page, so it can run anywhere: :func:`in_order` hands the pages to a pool of processes in
chunks of about :data:`CHUNK_CHARS` characters, keeps at most :data:`CHUNKS_PER_WORKER` chunks per
worker in flight (memory holds those chunks, never the input) and yields every item in input order
with its result -- the same items and results, in the same order, for any number of workers.

The first :data:`WARM_PAGES` pages are extracted in this process, so a small input never starts a
pool.  Workers are forked from this process when it runs no other thread (they start with its
loaded kernels, at no cost); otherwise they come from a fork server that has loaded the extractor
and its kernels once (:mod:`neardup.extract.warm`): forking a process that runs threads can copy a
lock another thread held.  A worker ignores SIGINT: this process decides what an interrupt does,
and a worker ends by itself once the process it works for is gone.

How many: :func:`set_workers` (the command line's ``--workers``, default every core this process
may use), else the ``NEARDUP_WORKERS`` environment variable, else 1 (a library call starts no
process unless asked to).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import deque
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Generic, Iterable, Iterator, TypeVar

from .errors import UserError

if TYPE_CHECKING:  # imported when a pool starts: 4 ms of start-up, for nothing with one worker
    from concurrent.futures import Future, ProcessPoolExecutor

T = TypeVar("T")
A = TypeVar("A")
R = TypeVar("R")

WARM_PAGES = 32
"""Pages extracted in this process before a pool starts: an input of fewer pages never starts one."""

CHUNK_CHARS = 1 << 20
"""Characters of HTML per task, about (a chunk holds at least one page): tens of milliseconds of
work against about a millisecond of sending it."""

CHUNK_PAGES = 64
"""Pages per task at most (short pages)."""

CHUNKS_PER_WORKER = 2
"""Tasks in flight per worker: one running, one waiting, so a worker never waits for this process."""

PARENT_CHECK = 0.2
"""Seconds between a worker's checks that the process it works for is still there."""

_workers: int | None = None


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def parse_workers(value: str | int) -> int:
    """``auto`` (every usable core) or a positive number of worker processes."""
    if isinstance(value, str) and value.strip().lower() == "auto":
        return usable_cores()
    try:
        n = int(value)
    except ValueError:
        raise UserError(f"--workers takes a number or 'auto', got {value!r}") from None
    if n < 1:
        raise UserError(f"--workers must be at least 1, got {n}")
    return n


def set_workers(n: int | str | None) -> None:
    """Extract pages with ``n`` processes from now on (``"auto"``: every usable core; None: back to
    ``NEARDUP_WORKERS`` or 1).  One process (1) extracts in this process, as before."""
    global _workers
    _workers = None if n is None else parse_workers(n)


@contextmanager
def using(n: int | str | None) -> Iterator[None]:
    """:func:`set_workers` within the block, the setting before it after it."""
    global _workers
    before = _workers
    set_workers(n)
    try:
        yield
    finally:
        _workers = before


def workers() -> int:
    """The number of extraction processes (see the module docstring)."""
    if _workers is not None:
        return _workers
    env = os.environ.get("NEARDUP_WORKERS")
    return parse_workers(env) if env else 1


class _Chunk(Generic[A]):
    """Consecutive payloads sent as one task, and its future once sent."""

    def __init__(self) -> None:
        self.payloads: list[A] = []
        self.chars = 0
        self.future: Future | None = None


def in_order(items: Iterable[T], payload: Callable[[T], A | None], fn: Callable[[list[A]], list[R]],
             size: Callable[[A], int], n_workers: int | None = None,
             where: Callable[[T], str] = str) -> Iterator[tuple[T, R | None]]:
    """``(item, fn([payload(item)])[0])`` for every item, in input order; ``(item, None)`` where
    ``payload`` gives None (nothing to compute).

    ``payload`` is called in input order in this process (it may keep state: the ids seen); ``fn``
    (picklable, pure) maps a list of payloads to their results, in a worker when ``n_workers`` (default
    :func:`workers`) is above 1; ``size`` weighs a payload in characters; ``where`` names an item in
    the error raised if a worker dies (killed for memory, a crash in a parser).
    """
    n = workers() if n_workers is None else n_workers
    it = iter(items)
    if n > 1:
        warm = 0
        for item in it:  # the first pages in this process: a small input never starts a pool
            a = payload(item)
            if a is not None:
                warm += 1
            yield item, None if a is None else fn([a])[0]
            if warm >= WARM_PAGES:
                yield from _pooled(it, payload, fn, size, n, where)
                return
        return
    for item in it:
        a = payload(item)
        yield item, None if a is None else fn([a])[0]


def _pooled(items: Iterator[T], payload: Callable[[T], A | None], fn: Callable[[list[A]], list[R]],
            size: Callable[[A], int], n: int, where: Callable[[T], str]) -> Iterator[tuple[T, R | None]]:
    """:func:`in_order` with a pool of ``n`` processes (started here, ended when this ends)."""
    from concurrent.futures.process import BrokenProcessPool

    waiting: deque[tuple[T, _Chunk[A] | None, int]] = deque()
    sent: deque[_Chunk[A]] = deque()
    chunk: _Chunk[A] = _Chunk()
    pool = _pool(n)

    def send() -> None:
        nonlocal chunk
        chunk.future = pool.submit(fn, chunk.payloads)
        chunk.payloads = []
        sent.append(chunk)
        chunk = _Chunk()

    def ready(limit: int) -> Iterator[tuple[T, R | None]]:
        """Yield from the front while more than ``limit`` chunks are in flight (and what is
        already known before the first unsent payload)."""
        while waiting:
            item, c, pos = waiting[0]
            if c is None:
                waiting.popleft()
                yield item, None
                continue
            future = c.future
            if future is None or (len(sent) <= limit and not future.done()):
                return  # its chunk is not sent yet, or is in flight among no more chunks than allowed
            waiting.popleft()
            try:
                results = future.result()
            except BrokenProcessPool:
                raise UserError(f"an extraction worker process died (killed, out of memory, or a crash in "
                                f"the HTML parser) while extracting the pages from {where(item)} on; "
                                f"run with --workers 1 to extract them in this process") from None
            if pos == len(results) - 1:
                sent.popleft()
            yield item, results[pos]

    try:
        for item in items:
            a = payload(item)
            if a is None:
                waiting.append((item, None, 0))
            else:
                waiting.append((item, chunk, len(chunk.payloads)))
                chunk.payloads.append(a)
                chunk.chars += size(a)
                if chunk.chars >= CHUNK_CHARS or len(chunk.payloads) >= CHUNK_PAGES:
                    send()
            yield from ready(CHUNKS_PER_WORKER * n)
        if chunk.payloads:
            send()
        yield from ready(0)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _pool(n: int) -> ProcessPoolExecutor:
    """``n`` worker processes: forked from this process when it runs no other thread (but the
    interrupt watcher, blocked on a pipe), else from a
    fork server that loaded the extractor (spawned where neither exists)."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    from .runner import SIGNAL_THREAD

    methods = mp.get_all_start_methods()
    alone = all(t is threading.main_thread() or t.name == SIGNAL_THREAD for t in threading.enumerate())
    if "fork" in methods and alone:
        return ProcessPoolExecutor(n, mp_context=mp.get_context("fork"), initializer=_worker_start)
    if "forkserver" in methods:
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["neardup.extract.warm"])
        return ProcessPoolExecutor(n, mp_context=ctx, initializer=_worker_start)
    return ProcessPoolExecutor(n, mp_context=mp.get_context("spawn"), initializer=_worker_start)


def _worker_start() -> None:
    """A worker leaves interrupts to the process that started it, and ends when that process has
    ended however it ended (an interrupted run ends with ``os._exit``, which shuts no pool down)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK)
        os._exit(0)

    threading.Thread(target=watch, name="neardup-parent-watch", daemon=True).start()

