"""What uvicorn lacks against slow, many or large clients: a read deadline, a connection cap, a body budget.

uvicorn times out only idle keep-alive connections: a client sending a header line a minute,
or 21,000 of them, held connections and file descriptors until ``/health`` failed and the
process ran out of descriptors.  :func:`guarded_protocol` is uvicorn's own HTTP protocol
class with both added (``uvicorn.Config(http=...)``); :func:`raise_file_limit` lifts the
process's open-file limit to what it may have.  :class:`BodyLimit` refuses a body over
``--max-body`` (413) and one that would take the bodies in work past their budget (503): a request
in work holds several times its body (docs/faults.md, "Used as a crawl pipeline uses it").  :func:`listen` binds the server's socket before
anything claims to serve.
"""

from __future__ import annotations

import contextlib
import socket
from dataclasses import dataclass
from typing import Any

from starlette.responses import JSONResponse

from ..errors import UserError


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


#: Bytes of request bodies in work at once at most, in bodies of ``--max-body`` (each costs several times
#: its size while it is parsed, sketched and queued: docs/faults.md has the measured figure).
BODIES_IN_WORK = 4


@dataclass
class InWork:
    """Bytes of request bodies being read or worked on now (the event loop's; one thread, no lock)."""

    bytes: int = 0


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes gets 413 before any endpoint sees it, and one that
    would take the bytes of bodies in work past ``BODIES_IN_WORK`` bodies of ``limit`` gets 503 (Retry-After)
    -- unless it is the only one -- so many large requests at once cannot raise the memory without bound."""

    def __init__(self, app: Any, limit: int, bodies: InWork) -> None:
        self.app, self.limit, self.bodies = app, limit, bodies
        self.budget = BODIES_IN_WORK * limit

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit():
            size = int(length)
            if size > self.limit:
                return await self._refuse(scope, receive, send)
            if not self._take(size):
                return await self._busy(scope, receive, send)
            try:
                return await self.app(scope, receive, send)
            finally:
                self.bodies.bytes -= size
        # no length given (chunked): read up to the limit, counted as it arrives, then replay it to the app
        chunks, size = [], 0  # size: the bytes received, all counted in work
        try:
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    return
                chunk = message.get("body", b"")
                if size + len(chunk) > self.limit:
                    return await self._refuse(scope, receive, send)
                if not self._take(len(chunk), size):
                    return await self._busy(scope, receive, send)
                chunks.append(chunk)
                size += len(chunk)
                if not message.get("more_body"):
                    break
            body = b"".join(chunks)
            sent = False

            async def replay() -> dict:
                nonlocal sent
                if not sent:
                    sent = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            return await self.app(scope, replay, send)
        finally:
            self.bodies.bytes -= size

    def _take(self, size: int, mine: int = 0) -> bool:
        """Count ``size`` more bytes in work (this request already holds ``mine``), unless that passes the
        budget while other requests' bodies are in work."""
        if size and self.bodies.bytes + size > self.budget and self.bodies.bytes > mine:
            return False
        self.bodies.bytes += size
        return True

    async def _refuse(self, scope: dict, receive: Any, send: Any) -> None:
        response = JSONResponse({"detail": f"request body over {self.limit:,} bytes"}, status_code=413)
        await response(scope, receive, send)

    async def _busy(self, scope: dict, receive: Any, send: Any) -> None:
        """503, once the body (at most ``limit`` bytes) is read and dropped chunk by chunk: a client that sends
        its whole body before reading the answer gets the 503, not a connection reset."""
        more, drained = True, 0
        while more and drained <= self.limit:
            message = await receive()
            drained += len(message.get("body", b""))
            more = message["type"] == "http.request" and message.get("more_body", False)
        response = JSONResponse({"detail": f"server busy: {self.bodies.bytes:,} bytes of request bodies in work "
                                           f"(at most {self.budget:,}); retry"},
                                status_code=503, headers={"Retry-After": "1"})
        await response(scope, receive, send)


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before the index is opened or "serving" is said: an address in use (or not
    this machine's) is one line, exit 2, never uvicorn's log after a claim to serve (as uvicorn binds it)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise UserError(f"cannot listen on {address(host, port)} ({exc.strerror or exc})") from None
    sock.set_inheritable(True)
    return sock


def address(host: str, port: int) -> str:
    """``host:port`` as a URL writes it (an IPv6 host in brackets)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
