"""ANDD (Hajishirzi, Yih, Kolcz 2010): k-gram vectors with learned weights.

Each distinct k-gram of a document weighs ``max(0, w . phi(g, d))``, a clipped linear
function of its features (TF, IDF, position, length, in-head, capitalization, word
IDFs, query frequency: :mod:`neardup.learn.andd`); ``w`` comes from a model file trained
with :func:`neardup.learn.andd.fit` (``neardup train``), from :meth:`ANDDMethod.fit`, or
is plain TF-IDF.  IDF is over the input collection, so each document's k-grams and their raw
counts (:class:`~neardup.learn.andd.GramStats`, ~25 bytes an entry) are kept until
:meth:`ANDDMethod.finish`, which weighs and signs them a piece at a time (never a feature matrix
of the collection).  The model is read when first needed, so a method that is fit
never reads it.

``similarity`` is the one the weights were learned for:

* ``cosine`` -- ``raw``: the exact cosine of the sparse vectors (ANDD-Raw); otherwise
  (ANDD-LSH-Cos) ``bits`` random-hyperplane bits (Charikar's SimHash of the weighted
  vector, :mod:`neardup.sketch.simhash`; 384 bits = the paper's 48 bytes), the share of
  differing bits ``h / f`` mapped to the cosine ``cos(pi h / f)``.  Candidates come
  from Manku's permuted tables (:mod:`neardup.index.hamming`): every pair within the
  Hamming radius whose mapped cosine reaches the threshold.
* ``jaccard`` -- the weighted Jaccard ``sum min / sum max``.  ``raw``: exactly, by a
  sorted merge (:func:`neardup.sketch.icws.weighted_jaccard`); otherwise
  (ANDD-LSH-Jacc) the share of equal samples of ``num_samples`` ICWS samples (Ioffe's
  consistent weighted sampling, :mod:`neardup.sketch.icws`, whose collision probability
  is exactly that Jaccard of the real weights).  80 samples by default, the paper's
  choice ("at least 80 min-hash values" matched its raw Jaccard); a sample is 32 bits,
  so a signature is 320 bytes (the paper's 80 values of ~20 bits: 200 bytes; its
  cosine signature: 48).  Candidates share an LSH band of the samples
  (:func:`neardup.index.banding.banded_candidates`, bands chosen from the threshold).

The default threshold is the model's: the threshold of best F1 on its training pairs, which
training by the F1 objective records (the shipped models: 0.480 for k = 1, 0.215 for k = 3;
with 384 bits their own best thresholds on the GoldSet are 0.50 and 0.30), else 0.5.  It is
known once the model is (:meth:`ANDDMethod.decision_threshold`).

With ``raw`` (the default: 384-bit estimates run 0.1-0.3 above the exact cosine on unrelated
pages, enough to chain stories) the candidate step is widened by three standard deviations of the
signature estimate (a larger Hamming radius, a lower banding threshold) and its pairs
are checked with the exact similarity.
"""

from __future__ import annotations

import warnings
from importlib import resources
from typing import Sequence

import numpy as np

from ..errors import UserError
from ..file_cache import by_file_version
from ..features.sets import HashedSets, pieces
from ..features.shingles import check_shingle_size
from ..index import banding as lsh
from ..index.banding import Banding, choose_banding
from ..index.hamming import check_bits, hamming_distances, hamming_pairs
from ..learn.andd import (
    FEATURES, FIXED_WEIGHTINGS, SIMILARITIES, ANDDModel, GramStats, QueryFrequencies, featurize, sparse_cosine,
)
from ..learn.training import OBJECTIVES, fit
from ..sketch.compare import pair_equal_share
from ..sketch.icws import ICWSampler, weighted_jaccard
from ..sketch.simhash import SimHasher
from ..stats.df import CountTables, DocumentFrequencies
from .base import PIECE_ENTRIES, CandidatePlan, Candidates, Method, Sketches

#: The shipped default models by (k, similarity), trained on the GoldSet dev half
#: (``data/README.md`` says how).
SHIPPED_MODELS = {(1, "cosine"): "data/andd-model-v3.json", (3, "cosine"): "data/andd-model-v3-k3.json"}
#: The threshold of a model that learned none (fixed weightings, the preference objective).
FALLBACK_THRESHOLD = 0.5


def bits_to_cosine(distance: np.ndarray, bits: int) -> np.ndarray:
    """Cosine estimate ``cos(pi h / f)`` of ``h`` differing bits of ``f``, clipped to [0, 1]."""
    return np.clip(np.cos(np.pi * np.asarray(distance, dtype=np.float64) / bits), 0.0, 1.0)


def cosine_radius(threshold: float, bits: int, slack: float = 0.0) -> int:
    """Largest Hamming distance whose mapped cosine is at or above ``threshold`` (plus ``slack`` sigmas)."""
    d = np.arange(bits + 1)
    ok = np.flatnonzero(bits_to_cosine(d, bits) >= threshold)
    k = int(ok[-1]) if ok.shape[0] else -1
    if slack > 0 and k < bits:
        p = max(k, 0) / bits
        k = int(min(bits, k + np.ceil(slack * np.sqrt(bits * max(p * (1 - p), 1.0 / bits)))))
    return k


def jaccard_banding(threshold: float, samples: int, slack: float = 0.0) -> Banding:
    """LSH bands for pairs of weighted Jaccard ``threshold`` (lowered by ``slack`` sigmas of
    the estimate from ``samples`` samples)."""
    t = threshold - slack * np.sqrt(threshold * (1.0 - threshold) / samples)
    return choose_banding(float(np.clip(t, 1e-6, 1.0)), samples)


@by_file_version(maxsize=8)
def load_query_frequencies(path: str) -> QueryFrequencies:
    """The query-frequency file ``path``, read once per process while it is unchanged."""
    return QueryFrequencies.load(path)


@by_file_version(maxsize=8)
def load_model(model: str, k: int, similarity: str) -> ANDDModel:
    """A fixed weighting (``tfidf``, ``binary``), the shipped ``default`` model, or a model file,
    checked against ``k`` and ``similarity``."""
    if model in FIXED_WEIGHTINGS:
        return ANDDModel.fixed(model, k, similarity)
    if model == "default":
        if (k, similarity) not in SHIPPED_MODELS:
            shipped = ", ".join(f"k = {sk} and {ss}" for sk, ss in SHIPPED_MODELS)
            raise UserError(
                f"the shipped ANDD models are for {shipped}; for k = {k} and {similarity} use --model binary "
                "or train one (neardup train)"
            )
        return ANDDModel.load(str(resources.files("neardup").joinpath(SHIPPED_MODELS[k, similarity])))
    loaded = ANDDModel.load(model)
    if (loaded.k, loaded.similarity) != (k, similarity):
        raise UserError(
            f"model {model} was trained for k = {loaded.k} and {loaded.similarity}, not k = {k} and {similarity}"
        )
    return loaded


class ANDDMethod(Method):
    """Learned-weight k-gram vectors: cosine by random hyperplanes or weighted Jaccard by ICWS (or exactly)."""

    name = "andd"
    summary = "Cosine or weighted Jaccard of k-gram vectors with learned feature weights, via hyperplane bits or ICWS (Hajishirzi)."
    param_help = {
        "threshold": "similarity at or above which a pair is a near-duplicate (andd: none = the model's learned threshold, else 0.5)",
        "model": "ANDD model: `default` (shipped, trained on the GoldSet dev half; eval --folds/--tune-on retrain it on each development side), `tfidf` or `binary` (fixed weightings), or a file from `neardup train` (used as given)",
        "shingle_size": "words per k-gram, k (must match the model's)",
        "similarity": "similarity the weights are learned for: cosine or weighted Jaccard (must match the model's)",
        "bits": "random-hyperplane signature bits, a multiple of 64 (andd: with similarity cosine)",
        "num_samples": "ICWS samples per signature (4 bytes each; andd: with similarity jaccard)",
        "qf": "query frequencies for the qf feature: TSV of `text<TAB>count` lines",
        "objective": "what fit (eval --folds/--tune-on with model default) trains: f1 (smoothed F1, log-linear weights) or preference (the paper's loss, linear weights)",
        "seed": "random seed of the signatures and index tables (andd: also of training by fit)",
        "raw": "score by the exact similarity of the weighted vectors instead of the signature",
    }
    param_choices = {"similarity": SIMILARITIES, "objective": OBJECTIVES}

    def __init__(
        self,
        threshold: float | None = None,
        model: str = "default",
        shingle_size: int = 1,
        similarity: str = "cosine",
        bits: int = 384,
        num_samples: int = 80,
        qf: str | None = None,
        objective: str = "f1",
        seed: int = 1,
        raw: bool = True,
    ) -> None:
        super().__init__(threshold, seed)  # None until the model is known: see weighting()
        check_bits(bits)
        check_shingle_size(shingle_size)
        if num_samples < 1:  # refused whatever the similarity, as bits is
            raise UserError(f"num_samples must be at least 1, got {num_samples}")
        self.check_choices(similarity=similarity, objective=objective)
        self.model = str(model)
        self.shingle_size = shingle_size
        self.similarity = similarity
        self.bits = bits
        self.num_samples = num_samples
        self.qf = qf
        self.objective = objective
        self.raw = bool(raw)

    @classmethod
    def from_model(cls, model: ANDDModel, **params) -> "ANDDMethod":
        """An instance with an in-memory model (not reproducible from ``get_params``)."""
        out = cls(shingle_size=model.k, similarity=model.similarity, **params)
        out.model_ = model
        return out

    @property
    def learns(self) -> bool:
        """True for the ``default`` model: evaluation protocols then train one per split (the
        shipped one was trained on the GoldSet).  A fixed weighting or a model file is used as given."""
        return self.model == "default"

    def query_frequencies(self) -> QueryFrequencies | None:
        return None if self.qf is None else load_query_frequencies(self.qf)

    def fit(self, texts: Sequence[str], clusters: np.ndarray) -> "ANDDMethod":
        """Learn the weights from ``texts`` labeled with ``clusters`` (negative: a singleton)
        for this method's k, similarity, query frequencies and objective (training seed:
        ``seed``); they replace ``model`` from then on (``model_``)."""
        self.model_ = fit(texts, clusters, k=self.shingle_size, similarity=self.similarity, seed=self.seed,
                          qf=self.query_frequencies(), objective=self.objective)
        return self

    def weighting(self) -> ANDDModel:
        """The model in use: the one fit, else ``model`` (read once per process)."""
        fitted = getattr(self, "model_", None)
        if fitted is not None:
            return fitted
        model = load_model(self.model, self.shingle_size, self.similarity)
        if self.qf is None and model.weights[FEATURES.index("qf")] != 0.0:
            warnings.warn(
                f"ANDD model {self.model} weighs query frequencies (from {model.info.get('qf')}), "
                "but no qf file is given: the feature is 0", stacklevel=2,
            )
        return model

    def decision_threshold(self) -> float:
        """The threshold given, else the model's (of best F1 on its training pairs), else 0.5."""
        if self.threshold is not None:
            return self.threshold
        return float(self.weighting().info.get("threshold", FALLBACK_THRESHOLD))

    # -- stages ------------------------------------------------------------------------
    def sketch(self, texts: Sequence[str]) -> Sketches:
        """The batch's k-grams with their raw statistics (weighed at :meth:`finish`: IDF is the input's)."""
        grams = featurize(texts, self.shingle_size)
        tables = {"grams": DocumentFrequencies.of(grams.sets)}
        if grams.k > 1:
            tables["words"] = DocumentFrequencies.of(grams.word_sets)
        return Sketches(grams.sets.sizes() > 0, stats=CountTables(tables), features=grams)

    def finish(self, parts: Sequence[Sketches]) -> Sketches:
        """Weigh every k-gram with the model over the collection's IDF; sketch the vectors (part by
        part: :meth:`_weighed`)."""
        merged = self.sketch([]).stats
        for p in parts:
            merged = merged.merge(p.stats)
        return self._weighed([p.features for p in parts], merged)

    def apply_statistics(self, sk: Sketches, stats: CountTables) -> Sketches:
        """The k-grams of ``sk`` (its ``features``) weighed by the model over the IDF of ``stats``
        (the collection's k-gram and word document frequencies); the vectors sketched."""
        return self._weighed([sk.features], stats)

    def _weighed(self, grams: list[GramStats], stats: CountTables) -> Sketches:
        """The finished sketches of the documents of ``grams`` (consecutive parts) under ``stats``.

        Weighed and signed a piece of at most :data:`~neardup.methods.base.PIECE_ENTRIES` entries (a
        document's distinct k-gram) at a time, so the feature columns (~10 x 8 bytes an entry) exist
        for one piece only; a part the engine spilled is read piece by piece from its file.  The
        rows do not depend on the pieces (:meth:`ANDDModel.weigh_entries`)."""
        counts, model, qf = stats.tables(), self.weighting(), self.query_frequencies()
        n = sum(len(g.sets) for g in grams)
        entries = sum(g.sets.hashes.shape[0] for g in grams)
        usable = np.zeros(n, dtype=bool)
        signatures: list[np.ndarray] = []
        one = len(grams) == 1  # the lists are the part's own hashes: no copy
        hashes = grams[0].sets.hashes if one else np.empty(entries if self.raw else 0, np.uint64)
        weights = np.empty(entries if self.raw else 0)
        row = at = 0
        for g in grams:
            for lo, hi in pieces(g.sets.offsets, PIECE_ENTRIES):
                piece = g.rows(lo, hi)
                w = model.weigh_entries(piece, qf, counts["grams"], counts.get("words"))
                usable[row + lo : row + hi] = np.bincount(piece.doc(), weights=w > 0, minlength=hi - lo) > 0
                signatures.append(self._signed(piece.sets, w))
                if self.raw:
                    weights[at : at + w.shape[0]] = w
                    if not one:
                        hashes[at : at + w.shape[0]] = piece.sets.hashes
                at += w.shape[0]
            row += len(g.sets)
        if not signatures:
            signatures.append(self._signed(featurize([]).sets, np.zeros(0)))
        columns = {"signatures": np.concatenate(signatures)}
        if not self.raw:
            return Sketches(usable, columns)
        offsets = grams[0].sets.offsets if one else np.zeros(n + 1, dtype=np.int64)
        if len(grams) > 1:
            np.cumsum(np.concatenate([g.sets.sizes() for g in grams]), out=offsets[1:])
        return Sketches(usable, columns, {"hashes": hashes, "weights": weights}, offsets)

    def _signed(self, sets: HashedSets, weights: np.ndarray) -> np.ndarray:
        """The signatures of the vectors ``sets`` weighed by ``weights``: hyperplane bits or ICWS samples."""
        if self.similarity == "cosine":
            return SimHasher(self.bits, self.seed).sketch(sets, weights)
        return ICWSampler(self.num_samples, self.seed).sketch(sets.hashes, sets.offsets, weights)[0]

    def corpus_statistics(self) -> str | None:
        """Always: the features' IDF over the whole input."""
        return "its feature weights use the IDF of the whole collection"

    def _slack(self) -> float:
        """Extra room of the candidate search when verifying the raw vectors (their score is exact)."""
        return 3.0 if self.raw else 0.0

    def _banding(self) -> Banding:
        return jaccard_banding(self.decision_threshold(), self.num_samples, self._slack())

    def candidate_plan(self) -> CandidatePlan:
        """cosine: SimHash signatures within a Hamming radius; jaccard: banded ICWS samples."""
        if self.similarity == "cosine":
            return CandidatePlan("hamming", column="signatures", bits=self.bits,
                                 radius=cosine_radius(self.decision_threshold(), self.bits, self._slack()))
        return CandidatePlan("keys", min_shared=self._banding().min_shared)

    def keys(self, sk: Sketches) -> tuple[np.ndarray, int] | None:
        """The band keys of the ICWS samples (jaccard); ``None`` for cosine (a Hamming search)."""
        if self.similarity == "cosine":
            return None
        banding = self._banding()
        return lsh.signature_keys(sk.columns["signatures"], banding, self.seed), banding.min_shared

    def candidate_pairs(self, sk: Sketches) -> Candidates:
        plan = self.candidate_plan()
        if plan.kind == "hamming":
            usable = np.flatnonzero(sk.usable)
            a, b = hamming_pairs(sk.columns[plan.column][usable], plan.radius, None, self.seed)
            a, b = usable[a], usable[b]
        else:
            a, b = lsh.banded_candidates(sk.columns["signatures"], self._banding(), self.seed, sk.usable)
        return Candidates(a, b)

    def score(self, sk: Sketches, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if self.raw:
            exact = sparse_cosine if self.similarity == "cosine" else weighted_jaccard
            out = exact(sk.lists["hashes"], sk.offsets, sk.lists["weights"], a, b)
        elif self.similarity == "cosine":
            out = bits_to_cosine(hamming_distances(sk.columns["signatures"], a, b), self.bits)
        else:
            out = pair_equal_share(sk.columns["signatures"], a, b)
        out[~(sk.usable[a] & sk.usable[b])] = 0.0
        return out
