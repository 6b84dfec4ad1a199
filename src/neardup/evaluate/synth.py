"""A deterministic, streaming simulator of news syndication, for labeled test corpora.

Real collections of news pages have no complete ground truth; this module makes corpora
that do.  It takes clean article texts (see :mod:`neardup.evaluate.corpora`), treats
each as a wire story and models what happens to it on the web:

- **sites**: a fixed set of synthetic sites, each with its own template (navigation,
  header, cookie notice, ad blocks, "most popular" list, footer, comment section).  The
  boilerplate is the same on every page of a site, as on real sites, so similarity on raw
  pages is dominated by templates, which is what content extraction must undo.
- **near-duplicates** (``kind="rewrite"``): a copy of an earlier version of the story with
  a new headline, dateline, byline and caption, paragraphs re-broken (split or joined) and
  sometimes reordered, a small share of words replaced/deleted/inserted and sometimes a
  local paragraph added.  Rewrites of rewrites accumulate edits, like real chains.
- **trims** (``kind="trim"``): the headline and a subset (mostly a prefix) of the
  paragraphs of one version: contained in that version (recorded with its direction).
- **split articles** (``kind="page"``): one version spread over two pages; each page is a
  partial duplicate of the whole (exact spans recorded) and contained in it.
- **partial duplicates**: a few sentences or a paragraph copied verbatim from a recent
  document of another story and inserted as a paragraph into an unrelated article.
- **hard negatives**: consecutive stories come from the same topic with probability
  ``p_same_topic`` (when the source gives topics), so same-topic, different-story pages
  appear close together in time; they simply are in different clusters.
- **quotes of another story** (``p_shared_quote``, 0 by default): a story's original holds
  one sentence of the previous story's original as a paragraph of its own, and so does
  every version made from it -- two wire versions of one event sharing a quote, across
  all their copies (recorded as a ``"shared quote"`` partial between the two originals).
- **site boilerplate** (``p_site_about``, 0 by default): a page ends with its site's "About
  us" paragraph (the same 60-100 made-up words on every page of the site that has it), as
  when extraction leaves it in or a site prints it under every press release.

Each document's ``text`` is what a perfect extractor returns: the headline line, then
the paragraphs (the dateline opens the first one), separated by ``"\\n\\n"``.  Bylines,
captions, ads, related links and comments are in ``html`` only (not article content).

Determinism: the story plan and edits are drawn from ``numpy.random.default_rng(seed)``
and made-up words from ``random.Random(seed)``, in a fixed order; each page's template
noise comes from ``random.Random`` seeded with (seed, document number).  No use of
Python's ``hash()``: the same inputs and seed give byte-identical output.

Streaming: documents are generated story by story and emitted in time order through a
heap holding only the documents whose time is not yet reached (about
``max_delay_hours / story_gap_minutes`` stories' worth), and HTML is rendered only on
emission.  Memory is bounded by that window plus the source texts, whatever ``n_docs``.

Length: the story rewrites and their truth records belong together (sites and stories are in
:mod:`.sites` and :mod:`.stories`, the knobs in :mod:`.synth_config`).
"""

from __future__ import annotations

import heapq
import math
import random
import re
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, closing
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from ..errors import UserError
from .languages import language
from .sites import COMMON, MONTHS, Words, make_site, render
from .stories import Story, compose, prepare_stories, sentence_spans
from .synth_config import SynthConfig, check_docs, start_seconds

__all__ = ["SynthConfig", "Syndicator", "simulate", "write_corpus", "prepare_stories", "sentence_spans"]


# --------------------------------------------------------------------------- simulator


@dataclass
class _Version:
    """A full article version: headline, dateline and body paragraphs."""

    headline: str
    dateline: str
    paras: list[str]

    def full_paras(self) -> list[str]:
        if not self.dateline:
            return list(self.paras)
        return [f"{self.dateline} - {self.paras[0]}", *self.paras[1:]]


class Syndicator:
    """Streams a labeled syndication corpus made from ``articles``.

    ``Syndicator(articles, seed, config).run(n_docs)`` yields ``("doc", record)`` and
    ``("truth", record)`` pairs (see :func:`simulate`).  ``counts`` is updated as it goes.
    The sources are held in memory (cleaned, deduplicated); the output is not.
    """

    def __init__(self, articles: Iterable[dict], seed: int, config: SynthConfig | None = None):
        self.config = cfg = config or SynthConfig()
        self.seed = int(seed) % 2**64
        self.rng = np.random.default_rng(self.seed)
        self.py = random.Random(self.seed)  # for made-up words
        self.stories = prepare_stories(articles, cfg.min_source_words, cfg.max_digit_share)
        if not self.stories:
            raise UserError(f"synth: no usable source articles (none of at least {cfg.min_source_words} words with "
                            f"at most {cfg.max_digit_share} of them holding a digit: check --min-source-words and "
                            "--max-digit-share)")
        self.lang = language(cfg.lang, [" ".join(s.paras[:3]) for s in self.stories[:200]])
        self.stories = self.lang.unrelated(self.stories)
        for s in self.stories:
            s.paras = self.lang.paragraphs(s.paras)
        self.titles = [s.title for s in self.stories]
        self.words = Words(self.py)
        self.sites = [make_site(i, self.py, self.words, self.titles) for i in range(cfg.n_sites)]
        pop = 1.0 / np.arange(1, cfg.n_sites + 1) ** 0.8
        self._site_cdf = np.cumsum(pop / pop.sum())
        self.counts: dict[str, int] = {"docs": 0, "clusters": 0, "containment": 0, "partial": 0}
        self._seq = 0
        self._last_original: tuple[str, str] | None = None  # (id, text) of the previous story's original

    # ---- planning

    def _plan(self, n_docs: int | None) -> np.ndarray:
        """Documents per cluster: one entry per story used, summing to ``n_docs``."""
        cfg, n_stories = self.config, len(self.stories)
        total = round(n_stories * cfg.mean_cluster_size) if n_docs is None else int(n_docs)  # at least 1
        k = max(1, min(n_stories, total, round(total / cfg.mean_cluster_size)))
        w = self.rng.lognormal(0.0, cfg.cluster_size_sigma, k)
        return 1 + self.rng.multinomial(total - k, w / w.sum())

    def _story_order(self, k: int) -> Iterator[int]:
        """``k`` distinct story indices; the next one shares the topic w.p. p_same_topic."""
        order = self.rng.permutation(len(self.stories))
        by_topic: dict[str | None, list[int]] = {}
        for i in order[::-1].tolist():  # reversed so .pop() follows the permutation
            by_topic.setdefault(self.stories[i].topic, []).append(i)
        used = np.zeros(len(self.stories), dtype=bool)
        pos, prev = 0, None
        for _ in range(k):
            same = by_topic.get(prev) if prev is not None else None
            while same and used[same[-1]]:
                same.pop()
            if same and self.rng.random() < self.config.p_same_topic:
                i = same.pop()
            else:
                while used[order[pos]]:
                    pos += 1
                i = int(order[pos])
            used[i] = True
            prev = self.stories[i].topic
            yield i

    # ---- transformations

    def _delay(self, base: int, after: int) -> int:
        """A republication time: ``base`` plus a capped exponential delay, not before
        ``after`` (the time of the version it copies)."""
        cfg = self.config
        d = min(self.rng.exponential(cfg.mean_delay_hours * 3600), cfg.max_delay_hours * 3600)
        return max(after, base + int(d))

    def _site(self) -> int:
        return min(int(np.searchsorted(self._site_cdf, self.rng.random())), len(self.sites) - 1)

    def _headline(self, story: Story) -> str:
        rng, t = self.rng, story.title
        if rng.random() >= self.config.p_new_headline:
            return t
        if t.isupper() and rng.random() < 0.7:
            t = t.title()
        ws = t.split()
        op = rng.integers(4)
        if self.lang.code != "en":
            return self.lang.headline(t, rng, int(op))
        if op == 0:
            t = f"UPDATE {int(rng.integers(1, 4))}-{t}"
        elif op == 1 and len(ws) > 3:
            del ws[int(rng.integers(len(ws)))]
            t = " ".join(ws)
        elif op == 2:
            t = f"{t}, {['officials say', 'report says', 'sources say', 'analysts say'][rng.integers(4)]}"
        elif len(ws) > 1:
            ws[int(rng.integers(len(ws)))] = COMMON[rng.integers(len(COMMON))]
            t = " ".join(ws)
        return t

    def _dateline(self, keep: str) -> str:
        u = self.rng.random()
        if u < 0.5:
            return keep
        if u < 0.75 or self.lang.code != "en":
            return ""
        day = int(self.rng.integers(1, 29))
        agency = ["Reuters", "AP", "AFP", "Staff"][self.rng.integers(4)]
        return f"{self.words.word(self.py).upper()}, {MONTHS[self.rng.integers(12)]} {day} ({agency})"

    def _edit_words(self, para: str) -> str:
        """Replace, delete or insert about ``edit_rate`` of the words (replacements are
        common words or words of the same paragraph)."""
        rng, rate = self.rng, self.config.edit_rate
        if self.lang.code != "en":
            return self.lang.edit(para, rng, rate)
        toks = para.split(" ")
        hits = np.flatnonzero(rng.random(len(toks)) < rate)
        if not len(hits):
            return para
        for i in hits[::-1].tolist():  # right to left keeps earlier indices valid
            op = rng.integers(3)
            if op == 0:
                toks[i] = toks[rng.integers(len(toks))] if rng.random() < 0.5 else COMMON[rng.integers(len(COMMON))]
            elif op == 1 and len(toks) > 1:
                del toks[i]
            else:
                toks.insert(i + 1, COMMON[rng.integers(len(COMMON))])
        return " ".join(toks)

    def _rewrite(self, story: Story, base: _Version) -> _Version:
        rng, cfg = self.rng, self.config
        paras = list(base.paras)
        if rng.random() < cfg.p_rebreak:
            for _ in range(int(rng.integers(1, 4))):
                i = int(rng.integers(len(paras)))
                cut = [e for _, e in sentence_spans(paras[i])[:-1]]
                if cut and rng.random() < 0.5:  # split at a sentence end
                    c = cut[rng.integers(len(cut))]
                    paras[i: i + 1] = [paras[i][:c], paras[i][c + 1:]]
                elif i + 1 < len(paras):  # join with the next paragraph
                    paras[i: i + 2] = [paras[i] + " " + paras[i + 1]]
        if len(paras) > 2 and rng.random() < cfg.p_reorder:
            i = int(rng.integers(1, len(paras) - 1))
            paras[i], paras[i + 1] = paras[i + 1], paras[i]
        if cfg.edit_rate > 0:
            paras = [self._edit_words(p) for p in paras]
        paras = self.lang.restyle(paras, rng)
        if rng.random() < cfg.p_local_paragraph:
            paras.insert(int(rng.integers(1, len(paras) + 1)), self.lang.local_paragraph(self.words, self.py))
        return _Version(self._headline(story), self._dateline(base.dateline), paras)

    def _quote(self, recent: deque, when: int) -> tuple[str, str, tuple[int, int]] | None:
        """A verbatim passage of a recent document: (doc id, passage, span in its text)."""
        rng, lo = self.rng, self.config.min_partial_chars
        lo = round(lo * self.lang.chars_per_word / 6.0)  # the same number of words in every language
        for _ in range(5):
            if not recent:
                return None
            doc_id, text, t, starts = recent[int(rng.integers(len(recent)))]
            if t > when:
                continue
            j = int(rng.integers(len(starts)))
            s, e = starts[j], (starts[j + 1] - 2 if j + 1 < len(starts) else len(text))
            sents = sentence_spans(text, s, e)
            if rng.random() >= 0.4 and len(sents) > 1:  # a few sentences, not the paragraph
                i = int(rng.integers(len(sents)))
                want, k = int(rng.integers(1, 4)), i + 1
                while k < len(sents) and (k - i < want or sents[k - 1][1] - sents[i][0] < lo):
                    k += 1
                if sents[k - 1][1] - sents[i][0] >= lo:
                    s, e = sents[i][0], sents[k - 1][1]
            if e - s >= lo:
                return doc_id, text[s:e], (s, e)
        return None

    def _shared_quote(self, v0: _Version) -> tuple[str, tuple[int, int], int] | None:
        """With ``p_shared_quote``, put one 10-40-word sentence of the previous story's original into
        ``v0`` as a paragraph of its own: (source id, span in its text, paragraph index in ``v0``'s text)."""
        p = self.config.p_shared_quote
        if p <= 0 or self._last_original is None or self.rng.random() >= p:
            return None
        src_id, text = self._last_original
        body = text.find("\n\n") + 2  # after the headline
        spans = [(s, e) for s, e in sentence_spans(text, body, len(text)) if 10 <= self.lang.count(text[s:e]) <= 40]
        if not spans:
            return None
        s, e = spans[int(self.rng.integers(len(spans)))]
        at = int(self.rng.integers(1, len(v0.paras) + 1))
        v0.paras.insert(at, text[s:e])
        return src_id, (s, e), at

    # ---- a cluster

    def _new_id(self) -> tuple[int, str]:
        self._seq += 1
        return self._seq, f"d{self._seq:08d}"

    def _cluster(self, c: int, story: Story, size: int, base_time: int, recent: deque):
        """Documents (as pending heap entries) and truth records of one story."""
        rng, cfg = self.rng, self.config
        docs: list[dict] = []  # {"seq", "id", "text", "time", "kind", "v": _Version|None}
        truth: list[dict] = []
        bases: set[int] = set()  # indices in docs of versions something was derived from

        def add(kind: str, text: str, when: int, v: _Version | None, site: int | None = None) -> dict:
            seq, doc_id = self._new_id()
            d = {"seq": seq, "id": doc_id, "text": text, "time": when, "kind": kind, "v": v,
                 "site": self._site() if site is None else site}
            docs.append(d)
            return d

        v0 = _Version(story.title, story.dateline, list(story.paras))
        shared = self._shared_quote(v0)
        text0, starts0 = compose(v0.headline, v0.full_paras())
        original = add("original", text0, base_time, v0)
        if shared is not None:
            src_id, (s, e), at = shared
            truth.append({"type": "partial", "a": src_id, "b": original["id"], "a_chars": [s, e],
                          "b_chars": [starts0[at], starts0[at] + e - s], "why": "shared quote"})
        self._last_original = (original["id"], text0)
        full = [0]  # indices in docs of full versions (original and rewrites)
        left = size - 1
        while left > 0:
            u = rng.random()
            b = full[int(rng.integers(len(full)))]
            bv, bd = docs[b]["v"], docs[b]
            bparas = bv.full_paras()
            if u < cfg.p_trim + cfg.p_split and len(bparas) >= 2 and (u < cfg.p_trim or left >= 2):
                bases.add(b)
                _, bstarts = compose(bv.headline, bparas)
                if u < cfg.p_trim:  # trimmed copy, mostly from the bottom
                    k = int(rng.integers(max(1, math.ceil(0.3 * len(bparas))), len(bparas)))
                    if rng.random() < 0.75:
                        keep = list(range(k))
                    else:  # or paragraphs cut here and there
                        keep = [0, *sorted(rng.choice(np.arange(1, len(bparas)), k - 1, replace=False).tolist())]
                    text = compose(bv.headline, [bparas[i] for i in keep])[0]
                    t = add("trim", text, self._delay(base_time, bd["time"]), None)
                    truth.append({"type": "containment", "container": bd["id"], "contained": t["id"], "why": "trim"})
                    left -= 1
                else:  # the same version over two pages
                    m = int(rng.integers(1, len(bparas)))
                    when, site = self._delay(base_time, bd["time"]), self._site()
                    for part, (i0, i1) in enumerate([(0, m), (m, len(bparas))]):
                        text = compose(bv.headline, bparas[i0:i1])[0]
                        p = add("page", text, when + part, None, site)
                        a_end = bstarts[i1 - 1] + len(bparas[i1 - 1])
                        truth.append({"type": "partial", "a": bd["id"], "b": p["id"], "a_chars": [bstarts[i0], a_end],
                                      "b_chars": [len(bv.headline) + 2, len(text)], "why": "split"})
                        truth.append({"type": "containment", "container": bd["id"], "contained": p["id"],
                                      "why": "split"})
                    left -= 2
            else:
                bases.add(b)
                v = self._rewrite(story, bv)
                full.append(len(docs))
                add("rewrite", compose(v.headline, v.full_paras())[0], self._delay(base_time, bd["time"]), v)
                left -= 1

        # Passages of other stories go into versions nothing was derived from, so each
        # copied passage appears in exactly one document and the records stay complete.
        quotable = []
        for i, d in enumerate(docs):
            v = d["v"]
            if v is None or i in bases or rng.random() >= cfg.p_partial:
                if v is not None:
                    quotable.append(d)
                continue
            q = self._quote(recent, d["time"])
            if q is None:
                quotable.append(d)
                continue
            src_id, passage, (s, e) = q
            paras = v.full_paras()
            at = int(rng.integers(1, len(paras) + 1))
            paras.insert(at, passage)
            d["text"], starts = compose(v.headline, paras)
            truth.append({"type": "partial", "a": src_id, "b": d["id"], "a_chars": [s, e],
                          "b_chars": [starts[at], starts[at] + len(passage)], "why": "quote"})
        for d in quotable[:4]:
            v = d["v"]
            recent.append((d["id"], d["text"], d["time"], compose(v.headline, v.full_paras())[1]))
        truth.insert(0, {"type": "cluster", "cluster": c, "ids": [d["id"] for d in docs],
                         "source": story.id, "topic": story.topic})
        return docs, truth

    # ---- the stream

    def run(self, n_docs: int | None = None) -> Iterator[tuple[str, dict]]:
        """Yield ``("doc", record)`` in time order and ``("truth", record)`` per story (``n_docs`` is
        checked now, not when the stream is first read)."""
        check_docs(n_docs)
        return self._stream(n_docs)

    def _stream(self, n_docs: int | None) -> Iterator[tuple[str, dict]]:
        """The stream of :meth:`run`."""
        cfg = self.config
        sizes = self._plan(n_docs)
        start = start_seconds(cfg.start)
        now = float(start)
        recent: deque = deque(maxlen=cfg.recent_window)
        heap: list[tuple[int, int, dict]] = []
        for c, (si, size) in enumerate(zip(self._story_order(len(sizes)), sizes.tolist())):
            now += self.rng.exponential(cfg.story_gap_minutes * 60)
            base = int(now)
            while heap and heap[0][0] <= base:
                yield "doc", self._emit(heapq.heappop(heap)[2])
            story = self.stories[si]
            docs, truth = self._cluster(c, story, size, base, recent)
            for d in docs:
                del d["v"]  # only needed while making the cluster
                d["cluster"], d["topic"], d["source"] = c, story.topic, story.id
                heapq.heappush(heap, (d["time"], d["seq"], d))
            self.counts["clusters"] += 1
            for r in truth:
                if r["type"] != "cluster":
                    self.counts[r["type"]] += 1
                yield "truth", r
        while heap:
            yield "doc", self._emit(heapq.heappop(heap)[2])

    def _emit(self, d: dict) -> dict:
        """Render the page of a pending document with its own seeded generator."""
        rng = random.Random(self.seed << 40 | d["seq"])
        site = self.sites[d["site"]]
        if self.config.p_site_about > 0:
            d["text"] = self._with_about(d)
        when = datetime.fromtimestamp(d["time"], UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        byline = f"By {rng.choice(site.staff)}" if rng.random() < 0.6 else f"By {site.name} staff and agencies"
        caption = f"{self.words.name(rng)} {self.words.phrase(rng, 4, 10)}. (Photo: {self.words.word(rng, True)})"
        page = render(site, d["text"], byline, caption, when, d["topic"], rng, self.words, self.titles)
        slug = "-".join(re.findall(r"[a-z0-9]+", d["text"].split("\n", 1)[0].lower())[:8])
        self.counts["docs"] += 1
        self.counts[d["kind"]] = self.counts.get(d["kind"], 0) + 1
        return {"id": d["id"], "url": f"https://{site.domain}/{d['seq']}/{slug}", "site": site.key,
                "cluster": d["cluster"], "time": when, "kind": d["kind"], "source": d["source"],
                "text": d["text"], "html": page}


    def _about(self, site_index: int) -> str:
        """The "About us" paragraph of a site (its own seeded generator: no other draw moves)."""
        r = random.Random(f"{self.seed}:about:{site_index}")
        name = self.sites[site_index].name
        return f"About {name}: {name} is " + self.words.phrase(r, 8, 14) + ". " + " ".join(
            self.words.sentence(r, 10, 18) for _ in range(r.randint(4, 6)))

    def _with_about(self, d: dict) -> str:
        """``d``'s text, ending with its site's "About us" paragraph with probability ``p_site_about``."""
        r = random.Random(f"{self.seed}:about-page:{d['seq']}")
        if r.random() >= self.config.p_site_about:
            return d["text"]
        self.counts["about"] = self.counts.get("about", 0) + 1
        return d["text"] + "\n\n" + self._about(d["site"])


def simulate(articles: Iterable[dict], seed: int, n_docs: int | None = None,
             config: SynthConfig | None = None) -> Iterator[tuple[str, dict]]:
    """Stream a labeled corpus: ``("doc", doc)`` and ``("truth", record)`` pairs.

    ``doc``: ``{"id", "url", "site", "cluster", "time", "kind", "source", "text", "html"}``
    with ``kind`` in ``original | rewrite | trim | page`` and ``time`` ISO-8601 UTC;
    documents come in time order.  Truth records:

    - ``{"type": "cluster", "cluster": c, "ids": [...], "source", "topic"}``: every
      document made from one story (all kinds; singletons too), a partition of the docs.
    - ``{"type": "containment", "container": id, "contained": id, "why": "trim"|"split"}``
    - ``{"type": "partial", "a": id, "b": id, "a_chars": [s, e], "b_chars": [s, e],
      "why": "quote"|"split"}``: ``a["text"][s:e] == b["text"][s2:e2]`` exactly.

    Only the pair that was actually copied is recorded; other versions of the same story
    hold the same passage with small edits.  ``n_docs=None`` uses every usable story
    once with ``mean_cluster_size`` documents on average.
    """
    return Syndicator(articles, seed, config).run(n_docs)


def write_corpus(articles: Iterable[dict], out_dir: str | Path, seed: int, n_docs: int | None = None,
                 config: SynthConfig | None = None, shard_docs: int | None = None) -> dict:
    """Write ``docs.jsonl`` and ``truth.jsonl`` into ``out_dir``; return the counts.

    With ``shard_docs``, the documents go to Parquet shards of that many documents each instead
    (``docs/part-00000.parquet``, ...: the same records, in the same order), the form in which
    Spark's tasks read a multi-million-document corpus.  Counts: ``docs``, ``clusters``,
    ``containment``, ``partial`` and documents per kind.
    """
    check_docs(n_docs)  # before the sources are read
    sim = Syndicator(articles, seed, config)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        ft = stack.enter_context(open(out / "truth.jsonl", "wb"))
        if shard_docs is None:
            fd = stack.enter_context(open(out / "docs.jsonl", "wb"))
        else:
            shards = stack.enter_context(closing(_Shards(out / "docs", shard_docs)))
        for what, rec in sim.run(n_docs):
            if what != "doc":
                ft.write(orjson.dumps(rec) + b"\n")
            elif shard_docs is None:
                fd.write(orjson.dumps(rec) + b"\n")
            else:
                shards.put(rec)
    return {**sim.counts, "seed": seed, "config": asdict(sim.config)}


#: The fields of a simulated document, in the order of its record.
DOC_FIELDS = ("id", "url", "site", "cluster", "time", "kind", "source", "text", "html")
#: Rows of a row group in a shard: Spark's reading tasks split a shard at its row groups.
SHARD_ROW_GROUP = 10_000


class _Shards:
    """Documents, in order, into Parquet shards of ``size`` documents each in ``folder``
    (zstd; row groups of :data:`SHARD_ROW_GROUP`): one row group is held at a time."""

    def __init__(self, folder: Path, size: int):
        import pyarrow as pa

        folder.mkdir(parents=True, exist_ok=True)
        self.folder, self.size = folder, size
        self.schema = pa.schema([(name, pa.int64() if name == "cluster" else pa.string()) for name in DOC_FIELDS])
        self.rows: list[dict] = []
        self.writer: Any = None
        self.shard = self.in_shard = 0

    def put(self, rec: dict) -> None:
        self.rows.append(rec)
        self.in_shard += 1
        if len(self.rows) >= SHARD_ROW_GROUP or self.in_shard == self.size:
            self._flush()
        if self.in_shard == self.size:
            self.writer.close()
            self.writer, self.in_shard, self.shard = None, 0, self.shard + 1

    def _flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self.rows:
            if self.writer is None:
                path = self.folder / f"part-{self.shard:05d}.parquet"
                self.writer = pq.ParquetWriter(path, self.schema, compression="zstd")
            self.writer.write_table(pa.Table.from_pylist(self.rows, self.schema))
            self.rows.clear()

    def close(self) -> None:
        self._flush()
        if self.writer is not None:
            self.writer.close()
