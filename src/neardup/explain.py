"""Why two documents are (or are not) the same story: ``neardup explain A B``.

For two documents -- two files, or two ids of an input -- it shows what the detectors
see and decide:

* the text of each after extraction, and how much of the page's visible text extraction
  dropped (navigation, ads, related links: the page's blocks whose text is not in the
  article, compared by text with whitespace collapsed);
* the method's score with the method's own code (:meth:`Method.score` on the two
  documents), its threshold, and the verdict; methods with corpus statistics (IDF) see
  only these two documents here, so their score can differ from a run over a corpus;
* the relation ``dedup`` reports for the pair (:mod:`neardup.relations`: duplicate,
  contains, contained, shares, similar), from the passages its aligner finds between the two
  and the share of each document inside them -- those passages listed, as ``partial`` writes
  them (copy-edited, so not the exact runs below);
* the shared text: passages of at least ``min_words`` words found in both, with their
  character offsets in each text (difflib's longest matching blocks over the word
  sequences), the share of each document inside them (containment both ways), and the
  shared word 4-grams (the features of ``ffp``; shingles for ``minhash``).

Words here are the aligner's (:func:`neardup.align.words.tokens`): folded as every method folds
them, and in scripts written without spaces (Chinese, Japanese, Thai) units of about a word, so
a Japanese copy shows its runs and 4-grams as an English one does (runs of ``\\w`` made a whole
Japanese sentence one word).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any, Sequence

from .errors import UserError
from .extract import DEFAULT_EXTRACTOR, get_extractor
from .io.readers import FIELDS, Fields, Record, read_inputs
from .io.records import printable
from .methods import DEFAULT_METHOD, get_method

#: Shortest shared run of words reported as a passage.
MIN_WORDS = 8
#: Word n-grams compared as features.
GRAM = 4


@dataclass
class Side:
    """One document as the detectors see it."""

    id: str
    text: str
    visible_chars: int  # characters of the page's visible text (equal to len(text) for a text record)
    dropped: list[str] = field(default_factory=list)  # blocks of the page extraction left out (first ones)


@dataclass
class Explanation:
    """Everything ``explain`` reports for one pair (``as_dict`` for ``--json``)."""

    a: Side
    b: Side
    method: str
    params: dict[str, Any]
    score: float
    threshold: float
    passages: list[dict[str, Any]]
    contained_a_in_b: float
    contained_b_in_a: float
    shared_grams: list[str]
    grams_a: int
    grams_b: int
    #: What dedup reports for the pair: the relation and each side's share inside the aligned passages.
    relation: str = "similar"
    coverage_a: float = 0.0
    coverage_b: float = 0.0
    #: The aligned passages that decide it: ``a_chars``, ``b_chars``, ``a_words``, ``b_words``, ``similarity``.
    aligned: list[dict[str, Any]] = field(default_factory=list)
    #: When the pair is not reported: the passages the aligner found but left out as too sparse
    #: (the pair only shares text, and they hold too few matched words at their density).
    sparse: list[dict[str, Any]] = field(default_factory=list)

    @property
    def duplicate(self) -> bool:
        return self.score >= self.threshold

    def as_dict(self) -> dict[str, Any]:
        return {
            "a": vars(self.a), "b": vars(self.b), "method": self.method, "params": self.params,
            "score": self.score, "threshold": self.threshold, "near_duplicate": self.duplicate,
            "relation": self.relation, "coverage": {"a": self.coverage_a, "b": self.coverage_b},
            "aligned_passages": self.aligned, "sparse_passages": self.sparse,
            "containment": {"a_in_b": self.contained_a_in_b, "b_in_a": self.contained_b_in_a},
            "passages": self.passages,
            "shared_grams": {"n": GRAM, "shared": len(self.shared_grams), "a": self.grams_a, "b": self.grams_b,
                             "examples": self.shared_grams[:20]},
        }


def _words(text: str) -> tuple[list[int], list[tuple[int, int]]]:
    """The words of ``text`` as the aligner reads them: their hashes and character spans."""
    from .align.words import tokens

    hashes, starts, ends, _ = tokens([text])
    return hashes.tolist(), list(zip(starts.tolist(), ends.tolist()))


def shared_passages(a: str, b: str, min_words: int = MIN_WORDS) -> list[dict[str, Any]]:
    """Runs of at least ``min_words`` words found in both texts, with character offsets in each."""
    return _passages(*_words(a), *_words(b), min_words)


def _passages(wa: list[int], sa: list[tuple[int, int]], wb: list[int], sb: list[tuple[int, int]],
              min_words: int = MIN_WORDS) -> list[dict[str, Any]]:
    """:func:`shared_passages` of two texts' words (:func:`_words`)."""
    out = []
    for block in SequenceMatcher(None, wa, wb, autojunk=False).get_matching_blocks():
        if block.size >= min_words:
            i, j, n = block.a, block.b, block.size
            out.append({"words": n, "a_chars": [sa[i][0], sa[i + n - 1][1]], "b_chars": [sb[j][0], sb[j + n - 1][1]]})
    return out


def _grams(words: list[int]) -> dict[tuple[int, ...], int]:
    """The word 4-grams of a text, each with the position of its first occurrence."""
    out: dict[tuple[int, ...], int] = {}
    for k in range(len(words) - GRAM + 1):
        out.setdefault(tuple(words[k:k + GRAM]), k)
    return out


def _gram_text(k: int, spans: list[tuple[int, int]], text: str) -> str:
    """The 4-gram at word ``k`` of ``text`` as folded text (an example to show)."""
    from .text.normalize import normalize

    return " ".join(normalize(text[s:e]) for s, e in spans[k:k + GRAM])


def side(record: Record, text: str, extract: str) -> Side:
    """``record`` with its extracted ``text`` and what extraction dropped of the page."""
    if record.html is None:
        return Side(record.id, text, len(text))
    from .extract.blocks import page_blocks

    visible = get_extractor("none")(record.html)
    # compared by text, block by block (the units extraction keeps or drops), never by source
    # line: a paragraph the page's source wraps over lines, or cuts with links, is one block
    kept = " ".join(text.split())
    dropped = []
    for block in page_blocks(record.html).texts:
        words = " ".join(block.split())
        if words and words not in kept and words not in dropped:
            dropped.append(words)
    return Side(record.id, text, len(visible), dropped[:12])


def explain_texts(a: Side, b: Side, method: str = DEFAULT_METHOD, **params: Any) -> Explanation:
    """Explain the pair ``a``, ``b`` (already extracted) under ``method`` with ``params``."""
    import numpy as np

    m = get_method(method, **params)
    sk = m.finish([m.sketch(m.prepare([a.text, b.text]))])
    score = float(m.score(sk, np.array([0]), np.array([1]))[0])
    wa, sa = _words(a.text)
    wb, sb = _words(b.text)
    passages = _passages(wa, sa, wb, sb)
    in_passages = sum(p["words"] for p in passages)
    ga, gb = _grams(wa), _grams(wb)
    shared = sorted(_gram_text(ga[gram], sa, a.text) for gram in ga.keys() & gb.keys())  # only what is shown folded
    relation, cov_a, cov_b, aligned = aligned_relation(a.text, b.text)
    sparse = [] if aligned else aligned_relation(a.text, b.text, keep_coverage=0.0)[3]
    return Explanation(a, b, method, m.get_params(), score, m.decision_threshold(), passages,
                       in_passages / max(len(wa), 1), in_passages / max(len(wb), 1), shared, len(ga), len(gb),
                       relation, cov_a, cov_b, aligned, sparse)


def aligned_relation(a: str, b: str, keep_coverage: float | None = None) -> tuple[str, float, float, list[dict[str, Any]]]:
    """The relation ``dedup`` reports for two texts (alone: no corpus, so no boilerplate statistics),
    the share of each inside the passages its aligner finds, and those passages.  ``keep_coverage``:
    the aligner keeps every pair covering that share of a document however sparse (``dedup``'s
    when None; 0: every pair, so the passages it leaves out as too sparse show)."""
    from dataclasses import replace

    from .align.aligner import align_texts
    from .relations import dedup_align_params, relation_name

    params = dedup_align_params(site_max_df=0)
    if keep_coverage is not None:
        params = replace(params, keep_coverage=keep_coverage)
    found = next(iter(align_texts([a, b], params)), None)
    if found is None:
        return "similar", 0.0, 0.0, []
    return (relation_name(found.coverage_a, found.coverage_b), found.coverage_a, found.coverage_b,
            [p.as_dict() for p in found.passages])


def load_pair(a: str, b: str, inputs: Sequence[str] = (), extract: str = DEFAULT_EXTRACTOR,
              prefer_html: bool = False, fields: Fields = FIELDS) -> tuple[Side, Side]:
    """The two documents named ``a`` and ``b``: files, or ids found in ``inputs``."""
    from .input_stage import documents
    from .job import RunStats

    wanted = [a, b]
    sources = list(inputs) if inputs else wanted
    if not inputs:
        for name in wanted:
            if not Path(name).is_file():
                what = "not a file" if Path(name).exists() else "no such file"
                raise UserError(f"{name}: {what} (to explain two ids, give the input they are in with --in)")
    stats = RunStats()
    found: dict[str, Side] = {}
    for record, text in documents(read_inputs(sources, prefer_html, fields), extract, stats):
        key = record.id if inputs else record.source
        if key in wanted and key not in found:
            found[key] = side(record, text, extract)
    if not inputs:  # two files: their records are keyed by path as given
        found = {name: found[str(Path(name))] for name in wanted if str(Path(name)) in found}
    missing = [name for name in wanted if name not in found]
    if missing:
        where = f"no record with that id in {', '.join(sources)} ({stats.read:,} read)" if inputs else "not read"
        why = "; ".join(stats.rejections[:3]) or where
        raise UserError(printable(f"cannot explain {', '.join(missing)}: {why}"))
    return found[a], found[b]


def render(e: Explanation, width: int = 100) -> str:
    """The explanation as plain text for a terminal."""
    verdict = "similar" if e.duplicate else "not similar"
    what = {"duplicate": "copies of each other", "contains": "A contains B", "contained": "B contains A",
            "shares": "they share a passage, neither is a copy",
            "similar": "no passage dense enough to count" if e.sparse else "no shared passage"}[e.relation]
    relation = e.relation
    if relation == "similar" and not e.sparse and not e.duplicate:  # dedup lists no such pair at all
        relation, what = "none", f"no shared passage, and {e.method} does not pair them: not duplicates"
    head = [f"relation: {relation} ({what}): the aligned passages hold {e.coverage_a:.0%} of A's words and "
            f"{e.coverage_b:.0%} of B's (what dedup reports)",
            f"{e.method} score {e.score:.3f} vs threshold {e.threshold:.3f}: {verdict}",
            f"exact runs of {MIN_WORDS}+ words (listed below): {e.contained_a_in_b:.0%} of A's words, "
            f"{e.contained_b_in_a:.0%} of B's",
            f"shared word {GRAM}-grams: {len(e.shared_grams):,} (A has {e.grams_a:,}, B {e.grams_b:,})"]
    lines = [textwrap.fill(line, width, subsequent_indent="    ", break_on_hyphens=False) for line in head]
    if e.aligned:
        lines.append(f"\naligned passages ({len(e.aligned)}, what the relation counts):")
        lines.extend(_aligned_lines(e.a.text, e.aligned, width))
    if e.sparse:
        lines.append("\n" + textwrap.fill(
            f"not reported: {len(e.sparse)} aligned passage(s) too sparse for a pair that only shares text "
            "(too few matched words at their density: a retold sentence, stock phrases):", width))
        lines.extend(_aligned_lines(e.a.text, e.sparse, width))
    for name, s in (("A", e.a), ("B", e.b)):
        lines.append(f"\n{name}: {printable(s.id)} -- {len(s.text):,} characters of text"
                     + (f" extracted from {s.visible_chars:,} visible" if s.visible_chars != len(s.text) else ""))
        lines.extend(f"   dropped: {printable(d[:width - 12])}" for d in s.dropped[:5])
    lines.append(f"\nshared passages ({len(e.passages)}, at least {MIN_WORDS} words):")
    for p in e.passages[:10]:
        lo, hi = p["a_chars"]
        where = f"  {p['words']:>4} words  {f'A[{lo}:{hi}]':<15} {'B[{}:{}]'.format(*p['b_chars']):<15}  "
        lines.append(where + _snippet(e.a.text, p["a_chars"], width - len(where) - 3))
    if len(e.passages) > 10:
        lines.append(f"  ... {len(e.passages) - 10} more (--json lists all)")
    return "\n".join(lines)


def _aligned_lines(text: str, passages: list[dict[str, Any]], width: int) -> list[str]:
    """Aligned passages, one line each (the first ten; ``--json`` lists all)."""
    lines = []
    for p in passages[:10]:
        where = f"  {_span('A', p['a_chars'], p['a_words'])}  {_span('B', p['b_chars'], p['b_words'])}  {p['similarity']:>4.0%} matched  "
        lines.append(where + _snippet(text, p["a_chars"], width - len(where) - 3))
    if len(passages) > 10:
        lines.append(f"  ... {len(passages) - 10} more aligned passages (--json lists all)")
    return lines


def _span(name: str, chars: list[int], words: int) -> str:
    return f"{words:>4} words {f'{name}[{chars[0]}:{chars[1]}]':<13}"


def _snippet(text: str, chars: list[int], width: int) -> str:
    """The text of a span on one line, cut at ``width`` characters."""
    snippet = printable(" ".join(text[chars[0]:chars[1]].split()))
    width = max(width, 8)
    return snippet[:width] + ("..." if len(snippet) > width else "")
