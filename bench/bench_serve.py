"""Load test of ``neardup serve`` on loopback, and check-and-add against datasketch's MinHashLSH, in one run.

1. A corpus of real news text syndicated by neardup's simulator (``neardup synth
   ../shared/data/reuters21578 --docs N+POOL``; ``--corpus`` to reuse one).
2. In process: a minhash index (threshold 0.8, 128 permutations, 5-shingles) built by
   ``Index.add`` in batches of 1,000 -- the check-and-add rate -- and single-document
   query latencies on it (p50/p99), its size per document.
3. Over HTTP: ``neardup serve`` on 127.0.0.1 (a free port, ``--sync full``), 8 writer
   threads posting new documents (``--write-batch`` per request) and 8 reader threads
   posting one-document queries, for ``--seconds`` (bounded too by the pool of new
   documents); then a graceful stop (SIGTERM), and every acknowledged write is looked
   up in the reopened index.  Printed: requests, documents/s, p50/p99 latency, errors,
   lost writes.
4. The same check-and-add (query, then insert, one document at a time, hashing
   included) with datasketch ``MinHashLSH`` in memory and with its Redis storage (a
   ``redis-server`` started here on 127.0.0.1 with persistence off, stopped at the end;
   skipped if none is installed), and neardup in process on the same documents, one at a
   time and in batches.

    python bench/bench_serve.py [--docs 100000] [--seconds 60] [--peer-docs 20000]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
REUTERS = REPO.parent / "shared" / "data" / "reuters21578"
NEARDUP = [sys.executable, "-m", "neardup.cli"]
PARAMS = {"threshold": 0.8, "num_perm": 128, "shingle_size": 5}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(base: str, server: subprocess.Popen) -> None:
    """Wait until the server at ``base`` answers ``/health`` (30 s at most); else kill it and stop."""
    import httpx2 as httpx

    for _ in range(300):
        try:
            if httpx.get(base + "/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("server did not start: " + server.stderr.read())


def post_documents(client: Any, docs: list[dict], acked: list[str], lat: list[float], errors: list[str]) -> None:
    """POST ``docs`` to ``/documents``: their ids into ``acked`` and the latency into ``lat`` when
    answered 200, else what went wrong into ``errors``."""
    import httpx2 as httpx

    t = time.perf_counter()
    try:
        r = client.post("/documents", json={"documents": docs})
    except httpx.HTTPError as exc:
        errors.append(f"write: {exc!r}")
        return
    if r.status_code == 200:
        lat.append(time.perf_counter() - t)
        acked += [d["id"] for d in docs]
    else:
        errors.append(f"write {r.status_code}: {r.text[:200]}")


def load(path: Path, n: int) -> list[dict]:
    out = []
    with open(path) as fh:
        for line in itertools.islice(fh, n):
            d = json.loads(line)
            out.append({"id": d["id"], "text": d["text"], "time": d["time"]})
    return out


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values) * 1000, q)) if values else float("nan")


def in_process(docs: list[dict], path: Path, batch: int) -> dict:
    from neardup.online import Index

    shutil.rmtree(path, ignore_errors=True)
    with Index.create(path, method="minhash", **PARAMS) as index:
        index.add(docs[:10])  # load the kernels before timing
        t = time.perf_counter()
        for at in range(10, len(docs), batch):
            index.add(docs[at:at + batch], batch_size=batch)
        rate = (len(docs) - 10) / (time.perf_counter() - t)
        info = index.info()
    return {"docs_per_s": rate, "bytes_per_doc": info["bytes_per_document"], "documents": info["documents"]}


def query_latency(path: Path, docs: list[dict], n: int = 1000) -> list[float]:
    from neardup.online import Index

    rng = np.random.default_rng(0)
    out = []
    with Index.open(path, write=False) as index:
        for i in rng.choice(len(docs), size=n, replace=False).tolist():
            t = time.perf_counter()
            index.query([docs[i]])
            out.append(time.perf_counter() - t)
    return out


def _writer(base: str, docs: list[dict], batch: int, deadline: float, out: Any) -> None:
    """One writer process: post its share of the pool, ``batch`` documents a request, until the deadline."""
    import httpx2 as httpx

    acked, lat, errors = [], [], []
    with httpx.Client(base_url=base, timeout=60) as c:
        for at in range(0, len(docs), batch):
            if time.time() >= deadline:
                break
            part = docs[at:at + batch]
            post_documents(c, part, acked, lat, errors)
    out.put(("w", acked, lat, errors))


def _reader(base: str, docs: list[dict], seed: int, deadline: float, out: Any) -> None:
    """One reader process: one-document queries, random documents, until the deadline."""
    import httpx2 as httpx

    rng = np.random.default_rng(seed)
    lat, errors = [], []
    with httpx.Client(base_url=base, timeout=60) as c:
        while time.time() < deadline:
            doc = docs[int(rng.integers(len(docs)))]
            t = time.perf_counter()
            try:
                r = c.post("/query", json={"documents": [doc]})
            except httpx.HTTPError as exc:
                errors.append(f"query: {exc!r}")
                continue
            if r.status_code == 200:
                lat.append(time.perf_counter() - t)
            else:
                errors.append(f"query {r.status_code}: {r.text[:200]}")
    out.put(("r", [], lat, errors))


def load_test(path: Path, pool: list[dict], queries: list[dict], seconds: float, writers: int, readers: int,
              write_batch: int) -> dict:
    """Start ``neardup serve``, run writer and reader processes against it, stop it, check the writes."""
    import multiprocessing

    import httpx2 as httpx

    port = free_port()
    server = subprocess.Popen([*NEARDUP, "serve", str(path), "--port", str(port)], stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    wait_healthy(base, server)
    ctx = multiprocessing.get_context("fork")  # clients are processes: no client GIL in the latencies
    out = ctx.Queue()
    sample = [queries[i] for i in np.random.default_rng(0).choice(len(queries), 2000, replace=False)]
    t0 = time.perf_counter()
    deadline = time.time() + seconds
    procs = [ctx.Process(target=_writer, args=(base, pool[k::writers], write_batch, deadline, out))
             for k in range(writers)]
    procs += [ctx.Process(target=_reader, args=(base, sample, k, deadline, out)) for k in range(readers)]
    for p in procs:
        p.start()
    acked: list[str] = []
    w_lat: list[float] = []
    r_lat: list[float] = []
    errors: list[str] = []
    for _ in procs:
        kind, ids, lat, errs = out.get()
        acked += ids
        (w_lat if kind == "w" else r_lat).extend(lat)
        errors += errs
    for p in procs:
        p.join()
    elapsed = time.perf_counter() - t0
    stats = httpx.get(base + "/stats").json()
    server.send_signal(signal.SIGTERM)
    _, err = server.communicate(timeout=60)
    from neardup.online import Index

    with Index.open(path, write=False) as index:
        stored = {r[0] for r in index.store.reader().execute("SELECT id FROM docs")}
        problems = index.check()
    lost = [i for i in acked if i not in stored]
    return {
        "seconds": elapsed, "writes": len(w_lat), "docs_written": len(acked), "write_docs_per_s": len(acked) / elapsed,
        "write_p50_ms": pct(w_lat, 50), "write_p99_ms": pct(w_lat, 99), "queries": len(r_lat),
        "queries_per_s": len(r_lat) / elapsed, "query_p50_ms": pct(r_lat, 50), "query_p99_ms": pct(r_lat, 99),
        "errors": errors, "lost": len(lost), "index_problems": problems, "server_exit": server.returncode,
        "documents_after": stats["documents"], "bytes_per_doc": stats["bytes_per_document"],
    }


TOKEN = re.compile(r"\w+")


def shingle_sets(docs: list[dict]) -> list[list[bytes]]:
    out = []
    for d in docs:
        w = TOKEN.findall(d["text"].lower())
        out.append([" ".join(w[i:i + 5]).encode() for i in range(max(1, len(w) - 4))])
    return out


def datasketch_check_and_add(docs: list[dict], storage: dict | None) -> float:
    """Documents/s of hash + query + insert, one document at a time (datasketch's documented way)."""
    from datasketch import MinHash, MinHashLSH

    lsh = MinHashLSH(threshold=0.8, num_perm=128, storage_config=storage) if storage else MinHashLSH(0.8, 128)
    t = time.perf_counter()
    for at in range(0, len(docs), 1000):
        part = docs[at:at + 1000]
        for d, m in zip(part, MinHash.bulk(shingle_sets(part), num_perm=128)):
            lsh.query(m)
            lsh.insert(d["id"], m)
    return len(docs) / (time.perf_counter() - t)


def start_redis() -> tuple[subprocess.Popen, int] | None:
    exe = shutil.which("redis-server")
    if exe is None:
        return None
    port = free_port()
    proc = subprocess.Popen([exe, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
                             "--protected-mode", "yes"], stdout=subprocess.DEVNULL)
    import redis

    for _ in range(100):
        try:
            redis.Redis(port=port).ping()
            return proc, port
        except redis.ConnectionError:
            time.sleep(0.05)
    proc.kill()
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=100_000, help="documents in the index before the load test")
    ap.add_argument("--pool", type=int, default=60_000, help="new documents the writers may add")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--writers", type=int, default=8)
    ap.add_argument("--readers", type=int, default=8)
    ap.add_argument("--write-batch", type=int, default=10, help="documents per write request")
    ap.add_argument("--peer-docs", type=int, default=20_000, help="documents for the datasketch comparison")
    ap.add_argument("--corpus", help="a docs.jsonl to use (default: synthesized from ../shared/data/reuters21578)")
    ap.add_argument("--workdir", help="scratch folder (default: a temporary one, removed at the end)")
    args = ap.parse_args()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench-serve-"))
    work.mkdir(parents=True, exist_ok=True)
    redis_proc = None
    try:
        corpus = Path(args.corpus) if args.corpus else work / "corpus" / "docs.jsonl"
        if not corpus.exists():
            subprocess.run([*NEARDUP, "synth", str(REUTERS), "-o", str(corpus.parent), "--docs",
                            str(args.docs + args.pool), "--quiet"], check=True)
        docs = load(corpus, args.docs + args.pool)
        base, pool = docs[:args.docs], docs[args.docs:]
        print(f"corpus: {len(docs):,} simulated Reuters pages ({corpus}); minhash {PARAMS}; "
              f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")

        ix = work / "index"
        built = in_process(base, ix, 1000)
        print(f"\nin process: check-and-add of {built['documents']:,} documents in batches of 1,000: "
              f"{built['docs_per_s']:,.0f} documents/s; {built['bytes_per_doc']:,.0f} bytes per document on disk")
        lat = query_latency(ix, base)
        print(f"in process: one-document query on {len(base):,} documents: p50 {pct(lat, 50):.1f} ms, "
              f"p99 {pct(lat, 99):.1f} ms")

        r = load_test(ix, pool, base + pool, args.seconds, args.writers, args.readers, args.write_batch)
        print(f"\nHTTP, {args.writers} writer + {args.readers} reader processes ({args.write_batch} documents a write "
              f"request, 1 a query), {r['seconds']:.0f} s on 127.0.0.1:")
        print(f"  check-and-add: {r['writes']:,} requests, {r['docs_written']:,} documents, "
              f"{r['write_docs_per_s']:,.0f} documents/s; latency p50 {r['write_p50_ms']:.1f} ms, "
              f"p99 {r['write_p99_ms']:.1f} ms")
        print(f"  query:         {r['queries']:,} requests, {r['queries_per_s']:,.0f}/s; latency p50 "
              f"{r['query_p50_ms']:.1f} ms, p99 {r['query_p99_ms']:.1f} ms")
        print(f"  errors {len(r['errors'])}, acknowledged writes lost {r['lost']}, index check "
              f"{'ok' if not r['index_problems'] else r['index_problems']}, server exit {r['server_exit']}, "
              f"{r['documents_after']:,} documents, {r['bytes_per_doc']:,.0f} bytes each")
        for e in r["errors"][:5]:
            print("   ", e)

        peer = docs[:args.peer_docs]
        print(f"\ncheck-and-add, {len(peer):,} documents, one at a time (hashing included), same run:")
        one = work / "one"
        for label, batch in (("neardup in process, 1 a call", 1), ("neardup in process, 1,000 a call", 1000)):
            sub = peer if batch > 1 else peer[: min(len(peer), 5000)]
            res = in_process(sub, one, batch)
            print(f"  {label:<40} {res['docs_per_s']:>8,.0f} documents/s ({len(sub):,} documents; sync full)")
        ds = datasketch_check_and_add(peer, None)
        print(f"  {'datasketch MinHashLSH, in memory':<40} {ds:>8,.0f} documents/s")
        started = start_redis()
        if started is None:
            print("  datasketch MinHashLSH, Redis: skipped (no redis-server; apt-get install redis-server)")
        else:
            redis_proc, port = started
            sub = peer[: min(len(peer), 5000)]
            rs = datasketch_check_and_add(sub, {"type": "redis", "basename": b"bench",
                                                "redis": {"host": "127.0.0.1", "port": port}})
            print(f"  {'datasketch MinHashLSH, Redis (no fsync)':<40} {rs:>8,.0f} documents/s ({len(sub):,} documents)")
    finally:
        if redis_proc is not None:
            redis_proc.terminate()
            redis_proc.wait(timeout=30)
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
