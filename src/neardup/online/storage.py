"""The online index on disk: one SQLite database in WAL mode, a manifest with a format version, a writer lock.

Chosen by measurement (``bench/bench_storage.py``, README "neardup index"): an
append-only log with in-memory key arrays inserts fastest but must rebuild its key
table on every open and would need its own crash recovery, compaction and reader
protocol; LMDB reads about as fast as SQLite, writes faster, but its files are 3 x
larger and its Python binding looks keys up one call at a time; SQLite gives
transactions (a batch is all there or not at all after ``kill -9`` or a power cut),
one writer beside many readers in other processes (WAL), ``VACUUM``, and a file format
any language reads, from Python's standard library.

Tables (format version :data:`FORMAT_VERSION`)::

    meta(key TEXT PRIMARY KEY, value TEXT)         -- the manifest, JSON values
    docs(seq INTEGER PRIMARY KEY, id TEXT UNIQUE, time REAL, added REAL, size INTEGER,
         cols BLOB, lists BLOB)                    -- a document's sketch row (layout in meta)
    keys(key, slot, seq) WITHOUT ROWID             -- band / table keys (minhash, simhash)
    postings(hash, seq) WITHOUT ROWID              -- feature hashes (ffp, spotsigs); also
                                                      their document frequencies

and, in an index made with ``--partial`` (format version 2; an index without it is
written as version 1, so an older neardup still reads it, and refuses a partial one)::

    align(seq INTEGER PRIMARY KEY, words BLOB, seeds BLOB)
                                                   -- a document's word character offsets
                                                      (int32 start, end) and its seed keys
                                                      (uint64, one per word position)
    seeds(key, seq, pos) WITHOUT ROWID             -- the aligner's inverted index: seed
                                                      key -> document, word position

Keys and hashes are stored as signed 64-bit integers (the bits of the uint64).  The
database's ``application_id`` marks it as neardup's, so a foreign SQLite file, a
damaged file and a newer format each give one clear error.

Durability: ``journal_mode=WAL`` with ``synchronous=FULL`` (the default): the WAL is
fsynced at every commit, so an acknowledged add survives a power cut.  ``normal``
fsyncs only at checkpoints: commits survive the process being killed, but the last
ones may be lost to a power cut; it is faster for bulk loads.

Length: every SQL statement of the index in one place, so the schema and its uses change together.
"""

from __future__ import annotations

import errno
import fcntl
import functools
import inspect
import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ..errors import UserError

FORMAT = "neardup-index"
#: The newest format this neardup reads and writes (2: ``--partial`` tables); indexes
#: without ``--partial`` are still written as version 1, which they are.
FORMAT_VERSION = 2
PLAIN_VERSION = 1
#: ``PRAGMA application_id`` of a neardup index ("NDUX").
APPLICATION_ID = 0x4E445558
DB_NAME = "index.sqlite"
LOCK_NAME = "writer.lock"
SYNC_MODES = ("full", "normal")
#: Index files up to this size get SQLite's ``quick_check`` on every open (its time grows with
#: the file: docs/costs.md).
QUICK_CHECK_BYTES = 64 << 20
#: Parameters per SQL statement (SQLite allows 32,766).
CHUNK = 30000

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE docs(seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, time REAL, added REAL NOT NULL,
                  size INTEGER NOT NULL, cols BLOB NOT NULL, lists BLOB NOT NULL);
CREATE INDEX docs_time ON docs(time);
CREATE TABLE keys(key INTEGER NOT NULL, slot INTEGER NOT NULL, seq INTEGER NOT NULL,
                  PRIMARY KEY(key, slot, seq)) WITHOUT ROWID;
CREATE TABLE postings(hash INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY(hash, seq)) WITHOUT ROWID;
"""
#: The aligner's tables (an index made with ``--partial``; format version 2).
PARTIAL_SCHEMA = """
CREATE TABLE align(seq INTEGER PRIMARY KEY, words BLOB NOT NULL, seeds BLOB NOT NULL);
CREATE TABLE seeds(key INTEGER NOT NULL, seq INTEGER NOT NULL, pos INTEGER NOT NULL,
                   PRIMARY KEY(key, seq, pos)) WITHOUT ROWID;
"""


#: SQLite's primary result codes (``sqlite3.Error.sqlite_errorcode & 0xff``) neardup tells apart.
_SQLITE_ERROR, _SQLITE_PERM, _SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_NOMEM, _SQLITE_READONLY = 1, 3, 5, 6, 7, 8
_SQLITE_IOERR, _SQLITE_CORRUPT, _SQLITE_FULL, _SQLITE_CANTOPEN, _SQLITE_NOTADB = 10, 11, 13, 14, 26
_RESOURCE = (_SQLITE_PERM, _SQLITE_NOMEM, _SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_CANTOPEN)


def sqlite_fault(exc: sqlite3.Error, path: str | os.PathLike[str]) -> Exception:
    """What an SQLite error means for the user: damage only when the file's content is wrong.

    A full disk is ``OSError(ENOSPC)``; a file that cannot be opened or read (too many open
    files, no permission, an I/O error, no memory) is the ``OSError`` the system gives when
    the file is opened directly (so ``EMFILE`` says "Too many open files"), never "damaged";
    a busy or locked database is said to be busy; malformed pages, a file that is not a
    database and a schema without neardup's tables are :class:`Damaged`.
    """
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if primary == _SQLITE_FULL:
        return OSError(errno.ENOSPC, f"No space left on device (SQLite: {exc})", str(path))
    if primary in _RESOURCE:
        try:
            os.close(os.open(path, os.O_RDONLY))
        except OSError as probe:
            return probe
        return OSError(errno.EIO, f"cannot use the index file (SQLite: {exc})", str(path))
    if primary in (_SQLITE_BUSY, _SQLITE_LOCKED):
        return UserError(f"index {Path(path).parent} is busy ({exc}); try again")
    return Damaged(f"index damaged ({exc}): restore it from a copy, or rebuild it")


def damage_named(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn SQLite errors found while working into what they mean (:func:`sqlite_fault`): one line, never a traceback."""

    def named(self: Any, exc: sqlite3.DatabaseError) -> Exception:
        path = getattr(getattr(self, "store", self), "path", "index.sqlite")
        return sqlite_fault(exc, path)

    if inspect.isgeneratorfunction(func):
        @functools.wraps(func)
        def gen(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                yield from func(self, *args, **kwargs)
            except sqlite3.DatabaseError as exc:
                raise named(self, exc) from None
        return gen

    @functools.wraps(func)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return func(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            raise named(self, exc) from None
    return call


def _read_only_fs(folder: Path) -> bool:
    """Whether ``folder`` is on a file system mounted read-only (``os.access`` says writable to root)."""
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _signed(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.uint64).view(np.int64)


def _chunks(values: Sequence[Any]) -> Iterable[Sequence[Any]]:
    for i in range(0, len(values), CHUNK):
        yield values[i:i + CHUNK]


class _Closed:
    """What a closed store has for its database: any use says the index is closed (not damaged)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __getattr__(self, name: str) -> Any:
        raise UserError(f"index {self.folder} is closed")


class Damaged(UserError):
    """The index file cannot be read: not a neardup index, a newer format, or damaged."""


class Store:
    """One index folder: the database, its manifest and (for a writer) the writer lock."""

    def __init__(self, folder: str | os.PathLike[str], write: bool, sync: str | None = None,
                 verify: bool = True) -> None:
        """``sync``: how a writer's commits are made durable; None: the index's own (its manifest's,
        set at create; ``full`` for an index made before it was kept)."""
        self.folder = Path(folder)
        self.path = self.folder / DB_NAME
        self.write = write
        if sync is not None and sync not in SYNC_MODES:
            raise UserError(f"sync must be one of {', '.join(SYNC_MODES)}, got {sync!r}")
        self.sync = sync or "full"
        if not self.path.is_file():
            raise UserError(f"no index at {self.folder} (make one with `neardup index create {self.folder}`)")
        self._local = threading.local()
        #: each thread's read connection; a thread's goes when a new reader finds the thread ended
        self._readers: dict[threading.Thread, sqlite3.Connection] = {}
        self._readers_lock = threading.Lock()
        #: "read-write", "read-only" (``mode=ro``), or "read-only storage" (``immutable``: the folder
        #: cannot be written, so SQLite cannot make the WAL's -shm file; nothing may change the file meanwhile).
        self._immutable = False
        self.access = "read-write" if write else self._read_access()
        self._lock_fd: int | None = None
        try:
            self._lock_fd = self._lock() if write else None
            self.db = self._connect(writer=write)
            self.db.execute("BEGIN")  # one snapshot: a writer committing meanwhile must not look like damage
            try:
                self.manifest = self._read_manifest(self.db)
                if verify:  # off only for `index info --check`, which lists every problem itself
                    self._check_invariants(self.db, self.manifest)
            finally:
                self.db.execute("COMMIT")
            if sync is None:
                self.sync = self.manifest.get("sync", "full")
                if self.sync not in SYNC_MODES:
                    raise Damaged(f"index manifest names an unknown sync mode {self.sync!r}")
                if write:
                    self.db.execute(f"PRAGMA synchronous={self.sync.upper()}")
            if verify:
                self._quick_check()
        except Damaged as exc:  # named by the index it is about, whichever check found it
            self.close()
            if str(self.folder) in str(exc):
                raise
            raise Damaged(f"index {self.folder}: {exc}") from None
        except BaseException:
            self.close()
            raise

    def _read_access(self) -> str:
        """How a reader opens the file.  On read-only storage SQLite cannot make the WAL's -shm file:
        with both -wal and -shm there, ``mode=ro`` reads them; with neither (a cleanly closed index),
        ``immutable=1`` reads the file alone; a -wal holding commits without its -shm cannot be read."""
        if os.access(self.folder, os.W_OK) and not _read_only_fs(self.folder):
            return "read-only"
        wal, shm = self.folder / (DB_NAME + "-wal"), self.folder / (DB_NAME + "-shm")
        has_wal = wal.exists() and wal.stat().st_size > 0
        if has_wal and not shm.exists():
            raise UserError(f"index {self.folder} is on read-only storage with commits still in its write-ahead log "
                            f"({wal.name}) but no {shm.name}; copy the folder to writable storage and open it there "
                            "once")
        self._immutable = not has_wal
        return "read-only storage"

    @staticmethod
    def _check_invariants(db: sqlite3.Connection, m: dict[str, Any]) -> None:
        """Cheap checks on open (a few index look-ups, no scan): the manifest's counters are numbers and agree
        with the tables, so a tampered or bit-flipped manifest is refused before anything uses it
        (``index info --check`` verifies every page and document)."""
        for key in ("next_seq", "documents"):
            if not isinstance(m.get(key), int) or isinstance(m.get(key), bool) or m[key] < 0:
                raise Damaged(f"index manifest damaged: {key} is {m.get(key)!r}, not a count")
        try:
            top, = db.execute("SELECT max(seq) FROM docs").fetchone()
            rows, = db.execute("SELECT count(*) FROM docs").fetchone()
        except sqlite3.DatabaseError as exc:
            fault = sqlite_fault(exc, "index.sqlite")
            raise (Damaged(f"index damaged ({exc}): restore it from a copy, or rebuild it")
                   if isinstance(fault, Damaged) else fault) from None
        if top is not None and top >= m["next_seq"]:
            raise Damaged(f"index damaged: a document has sequence number {top}, the manifest's next is "
                          f"{m['next_seq']}; restore it from a copy, or rebuild it")
        if rows != m["documents"]:
            raise Damaged(f"index damaged: {rows:,} documents stored, the manifest counts {m['documents']:,}; "
                          "restore it from a copy, or rebuild it")

    def _quick_check(self) -> None:
        """SQLite's ``quick_check`` (every page's structure, no index cross-check) when the file is small
        enough for it to be cheap (:data:`QUICK_CHECK_BYTES`): a flipped bit in a page is refused on
        open, not met later in the middle of an add."""
        try:
            size = self.path.stat().st_size + sum(p.stat().st_size for p in
                                                  (self.folder / (DB_NAME + "-wal"),) if p.exists())
        except OSError:
            return
        if size > QUICK_CHECK_BYTES:
            return
        try:
            found = self.db.execute("PRAGMA quick_check(1)").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            found = str(exc)
        if found != "ok":
            raise Damaged(f"index {self.folder} damaged ({found}); restore it from a copy, or rebuild it "
                          "(`neardup index info --check` lists what is wrong)")

    # -- opening -------------------------------------------------------------------------
    @classmethod
    def create(cls, folder: str | os.PathLike[str], manifest: dict[str, Any]) -> "Store":
        """A new, empty index at ``folder`` (which must not hold one) with ``manifest``."""
        folder = Path(folder)
        if (folder / DB_NAME).exists():
            raise UserError(f"{folder} already holds an index (remove the folder to start over)")
        if folder.exists() and not folder.is_dir():
            raise UserError(f"{folder} is a file, not a folder")
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{DB_NAME}.creating-{os.getpid()}"
        tmp.unlink(missing_ok=True)
        db = sqlite3.connect(tmp, isolation_level=None)
        partial = bool(manifest.get("partial"))
        version = FORMAT_VERSION if partial else PLAIN_VERSION
        try:
            db.executescript(SCHEMA + (PARTIAL_SCHEMA if partial else ""))
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {version}")
            db.execute("BEGIN")
            meta = {"format": FORMAT, "version": version, "next_seq": 0, "documents": 0, **manifest}
            db.executemany("INSERT INTO meta VALUES (?, ?)", [(k, json.dumps(v)) for k, v in meta.items()])
            db.execute("COMMIT")
            db.execute("PRAGMA journal_mode=WAL")
        finally:
            db.close()
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(tmp, folder / DB_NAME)  # a half-made index is never found under the real name
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
        return cls(folder, write=True)

    def _lock(self) -> int:
        """Take the writer lock (one writer per index, any number of readers)."""
        path = self.folder / LOCK_NAME
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
                raise UserError(f"index {self.folder} cannot be written ({exc.strerror}): it can be read "
                                "(index query, index info), not added to") from None
            raise
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                if holder == str(os.getpid()):
                    raise UserError(f"index {self.folder} is already open for writing in this process; one "
                                    "writer at a time: use that Index (readers need no lock)") from None
                raise UserError(f"index {self.folder} is open for writing by another process (pid {holder}); "
                                "one writer at a time (readers need no lock)") from None
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        return fd

    def _connect(self, writer: bool = False) -> sqlite3.Connection:
        """A connection: the writer's, or a reader's (``mode=ro``: a reader never writes, even by accident;
        ``immutable`` on read-only storage, where SQLite cannot make the WAL's shared-memory file)."""
        db = None
        try:
            if writer:
                db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30.0)
            else:
                db = sqlite3.connect(f"{self.path.absolute().as_uri()}?{self._read_mode()}", uri=True,
                                     isolation_level=None, check_same_thread=False, timeout=30.0)
            app = db.execute("PRAGMA application_id").fetchone()[0]
            if app != APPLICATION_ID:
                raise Damaged(f"{self.path}: not a neardup index (a SQLite database of another program)")
            if writer:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(f"PRAGMA synchronous={self.sync.upper()}")
            db.execute("PRAGMA cache_size=-65536")
            db.execute("PRAGMA temp_store=MEMORY")
            return db
        except sqlite3.DatabaseError as exc:
            if db is not None:
                db.close()
            fault = sqlite_fault(exc, self.path)
            if isinstance(fault, Damaged):
                fault = Damaged(f"{self.path}: not a neardup index, or damaged ({exc})")
            raise fault from None
        except Damaged:
            if db is not None:
                db.close()
            raise

    def _read_mode(self) -> str:
        """``mode=ro``, or ``immutable=1`` on read-only storage without a WAL (:meth:`_read_access`)."""
        return "immutable=1" if self._immutable else "mode=ro"

    @staticmethod
    def _read_manifest(db: sqlite3.Connection) -> dict[str, Any]:
        try:
            rows = db.execute("SELECT key, value FROM meta").fetchall()
            meta = {k: json.loads(v) for k, v in rows}
        except (sqlite3.DatabaseError, ValueError) as exc:
            raise Damaged(f"index manifest unreadable: {exc}") from None
        if meta.get("format") != FORMAT:
            raise Damaged(f"not a neardup index (format {meta.get('format')!r})")
        version = meta.get("version")
        if not isinstance(version, int) or version > FORMAT_VERSION:
            raise Damaged(f"index format version {version} is newer than this neardup reads ({FORMAT_VERSION}); "
                          "upgrade neardup")
        if meta.get("partial") and version < 2:
            raise Damaged(f"index format version {version} cannot hold --partial; the manifest is damaged")
        return meta

    def reader(self) -> sqlite3.Connection:
        """This thread's read connection (readers never block the writer in WAL mode).  The
        connections of threads that have ended are closed here, so a host that runs each request
        on a thread of its own holds one connection per live thread, not one per thread it ever ran."""
        db = getattr(self._local, "db", None)
        if db is None:
            if isinstance(self.db, _Closed):
                raise UserError(f"index {self.folder} is closed")
            db = self._local.db = self._connect()
            with self._readers_lock:
                for gone in [t for t in self._readers if not t.is_alive()]:
                    self._readers.pop(gone).close()
                self._readers[threading.current_thread()] = db
        return db

    def close(self) -> None:
        with self._readers_lock:
            # readers first: the last connection to close checkpoints the WAL into the file and removes
            # it, which a read-only connection cannot do (an index copied to read-only storage then
            # carries its last commits in a -wal file beside it)
            for db in [*self._readers.values(), getattr(self, "db", None)]:
                if db is not None and not isinstance(db, _Closed):
                    db.close()
            self._readers.clear()
        self.db = _Closed(self.folder)  # type: ignore[assignment]
        self._local = threading.local()  # no thread keeps a closed connection
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    # -- writing -------------------------------------------------------------------------
    def set_meta(self, key: str, value: Any) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))
        self.manifest[key] = value

    def count_documents(self, delta: int) -> None:
        """Keep the document count in the manifest (``len`` without scanning the table), in the transaction."""
        self.db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'documents'", (delta,))

    @staticmethod
    def documents(db: sqlite3.Connection) -> int:
        return int(db.execute("SELECT value FROM meta WHERE key = 'documents'").fetchone()[0])

    def insert_docs(self, seqs: np.ndarray, ids: Sequence[str], times: Sequence[float | None], added: float,
                    sizes: np.ndarray, cols: Sequence[bytes], lists: Sequence[bytes]) -> None:
        self.db.executemany("INSERT INTO docs VALUES (?, ?, ?, ?, ?, ?, ?)",
                            zip(seqs.tolist(), ids, times, [added] * len(ids), sizes.tolist(), cols, lists))
        self.count_documents(len(ids))

    def insert_keys(self, seqs: np.ndarray, keys: np.ndarray) -> None:
        """Rows in key order: the B-tree is filled page by page, not at random places."""
        n, slots = keys.shape
        flat = _signed(keys).ravel()
        order = np.argsort(flat, kind="stable")
        self.db.executemany("INSERT INTO keys VALUES (?, ?, ?)", zip(
            flat[order].tolist(), np.tile(np.arange(slots), n)[order].tolist(), np.repeat(seqs, slots)[order].tolist()))

    def delete_keys(self, seqs: np.ndarray, keys: np.ndarray) -> None:
        n, slots = keys.shape
        self.db.executemany("DELETE FROM keys WHERE key = ? AND slot = ? AND seq = ?", zip(
            _signed(keys).ravel().tolist(), np.tile(np.arange(slots), n).tolist(), np.repeat(seqs, slots).tolist()))

    def insert_postings(self, seqs: np.ndarray, hashes: np.ndarray, offsets: np.ndarray) -> None:
        flat = _signed(hashes)
        order = np.argsort(flat, kind="stable")  # in key order, as insert_keys
        self.db.executemany("INSERT OR IGNORE INTO postings VALUES (?, ?)",
                            zip(flat[order].tolist(), np.repeat(seqs, np.diff(offsets))[order].tolist()))

    def delete_postings(self, seqs: np.ndarray, hashes: np.ndarray, offsets: np.ndarray) -> None:
        self.db.executemany("DELETE FROM postings WHERE hash = ? AND seq = ?",
                            zip(_signed(hashes).tolist(), np.repeat(seqs, np.diff(offsets)).tolist()))

    def insert_align(self, seqs: np.ndarray, words: Sequence[bytes], seeds: Sequence[bytes], keys: np.ndarray,
                     seq_of: np.ndarray, pos: np.ndarray) -> None:
        """The aligner's rows of new documents: per document its word offsets and seed keys
        (bytes), and every seed ``(key, seq_of, pos)`` into the inverted index, in key order."""
        self.db.executemany("INSERT INTO align VALUES (?, ?, ?)", zip(seqs.tolist(), words, seeds))
        flat = _signed(keys)
        order = np.lexsort((pos, seq_of, flat))
        self.db.executemany("INSERT INTO seeds VALUES (?, ?, ?)",
                            zip(flat[order].tolist(), seq_of[order].tolist(), pos[order].tolist()))

    def delete_align(self, seqs: np.ndarray, keys: np.ndarray, seq_of: np.ndarray, pos: np.ndarray) -> None:
        """Remove documents' aligner rows and their seeds ``(key, seq_of, pos)``."""
        self.db.executemany("DELETE FROM seeds WHERE key = ? AND seq = ? AND pos = ?",
                            zip(_signed(keys).tolist(), seq_of.tolist(), pos.tolist()))
        self.db.executemany("DELETE FROM align WHERE seq = ?", ((s,) for s in seqs.tolist()))

    def delete_docs(self, seqs: np.ndarray) -> None:
        self.db.executemany("DELETE FROM docs WHERE seq = ?", ((s,) for s in seqs.tolist()))
        self.count_documents(-int(seqs.shape[0]))

    # -- reading (any connection) --------------------------------------------------------
    @staticmethod
    def existing_ids(db: sqlite3.Connection, ids: Sequence[str]) -> set[str]:
        found: set[str] = set()
        for part in _chunks(list(ids)):
            q = f"SELECT id FROM docs WHERE id IN ({','.join('?' * len(part))})"
            found.update(r[0] for r in db.execute(q, part))
        return found

    @staticmethod
    def key_matches(db: sqlite3.Connection, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(key, slot, seq)`` of every stored key equal to one of ``keys`` (any slot)."""
        uniq = np.unique(_signed(keys).ravel()).tolist()
        out: list[tuple[int, int, int]] = []
        for part in _chunks(uniq):
            out += db.execute(f"SELECT key, slot, seq FROM keys WHERE key IN ({','.join('?' * len(part))})",
                              part).fetchall()
        arr = np.array(out, dtype=np.int64).reshape(-1, 3)
        return arr[:, 0].view(np.uint64), arr[:, 1], arr[:, 2]

    @staticmethod
    def posting_matches(db: sqlite3.Connection, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(hash, seq)`` of every stored posting of one of ``hashes``."""
        uniq = np.unique(_signed(hashes)).tolist()
        out: list[tuple[int, int]] = []
        for part in _chunks(uniq):
            out += db.execute(f"SELECT hash, seq FROM postings WHERE hash IN ({','.join('?' * len(part))})",
                              part).fetchall()
        arr = np.array(out, dtype=np.int64).reshape(-1, 2)
        return arr[:, 0].view(np.uint64), arr[:, 1]

    @staticmethod
    def doc_heads(db: sqlite3.Connection, seqs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(seq, size, time)`` of the stored documents among ``seqs`` (sorted by seq; time NaN if none)."""
        out: list[tuple[int, int, float | None]] = []
        for part in _chunks(np.unique(seqs).tolist()):
            out += db.execute(f"SELECT seq, size, time FROM docs WHERE seq IN ({','.join('?' * len(part))}) "
                              "ORDER BY seq", part).fetchall()
        seq = np.array([r[0] for r in out], dtype=np.int64)
        size = np.array([r[1] for r in out], dtype=np.int64)
        times = np.array([np.nan if r[2] is None else r[2] for r in out], dtype=np.float64)
        return seq, size, times

    @staticmethod
    def fetch(db: sqlite3.Connection, seqs: np.ndarray
              ) -> tuple[np.ndarray, list[str], np.ndarray, list[bytes], list[bytes]]:
        """``(seq, id, time, cols, lists)`` of the stored documents among ``seqs``, sorted by seq (time NaN if none)."""
        out: list[tuple[int, str, float | None, bytes, bytes]] = []
        for part in _chunks(np.unique(seqs).tolist()):
            out += db.execute(f"SELECT seq, id, time, cols, lists FROM docs WHERE seq IN "
                              f"({','.join('?' * len(part))}) ORDER BY seq", part).fetchall()
        times = np.array([np.nan if r[2] is None else r[2] for r in out], dtype=np.float64)
        return (np.array([r[0] for r in out], dtype=np.int64), [r[1] for r in out], times, [r[3] for r in out],
                [r[4] for r in out])

    @staticmethod
    def seed_matches(db: sqlite3.Connection, keys: np.ndarray, limit: int
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(key, seq, pos)`` of the stored seeds with one of ``keys``: the first ``limit`` of each key
        (by seq, pos), so a boilerplate seed costs at most ``limit`` rows however common it is."""
        uniq = np.unique(_signed(keys)).tolist()
        out: list[tuple[int, int, int]] = []
        for part in _chunks(uniq):
            out += db.execute(
                "SELECT key, seq, pos FROM (SELECT key, seq, pos, row_number() OVER (PARTITION BY key ORDER BY seq, pos)"
                f" AS r FROM seeds WHERE key IN ({','.join('?' * len(part))})) WHERE r <= ?", [*part, limit]).fetchall()
        arr = np.array(out, dtype=np.int64).reshape(-1, 3)
        return arr[:, 0].view(np.uint64), arr[:, 1], arr[:, 2]

    @staticmethod
    def fetch_align(db: sqlite3.Connection, seqs: np.ndarray, what: str = "words"
                    ) -> tuple[np.ndarray, list[str], list[bytes]]:
        """``(seq, id, words|seeds bytes)`` of the stored documents among ``seqs``, sorted by seq."""
        assert what in ("words", "seeds")
        out: list[tuple[int, str, bytes]] = []
        for part in _chunks(np.unique(seqs).tolist()):
            out += db.execute(f"SELECT a.seq, d.id, a.{what} FROM align a JOIN docs d ON d.seq = a.seq WHERE a.seq IN "
                              f"({','.join('?' * len(part))}) ORDER BY a.seq", part).fetchall()
        return np.array([r[0] for r in out], dtype=np.int64), [r[1] for r in out], [r[2] for r in out]
