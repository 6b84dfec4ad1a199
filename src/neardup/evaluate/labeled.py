"""Labeled data for ``neardup eval`` and ``neardup train``: documents with their clusters, or labeled pairs.

A labeled dataset is read through the same input stage as ``dedup`` (so HTML pages are
extracted the same way); its labels come from the layout (one sub-folder per cluster), a
``cluster`` field of each record, a ground-truth JSONL of clusters, or a JSONL of labeled
pairs (:func:`load_labeled`).  The measures are :mod:`neardup.evaluate.harness`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import orjson

from ..errors import UserError
from ..extract import DEFAULT_EXTRACTOR
from ..input_stage import documents
from ..io.readers import FIELDS, Fields, InputError, read_input
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


def read_truth_clusters(path: str | Path) -> dict[str, str]:
    """Map id -> cluster from a ground-truth JSONL (``{"type": "cluster", "cluster", "ids"}``)."""
    mapping: dict[str, str] = {}
    for number, line in enumerate(Path(path).read_bytes().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise InputError(f"{path}:{number}: invalid JSON in the truth file ({exc})") from None
        if not isinstance(rec, dict):
            raise InputError(f"{path}:{number}: not a truth record (a JSON object)")
        if rec.get("type", "cluster") == "cluster" and "ids" in rec:
            for rid in rec["ids"]:
                mapping[str(rid)] = str(rec["cluster"])
    return mapping


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
    * JSONL or Parquet records with a ``cluster`` field (absent: in no cluster);
    * any input plus ``truth``: a ground-truth JSONL of clusters (as ``neardup synth``
      writes) naming the cluster of each id;
    * any input plus ``pairs``: a JSONL of labeled pairs ``{"a", "b", "label"}``.
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
            names.append(by_truth.get(record.id))
        elif is_dir:
            names.append(record.id.split("/")[0] if "/" in record.id else None)
        else:
            value = record.fields.get("cluster")
            names.append(None if value is None else str(value))
    stats.kept = len(ids)
    data = LabeledSet(Path(path).name, ids, texts, _cluster_codes(names), stats, sites=np.array(sites, np.int64))
    if pairs:
        data.pairs = _read_labeled_pairs(pairs, {rid: n for n, rid in enumerate(ids)})
    return data


def _read_labeled_pairs(path: str | Path, index: dict[str, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a, b, y = [], [], []
    for number, line in enumerate(Path(path).read_bytes().splitlines(), start=1):
        if not line.strip():
            continue
        rec = orjson.loads(line)
        try:
            a.append(index[str(rec["a"])])
            b.append(index[str(rec["b"])])
        except KeyError as exc:
            raise UserError(f"{path}:{number}: pair names unknown document {exc}") from None
        y.append(bool(rec["label"]))
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return lo.astype(np.int64), hi.astype(np.int64), np.array(y, dtype=bool)
