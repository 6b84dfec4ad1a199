"""Labeled data for ``neardup eval`` and ``neardup train``: documents with their clusters, or labeled pairs.

A labeled dataset is read through the same input stage as ``dedup`` (so HTML pages are
extracted the same way); its labels come from the layout (one sub-folder per cluster), a
``cluster`` field of each record, a ground-truth JSONL of clusters, or a JSONL of labeled
pairs (:func:`load_labeled`).  The measures are :mod:`neardup.evaluate.harness`'s.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from ..extract import DEFAULT_EXTRACTOR
from ..input_stage import documents
from ..io.readers import FIELDS, Fields, InputError, Record, read_input
from ..job import RunStats
from ..relations import SiteCodes


@dataclass
class LabeledSet:
    """Documents with their cluster (``-1``: in no cluster) and optional labeled pairs."""

    name: str
    ids: list[str]
    texts: list[str]
    cluster: np.ndarray
    stats: RunStats
    pairs: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    #: Site code per document (:class:`~neardup.relations.SiteCodes`; -1: unknown), as ``dedup`` sees it.
    sites: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.ids)


def _cluster_codes(names: list[str | None]) -> np.ndarray:
    """Integer codes of cluster names in order of first appearance; ``None`` -> -1."""
    codes: dict[str, int] = {}
    return np.array([-1 if c is None else codes.setdefault(c, len(codes)) for c in names], dtype=np.int64)


def _objects(path: str | Path, what: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` of each non-blank line of the JSONL ``path``, each a JSON object
    (else an :class:`InputError` naming the file and line; ``what`` names the records)."""
    for number, line in enumerate(Path(path).read_bytes().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise InputError(f"{path}:{number}: invalid JSON in the {what} file ({exc})") from None
        if not isinstance(rec, dict):
            raise InputError(f"{path}:{number}: not a {what} record (a JSON object)")
        yield number, rec


def _is_id(value: Any) -> bool:
    """``value`` can name a document (ids are compared as strings)."""
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def read_truth_clusters(path: str | Path) -> dict[str, tuple[str, int]]:
    """Map id -> (cluster, line naming it) from a ground-truth JSONL (``{"type": "cluster", "cluster",
    "ids"}``; a record without ``type`` is one; other types are skipped).  A cluster record without a
    cluster name or number or a list of ids, or an id put in two clusters, is an :class:`InputError`
    naming the file and line."""
    mapping: dict[str, tuple[str, int]] = {}
    for number, rec in _objects(path, "truth"):
        if rec.get("type", "cluster") != "cluster":
            continue
        cluster, ids = rec.get("cluster"), rec.get("ids")
        if not _is_id(cluster):
            raise InputError(f"{path}:{number}: a cluster record's 'cluster' must be a name or number, "
                             f"got {orjson.dumps(cluster).decode()[:60]}")
        if not isinstance(ids, list) or not all(_is_id(i) for i in ids):
            raise InputError(f"{path}:{number}: a cluster record's 'ids' must be a list of document ids")
        for rid in map(str, ids):
            before = mapping.setdefault(rid, (str(cluster), number))
            if before[0] != str(cluster):
                raise InputError(f"{path}:{number}: puts {rid!r} in cluster {str(cluster)!r}, but line {before[1]} "
                                 f"put it in cluster {before[0]!r}")
    return mapping


def _cluster_name(record: Record) -> str | None:
    """The cluster a record's ``cluster`` field names (``None``: absent, null or blank, in no cluster);
    any other value than a name or a number is an :class:`InputError` naming the record."""
    value = record.fields.get("cluster")
    if value is None or value == "":
        return None
    if not (_is_id(value) or isinstance(value, float) and math.isfinite(value)):
        where = record.source if record.line is None else f"{record.source}:{record.line}"
        raise InputError(f"{where}: 'cluster' must be a cluster name or number (null: in no cluster), "
                         f"got {orjson.dumps(value, default=str).decode()[:60]}")
    return str(value)


def load_labeled(
    path: str | Path,
    extract: str = DEFAULT_EXTRACTOR,
    truth: str | Path | None = None,
    pairs: str | Path | None = None,
    prefer_html: bool = False,
    fields: Fields = FIELDS,
) -> LabeledSet:
    """Read a labeled dataset in any of the layouts ``neardup eval`` accepts.

    * a directory with one sub-folder per cluster (the GoldSet layout): the cluster of a
      page is its first path component; files at the top level are in no cluster;
    * JSONL or Parquet records with a ``cluster`` field (absent, null or blank: in no cluster);
    * any input plus ``truth``: a ground-truth JSONL of clusters (as ``neardup synth``
      writes) naming the cluster of each id;
    * any input plus ``pairs``: a JSONL of labeled pairs ``{"a", "b", "label"}``.

    Data without labels -- no document in a cluster and no labeled pair -- would be scored as
    all negatives, so it is an :class:`InputError`; so is a truth or pairs file naming a
    document that is not among the dataset's usable ones.
    """
    stats = RunStats()
    by_truth = read_truth_clusters(truth) if truth else None
    is_dir = Path(path).is_dir()
    ids, texts, names, sites, site_codes = [], [], [], [], SiteCodes()
    for record, text in documents(read_input(path, prefer_html, fields), extract, stats):
        ids.append(record.id)
        texts.append(text)
        sites.append(site_codes.code(record))
        if by_truth is not None:
            names.append(by_truth[record.id][0] if record.id in by_truth else None)
        elif is_dir:
            names.append(record.id.split("/")[0] if "/" in record.id else None)
        else:
            names.append(_cluster_name(record))
    stats.kept = len(ids)
    index = {rid: n for n, rid in enumerate(ids)}
    for rid, (_, number) in (by_truth or {}).items():
        if rid not in index:
            raise InputError(f"{truth}:{number}: names unknown document {rid!r} (not a usable document of {path})")
    data = LabeledSet(Path(path).name, ids, texts, _cluster_codes(names), stats, sites=np.array(sites, np.int64))
    if pairs:
        data.pairs = _read_labeled_pairs(pairs, index, path)
        if not data.pairs[0].shape[0]:
            raise InputError(f"no labels: {pairs} holds no labeled pair")
    elif not (data.cluster >= 0).any():
        raise InputError("no labels: " + (f"{truth} puts no document in a cluster" if truth else
                                          f"{path} has no cluster sub-folders" if is_dir else
                                          f"no record of {path} has a 'cluster' that is not null"))
    return data


def _read_labeled_pairs(path: str | Path, index: dict[str, int],
                        dataset: str | Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(a, b, label)`` rows (``a < b``, in order of first appearance) of the labeled pairs ``path`` over
    the documents ``index`` (of ``dataset``); a pair naming an unknown document, a document with itself,
    or a label other than 0/1 or true/false is an :class:`InputError` naming the file and line.

    A pair given again (either way round) with the same label counts once: it is one judgment, and
    counting it twice would weigh it double in every measure; with the other label it is an
    :class:`InputError` naming both lines, since no measure can say which judgment holds.
    """
    seen: dict[tuple[int, int], tuple[bool, int]] = {}
    for number, rec in _objects(path, "labeled pair"):
        ends = rec.get("a"), rec.get("b")
        for end in ends:
            if not _is_id(end):
                raise InputError(f"{path}:{number}: a pair needs document ids 'a' and 'b'")
            if str(end) not in index:
                raise InputError(f"{path}:{number}: names unknown document {str(end)!r} (not a usable document "
                                 f"of {dataset})")
        if str(ends[0]) == str(ends[1]):
            raise InputError(f"{path}:{number}: pairs document {str(ends[0])!r} with itself")
        label = rec.get("label")
        if not (isinstance(label, bool) or type(label) is int and label in (0, 1)):
            raise InputError(f"{path}:{number}: 'label' must be 0 or 1 (or false or true), "
                             f"got {orjson.dumps(label).decode()[:60]}")
        a, b = sorted((index[str(ends[0])], index[str(ends[1])]))
        before = seen.setdefault((a, b), (bool(label), number))
        if before[0] != bool(label):
            raise InputError(f"{path}:{number}: labels the pair {str(ends[0])!r}, {str(ends[1])!r} "
                             f"{int(bool(label))}, but line {before[1]} labeled it {int(before[0])}")
    pairs = np.array(list(seen), dtype=np.int64).reshape(-1, 2)
    return pairs[:, 0], pairs[:, 1], np.array([label for label, _ in seen.values()], dtype=bool)
