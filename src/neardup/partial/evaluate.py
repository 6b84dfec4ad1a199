"""Partial-duplicate quality against simulated ground truth: spans and document pairs.

The truth (:class:`neardup.evaluate.truth.Truth`) records copied passages with exact
character spans in both documents: a quote of a few sentences or a paragraph of one
story pasted into another, and each page of a split article against the version it
came from.  A true span becomes the sentences of each document lying (at least half of
their characters) inside its character range, with the same splitter the detector
uses.

Which predicted pairs are judged:

* a recorded pair is judged (its spans are the truth);
* any other pair of documents of *different* stories is judged and wrong, unless one of
  them received a quote from a version of the other's story (the same passage, lightly
  edited, is in the other versions too: right, but not recorded) -- *unjudged*;
* a pair of versions of the *same* story that is not recorded shares most of its
  text, but the records do not say where -- *unjudged*.

A predicted span is taken as the sentences it names (``a_start``, ``b_start``,
``length``: PDC) or, for outputs located by characters only (seed-and-extend), the
sentences lying at least half inside its ``a_chars`` / ``b_chars`` -- the rule the true
spans follow -- so every method is measured on the same sentences.

Measured: **span level** -- sentence overlap, summed over judged pairs: a predicted
sentence (either side) inside the true span is a true positive, outside a false
positive, a true-span sentence not predicted a false negative; **document-pair level**
-- a judged predicted pair is right when recorded.  Both are also given for the true
spans of at least ``gamma`` sentences only (what PDC can find by definition; shorter
truths and the predictions of their pairs are then left out).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np
import orjson

from ..errors import UserError
from ..extract import DEFAULT_EXTRACTOR
from ..evaluate.truth import Truth
from ..evaluate.measures import prf


def _inside(starts: np.ndarray, ends: np.ndarray, lo: int, hi: int) -> set[int]:
    """Indices of the sentences with at least half of their characters in ``[lo, hi)``."""
    overlap = np.minimum(ends, hi) - np.maximum(starts, lo)
    return set(np.flatnonzero(2 * overlap >= (ends - starts)).tolist())


def _key(a: str, b: str) -> tuple[tuple[str, str], bool]:
    """Canonical (sorted) pair and whether ``a``/``b`` were swapped."""
    return ((a, b), False) if a <= b else ((b, a), True)


def evaluate_partials(pred: Iterable[Mapping[str, Any]], truth: Truth,
                      sentences: Mapping[str, tuple[np.ndarray, np.ndarray]], gamma: int = 3) -> dict[str, Any]:
    """Span-level and pair-level P/R/F1 of predicted pairs (``partials.jsonl`` records).

    ``sentences`` maps a document id to its sentence ``(starts, ends)``
    (:func:`neardup.sentences.split_sentences` of its text); it must hold every document
    of a recorded partial pair, and for spans given by characters only, every document
    of a predicted pair.
    """
    true_spans: dict[tuple[str, str], tuple[set[int], set[int]]] = {}
    for r in truth.partials:
        key, swap = _key(r["a"], r["b"])
        sa = _inside(*sentences[r["a"]], *r["a_chars"])
        sb = _inside(*sentences[r["b"]], *r["b_chars"])
        x, y = (sb, sa) if swap else (sa, sb)
        old = true_spans.get(key, (set(), set()))
        true_spans[key] = (old[0] | x, old[1] | y)
    quoted: dict[str, set[int | None]] = {}  # receiver -> clusters of the stories it quotes
    for r in truth.partials:
        if truth.cluster.get(r["a"]) != truth.cluster.get(r["b"]):
            quoted.setdefault(r["b"], set()).add(truth.cluster.get(r["a"]))
    predicted: dict[tuple[str, str], tuple[set[int], set[int]]] = {}
    for p in pred:
        key, swap = _key(str(p["a"]), str(p["b"]))
        x, y = set(), set()
        for s in p["spans"]:
            if "a_start" in s:
                x.update(range(s["a_start"], s["a_start"] + s["length"]))
                y.update(range(s["b_start"], s["b_start"] + s["length"]))
            else:
                x |= _inside(*sentences[str(p["a"])], *s["a_chars"])
                y |= _inside(*sentences[str(p["b"])], *s["b_chars"])
        predicted[key] = (y, x) if swap else (x, y)

    def judged(key: tuple[str, str]) -> bool:
        if key in true_spans:
            return True
        a, b = key
        ca, cb = truth.cluster.get(a), truth.cluster.get(b)
        if ca is None or cb is None or ca == cb:
            return False
        return not (ca in quoted.get(b, ()) or cb in quoted.get(a, ()))

    out: dict[str, Any] = {}
    for label, keep in (("all", lambda k: True),
                        ("ge_gamma", lambda k: min(len(true_spans[k][0]), len(true_spans[k][1])) >= gamma)):
        truths = {k: v for k, v in true_spans.items() if keep(k)}
        dropped = set(true_spans) - set(truths)
        tp = fp = fn = ptp = pfp = 0
        for key, (x, y) in predicted.items():
            if key in dropped or not judged(key):
                continue
            tx, ty = truths.get(key, (set(), set()))
            tp += len(x & tx) + len(y & ty)
            fp += len(x - tx) + len(y - ty)
            fn += len(tx - x) + len(ty - y)
            ptp += key in truths
            pfp += key not in truths
        for key, (tx, ty) in truths.items():
            if key not in predicted:
                fn += len(tx) + len(ty)
        span, pair = prf(tp, fp, fn), prf(ptp, pfp, len(truths) - ptp)
        out[label] = {"span_precision": span.precision, "span_recall": span.recall, "span_f1": span.f1,
                      "pair_precision": pair.precision, "pair_recall": pair.recall, "pair_f1": pair.f1,
                      "true_pairs": len(truths), "predicted_pairs": len(predicted),
                      "judged_predicted_pairs": ptp + pfp}
    return out


def partial_measures(found: list[dict[str, Any]], truth: Truth,
                     sentences: Mapping[str, tuple[np.ndarray, np.ndarray]], gamma: int = 3) -> dict[str, Any]:
    """Every measure of predicted pairs ``found`` against ``truth``: ``pan``, the PAN measures of every
    case; ``pan_pasted``, those of the pasted passages alone (a simulator's ``why: quote`` cases) when the
    truth has other cases too (split pages); ``all`` and ``ge_gamma``, :func:`evaluate_partials`.  What
    ``partial --truth`` puts in its summary and ``eval --partials`` prints: one function, so they agree."""
    from ..evaluate.pan import pan_measures

    cases = truth.partials
    pasted = [c for c in cases if c.get("why") == "quote"]
    apart = {"pan_pasted": pan_measures(pasted, found)} if pasted and len(pasted) < len(cases) else {}
    return {"pan": pan_measures(cases, found), **apart, **evaluate_partials(found, truth, sentences, gamma)}


def read_partials(path: str | Path) -> list[dict[str, Any]]:
    """The records of a ``partials.jsonl``."""
    out = []
    for number, line in enumerate(Path(path).read_bytes().splitlines(), start=1):
        if line.strip():
            try:
                r = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise UserError(f"{path}:{number}: invalid JSON ({exc})") from None
            if not isinstance(r, dict) or not {"a", "b", "spans"} <= r.keys():
                raise UserError(f"{path}:{number}: not a partial-duplicate record (needs a, b, spans)")
            out.append(r)
    return out


def evaluate_partial_files(partials: str | Path, truth: str | Path, inputs: list[str], extract: str = DEFAULT_EXTRACTOR,
                           prefer_html: bool = False, gamma: int = 3) -> dict[str, Any]:
    """Evaluate a ``partials.jsonl`` against a ``truth.jsonl`` (the hook for ``neardup eval``).

    :func:`partial_measures` (the character-level PAN measures, :mod:`neardup.evaluate.pan`, and
    the span and pair measures over sentences, see the module docstring), for any method:
    ``inputs`` are the documents of the run, read through the same input stage, so spans are
    mapped onto the sentences of the texts the detector saw.
    """
    from ..io.readers import read_inputs
    from ..input_stage import documents
    from ..job import RunStats
    from ..sentences import split_sentences

    gold = Truth.read(truth)
    found = read_partials(partials)
    need = {r["a"] for r in gold.partials} | {r["b"] for r in gold.partials}
    need |= {str(r[k]) for r in found for k in ("a", "b") if any("a_start" not in s for s in r["spans"])}
    sentences = {rec.id: split_sentences(text)
                 for rec, text in documents(read_inputs(inputs, prefer_html), extract, RunStats()) if rec.id in need}
    missing = need - sentences.keys()
    if missing:
        raise UserError(f"{len(missing)} documents of the truth or the output are not in the inputs, "
                        f"e.g. {sorted(missing)[0]}")
    return partial_measures(found, gold, sentences, gamma)
