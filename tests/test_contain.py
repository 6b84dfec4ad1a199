"""CoDet: the paper's corpus-tree example, containment with direction, robustness, windows, baselines."""

import math
import random

import numpy as np
import orjson
import pytest

from neardup.contain import ContainmentDetector
from neardup.contain.codet import containments
from neardup.contain.tree import CorpusTree
from neardup.windows import COUNT_WINDOW
from neardup.contain.words import (document_word_sets, idf_weights, load_word_stats, save_word_stats,
                                   sentence_words, stopword_hashes)
from neardup.hashing import hash_str
from neardup.io.readers import InputError
from neardup.sentences import SentenceBatch
from neardup.stats.df import DocumentFrequencies

# varol2011, Fig. 1 (d_B as the text inserts it: "NASDAQ starts day with a decrease.")
NASDAQ = ["NASDAQ starts day with an increase. Shares gain 2%.",
          "NASDAQ starts day with a decrease. Shares lose 2%.",
          "Shares lose 2%."]


def _path(words: str) -> np.ndarray:
    return np.array([hash_str(w) for w in words.split()], dtype=np.uint64)


def _insert_one_by_one(docs, etl, sort_words=False):
    """Insert documents into a fresh tree (no stopwords, whole words, as the figure)."""
    sb = SentenceBatch.from_texts(docs)
    words, off = sentence_words(sb.texts, 0, stopword_hashes(None))
    df = DocumentFrequencies()
    df.update(document_word_sets(words, off, sb.doc_offsets))
    idf = idf_weights(df, words)
    tree = CorpusTree(depth=100)
    steps = []
    for d in range(len(docs)):
        s0, s1 = int(sb.doc_offsets[d]), int(sb.doc_offsets[d + 1])
        lo, hi = int(off[s0]), int(off[s1])
        found = tree.insert(words[lo:hi], off[s0:s1 + 1] - lo, idf[lo:hi], sb.doc_offsets[d:d + 2] - s0,
                            np.array([float(d)]), etl)
        steps.append((len(tree), containments(tree, found, etl)))
    return tree, steps


@pytest.mark.slow
def test_nasdaq_example_tree_and_similarities():
    tree, steps = _insert_one_by_one(NASDAQ, etl=0.01)
    assert [n for n, _ in steps] == [9, 13, 13]  # Fig. 1-I, II, III
    assert tree.document_list(_path("nasdaq")) == [(1, 0), (0, 0)]
    assert tree.document_list(_path("nasdaq starts day with")) == [(1, 0), (0, 0)]
    assert tree.document_list(_path("nasdaq starts day with a")) == [(1, 0)]
    assert tree.document_list(_path("shares")) == [(2, 0), (1, 1), (0, 1)]
    assert tree.document_list(_path("shares lose 2")) == [(2, 0), (1, 1)]
    idf2 = math.log(3 / 2) + 1  # "starts": depth 2, in 2 of 3 documents -> 2 * (log(3/2) + 1)
    cs_ab = (1 + 2 + 3 + 4) * idf2 + 1 * 1.0  # nasdaq, starts, day, with; then "shares" (in all 3: idf 1)
    # SCS(d_A): "nasdaq starts day with" (idf2) "an increase" (1 document: log 3 + 1); "shares gain 2"
    scs_a = (1 + 2 + 3 + 4) * idf2 + (5 + 6) * (math.log(3) + 1) + 1 * 1.0 + 2 * (math.log(3) + 1) + 3 * 1.0
    found_b = {(f.container, f.contained): f for f in steps[1][1]}
    assert found_b[(0, 1)].score == pytest.approx(cs_ab / tree.scs(np.array([1]))[0])
    assert tree.scs(np.array([0]))[0] == pytest.approx(scs_a)
    found_c = {(f.container, f.contained): f for f in steps[2][1]}
    assert found_c[(1, 2)].score == pytest.approx(1.0)  # d_B contains d_C
    assert found_c[(1, 2)].sentences.tolist() == [[1, 0]]
    assert found_c[(0, 2)].score < 0.5  # d_A shares only "shares"


def test_nasdaq_containment_at_etl():
    r = ContainmentDetector("codet", word_prefix=0, stopwords=None, etl=0.9).run([("A", NASDAQ[0]), ("B", NASDAQ[1]), ("C", NASDAQ[2])])
    assert [(c.container, c.contained) for c in r.containments] == [("B", "C")]


def _article(articles, i=0):
    return articles[i]["title"] + "\n\n" + articles[i]["text"]


@pytest.mark.parametrize("method", ["align", "codet"])
def test_near_duplicates_contain_each_other_and_trims_have_direction(articles, method):
    full = _article(articles, 0) + "\n\n" + articles[1]["text"]
    paras = full.split("\n\n")
    trim = "\n\n".join(paras[:4])
    docs = [("full", full), ("copy", full.replace(". ", ".\n\n", 2)), ("trim", trim), ("other", _article(articles, 2))]
    found = {(c.container, c.contained) for c in ContainmentDetector(method).run(docs).containments}
    assert {("full", "copy"), ("copy", "full"), ("full", "trim"), ("copy", "trim")} <= found
    assert ("trim", "full") not in found
    assert not any("other" in p for p in found)


def edit_words(text: str, rate: float, rng: random.Random) -> str:
    """Replace ``rate`` of the words of ``text`` by made-up words (line breaks kept)."""
    words = text.replace("\n\n", " \n\n ").split(" ")
    places = [i for i, w in enumerate(words) if w.strip()]
    for i in rng.sample(places, round(rate * len(places))):
        words[i] = f"edit{rng.randrange(10**6)}"
    return " ".join(words).replace(" \n\n ", "\n\n")


@pytest.mark.parametrize("method,rate", [("codet", 0.02), ("align", 0.02), ("align", 0.10)])
def test_survives_word_edits_and_rebroken_paragraphs(articles, method, rate):
    rng = random.Random(3)
    full = "\n\n".join(_article(articles, i) for i in range(3))
    paras = full.split("\n\n")
    part = paras[: len(paras) * 2 // 3]
    rebroken = "\n\n".join([" ".join(part[:2])] + part[2:])  # two paragraphs joined
    copy = edit_words(rebroken, rate, rng)
    r = ContainmentDetector(method).run([("full", full), ("copy", copy), ("other", _article(articles, 5))])
    found = {(c.container, c.contained): c for c in r.containments}
    assert set(found) == {("full", "copy")}  # the direction is right, the other article is in no pair
    if method == "codet":
        assert found[("full", "copy")].sentences.shape[0] >= 0.8 * len(copy.split(". "))
    else:
        assert found[("full", "copy")].score >= 0.9


def test_an_article_with_a_pasted_passage_is_not_contained_in_its_host(articles):
    """The digest holds its host article and two paragraphs of another, joined (as reuse-dev's
    digests): it contains the host, the host does not contain it (the passage is text of its
    own, more words than the aligner bridges), however short it is beside the host (6%)."""
    host = "\n\n".join(_article(articles, i) for i in range(3))
    source = _article(articles, 4)
    passage = " ".join(" ".join(source.split("\n\n")[1:3]).split()[:30])
    paras = host.split("\n\n")
    digest = "\n\n".join(paras[:3] + [passage] + paras[3:])
    found = {(c.container, c.contained) for c in ContainmentDetector().run([("host", host), ("digest", digest),
                                                                            ("source", source)]).containments}
    assert found == {("digest", "host")}


@pytest.mark.slow
def test_count_window_forgets_old_documents_and_memory_stays_flat(articles):
    base = [_article(articles, i) for i in range(len(articles))]
    docs = [(f"d{i}", base[i % len(base)] + f" Item {i}.") for i in range(200)]
    det = ContainmentDetector("codet", window=3, batch_docs=10, trace_every=20)
    found = det.run(docs).containments
    gaps = {int(c.container[1:]) - int(c.contained[1:]) for c in found}
    assert gaps == {-len(base), len(base)} or not gaps  # repeats are 8 apart: beyond a window of 3
    det = ContainmentDetector("codet", window=len(base), batch_docs=10, trace_every=20)
    found = det.run(docs).containments
    assert found and all(abs(int(c.container[1:]) - int(c.contained[1:])) <= len(base) for c in found)
    postings = [t["live_postings"] for t in det.summary()["memory_trace"]]
    assert max(postings[2:]) <= postings[1] + max(postings) // 4  # flat: bounded by the window


def test_a_windowed_runs_summary_is_the_same_for_any_batch_size(articles):
    # the peak of live postings was sampled after each batch: 2592 at 1,000 documents a batch, 3208 at 7
    base = [_article(articles, i) for i in range(len(articles))]
    docs = [(f"d{i}", base[i % len(base)] + f" Item {i}.") for i in range(60)]
    summaries = []
    for batch in (60, 7, 1):
        det = ContainmentDetector("codet", window=5, batch_docs=batch)
        det.run(docs)
        summaries.append({k: v for k, v in det.summary().items() if k not in ("seconds", "parameters")})
    assert summaries[0]["tree"]["peak_live_postings"] > 0
    assert summaries[1] == summaries[0] and summaries[2] == summaries[0]


@pytest.mark.parametrize("method", ["align", "codet"])
def test_time_window_uses_time_field_and_rejects_bad_times(articles, method):
    text = _article(articles, 0)
    docs = [{"id": "a", "text": text, "time": "2024-01-01T00:00:00Z"},
            {"id": "b", "text": text, "time": "2024-01-01T05:00:00Z"},
            {"id": "c", "text": text, "time": "2024-01-03T00:00:00Z"},
            {"id": "bad", "text": text, "time": "yesterday"},
            {"id": "late", "text": text, "time": "2023-12-01T00:00:00Z"}]
    det = ContainmentDetector(method, window="6h")
    pairs = {(c.container, c.contained) for c in det.run(docs).containments}
    assert pairs == {("a", "b"), ("b", "a"), ("c", "late"), ("late", "c")}
    s = det.summary()
    assert s["documents"]["rejected_by_reason"] == {"invalid time": 1}
    assert s["late_documents"] == 1
    with pytest.raises(InputError, match="no time"):
        ContainmentDetector(window="1h", strict=True).run([("x", text)])


@pytest.mark.parametrize("method", ["ffp", "dsc", "imatch", "simhash"])
def test_baselines_find_copies(articles, method):
    text = "\n\n".join(_article(articles, i) for i in range(2))
    docs = [("a", text), ("b", text), ("c", _article(articles, 4))]
    found = {(c.container, c.contained) for c in ContainmentDetector(method=method).run(docs).containments}
    assert found == {("a", "b"), ("b", "a")}


def test_ffp_has_direction(articles):
    full = "\n\n".join(_article(articles, i) for i in range(3))
    trim = "\n\n".join(full.split("\n\n")[:5])
    found = {(c.container, c.contained, round(c.score, 3))
             for c in ContainmentDetector(method="ffp").run([("full", full), ("trim", trim)]).containments}
    assert found == {("full", "trim", 1.0)}


def test_word_statistics_round_trip_and_refuse_other_cuts(tmp_path, articles):
    sb = SentenceBatch.from_texts([_article(articles, i) for i in range(4)])
    words, off = sentence_words(sb.texts, 5, stopword_hashes())
    df = DocumentFrequencies()
    df.update(document_word_sets(words, off, sb.doc_offsets))
    save_word_stats(df, tmp_path / "w.npz", 5)
    again = load_word_stats(tmp_path / "w.npz", 5)
    assert again.n_docs == 4 and np.array_equal(again.df(words), df.df(words))
    with pytest.raises(ValueError, match="cut to 5 letters"):
        load_word_stats(tmp_path / "w.npz", 3)
    df.save(tmp_path / "whole.npz")  # a whole-word statistics file
    with pytest.raises(ValueError, match="whole words"):
        load_word_stats(tmp_path / "whole.npz", 5)


def test_words_are_cut_and_stopwords_dropped():
    words, off = sentence_words(["The Internationals played in Ankara."], 5, stopword_hashes())
    assert words.tolist() == [hash_str(w) for w in ["inter", "playe", "ankar"]]
    assert off.tolist() == [0, 3]


def test_stats_file_gives_the_same_result_as_input_statistics(tmp_path, articles):
    docs = [("a", _article(articles, 0)), ("b", _article(articles, 0)[:400]), ("c", _article(articles, 3))]
    from neardup.contain.run import contain_files

    jl = tmp_path / "docs.jsonl"
    jl.write_bytes(b"".join(orjson.dumps({"id": i, "text": t}) + b"\n" for i, t in docs))
    s1 = contain_files([str(jl)], tmp_path / "o1", save_stats=tmp_path / "s.npz", method="codet")
    s2 = contain_files([str(jl)], tmp_path / "o2", stats=str(tmp_path / "s.npz"), method="codet")
    assert (tmp_path / "o1" / "containments.jsonl").read_bytes() == (tmp_path / "o2" / "containments.jsonl").read_bytes()
    assert s1["containments"] == s2["containments"] > 0


def test_save_stats_with_align_is_refused_up_front(tmp_path, capsys):
    """align weighs no word: there are no word statistics to save (it was an AssertionError after the run)."""
    from neardup.cli import main

    jl = tmp_path / "docs.jsonl"
    jl.write_bytes(orjson.dumps({"id": "a", "text": "Oil rose. Shares gained."}) + b"\n")
    rc = main(["contain", str(jl), "-o", str(tmp_path / "o"), "--save-stats", str(tmp_path / "s.npz")])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "--save-stats" in err and "--method align" in err
    assert not (tmp_path / "o").exists() and not (tmp_path / "s.npz").exists()


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="method"):
        ContainmentDetector(method="nope")
    with pytest.raises(ValueError, match="window"):
        ContainmentDetector(window="soon")
    with pytest.raises(ValueError, match="ETL"):
        ContainmentDetector(etl=0)
    with pytest.raises(ValueError, match="coverage"):
        ContainmentDetector(min_coverage=0)


def test_tree_window_kind_count_drops_postings():
    tree = CorpusTree(depth=2, window_kind=COUNT_WINDOW, window=1)
    w = np.array([1, 2], dtype=np.uint64)
    for d in range(5):
        tree.insert(w, np.array([0, 2]), np.ones(2), np.array([0, 1]), np.array([float(d)]), 0.5)
    assert tree.live_postings == 4  # two documents' paths of two nodes
    assert tree.oldest_document == 3


def test_a_truth_of_recorded_pairs_only_is_judged_by_those_pairs(tmp_path):
    from neardup.contain.evaluate import evaluate_containment_files

    truth = tmp_path / "truth.jsonl"
    truth.write_text('{"type": "containment", "container": "full", "contained": "trim"}\n'
                     '{"type": "containment", "container": "digest", "contained": "other"}\n')
    found = tmp_path / "containments.jsonl"
    found.write_text('{"container": "full", "contained": "trim", "score": 1.0}\n'
                     '{"container": "trim", "contained": "full", "score": 0.9}\n')
    m = evaluate_containment_files(found, truth)
    assert (m["tp"], m["fp"], m["true"]) == (1, 1, 2)
    assert m["precision"] == 0.5 and m["recall"] == 0.5


def test_arrival_times_is_the_sequential_rule():
    """The vectorized arrival rule (Spark's driver) against the record-by-record one (the local stage):
    no time -> the place read; earlier than the latest seen -> the latest, counted late."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from neardup.contain.arrival import arrival_times

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.one_of(st.none(), st.floats(-5, 60, allow_nan=False)), max_size=40))
    def check(given_times):
        latest, late, expect = -math.inf, 0, []
        for place, when in enumerate(given_times, 1):
            when = float(place) if when is None else when
            if when < latest:
                late, when = late + 1, latest
            latest = when
            expect.append(when)
        times = np.array([math.nan if t is None else t for t in given_times], np.float64)
        got, got_late = arrival_times(times, np.arange(1, len(given_times) + 1))
        assert got.tolist() == expect and got_late == late

    check()
