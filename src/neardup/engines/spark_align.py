"""Seed-and-extend alignment (``partial --method align``, ``contain --method align``) as Spark stages.

The stages of :mod:`neardup.align.aligner`, each a Spark stage calling the local engine's
kernels (:mod:`neardup.align.seeds`) on Arrow batches, as MapReduce jobs would:

0. **words** -- ``mapInPandas`` over ``(row, text)``: :func:`~neardup.align.words.tokens`
   and :func:`~neardup.align.seeds.seed_keys` per batch of documents; one row per
   document: its word count, seed keys, word offsets (``words/``).  Words are the kernel's
   64-bit hashes and seeds the same mix of them as locally, so seeds, word positions and
   offsets are the local ones (no corpus-wide dictionary on either engine);
1. **index** -- seeds exploded to ``(key, doc, pos)``, shuffled by key and sorted by
   ``(key, doc, pos)`` (the local order: documents in order within a key); each
   partition's runs of one key go through :func:`~neardup.align.seeds.shared_seeds`
   (seeds of 2..``max_df`` documents, at most ``4 max_df`` places); one row per kept key
   (``index/``);
2. **seed pairs** -- index rows dealt to blocks of documents (ranges of rows), each to every
   block holding one of its documents as the earlier of a pair; per block, the local loop:
   :func:`~neardup.align.seeds.sieve_pairs` over ranges of its documents within
   :data:`PAIR_BUDGET` (:func:`~neardup.align.aligner.pair_ranges`), only the pairs of
   documents sharing ``min_seeds`` seeds, in ``(a, b, pa, pb)`` order (:func:`chained`);
3. **passages** -- in the same task, :func:`~neardup.align.seeds.chain_pairs` (chains, merged
   passages, validation, coverage) (``passages/``): no seed pair is shuffled;
4. **characters** -- passages joined with both documents' word offsets.

The driver numbers rows through the shared input stage and collects the passages in
``(a, b)`` order, the kernel's order within a pair; :func:`~neardup.align.aligner.aligned_pairs`
turns them into the same :class:`~neardup.align.aligner.AlignedPair` objects as the local
engine, so the outputs are byte-identical whatever the partitions and their order.
Grouping by a shuffle and a sort within partitions (not ``applyInPandas`` per key) keeps
Python calls per batch, not per seed or pair: a run of one key (or block) that crosses an
Arrow batch is held back and joined to the next (:func:`complete_runs`).
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

import numpy as np
import pandas as pd

from ..align.aligner import AlignedPair, AlignParams, aligned_pairs, chain_range, pair_ranges, word_chars
from ..align.boilerplate import site_boilerplate
from .shards import DocumentShards, filesystem_of, read_stored, sorted_parts, stored
from .spark_batches import complete_runs, each_batch, one_thread, whole_runs

if TYPE_CHECKING:
    from .spark_input import SparkInput
    from .spark_runtime import SparkRuntime

#: Seed pairs one task makes at once in stage 2 (16 bytes each).
PAIR_BUDGET = 1 << 21
#: Shared seed places per block of documents in stage 2, at most (a task holds its block's key groups).
BLOCK_SEEDS = 1 << 22

_WORDS = "row long, words long, keys binary, starts binary, ends binary"
_SEEDS = "key long, doc int, pos int, words int"
_INDEX = "key long, docs binary, pos binary, words binary"
_PASSAGES = ("a long, b long, idx long, a_lo long, a_hi long, b_lo long, b_hi long, density double, "
             "cover_a double, cover_b double, new_a double, new_b double")
_CHARS = "a_start long, a_end long, b_start long, b_end long"


class SparkAligner:
    """:class:`~neardup.align.aligner.Aligner` on Spark: ``add`` texts in batches, then
    iterate :meth:`pairs` (the same pairs, in the same order); ``counts`` as locally."""

    def __init__(self, engine: "SparkRuntime", params: AlignParams) -> None:
        params.check()
        self.engine, self.params = engine, params
        self._stack = ExitStack()
        self.work = self._stack.enter_context(engine.workdir())
        self._shards = DocumentShards(f"{self.work}/documents")
        self._sites: list[np.ndarray] = []
        self.documents = 0
        self.counts: dict[str, int] = {}
        self._input: Any = None
        self._input_has_sites = False

    def add(self, texts: Sequence[str], sites: np.ndarray | None = None) -> None:
        """Write a batch of texts as the next rows of the input shards (``sites``: each text's site
        code, -1 unknown, for ``site_max_df``)."""
        self._sites.append(np.full(len(texts), -1, np.int64) if sites is None else np.asarray(sites, np.int64))
        self._shards.add(texts)
        self.documents += len(texts)

    def use_input(self, given: Any, sites: bool = True) -> None:
        """Align the documents the executors read (a :class:`~.spark_input.SparkInput`: its shards
        and, with ``sites``, each document's site for ``site_max_df``, as ``dedup``'s relations
        give them) instead of batches given to :meth:`add`."""
        self._input, self._input_has_sites = given, sites

    @property
    def reads_files(self) -> bool:
        """Whether :meth:`read_files` has the executors read the inputs (the engine's choice)."""
        return bool(self.engine.executors_read)

    def read_files(self, inputs: Sequence[str], extract: str, stats: Any, strict: bool, fields: Any,
                   prefer_html: bool, admit: Any = None) -> "SparkInput":
        """The executors read ``inputs`` (the engine's input stage: the local rows, rejections and
        account, into ``stats``; with ``admit``, each record's checks of the job, as
        :func:`~.spark_input.read_inputs` says), and those documents are aligned, every site unknown
        as when texts are added without one (``partial``, ``contain``).  Returns the read input (its
        ids in row order: :meth:`~.spark_input.SparkInput.ids`); its shards go when the aligner closes."""
        given = self.engine.read_files(inputs, extract, stats, strict, fields, prefer_html, admit=admit)
        self._stack.callback(given.close)
        self.use_input(given, sites=False)
        return given

    def pairs(self) -> Iterator[AlignedPair]:
        """Stages 0-4 on Spark; every document pair sharing a valid passage, in order of ``(a, b)``."""
        for out, cov, chars in self._found():
            yield from aligned_pairs(out, cov, chars, self.counts)

    def chains(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Stages 0-4 as arrays ``(out, cov)``, as :meth:`~neardup.align.aligner.Aligner.chains`."""
        for out, cov, _ in self._found():
            yield out, cov

    def _found(self) -> Iterator[tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]]]:
        """The passages of every pair in the local order, in chunks of whole pairs: ``out``, ``cov``
        and character spans.  The executors sort and write them; they are read back here a batch
        at a time, so the driver never holds them all."""
        if not self.begin():
            return
        with self.engine.running() as spark:
            found = self._stages(spark)
        for frame in complete_runs(found, ["a", "b"]):
            out = np.column_stack([frame[c].to_numpy(np.int64) for c in ("a", "b", "a_lo", "a_hi", "b_lo", "b_hi")])
            cov = np.column_stack([frame[c].to_numpy(np.float64)
                                   for c in ("density", "cover_a", "cover_b", "new_a", "new_b")])
            chars = tuple(frame[c].to_numpy(np.int64) for c in ("a_start", "a_end", "b_start", "b_end"))
            yield out.reshape(-1, 6), cov.reshape(-1, 5), chars

    def _stages(self, spark: Any) -> Iterator[pd.DataFrame]:
        """Stages 0-4 run, the counts taken; the passages, sorted as locally, to be read."""
        passages, words = self.chained_rows(spark, passage_rows, _PASSAGES)
        passages = stored(passages, f"{self.work}/passages")
        return sorted_parts(char_stage(passages, words), ["a", "b", "idx"], f"{self.work}/found")

    def begin(self) -> int:
        """The documents to align (the added ones' shards closed), their counts started."""
        n = self._shards.close() if self._input is None else self._input.n
        self.counts = {"documents": n, "words": 0, "shared_seeds": 0, "seed_pairs": 0, "pairs": 0, "passages": 0}
        return n

    def chained_rows(self, spark: Any, emit: Callable[[np.ndarray, np.ndarray], pd.DataFrame],
                     schema: str) -> tuple[Any, Any]:
        """Stages 0-1 run, the counts taken: stages 2-3 (:func:`chained`, to be run; ``emit`` makes
        the rows of ``schema``) and the stored words."""
        from pyspark.sql import functions as F

        p, work = self.params, self.work
        documents: Any = f"{work}/documents" if self._input is None else self._input
        words = stored(word_stage(self.engine.documents(spark, documents), p.n), f"{work}/words")
        sites = self._site_frame(spark)
        index = stored(index_stage(words, p.max_df, sites, p.site_max_df), f"{work}/index")
        totals = index.mapInPandas(each_batch(_index_counts), "shared long, pairs long").agg(
            F.sum("shared").alias("shared"), F.sum("pairs").alias("pairs")).first()
        self.counts.update(words=int(words.agg(F.sum("words")).first()[0] or 0),
                           shared_seeds=int(totals["shared"] or 0), seed_pairs=int(totals["pairs"] or 0))
        if sites is not None:
            self.counts["site_boilerplate_seeds"] = int(index.where(F.length("docs") == 0).count())
        labels = block_labels(spark, self.counts["shared_seeds"], work)
        return chained(index, self.counts["documents"], labels, p, emit, schema), words

    def _site_frame(self, spark: Any) -> Any:
        """``(doc, site)`` of the documents with a known site, as a DataFrame (``None``: no site known or
        ``site_max_df`` off); written as Parquet beside the documents."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self._input is not None:
            return self._input_sites(spark) if self._input_has_sites else None
        sites = np.concatenate(self._sites) if self._sites else np.zeros(0, np.int64)
        known = np.flatnonzero(sites >= 0)
        if not self.params.site_max_df or not known.shape[0]:
            return None
        path = f"{self.work}/sites"
        filesystem, root = filesystem_of(path)
        filesystem.create_dir(root, recursive=True)
        pq.write_table(pa.table({"doc": known.astype(np.int32), "site": sites[known]}), f"{root}/part-00000.parquet",
                       filesystem=filesystem)
        return spark.read.parquet(path)

    def _input_sites(self, spark: Any) -> Any:
        """``(doc, site)`` of the executors' input: a site's code is a 63-bit xxhash64 of its name
        (the codes only tell sites apart: :func:`~neardup.align.aligner.site_boilerplate`)."""
        from pyspark.sql import functions as F

        if not self.params.site_max_df:
            return None
        known = spark.read.parquet(self._input.provenance_path).where(F.col("site") != "")
        if not known.limit(1).count():
            return None
        return stored(known.select(F.col("row").cast("int").alias("doc"),
                                   F.xxhash64("site").bitwiseAND(F.lit(0x7FFFFFFFFFFFFFFF)).alias("site")),
                      f"{self.work}/sites")

    def close(self) -> None:
        """Remove the work folder (unless the engine keeps it)."""
        self._shards.close()
        self._stack.close()


# ---------------------------------------------------------------------------- helpers


def _sizes(cells: pd.Series, itemsize: int) -> np.ndarray:
    """Values in each ``bytes`` cell."""
    return np.fromiter((len(c) // itemsize for c in cells), dtype=np.int64, count=len(cells))


def _compact(doc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows as numbers ``0..k-1`` in the same order (so a kernel's arrays are sized by the
    batch, not the corpus): the distinct rows and each value's number."""
    rows, number = np.unique(doc, return_inverse=True)
    return rows, number.astype(np.int32)


# ---------------------------------------------------------------------------- stages


def word_stage(docs: Any, n: int) -> Any:
    """Stage 0: ``(row, text)`` -> ``(row, words, keys, starts, ends)``, one row per document."""
    from ..align.seeds import seed_keys
    from ..align.words import tokens
    from .codec import segment_bytes

    def fn(frame: pd.DataFrame) -> pd.DataFrame:
        hashes, starts, ends, counts = tokens(frame["text"].tolist())
        first = np.r_[0, np.cumsum(counts)].astype(np.int64)
        key, doc, _ = seed_keys(hashes, first, n)  # a document's seeds are its positions 0, 1, ... in order
        seeds = np.bincount(doc, minlength=len(frame))
        return pd.DataFrame({"row": frame["row"].to_numpy(np.int64), "words": counts.astype(np.int64),
                             "keys": segment_bytes(key, seeds), "starts": segment_bytes(starts, counts),
                             "ends": segment_bytes(ends, counts)})

    return docs.mapInPandas(each_batch(fn), _WORDS)


def index_stage(words: Any, max_df: int, sites: Any = None, site_max: int = 0) -> Any:
    """Stage 1: the inverted index of shared seeds, one row per kept key: its documents,
    positions and the documents' word counts, in ``(doc, pos)`` order.  With ``sites`` (a
    ``(doc, site)`` frame), a key that is one site's boilerplate
    (:func:`~neardup.align.aligner.site_boilerplate`) is dropped first, as locally."""
    from ..align.seeds import shared_seeds
    from .codec import joined, segment_bytes

    def explode(frame: pd.DataFrame) -> pd.DataFrame:
        sizes = _sizes(frame["keys"], 8)
        starts = np.repeat(np.cumsum(sizes) - sizes, sizes)
        return pd.DataFrame({"key": joined(frame["keys"], "<u8").view(np.int64),
                             "doc": np.repeat(frame["row"].to_numpy(np.int32), sizes),
                             "pos": (np.arange(int(sizes.sum())) - starts).astype(np.int32),
                             "words": np.repeat(frame["words"].to_numpy(np.int32), sizes)})

    def reduce(frame: pd.DataFrame) -> pd.DataFrame:
        bad = np.zeros(0, np.int64)
        if "site" in frame:
            bad = site_boilerplate(frame["key"].to_numpy(np.int64), frame["doc"].to_numpy(np.int32),
                                   frame["site"].to_numpy(np.int64), site_max)
            if bad.shape[0]:
                frame = frame[~np.isin(frame["key"].to_numpy(np.int64), bad)]
        key, doc = frame["key"].to_numpy(np.int64).view(np.uint64), frame["doc"].to_numpy(np.int32)
        keep, starts = shared_seeds(key, doc, max_df)
        sizes = np.diff(starts)
        pick = lambda c: segment_bytes(frame[c].to_numpy(np.int32)[keep], sizes)  # noqa: E731
        kept = pd.DataFrame({"key": key[keep[starts[:-1]]].view(np.int64), "docs": pick("doc"), "pos": pick("pos"),
                             "words": pick("words")})
        if not bad.shape[0]:
            return kept
        # a boilerplate key stays as a row without documents: it makes no pair, and it is counted
        empty = [b""] * bad.shape[0]
        return pd.concat([kept, pd.DataFrame({"key": bad, "docs": empty, "pos": empty, "words": empty})],
                         ignore_index=True)

    seeds = words.select("row", "words", "keys").mapInPandas(each_batch(explode), _SEEDS)
    if sites is not None:
        seeds = seeds.join(sites, "doc", "left").fillna(-1, ["site"])
    ordered = seeds.repartition("key").sortWithinPartitions("key", "doc", "pos")
    return ordered.mapInPandas(whole_runs(["key"], reduce), _INDEX)


def _index_arrays(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Index rows as the local arrays: compact ``doc``, ``pos``, group starts, the rows, their word counts."""
    from .codec import joined

    sizes = _sizes(frame["docs"], 4)
    groups = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    rows, doc = _compact(joined(frame["docs"], "<i4"))
    words = np.zeros(rows.shape[0], np.int32)
    words[doc] = joined(frame["words"], "<i4")
    return doc, joined(frame["pos"], "<i4"), groups, rows, words


def _index_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """Shared seeds and the seed pairs they make, for a batch of index rows (the local counts)."""
    from ..align.seeds import pair_counts

    doc, _, groups, rows, _ = _index_arrays(frame)
    return pd.DataFrame({"shared": [int(groups[-1])], "pairs": [int(pair_counts(doc, groups, rows.shape[0]).sum())]})


def block_labels(spark: Any, shared: int, work: str) -> np.ndarray:
    """Stage 2's blocks of documents (one per shuffle partition; more past :data:`BLOCK_SEEDS` shared
    seeds a block): a label per block that ``repartition(blocks, label)`` sends to a partition of its
    own (Spark's hash, asked of Spark in a small job stored under ``work``)."""
    from pyspark.sql import functions as F

    blocks = max(int(str(spark.conf.get("spark.sql.shuffle.partitions"))), -(-shared // BLOCK_SEEDS))
    label = F.col("id").cast("int")
    stored(spark.range(64 * blocks).groupBy(F.pmod(F.hash(label), F.lit(blocks))).agg(F.min(label).alias("label")),
           f"{work}/block_labels")
    labels = sorted(read_stored(f"{work}/block_labels", ["label"])["label"].to_pylist())
    return np.array(labels + list(range(64 * blocks, 64 * blocks + blocks - len(labels))), np.int32)


def passage_rows(out: np.ndarray, cov: np.ndarray) -> pd.DataFrame:
    """Stage 3's rows: one per valid passage (word positions, density, both coverages and longest new runs)."""
    cols = {"a": out[:, 0], "b": out[:, 1], "idx": np.arange(out.shape[0], dtype=np.int64)}
    cols.update({c: out[:, i + 2] for i, c in enumerate(("a_lo", "a_hi", "b_lo", "b_hi"))})
    cols.update({c: cov[:, i] for i, c in enumerate(("density", "cover_a", "cover_b", "new_a", "new_b"))})
    return pd.DataFrame(cols)


def chained(index: Any, n: int, labels: np.ndarray, p: AlignParams,
            emit: Callable[[np.ndarray, np.ndarray], pd.DataFrame], schema: str) -> Any:
    """Stages 2-3 over the index of ``n`` documents: each key group goes to every block of documents
    (ranges of rows, a label each: :func:`block_labels`) holding one of its documents as ``a`` (any
    but its last); a block's task runs the local loop on its groups for its own ``a``: seed pairs by
    :func:`~neardup.align.seeds.sieve_pairs`, :data:`PAIR_BUDGET` at most at once, then the chain
    kernel; ``emit`` makes the rows of its ``(out, cov)`` (``out``'s documents as input rows).

    Every seed pair of a pair of documents ``a < b`` is made in ``a``'s block, so its passages
    are the local ones; the shuffle moves each key group once per block it reaches, not once per
    seed pair (a seed of ``df`` documents makes up to ``df^2 / 2``)."""
    from pyspark.sql import functions as F

    from ..align.seeds import by_document, pair_counts
    from .codec import joined

    blocks = labels.shape[0]

    def dealt(frame: pd.DataFrame) -> pd.DataFrame:
        sizes = _sizes(frame["docs"], 4)
        doc = joined(frame["docs"], "<i4").astype(np.int64)
        group = np.repeat(np.arange(len(frame)), sizes)
        last = np.repeat(np.maximum.reduceat(doc, np.r_[0, np.cumsum(sizes)[:-1]]), sizes)
        pick = np.unique(group[doc != last] * np.int64(blocks) + doc[doc != last] * blocks // n)
        out = frame.iloc[pick // blocks].reset_index(drop=True)
        out.insert(0, "part", labels[pick % blocks])
        return out.assign(block=(pick % blocks).astype(np.int32))

    def run(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        one_thread()
        for frame in complete_runs(frames, ["block"]):
            doc, pos, groups, rows, words = _index_arrays(frame)
            owned = np.searchsorted(rows.astype(np.int64) * blocks // n, int(frame["block"].iloc[0]) + np.arange(2))
            per_doc = pair_counts(doc, groups, rows.shape[0])
            by_doc = by_document(doc, pos, groups, rows.shape[0])
            for lo, hi, total in pair_ranges(per_doc[owned[0]:owned[1]], PAIR_BUDGET):
                out, cov = chain_range(doc, pos, by_doc, words, lo + owned[0], hi + owned[0], total, p)
                if out.shape[0]:
                    out = out.astype(np.int64)
                    out[:, 0], out[:, 1] = rows[out[:, 0]], rows[out[:, 1]]
                    yield emit(out, cov)

    blocked = index.where(F.length("docs") > 0).mapInPandas(each_batch(dealt), f"part int, {_INDEX}, block int")
    return blocked.repartition(blocks, "part").sortWithinPartitions("block").mapInPandas(run, schema)


def char_stage(passages: Any, words: Any) -> Any:
    """Stage 4: each passage with its character span on both sides (the words' offsets)."""
    from pyspark.sql import functions as F

    from .codec import joined

    def fn(frame: pd.DataFrame) -> pd.DataFrame:
        out = frame.drop(columns=["a_starts", "a_ends", "b_starts", "b_ends"])
        for side in ("a", "b"):
            sizes = _sizes(frame[f"{side}_starts"], 4)
            base = np.cumsum(sizes) - sizes
            lo, hi = frame[f"{side}_lo"].to_numpy(np.int64), frame[f"{side}_hi"].to_numpy(np.int64)
            start, end = word_chars(base, lo, hi, joined(frame[f"{side}_starts"], "<i4"),
                                    joined(frame[f"{side}_ends"], "<i4"))
            out[f"{side}_start"], out[f"{side}_end"] = start.astype(np.int64), end.astype(np.int64)
        return out

    offsets = {side: words.select(F.col("row").alias(side), F.col("starts").alias(f"{side}_starts"),
                                  F.col("ends").alias(f"{side}_ends")) for side in ("a", "b")}
    located = passages.join(offsets["a"], "a").join(offsets["b"], "b")
    return located.mapInPandas(each_batch(fn), f"{_PASSAGES}, {_CHARS}")
