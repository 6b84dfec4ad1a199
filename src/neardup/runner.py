"""How the command line runs a job: neardup's error taxonomy and its answer to signals.

:func:`run_command` runs one command's function: user errors exit 2 with one line, bugs exit
1 with a traceback and a request for a report, SIGINT/SIGTERM exit 130/143 with one line and
the outputs as they were (:func:`interrupts`).  Kept free of heavy imports: the command line
imports it at start-up.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import traceback
from typing import Any, Callable, Iterator

from .errors import UserError
from .io.records import printable
from .io.writers import remove_pending

#: The thread that stops a run beside a running kernel (:func:`interrupts`); it holds no lock
#: while it waits, so a worker may be forked beside it (:mod:`neardup.workers`).
SIGNAL_THREAD = "neardup-signals"
#: What ends its wait (no signal has the number 0).
_OVER = b"\0"
#: What asks it to say when it has read every signal before (no signal has the number 255).
_SETTLE = b"\xff"
#: The running watcher's pipe end to write to and its answer to :data:`_SETTLE` (while it runs).
_watcher: dict[str, Any] = {}

#: Where to report a bug (printed under the traceback of an internal error).
REPORT_TO = "the neardup issue tracker"


def _describe_os_error(exc: OSError) -> str:
    what = exc.strerror or str(exc)
    if exc.filename is None:
        return str(exc)
    return f"{what}: {exc.filename}" + (f" -> {exc.filename2}" if exc.filename2 else "")


@contextlib.contextmanager
def interrupts() -> Iterator[None]:
    """SIGINT/SIGTERM end the run at once with one line and exit 130/143, temporary outputs removed.

    The handler exits with ``os._exit``: no traceback from whatever was running (a
    compiled kernel, a worker thread), and the outputs of earlier runs stay as they were
    because nothing is moved into place before the run's last step.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    once = threading.Lock()  # the main thread's handler and the watcher's: the first one stops the run

    def stop(signum: int, frame: object) -> None:
        if not once.acquire(blocking=False):
            return
        remove_pending()
        os.write(2, f"neardup: interrupted ({signal.Signals(signum).name})\n".encode())
        os._exit(128 + signum)

    with stop_signals(stop), _stopped_beside_kernels(stop):
        yield


@contextlib.contextmanager
def _stopped_beside_kernels(stop: Callable[[int, Any], None]) -> Iterator[None]:
    """Also stop from a thread of its own: Python runs a signal's handler in the main thread only
    when it runs Python again, which a compiled kernel over millions of pairs may not do for a
    minute.  The C-level handler writes the signal's number to a wakeup pipe at once; this thread,
    blocked on the pipe without the GIL, then stops the run -- at once when the kernel releases
    the GIL (the long ones do: ``nogil``), else as soon as the kernel returns, as before."""
    wake, woken = os.pipe()
    os.set_blocking(woken, False)
    previous = signal.set_wakeup_fd(woken, warn_on_full_buffer=False)

    settled = threading.Event()

    def watch() -> None:
        while (data := os.read(wake, 1)) not in (_OVER, b""):
            if data == _SETTLE:
                settled.set()
            # stopped here only while this is its handler: a server (``serve``) installs its own
            elif data[0] in (signal.SIGINT, signal.SIGTERM) and signal.getsignal(data[0]) is stop:
                stop(data[0], None)

    watcher = threading.Thread(target=watch, name=SIGNAL_THREAD, daemon=True)
    watcher.start()
    _watcher.update(pipe=woken, settled=settled)
    try:
        yield
    finally:
        _watcher.clear()
        signal.set_wakeup_fd(previous)
        os.write(woken, _OVER)  # not a close: a worker forked meanwhile holds the pipe's ends too
        watcher.join()
        os.close(woken)
        os.close(wake)


@contextlib.contextmanager
def stop_signals(handler: Callable[[int, Any], None]) -> Iterator[None]:
    """SIGINT and SIGTERM go to ``handler`` within the block; the previous handlers come back after it."""
    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        _settle()
        for s, old in previous.items():
            signal.signal(s, old)


def _settle(wait: float = 5.0) -> None:
    """Let the watcher read every signal that came before (it acts on a signal only while neardup's
    handler is the one set): a server's SIGTERM, handled by the server, must not stop the run once
    the server's handlers are gone, when a busy machine had not yet run the watcher."""
    if not _watcher or threading.current_thread() is not threading.main_thread():
        return
    settled = _watcher["settled"]
    settled.clear()
    os.write(_watcher["pipe"], _SETTLE)
    settled.wait(wait)


def run_command(func: Callable[[Any], int], args: Any) -> int:
    """Run one command's function with neardup's error taxonomy; returns the exit code.

    :class:`UserError` (and :class:`OSError`: a full disk, a missing permission) -> one line, 2;
    anything else is a bug -> traceback and a request to report it, 1.
    """
    try:
        with interrupts():
            return func(args)
    except UserError as exc:
        print(f"neardup: error: {printable(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader of our output went away (`neardup explain ... | head`): not an error
        sys.stdout = None  # nothing more is written to the closed pipe at exit
        return 0
    except OSError as exc:
        print(f"neardup: error: {printable(_describe_os_error(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # raised before the handler was installed
        remove_pending()
        print("neardup: interrupted (SIGINT)", file=sys.stderr)
        return 130
    except Exception:
        traceback.print_exc()
        print(f"neardup: internal error: this is a bug in neardup, not a problem with your input; "
              f"please report it to {REPORT_TO} with the command line and the traceback above", file=sys.stderr)
        return 1
