"""ANDD (Hajishirzi, Yih, Kolcz 2010): cosine of k-gram vectors with learned weights.

Each distinct k-gram of a document weighs ``max(0, w . phi(g, d))``, a clipped linear
function of its TF, IDF, TF x IDF, first position and length
(:mod:`neardup.learn.andd`); ``w`` comes from a model file trained with
:func:`neardup.learn.andd.fit` (``neardup train``), or is plain TF-IDF without one.
IDF is over the input collection, so features are kept until :meth:`finalize`.

Similarity is the cosine of the weighted vectors:

* ``raw`` -- the exact cosine of the sparse vectors (ANDD-Raw);
* otherwise (ANDD-LSH-Cos) -- ``bits`` random-hyperplane bits (Charikar's SimHash of the
  weighted vector, :mod:`neardup.sketch.simhash`; 384 bits = the paper's 48 bytes), with
  the share of differing bits ``h / f`` mapped to the cosine ``cos(pi h / f)``.

Candidates come from Manku's permuted tables (:mod:`neardup.index.hamming`) on the bits:
every pair within the Hamming radius whose mapped cosine reaches the threshold, which for
``raw`` is widened by three standard deviations of the bit estimate and then checked
with the exact cosine.  Only the cosine similarity is implemented (not extended Jaccard).
"""

from __future__ import annotations

from importlib import resources

from typing import Sequence

import numpy as np

from ..index.hamming import check_bits, hamming_distances, hamming_pairs
from ..learn.andd import ANDDModel, GramStats, collection_idf, entry_weights, feature_matrix, featurize, sparse_cosine
from ..sketch.simhash import SimHasher
from .base import Method

SIMILARITIES = ("cosine",)


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


def load_model(model: str, k: int) -> ANDDModel:
    """``tfidf`` weights, the shipped ``default`` model, or a model file, checked against ``k``."""
    if model == "tfidf":
        return ANDDModel.tfidf(k)
    if model == "default":
        loaded = ANDDModel.load(resources.files("neardup").joinpath("data/andd-model-v1.json"))
        if loaded.k != k:
            raise ValueError(f"the shipped ANDD model is for k = {loaded.k}; for k = {k} use --model tfidf or train one")
        return loaded
    loaded = ANDDModel.load(model)
    if loaded.k != k:
        raise ValueError(f"model {model} was trained for k = {loaded.k}, not k = {k}")
    return loaded


class ANDDMethod(Method):
    """Learned-weight k-gram vectors, cosine by random-hyperplane bits (or exactly)."""

    name = "andd"
    summary = "Cosine of k-gram vectors with learned feature weights, 384-bit random hyperplanes (Hajishirzi)."
    param_help = {
        "threshold": "cosine at or above which a pair is a near-duplicate",
        "model": "ANDD model: `default` (shipped, trained on the GoldSet dev half, k=1), `tfidf` (plain TF-IDF), or a file from `neardup train`",
        "shingle_size": "words per k-gram, k (must match the model's)",
        "similarity": "similarity the weights are learned for (cosine)",
        "bits": "random-hyperplane signature bits, a multiple of 64",
        "seed": "random seed of the hyperplanes and the tables",
        "raw": "score by the exact cosine of the weighted vectors instead of the bits",
    }
    param_choices = {"similarity": SIMILARITIES}

    def __init__(
        self,
        threshold: float = 0.9,
        model: str = "default",
        shingle_size: int = 1,
        similarity: str = "cosine",
        bits: int = 384,
        seed: int = 1,
        raw: bool = False,
    ) -> None:
        super().__init__(threshold, seed)
        check_bits(bits)
        k = shingle_size
        if k < 1:
            raise ValueError(f"shingle size must be at least 1, got {k}")
        if similarity not in SIMILARITIES:
            raise ValueError(f"similarity must be one of {', '.join(SIMILARITIES)}, got {similarity!r}")
        self.model = str(model)
        self._model = load_model(self.model, k)
        self.shingle_size = k
        self.similarity = similarity
        self.bits = bits
        self.raw = bool(raw)
        self._hasher = SimHasher(bits, seed)
        self._parts: list[GramStats] = []

    @classmethod
    def from_model(cls, model: ANDDModel, **params) -> "ANDDMethod":
        """An instance with an in-memory model (not reproducible from ``get_params``)."""
        out = cls(shingle_size=model.k, **params)
        out._model = model
        return out

    def add(self, texts: Sequence[str]) -> np.ndarray:
        stats = featurize(texts, self.shingle_size)
        self._parts.append(stats)
        self.n_docs_ += len(texts)
        return stats.sets.sizes() > 0

    def finalize(self) -> None:
        """Weigh every k-gram with the model over the collection's IDF; sign the vectors."""
        stats = GramStats.concat(self._parts)
        self._parts = []
        self.sets_ = stats.sets
        self.weights_ = entry_weights(feature_matrix(stats, collection_idf(stats.sets)), self._model.weights)
        self.fingerprints_ = self._hasher.sketch(stats.sets, self.weights_)
        norms = np.bincount(stats.doc(), weights=self.weights_ ** 2, minlength=len(stats.sets))
        self.usable_ = norms > 0

    def candidate_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        usable = np.flatnonzero(self.usable_)
        k = cosine_radius(self.threshold, self.bits, 3.0 if self.raw else 0.0)
        a, b = hamming_pairs(self.fingerprints_[usable], k, None, self.seed)
        a, b = usable[a], usable[b]
        if self.raw:
            keep = self.score(a, b) >= self.threshold
            a, b = a[keep], b[keep]
        return a, b

    def score(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        if self.raw:
            out = sparse_cosine(self.sets_.hashes, self.sets_.offsets, self.weights_, a, b)
        else:
            out = bits_to_cosine(hamming_distances(self.fingerprints_, a, b), self.bits)
        out[~(self.usable_[a] & self.usable_[b])] = 0.0
        return out
