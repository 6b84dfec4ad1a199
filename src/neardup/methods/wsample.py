"""Weighted consistent sampling of phrases (Alonso, Fetterly and Manasse 2013).

A document is the set of its phrases -- windows of ``phrase_size`` consecutive words
(7 in every experiment of the paper) -- each with a weight from collection statistics;
similarity is the weighted Jaccard ``sum min / sum max``, estimated by the share of
equal samples of Ioffe's improved consistent weighted sampling
(:mod:`neardup.sketch.icws`); candidates are pairs sharing ``min_shared`` supershingles
(groups of samples hashed to keys, Broder's scheme, which the paper takes from him).

Weight of a phrase (paper section 4.3, our reading)::

    W(phrase) = f(DF of its first word) x IDF(phrase) x [phrase is rare]

* ``weight`` -- f, one of Table 4: ``uniform`` (1), ``df``, ``ln_df``, ``df2``, ``df3``,
  ``df4`` (df^k), ``ln_df2``, ``ln_df3``, ``ln_df4``, ``ln_df10`` ((ln df)^k) and
  ``idf`` (ln(N / df)).  Phrases starting with frequent words (SpotSigs' antecedents:
  "the", "said", "is") weigh most; with ``ln_df`` a first word seen in one document
  gives weight 0.  Table 6 names some rows "log DF^k"; since ln(df^k) = k ln df differs
  from ln df only by a constant factor, which leaves every weighted Jaccard unchanged,
  we read those rows as df^k of Table 4 -- consistent with Table 7, whose best Pearson
  row is "df^2 rare phrase 50%".  Default ``df2`` with ``rare`` 50: the best row of
  both tables on their ClueWeb set CW1 (Max F1 0.8505, Pearson r 0.7564).
* ``phrase_idf`` -- "we scale this by the inverse document frequency of the complete
  phrase"; their worked example is "the fourth power of document frequency for the
  first word in a phrase, divided by the document frequency of the entire phrase", so
  the default is ``inverse``: N / df(phrase) (a constant factor away from 1 / df);
  ``log`` uses ln(N / df), ``none`` leaves it out.
* ``rare`` (percent) and ``common_df`` -- "we call the one percent of phrases found in
  more than forty-two distinct documents *common*"; rare-phrase variants "set the
  weight for a phrase to 0 if it occurred more frequently than the bottom n% of
  phrases by document frequency", n in 1, 5, 25, 50, 75, 95, 99, and the table of
  such phrases "contains at most 847,281 elements", kept "in an in-memory hashtable"
  -- a table that small can only be of the common phrases.  So we rank the *common*
  phrases (df > ``common_df``) by document frequency: a phrase weighs 0 when its df
  exceeds the df found at the bottom ``rare`` % of them; phrases in at most
  ``common_df`` documents are always rare.  ``rare`` 100 zeroes nothing; off
  (``None``) drops the indicator altogether.  Taking the percentile over *all* distinct
  phrases instead would make every cutoff below 99% the same set (nearly all phrases
  occur in one document), which contradicts the paper's differing results.

Statistics come from ``stats`` (an ``.npz`` of ``neardup stats build``; its phrase
size must match) or, by default, from the documents given, counted exactly while they
are added.  With exact statistics a phrase's df is exact; with approximate ones it is
the count-min estimate and the common set is the one recorded while counting.

Other knobs: ``num_samples`` (128, as MinHash's default; the paper does not say how
many), ``threshold`` (0.25: the paper finds its rare-phrase variants best "around a
threshold of roughly 1/4 to 1/2", flat from 1/4 to 3/4; we take the low end because
the phrase IDF factor pulls scores down: a phrase two copies share has df 2 and half
the weight of a phrase only one of them has -- in a simulated collection, a copy with
1% of its words replaced scores 0.62 (Jaccard of the phrase sets 0.88), with 5% 0.41
(Jaccard 0.52)), ``supershingles`` and
``min_shared`` (off: chosen from the threshold with 2 matches, as for MinHash
supershingles), ``exact`` (score by the exact weighted Jaccard of the weighted sets,
kept in memory).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ..errors import UserError
from ..features.sets import HashedSets
from ..index.banding import Banding, choose_banding
from ..sketch.compare import pair_equal_share
from ..sketch.icws import ICWSampler, weighted_jaccard
from ..stats.build import COMMON_DF, CollectionStats, DocFeatures, check_stats_path, doc_features, load_stats
from .banded import BandedSignatures, check_banding
from .base import Method, Sketches, sets_of


#: f of Table 4, applied to the document frequency of a phrase's first word (df >= 1).
WEIGHT_FUNCTIONS = {
    "uniform": lambda df, n: np.ones_like(df),
    "df": lambda df, n: df,
    "ln_df": lambda df, n: np.log(df),
    "df2": lambda df, n: df**2,
    "df3": lambda df, n: df**3,
    "df4": lambda df, n: df**4,
    "ln_df2": lambda df, n: np.log(df) ** 2,
    "ln_df3": lambda df, n: np.log(df) ** 3,
    "ln_df4": lambda df, n: np.log(df) ** 4,
    "ln_df10": lambda df, n: np.log(df) ** 10,
    "idf": lambda df, n: np.log(np.maximum(n / df, 1.0)),
}
PHRASE_IDF = ("inverse", "log", "none")
#: The rare-phrase cutoffs of the paper (percent), for sweeps.
RARE_CUTOFFS = (1, 5, 25, 50, 75, 95, 99)


def rare_cutoff(stats: CollectionStats, rare: float | None, common_df: int = COMMON_DF) -> float:
    """Largest phrase document frequency that still counts as rare (inf: no cutoff)."""
    if rare is None or rare >= 100:
        return float("inf")
    _, dfs = stats.common_phrases(common_df)
    if not dfs.shape[0]:
        return float("inf")
    dfs = np.sort(dfs)
    k = int(np.ceil(rare / 100.0 * dfs.shape[0]))
    return float(common_df if k <= 0 else max(common_df, dfs[k - 1]))


def phrase_weights(
    feats: DocFeatures,
    stats: CollectionStats,
    weight: str = "df2",
    phrase_idf: str = "inverse",
    cutoff: float = float("inf"),
) -> np.ndarray:
    """The weight of every phrase of ``feats`` (aligned with ``feats.phrases.hashes``)."""
    n = float(max(stats.n_docs, 1))
    df_first = np.maximum(stats.word_df(feats.first), 1).astype(np.float64)
    w = WEIGHT_FUNCTIONS[weight](df_first, n)
    if phrase_idf != "none" or np.isfinite(cutoff):
        df_phrase = np.maximum(stats.phrase_df(feats.phrases.hashes), 1).astype(np.float64)
        if phrase_idf == "inverse":
            w = w * (n / df_phrase)
        elif phrase_idf == "log":
            w = w * np.log(np.maximum(n / df_phrase, 1.0))
        if np.isfinite(cutoff):
            w = np.where(df_phrase > cutoff, 0.0, w)
    return np.ascontiguousarray(w, dtype=np.float64)


class WeightedSamplingMethod(BandedSignatures, Method):
    """Weighted 7-word phrases, ICWS samples, supershingle candidates, estimated weighted Jaccard."""

    name = "wsample"
    summary = "Weighted Jaccard of 7-word phrases weighted by DF/IDF via ICWS; supershingles (Alonso et al.)."
    param_help = {
        "threshold": "similarity at or above which a pair is a near-duplicate",
        "phrase_size": "words per phrase",
        "num_samples": "ICWS samples (hash functions)",
        "weight": "f of the first word's DF in a phrase's weight (alonso2013 Table 4)",
        "phrase_idf": "phrase IDF factor: N/df (inverse), ln(N/df) (log) or none",
        "rare": "percent: zero phrases more frequent than the bottom this share of common ones (100 = keep all)",
        "common_df": "phrases in more documents than this are common",
        "stats": "collection statistics (.npz of `neardup stats build`); off = the input itself",
        "seed": "random seed of the hash functions",
        "supershingles": "number of supershingles; off = chosen from the threshold",
        "min_shared": "keys a pair must share to be a candidate (lsh 1, supershingles 2)",
        "exact": "verify candidates by the exact weighted Jaccard instead of the sample estimate",
    }
    param_choices = {"weight": tuple(WEIGHT_FUNCTIONS), "phrase_idf": PHRASE_IDF}

    def __init__(
        self,
        threshold: float = 0.25,
        phrase_size: int = 7,
        num_samples: int = 128,
        weight: str = "df2",
        phrase_idf: str = "inverse",
        rare: float | None = 50.0,
        common_df: int = COMMON_DF,
        stats: str | None = None,
        seed: int = 1,
        supershingles: int | None = None,
        min_shared: int | None = None,
        exact: bool = False,
    ) -> None:
        super().__init__(threshold, seed)
        self.check_choices(weight=weight, phrase_idf=phrase_idf)
        if phrase_size < 1:
            raise UserError(f"phrase_size must be at least 1, got {phrase_size}")
        if rare is not None and not 0.0 <= rare <= 100.0:
            raise UserError(f"rare must be a percentage between 0 and 100, got {rare}")
        if common_df < 0:
            raise UserError(f"common_df must be at least 0, got {common_df}")
        check_banding(num_samples, "num_samples", supershingles, min_shared)
        check_stats_path(stats)
        self.phrase_size = phrase_size
        self.num_samples = num_samples
        self.weight = weight
        self.phrase_idf = phrase_idf
        self.rare = rare
        self.common_df = common_df
        self.stats = stats
        self.supershingles = supershingles
        self.min_shared = min_shared
        self.exact = exact

    def _loaded_stats(self) -> CollectionStats:
        stats = load_stats(self.stats)
        if stats.phrase_size != self.phrase_size:
            raise UserError(f"{self.stats} counts {stats.phrase_size}-word phrases, this method uses {self.phrase_size}")
        return stats

    def _sampled(self, phrases: HashedSets, first: np.ndarray, stats: CollectionStats, usable: np.ndarray,
                 cutoff: float | None = None) -> Sketches:
        """Weigh the phrases under ``stats`` (rare-phrase ``cutoff``: found from them if not given) and
        sample them."""
        cutoff = rare_cutoff(stats, self.rare, self.common_df) if cutoff is None else cutoff
        no_words = HashedSets(np.zeros(0, np.uint64), np.zeros(len(phrases) + 1, np.int64))
        w = phrase_weights(DocFeatures(no_words, phrases, first), stats, self.weight, self.phrase_idf, cutoff)
        sig, used = ICWSampler(self.num_samples, self.seed).sketch(phrases.hashes, phrases.offsets, w)
        lists = {"hashes": phrases.hashes, "weights": w} if self.exact else {}
        info = {"rare_cutoff": cutoff}
        return Sketches(usable, {"signatures": sig, "sizes": used}, lists, phrases.offsets if self.exact else None,
                        None, info)

    # -- stages ------------------------------------------------------------------------
    def sketch(self, texts: Sequence[str]) -> Sketches:
        """The batch's phrases (with their first words) and its statistics; with ``stats``
        the samples at once (the statistics are fixed)."""
        feats = doc_features(texts, self.phrase_size)
        usable = feats.phrases.sizes() > 0
        if self.stats is not None:
            return self._sampled(feats.phrases, feats.first, self._loaded_stats(), usable)
        batch_stats = CollectionStats(self.phrase_size)
        batch_stats.update(feats)
        lists = {"hashes": feats.phrases.hashes, "first": feats.first}
        return Sketches(usable, {}, lists, feats.phrases.offsets, batch_stats)

    def finish(self, parts: Sequence[Sketches]) -> Sketches:
        """Weigh and sample every document under the input's statistics, a piece at a time
        (:meth:`~neardup.methods.base.Method.apply_in_pieces`: the phrases' weights and lookups exist
        for one piece only), or join the sampled batches (``stats``)."""
        if self.stats is not None:
            if not parts:
                return self._sampled(HashedSets.concat([]), np.zeros(0, np.uint64), self._loaded_stats(), np.zeros(0, bool))
            return Sketches.concat(parts)
        stats = CollectionStats(self.phrase_size)
        for p in parts:
            stats = stats.merge(p.stats)
        return self.apply_in_pieces(parts, stats)

    def statistics_applier(self, stats: CollectionStats) -> Callable[[Sketches], Sketches]:
        """The rows of a piece weighed under the collection's ``stats`` and sampled (the rare-phrase
        cutoff found once)."""
        cutoff = rare_cutoff(stats, self.rare, self.common_df)

        def sampled(sk: Sketches) -> Sketches:
            first = sk.lists["first"] if sk.offsets is not None else np.zeros(0, np.uint64)
            return self._sampled(sets_of(sk), first, stats, sk.usable, cutoff)

        return sampled

    def banding(self) -> Banding:
        """Supershingles (groups of samples) and the matches a candidate needs."""
        shared = self.min_shared or 2
        if self.supershingles:
            return Banding(self.supershingles, self.num_samples // self.supershingles, shared)
        return choose_banding(max(self.decision_threshold(), 1e-6), self.num_samples, shared, use_all=True)

    def corpus_statistics(self) -> str | None:
        """Without a statistics file: the phrases' and words' document frequencies over the whole input."""
        if self.stats is not None:
            return None
        return "its phrase weights come from document frequencies in the whole collection (give --stats FILE for fixed ones)"

    def pairable(self, sk: Sketches) -> np.ndarray:
        """Documents without any weighted phrase (all samples EMPTY) never pair."""
        return sk.columns["sizes"] > 0

    def score(self, sk: Sketches, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if self.exact:
            out = weighted_jaccard(sk.lists["hashes"], sk.offsets, sk.lists["weights"], a, b)
        else:
            out = pair_equal_share(sk.columns["signatures"], a, b)
        sizes = sk.columns["sizes"]
        out[(sizes[a] == 0) | (sizes[b] == 0)] = 0.0
        return out
