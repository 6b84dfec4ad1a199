"""Which methods can run online, and the keys a persistent index stores to find their candidates.

Read from what each method declares (:meth:`Method.corpus_statistics`,
:meth:`Method.candidate_plan`), never from its name.  A method is online when it is not
corpus dependent -- a document's sketch does not depend on the other documents, so
sketching one new document gives the row ``dedup`` would give it -- and its candidates
come from exact lookups of stored keys:

* plan ``keys`` (``minhash``'s LSH bands; ``imatch`` and ``wsample`` with a statistics
  file) -- :meth:`Method.keys`; a candidate shares ``min_shared`` keys of one slot;
* plan ``hamming`` (``simhash --weighting uniform``) -- the keys of Manku's permuted
  tables (:func:`neardup.index.hamming.table_keys`): every pair within the Hamming radius
  shares one table's key;
* plan ``set_join`` (``ffp``, ``spotsigs`` with fixed antecedents) -- an inverted index of
  the feature hashes (``sk.lists["hashes"]``).  Counting a new document's hashes in the
  postings gives the exact intersection with every stored document, so the pairs at the
  threshold are exactly those ``dedup`` finds.

Candidates are then scored by the method's own :meth:`Method.score` on a small
:class:`Sketches` of the stored candidates and the new documents, so the answers are
``dedup``'s pairs with ``dedup``'s scores.  A corpus-dependent method (``andd``, ``imatch``
and ``wsample`` without a statistics file, ``simhash`` with IDF weights, ``spotsigs``
with ``top:N`` antecedents, ``minhash`` with ``--max-df``) is refused with the reason it
gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UserError
from ..index.hamming import choose_blocks, table_keys
from ..methods.base import Method, Sketches

#: What an online index can serve, for messages and the README.
ONLINE = ("minhash (without --max-df)", "simhash --weighting uniform", "ffp", "spotsigs (fixed antecedents)",
          "imatch and wsample with --stats FILE")

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
        """``(n, slots)`` uint64 keys of the rows of ``sk`` (kind ``keys``): the method's own, or
        the permuted tables' of its fingerprints (a ``hamming`` plan)."""
        plan = method.candidate_plan()
        if plan.kind == "hamming":
            return table_keys(sk.columns[plan.column], plan.radius, self.blocks, method.seed)
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
    """The index scheme of ``method`` (from its declared :meth:`~Method.candidate_plan`), or a
    :class:`UserError` saying why it cannot be online."""
    why = method.corpus_statistics()
    if why is None:
        plan = method.candidate_plan()
        if plan.kind == "keys":
            return KeyScheme("keys", min_shared=plan.min_shared)
        if plan.kind == "hamming":
            blocks = plan.blocks or choose_blocks(plan.bits, plan.radius, SIMHASH_PLANNED_DOCS)
            return KeyScheme("keys", blocks=blocks)
        return KeyScheme("postings", measure="containment" if plan.measure == "containment" else "jaccard")
    raise UserError(f"method {method.name} cannot run online: {why}; online methods: {', '.join(ONLINE)}")


def probe_sketch(method: Method) -> Sketches:
    """Finished sketches of one short text: what the layout of the method's rows is learned from."""
    return method.finish([method.sketch(method.prepare(["one two three four five six seven eight nine ten"]))])
