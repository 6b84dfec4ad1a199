"""``neardup partial`` (PDC) on Spark: the paper's three MapReduce jobs as Spark stages.

PDC-MR (zhang2010, section 4) ran as three MapReduce jobs; :mod:`neardup.pdc.stages`
writes them as map / shuffle / reduce over numpy records, and here each is a Spark stage
over the same records, calling the same kernels:

0. **sentences** -- ``mapInPandas`` over ``(row, text)``: sentence split, tokens, each
   sentence's signature set (the detector's own :meth:`~neardup.pdc.detector.PartialDetector.signer`),
   its character span; a sentence's id is ``row << 24 | position`` (so ids sort as the local
   engine numbers sentences).  ``imatch`` and ``spotsigs`` signatures need the whole input's
   word statistics first (document frequencies; occurrences, whose most frequent words are the
   antecedents): each batch's table counted by the executors and summed by key
   (:func:`~neardup.engines.spark_stages.summed_statistics`), as the local run merges its batches';
1. **index** -- ``(signature, sentence)`` exploded and counted per signature (document
   frequency);
2. **sentence duplicates** -- each sentence's prefix (its ``|A| - ceil(tau |A|) + 1``
   rarest signatures by ``(frequency, unsigned hash)``, the local order) grouped by
   signature; pairs of sentences of different documents passing the size bound
   (:func:`~neardup.engines.spark_stages.group_pairs`: giant posting lists made by one
   task a million pairs at a time), then the exact Jaccard of both signature sets (the local kernel) at ``tau``;
3. **sequence matching** -- the duplicated sentence pairs shuffled by document pair and sorted,
   each Arrow batch of whole pairs through :func:`neardup.pdc.stages.sequence_matching` at once.

The driver reads the input through the shared input stage (the same rows and
rejections) and builds each reported pair with the local detector's own code, so
``partials`` are byte-identical to the local engine's, with every signature.  ``--truth``
(evaluation in the run) needs every sentence's offsets on the driver: evaluate afterwards
with ``neardup eval --partials``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence

import numpy as np
import pandas as pd

from ..errors import UserError
from ..features.sets import HashedSets
from ..input_stage import batches, progress_bar
from ..pdc.detector import PartialDetector, PartialPair, word_frequencies, word_occurrences
from ..sentences import SentenceBatch
from .shards import read_stored, stored, write_documents

if TYPE_CHECKING:
    from .spark_runtime import SparkRuntime

#: Bits of a sentence id that hold its position in its document.
POSITION_BITS = 24
_SIGN = -(1 << 63)
#: Columns of a span (stage 3's rows).
SPAN_COLUMNS = ("doc_a", "doc_b", "a_start", "b_start", "length")


class SparkPartialDetector(PartialDetector):
    """:class:`~neardup.pdc.detector.PartialDetector` whose stages run on Spark."""

    def __init__(self, engine: "SparkRuntime", **options: Any) -> None:
        super().__init__(**options)
        self.engine = engine

    @classmethod
    def param_names(cls) -> list[str]:
        """The engine, then :class:`PartialDetector`'s parameters (which ``**options`` passes on)."""
        return ["engine", *PartialDetector.param_names()]

    def sentence_offsets(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        raise UserError("--truth with --engine spark: evaluate the output afterwards with "
                        "`neardup eval DATASET --partials partials.jsonl --truth truth.jsonl`")

    @property
    def reads_files(self) -> bool:
        """Whether :meth:`stream_files` has the executors read the inputs (the engine's choice)."""
        return bool(self.engine.executors_read)

    def stream(self, docs: Iterable[Any]) -> Iterator[PartialPair]:
        """Yield each document pair with spans, as the local detector does (see the module docstring):
        the records ``docs`` read here, through the shared input stage."""
        run = self._begin()
        bar = progress_bar(self.progress)
        ids: list[str] = []

        def texts() -> Iterator[list[str]]:
            for batch in batches(docs, self.extract, run.stats, self.strict, batch_bytes=None,
                                 batch_docs=self.batch_docs):
                ids.extend(batch.ids)
                bar.update(len(batch))
                yield batch.texts

        start = time.perf_counter()
        with self.engine.workdir() as work:
            n = write_documents(texts(), f"{work}/documents")
            bar.close()
            yield from self._stages(work, f"{work}/documents", n, lambda: ids, start)

    def stream_files(self, inputs: Sequence[str], fields: Any, prefer_html: bool) -> Iterator[PartialPair]:
        """:meth:`stream` of the records of the files ``inputs``, read by the executors (the engine's input
        stage: the local rows, rejections and account); the ids come back as one Arrow array."""
        run = self._begin()
        start = time.perf_counter()
        given = self.engine.read_files(inputs, self.extract, run.stats, self.strict, fields, prefer_html)
        try:
            with self.engine.workdir() as work:
                yield from self._stages(work, given, given.n, given.ids, start)
        finally:
            given.close()

    def _stages(self, work: str, documents: Any, n: int, ids: Callable[[], Sequence[str]],
                start: float) -> Iterator[PartialPair]:
        """The stages over the ``n`` documents ``documents`` (their shards' path, or the input the
        executors read: :meth:`~.spark.SparkEngine.documents`; ``ids``: their ids, asked for once
        the spans are found), then the reported pairs."""
        from pyspark.sql import functions as F

        run, engine = self.last_run, self.engine
        stats = run.stats
        t = stats.timed("read", start)
        stats.kept = n
        if n == 0:
            run.counts.update(documents=0, sentences=0, duplicated_sentence_pairs=0, spans=0, pairs=0)
            return
        with engine.running() as spark:
            docs = engine.documents(spark, documents)
            self._count_words(docs, n, f"{work}/statistics")
            sents = stored(sentence_stage(docs, self.signer()), f"{work}/sentences")
            t = stats.timed("signatures", t)
            dups = stored(duplicate_stage(sents, self.tau), f"{work}/duplicates")
            t = stats.timed("sentence_duplicates", t)
            spans = stored(span_stage(dups, self.gap, self.gamma), f"{work}/spans")
            found = read_stored(f"{work}/spans", SPAN_COLUMNS).to_pandas()
            t = stats.timed("sequence_matching", t)
            involved = spans.select(F.col("doc_a").alias("doc")).union(spans.select(F.col("doc_b").alias("doc")))
            stored(sents.join(involved.distinct(), "doc").select("doc", "local", "start", "end"), f"{work}/offsets")
            offsets = (read_stored(f"{work}/offsets", ["doc", "local", "start", "end"]).to_pandas()
                       .sort_values(["doc", "local"], kind="stable"))
            run.counts.update(documents=n, sentences=int(sents.count()),
                              duplicated_sentence_pairs=int(dups.count()), spans=len(found))
        stats.timed("collect", t)
        yield from self._pairs(ids(), found, offsets)
        stats.seconds["total"] = time.perf_counter() - start

    def _count_words(self, docs: Any, n: int, path: str) -> None:
        """The run's word statistics of the ``n`` documents ``docs``, summed over the executors' batches:
        I-Match's document frequencies (unless a statistics file gives them), SpotSigs' antecedents."""
        from ..features.spots import most_frequent
        from ..stats.df import DocumentFrequencies
        from .spark_stages import summed_statistics

        run = self.last_run
        if self.signature == "imatch" and run.df is None:
            run.df = summed_statistics(docs, word_frequencies, DocumentFrequencies(), n, path)
        elif self.signature == "spotsigs":
            counted = summed_statistics(docs, word_occurrences, DocumentFrequencies(), n, path)
            run.antecedents = most_frequent(counted.keys, counted.counts, self.antecedents)

    def _pairs(self, ids: Sequence[str], found: pd.DataFrame, offsets: pd.DataFrame) -> Iterator[PartialPair]:
        """The reported pairs, in the local order, built by the local detector's own ``_pair``."""
        docs = offsets["doc"].to_numpy(np.int64)
        involved, counts = np.unique(docs, return_counts=True)
        doc_off = np.zeros(involved.shape[0] + 1, dtype=np.int64)
        np.cumsum(counts, out=doc_off[1:])
        sentences = SentenceBatch(doc_off, offsets["start"].to_numpy(np.int64), offsets["end"].to_numpy(np.int64), [])
        cols = {c: found[c].to_numpy(np.int64) for c in ("doc_a", "doc_b", "a_start", "b_start", "length")}
        order = np.lexsort((cols["b_start"], cols["a_start"], cols["doc_b"], cols["doc_a"]))
        spans = np.stack([np.zeros(order.shape[0], np.int64), cols["a_start"][order], cols["b_start"][order],
                          cols["length"][order]], axis=1)
        da_all, db_all = cols["doc_a"][order], cols["doc_b"][order]
        local_ids = [ids[d] for d in involved.tolist()]
        cut = np.flatnonzero((np.diff(da_all) != 0) | (np.diff(db_all) != 0)) + 1
        bounds = np.r_[0, cut, order.shape[0]] if order.shape[0] else np.zeros(1, np.int64)
        pairs = 0
        for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            da, db = np.searchsorted(involved, [da_all[lo], db_all[lo]]).tolist()
            pairs += 1
            yield self._pair(local_ids, sentences, da, db, spans[lo:hi])
        self.last_run.counts["pairs"] = pairs


def sentence_stage(docs: Any, signer: Callable[[np.ndarray, np.ndarray], HashedSets]) -> Any:
    """``(row, text)`` -> one row per sentence: ``doc, local, sid, start, end, size, sig`` (``signer``:
    sentence tokens -> signature sets)."""
    from ..sentences.tokens import sentence_tokens
    from .codec import segment_bytes
    from .spark_batches import each_batch

    def fn(frame: pd.DataFrame) -> pd.DataFrame:
        rows = frame["row"].to_numpy(np.int64)
        sb = SentenceBatch.from_texts(frame["text"].tolist())
        tokens, off = sentence_tokens(sb.texts)
        sets = signer(tokens, off)
        counts = sb.counts()
        doc = np.repeat(rows, counts)
        local = np.arange(doc.shape[0], dtype=np.int64) - np.repeat(sb.doc_offsets[:-1], counts)
        if local.shape[0] and local.max() >= 1 << POSITION_BITS:
            raise UserError(f"a document with more than {1 << POSITION_BITS:,} sentences")
        sizes = sets.sizes()
        return pd.DataFrame({"doc": doc, "local": local, "sid": (doc << POSITION_BITS) | local,
                             "start": sb.starts.astype(np.int64), "end": sb.ends.astype(np.int64),
                             "size": sizes.astype(np.int64), "sig": segment_bytes(sets.hashes, sizes)})

    schema = "doc long, local long, sid long, start long, end long, size long, sig binary"
    return docs.mapInPandas(each_batch(fn), schema)


def duplicate_stage(sents: Any, tau: float) -> Any:
    """Jobs 1 and 2: ``(doc_a, doc_b, a, b)`` of every duplicated sentence pair (``doc_a < doc_b``)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from ..features.sets import exact_jaccard
    from ..pdc.stages import prefix_size
    from .codec import joined
    from .spark_batches import each_batch
    from .spark_stages import group_pairs

    def explode(frame: pd.DataFrame) -> pd.DataFrame:
        sizes = frame["size"].to_numpy(np.int64)
        hashes = joined(frame["sig"], "<u8")
        return pd.DataFrame({"sid": np.repeat(frame["sid"].to_numpy(np.int64), sizes), "h": hashes.view(np.int64),
                             "plen": np.repeat(prefix_size(sizes, tau), sizes)})

    post = sents.mapInPandas(each_batch(explode), "sid long, h long, plen long")
    df = post.groupBy("h").agg(F.count("*").alias("df"))
    rank = Window.partitionBy("sid").orderBy("df", F.col("h").bitwiseXOR(F.lit(_SIGN)))  # unsigned hash order
    prefix = (post.join(df, "h").withColumn("pos", F.row_number().over(rank) - 1)
              .where(F.col("pos") < F.col("plen")).select("h", "sid"))
    pairs = group_pairs(prefix, ["h"], "sid").drop("n").distinct()
    pairs = pairs.where(F.shiftright("a", POSITION_BITS) != F.shiftright("b", POSITION_BITS))
    side_a = sents.select(F.col("sid").alias("a"), F.col("size").alias("a_size"), F.col("sig").alias("a_sig"))
    side_b = sents.select(F.col("sid").alias("b"), F.col("size").alias("b_size"), F.col("sig").alias("b_sig"))
    joined_pairs = pairs.join(side_a, "a").join(side_b, "b")
    lo, hi = F.least("a_size", "b_size"), F.greatest("a_size", "b_size")
    joined_pairs = joined_pairs.where(lo >= F.lit(tau) * hi - F.lit(1e-9))  # the local size bound

    def verify(frame: pd.DataFrame) -> pd.DataFrame:
        m = len(frame)
        sizes = np.concatenate([frame["a_size"].to_numpy(np.int64), frame["b_size"].to_numpy(np.int64)])
        offsets = np.zeros(2 * m + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        hashes = np.concatenate([joined(frame["a_sig"], "<u8"), joined(frame["b_sig"], "<u8")])
        sim = exact_jaccard(hashes, offsets, np.arange(m, dtype=np.int64), np.arange(m, 2 * m, dtype=np.int64))
        ok = sim >= tau - 1e-9
        a, b = frame["a"].to_numpy(np.int64)[ok], frame["b"].to_numpy(np.int64)[ok]
        mask = (1 << POSITION_BITS) - 1
        return pd.DataFrame({"doc_a": a >> POSITION_BITS, "doc_b": b >> POSITION_BITS, "a": a & mask, "b": b & mask})

    return joined_pairs.mapInPandas(each_batch(verify), "doc_a long, doc_b long, a long, b long")


def span_stage(dups: Any, gap: int, gamma: int) -> Any:
    """Job 3: ``(doc_a, doc_b, a_start, b_start, length)`` of every span, per document pair: the pairs'
    rows shuffled by document pair and sorted, and each Arrow batch of whole pairs through
    :func:`~neardup.pdc.stages.sequence_matching` at once (its key: the pair's number in the batch) --
    not a Python call per document pair."""
    from ..pdc.stages import Records, sequence_matching
    from .spark_batches import whole_runs

    def fn(frame: pd.DataFrame) -> pd.DataFrame:
        doc_a, doc_b = frame["doc_a"].to_numpy(np.int64), frame["doc_b"].to_numpy(np.int64)
        starts = np.r_[True, (doc_a[1:] != doc_a[:-1]) | (doc_b[1:] != doc_b[:-1])]
        key = np.cumsum(starts) - 1
        records = Records(key, {"a": frame["a"].to_numpy(np.int64), "b": frame["b"].to_numpy(np.int64)})
        out = sequence_matching(records, gap, gamma)
        first = np.flatnonzero(starts)[out[:, 0]]
        return pd.DataFrame({"doc_a": doc_a[first], "doc_b": doc_b[first],
                             "a_start": out[:, 1], "b_start": out[:, 2], "length": out[:, 3]})

    schema = ", ".join(f"{c} long" for c in SPAN_COLUMNS)
    ordered = dups.repartition("doc_a", "doc_b").sortWithinPartitions("doc_a", "doc_b")
    return ordered.mapInPandas(whole_runs(["doc_a", "doc_b"], fn), schema)
