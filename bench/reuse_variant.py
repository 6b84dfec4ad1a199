"""A variant of a reuse corpus with a share of the words of every contained document replaced.

Reads ``docs.jsonl`` and ``truth.jsonl`` in the simulator's format (``reuse-dev``'s),
replaces about ``--edit-rate`` of the words of every document recorded as *contained*
(trims; the host article of a digest) -- each by a word of the same document or a common
word, as ``neardup synth`` replaces words (:data:`neardup.evaluate.sites.COMMON`) -- and
writes the corpus with the same truth, partial spans moved onto the edited texts
exactly.  Deterministic for a seed.

    python bench/reuse_variant.py ../shared/data/reuse-dev -o reuse-dev-10 --edit-rate 0.10 --seed 1
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np
import orjson

_WORD = re.compile(r"\w+")


def replace_words(text: str, rate: float, rng: np.random.Generator) -> tuple[str, np.ndarray]:
    """``text`` with about ``rate`` of its words replaced, and ``(start, end, delta)`` rows
    of the replaced words (characters of the old text, length change)."""
    from neardup.evaluate.sites import COMMON

    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    hits = np.flatnonzero(rng.random(len(words)) < rate)
    pieces, at, rows = [], 0, []
    for i in hits.tolist():
        s, e = words[i]
        if rng.random() < 0.5:
            s2, e2 = words[int(rng.integers(len(words)))]
            new = text[s2:e2]
        else:
            new = COMMON[int(rng.integers(len(COMMON)))]
        pieces += [text[at:s], new]
        rows.append((s, e, len(new) - (e - s)))
        at = e
    pieces.append(text[at:])
    return "".join(pieces), np.array(rows, dtype=np.int64).reshape(-1, 3)


def move(span: list[int], rows: np.ndarray) -> list[int]:
    """A character span of the old text on the edited text (its ends sit at word edges)."""
    s, e = span
    return [s + int(rows[rows[:, 1] <= s, 2].sum()), e + int(rows[rows[:, 0] < e, 2].sum())]


def make_variant(src: Path, out: Path, rate: float, seed: int) -> tuple[Path, Path]:
    """Write ``out/docs.jsonl`` and ``out/truth.jsonl``; returns their paths."""
    truth = [orjson.loads(line) for line in (src / "truth.jsonl").read_bytes().splitlines() if line.strip()]
    contained = {r["contained"] for r in truth if r["type"] == "containment"}
    rng = np.random.default_rng(seed)
    edits: dict[str, np.ndarray] = {}
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "docs.jsonl", "wb") as fh:
        for line in (src / "docs.jsonl").read_bytes().splitlines():
            doc = orjson.loads(line)
            if doc["id"] in contained:
                doc["text"], edits[doc["id"]] = replace_words(doc["text"], rate, rng)
            fh.write(orjson.dumps(doc) + b"\n")
    with open(out / "truth.jsonl", "wb") as fh:
        for r in truth:
            if r["type"] == "partial":
                for side in ("a", "b"):
                    if r[side] in edits:
                        r[f"{side}_chars"] = move(r[f"{side}_chars"], edits[r[side]])
            fh.write(orjson.dumps(r) + b"\n")
    return out / "docs.jsonl", out / "truth.jsonl"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("source", type=Path, help="folder with docs.jsonl and truth.jsonl")
    p.add_argument("-o", "--output", type=Path, required=True)
    p.add_argument("--edit-rate", type=float, default=0.10)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    make_variant(args.source, args.output, args.edit_rate, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
