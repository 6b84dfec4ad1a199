"""Spot signatures (Theobald, Siddharth and Paepcke, SIGIR 2008): stopword-anchored word chains.

News text is full of short function words; navigation bars, link lists and ads are
not.  A *spot signature* therefore starts at an **antecedent** -- one of a few very
common words such as *is, the, said, was* -- and chains the next ``chain`` content words
after it, taking every ``distance``-th one.  Content words are the tokens that are not
**stopwords**; stopwords between them are skipped, so inserting or deleting a function
word does not change a signature.

Reading of the spot distance (checked against the papers): with distance ``d`` the
chain is the ``d``-th, ``2d``-th, ... ``c·d``-th non-stopword after the antecedent,
i.e. ``d - 1`` non-stopwords are skipped before the first element and between
elements.  Distance 1 takes consecutive content words -- the paper's example
"a rally to kick off" gives ``a:rally:kick`` (``to`` is a stopword).  For the best
setting, chain 3 and distance 2, the signature spans seven content-word positions
counting the antecedent, which is how Alonso et al. (2013, section 4.4) compare it to
their 7-word phrases.  The authors' Java package counts the distance in raw tokens and
then skips forward over stopwords (after such a skip its next step is one token
longer); without stopwords inside the window both readings agree, and counting
non-stopwords keeps a signature stable under function-word edits.

Two further choices, both documented where the papers are silent:

* the signature is ``antecedent:w1:...:wc`` as in the paper's notation; the authors'
  package keeps only the chain (Alonso et al. note SpotSigs "omits the antecedent"),
  available with ``with_antecedent=False``;
* a chain cut short by the end of the document is kept with the words it has (as in
  the authors' package), so the end of a short text still yields signatures.

Antecedents may themselves be content words ("said" is not a stopword), and then they
can also appear inside chains.  The stopword list is :data:`neardup.text.stopwords.ENGLISH_STOPWORDS`, a small
list of English function words written for neardup (pronouns, articles, auxiliaries,
prepositions, conjunctions and the pieces the tokenizer makes of contractions:
"don't" -> "don", "t"); any other list can be given.

A signature's hash is XXH64 of the token hashes of its words (the tokens exactly as
:mod:`neardup.text.tokenize` hashes them, so :func:`signature_hash` reproduces it from
strings); :func:`spot_strings` is a plain-Python reference of the extraction for tests
and debugging, the kernel :func:`doc_spots` is what methods run.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np
import xxhash
from numba import njit, prange

from ..errors import UserError
from ..hashing import hash_str, xxh64_lanes
from ..text.normalize import char_classes
from ..text.stopwords import ENGLISH_STOPWORDS
from ..text.tokenize import encode_batch, token_hashes, tokenize
from .sets import HashedSets, sort_unique_segments

#: The antecedents of the paper's best GoldSet run (Alonso et al. 2013, section 4.8).
DEFAULT_ANTECEDENTS = ("is", "the", "said", "was")

def word_hashes(words: Iterable[str]) -> np.ndarray:
    """Sorted unique token hashes of ``words``, each of which must be a single token."""
    out = []
    for word in words:
        toks = tokenize(word)
        if len(toks) != 1:
            raise UserError(f"{word!r} is not one word for the tokenizer (it gives {toks})")
        out.append(hash_str(toks[0]))
    return np.unique(np.array(out, dtype=np.uint64))


def _normalized(words: Iterable[str]) -> set[str]:
    return {t for w in words for t in tokenize(w)}


def signature_hash(words: Sequence[str], seed: int = 0) -> int:
    """The hash of the signature made of ``words``, antecedent first when it is included.

    The words must be tokens as :func:`~neardup.text.tokenize.tokenize` gives them.
    """
    lanes = np.array([hash_str(w) for w in words], dtype="<u8")
    return xxhash.xxh64_intdigest(lanes.tobytes(), seed=seed)


def spot_strings(
    text: str,
    antecedents: Iterable[str] = DEFAULT_ANTECEDENTS,
    stopwords: Iterable[str] = ENGLISH_STOPWORDS,
    distance: int = 2,
    chain: int = 3,
    with_antecedent: bool = True,
) -> list[str]:
    """The spot signatures of ``text`` as ``"ante:w1:w2:w3"`` strings, in text order.

    A plain-Python reference of :func:`doc_spots`, for tests and for looking at what a
    document's signatures are; methods use the compiled kernel.
    """
    check_spot_params(distance, chain)
    ante, stop = _normalized(antecedents), _normalized(stopwords)
    toks = tokenize(text)
    content = [i for i, w in enumerate(toks) if w not in stop]
    out = []
    for i, word in enumerate(toks):
        if word not in ante:
            continue
        after = [p for p in content if p > i]
        words = [toks[after[q]] for q in range(distance - 1, distance * chain, distance) if q < len(after)]
        if words:
            out.append(":".join(([word] if with_antecedent else []) + words))
    return out


def check_spot_params(distance: int, chain: int) -> None:
    """Reject a spot distance or chain length below one."""
    if distance < 1:
        raise UserError(f"distance (the spot distance d) must be at least 1, got {distance}")
    if chain < 1:
        raise UserError(f"chain (the chain length c) must be at least 1, got {chain}")


@njit(inline="always", cache=True)
def _member(sorted_values, x):
    p = np.searchsorted(sorted_values, x)
    return p < sorted_values.shape[0] and sorted_values[p] == x


@njit(cache=True)
def doc_spots(toks, lo, t, stop, ante, distance, chain, with_ante, seed, out, olo):
    """Hash the spot signatures of the ``t`` tokens ``toks[lo:lo+t]`` into ``out[olo:]``.

    ``stop`` and ``ante`` are sorted token hashes.  Returns how many were written (one
    per antecedent occurrence followed by at least one content word).
    """
    if t == 0:
        return 0
    content = np.empty(t, dtype=np.int64)  # positions of the non-stopwords
    after = np.empty(t, dtype=np.int64)  # non-stopwords at positions <= i
    m = 0
    for i in range(t):
        if not _member(stop, toks[lo + i]):
            content[m] = i
            m += 1
        after[i] = m
    lanes = np.empty(chain + 1, dtype=np.uint64)
    n = 0
    for i in range(t):
        h = toks[lo + i]
        if not _member(ante, h):
            continue
        w = 0
        if with_ante:
            lanes[0] = h
            w = 1
        first = w
        for j in range(chain):
            q = after[i] + distance * (j + 1) - 1
            if q >= m:
                break
            lanes[w] = toks[lo + content[q]]
            w += 1
        if w > first:
            out[olo + n] = xxh64_lanes(lanes, 0, w, seed)
            n += 1
    return n


@njit(parallel=True, nogil=True, cache=True)
def _batch_spots(toks, starts, counts, stop, ante, distance, chain, with_ante, seed):
    n = counts.shape[0]
    out = np.empty(toks.shape[0], dtype=np.uint64)
    sizes = np.zeros(n, dtype=np.int64)
    for d in prange(n):
        sizes[d] = doc_spots(
            toks, starts[d], counts[d], stop, ante, distance, chain, with_ante, seed, out, starts[d]
        )
    return out, sizes


class TokenBatch:
    """The token hashes of a batch of texts, in text order (``starts``/``counts`` per text)."""

    def __init__(self, hashes: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> None:
        self.hashes, self.starts, self.counts = hashes, starts, counts

    @classmethod
    def from_texts(cls, texts: Sequence[str]) -> "TokenBatch":
        """Tokenize and hash ``texts`` in compiled code (seed 0: the :func:`hash_str` values)."""
        buf, offsets = encode_batch(texts)
        hashes, counts = token_hashes(buf, offsets, char_classes(), np.uint64(0))
        return cls(hashes, offsets[:-1].copy(), counts)

    def compact(self) -> "TokenBatch":
        """The same tokens with no gaps between texts (to keep them cheaply)."""
        starts = np.zeros_like(self.counts)
        np.cumsum(self.counts[:-1], out=starts[1:])
        idx = np.repeat(self.starts - starts, self.counts) + np.arange(int(self.counts.sum()))
        return TokenBatch(self.hashes[idx], starts, self.counts.copy())

    @staticmethod
    def concat(parts: list["TokenBatch"]) -> "TokenBatch":
        """One compact batch holding the texts of ``parts`` in order."""
        parts = [p.compact() for p in parts]
        if not parts:
            return TokenBatch(np.zeros(0, np.uint64), np.zeros(0, np.int64), np.zeros(0, np.int64))
        counts = np.concatenate([p.counts for p in parts])
        starts = np.zeros_like(counts)
        np.cumsum(counts[:-1], out=starts[1:])
        return TokenBatch(np.concatenate([p.hashes for p in parts]), starts, counts)


def most_frequent_words(tokens: TokenBatch, n: int) -> np.ndarray:
    """Token hashes of the ``n`` words with the most occurrences (ties: smaller hash first)."""
    batch = tokens.compact()
    return most_frequent(*np.unique(batch.hashes, return_counts=True), n)


def most_frequent(values: np.ndarray, counts: np.ndarray, n: int) -> np.ndarray:
    """The ``n`` of the unique ``values`` (uint64) with the largest ``counts`` (ties: smaller value
    first), sorted: :func:`most_frequent_words` of occurrences counted anywhere (a distributed
    engine's sum of every batch's counts gives the same words)."""
    order = np.lexsort((values, -counts))
    return np.sort(values[order[:n]])


def spot_sets(
    tokens: TokenBatch,
    antecedents: np.ndarray,
    stopwords: np.ndarray,
    distance: int = 2,
    chain: int = 3,
    with_antecedent: bool = True,
    seed: int = 0,
) -> tuple[HashedSets, np.ndarray]:
    """The sorted unique spot-signature sets of a token batch and each text's count with repeats."""
    check_spot_params(distance, chain)
    ante = np.unique(np.asarray(antecedents, dtype=np.uint64))
    stop = np.unique(np.asarray(stopwords, dtype=np.uint64))
    out, sizes = _batch_spots(
        tokens.hashes, tokens.starts, tokens.counts, stop, ante, distance, chain, with_antecedent,
        np.uint64(seed),
    )
    hashes, offsets = sort_unique_segments(out, tokens.starts, sizes)
    return HashedSets(hashes, offsets), sizes


def spot_signatures(
    texts: Sequence[str],
    antecedents: Iterable[str] = DEFAULT_ANTECEDENTS,
    stopwords: Iterable[str] = ENGLISH_STOPWORDS,
    distance: int = 2,
    chain: int = 3,
    with_antecedent: bool = True,
    seed: int = 0,
) -> tuple[HashedSets, np.ndarray]:
    """Spot-signature sets of ``texts`` (words given as strings); see :func:`spot_sets`."""
    return spot_sets(
        TokenBatch.from_texts(texts), word_hashes(antecedents), word_hashes(stopwords),
        distance, chain, with_antecedent, seed,
    )
