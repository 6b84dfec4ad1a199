"""Shingling with MinHash (Broder et al. 1997), candidates by LSH banding or supershingles.

Paper knobs and defaults:

* ``shingle_size`` k -- word k-shingles (5; CEDAR found 2 best on extracted news text);
* ``num_perm`` m -- MinHash permutations (128; Henzinger used 84);
* ``candidates`` -- ``"lsh"`` (bands x rows chosen from the threshold) or
  ``"supershingles"`` (``supershingles`` groups over all m values, a pair is a candidate
  when ``min_shared`` of them match; Fetterly/Henzinger: 6 groups, 2 matches);
* ``max_df`` -- drop shingles found in more than this many documents, Broder's filter
  of very common shingles (he used 1,000) and CEDAR's shingle-frequency filter; off by
  default; with it the sets are kept until every document is read;
* ``exact`` -- verify candidates by the exact Jaccard of the shingle sets instead of the
  signature estimate (keeps the sets in memory).

Resemblance = Jaccard of the shingle sets, estimated by the share of equal MinHash
values.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import UserError
from ..features.sets import HashedSets, exact_jaccard
from ..features.shingles import encoded_word_shingles
from ..index.banding import Banding, choose_banding
from ..sketch.compare import pair_equal_share
from ..sketch.minhash import MinHasher
from ..stats.df import DocumentFrequencies
from ..text.tokenize import encode_batch
from .banded import BandedSignatures, check_banding
from .base import Method, Sketches, sets_of

class MinHashMethod(BandedSignatures, Method):
    """Word k-shingles, MinHash signatures, banded candidates, estimated-Jaccard verify."""

    name = "minhash"
    summary = "Jaccard of word k-shingles via MinHash; LSH or supershingle candidates (Broder)."
    param_help = {
        "threshold": "similarity at or above which a pair is a near-duplicate",
        "shingle_size": "words per shingle, k",
        "num_perm": "MinHash permutations",
        "seed": "random seed of the hash functions",
        "candidates": "candidate generation: LSH banding or Broder's supershingles",
        "bands": "LSH bands; off = chosen from the threshold",
        "rows": "LSH rows per band; off = chosen from the threshold",
        "supershingles": "number of supershingles; off = chosen from the threshold",
        "min_shared": "keys a pair must share to be a candidate (lsh 1, supershingles 2)",
        "max_df": "drop shingles found in more than this many documents",
        "exact": "verify candidates by exact Jaccard instead of the MinHash estimate",
    }
    param_choices = {"candidates": ("lsh", "supershingles")}

    def __init__(
        self,
        threshold: float = 0.8,
        shingle_size: int = 5,
        num_perm: int = 128,
        seed: int = 1,
        candidates: str = "lsh",
        bands: int | None = None,
        rows: int | None = None,
        supershingles: int | None = None,
        min_shared: int | None = None,
        max_df: int | None = None,
        exact: bool = False,
    ) -> None:
        super().__init__(threshold, seed)
        self.check_choices(candidates=candidates)
        if shingle_size < 1:
            raise UserError(f"shingle_size must be at least 1, got {shingle_size}")
        if max_df is not None and max_df < 1:
            raise UserError(f"max_df must be at least 1, got {max_df}")
        check_banding(num_perm, "num_perm", supershingles, min_shared, bands, rows)
        if candidates == "lsh" and supershingles is not None:
            raise UserError("supershingles sets the supershingle candidates: add --candidates supershingles")
        if candidates == "supershingles" and bands is not None:
            raise UserError("bands and rows set the LSH candidates: leave them out with --candidates supershingles")
        self.shingle_size = shingle_size
        self.num_perm = num_perm
        self.candidates = candidates
        self.bands = bands
        self.rows = rows
        self.supershingles = supershingles
        self.min_shared = min_shared
        self.max_df = max_df
        self.exact = exact

    def _hasher(self) -> MinHasher:
        return MinHasher(self.num_perm, self.seed)

    def prepare(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """The batch normalized and encoded for the compiled tokenizer."""
        return encode_batch(texts)

    def sketch(self, prepared: tuple[np.ndarray, np.ndarray]) -> Sketches:
        """Signatures of the batch; with ``exact`` or ``max_df`` the shingle sets instead
        (signed at :meth:`finish`, once the common shingles are known)."""
        buf, offsets = prepared
        if self.exact or self.max_df is not None:
            sets, _ = encoded_word_shingles(buf, offsets, self.shingle_size, seed=0)
            df = DocumentFrequencies.of(sets) if self.max_df is not None else None
            return Sketches(sets.sizes() > 0, {}, {"hashes": sets.hashes}, sets.offsets, df)
        sig, sizes = self._hasher().sketch_encoded(buf, offsets, self.shingle_size)
        return Sketches(sizes > 0, {"signatures": sig, "sizes": sizes})

    def finish(self, parts: Sequence[Sketches]) -> Sketches:
        """Join the batches; apply the document-frequency filter; sign kept sets."""
        sk = Sketches.concat(parts)
        if sk.offsets is None:
            if not parts:
                sk.columns = {"signatures": np.zeros((0, self.num_perm), np.uint32), "sizes": np.zeros(0, np.int64)}
            return sk
        df = DocumentFrequencies.merged([p.stats for p in parts]) if self.max_df is not None else None
        return self.apply_statistics(sk, df)

    def apply_statistics(self, sk: Sketches, stats: DocumentFrequencies | None) -> Sketches:
        """The shingle sets of ``sk`` without the shingles common in ``stats`` (with ``max_df``), signed."""
        sets = HashedSets(sk.lists["hashes"], sk.offsets) if sk.offsets is not None else HashedSets.concat([])
        info = dict(sk.info)
        if stats is not None and self.max_df is not None:
            stats.compact()
            common = stats.keys[stats.counts > self.max_df]
            sets = sets.subset(~np.isin(sets.hashes, common, assume_unique=False))
            info["common_shingles"] = int(common.shape[0])
        sizes = sets.sizes()
        columns = {"signatures": self._hasher().sketch(sets), "sizes": sizes}
        lists = {"hashes": sets.hashes} if self.exact else {}
        return Sketches(sizes > 0, columns, lists, sets.offsets if self.exact else None, None, info)

    def banding(self) -> Banding:
        """The bands x rows (and matches needed) the index uses at this threshold."""
        threshold = max(self.decision_threshold(), 1e-6)
        if self.candidates == "supershingles":
            shared = self.min_shared or 2
            if self.supershingles:
                return Banding(self.supershingles, self.num_perm // self.supershingles, shared)
            return choose_banding(threshold, self.num_perm, shared, use_all=True)
        if self.bands is not None and self.rows is not None:
            return Banding(self.bands, self.rows, self.min_shared or 1)
        return choose_banding(threshold, self.num_perm, self.min_shared or 1)

    def corpus_statistics(self) -> str | None:
        """With ``max_df``: the shingles' document frequencies over the whole collection."""
        if self.max_df is None:
            return None
        return "--max-df drops shingles by their document frequency in the whole collection"

    def score(self, sk: Sketches, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if self.exact:
            sets = sets_of(sk)
            out = exact_jaccard(sets.hashes, sets.offsets, a, b)
        else:
            out = pair_equal_share(sk.columns["signatures"], a, b)
        out[~(sk.usable[a] & sk.usable[b])] = 0.0
        return out
