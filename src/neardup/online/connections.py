"""What uvicorn lacks against slow or many clients: a read deadline and a connection cap (issue 30).

uvicorn times out only idle keep-alive connections: a client sending a header line a minute,
or 21,000 of them, held connections and file descriptors until ``/health`` failed and the
process ran out of descriptors.  :func:`guarded_protocol` is uvicorn's own HTTP protocol
class with both added (``uvicorn.Config(http=...)``); :func:`raise_file_limit` lifts the
process's open-file limit to what it may have.
"""

from __future__ import annotations

import contextlib
from typing import Any


def raise_file_limit() -> int:
    """Raise this process's open-file limit to the most it may have; returns the limit."""
    try:
        import resource
    except ImportError:  # not on this system
        return 1 << 20
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = max(soft, 1 << 16)
    if soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
    return soft


def guarded_protocol(read_timeout: float, max_connections: int) -> type:
    """uvicorn's HTTP protocol with what it lacks against slow or many clients.

    * a read deadline: a request's headers and body must arrive within ``read_timeout``
      seconds of the connection (or the previous response); a client still sending then is
      disconnected (uvicorn itself only times out idle keep-alive connections, so a client
      sending a header a minute held its connection and file descriptor forever);
    * a connection cap: past ``max_connections``, the connection that has waited longest
      without a request in progress is closed (a new one if every connection is busy with
      a request), so slow clients cannot starve the others -- ``/health`` still answers.
    """
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as Base
    except ImportError:  # the serve extra brings httptools; h11 is uvicorn's fallback
        from uvicorn.protocols.http.h11_impl import H11Protocol as Base  # type: ignore[assignment]

    class Guarded(Base):
        _deadline: Any = None
        _since = 0.0

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            open_ = [c for c in self.connections if not c.transport.is_closing()]
            if len(open_) > max_connections:
                idle = [c for c in open_ if c is not self and isinstance(c, Guarded) and c._reading()]
                if not idle:
                    self._drop()
                    return
                min(idle, key=lambda c: c._since)._drop()
            self._arm()

        def _arm(self) -> None:
            self._since = self.loop.time()
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline = self.loop.call_later(read_timeout, self._expired)

        def _reading(self) -> bool:
            """No request in progress, or one whose headers or body are still arriving (not one being answered)."""
            cycle = self.cycle
            return cycle is None or cycle.response_complete or bool(getattr(cycle, "more_body", False))

        def _expired(self) -> None:
            self._deadline = None
            if self._reading() and not self.transport.is_closing():
                self._drop()

        def _drop(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            self.transport.close()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request's headers must arrive in time too

        def connection_lost(self, exc: Exception | None) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            super().connection_lost(exc)

    return Guarded
