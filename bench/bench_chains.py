"""Quote chains and shared paragraphs built from real article text: a quote is not a copy.

From real articles (the BBC News folder by default, or any source `neardup synth` reads),
seeded, it builds what the relations must keep apart:

- **chains**: story A, a copy-edited copy of A (a new headline, 2% of the words replaced,
  deleted or inserted (``--edits``), paragraphs re-broken), story B (another article of the same topic),
  and B quoting one or two sentences of A as a paragraph of its own;
- **shared paragraphs**: pairs of different short articles (their first 100-200 words, or
  ``--own MIN,MAX``) that end with one shared 90-word paragraph (taken from a third article).

In the sources' language (``--lang``, detected by default as the simulator detects it: en, tr,
zh, ja; a JSONL record's topic is its ``topic`` or ``category``): sentences are neardup's
(:mod:`neardup.sentences`), words are the aligner's (:func:`neardup.align.words.tokens`: what a
pair's coverage is a share of; in Chinese and Japanese units of about a word, so "90 words" is 90
units there), and a
copy's edits, outside English, are the simulator's (:class:`neardup.evaluate.languages.Language`:
its units and common words, an attribution ending the headline); crawled blocks of more than 8
sentences are cut into paragraphs first, as the simulator cuts them.

Then `neardup dedup` runs at its defaults over all of it, and the script counts: pairs of two
stories called anything but `shares` (must be 0), clusters mixing stories (0), stories that
`--unique` loses (0), and the share of true copies (A with its copy, B with B quoting A) found
as copies (>= 90%).  Also with `--no-relations`, to show what the relations change.

    python bench/bench_chains.py [SOURCE] [--lang auto] [--chains 300] [--shared 200] [--own 100,200] [--edits 0.02] [--seed 1] [--save BUILD.jsonl]
    python bench/bench_chains.py --build BUILD.jsonl

A build depends on the code that runs it (the source articles that share a passage are left out
by `neardup dedup` itself), so to compare two versions of the code on the same documents, save a
build with ``--save`` and measure it again with ``--build`` under each.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

from neardup.evaluate.languages import Language, language

ROOT = Path(__file__).resolve().parents[1]
BBC = ROOT.parent / "shared" / "data" / "bbc-news"
#: What a sentence taken as a quote may end with (else a full stop is added).
_ENDS = tuple(".!?\"'”’。！？」』）)")


def copy_edit(text: str, r: random.Random, rate: float = 0.02, lang: Language | None = None,
              g: np.random.Generator | None = None) -> str:
    """A copy as a second site prints it: new headline ending, words edited, paragraphs re-broken.

    English: whole words between spaces edited with ``r`` (as before other languages were read).
    Another ``lang``: the simulator's edits (:meth:`Language.edit`: units of the tokenizer in
    Chinese, common words of the language) and an attribution ending (:meth:`Language.headline`)
    drawn from ``g``."""
    head, _, body = text.partition("\n\n")
    paras = body.split("\n\n")
    out = []
    if lang is not None and lang.code != "en":
        assert g is not None
        out = [lang.edit(p, g, rate) for p in paras]
        head = lang.headline(head, g, 2)
    else:
        for p in paras:
            words = p.split(" ")
            for i in reversed(range(len(words))):
                u = r.random()
                if u < rate / 3:
                    words[i] = r.choice(words)
                elif u < 2 * rate / 3 and len(words) > 1:
                    del words[i]
                elif u < rate:
                    words.insert(i, r.choice(("also", "said", "new", "the", "on")))
            out.append(" ".join(words))
        head += ", reports say"
    sep = lang.join() if lang is not None else " "
    if len(out) > 2:  # join two paragraphs
        i = r.randrange(len(out) - 1)
        out[i:i + 2] = [out[i] + sep + out[i + 1]]
    return head + "\n\n" + "\n\n".join(out)


def word_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the words of ``text`` as neardup's aligner counts them
    (:func:`neardup.align.words.tokens`: split at apostrophes and hyphens, a figure one word,
    characters of a script without spaces cut into units of about a word)."""
    from neardup.align.words import tokens

    _, starts, ends, _ = tokens([text])
    return list(zip(starts.tolist(), ends.tolist()))


def count(text: str) -> int:
    """Words of ``text`` as the aligner counts them (what a pair's coverage is a share of)."""
    return len(word_spans(text))


def first_words(text: str, n: int, lang: Language | None = None) -> str:
    """The first ``n`` words of ``text`` (as the aligner counts them) as one paragraph."""
    spans = word_spans(text)
    if not spans:
        return ""
    cut = text[:spans[min(n, len(spans)) - 1][1]]
    if lang is None or lang.spaced:
        return " ".join(cut.split())
    return re.sub(r"\s*\n\s*", "", cut)


def sentences(text: str, lang: Language | None = None) -> list[str]:
    """Body sentences of 8-40 words, by neardup's splitter (:mod:`neardup.sentences`)."""
    from neardup.sentences import sentence_spans

    body = text.partition("\n\n")[2]
    out = []
    for s, e in sentence_spans(body):
        t = body[s:e]
        if 8 <= count(t) <= 40:
            out.append(t if t.endswith(_ENDS) else t + ("。" if lang is not None and not lang.spaced else "."))
    return out


def distinct(articles: list[dict]) -> list[dict]:
    """The articles less those that share text with an earlier one (the BBC set holds several
    stories twice, as an update or under two file names, and some articles reuse paragraphs of
    another): every document sharing an aligned passage with an earlier one, by `neardup dedup`
    itself, is left out.  Only copies would not do: an article that shares a third of its text
    with another at full length is mostly that text once cut to its first 100-200 words, so the
    built cases must be the only shared text."""
    from neardup.pipeline import Deduplicator

    found = Deduplicator().run([(str(i), a["title"] + "\n\n" + a["text"]) for i, a in enumerate(articles)])
    copied = {int(p.b) for p in found.pairs if p.relation != "similar"}
    return [a for i, a in enumerate(articles) if i not in copied]


def build(articles: list[dict], chains: int, shared: int, seed: int, own: tuple[int, int] = (100, 200),
          edits: float = 0.02, lang: Language | None = None) -> list[dict]:
    """Records (``id``, ``text``, ``story``): two records of one story are a true copy; ``own``: the
    fewest and most words of a short article's own text; ``edits``: the share of a copy's words
    edited; ``lang``: the sources' language (words, sentences, edits and quotes written in it;
    English when None)."""
    r = random.Random(seed)
    g = np.random.default_rng(seed)  # the simulator's edits (other languages than English)
    if lang is not None and lang.code != "en":  # blocks of a crawl cut into paragraphs, as the simulator does
        articles = [{**a, "text": "\n\n".join(lang.paragraphs(a["text"].split("\n\n")))} for a in articles]
    sep = " " if lang is None else lang.join()
    quote_marks = {"zh": "“”", "ja": "「」"}.get(lang.code if lang is not None else "en", '""')
    pool = [a for a in distinct(articles)
            if count(a["text"]) >= 150 and len(sentences(a["title"] + "\n\n" + a["text"], lang)) >= 4]
    r.shuffle(pool)
    recs: list[dict] = []
    c = 0
    while c < chains and len(pool) > 1:  # A and B: two articles of one topic, each used once
        a = pool.pop()
        partner = next((i for i in range(len(pool) - 1, -1, -1) if pool[i]["topic"] == a["topic"]), None)
        if partner is None:  # the last of its topic: not used
            continue
        b = pool.pop(partner)
        ta, tb = a["title"] + "\n\n" + a["text"], b["title"] + "\n\n" + b["text"]
        quote = sep.join(r.sample(sentences(ta, lang), r.randint(1, 2)))
        head, _, body = tb.partition("\n\n")
        paras = body.split("\n\n")
        at = r.randint(1, len(paras))
        tq = head + "\n\n" + "\n\n".join(paras[:at] + [quote_marks[0] + quote + quote_marks[1]] + paras[at:])
        sa, sb = f"c{c}-A", f"c{c}-B"
        recs += [{"id": f"c{c}-a", "text": ta, "story": sa},
                 {"id": f"c{c}-a-copy", "text": copy_edit(ta, r, edits, lang, g), "story": sa},
                 {"id": f"c{c}-b", "text": tb, "story": sb}, {"id": f"c{c}-b-quoting-a", "text": tq, "story": sb}]
        c += 1
    rest = pool
    if shared and len(rest) < 3:
        raise SystemExit(f"too few source articles left for shared paragraphs ({len(rest)})")
    for k in range(shared):
        x, y, z = rest[3 * k % len(rest)], rest[(3 * k + 1) % len(rest)], rest[(3 * k + 2) % len(rest)]
        para = first_words(z["text"], 90, lang)
        for name, art in (("x", x), ("y", y)):
            short = first_words(art["text"], r.randint(*own), lang)
            recs.append({"id": f"s{k}-{name}", "text": art["title"] + "\n\n" + short + "\n\n" + para,
                         "story": f"s{k}-{name}"})
    return recs


def true_copies(recs: list[dict]) -> list[tuple[str, str]]:
    """The pairs of records of one story (A with its copy, B with B quoting A), in order."""
    by_story: dict[str, list[str]] = {}
    for x in recs:
        by_story.setdefault(x["story"], []).append(x["id"])
    return [(ids[0], ids[1]) for ids in by_story.values() if len(ids) == 2]


def measure(recs: list[dict], out: Path, *extra: str) -> dict:
    from neardup.cli import main

    src = out / "docs.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in recs))
    unique = out / "unique.jsonl"
    args = ["dedup", str(src), "-o", str(out / "o"), "--quiet", *extra]
    if "--no-relations" not in extra:
        args += ["--unique", str(unique)]
    assert main(args) == 0
    story = {x["id"]: x["story"] for x in recs}
    pairs = [json.loads(line) for line in (out / "o" / "pairs.jsonl").read_text().splitlines()]
    copy_pairs = {(p["a"], p["b"]) for p in pairs if p.get("relation", "duplicate") != "shares"}
    cross = [p for p in pairs if story[p["a"]] != story[p["b"]] and p.get("relation", "duplicate") != "shares"]
    clusters = [json.loads(line) for line in (out / "o" / "clusters.jsonl").read_text().splitlines()]
    mixed = sum(len({story[i] for i in c["ids"]}) > 1 for c in clusters)
    copies = true_copies(recs)
    found = sum((a, b) in copy_pairs or (b, a) in copy_pairs for a, b in copies)
    result = {"documents": len(recs), "stories": len(set(story.values())), "pairs": len(pairs),
              "cross-story pairs not 'shares'": len(cross), "clusters mixing stories": mixed,
              "true copies found": f"{found}/{len(copies)} ({found / len(copies):.1%})"}
    if unique.exists():
        kept = {json.loads(line)["id"] for line in unique.read_text().splitlines()}
        result["stories lost by --unique"] = len(set(story.values()) - {story[i] for i in kept})
    return result


def word_range(text: str) -> tuple[int, int]:
    """``MIN,MAX`` as two word counts, ``0 < MIN <= MAX`` (an argparse type: a bad one exits 2)."""
    try:
        low, high = (int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MIN,MAX word counts, got {text!r}") from None
    if not 0 < low <= high:
        raise argparse.ArgumentTypeError(f"expected 0 < MIN <= MAX, got {text!r}")
    return low, high


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", nargs="?", default=str(BBC))
    ap.add_argument("--chains", type=int, default=300)
    ap.add_argument("--shared", type=int, default=200)
    ap.add_argument("--own", type=word_range, default=(100, 200),
                    help="MIN,MAX words of a short article's own text (100,200)")
    ap.add_argument("--edits", type=float, default=0.02, help="share of a copy's words edited (0.02)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lang", default="auto", help="the sources' language: en, tr, zh, ja (auto: detected)")
    ap.add_argument("--save", type=Path, help="write the built documents (id, text, story) here")
    ap.add_argument("--build", type=Path, help="measure these saved documents instead of building")
    args = ap.parse_args(argv)
    if args.build:
        recs = [json.loads(line) for line in args.build.read_text().splitlines()]
    else:
        if not Path(args.source).exists():
            print(f"no data at {args.source}", file=sys.stderr)
            return 2
        from neardup.evaluate.corpora import load_texts

        # the topic: BBC's folder, Reuters' first topic, a JSONL record's `topic` or `category`
        articles = [{**a, "topic": t} for a in load_texts(args.source) if (t := a.get("topic") or a.get("category"))]
        if not articles:
            print(f"no articles with a topic or category in {args.source}", file=sys.stderr)
            return 2
        lang = language(args.lang, [a["text"][:2000] for a in articles[:: max(1, len(articles) // 200)]])
        print("language", lang.code, file=sys.stderr)
        recs = build(articles, args.chains, args.shared, args.seed, args.own, args.edits,
                     None if lang.code == "en" else lang)
        if args.save:
            args.save.write_text("".join(json.dumps(x) + "\n" for x in recs))
    with tempfile.TemporaryDirectory() as tmp:
        for label, extra in (("relations (default)", ()), ("--no-relations (before)", ("--no-relations",))):
            out = Path(tmp) / label.split()[0]
            out.mkdir()
            print(label, json.dumps(measure(recs, out, *extra)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
