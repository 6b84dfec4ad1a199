"""Relations: a quote is not a copy, --unique never loses a story, boilerplate makes no copy.

The corpora are made here: the shipped sample's made-up articles, the simulator's corpora
from them (with its shared-quote and site "About us" cases), and made-up paragraphs.  The same
relations on Spark, byte for byte: ``tests/test_spark_relations.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup.cli import main
from neardup.align.aligner import AlignParams, align_texts
from neardup.pipeline import Deduplicator
from neardup.relations import (CONTAINED, CONTAINS, DUPLICATE, RELATIONS, SHARES, Coverage, relate, relation_codes,
                               parse_relations)

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "sample.jsonl"


def _sample() -> dict[str, str]:
    return {r["id"]: r["text"] for r in map(json.loads, SAMPLE.read_text().splitlines())}


def _write(path: Path, rows: list[tuple[str, str]] | list[dict]) -> Path:
    recs = [r if isinstance(r, dict) else {"id": r[0], "text": r[1]} for r in rows]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_story_quoting_another_is_not_its_copy(tmp_path):
    """The issue's reproduction: story A, story B, and B quoting one sentence of A."""
    d = _sample()
    a, b = d["d00000001"], d["d00000007"]
    quote = a.split(". ")[1] + "."
    paras = b.split("\n\n")
    rows = [("story-A", a), ("story-B", b), ("story-B-quoting-A", "\n\n".join(paras[:2] + [quote] + paras[2:]))]
    src = _write(tmp_path / "chain.jsonl", rows)
    assert main(["dedup", str(src), "-o", str(tmp_path / "c"), "--unique", str(tmp_path / "u.jsonl"), "--quiet"]) == 0
    pairs = {(p["a"], p["b"]): p for p in _jsonl(tmp_path / "c" / "pairs.jsonl")}
    assert pairs[("story-A", "story-B-quoting-A")]["relation"] == "shares"
    assert pairs[("story-B", "story-B-quoting-A")]["relation"] == "duplicate"
    clusters = _jsonl(tmp_path / "c" / "clusters.jsonl")
    assert [sorted(c["ids"]) for c in clusters] == [["story-B", "story-B-quoting-A"]]
    kept = {r["id"] for r in _jsonl(tmp_path / "u.jsonl")}
    assert {"story-A", "story-B"} <= kept
    removed = clusters[0]["removed"]
    assert [(r["id"], r["kept"]) for r in removed] == [("story-B-quoting-A", "story-B")] and removed[0]["coverage"] >= 0.8


@given(st.floats(0, 1), st.floats(0, 1), st.floats(0.01, 1))
def test_relation_codes_are_symmetric(ca, cb, c):
    swap = {DUPLICATE: DUPLICATE, CONTAINS: CONTAINED, CONTAINED: CONTAINS, SHARES: SHARES}
    one = relation_codes(np.array([ca]), np.array([cb]), np.array([True]), c)[0]
    other = relation_codes(np.array([cb]), np.array([ca]), np.array([True]), c)[0]
    assert swap[int(one)] == int(other)


def test_a_trim_is_contained_whichever_comes_first():
    text = _sample()["d00000010"]
    paras = text.split("\n\n")
    trim = "\n\n".join(paras[: max(2, len(paras) // 2)])
    forward = Deduplicator().run([("full", text), ("trim", trim)])
    backward = Deduplicator().run([("trim", trim), ("full", text)])
    assert [p.relation for p in forward.pairs] == ["contains"]
    assert [p.relation for p in backward.pairs] == ["contained"]
    assert forward.pairs[0].coverage_b == backward.pairs[0].coverage_a


def test_coverage_lookup_and_missing_pairs():
    cov = Coverage(np.array([0, 0, 2]), np.array([1, 3, 3]), np.array([0.9, 0.2, 0.6]), np.array([0.95, 0.1, 0.3]),
                   np.array([50, 12, 30]), np.zeros(3, np.int64), np.zeros(3, np.int64))
    got = relate(np.array([0, 0, 1, 2]), np.array([1, 3, 2, 3]), cov, 0.5)
    assert [RELATIONS[k] for k in got.relation] == ["duplicate", "shares", "similar", "contained"]
    assert got.longest.tolist() == [50, 12, 0, 30]
    assert parse_relations("shares, duplicate") == ("duplicate", "shares")
    with pytest.raises(Exception, match="unknown relation"):
        parse_relations("copy")


def _about(n_words: int = 90) -> str:
    from neardup.evaluate.sites import Words
    import random

    r = random.Random(5)
    words = Words(r, 500)
    return "About Example Wire: " + words.phrase(r, n_words - 3, n_words - 3) + "."


def _short_articles(k: int, words: int = 120) -> list[str]:
    """``k`` different made-up articles of about ``words`` words."""
    from neardup.evaluate.sites import Words
    import random

    r = random.Random(11)
    vocab = Words(r, 4000)
    return [" ".join(vocab.sentence(r, 12, 18) for _ in range(words // 15)) for _ in range(k)]


def test_shared_paragraph_between_two_short_articles_is_shares(tmp_path):
    about = _about()
    x, y = _short_articles(2)
    result = Deduplicator().run([("x", x + "\n\n" + about), ("y", y + "\n\n" + about)])
    assert [p.relation for p in result.pairs] in ([], ["shares"])
    assert result.clusters == []


def test_a_sparse_copy_is_kept_at_the_coverage_the_user_asks_for():
    """A pair that only shares text needs dense passages; one that covers ``--min-coverage`` of a
    document is a copy however sparse, at whatever coverage the user sets.  The text: a sentence
    retold around two stock phrases, with 40 words of its own (covered about 0.42)."""
    import random

    from test_align import RETOLD, filler, sentence

    rng = random.Random(7)
    text, (one, other) = RETOLD
    docs = [("a", filler(rng, 10) + " " + text.format(one) + ". " + filler(rng, 10)),
            ("b", text.format(other) + ". " + sentence(rng, 40))]
    assert Deduplicator().run(docs).pairs == []
    [pair] = Deduplicator(min_coverage=0.4).run(docs).pairs
    assert pair.relation == "contains" and 0.4 <= pair.coverage_b < 0.5


def test_a_table_of_figures_weighs_its_words_not_its_digit_groups():
    """Two short items end with one table of 90 figures; each has 100 words of its own.  Cut at
    every separator the table would be some 200 words and most of each item."""
    r, filler = _made_up_words(8)
    table = " ".join(f"{r.randint(1, 999)},{r.randint(100, 999)}.{r.randint(1, 9)}" for _ in range(90))
    x, y = (filler(8).upper() + "\n\n" + filler(100) + ".\n\n" + table for _ in range(2))
    [pair] = Deduplicator().run([("x", x), ("y", y)]).pairs
    assert pair.relation == "shares"
    assert max(pair.coverage_a, pair.coverage_b) < 0.5


def _made_up_words(seed: int):
    """A seeded filler: ``n`` made-up words of a 4,000-word vocabulary."""
    from neardup.evaluate.sites import Words
    import random

    r = random.Random(seed)
    vocab = Words(r, 4000)
    return r, lambda n: " ".join(r.choices(vocab.vocab, k=n))


def test_names_of_the_shared_paragraph_in_a_documents_own_text_are_no_copy():
    """Two short articles end with one paragraph; the second's own text repeats a name and a
    figure of that paragraph, enough seeds for a passage nested inside the shared one (an
    echo).  The echo is not more copied text: counted, it took the second past half covered."""
    _, filler = _made_up_words(11)
    para = (filler(10) + " the Northbridge Commodity Exchange " + filler(12)
            + " its planned 4.2bn (7.1bn) offer for the NCE " + filler(58) + ".")
    x = filler(110) + ".\n\n" + para
    y = (filler(20) + " the Northbridge Commodity Exchange " + filler(10) + " the 4.2bn (7.1bn) offer for the NCE "
         + filler(62) + ".\n\n" + para)
    [pair] = Deduplicator().run([("x", x), ("y", y)]).pairs
    assert pair.relation == "shares"
    assert pair.coverage_b < 0.5


def test_two_quoted_sentences_of_a_formula_wire_item_are_not_most_of_it():
    """A wire item of figures in one formula ("... mln dlrs in March against ... mln in
    February and ...") and another story quoting two of its sentences: the quote is what is
    shared.  The formula phrases of every other sentence match the quote's too; chained, they
    took the item to 94% covered, so the other story "contained" it."""
    r, filler = _made_up_words(5)
    lines = [f"{filler(4).capitalize()} were {r.randint(10, 999)} mln dlrs in March against {r.randint(10, 999)} mln "
             f"in February and {r.randint(10, 999)} mln in March 1986." for _ in range(10)]
    a = filler(6).upper() + "\n\n" + "\n\n".join(lines)
    quote = lines[3] + " " + lines[7]
    b = filler(8).upper() + "\n\n" + filler(120) + ".\n\n\"" + quote + "\"\n\n" + filler(60) + "."
    [pair] = Deduplicator().run([("a", a), ("b", b)]).pairs
    assert pair.relation == "shares"
    assert pair.coverage_a < len(quote.split()) / len(a.split()) + 0.05  # the quote, 0.19 of the item


def test_a_phrase_of_the_quote_met_again_in_the_source_does_not_stretch_the_passage():
    """The quoted sentence names "a lawyer for the company", which the source also says a few
    lines before it: the passage is the quoted sentence, not the source from the first mention."""
    r, filler = _made_up_words(2)
    quote = "Jane Doe, a lawyer for the company, said " + filler(24) + "."
    a = (filler(6).upper() + "\n\n" + filler(50) + ", a lawyer for the company said. " + filler(8) + ".\n\n" + quote
         + "\n\n" + filler(40) + ".")
    b = filler(8).upper() + "\n\n" + filler(120) + ".\n\n\"" + quote + "\"\n\n" + filler(60) + "."
    [pair] = Deduplicator().run([("a", a), ("b", b)]).pairs
    assert pair.relation == "shares"
    assert pair.longest == len(quote.split())


def test_two_sentences_quoted_in_the_other_order_do_not_count_the_sentence_between():
    """B quotes two sentences of a short item A, the later one first.  The passage joins both, but
    the sentence A has between them is not in B: counted, it took A past half covered."""
    _, filler = _made_up_words(4)
    first, between, last = filler(30) + ".", filler(19) + ".", filler(30) + "."
    a = filler(6).upper() + "\n\n" + first + " " + between + "\n\n" + last + "\n\n" + filler(50) + "."
    b = filler(8).upper() + "\n\n" + filler(150) + ".\n\n\"" + last + " " + first + "\"\n\n" + filler(100) + "."
    [pair] = Deduplicator().run([("a", a), ("b", b)]).pairs
    assert pair.relation == "shares"
    assert pair.coverage_a == pytest.approx(60 / len(a.split()), abs=0.02)


def test_two_sentences_quoted_around_a_third_do_not_count_it():
    """B quotes two sentences of a short item A in their order, leaving out the one between them.
    The passage runs over it, but A's words that only one side skips are not shared: counted, they
    took A past half covered ("contained")."""
    _, filler = _made_up_words(6)
    first, between, last = filler(30) + ".", filler(17) + ".", filler(30) + "."
    a = filler(6).upper() + "\n\n" + first + " " + between + "\n\n" + last + "\n\n" + filler(50) + "."
    b = filler(8).upper() + "\n\n" + filler(150) + ".\n\n\"" + first + " " + last + "\"\n\n" + filler(100) + "."
    for rows in ([("a", a), ("b", b)], [("b", b), ("a", a)]):
        [pair] = Deduplicator().run(rows).pairs
        assert pair.relation == "shares"
        coverage = {pair.a: pair.coverage_a, pair.b: pair.coverage_b}
        assert coverage["a"] == pytest.approx(60 / len(a.split()), abs=0.02)


def test_a_sentence_printed_twice_counts_once_whichever_document_comes_first():
    """A short item prints one sentence twice (a wire item's slip, a page's template) and another
    story quotes it once.  The second print is that text met again, an echo: it counts in neither
    coverage, and the order of the input does not change the answer.  Before, the print met second
    joined the passage -- as a reordered piece when the item came first, and as a continuation over
    the 20 words between the prints when it came second ("contains")."""
    _, filler = _made_up_words(9)
    said = filler(30) + "."
    item = filler(6).upper() + "\n\n" + filler(25) + ". " + said + "\n\n" + filler(20) + ".\n\n" + said + "\n\n" + filler(10) + "."
    story = filler(8).upper() + "\n\n" + filler(150) + ".\n\n\"" + said + "\"\n\n" + filler(100) + "."
    for rows in ([("item", item), ("story", story)], [("story", story), ("item", item)]):
        [pair] = Deduplicator().run(rows).pairs
        assert pair.relation == "shares"
        coverage = {pair.a: pair.coverage_a, pair.b: pair.coverage_b}
        assert coverage["item"] == pytest.approx(30 / len(item.split()), abs=0.01)
        assert coverage["story"] == pytest.approx(30 / len(story.split()), abs=0.01)


def test_site_boilerplate_is_ignored_and_stated(tmp_path):
    about = _about()
    arts = _short_articles(8)
    rows = [{"id": f"r{i}", "site": "example.org", "text": t + "\n\n" + about} for i, t in enumerate(arts[:6])]
    rows += [{"id": f"o{i}", "url": f"https://other{i}.net/x", "text": t} for i, t in enumerate(arts[6:])]
    src = _write(tmp_path / "releases.jsonl", rows)
    assert main(["dedup", str(src), "-o", str(tmp_path / "o"), "--relations", "duplicate,contains,contained,shares,similar",
                 "--quiet"]) == 0
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["aligned"]["site_boilerplate_seeds"] > 0
    assert summary["clusters"] == 0
    assert all(p["relation"] == "similar" for p in _jsonl(tmp_path / "o" / "pairs.jsonl"))
    # without the per-site rule the paragraph is a shared passage (and still no copy)
    assert main(["dedup", str(src), "-o", str(tmp_path / "p"), "--site-max-df", "0", "--quiet"]) == 0
    assert {p["relation"] for p in _jsonl(tmp_path / "p" / "pairs.jsonl")} == {"shares"}


def _synth(tmp: Path, seed: int, docs: int, **knobs) -> Path:
    from neardup.evaluate.corpora import shipped_articles
    from neardup.evaluate.synth import SynthConfig, write_corpus

    write_corpus(shipped_articles(), tmp, seed, docs, SynthConfig(**knobs))
    return tmp / "docs.jsonl"


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), quote=st.sampled_from([0.0, 0.5, 1.0]), about=st.sampled_from([0.0, 0.5]),
       partial=st.sampled_from([0.1, 0.5]))
@pytest.mark.slow
def test_unique_is_lossless_on_simulated_corpora(tmp_path_factory, seed, quote, about, partial):
    """Every dropped document is covered >= unique coverage by the kept one (checked again by
    aligning the two alone), the kept one is kept, and every story keeps a document."""
    tmp = tmp_path_factory.mktemp("lossless")
    docs = _synth(tmp, seed, 60, p_shared_quote=quote, p_site_about=about, p_partial=partial, mean_cluster_size=4.0)
    recs = _jsonl(docs)
    text = {r["id"]: r["text"] for r in recs}
    result = Deduplicator().run(recs)
    dropped = result.dropped_ids(keep_rejected=True)
    removed = [r for c in result.clusters for r in c.removed]
    assert {r.id for r in removed} == dropped
    kept_ids = {r["id"] for r in recs} - dropped
    order = {r["id"]: n for n, r in enumerate(recs)}
    for r in removed:
        assert r.kept in kept_ids and r.coverage >= 0.8
        # the two alone, in input order (the aligner chains along the earlier document)
        first, second = sorted((r.kept, r.id), key=order.get)
        alone = list(align_texts([text[first], text[second]], AlignParams(max_df=1000)))
        covered = alone[0].coverage_b if second == r.id else alone[0].coverage_a
        assert alone and covered >= 0.8 - 1e-9, (r, alone)
    stories = {r["cluster"] for r in recs}
    assert stories == {r["cluster"] for r in recs if r["id"] in kept_ids}
    if result.kept_coverage is not None and dropped:
        assert result.summary()["smallest_removed_coverage"] >= 0.8


def test_quotes_and_boilerplate_do_not_merge_stories(tmp_path):
    """A simulated corpus where every story quotes the previous one and every page carries its
    site's 'About us' paragraph: no cluster mixes stories (before relations they merged).

    Eight sites, so each prints its paragraph on enough pages to be seen as boilerplate: on a
    site with two pages, a paragraph longer than the rest of a page is most of it (a limit of
    deciding by coverage, stated in the README)."""
    docs = _synth(tmp_path, 4, 120, p_shared_quote=1.0, p_site_about=1.0, mean_cluster_size=5.0, n_sites=8)
    recs = _jsonl(docs)
    story = {r["id"]: r["cluster"] for r in recs}
    result = Deduplicator().run(recs)
    assert result.clusters and all(len({story[i] for i in c.ids}) == 1 for c in result.clusters)
    merged = Deduplicator(relations=False).run(recs)
    assert any(len({story[i] for i in c.ids}) > 1 for c in merged.clusters)


def test_same_answer_for_any_batch_size(tmp_path):
    docs = _synth(tmp_path, 9, 150, p_shared_quote=0.5, p_site_about=0.5)
    recs = _jsonl(docs)
    one = Deduplicator().run(recs)
    many = Deduplicator(batch_bytes=3000).run(recs)
    assert [vars(p) for p in one.pairs] == [vars(p) for p in many.pairs]
    assert [(c.ids, c.representative, [vars(r) for r in c.removed]) for c in one.clusters] == \
        [(c.ids, c.representative, [vars(r) for r in c.removed]) for c in many.clusters]


@pytest.mark.parametrize("bad", [["--relations", "copy"], ["--min-coverage", "1.5"], ["--unique-coverage", "0"],
                                 ["--site-max-df", "-1"], ["--no-relations", "--unique", "u.jsonl"]])
def test_bad_relation_options_exit_2_and_write_nothing(tmp_path, capsys, bad):
    bad = [str(tmp_path / x) if x.endswith(".jsonl") else x for x in bad]
    assert main(["dedup", str(SAMPLE), "-o", str(tmp_path / "out"), "--quiet", *bad]) == 2
    assert "neardup: error:" in capsys.readouterr().err
    assert not (tmp_path / "out").exists() and not (tmp_path / "u.jsonl").exists()


def test_identical_short_texts_are_duplicates_and_a_short_text_in_a_longer_one_is_contained(tmp_path):
    # a passage needs 12 words: two copies of an 11-word headline were never a copy of each other
    head = "Storm closes the harbor bridge for a second day on Tuesday"  # 11 words
    other = "Council votes to rebuild the old market hall after the fire"  # 11 words, nothing shared
    story = ("The regional council said the harbor bridge stayed shut. " + head + ", officials said, "
             "and ferries ran extra crossings until the wind dropped.")
    src = _write(tmp_path / "short.jsonl", [("h1", head), ("h2", head.lower() + "!"), ("o", other), ("s", story)])
    assert main(["dedup", str(src), "-o", str(tmp_path / "o"), "--unique", str(tmp_path / "u.jsonl"), "--quiet"]) == 0
    pairs = {(p["a"], p["b"]): p for p in _jsonl(tmp_path / "o" / "pairs.jsonl")}
    assert pairs[("h1", "h2")]["relation"] == "duplicate" and pairs[("h1", "h2")]["coverage_a"] == 1.0
    assert pairs[("h1", "s")]["relation"] == "contained" and pairs[("h2", "s")]["relation"] == "contained"
    assert not any("o" in key for key in pairs)
    assert {r["id"] for r in _jsonl(tmp_path / "u.jsonl")} == {"o", "s"}
