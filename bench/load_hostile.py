"""A shared server under a hostile client: 8 writers + 8 readers + 1 attacker against ``neardup serve`` (issue 30).

Starts ``neardup serve`` on 127.0.0.1 (a free port, a token, ``--read-timeout 3``,
``--max-connections 200``) over a new ffp index, then for ``--seconds``:

* 8 writer processes post new documents (1-4 per request, ids unique) and record every
  acknowledged (HTTP 200) id;
* 8 reader processes post one-document queries and ask ``/health`` and ``/documents/{id}``;
* 1 hostile process cycles through what the audit of issue 30 threw at the server: texts
  and ids holding a lone surrogate (``\\udc80``), an id of 100,000 characters, 200,000
  nested ``<div>`` to the open ``/query``, a body over ``--max-body``, a wrong token,
  invalid JSON, ids full of control characters and ``../``, and 150 connections that send
  half a request line and wait (slowloris), replenished every round.

Then the server is stopped (SIGTERM: it must exit 0), the index is reopened, every
acknowledged id is looked up, and ``index check`` runs.  Printed as JSON: requests and
errors of the writers and readers (errors must be 0), the hostile requests by status (all
4xx or dropped connections, no 5xx), lost acknowledged writes (must be 0), latencies.
Exit 1 if any of those fails.

    python bench/load_hostile.py [--seconds 20] [--writers 8] [--readers 8]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bench_serve import free_port, post_documents, wait_healthy  # bench/ is the script's folder (the test puts it on the path)

TOKEN = "load-test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
WORDS = [f"w{i}" for i in range(20000)]
MAX_BODY = 4 << 20


def text(rng: random.Random, n: int = 150) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)) + "."


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return round(1000 * values[min(len(values) - 1, int(q / 100 * len(values)))], 1)


def writer(base: str, k: int, deadline: float, out: Any) -> None:
    import httpx2 as httpx

    rng = random.Random(k)
    acked, lat, errors, n = [], [], [], 0
    with httpx.Client(base_url=base, timeout=60, headers=AUTH) as c:
        while time.time() < deadline:
            docs = []
            for _ in range(rng.randint(1, 4)):
                body = text(rng) if rng.random() < 0.7 or not acked else text(random.Random(acked[-1]))
                docs.append({"id": f"w{k}-{n}", "text": body})
                n += 1
            post_documents(c, docs, acked, lat, errors)
    out.put(("writer", acked, lat, errors, {}))


def reader(base: str, k: int, deadline: float, out: Any) -> None:
    import httpx2 as httpx

    rng = random.Random(1000 + k)
    lat, errors = [], []
    with httpx.Client(base_url=base, timeout=60) as c:
        while time.time() < deadline:
            t = time.perf_counter()
            try:
                pick = rng.random()
                if pick < 0.6:
                    r = c.post("/query", json={"documents": [{"id": "q", "text": text(rng)}]})
                    ok = r.status_code == 200
                elif pick < 0.8:
                    r = c.get("/health")
                    ok = r.status_code == 200
                else:
                    r = c.get(f"/documents/w{rng.randrange(8)}-{rng.randrange(50)}")
                    ok = r.status_code in (200, 404)
            except httpx.HTTPError as exc:
                errors.append(f"read: {exc!r}")
                continue
            if ok:
                lat.append(time.perf_counter() - t)
            else:
                errors.append(f"read {r.status_code}: {r.text[:200]}")
    out.put(("reader", [], lat, errors, {}))


def hostile(base: str, deadline: float, out: Any) -> None:
    """Every attack of the audit, round after round; counts what the server answered."""
    import httpx2 as httpx

    port = int(base.rsplit(":", 1)[1])
    deep = "<div>" * 200_000 + "words" + "</div>" * 10
    attacks = [
        ("surrogate text", "POST", "/documents", b'{"documents":[{"id":"h1","text":"words \\udc80"}]}', AUTH),
        ("surrogate id", "POST", "/documents", b'{"documents":[{"id":"h\\udfff","text":"some words"}]}', AUTH),
        ("surrogate query", "POST", "/query", b'{"documents":[{"id":"q","text":"words \\ud800 x"}]}', {}),
        ("100,000-character id", "POST", "/documents",
         json.dumps({"documents": [{"id": "x" * 100_000, "text": "some words"}]}).encode(), AUTH),
        ("nested HTML to /query", "POST", "/query", json.dumps({"documents": [{"id": "d", "html": deep}]}).encode(), {}),
        ("body over --max-body", "POST", "/documents",
         json.dumps({"documents": [{"id": "big", "text": "word " * (MAX_BODY // 4)}]}).encode(), AUTH),
        ("wrong token", "POST", "/documents", b'{"documents":[{"id":"t","text":"some words"}]}',
         {"Authorization": "Bearer wrong"}),
        ("invalid JSON", "POST", "/documents", b'{"documents": [{"id": ', AUTH),
        ("control characters and ../ in an id", "GET", "/documents/" + quote("../\x1b[2J\x00/etc/passwd", safe=""),
         None, {}),
        ("delete without token", "DELETE", "/documents/w0-0", None, {}),
    ]
    statuses: Counter = Counter()
    slow: list[socket.socket] = []
    with httpx.Client(base_url=base, timeout=60) as c:
        while time.time() < deadline:
            for name, method, path, body, headers in attacks:
                if time.time() >= deadline:
                    break
                try:
                    r = c.request(method, path, content=body,
                                  headers={"Content-Type": "application/json", **headers})
                    statuses[f"{name}: {r.status_code}"] += 1
                except httpx.HTTPError as exc:
                    statuses[f"{name}: {type(exc).__name__}"] += 1
            for s in slow:
                s.close()
            slow = []
            for _ in range(150):  # slowloris: half a request line, then nothing
                try:
                    s = socket.create_connection(("127.0.0.1", port), timeout=5)
                    s.sendall(b"GET /heal")
                    slow.append(s)
                except OSError as exc:
                    statuses[f"slow connection: {type(exc).__name__}"] += 1
            statuses["slow connections opened"] += len(slow)
    for s in slow:
        s.close()
    out.put(("hostile", [], [], [], dict(statuses)))


def run_load(seconds: float = 20, writers: int = 8, readers: int = 8, folder: str | None = None) -> dict:
    """The whole load test (see the module docstring); returns the report."""
    import httpx2 as httpx

    from neardup.online import Index

    tmp = tempfile.TemporaryDirectory(dir=folder)
    path = Path(tmp.name) / "ix"
    Index.create(path, method="ffp").close()
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "neardup.cli", "serve", str(path), "--port", str(port),
                               "--token", TOKEN, "--read-timeout", "3", "--max-connections", "200",
                               "--max-body", str(MAX_BODY)], stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, server)
        ctx = multiprocessing.get_context("fork")
        out = ctx.Queue()
        deadline = time.time() + seconds
        procs = [ctx.Process(target=writer, args=(base, k, deadline, out)) for k in range(writers)]
        procs += [ctx.Process(target=reader, args=(base, k, deadline, out)) for k in range(readers)]
        procs.append(ctx.Process(target=hostile, args=(base, deadline, out)))
        t0 = time.perf_counter()
        for p in procs:
            p.start()
        acked: list[str] = []
        lat: dict[str, list[float]] = {"writer": [], "reader": []}
        errors: dict[str, list[str]] = {"writer": [], "reader": []}
        attacks: dict[str, int] = {}
        for _ in procs:
            kind, ids, ls, errs, counts = out.get(timeout=seconds + 300)
            acked += ids
            if kind in lat:
                lat[kind] += ls
                errors[kind] += errs
            attacks.update(counts)
        for p in procs:
            p.join(60)
        elapsed = time.perf_counter() - t0
        health = httpx.get(base + "/health", timeout=10).status_code
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            _, log = server.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            _, log = server.communicate()
    with Index.open(path, write=False) as index:
        stored = {r[0] for r in index.store.reader().execute("SELECT id FROM docs")}
        problems = index.check()
    tmp.cleanup()
    server_5xx = {k: v for k, v in attacks.items() if k.rsplit(": ", 1)[-1].startswith("5")}
    report = {
        "seconds": round(elapsed, 1), "writers": writers, "readers": readers,
        "write_requests": len(lat["writer"]), "documents_acknowledged": len(acked),
        "write_p50_ms": pct(lat["writer"], 50), "write_p99_ms": pct(lat["writer"], 99),
        "read_requests": len(lat["reader"]), "read_p50_ms": pct(lat["reader"], 50),
        "read_p99_ms": pct(lat["reader"], 99),
        "writer_errors": len(errors["writer"]), "reader_errors": len(errors["reader"]),
        "first_errors": (errors["writer"] + errors["reader"])[:5],
        "hostile": dict(sorted(attacks.items())), "hostile_5xx": server_5xx,
        "lost_acknowledged_writes": len([i for i in acked if i not in stored]),
        "documents_in_index": len(stored), "index_problems": problems,
        "health_after": health, "server_exit": server.returncode,
        "server_log_problems": [line for line in log.splitlines() if "Traceback" in line or "damaged" in line][:5],
    }
    report["ok"] = (not report["writer_errors"] and not report["reader_errors"] and not server_5xx
                    and not report["lost_acknowledged_writes"] and not problems and health == 200
                    and server.returncode == 0 and not report["server_log_problems"] and len(acked) > 0)
    return report


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=20, help="how long the clients run (20)")
    p.add_argument("--writers", type=int, default=8, help="writer processes (8)")
    p.add_argument("--readers", type=int, default=8, help="reader processes (8)")
    args = p.parse_args()
    report = run_load(args.seconds, args.writers, args.readers)
    print(json.dumps(report, indent=2))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
