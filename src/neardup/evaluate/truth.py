"""Ground truth of simulated corpora (``truth.jsonl`` of ``neardup synth``), for sentence-level methods.

The simulator records, per story, the cluster of all its documents, and the pairs it
made on purpose: ``containment`` (a trimmed copy or one page of a split article, with
its container) and ``partial`` (a copied passage with exact character spans in both
documents).  Only the pair that was actually copied is recorded; other versions of
the same story hold the same text with small edits.  :class:`Truth` reads the file and
derives what the records imply, which the evaluations of :mod:`neardup.contain.evaluate` and
:mod:`neardup.partial.evaluate` use:

* a document is a *part* when it is recorded as contained (trims and split pages), a
  *full version* otherwise (originals and rewrites);
* the cluster of each document.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import orjson

from ..errors import UserError


@dataclass
class Truth:
    """Clusters, recorded containments ``(container, contained)`` and partial copies."""

    cluster: dict[str, int] = field(default_factory=dict)
    containments: list[tuple[str, str]] = field(default_factory=list)
    partials: list[dict] = field(default_factory=list)

    @classmethod
    def read(cls, path: str | Path) -> "Truth":
        """Read a ``truth.jsonl``; a line that is not a truth record raises ``ValueError`` naming it."""
        truth = cls()
        for number, line in enumerate(Path(path).read_bytes().splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rec = orjson.loads(line)
                kind = rec["type"]
                if kind == "cluster":
                    truth.cluster.update((str(i), int(rec["cluster"])) for i in rec["ids"])
                elif kind == "containment":
                    truth.containments.append((str(rec["container"]), str(rec["contained"])))
                elif kind == "partial":
                    truth.partials.append({"a": str(rec["a"]), "b": str(rec["b"]),
                                           "a_chars": tuple(rec["a_chars"]), "b_chars": tuple(rec["b_chars"]),
                                           "why": rec.get("why")})
            except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise UserError(f"{path}:{number}: not a truth record ({exc})") from None
        return truth

    def parts(self) -> set[str]:
        """Documents recorded as contained in another (trims, pages of split articles)."""
        return {c for _, c in self.containments}

    def index(self, ids: list[str] | None = None) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
        """``(position of each id, cluster per position, is-part per position)`` over ``ids``
        (default: every document of the truth); documents the truth does not know get
        cluster -1."""
        ids = list(self.cluster) if ids is None else ids
        pos = {d: i for i, d in enumerate(ids)}
        cluster = np.array([self.cluster.get(d, -1) for d in ids], dtype=np.int64)
        parts = self.parts()
        part = np.array([d in parts for d in ids], dtype=bool)
        return pos, cluster, part
