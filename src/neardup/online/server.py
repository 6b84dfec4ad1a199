"""``neardup serve``: an index over HTTP -- a JSON API on FastAPI and uvicorn (the ``serve`` extra).

Endpoints (OpenAPI description at ``/openapi.json``, pages at ``/docs`` and ``/redoc``, their
scripts served by the server itself from the files fastapi-offline ships -- no CDN, so they work
offline; without fastapi-offline ``/docs`` is a static page of the endpoints):

* ``POST /documents`` -- check and add a batch: ``{"documents": [{"id", "text" | "html",
  "time"?, ...}]}`` -> ``{"results": [{"id", "added", "matches": [...]}]}``;
* ``POST /query`` -- the same body, check only;
* ``DELETE /documents/{id}``, ``GET /documents/{id}``, ``GET /stats``, ``GET /health``.

One writer: every write goes through one thread, which takes all the add requests
waiting and commits them in one transaction (group commit: one fsync for many
requests), each request's documents matched against the index and the requests before
it, in arrival order.  Readers run concurrently on their own connections.  A request
whose input cannot be used in full (a record without text or words, an id already in the
index, an invalid time) gets a 4xx naming the record and changes nothing; a body over
``max_body`` bytes gets 413 before it is parsed.  With a token, write requests must
carry ``Authorization: Bearer TOKEN`` (401 otherwise).  SIGINT/SIGTERM stop accepting,
finish the requests in flight, commit what was acknowledged, and close the index.

Against hostile or broken clients: every document is checked before its request
may join a group (:func:`_records`: an id too long or not Unicode, a page nested too deeply
to parse), and a group that fails for any reason is retried request by request, so one
client's input never fails another's write; a request's headers and body must arrive within
a read deadline, and past a connection cap the connection waiting longest for a request is
dropped (:func:`guarded_protocol`); a resource the server lacks (file descriptors, disk
space) is a 503, never "index damaged".

Length: the routes, the group-commit writer and the per-request checks belong together (the
connection guard, the body budget and the listening socket are in :mod:`.connections`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import queue
import sys
import threading
from concurrent.futures import Future
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Iterator

import orjson
import uvicorn
from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import InputError, UserError
from ..input_stage import as_records, record_problem
from ..io.records import Rejection, printable
from ..runner import stop_signals
from .connections import BodyLimit, InWork, address, guarded_protocol, listen, raise_file_limit
from .index import Checked, Index

#: Documents in one request at most (bodies are also limited in bytes).
MAX_DOCUMENTS = 10000
#: Documents the writer commits together at most.
MAX_GROUP = 5000


class Document(BaseModel):
    """A document: ``id`` and ``text`` or ``html``; ``time`` (ISO 8601 or seconds) for time windows; other fields kept.

    Strict: a value is never converted (``true`` is not the id "1", nor a time of 1 s), so what
    reaches the input stage is what the client sent, named as ``index add`` names it."""

    model_config = ConfigDict(extra="allow", strict=True)
    id: str | int | float
    text: str | None = None
    html: str | None = None
    time: str | float | None = None


class Documents(BaseModel):
    documents: list[Document] = Field(max_length=MAX_DOCUMENTS)


class MatchOut(BaseModel):
    id: str
    score: float
    relation: str = Field(description="duplicate, contained (the new document in the match), contains, or similar")
    new_in_match: float | None = Field(None, description="share of the new document's features found in the match")
    match_in_new: float | None = Field(None, description="share of the match's features found in the new document")


class PassageOut(BaseModel):
    a_chars: list[int] = Field(description="[start, end) characters of the passage in the new document")
    b_chars: list[int] = Field(description="[start, end) characters of the passage in the earlier document")
    a_words: int
    b_words: int
    similarity: float = Field(description="share of the passage's words inside matched seeds (shorter side)")


class PartialOut(BaseModel):
    id: str = Field(description="the earlier document sharing the passages")
    coverage_new: float = Field(description="share of the new document's words inside the passages")
    coverage_match: float = Field(description="share of the earlier document's words inside the passages")
    passages: list[PassageOut]


class CheckedOut(BaseModel):
    id: str
    added: bool
    late: bool | None = Field(None, description="present (true) when the document was dated before the time "
                                                "window's horizon: checked, not added")
    matches: list[MatchOut]
    partials: list[PartialOut] | None = Field(None, description="an index made with --partial: copied passages shared "
                                                                "with earlier documents, oldest first")


class Results(BaseModel):
    results: list[CheckedOut]


class _Writer:
    """The one thread that writes: group commit of queued adds, removes in order."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self.jobs: queue.Queue[tuple[str, Any, Future] | None] = queue.Queue()  # None: stop
        self.thread = threading.Thread(target=self._run, name="neardup-writer", daemon=True)
        self.thread.start()

    def submit(self, kind: str, payload: Any) -> Future:
        done: Future = Future()
        self.jobs.put((kind, payload, done))
        return done

    def stop(self) -> None:
        """Commit and answer what is queued, then end the thread."""
        self.jobs.put(None)
        self.thread.join()

    def _run(self) -> None:
        waiting: list[tuple[str, Any, Future] | None] = []
        while True:
            job = waiting.pop() if waiting else self.jobs.get()
            if job is None:
                return
            group, size = [job], len(job[1])
            while job[0] == "add" and size < MAX_GROUP:  # adds waiting behind it join its transaction
                try:
                    nxt = self.jobs.get_nowait()
                except queue.Empty:
                    break
                if nxt is None or nxt[0] != "add":
                    waiting.append(nxt)  # a remove or the stop: after this group
                    break
                group.append(nxt)
                size += len(nxt[1])
            self._do(group)

    def _do(self, group: list[tuple[str, Any, Future]]) -> None:
        if not group:
            return
        if group[0][0] == "remove":
            kind, ids, done = group[0]
            self._settle(done, lambda: self.index.remove(ids))
            return
        records = [r for _, recs, _ in group for r in recs]
        try:
            found = self.index.add(records, strict=True, batch_size=len(records) + 1)
        except BaseException as exc:  # noqa: BLE001 -- handed to the request it belongs to
            if len(group) == 1:
                group[0][2].set_exception(exc)
                return
            # whatever failed the group (a bad record, a bug, a full disk), the transaction was rolled
            # back: one request must not fail the others, so each is tried again on its own
            for _, recs, done in group:
                self._settle(done, lambda recs=recs: self.index.add(recs, strict=True, batch_size=len(recs) + 1))
            return
        at = 0
        for _, recs, done in group:
            done.set_result(found[at:at + len(recs)])
            at += len(recs)

    @staticmethod
    def _settle(done: Future, call: Any) -> None:
        try:
            done.set_result(call())
        except BaseException as exc:  # noqa: BLE001
            done.set_exception(exc)


def _records(body: Documents) -> list[dict[str, Any]]:
    """The request's documents, each checked before any work is spent on it (and before it may join a
    group commit): a record the input stage would refuse -- no text, an id too long or holding a lone
    surrogate, a page nested too deeply to parse -- is a 422 naming it."""
    records = [d.model_dump(exclude_none=True) for d in body.documents]
    for item in as_records(records):
        bad = item if isinstance(item, Rejection) else record_problem(item)
        if bad is not None:
            raise HTTPException(422, bad.message())
    return records


def _out(found: list[Checked]) -> Response:
    """The results as JSON, serialized once by orjson (the declared ``Results`` model documents them)."""
    return Response(orjson.dumps({"results": [c.as_dict() for c in found]}), media_type="application/json")


def _http_error(exc: Exception) -> HTTPException:
    """A 4xx for what the client sent: 409 for an id already there, 422 for an unusable record."""
    text = printable(str(exc))
    if "already in the index" in text:
        return HTTPException(409, text)
    if isinstance(exc, InputError):
        return HTTPException(422, text)
    return HTTPException(400, text)


def _offline_app_class() -> Any:
    """fastapi-offline's app class (Swagger UI and ReDoc served from the files it ships), or None."""
    try:
        from fastapi_offline import FastAPIOffline
    except ImportError:
        return None
    return FastAPIOffline


def static_docs(schema: dict[str, Any]) -> str:
    """A self-contained page of the API from its OpenAPI ``schema`` (no script, nothing fetched):
    ``/docs`` when fastapi-offline is not installed."""
    from html import escape

    rows = []
    for path, methods in schema.get("paths", {}).items():
        for method, op in methods.items():
            rows.append(f"<tr><td><code>{escape(method.upper())}</code></td><td><code>{escape(path)}</code></td>"
                        f"<td>{escape(op.get('summary', ''))}</td></tr>")
    info = schema.get("info", {})
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{escape(info.get('title', 'API'))}</title></head><body>"
            f"<h1>{escape(info.get('title', 'API'))}</h1><p>{escape(info.get('description', ''))}</p>"
            "<table>" + "".join(rows) + "</table>"
            "<p>The full description: <a href='openapi.json'>openapi.json</a> "
            "(install <code>fastapi-offline</code> for the interactive pages).</p></body></html>")


def create_app(index: Index, token: str | None = None, max_body: int = 16 << 20) -> FastAPI:
    """The web app serving ``index`` (opened for writing); it closes the index when it shuts down."""
    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state["writer"] = _Writer(index)
        try:
            yield
        finally:
            state["writer"].stop()  # what was queued is committed and answered first
            index.close()

    offline = _offline_app_class()  # /docs and /redoc from packaged assets, no CDN
    no_pages: dict[str, Any] = {} if offline else {"docs_url": None, "redoc_url": None}
    app = (offline or FastAPI)(
        title="neardup index", version="1", lifespan=lifespan,
        description="Check and add news documents against a persistent near-duplicate index.", **no_pages)
    if offline is None:
        @app.get("/docs", include_in_schema=False)
        async def docs() -> Response:
            return Response(static_docs(app.openapi()), media_type="text/html")

    def sends_json(request: Request) -> None:
        """A body is JSON: one sent as a form (``curl -d`` without ``-H``) or as text is a 415 saying what to
        send, not a validation error about dictionaries (no content type at all is read as JSON)."""
        given = request.headers.get("content-type")
        if given is None:
            return
        kind = given.split(";", 1)[0].strip().lower()
        if kind != "application/json" and not (kind.startswith("application/") and kind.endswith("+json")):
            raise HTTPException(415, printable(f"send the body as JSON with 'Content-Type: application/json' "
                                               f"(this request's is {given[:100]!r})"))

    def may_write(request: Request) -> None:
        if token is None:
            return
        given = request.headers.get("authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            raise HTTPException(401, "write requests need 'Authorization: Bearer TOKEN'",
                                headers={"WWW-Authenticate": "Bearer"})

    async def write(kind: str, payload: Any) -> Any:
        try:
            return await asyncio.wrap_future(state["writer"].submit(kind, payload))
        except (InputError, UserError) as exc:
            raise _http_error(exc) from None

    @app.post("/documents", response_model=Results, dependencies=[Depends(may_write), Depends(sends_json)],
              summary="check and add documents (matches among the index and earlier documents of the batch)")
    async def add_documents(body: Documents) -> Response:
        records = await run_in_threadpool(_records, body)  # checks are linear in the body: not on the event loop
        return _out(await write("add", records))

    @app.post("/query", response_model=Results, dependencies=[Depends(sends_json)],
              summary="check documents without adding them")
    def query(body: Documents) -> Response:
        try:
            return _out(index.query(_records(body), strict=True))
        except (InputError, UserError) as exc:
            raise _http_error(exc) from None

    # ids may hold "/" (URLs, paths): {doc_id:path} takes the rest of the path, "a/b" or "a%2Fb"
    @app.delete("/documents/{doc_id:path}", dependencies=[Depends(may_write)], summary="remove a document")
    async def remove(doc_id: str) -> dict[str, Any]:
        if not await write("remove", [doc_id]):
            raise HTTPException(404, printable(f"no document {doc_id!r} in the index"))
        return {"removed": doc_id}

    @app.get("/documents/{doc_id:path}", summary="what the index holds about a document")
    def get(doc_id: str) -> dict[str, Any]:
        found = index.get(doc_id)
        if found is None:
            raise HTTPException(404, printable(f"no document {doc_id!r} in the index"))
        return found

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        """A 422 listing what is wrong where, without echoing the input (it may hold a lone surrogate,
        which no JSON response can carry, or be megabytes long)."""
        errors = [{"loc": [printable(x) if isinstance(x, str) else x for x in e.get("loc", ())], "msg": printable(str(e.get("msg", ""))), "type": e.get("type")}
                  for e in exc.errors()]
        return JSONResponse({"detail": errors}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        """FastAPI's own errors, with a body that is not UTF-8 said as such (FastAPI: "There was an error parsing
        the body"): JSON is UTF-8, and a client sending Latin-1 should learn which byte is wrong."""
        cause = exc.__cause__
        if exc.status_code == 400 and isinstance(cause, UnicodeDecodeError):
            return JSONResponse({"detail": f"request body is not UTF-8 (byte 0x{cause.object[cause.start]:02x} at "
                                           f"offset {cause.start:,}); send JSON as UTF-8"}, status_code=400)
        return await http_exception_handler(request, exc)

    @app.exception_handler(OSError)
    async def unavailable(request: Request, exc: OSError) -> Response:
        """A resource the server lacks (file descriptors, disk space): 503, said as what it is, never "damaged"."""
        return JSONResponse({"detail": f"server cannot serve this now: {exc.strerror or exc}"}, status_code=503,
                            headers={"Retry-After": "5"})

    @app.get("/stats", summary="method, window, documents, size on disk")
    def stats() -> dict[str, Any]:
        return index.info()

    @app.get("/health", summary="liveness and document count")
    def health() -> dict[str, Any]:
        return {"status": "ok", "documents": len(index)}

    app.state.bodies = InWork()
    app.add_middleware(BodyLimit, limit=max_body, bodies=app.state.bodies)
    return app


#: Seconds a client has to send a request's headers and body (slow clients hold a connection otherwise).
READ_TIMEOUT = 30.0
#: Open connections at most; past it the connection that has waited longest for a request is dropped.
MAX_CONNECTIONS = 1000


def serve(path: str, host: str = "127.0.0.1", port: int = 8080, token: str | None = None,
          max_body: int = 16 << 20, sync: str | None = None, read_timeout: float = READ_TIMEOUT,
          max_connections: int = MAX_CONNECTIONS) -> int:
    """Open the index at ``path`` for writing and serve it until SIGINT/SIGTERM."""
    if read_timeout <= 0 or max_connections < 1:
        raise UserError("--read-timeout must be positive and --max-connections at least 1")
    if not 0 <= port <= 65535:
        raise UserError(f"--port must be 0 to 65535 (0: any free port), got {port}")
    if max_body < 1:
        raise UserError(f"--max-body must be at least 1 byte, got {max_body}")
    files = raise_file_limit()
    if max_connections + 64 > files:
        raise UserError(f"--max-connections {max_connections:,} needs more open files than this process may have "
                        f"({files:,}); lower it or raise `ulimit -n`")
    listener = listen(host, port)
    try:
        index = Index.open(path, sync=sync)
    except BaseException:
        listener.close()
        raise
    app = create_app(index, token, max_body)
    sys.setswitchinterval(0.001)  # readers wait less for the GIL behind the writer thread (default 5 ms)
    port = listener.getsockname()[1]
    where = f"http://{address(host, port)}"
    print(f"serving {path} ({len(index):,} documents, {index.method.name}) on {where}; API at {where}/docs"
          + ("" if token else "; writes need no token"), file=sys.stderr, flush=True)
    if warning := index.words_warning():
        print(f"warning: {warning}", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=10,
                            http=guarded_protocol(read_timeout, max_connections), timeout_keep_alive=5)
    server = _Server(config)
    server.run(sockets=[listener])
    print(f"stopped; {path} closed", file=sys.stderr)
    return 0


class _Server(uvicorn.Server):
    """uvicorn's server, stopping gracefully on SIGINT/SIGTERM (a second one forces it), so ``serve`` exits 0."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        def stop(signum: int, frame: object) -> None:
            if self.should_exit:
                self.force_exit = True
            self.should_exit = True

        with stop_signals(stop):
            yield

