"""Quote chains and shared paragraphs built from real article text: a quote is not a copy.

From real articles (the BBC News folder by default, or any source `neardup synth` reads),
seeded, it builds what the relations must keep apart:

- **chains**: story A, a copy-edited copy of A (a new headline, 2% of the words replaced,
  deleted or inserted (``--edits``), paragraphs re-broken), story B (another article of the same topic),
  and B quoting one or two sentences of A as a paragraph of its own;
- **shared paragraphs**: pairs of different short articles (their first 100-200 words, or
  ``--own MIN,MAX``) that end with one shared 90-word paragraph (taken from a third article).

Then `neardup dedup` runs at its defaults over all of it, and the script counts: pairs of two
stories called anything but `shares` (must be 0), clusters mixing stories (0), stories that
`--unique` loses (0), and the share of true copies (A with its copy, B with B quoting A) found
as copies (>= 90%).  Also with `--no-relations`, to show what the relations change.

    python bench/bench_chains.py [SOURCE] [--chains 300] [--shared 200] [--own 100,200] [--edits 0.02] [--seed 1] [--save BUILD.jsonl]
    python bench/bench_chains.py --build BUILD.jsonl

A build depends on the code that runs it (the source articles that share a passage are left out
by `neardup dedup` itself), so to compare two versions of the code on the same documents, save a
build with ``--save`` and measure it again with ``--build`` under each.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BBC = ROOT.parent / "shared" / "data" / "bbc-news"


def copy_edit(text: str, r: random.Random, rate: float = 0.02) -> str:
    """A copy as a second site prints it: new headline ending, words edited, paragraphs re-broken."""
    head, _, body = text.partition("\n\n")
    paras = body.split("\n\n")
    out = []
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
    if len(out) > 2:  # join two paragraphs
        i = r.randrange(len(out) - 1)
        out[i:i + 2] = [out[i] + " " + out[i + 1]]
    return head + ", reports say\n\n" + "\n\n".join(out)


def sentences(text: str) -> list[str]:
    """Body sentences of 8-40 words (a rough split at '. ', enough to take a quote)."""
    body = text.partition("\n\n")[2]
    out = []
    for p in body.split("\n\n"):
        for s in p.split(". "):
            s = s.strip()
            if 8 <= len(s.split()) <= 40:
                out.append(s if s.endswith((".", '"')) else s + ".")
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
          edits: float = 0.02) -> list[dict]:
    """Records (``id``, ``text``, ``story``): two records of one story are a true copy; ``own``: the
    fewest and most words of a short article's own text; ``edits``: the share of a copy's words edited."""
    r = random.Random(seed)
    pool = [a for a in distinct(articles)
            if len(a["text"].split()) >= 150 and len(sentences(a["title"] + "\n\n" + a["text"])) >= 4]
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
        quote = " ".join(r.sample(sentences(ta), r.randint(1, 2)))
        head, _, body = tb.partition("\n\n")
        paras = body.split("\n\n")
        at = r.randint(1, len(paras))
        tq = head + "\n\n" + "\n\n".join(paras[:at] + [f'"{quote}"'] + paras[at:])
        sa, sb = f"c{c}-A", f"c{c}-B"
        recs += [{"id": f"c{c}-a", "text": ta, "story": sa}, {"id": f"c{c}-a-copy", "text": copy_edit(ta, r, edits), "story": sa},
                 {"id": f"c{c}-b", "text": tb, "story": sb}, {"id": f"c{c}-b-quoting-a", "text": tq, "story": sb}]
        c += 1
    rest = pool
    for k in range(shared):
        x, y, z = rest[3 * k % len(rest)], rest[(3 * k + 1) % len(rest)], rest[(3 * k + 2) % len(rest)]
        para = " ".join(z["text"].split()[:90])
        for name, art in (("x", x), ("y", y)):
            short = " ".join(art["text"].split()[: r.randint(*own)])
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

        articles = [a for a in load_texts(args.source) if a.get("topic")]
        recs = build(articles, args.chains, args.shared, args.seed, args.own, args.edits)
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
