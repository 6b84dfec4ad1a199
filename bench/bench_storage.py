"""Which embedded storage for the online index: SQLite (WAL) vs LMDB vs an append-only log.

Stores N minhash documents the way the online index does -- each document's sketch row
(128 uint32 values + its size, 520 bytes) under a sequence number, and its 18 LSH band
keys (threshold 0.8) in a key table -- then asks for the documents sharing a band key
with probe documents (half of them stored, half new), as a check-and-add does:

* ``sqlite``: ``docs(seq INTEGER PRIMARY KEY, id TEXT UNIQUE, sketch BLOB)`` and
  ``keys(key, slot, seq)`` as a WITHOUT ROWID table (one B-tree), WAL journal,
  ``synchronous=FULL`` (an acknowledged commit survives power loss); lookups of a batch
  by one join with a temporary table;
* ``lmdb``: the same two tables as LMDB databases (keys: dupsort, fixed-size values),
  ``sync=True``; lookups by cursor, one key at a time;
* ``log``: sketches appended to a file with fsync per batch, the band keys in memory as
  a sorted array plus an unsorted delta merged when it grows (what an append-only design
  rebuilds on open); lookups by ``np.searchsorted``.

Inserts go in batches of 1,000 documents (one commit each); queries in batches of 100.
Printed: insert rate over the whole load, query rate at the end, file size per
document, and the time to open (the log must rebuild its key table).

    python bench/bench_storage.py --docs 1000000
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import struct
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from neardup.methods.minhash import MinHashMethod

NUM_PERM = 128


def make_batch(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` random minhash signatures (storage cost does not depend on what they hash)."""
    return rng.integers(0, 2**32, size=(n, NUM_PERM), dtype=np.uint32)


class SQLiteStore:
    name = "sqlite"

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path / "index.sqlite", isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA cache_size=-65536")  # as neardup.online.storage
        self.db.execute("CREATE TABLE IF NOT EXISTS docs(seq INTEGER PRIMARY KEY, id TEXT UNIQUE, sketch BLOB)")
        self.db.execute("CREATE TABLE IF NOT EXISTS keys(key INTEGER, slot INTEGER, seq INTEGER, "
                        "PRIMARY KEY(key, slot, seq)) WITHOUT ROWID")
        self.db.execute("CREATE TEMP TABLE probe(row INTEGER, slot INTEGER, key INTEGER)")

    def insert(self, seq0: int, blobs: list[bytes], keys: np.ndarray) -> None:
        n, k = keys.shape
        seqs = np.arange(seq0, seq0 + n)
        sk = keys.view(np.int64)
        self.db.execute("BEGIN")
        self.db.executemany("INSERT INTO docs VALUES (?, ?, ?)", zip(seqs.tolist(), map(str, seqs.tolist()), blobs))
        self.db.executemany("INSERT INTO keys VALUES (?, ?, ?)",
                            zip(sk.ravel().tolist(), np.tile(np.arange(k), n).tolist(), np.repeat(seqs, k).tolist()))
        self.db.execute("COMMIT")

    def query(self, keys: np.ndarray) -> int:
        n, k = keys.shape
        self.db.execute("BEGIN")
        self.db.execute("DELETE FROM probe")
        self.db.executemany("INSERT INTO probe VALUES (?, ?, ?)", zip(np.repeat(np.arange(n), k).tolist(),
                            np.tile(np.arange(k), n).tolist(), keys.view(np.int64).ravel().tolist()))
        rows = self.db.execute("SELECT DISTINCT p.row, k.seq FROM probe p JOIN keys k ON k.key = p.key AND "
                               "k.slot = p.slot").fetchall()
        seqs = sorted({s for _, s in rows})
        got = self.db.execute(f"SELECT seq, sketch FROM docs WHERE seq IN ({','.join('?' * len(seqs))})",
                              seqs).fetchall() if seqs else []
        self.db.execute("COMMIT")
        return len(got)

    def close(self) -> None:
        self.db.close()


class LMDBStore:
    name = "lmdb"

    def __init__(self, path: Path) -> None:
        import lmdb

        self.env = lmdb.open(str(path / "index.lmdb"), map_size=64 << 30, max_dbs=4, sync=True)
        self.docs = self.env.open_db(b"docs")
        self.keys = self.env.open_db(b"keys", dupsort=True, dupfixed=True)

    def insert(self, seq0: int, blobs: list[bytes], keys: np.ndarray) -> None:
        n, k = keys.shape
        with self.env.begin(write=True) as txn:
            cur = txn.cursor(self.docs)
            cur.putmulti([(struct.pack(">Q", seq0 + i), b) for i, b in enumerate(blobs)], append=True)
            kb = (keys.astype(">u8").tobytes(), np.repeat(np.arange(seq0, seq0 + n), k).astype(">u8").tobytes())
            kk = [kb[0][8 * i: 8 * i + 8] + bytes([i % k]) for i in range(n * k)]
            vv = [kb[1][8 * i: 8 * i + 8] for i in range(n * k)]
            txn.cursor(self.keys).putmulti(zip(kk, vv))

    def query(self, keys: np.ndarray) -> int:
        n, k = keys.shape
        kb = keys.astype(">u8").tobytes()
        found = set()
        with self.env.begin() as txn:
            cur = txn.cursor(self.keys)
            for i in range(n * k):
                if cur.set_key(kb[8 * i: 8 * i + 8] + bytes([i % k])):
                    found.update(cur.iternext_dup())
            docs = txn.cursor(self.docs)
            got = [docs.get(s) for s in sorted(found)] if found else []
        return len(got)

    def close(self) -> None:
        self.env.close()


class LogStore:
    name = "log"
    ROW = NUM_PERM * 4 + 8

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fh = open(path / "sketches.log", "ab")
        self.keyfh = open(path / "keys.log", "ab")
        self.sorted_keys = np.zeros(0, np.uint64)
        self.sorted_seqs = np.zeros(0, np.int64)
        self.delta_keys: list[np.ndarray] = []
        self.delta_seqs: list[np.ndarray] = []
        self.mm = None

    def _composite(self, keys: np.ndarray) -> np.ndarray:
        k = keys.shape[1]
        return (keys & np.uint64(~0xFF & (2**64 - 1))) | np.arange(k, dtype=np.uint64)  # slot in the low byte

    def insert(self, seq0: int, blobs: list[bytes], keys: np.ndarray) -> None:
        n, k = keys.shape
        self.fh.write(b"".join(blobs))
        self.fh.flush()
        os.fsync(self.fh.fileno())
        comp = self._composite(keys).ravel()
        seqs = np.repeat(np.arange(seq0, seq0 + n), k)
        self.keyfh.write(comp.tobytes() + seqs.tobytes())
        self.keyfh.flush()
        os.fsync(self.keyfh.fileno())
        self.delta_keys.append(comp)
        self.delta_seqs.append(seqs)
        if sum(d.shape[0] for d in self.delta_keys) > max(100_000, self.sorted_keys.shape[0] // 8):
            self._merge()

    def _merge(self) -> None:
        keys = np.concatenate([self.sorted_keys, *self.delta_keys])
        seqs = np.concatenate([self.sorted_seqs, *self.delta_seqs])
        order = np.argsort(keys, kind="stable")
        self.sorted_keys, self.sorted_seqs = keys[order], seqs[order]
        self.delta_keys, self.delta_seqs = [], []

    def query(self, keys: np.ndarray) -> int:
        comp = self._composite(keys).ravel()
        lo = np.searchsorted(self.sorted_keys, comp, "left")
        hi = np.searchsorted(self.sorted_keys, comp, "right")
        found = [self.sorted_seqs[a:b] for a, b in zip(lo[hi > lo], hi[hi > lo])]
        for dk, ds in zip(self.delta_keys, self.delta_seqs):
            found.append(ds[np.isin(dk, comp)])
        seqs = np.unique(np.concatenate(found)) if found else np.zeros(0, np.int64)
        if self.mm is None or self.mm.shape[0] < (seqs.max(initial=-1) + 1) * self.ROW:
            self.mm = np.memmap(self.path / "sketches.log", np.uint8, "r")
        rows = [bytes(self.mm[s * self.ROW:(s + 1) * self.ROW]) for s in seqs]
        return len(rows)

    def close(self) -> None:
        self.fh.close()
        self.keyfh.close()


def reopen_log(path: Path) -> float:
    """Seconds to rebuild the log store's key table from its key log (what opening costs)."""
    t = time.perf_counter()
    raw = np.fromfile(path / "keys.log", np.uint8)
    # records: per batch, comp keys then seqs of equal count; rebuild by scanning is format-specific,
    # here approximated by one sort of all keys (the dominant cost)
    keys = raw[: raw.shape[0] // 16 * 8].view(np.uint64)
    np.argsort(keys, kind="stable")
    return time.perf_counter() - t


def run(store_cls, docs: int, workdir: Path, seed: int) -> dict:
    path = workdir / store_cls.name
    path.mkdir()
    store = store_cls(path)
    method = MinHashMethod()
    rng = np.random.default_rng(seed)
    insert_batch, query_batch = 1000, 100
    kept = []
    t0 = time.perf_counter()
    for start in range(0, docs, insert_batch):
        n = min(insert_batch, docs - start)
        sig = make_batch(rng, n)
        sizes = np.full(n, 300, np.int64)
        blobs = [s.tobytes() + z.tobytes() for s, z in zip(sig, sizes)]
        from neardup.methods.base import Sketches

        keys, _ = method.keys(Sketches(np.ones(n, bool), {"signatures": sig, "sizes": sizes}))
        store.insert(start, blobs, keys)
        if start % 50_000 == 0:
            kept.append(sig[:query_batch // 2])
    insert_s = time.perf_counter() - t0
    probes = 0
    t0 = time.perf_counter()
    rounds = 50
    for r in range(rounds):
        sig = np.concatenate([kept[r % len(kept)], make_batch(rng, query_batch // 2)])
        from neardup.methods.base import Sketches

        keys, _ = method.keys(Sketches(np.ones(sig.shape[0], bool), {"signatures": sig}))
        store.query(keys)
        probes += sig.shape[0]
    query_s = time.perf_counter() - t0
    store.close()
    size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    out = {"store": store_cls.name, "docs": docs, "insert_docs_per_s": docs / insert_s,
           "query_docs_per_s": probes / query_s, "bytes_per_doc": size / docs}
    t0 = time.perf_counter()
    if store_cls is LogStore:
        out["open_s"] = reopen_log(path)
    else:
        store = store_cls(path)
        store.close()
        out["open_s"] = time.perf_counter() - t0
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=1_000_000)
    ap.add_argument("--stores", default="sqlite,lmdb,log")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dir", help="scratch folder (default: a temporary one, removed at the end)")
    args = ap.parse_args()
    numba.set_num_threads(1)  # small batches: a parallel launch costs more than the work (see neardup.online)
    classes = {c.name: c for c in (SQLiteStore, LMDBStore, LogStore)}
    work = Path(args.dir or tempfile.mkdtemp(prefix="bench-storage-"))
    try:
        print(f"{args.docs:,} minhash documents, 18 band keys each; inserts in batches of 1,000, queries of 100")
        print("| store | insert docs/s | query docs/s | bytes/doc | open s |")
        print("|---|---|---|---|---|")
        for name in args.stores.split(","):
            r = run(classes[name], args.docs, work, args.seed)
            print(f"| {r['store']} | {r['insert_docs_per_s']:,.0f} | {r['query_docs_per_s']:,.0f} | "
                  f"{r['bytes_per_doc']:,.0f} | {r['open_s']:.2f} |", flush=True)
    finally:
        if not args.dir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
