"""Graded reuse, Clough-style: is a short text derived from a source found, at every grade of rewriting?

Clough and Stevenson's corpus of reused short answers grades each answer by how it was made from
its source: a near copy (cut and paste), a light revision (words and phrases changed, the order of
the information kept), a heavy revision (rephrased: sentences split, joined and reordered) or not
derived at all (written on the same topic from elsewhere).  This bench builds such answers from real
news text and asks ``partial``, ``dedup`` and ``contain`` at their defaults which answer comes from
which source: a pair (answer, its source) is a true reuse for the first three grades; every other
pair that names an answer is a false one.

The corpus (``../shared/data/bbc-news``; skipped when absent): the BBC's own articles reuse each other's
sentences (read in ``docs/results.md``), so first every article ``neardup partial`` finds sharing a
passage with another is set aside; of the rest, ``--sources`` articles are sources, and each gets one
answer of 180-300 words, the grades in turn:

* **near copy** -- about four in five of a run of the source's sentences, verbatim, in order;
* **light revision** -- the same, with ``--light`` of the words replaced, deleted or joined by a word
  (a name or a number a third as often: paraphrases keep them), the order kept;
* **heavy revision** -- ``--heavy`` of the words so edited, a tenth of the sentences dropped, a quarter
  of the neighbours joined, two-clause sentences turned round, a third of the neighbours swapped;
* **not derived** -- the same kind of selection, a tenth of its words edited, from the unused article of
  the source's section with the most words in common with the source (same topic, other text).

The replacement words are drawn from the collection by frequency: the edits cost the answer its
shared word sequences as a rewriter's would, without meaning (the bench prints each grade's word
3-gram containment in its source, to set beside a real corpus's).  Truth in ``graded.jsonl``.

    python bench/bench_graded.py [--sources 400] [--seeds 1,2,3] [--light 0.15] [--heavy 0.30]
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BBC = ROOT.parent / "shared" / "data" / "bbc-news"
GRADES = ("near copy", "light revision", "heavy revision", "not derived")
COMMANDS = {"partial": "partials.jsonl", "dedup": "pairs.jsonl", "contain": "containments.jsonl"}
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'])")


def _neardup(*argv: str) -> None:
    subprocess.run([str(Path(sys.executable).with_name("neardup")), *argv, "--quiet"], check=True)


def articles(folder: Path) -> list[tuple[str, str, str]]:
    """``(section, id, text)`` of every article of the BBC News folders, in name order."""
    return [(s.name, f"{s.name}/{f.name}", f.read_bytes().decode("utf-8", "replace").strip())
            for s in sorted(folder.iterdir()) if s.is_dir() for f in sorted(s.glob("*.txt"))]


def pairs_of(path: Path) -> list[tuple[str, str]]:
    """The ``(a, b)`` of every line of a pairs, partials or containments file."""
    out = []
    for line in path.read_text().splitlines():
        r = json.loads(line)
        out.append((r.get("a", r.get("container")), r.get("b", r.get("contained"))))
    return out


def reusing(arts: list[tuple[str, str, str]], work: Path) -> set[str]:
    """Ids of the articles ``neardup partial`` finds sharing a passage with another article."""
    with open(work / "all.jsonl", "w") as f:
        f.writelines(json.dumps({"id": i, "text": t}) + "\n" for _, i, t in arts)
    _neardup("partial", str(work / "all.jsonl"), "-o", str(work / "all-partial"))
    return {x for pair in pairs_of(work / "all-partial" / "partials.jsonl") for x in pair}


class Rewriter:
    """The grades' edits (see the module docstring), drawing words from ``texts`` by frequency."""

    def __init__(self, texts: list[str], seed: int):
        counts = collections.Counter(w for t in texts for w in t.split() if w.isalpha() and w.islower())
        self.words = sorted(counts)
        p = np.array([counts[w] for w in self.words], float)
        self.p = p / p.sum()
        self.rng = np.random.default_rng(seed)

    def _word(self) -> str:
        return self.words[int(self.rng.choice(len(self.words), p=self.p))]

    def edit(self, sentence: str, rate: float) -> str:
        out: list[str] = []
        for tok in sentence.split(" "):
            r = rate * (0.3 if tok[:1].isupper() or any(c.isdigit() for c in tok) else 1.0)
            x = self.rng.random()
            if x < 0.6 * r:
                out.append(self._word())
            elif x < 0.8 * r:
                continue
            else:
                out.append(tok)
                if x < r:
                    out.append(self._word())
        return " ".join(out)

    def select(self, text: str, low: int = 180, high: int = 300) -> list[str]:
        """About four in five sentences of a run of ``text``'s from its first third on, up to ``high`` words."""
        sents = [s.strip() for para in text.split("\n") for s in _SENTENCE.split(para) if s.strip()]
        i, chosen, n = int(self.rng.integers(0, max(1, len(sents) // 3))), [], 0
        while i < len(sents) and n < high:
            if self.rng.random() < 0.8:
                chosen.append(sents[i])
                n += len(sents[i].split())
            i += 1
        return chosen

    def heavy(self, sents: list[str], rate: float) -> list[str]:
        kept = [self.edit(s, rate) for s in sents if self.rng.random() > 0.1]
        out, i = [], 0
        while i < len(kept):
            s = kept[i]
            if i + 1 < len(kept) and self.rng.random() < 0.25:
                s, i = s.rstrip(".") + " and " + kept[i + 1][:1].lower() + kept[i + 1][1:], i + 1
            if ", " in s and self.rng.random() < 0.4:
                first, _, second = s.partition(", ")
                s = second.rstrip(".").capitalize() + ", " + first[:1].lower() + first[1:] + "."
            out.append(s)
            i += 1
        for _ in range(len(out) // 3):
            j = int(self.rng.integers(0, max(1, len(out) - 1)))
            if j + 1 < len(out):
                out[j], out[j + 1] = out[j + 1], out[j]
        return out


def _content(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]{4,}", text.lower())}


def graded_corpus(arts: list[tuple[str, str, str]], seed: int, sources: int, light: float, heavy: float,
                  out: Path) -> None:
    """``out/docs.jsonl`` (sources and answers) and ``out/graded.jsonl`` (answer, source, grade)."""
    rw = Rewriter([t for _, _, t in arts], seed)
    order = rw.rng.permutation(len(arts))
    chosen, spare = order[:sources], list(order[sources:])
    content = [_content(t) for _, _, t in arts]
    docs, truth = [], []
    for k, i in enumerate(chosen.tolist()):
        section, _, text = arts[i]
        grade = GRADES[k % len(GRADES)]
        docs.append({"id": f"src-{k}", "text": text})
        if grade == "not derived":  # the same section's unused article most like the source in its words
            j = max((j for j in spare if arts[j][0] == section), key=lambda j: len(content[i] & content[j]))
            spare.remove(j)
            answer = " ".join(rw.edit(s, 0.1) for s in rw.select(arts[j][2]))
        else:
            sents = rw.select(text)
            answer = " ".join(sents if grade == "near copy" else [rw.edit(s, light) for s in sents]
                              if grade == "light revision" else rw.heavy(sents, heavy))
        docs.append({"id": f"ans-{k}", "text": answer})
        truth.append({"answer": f"ans-{k}", "source": f"src-{k}", "grade": grade})
    out.mkdir(parents=True, exist_ok=True)
    (out / "docs.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (out / "graded.jsonl").write_text("".join(json.dumps(t) + "\n" for t in truth))


def containment3(answer: str, source: str) -> float:
    """Share of the answer's word 3-grams that are in the source (Clough's measure of reuse)."""
    def grams(t: str) -> set[tuple[str, ...]]:
        w = re.findall(r"\w+", t.lower())
        return {tuple(w[i:i + 3]) for i in range(len(w) - 2)}
    a = grams(answer)
    return len(a & grams(source)) / max(1, len(a))


def score(corpus: Path, command: str) -> dict:
    """Precision, recall and F1 of the answer-source pairs ``command`` reports; found per grade."""
    truth = {t["answer"]: t for t in map(json.loads, (corpus / "graded.jsonl").read_text().splitlines())}
    found = {tuple(sorted(p)) for p in pairs_of(corpus / command / COMMANDS[command])}
    true = {tuple(sorted((a, t["source"]))) for a, t in truth.items() if t["grade"] != "not derived"}
    named = {p for p in found if any(x.startswith("ans-") for x in p)}
    tp = len(named & true)
    per = collections.Counter(truth[next(x for x in p if x.startswith("ans-"))]["grade"] for p in named & true)
    p = tp / len(named) if named else 0.0
    r = tp / len(true)
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0, "false": len(named - true),
            "found": {g: per[g] for g in GRADES[:3]}, "of": len(true) // 3}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sources", type=int, default=400)
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--light", type=float, default=0.15)
    p.add_argument("--heavy", type=float, default=0.30)
    args = p.parse_args()
    if not BBC.exists():
        sys.exit(f"skipped: {BBC} is absent")
    arts = articles(BBC)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        reused = reusing(arts, work)
        clean = [a for a in arts if a[1] not in reused]
        print(f"{len(arts)} BBC articles, {len(reused)} share a passage with another: {len(clean)} used\n")
        print("| seed | command | F1 | precision | recall | near copy | light revision | heavy revision | false pairs |")
        print("|---|---|---|---|---|---|---|---|---|")
        c3: dict[str, list[float]] = collections.defaultdict(list)
        for seed in (int(s) for s in args.seeds.split(",")):
            corpus = work / f"seed{seed}"
            graded_corpus(clean, seed, args.sources, args.light, args.heavy, corpus)
            texts = {d["id"]: d["text"] for d in map(json.loads, (corpus / "docs.jsonl").read_text().splitlines())}
            for t in map(json.loads, (corpus / "graded.jsonl").read_text().splitlines()):
                c3[t["grade"]].append(containment3(texts[t["answer"]], texts[t["source"]]))
            for command in COMMANDS:
                _neardup(command, str(corpus / "docs.jsonl"), "-o", str(corpus / command))
                s = score(corpus, command)
                grades = " | ".join(f"{s['found'][g]}/{s['of']}" for g in GRADES[:3])
                print(f"| {seed} | {command} | {s['f1']:.3f} | {s['precision']:.3f} | {s['recall']:.3f} | {grades} | "
                      f"{s['false']} |")
        print("\nword 3-gram containment of the answer in its source, mean (min - max):")
        for g in GRADES:
            v = np.array(c3[g])
            print(f"- {g}: {v.mean():.3f} ({v.min():.3f} - {v.max():.3f})")


if __name__ == "__main__":
    main()
