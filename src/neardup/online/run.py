"""File jobs of the online index: ``neardup index add|query`` -- inputs in, ``matches.jsonl`` out.

Reads the inputs as ``dedup`` does (same readers, extraction, rejections and summary),
checks (and with ``add``, adds) them batch by batch, and writes ``matches.jsonl`` -- one
row per document: ``{"id", "added", ("late": true,) "matches": [{"id", "score", "relation",
"new_in_match", "match_in_new"}]}``, and for an index made with ``--partial`` a
``"partials"`` list (:class:`~.matches.Partial`: ``{"id", "coverage_new",
"coverage_match", "passages": [{"a_chars", "b_chars", "a_words", "b_words",
"similarity"}]}``, ``a`` the new document) -- and ``summary.json`` into OUTDIR, all at once
(a :class:`~neardup.job.Job`'s outputs).  The index itself commits every batch as
it goes: an interrupted ``add`` leaves the batches done in the index (and no OUTDIR).
"""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path
from typing import Any, Sequence

from ..errors import UserError
from ..input_stage import progress_bar
from ..io.readers import FIELDS, Fields
from ..io.writers import check_outputs_spare
from ..job import Job, JobOutput, RunStats, run_report
from .index import BATCH_SIZE, Index


#: Share of an index's documents (those it held plus those added) whose eviction by a time window
#: in one run is worth a warning.
EVICTED_WARNING_SHARE = 0.5


def window_warnings(index: Index, had: int) -> list[str]:
    """Warnings of a time window: when it evicted most of the ``had`` documents during one run (the
    sign of a time far newer than the rest -- a wrong date, a clock -- or of a window too short), and
    when documents came late (dated before its horizon: checked, not added)."""
    from datetime import UTC, datetime

    from ..windows import TIME_WINDOW

    if index.window_kind != TIME_WINDOW:
        return []
    out = []
    window = index.info()["window"]
    if had and index.evicted >= EVICTED_WARNING_SHARE * had:
        newest = index.store.db.execute("SELECT max(time) FROM docs").fetchone()[0]
        when = "" if newest is None else \
            f" of the newest, {datetime.fromtimestamp(newest, UTC).isoformat(timespec='seconds')}"
        out.append(f"the --window {window} evicted {index.evicted:,} of {had:,} documents in this run (an index "
                   f"keeps those within the window{when}): if that is not meant, check the records' time or date "
                   f"fields -- one far newer than the rest evicts the rest -- or make the window longer")
    if index.late:
        were = "document was" if index.late == 1 else "documents were"
        out.append(f"{index.late:,} {were} dated before the --window {window} of the newest document held when it "
                   f"came (late): checked but not added (\"added\": false, \"late\": true in matches.jsonl)")
    return out


def index_files(index_path: str | Path, inputs: Sequence[str], outdir: str | Path, add: bool = True,
                prefer_html: bool = False, fields: Fields = FIELDS, strict: bool = False, fmt: str = "jsonl",
                batch_size: int = BATCH_SIZE, progress: bool = False, sync: str | None = None,
                extract: str | None = None, on_duplicate: str = "fail", file_ids: str = "given") -> dict[str, Any]:
    """Check (``add``: and add) the documents of ``inputs`` against the index; write the matches; the summary.

    ``extract``: the extractor the caller expects; an index made with another is an error
    (its documents must all be extracted alike).  ``on_duplicate``: what a document whose id
    is in the index already does (:meth:`Index.add`; ``fail`` by default: a repeated id is the
    user's choice, never a silent loss).  ``file_ids``: how documents read from files are
    named (:data:`~neardup.io.readers.FILE_IDS`; ``given``: the input path as given, then the
    path inside a folder, so folders added in separate runs never collide).
    """
    start = time.perf_counter()
    stats = RunStats()
    job = Job(inputs, outdir, fmt, prefer_html, fields, file_ids, describe_reading=False)
    check_outputs_spare(index_path, outdir, "index")  # before the index opens: OUTDIR replaces what it holds
    with Index.open(index_path, write=add, sync=sync) as index, job.writing(start) as out:
        if extract is not None and extract != index.extract:
            raise UserError(f"index {index_path} extracts pages with --extract {index.extract}, not {extract}")
        before = len(index)
        bar = progress_bar(progress)
        counts = {"matched": 0, "matches": 0, "documents_with_passages": 0, "partials": 0, "passages": 0}

        failed: list[Exception] = []

        def rows():
            act = (partial(index.add_stream, on_duplicate=on_duplicate) if add else index.query_stream)
            docs = act(job.records(), fields=fields, strict=strict, stats=stats, batch_size=batch_size)
            while True:
                try:
                    doc = next(docs)
                except StopIteration:
                    return
                except (OSError, UserError) as exc:  # a full disk, a strict rejection: after the batches committed
                    if not add or not stats.kept:
                        raise
                    failed.append(exc)  # the matches of what was committed are still written, then the error
                    return
                counts["matched"] += bool(doc.matches)
                counts["matches"] += len(doc.matches)
                if doc.partials:
                    counts["documents_with_passages"] += 1
                    counts["partials"] += len(doc.partials)
                    counts["passages"] += sum(len(p.passages) for p in doc.partials)
                bar.update(1)
                yield doc.as_dict()

        t = time.perf_counter()
        try:
            written = out.table("matches", rows())
        except OSError as exc:
            if not add or not stats.kept:
                raise
            raise UserError(f"{_describe(exc)}; the index holds the {stats.kept - index.late:,} documents this run added before "
                            f"it, but their matches could not be written (no {outdir})") from None
        bar.close()
        stats.timed("add" if add else "query", t)
        if not (add and on_duplicate == "skip" and stats.skipped and not stats.reasons):
            stats.require_usable()  # (every document already there and skipped is a finished run)
        results: dict[str, Any] = {
            "index": str(index_path), "mode": "add" if add else "query", "checked": written,
            "added": stats.kept - index.late if add else 0, "documents_matched": counts["matched"], "matches": counts["matches"],
            "index_documents_before": before, "index_documents_after": len(index), "index_access": index.store.access,
        }
        if index.partial is not None:
            results.update({k: counts[k] for k in ("documents_with_passages", "partials", "passages")})
        warnings = [w for w in [index.words_warning()] if w]
        if add:
            results["evicted"] = index.evicted
            results["late"] = index.late
            warnings += window_warnings(index, before + stats.kept - index.late)
        if add or warnings:
            results["warnings"] = warnings
        params = {"method": index.method.name, **index.method.get_params(), "window": index.info()["window"],
                  "extract": index.extract, "batch_size": batch_size, "partial": index.info()["partial"],
                  "file_ids": file_ids, **({"on_duplicate_id": on_duplicate} if add else {})}
        if failed:
            return _stopped(run_report(stats, inputs, params, time.perf_counter() - start, **results), failed[0], out,
                            outdir, stats.kept - index.late)
        return out.finish(lambda inputs, total, **extra: run_report(stats, inputs, params, total, **results, **extra))


def _describe(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror}" + (f": {exc.filename}" if exc.filename else "")
    return str(exc)


def _stopped(summary: dict[str, Any], exc: Exception, out: JobOutput, outdir: str | Path, added: int) -> dict:
    """An ``add`` stopped by ``exc`` after committing ``added`` documents: OUTDIR gets their matches and a
    summary saying so (``complete: false``, ``error``), so the outputs match what the index holds; then
    ``exc`` is raised as one line (exit 2)."""
    summary.pop("complete")
    summary["error"] = _describe(exc)
    summary["complete"] = False
    try:
        out.commit(summary)
    except OSError as again:
        raise UserError(f"{_describe(exc)}; the index holds the {added:,} documents this run added before it, "
                        f"but their matches could not be written ({_describe(again)})") from None
    raise UserError(f"{_describe(exc)}; stopped after adding {added:,} documents to the index: their matches are "
                    f"in {outdir} (summary.json: complete false)") from None
