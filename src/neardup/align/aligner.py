"""Seed-and-extend alignment: copied passages that survive copy-editing, located by characters.

The way text-reuse tools work (passim; the PAN text-alignment systems), as stages over
key/value arrays (:mod:`.seeds` holds the kernels of each stage):

1. **seeds** -- every run of ``n`` words of every document (words: the tokenizer's
   classes, lower-cased; in scripts written without spaces every character is a word, so
   seeds there are character n-grams), keyed by a 64-bit mix of its word hashes; one
   inverted index over all documents; a seed found in more than ``max_df`` documents
   (boilerplate, stock phrases) or in one only is dropped;
2. **seed pairs** -- for each kept seed, every pair of its occurrences in two documents:
   ``(doc a, doc b, word position in a, in b)``; a document pair needs ``min_seeds``
   seed matches to go on (they are counted per document pair before any is written:
   most pairs of documents meet through a phrase or two, :func:`~.seeds.sieve_pairs`);
3. **chains** -- a pair's seed matches in order of their position in ``a`` are chained
   into passages while both positions move on by at most ``gap`` words (an edited word,
   a re-broken or merged sentence does not break a passage; a skipped or reordered
   sentence starts a new one); passages close in both documents are merged (one copy is
   one passage, granularity 1);
4. **validation** -- a passage needs ``min_words`` matched words (words inside its
   seeds; so at least as many on both sides) and a density of matched words of at least
   ``min_density`` on the shorter side, so same-topic sentences that share a few phrases
   ("said on condition of anonymity", "death toll ... across the Gulf Coast") do not pair;
   a pair whose passages hold less than ``keep_coverage`` (half; ``dedup`` sets its
   ``--min-coverage``) of either document -- not a copy by coverage, it only shares text --
   needs passages that hold ``min_words`` counted at their density (matched words x density;
   distinct words: a phrase both documents print twice, a headline repeated as the lede's
   first words, counts once),
   so a sentence retold around two stock phrases is not a shared passage, while a short,
   heavily edited copy of a sentence still is a copy.

Passage ends come from the matched words, not from sentence edges; offsets are
characters of the texts given.  Every loop over words, seeds or pairs is compiled.

Memory (:class:`Aligner`, the local engine): texts are not kept.  While reading, every
word costs 16 bytes of seed record and 8 bytes of character offsets; both are written to
a temporary folder once more than ``memory_mb`` is buffered (the seeds into 16 files by
the top bits of their key, the offsets into one file read back through ``mmap``).  The
inverted index is then built one key partition at a time and keeps only seeds shared by
2..``max_df`` documents (8 bytes each, 12 with their order by document); seed pairs are
made in order and chained for one range of documents per thread of the compiled kernels
(:func:`~neardup.threads.in_order_threads`), at most ``pair_budget`` of them (16 bytes each) in
all the ranges at work.  So the peak is about ``memory_mb`` + 12 bytes x shared seed occurrences +
40 bytes x ``pair_budget``, whatever the input size; only the shared seeds grow with the input.

The Spark engine runs the same stages with the same kernels (:mod:`neardup.engines.spark_align`)
and reports through :func:`aligned_pairs` too, so both give the same pairs.
"""

from __future__ import annotations

import os
import itertools
import tempfile
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from ..threads import in_order_threads, kernel_threads
from .boilerplate import site_boilerplate
from .seeds import SEED_RECORD, by_document, chain_pairs, pair_counts, seed_keys, shared_seeds, sieve_pairs
from .words import tokens

#: Key bits that pick a seed's partition of the inverted index (16 partitions).
PARTITION_BITS = 4


@dataclass(frozen=True)
class AlignParams:
    """The aligner's knobs (chosen by argument, not on evaluation data; see the README)."""

    n: int = 4  # words per seed
    max_df: int = 50  # a seed in more documents than this is boilerplate
    min_seeds: int = 3  # seed matches a document pair needs
    gap: int = 20  # words a passage may skip on either side between two seeds
    min_words: int = 12  # fewest matched words of a passage (words inside its seeds)
    min_density: float = 0.3  # matched words / passage words, on the shorter side
    site_max_df: int = 0  # a seed in more documents of one site than this is the site's boilerplate (0: off)
    keep_coverage: float = 0.5  # a pair holding this share of a document is kept however sparse (a copy)

    def check(self) -> None:
        """Reject knobs outside their domain with a clear message."""
        from ..errors import UserError

        if (self.n < 1 or self.max_df < 2 or self.min_seeds < 1 or self.gap < 0 or self.min_words < 1
                or self.site_max_df < 0):
            raise UserError("align: seed words, min seeds and min words must be at least 1, max df at least 2, "
                            "word gap and site max df at least 0")
        if not 0 <= self.min_density <= 1:
            raise UserError(f"align: min density must be in [0, 1], got {self.min_density}")
        if not 0 <= self.keep_coverage <= 1:
            raise UserError(f"align: keep coverage must be in [0, 1], got {self.keep_coverage}")

    def chain_args(self) -> tuple[int, int, int, int, float, float]:
        """The knobs :func:`~.seeds.chain_pairs` takes after its arrays, in its order (every engine
        calls it with these)."""
        return self.n, self.gap, self.min_seeds, self.min_words, self.min_density, self.keep_coverage


DEFAULT_ALIGN = AlignParams()


@dataclass(frozen=True)
class Passage:
    """One copied passage: character spans in ``a`` and ``b``, words on each side, density."""

    a_chars: tuple[int, int]
    b_chars: tuple[int, int]
    a_words: int
    b_words: int
    similarity: float

    def as_dict(self) -> dict[str, Any]:
        """As ``partial`` writes it (``spans`` of partials.jsonl), and the index and ``explain`` show it."""
        return {"a_chars": list(self.a_chars), "b_chars": list(self.b_chars), "a_words": self.a_words,
                "b_words": self.b_words, "similarity": self.similarity}


@dataclass(frozen=True)
class AlignedPair:
    """Documents ``a < b`` (input positions) with their passages, the share of each one's
    words inside them (``coverage_a``, ``coverage_b``) and the most consecutive words each
    has outside them (``new_a``, ``new_b``: text of its own, not an edit)."""

    a: int
    b: int
    passages: list[Passage]
    coverage_a: float
    coverage_b: float
    new_a: int
    new_b: int


class _Spill:
    """Records buffered in memory, written to files of a temporary folder past a budget.

    ``append(records, part)`` adds records to partitions; ``read(p)`` returns partition
    ``p`` in the order appended.  Below ``budget`` bytes nothing touches the disk: ``folder``
    is called for the folder only when the first records are written.
    """

    def __init__(self, dtype: np.dtype, parts: int, budget: int, folder: Callable[[], str]) -> None:
        self.dtype, self.parts, self.budget, self.folder = dtype, parts, budget, folder
        self.buffers: list[list[np.ndarray]] = [[] for _ in range(parts)]
        self.buffered = 0
        self.spilled = [False] * parts

    def _path(self, p: int) -> str:
        return os.path.join(self.folder(), f"{self.dtype.names[0]}-{p}.bin")  # type: ignore[index]  # a record dtype

    def append(self, records: np.ndarray, part: np.ndarray | None = None) -> None:
        if part is None:
            self.buffers[0].append(records)
        else:
            # as the smallest integers that hold a partition: NumPy's stable sort of those is a radix sort
            order = np.argsort(part.astype(np.min_scalar_type(self.parts - 1)), kind="stable")
            bounds = np.searchsorted(part[order], np.arange(self.parts + 1))
            records = records[order]
            for p in range(self.parts):
                if bounds[p + 1] > bounds[p]:
                    self.buffers[p].append(records[bounds[p]:bounds[p + 1]])
        self.buffered += records.nbytes
        if self.buffered > self.budget:
            self.flush()

    def flush(self) -> None:
        """Write every buffered record to its partition's file."""
        for p, chunks in enumerate(self.buffers):
            if chunks:
                with open(self._path(p), "ab") as fh:
                    for c in chunks:
                        fh.write(c.tobytes())
                self.spilled[p] = True
                chunks.clear()
        self.buffered = 0

    def read(self, p: int, mapped: bool = False) -> np.ndarray:
        """Partition ``p`` (memory-mapped with ``mapped`` when it was written to disk)."""
        if not self.spilled[p]:
            chunks = self.buffers[p]
            return np.concatenate(chunks) if chunks else np.zeros(0, self.dtype)
        self.flush()
        if mapped:
            return np.memmap(self._path(p), dtype=self.dtype, mode="r")
        return np.fromfile(self._path(p), dtype=self.dtype)


OFFSETS = np.dtype([("start", "<i4"), ("end", "<i4")])


class Aligner:
    """The local engine of the stages: ``add`` texts in batches, then iterate :meth:`pairs`.

    >>> al = Aligner()
    >>> copy = "the minister said on tuesday that the new budget would cut taxes for small firms"
    >>> al.add(["Opening words. " + copy + ".", "Other start! " + copy + " -- end."])
    >>> [(p.a, p.b, p.passages[0].a_chars, p.passages[0].b_chars) for p in al.pairs()]
    [(0, 1, (15, 95), (13, 93))]
    """

    def __init__(self, params: AlignParams = DEFAULT_ALIGN, memory_mb: float = 256, pair_budget: int = 8_000_000,
                 folder: str | None = None) -> None:
        params.check()
        self.params, self.pair_budget = params, max(int(pair_budget), 1)
        self.folder = folder
        self._tmp: tempfile.TemporaryDirectory[str] | None = None  # made at the first spill
        budget = int(memory_mb * 2**20)
        self._seeds = _Spill(SEED_RECORD, 1 << PARTITION_BITS, budget // 2, self._spill_folder)
        self._offsets = _Spill(OFFSETS, 1, budget // 2, self._spill_folder)
        self._words: list[np.ndarray] = []  # words per document, per batch
        self._sites: list[np.ndarray] = []  # site code per document (-1: unknown), per batch
        self.documents = 0
        self.counts: dict[str, int] = {}

    def add(self, texts: Sequence[str], sites: np.ndarray | None = None) -> None:
        """Stage 1 for a batch of texts: their words (offsets kept) and seeds (into the index).

        ``sites``: each text's site as a code (-1 unknown), for ``site_max_df``."""
        hashes, starts, ends, counts = tokens(texts)
        self._sites.append(np.full(len(texts), -1, np.int64) if sites is None else np.asarray(sites, np.int64))
        first = np.r_[0, np.cumsum(counts)].astype(np.int64)
        key, doc, pos = seed_keys(hashes, first, self.params.n)
        rec = np.empty(key.shape[0], SEED_RECORD)
        rec["key"], rec["doc"], rec["pos"] = key, doc + self.documents, pos
        self._seeds.append(rec, (key >> np.uint64(64 - PARTITION_BITS)).astype(np.int64))
        off = np.empty(starts.shape[0], OFFSETS)
        off["start"], off["end"] = starts, ends
        self._offsets.append(off)
        self._words.append(counts)
        self.documents += len(texts)

    def _shared(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Stage 1's reduce: seeds of 2..max_df documents, grouped by key (``doc``, ``pos``, group
        starts); the key partitions reduced on the compiled kernels' threads, taken in order."""
        sites = np.concatenate(self._sites) if self._sites else np.zeros(0, np.int64)
        site_max = self.params.site_max_df if sites.shape[0] and sites.max() >= 0 else 0
        if any(self._seeds.spilled):
            self._seeds.flush()  # before the threads read: reading a spilled partition writes nothing then

        def reduce(p: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
            rec = self._seeds.read(p)
            rec = rec[np.argsort(rec["key"], kind="stable")]  # stable: documents stay in order within a key
            bad = site_boilerplate(rec["key"], rec["doc"], sites[rec["doc"]], site_max) if site_max else rec["key"][:0]
            if bad.shape[0]:  # one site's boilerplate: a template line, an "About us" paragraph
                rec = rec[~np.isin(rec["key"], bad)]
            keep, starts = shared_seeds(rec["key"], rec["doc"], self.params.max_df)
            return rec["doc"][keep], rec["pos"][keep], starts, int(bad.shape[0])

        docs, poss, groups, at, boilerplate = [], [], [], 0, 0
        for doc, pos, starts, bad in in_order_threads(reduce, range(self._seeds.parts), kernel_threads()):
            docs.append(doc)
            poss.append(pos)
            groups.append(starts[:-1] + at)
            at += int(doc.shape[0])
            boilerplate += bad
        if site_max:
            self.counts["site_boilerplate_seeds"] = boilerplate
        groups.append(np.array([at], np.int64))
        return np.concatenate(docs), np.concatenate(poss), np.concatenate(groups)

    def chains(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Stages 2-4 as arrays: :func:`~.seeds.chain_pairs` output ``(out, cov)`` per range of
        documents, in order of ``(a, b)``; ``counts`` gets the input's numbers."""
        p = self.params
        words = self.doc_words()
        first = np.r_[0, np.cumsum(words)].astype(np.int64)
        doc, pos, groups = self._shared()
        per_doc = pair_counts(doc, groups, self.documents)
        self.counts.update({"documents": self.documents, "words": int(first[-1]), "shared_seeds": int(doc.shape[0]),
                            "seed_pairs": int(per_doc.sum()), "pairs": 0, "passages": 0})
        by_doc = by_document(doc, pos, groups, self.documents)
        threads = kernel_threads()  # a range per thread, the pair budget shared: memory as with one
        yield from in_order_threads(lambda r: chain_range(doc, pos, by_doc, words, *r, p),
                                    pair_ranges(per_doc, max(self.pair_budget // threads, 1)), threads)

    def doc_words(self) -> np.ndarray:
        """Words of every document added, in order."""
        return np.concatenate(self._words) if self._words else np.zeros(0, np.int64)

    def pairs(self) -> Iterator[AlignedPair]:
        """Stages 2-4: every document pair sharing a valid passage, in order of ``(a, b)``."""
        first = np.r_[0, np.cumsum(self.doc_words())].astype(np.int64)
        offsets = self._offsets.read(0, mapped=True)
        for out, cov in self.chains():
            yield from report_pairs(out, cov, first, offsets, self.counts)

    def _spill_folder(self) -> str:
        """The temporary folder of the spilled seeds and offsets, made when first needed: an
        aligner that stays within its memory never touches the disk, so a process that is killed
        (a Spark worker, a run stopped with SIGKILL) leaves no empty folder behind."""
        if self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="neardup-align-", dir=self.folder)
        return self._tmp.name

    def close(self) -> None:
        """Remove the temporary folder, if one was made (also done when the aligner is collected)."""
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def report_pairs(out: np.ndarray, cov: np.ndarray, first: np.ndarray, offsets: np.ndarray,
                 counts: dict[str, int] | None = None) -> Iterator[AlignedPair]:
    """Passages of :func:`~.seeds.chain_pairs` (word positions) to :class:`AlignedPair` with character spans.

    ``first``: each document's first word in ``offsets`` (the character ``start``/``end``
    of every word, documents one after another).  Shared by :class:`Aligner` and the
    online index (:mod:`neardup.online.passages`), so both report a passage alike.
    """
    if not out.shape[0]:
        return
    ga, gb = first[out[:, 0]], first[out[:, 1]]
    chars = (*word_chars(ga, out[:, 2], out[:, 3], offsets["start"], offsets["end"]),
             *word_chars(gb, out[:, 4], out[:, 5], offsets["start"], offsets["end"]))
    yield from aligned_pairs(out, cov, chars, {"pairs": 0, "passages": 0} if counts is None else counts)


def pair_ranges(per_doc: np.ndarray, budget: int) -> Iterator[tuple[int, int, int]]:
    """Ranges ``[lo, hi)`` of "a" documents whose seed pairs (``per_doc``: each one's count,
    :func:`~.seeds.pair_counts`) make at most ``budget`` together (or come from one
    document), with that number: stage 2 a range at a time keeps its arrays bounded."""
    cum = np.cumsum(per_doc)
    lo = 0
    while lo < per_doc.shape[0]:
        base = int(cum[lo - 1]) if lo else 0
        hi = max(int(np.searchsorted(cum, base + budget, side="right")), lo + 1)
        yield lo, hi, int(cum[hi - 1]) - base
        lo = hi


def chain_range(doc: np.ndarray, pos: np.ndarray, by_doc: tuple[np.ndarray, np.ndarray, np.ndarray],
                words: np.ndarray, lo: int, hi: int, total: int, p: AlignParams) -> tuple[np.ndarray, np.ndarray]:
    """Stages 2-4 for the "a" documents ``[lo, hi)`` (``total``: their seed pairs): the seed pairs
    sieved (:func:`~.seeds.sieve_pairs`) and chained (:func:`~.seeds.chain_pairs`), ``(out, cov)``.
    Every engine chains a range through here; both kernels release the GIL."""
    a, b, pa, pb = sieve_pairs(doc, pos, by_doc, lo, hi, total, p.min_seeds)
    return chain_pairs(a, b, pa, pb, words, *p.chain_args())


def word_chars(base: np.ndarray, lo: np.ndarray, hi: np.ndarray, starts: np.ndarray,
               ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Character span of words ``[lo, hi)`` of documents whose words start at ``base`` in the
    word offsets ``starts`` / ``ends``: the first word's start, the last one's end."""
    return starts[base + lo], ends[base + hi - 1]


def aligned_pairs(out: np.ndarray, cov: np.ndarray, chars: tuple[np.ndarray, ...],
                  counts: dict[str, int]) -> Iterator[AlignedPair]:
    """Stage 4's output: :func:`~.seeds.chain_pairs` rows (``out``, ``cov``; pairs contiguous,
    passages in the kernel's order) with their character spans ``chars`` (a start, a end,
    b start, b end) as :class:`AlignedPair` objects; ``counts`` gets the pairs and passages.
    Every engine reports through here, so equal arrays make equal output."""
    if not out.shape[0]:
        return
    rows = np.column_stack([out, *chars]).tolist()
    density = np.round(cov[:, 0], 4).tolist()
    cover_a, cover_b = np.round(cov[:, 1], 6).tolist(), np.round(cov[:, 2], 6).tolist()
    new_a, new_b = cov[:, 3].astype(np.int64).tolist(), cov[:, 4].astype(np.int64).tolist()
    pair_starts = np.flatnonzero(np.r_[True, (out[1:, 0] != out[:-1, 0]) | (out[1:, 1] != out[:-1, 1])])
    bounds = np.r_[pair_starts, out.shape[0]].tolist()
    for lo, hi in zip(bounds[:-1], bounds[1:]):  # one Python object per reported pair (the output)
        passages = [Passage((r[6], r[7]), (r[8], r[9]), r[3] - r[2], r[5] - r[4], d)
                    for r, d in zip(rows[lo:hi], density[lo:hi])]
        counts["pairs"] += 1
        counts["passages"] += hi - lo
        yield AlignedPair(rows[lo][0], rows[lo][1], passages, cover_a[lo], cover_b[lo], new_a[lo], new_b[lo])


def align_texts(texts: Iterable[str], params: AlignParams = DEFAULT_ALIGN, batch_docs: int = 1000,
                **engine: Any) -> Iterator[AlignedPair]:
    """Every pair of ``texts`` that shares a copied passage (streamed in batches of ``batch_docs``);
    ``engine``: the :class:`Aligner`'s memory_mb, pair_budget, folder."""
    al = Aligner(params, **engine)
    batch = list(itertools.islice(iter_texts := iter(texts), batch_docs))
    while batch:
        al.add(batch)
        batch = list(itertools.islice(iter_texts, batch_docs))
    try:
        yield from al.pairs()
    finally:
        al.close()


def align(texts: Sequence[str], params: AlignParams = DEFAULT_ALIGN) -> list[tuple[int, int, list[Passage]]]:
    """Every pair of ``texts`` that shares a copied passage: ``(a, b, passages)`` with ``a < b``."""
    return [(p.a, p.b, p.passages) for p in align_texts(texts, params)]
