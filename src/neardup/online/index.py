"""A persistent near-duplicate index: check and add documents as they arrive, across runs.

    from neardup.online import Index

    with Index.create("idx", method="minhash", threshold=0.8) as index:   # or Index.open("idx")
        for doc in index.add([{"id": "a", "text": "..."}, ("b", "...")]):
            print(doc.id, [(m.id, m.score, m.relation) for m in doc.matches])
        index.query([("c", "...")])       # check only
        index.remove(["a"]); len(index)

``add`` answers, for each new document, its matches among what the index held plus the
earlier documents of the same call (in input order), then stores it.  A document is
sketched by the method's own stages (``method.finish([method.sketch(method.prepare(texts))])``,
row by row the same as in a batch run for the online methods, :mod:`.schemes`); its
candidates come from stored keys or postings, and are scored by ``method.score`` on a
small :class:`Sketches` of the stored candidates plus the new documents (:mod:`.checker`).  So adding a
corpus one document at a time, or in any batches, gives ``neardup dedup``'s pairs with
``dedup``'s scores, and the same index.

Each call to ``add`` commits one transaction per batch (``batch_size`` documents):
after it returns, the documents are on disk (:mod:`.storage` for durability).  A
window (``window="7d"`` or ``window=10000``) keeps only recent documents (by ``time``/``date``
field, else arrival time; or by count): a new document is compared only with the documents
still held when it arrives and inside its window both ways, and those it pushes out of the
window are evicted; one dated before a time window's horizon is *late*, checked but not
added.  The rule is applied per document of a batch (:mod:`.window`), and a batch that
replaces stored documents (``on_duplicate="replace"``) is worked in pieces cut at each
replacing record, so the batch size never changes an answer.

An index made with ``partial=True`` (``index create --partial``) also answers each new
document's copied passages with earlier ones, located by characters (:mod:`.passages`:
``neardup partial``'s aligner against the stored seeds); :attr:`Checked.partials`.

Length: one class, the index's life -- opening and its manifest, the input stage, the add path whose
check, insert and eviction steps share one transaction per batch (with replacements and the window),
query, remove and the inspections; what a batch matches (candidates, scores, relations) is in
:mod:`.checker`, the answers and key joins in :mod:`.matches`, the window's per-document rule in
:mod:`.window`, storage in :mod:`.storage`.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np

from ..errors import InputError, UserError
from ..extract import DEFAULT_EXTRACTOR, get_extractor
from ..input_stage import batches
from ..io.readers import FIELDS, Fields, Record, Rejection
from ..io.records import record_time
from ..job import RunStats
from ..methods import DEFAULT_METHOD, get_method
from ..methods.base import Method, Sketches
from ..align.aligner import AlignParams
from ..text.normalize import FIRST_WORDS_VERSION, WORDS_VERSION
from ..windows import TIME_WINDOW, parse_window
from .checker import Batch, Checker
from .layout import SketchLayout
from .matches import Checked, kernel_threads
from .passages import Seeds, stored_seeds
from .schemes import KeyScheme, probe_sketch, scheme_for
from .storage import SYNC_MODES, Damaged, Store, damage_named
from .window import Held

#: Documents per transaction of ``add`` (and per sketching batch of ``query``).
BATCH_SIZE = 1000
#: What adding a document whose id is already in the index does (:meth:`Index.add`).
ON_DUPLICATE = ("reject", "skip", "replace", "fail")


class Index:
    """A persistent index of one method's sketches (see the module docstring)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.path = store.folder
        try:
            self._read_manifest(store.manifest)
        except BaseException:
            store.close()
            raise
        #: documents the window evicted while this object added documents (not counting ``compact``)
        self.evicted = 0
        #: documents this object checked but did not add: dated before a time window's horizon (:mod:`.window`)
        self.late = 0
        #: The input account of the last :meth:`add` / :meth:`query` given no ``stats``.
        self.last_stats = RunStats()
        #: One write at a time: threads sharing this object take turns (one transaction each).
        self._writing = threading.Lock()

    def _read_manifest(self, m: dict[str, Any]) -> None:
        """The method, layout, key scheme, window, extractor and aligner the manifest names; a manifest
        that does not name them (tampered, damaged) is one :class:`Damaged` line, never a traceback."""
        try:
            self.method: Method = get_method(m["method"], **m["params"])
            self.layout = SketchLayout.from_json(m["layout"])
            self.scheme = KeyScheme.from_json(m["scheme"])
            if self.scheme.kind != scheme_for(self.method).kind:
                raise ValueError(f"key scheme {self.scheme.kind!r} is not {self.method.name}'s")
            self.window_kind, self.window_size = parse_window(m.get("window"))
            self.extract: str = m.get("extract", DEFAULT_EXTRACTOR)
            get_extractor(self.extract)
            #: The aligner's knobs when the index finds copied passages too (``create(partial=...)``), else None.
            self.partial: AlignParams | None = AlignParams(**m["partial"]) if m.get("partial") else None
            if self.partial is not None:
                self.partial.check()
            self.checker = Checker(self.method, self.scheme, self.layout, self.partial)
            self.threshold = self.checker.threshold
            probe = SketchLayout.of(probe_sketch(self.method))
        except Damaged:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise Damaged(f"index {self.path}: manifest damaged ({type(exc).__name__}: {exc}); restore it from a "
                          "copy, or rebuild it") from None
        if probe != self.layout:
            raise Damaged(f"index {self.path} was made by a neardup whose {self.method.name} sketches differ "
                          "from this one's; rebuild it")

    # -- opening -------------------------------------------------------------------------
    @classmethod
    def create(cls, path: str | Path, method: str = DEFAULT_METHOD, window: str | int | None = None,
               sync: str = "full", extract: str = DEFAULT_EXTRACTOR, partial: bool | AlignParams = False,
               **params: Any) -> "Index":
        """A new empty index at ``path`` for ``method`` with ``params`` (refused if the method cannot be online).

        ``partial`` (True, or :class:`~neardup.align.aligner.AlignParams`): also keep each
        document's seeds and word offsets, and answer the passages it shares with earlier
        documents (:mod:`.passages`); a property of the index, in its manifest.
        """
        if sync not in SYNC_MODES:
            raise UserError(f"sync must be one of {', '.join(SYNC_MODES)}, got {sync!r}")
        get_extractor(extract)  # an unknown one is refused before any file is made
        if not isinstance(partial, (bool, AlignParams)):
            raise UserError(f"partial must be True, False or AlignParams, got {partial!r}")
        m = get_method(method, **params)
        scheme = scheme_for(m)
        parse_window(window)
        align = (AlignParams() if partial is True else partial) or None
        if align is not None:
            align.check()
        manifest = {
            "method": method, "params": m.get_params(), "layout": SketchLayout.of(probe_sketch(m)).as_json(),
            "scheme": scheme.as_json(), "window": None if window is None else str(window), "extract": extract,
            "created": datetime.now().astimezone().isoformat(timespec="seconds"),
            "partial": None if align is None else dataclasses.asdict(align), "sync": sync, "words": WORDS_VERSION,
        }
        return cls(Store.create(path, manifest))

    @classmethod
    def open(cls, path: str | Path, write: bool = True, sync: str | None = None, create: bool = False,
             verify: bool = True, **create_args: Any) -> "Index":
        """The index at ``path``; with ``create``, a new one (``create_args``: as :meth:`create`) if there is none.

        ``write=False`` opens it for reading only (no writer lock: any number of readers
        beside the one writer).  ``verify``: refuse a damaged index on open (the manifest's
        counts against the tables, and SQLite's ``quick_check`` on files up to 64 MiB);
        off, it opens whatever :meth:`check` should look at.  ``sync``: how this writer's commits
        are made durable (``full``, ``normal``); None: as the index was created with.
        """
        if create and not (Path(path) / "index.sqlite").exists():
            return cls.create(path, sync=sync or "full", **create_args)
        index = cls(Store(path, write, sync, verify))
        if create and create_args:
            index._same_as(create_args)
        return index

    def _same_as(self, create_args: dict[str, Any]) -> None:
        """Refuse (closing it) an existing index opened with ``create=True`` for another method, window,
        extractor or method parameters than it was made with: a silent open used the old settings."""
        made = {"method": self.method.name, **self.method.get_params(), "window": self.info()["window"],
                "extract": self.extract, "partial": self.partial is not None}
        asked = {k: (str(v) if k == "window" and v is not None else bool(v) if k == "partial" else v)
                 for k, v in create_args.items()}
        differ = {k: v for k, v in asked.items() if k in made and made[k] != v}
        if differ:
            self.close()
            said = ", ".join(f"{k} {v!r} (it has {made[k]!r})" for k, v in differ.items())
            raise UserError(f"index {self.path} exists, made otherwise than asked: {said}; open it without "
                            "those arguments, or create another")

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> "Index":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @damage_named
    def __len__(self) -> int:
        return Store.documents(self.store.reader())

    @damage_named
    def __contains__(self, doc_id: str) -> bool:
        return bool(Store.existing_ids(self.store.reader(), [doc_id]))

    # -- the input stage -----------------------------------------------------------------
    def _batches(self, records: Iterable[Any], stats: RunStats, strict: bool, fields: Fields,
                 batch_size: int) -> Iterator[Batch]:
        """Documents in batches, sketched; rejections (bad records, bad times, no words) counted."""
        def admit(record: Record) -> float | Rejection:
            try:
                t = record_time(record)
            except ValueError as exc:
                return Rejection(record.source, record.line, "invalid time", str(exc)[:200])
            return np.nan if t is None else t

        for b in batches(records, self.extract, stats, strict, fields, batch_bytes=None, batch_docs=batch_size,
                         admit=admit):
            yield self._sketch(b.ids, b.texts, b.values, [b.where(i) for i in range(len(b))], stats, strict)

    def _sketch(self, ids: list[str], texts: list[str], times: list[float], where: list[tuple[str, int | None]],
                stats: RunStats, strict: bool) -> Batch:
        m = self.method
        with kernel_threads(len(texts)):
            sk = m.finish([m.sketch(m.prepare(texts))])
            seeds = Seeds.of(texts, self.partial.n) if self.partial is not None else None
        bad = np.flatnonzero(~sk.usable)
        for i in bad.tolist():
            stats.reject(Rejection(*where[i], "no words", ids[i]), strict)
        if bad.size:
            keep = np.flatnonzero(sk.usable)
            sk = sk.take(keep)
            seeds = seeds.take(keep) if seeds is not None else None
            ids = [ids[i] for i in keep.tolist()]
            where = [where[i] for i in keep.tolist()]
            times = [times[i] for i in keep.tolist()]
        return Batch(ids, np.array(times, dtype=np.float64), where, sk, seeds)

    def _held(self, db: Any, times: np.ndarray, first: int, adding: bool) -> Held:
        """The window's rule for a batch of documents dated ``times``, numbered from ``first`` (:mod:`.window`)."""
        newest = db.execute("SELECT max(time) FROM docs").fetchone()[0] if self.window_kind == TIME_WINDOW else None
        return Held(self.window_kind, self.window_size, first, times, newest, adding)

    # -- the API -------------------------------------------------------------------------
    def add(self, records: Iterable[Any], *, fields: Fields = FIELDS, strict: bool = False,
            stats: RunStats | None = None, batch_size: int = BATCH_SIZE,
            on_duplicate: str = "reject") -> list[Checked]:
        """Check and add: each new document's matches among the index and the earlier ones of ``records``.

        Accepts what :meth:`Deduplicator.run` accepts.  Records that cannot be used
        (no text, no words, ...) are counted in ``stats``
        (or :attr:`last_stats`) and left out, or with ``strict`` raise
        :class:`~neardup.errors.InputError` before anything of their batch is written.
        One transaction per ``batch_size`` documents: when a batch's answers are
        returned (or the call returns), that batch is on disk.  With a time window, a
        document dated before the window's horizon is checked but not added
        (:attr:`Checked.late`; counted in :attr:`late`).

        ``on_duplicate``: what a record whose id is already in the index does (one of
        :data:`ON_DUPLICATE`): ``reject`` -- counted as a rejection ("duplicate id") and left
        out; ``skip`` -- left out, counted under ``skipped`` (not read, not an error);
        ``replace`` -- the stored document is removed when the record comes (the records before it
        in the input see the old version), and the new one checked and added;
        ``fail`` -- :class:`~neardup.errors.InputError` before anything of its batch is written.
        """
        return list(self.add_stream(records, fields=fields, strict=strict, stats=stats, batch_size=batch_size,
                                    on_duplicate=on_duplicate))

    @damage_named
    def add_stream(self, records: Iterable[Any], *, fields: Fields = FIELDS, strict: bool = False,
                   stats: RunStats | None = None, batch_size: int = BATCH_SIZE,
                   on_duplicate: str = "reject") -> Iterator[Checked]:
        """:meth:`add`, yielding each batch's answers once the batch is committed (for large inputs)."""
        if not self.store.write:
            raise UserError(f"index {self.path} was opened for reading only")
        if on_duplicate not in ON_DUPLICATE:
            raise UserError(f"on_duplicate must be one of {', '.join(ON_DUPLICATE)}, not {on_duplicate!r}")
        stats = self._stats(stats)
        for batch in self._batches(records, stats, strict, fields, batch_size):
            with kernel_threads(len(batch.ids)), self._writing:
                done = self._add_batch(batch, stats, strict, on_duplicate)
            yield from done

    def _add_batch(self, batch: Batch, stats: RunStats, strict: bool, on_duplicate: str = "reject") -> list[Checked]:
        """Check and add one batch in one transaction.  With ``replace``, the batch is worked in pieces,
        each starting at a record that replaces a stored document: the records before it see the old
        version, it and the later ones the new one (input order, as one at a time)."""
        db = self.store.db
        db.execute("BEGIN IMMEDIATE")
        try:
            known = Store.existing_ids(db, batch.ids)
            cuts = [0]
            if known and on_duplicate == "replace":
                cuts = sorted({0, *(i for i, d in enumerate(batch.ids) if d in known)})
            elif known:
                batch = self._without(batch, known, stats, strict, on_duplicate)
            now = time.time()
            if self.window_kind == TIME_WINDOW:  # documents without a time are placed at their arrival
                batch.times = np.where(np.isnan(batch.times), now, batch.times)
            done: list[Checked] = []
            evicted = late = 0
            for lo, hi in zip(cuts, cuts[1:] + [len(batch.ids)]):
                piece = batch if len(cuts) == 1 else batch.take(np.arange(lo, hi, dtype=np.int64))
                if piece.ids and piece.ids[0] in known and on_duplicate == "replace":
                    self._replace(db, piece.ids[0], stats)  # gone already if an earlier piece evicted it
                checked, gone = self._add_piece(db, piece, now)
                done += checked
                evicted += gone
                late += sum(c.late for c in checked)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            self.store.manifest["next_seq"] = self._read_next_seq()
            raise
        stats.kept += len(done)
        self.evicted += evicted
        self.late += late
        return done

    def _add_piece(self, db: Any, batch: Batch, now: float) -> tuple[list[Checked], int]:
        """Check a batch (or a piece of one) against the documents each sees, evict, store the documents
        still held after it (inside the caller's transaction); its answers and how many were evicted."""
        n = len(batch.ids)
        if not n:
            return [], 0
        first = int(self.store.manifest["next_seq"])
        held = self._held(db, batch.times, first, adding=True)
        found = self.checker.check(db, batch, held)
        partials = self.checker.passages(db, batch, held)
        evicted = self._evict(db, held) + int((~held.kept & ~held.late).sum())
        keep = np.flatnonzero(held.kept)
        if keep.size:
            kept = batch.take(keep) if keep.size < n else batch
            seqs = held.seqs[keep]
            cols, lists = self.layout.encode(kept.sk)
            sizes = self.checker.feature_sizes(kept.sk)
            times = [None if math.isnan(t) else t for t in kept.times.tolist()]
            self.store.insert_docs(seqs, kept.ids, times, now,
                                   sizes if sizes is not None else np.zeros(keep.size, np.int64), cols, lists)
            self._index_rows(seqs, kept.sk, insert=True)
            if kept.seeds is not None:
                row, pos = kept.seeds.rows()
                self.store.insert_align(seqs, *kept.seeds.as_bytes(), kept.seeds.keys, seqs[row], pos)
        self.store.set_meta("next_seq", first + n)  # a late document has a seq too, as one at a time
        late = held.late.tolist()
        return [Checked(i, Checker.best_first(f), not x, p, x) for i, f, p, x in zip(batch.ids, found, partials, late)], evicted

    def _read_next_seq(self) -> int:
        import json

        return int(json.loads(self.store.db.execute("SELECT value FROM meta WHERE key='next_seq'").fetchone()[0]))

    def _replace(self, db: Any, doc_id: str, stats: RunStats) -> None:
        """Remove the stored document a record replaces (inside the batch's transaction)."""
        seqs = [r[0] for r in db.execute("SELECT seq FROM docs WHERE id = ?", (doc_id,))]
        if seqs:
            self._delete(np.array(seqs, dtype=np.int64))
            stats.notes["documents replaced (--on-duplicate-id replace)"] += len(seqs)

    def _without(self, batch: Batch, known: set[str], stats: RunStats, strict: bool,
                 on_duplicate: str = "reject") -> Batch:
        keep = [i for i, d in enumerate(batch.ids) if d not in known]
        for i, d in enumerate(batch.ids):
            if d not in known:
                continue
            if on_duplicate == "fail":
                where = Rejection(*batch.where[i], "duplicate id").message()
                raise InputError(f"{where}: {d} is already in the index (--on-duplicate-id skip leaves such "
                                 f"documents out, replace stores the new version)")
            if on_duplicate == "skip":
                stats.read -= 1  # counted apart, as the other input that is not read
                stats.reject(Rejection(*batch.where[i], "id already in the index", d, skipped=True))
            else:
                stats.reject(Rejection(*batch.where[i], "duplicate id", f"{d} is already in the index"), strict)
        rows = np.array(keep, dtype=np.int64)
        return Batch([batch.ids[i] for i in keep], batch.times[keep], [batch.where[i] for i in keep],
                      batch.sk.take(rows), batch.seeds.take(rows) if batch.seeds is not None else None)

    def _index_rows(self, seqs: np.ndarray, sk: Sketches, insert: bool) -> None:
        """Post (or unpost) the keys or feature hashes of rows ``sk`` stored under ``seqs``."""
        if self.scheme.kind == "keys":
            with kernel_threads(len(sk)):
                keys = self.scheme.keys(self.method, sk)
            (self.store.insert_keys if insert else self.store.delete_keys)(seqs, keys)
        else:
            assert sk.offsets is not None  # a posting scheme's method keeps feature lists
            (self.store.insert_postings if insert else self.store.delete_postings)(
                seqs, sk.lists["hashes"], sk.offsets)

    def _evict(self, db: Any, held: Held) -> int:
        """Remove the stored documents no document after ``held``'s batch sees (outside the window); how many."""
        gone = held.gone_by(held.n)
        if gone is None:
            return 0
        column, bound = gone
        rows = db.execute(f"SELECT seq FROM docs WHERE {column} < ?", (bound,)).fetchall()
        if rows:
            self._delete(np.array([r[0] for r in rows], dtype=np.int64))
        return len(rows)

    def _delete(self, seqs: np.ndarray) -> None:
        seq, _, _, cols, lists = Store.fetch(self.store.db, seqs)
        if seq.size:
            self._index_rows(seq, self.layout.decode(cols, lists), insert=False)
            if self.partial is not None:
                a_seq, _, blobs = Store.fetch_align(self.store.db, seq, "seeds")
                self.store.delete_align(a_seq, *stored_seeds(blobs, a_seq))
            self.store.delete_docs(seq)

    def query(self, records: Iterable[Any], *, fields: Fields = FIELDS, strict: bool = False,
              stats: RunStats | None = None, batch_size: int = BATCH_SIZE) -> list[Checked]:
        """Check only: each document's matches among the stored ones (a stored document finds itself)."""
        return list(self.query_stream(records, fields=fields, strict=strict, stats=stats, batch_size=batch_size))

    @damage_named
    def query_stream(self, records: Iterable[Any], *, fields: Fields = FIELDS, strict: bool = False,
                     stats: RunStats | None = None, batch_size: int = BATCH_SIZE) -> Iterator[Checked]:
        """:meth:`query`, yielding batch by batch."""
        stats = self._stats(stats)
        db = self.store.reader()
        for batch in self._batches(records, stats, strict, fields, batch_size):
            db.execute("BEGIN")  # one snapshot for the batch's lookups
            try:
                next_seq = int(db.execute("SELECT value FROM meta WHERE key='next_seq'").fetchone()[0])
                if self.window_kind == TIME_WINDOW:
                    batch.times = np.where(np.isnan(batch.times), time.time(), batch.times)
                held = self._held(db, batch.times, next_seq, adding=False)
                with kernel_threads(len(batch.ids)):
                    found = self.checker.check(db, batch, held)
                    partials = self.checker.passages(db, batch, held)
            finally:
                db.execute("COMMIT")
            stats.kept += len(batch.ids)
            yield from (Checked(i, Checker.best_first(f), False, p) for i, f, p in zip(batch.ids, found, partials))

    @damage_named
    def remove(self, ids: Iterable[str] | str) -> list[str]:
        """Remove documents by id (one id may be given as a string); returns the ids that were in the
        index (others are ignored)."""
        if not self.store.write:
            raise UserError(f"index {self.path} was opened for reading only")
        wanted = [ids] if isinstance(ids, str) else list(dict.fromkeys(str(i) for i in ids))
        with self._writing:
            return self._remove(wanted)

    def _remove(self, wanted: list[str]) -> list[str]:
        db = self.store.db
        db.execute("BEGIN IMMEDIATE")
        try:
            seqs: list[int] = []
            found: list[str] = []
            for i in range(0, len(wanted), 30000):
                part = wanted[i:i + 30000]
                rows = db.execute(f"SELECT seq, id FROM docs WHERE id IN ({','.join('?' * len(part))})", part)
                for s, d in rows:
                    seqs.append(s)
                    found.append(d)
            with kernel_threads(len(seqs)):
                self._delete(np.array(seqs, dtype=np.int64))
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        order = {d: k for k, d in enumerate(wanted)}
        return sorted(found, key=order.__getitem__)

    @damage_named
    def get(self, doc_id: str) -> dict[str, Any] | None:
        """What the index holds about a document (None if it is not there)."""
        row = self.store.reader().execute("SELECT seq, id, time, added, size FROM docs WHERE id = ?",
                                          (doc_id,)).fetchone()
        if row is None:
            return None
        return {"id": row[1], "seq": row[0], "time": row[2], "added": row[3], "features": row[4]}

    @damage_named
    def info(self) -> dict[str, Any]:
        """The manifest, counts and sizes (what ``neardup index info`` prints)."""
        db = self.store.reader()
        m = self.store.manifest
        docs = len(self)
        files = [p for p in self.path.glob("index.sqlite*") if p.is_file()]
        size = sum(p.stat().st_size for p in files)
        keys = db.execute("SELECT count(*) FROM keys").fetchone()[0] if self.scheme.kind == "keys" else None
        postings = db.execute("SELECT count(*) FROM postings").fetchone()[0] if self.scheme.kind == "postings" else None
        oldest, newest = db.execute("SELECT min(time), max(time) FROM docs").fetchone()
        seeds = db.execute("SELECT count(*) FROM seeds").fetchone()[0] if self.partial is not None else None
        return {
            "path": str(self.path), "format": m["format"], "version": m["version"], "documents": docs,
            "method": m["method"], "params": m["params"], "threshold": self.threshold, "window": m.get("window"),
            "extract": self.extract, "scheme": self.scheme.as_json(), "key_rows": keys, "postings": postings,
            "bytes": size, "bytes_per_document": round(size / docs, 1) if docs else None,
            "oldest_time": oldest, "newest_time": newest, "created": m.get("created"),
            "sync": self.store.sync, "partial": m.get("partial"), "seed_rows": seeds, "access": self.store.access,
            "words": m.get("words", FIRST_WORDS_VERSION),
        }

    def words_warning(self) -> str | None:
        """What to say when this index was made by a neardup that read words otherwise than this one
        (:data:`~neardup.text.normalize.WORDS_VERSION`): a text holding what the two read differently
        has other hashes now, so it may not match its stored copy.  None when they read words alike."""
        made = self.store.manifest.get("words", FIRST_WORDS_VERSION)
        if made == WORDS_VERSION:
            return None
        return (f"index {self.path} was made by a neardup that read words otherwise (words {made}, this one "
                f"{WORDS_VERSION}: soft hyphens, joiners, direction marks, tatweel, Arabic harakat and hamza): a "
                "document holding them may not match its stored copy; rebuild the index (index create, then index "
                "add of its documents) to match them")

    @damage_named
    def document_frequencies(self, hashes: np.ndarray) -> np.ndarray:
        """How many stored documents hold each feature hash (postings methods; updated as documents arrive)."""
        if self.scheme.kind != "postings":
            raise UserError(f"method {self.method.name} keeps no feature postings, so no document frequencies")
        h, s = Store.posting_matches(self.store.reader(), np.asarray(hashes, dtype=np.uint64))
        values, counts = np.unique(h, return_counts=True)
        out = np.zeros(len(hashes), dtype=np.int64)
        at = np.searchsorted(values, hashes)
        ok = at < values.shape[0]
        ok[ok] = values[at[ok]] == np.asarray(hashes)[ok]
        out[ok] = counts[at[ok]]
        return out

    @damage_named
    def compact(self) -> dict[str, int]:
        """Evict what the window no longer holds, then rewrite the file without free pages (VACUUM)."""
        if not self.store.write:
            raise UserError(f"index {self.path} was opened for reading only")
        before = sum(p.stat().st_size for p in self.path.glob("index.sqlite*") if p.is_file())
        db = self.store.db
        with self._writing:
            db.execute("BEGIN IMMEDIATE")
            try:
                self._evict(db, self._held(db, np.zeros(0), int(self.store.manifest["next_seq"]), adding=True))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("VACUUM")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        after = sum(p.stat().st_size for p in self.path.glob("index.sqlite*") if p.is_file())
        return {"bytes_before": before, "bytes_after": after}

    @damage_named
    def check(self) -> list[str]:
        """SQLite's integrity check plus neardup's own: every document decodes and has all its keys."""
        db = self.store.reader()
        problems = [r[0] for r in db.execute("PRAGMA integrity_check").fetchall() if r[0] != "ok"]
        rows = db.execute("SELECT count(*) FROM docs").fetchone()[0]
        if rows != Store.documents(db):
            problems.append(f"{rows} documents stored, the manifest counts {Store.documents(db)}")
        seq, _, _, cols, lists = Store.fetch(db, np.array([r[0] for r in db.execute("SELECT seq FROM docs")], np.int64))
        try:
            sk = self.layout.decode(cols, lists)
        except UserError as exc:
            return problems + [str(exc)]
        if self.scheme.kind == "keys" and len(sk):
            with kernel_threads(len(sk)):
                keys = self.scheme.keys(self.method, sk)
            stored = db.execute("SELECT count(*) FROM keys").fetchone()[0]
            if stored != keys.size:
                problems.append(f"{keys.size} keys expected for {len(sk)} documents, {stored} stored")
        elif self.scheme.kind == "postings" and len(sk):
            stored = db.execute("SELECT count(*) FROM postings").fetchone()[0]
            if stored != sk.lists["hashes"].shape[0]:
                problems.append(f"{sk.lists['hashes'].shape[0]} postings expected, {stored} stored")
        if self.partial is not None:
            problems += self._check_align(db, rows)
        return problems

    def _check_align(self, db: Any, documents: int) -> list[str]:
        """The aligner's rows: one per document, and every seed each one lists in the seeds table."""
        problems = []
        rows, seeds, words = db.execute("SELECT count(*), coalesce(sum(length(seeds)), 0), "
                                        "coalesce(sum(length(words)), 0) FROM align").fetchone()
        if rows != documents:
            problems.append(f"{documents} documents, {rows} with word offsets and seeds")
        stored = db.execute("SELECT count(*) FROM seeds").fetchone()[0]
        if seeds % 8 or words % 8 or stored != seeds // 8:
            problems.append(f"{seeds // 8} seeds listed by the documents, {stored} in the seeds table")
        return problems

    def _stats(self, stats: RunStats | None) -> RunStats:
        if stats is None:
            stats = self.last_stats = RunStats()
        return stats
