"""Sentence signatures of PDC (zhang2010, section 4.1): shingles, I-Match or SpotSigs.

A sentence becomes a set of 64-bit signatures; two sentences are duplicates when the
Jaccard of their sets is at least ``tau``.  The paper compares three kinds:

* ``shingles`` -- every word n-gram of the sentence (n = 4 by default, the paper's best;
  a sentence shorter than n gives one signature of all its words);
* ``imatch`` -- one signature per sentence: the hash of its distinct words whose
  normalized IDF ``log(N / df) / log(N)`` lies in ``[idf_min, idf_max]`` (the paper's
  best range [0.1, 1.0]); equal signatures are duplicates (Jaccard 0 or 1).  Document
  frequencies come from the input or a ``neardup stats build`` file;
* ``spotsigs`` -- spot signatures (Theobald 2008) with the ``antecedents`` most frequent
  words of the input as antecedents (the paper: 10K for English), chains of content
  words after them (:func:`neardup.features.spots.spot_sets`).

Words are the one tokenizer's tokens, hashed with XXH64 (:mod:`neardup.sentences.tokens`).
"""

from __future__ import annotations

import math

import numpy as np

from ..features.sets import HashedSets
from ..features.spots import TokenBatch, most_frequent_words, spot_sets, word_hashes
from ..text.stopwords import ENGLISH_STOPWORDS
from ..sentences.tokens import distinct, gram_sets, set_fingerprints
from ..stats.df import DocumentFrequencies

SIGNATURES = ("shingles", "imatch", "spotsigs")


def shingle_signatures(tokens: np.ndarray, offsets: np.ndarray, n: int) -> HashedSets:
    """Each sentence's word n-gram set."""
    return gram_sets(tokens, offsets, n)


def imatch_signatures(tokens: np.ndarray, offsets: np.ndarray, df: DocumentFrequencies,
                      idf_min: float, idf_max: float) -> HashedSets:
    """One signature per sentence from its words of normalized IDF within ``[idf_min, idf_max]``."""
    sets = distinct(tokens, offsets)
    log_n = math.log(max(df.n_docs, 2))
    nidf = df.idf(sets.hashes) / log_n
    fp = set_fingerprints(sets.subset((nidf >= idf_min - 1e-12) & (nidf <= idf_max + 1e-12)))
    has = fp != 0
    sig_off = np.zeros(len(sets) + 1, dtype=np.int64)
    np.cumsum(has, out=sig_off[1:])
    return HashedSets(fp[has], sig_off)


def spot_signatures(tokens: np.ndarray, offsets: np.ndarray, antecedents: np.ndarray, distance: int = 2,
                    chain: int = 3) -> HashedSets:
    """Each sentence's spot signatures, the word hashes ``antecedents`` as antecedents (the
    input's most frequent words: :func:`spot_antecedents`)."""
    sets, _ = spot_sets(_sentences(tokens, offsets), antecedents, word_hashes(ENGLISH_STOPWORDS), distance, chain)
    return sets


def spot_antecedents(tokens: np.ndarray, offsets: np.ndarray, n: int) -> np.ndarray:
    """The ``n`` most frequent words of the sentences ``tokens`` (CSR ``offsets``): the antecedents."""
    return most_frequent_words(_sentences(tokens, offsets), n)


def _sentences(tokens: np.ndarray, offsets: np.ndarray) -> TokenBatch:
    return TokenBatch(tokens, offsets[:-1].copy(), np.diff(offsets))
