"""Which methods can run online, and the keys a persistent index stores to find their candidates.

A method is online when a document's sketch does not depend on the other documents
(no corpus statistics), so sketching one new document gives the row ``dedup`` would give
it, and when its candidates come from exact lookups of stored keys:

* ``minhash`` -- its LSH band keys (:meth:`Method.keys`); a candidate shares
  ``min_shared`` keys of one band position (1 for LSH, 2 for supershingles);
* ``simhash`` with ``--weighting uniform`` -- the keys of Manku's permuted tables
  (:func:`neardup.index.hamming.table_keys`): every pair within the Hamming radius shares
  one table's key;
* ``ffp`` and ``spotsigs`` with fixed antecedents -- exact joins: an inverted index of the
  feature hashes (``sk.lists["hashes"]``).  Counting a new document's hashes in the
  postings gives the exact intersection with every stored document, so the pairs at the
  threshold are exactly those ``dedup`` finds.

Candidates are then scored by the method's own :meth:`Method.score` on a small
:class:`Sketches` of the stored candidates and the new documents, so the answers are
``dedup``'s pairs with ``dedup``'s scores.  Refused, with the reason: methods whose
features or weights come from the whole collection (IDF, frequent words, document
frequency filters) -- ``imatch``, ``wsample``, ``andd``, ``simhash`` with IDF weights,
``spotsigs`` with ``top:N`` antecedents, ``minhash`` with ``--max-df``: sketching a new
document alone would not give the row a batch run gives it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UserError
from ..index.hamming import choose_blocks, table_keys
from ..methods.base import Method, Sketches

#: What an online index can serve, for messages and the README.
ONLINE = ("minhash (without --max-df)", "simhash --weighting uniform", "ffp", "spotsigs (fixed antecedents)")

#: Collection size simhash's permuted tables are planned for (the blocks are fixed at create).
SIMHASH_PLANNED_DOCS = 1_000_000


@dataclass(frozen=True)
class KeyScheme:
    """How an index finds a method's candidates: shared keys, or postings of feature hashes.

    ``kind`` ``"keys"``: :meth:`keys` gives ``(n, slots)`` keys and candidates share at
    least ``min_shared`` of them at the same slot.  ``kind`` ``"postings"``: the feature
    hashes of each document are posted, and a candidate's shared count is the exact
    intersection; ``measure`` (``jaccard`` or ``containment``) and the threshold decide.
    """

    kind: str
    min_shared: int = 1
    measure: str = "jaccard"
    blocks: int = 0  # simhash: blocks of the permuted tables

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "min_shared": self.min_shared, "measure": self.measure, "blocks": self.blocks}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> "KeyScheme":
        return cls(obj["kind"], obj["min_shared"], obj["measure"], obj["blocks"])

    def keys(self, method: Method, sk: Sketches) -> np.ndarray:
        """``(n, slots)`` uint64 keys of the rows of ``sk`` (kind ``keys``)."""
        if method.name == "simhash":
            k = method.max_distance()  # type: ignore[attr-defined]
            return table_keys(sk.columns["fingerprints"], k, self.blocks, method.seed)
        found = method.keys(sk)
        assert found is not None
        return found[0]

    def shared_needed(self, threshold: float, la: np.ndarray, lb: np.ndarray) -> np.ndarray:
        """Fewest shared features a pair of sets of sizes ``la``, ``lb`` needs to reach ``threshold``."""
        if self.measure == "containment":
            need = threshold * np.minimum(la, lb)
        else:
            need = threshold * (la + lb) / (1.0 + threshold)
        return np.maximum(np.ceil(need - 1e-9), 1)


def scheme_for(method: Method) -> KeyScheme:
    """The index scheme of ``method``, or a :class:`UserError` saying why it cannot be online."""
    name, p = method.name, method.get_params()
    why = None
    if name == "minhash":
        if p["max_df"] is not None:
            why = "--max-df drops shingles by their frequency in the whole collection"
        else:
            return KeyScheme("keys", min_shared=method.keys(probe_sketch(method))[1])  # type: ignore[index]
    elif name == "simhash":
        if p["weighting"] != "uniform":
            why = f"--weighting {p['weighting']} weighs words by their IDF in the whole collection (use --weighting uniform)"
        else:
            k = method.max_distance()  # type: ignore[attr-defined]
            blocks = p["blocks"] if p["blocks"] is not None and p["blocks"] > k else choose_blocks(p["bits"], k, SIMHASH_PLANNED_DOCS)
            return KeyScheme("keys", blocks=blocks)
    elif name == "ffp":
        return KeyScheme("postings", measure="containment" if p["measure"] == "containment" else "jaccard")
    elif name == "spotsigs":
        if str(p["antecedents"]).strip().lower().startswith("top:"):
            why = "antecedents top:N are the N most frequent words of the whole collection"
        else:
            return KeyScheme("postings", measure="jaccard")
    elif name in ("imatch", "wsample", "andd"):
        why = "its features are selected or weighted by statistics of the whole collection (IDF, document frequencies)"
    else:
        why = "no online index for it"
    raise UserError(f"method {name} cannot run online: {why}; online methods: {', '.join(ONLINE)}")


def probe_sketch(method: Method) -> Sketches:
    """Finished sketches of one short text: what the layout of the method's rows is learned from."""
    return method.finish([method.sketch(method.prepare(["one two three four five six seven eight nine ten"]))])
