"""PDC: located spans with exact offsets, gaps, the three stages, signatures, evaluation."""

import random

import numpy as np
import pytest

from neardup.evaluate.truth import Truth
from neardup.features.sets import HashedSets, exact_jaccard
from neardup.partial import PartialDetector
from neardup.partial.evaluate import evaluate_partials
from neardup.pdc.stages import Records, Sentences, index, sentence_duplicates, sequence_matching
from neardup.sentences import split_sentences

PASSAGE = ("The central bank raised its main rate by half a point on Thursday. "
           "It was the third increase this year. "
           "Governor Ana Ruiz said inflation had proved more stubborn than expected. "
           "Markets had priced in a smaller move.")


def _story(articles, i):
    return articles[i]["title"] + "\n\n" + articles[i]["text"]


def test_copied_passage_found_with_exact_offsets(articles):
    a = _story(articles, 0) + "\n\n" + PASSAGE + "\n\nThe end of story A."
    b_head = _story(articles, 3)
    b = b_head + "\n\n" + PASSAGE + "\n\nMore local news follows here."
    r = PartialDetector().run([("A", a), ("B", b), ("C", _story(articles, 5))])
    assert len(r.pairs) == 1
    p = r.pairs[0]
    assert (p.a, p.b) == ("A", "B") and len(p.spans) == 1
    s = p.spans[0]
    assert s.length == 4
    assert s.a_chars == (a.index(PASSAGE), a.index(PASSAGE) + len(PASSAGE))
    assert s.b_chars == (len(b_head) + 2, len(b_head) + 2 + len(PASSAGE))
    assert b[slice(*s.b_chars)] == a[slice(*s.a_chars)] == PASSAGE
    assert 0 < p.coverage_a < 1 and 0 < p.coverage_b < 1


def test_one_edited_sentence_inside_a_run_is_still_one_span(articles):
    sents = PASSAGE.split(". ")
    edited = ". ".join(sents[:2] + ["Governor Ana Ruiz said prices had risen far faster than anyone forecast"] + sents[3:])
    a = _story(articles, 0) + "\n\n" + PASSAGE + " Analysts agreed with the decision."
    b = _story(articles, 4) + "\n\n" + edited + " Analysts agreed with the decision."
    one = PartialDetector().run([("A", a), ("B", b)]).pairs
    assert [(s.length, len(one[0].spans)) for s in one[0].spans] == [(5, 1)]
    assert PartialDetector(gap=0).run([("A", a), ("B", b)]).pairs == []  # 2 + 2 sentences: below gamma 3


def test_spans_survive_two_percent_edits_and_rebroken_paragraphs(articles):
    rng = random.Random(5)
    body = "\n\n".join(_story(articles, i) for i in range(3))
    words = body.replace("\n\n", " \n\n ").split(" ")
    places = [i for i, w in enumerate(words) if w.strip() and w != "\n\n"]
    for i in rng.sample(places, round(0.02 * len(places))):
        words[i] = f"edit{i}"
    edited = " ".join(words).replace(" \n\n ", "\n\n")
    edited = edited.replace(".\n\n", ". ", 2).replace(". ", ".\n\n", 3)  # paragraphs joined and split
    p = PartialDetector().run([("A", body), ("B", edited)]).pairs
    assert len(p) == 1
    assert p[0].coverage_a > 0.8 and p[0].coverage_b > 0.8


def test_gamma_drops_short_runs(articles):
    two = ". ".join(PASSAGE.split(". ")[:2]) + "."
    docs = [("A", _story(articles, 0) + "\n\n" + two), ("B", _story(articles, 2) + "\n\n" + two)]
    assert PartialDetector().run(docs).pairs == []
    assert [s.length for s in PartialDetector(gamma=2).run(docs).pairs[0].spans] == [2]


@pytest.mark.parametrize("signature", ["imatch", "spotsigs"])
def test_other_signatures_find_verbatim_copies(articles, signature):
    a = _story(articles, 0) + "\n\n" + PASSAGE
    b = _story(articles, 1) + "\n\n" + PASSAGE
    kw = {"antecedents": 50} if signature == "spotsigs" else {}
    pairs = PartialDetector(signature=signature, **kw).run([("A", a), ("B", b), ("C", _story(articles, 6))]).pairs
    assert [(p.a, p.b) for p in pairs] == [("A", "B")]
    assert pairs[0].spans[0].length >= 3


def _random_sets(rng, n):
    vocab = np.arange(1, 40, dtype=np.uint64)
    rows = []
    for _ in range(n):
        base = rng.choice(len(vocab), rng.integers(1, 12), replace=False)
        rows.append(np.sort(vocab[base]))
    offsets = np.r_[0, np.cumsum([len(r) for r in rows])].astype(np.int64)
    return HashedSets(np.concatenate(rows), offsets)


@pytest.mark.parametrize("tau", [0.5, 0.8, 0.9])
def test_prefix_filtered_stage_two_is_exact(tau):
    rng = np.random.default_rng(0)
    sets = _random_sets(rng, 120)
    doc = np.arange(120) // 3
    side = Sentences(sets, doc, np.arange(120) % 3)
    got = sentence_duplicates(index(side), side, tau)
    found = {(int(k // 40) * 3 + int(a), int(k % 40) * 3 + int(b)) for k, a, b in zip(got.key, got.values["a"], got.values["b"])}
    x, y = np.triu_indices(120, k=1)
    sim = exact_jaccard(sets.hashes, sets.offsets, x, y)
    want = {(int(i), int(j)) for i, j, s in zip(x, y, sim) if s >= tau - 1e-9 and doc[i] != doc[j]}
    assert found == want


def test_sequence_matching_follows_diagonals_with_gaps():
    key = np.array([7, 7, 7, 7, 7, 7, 9], dtype=np.int64)
    a = np.array([0, 1, 3, 4, 10, 11, 5])
    b = np.array([2, 3, 5, 6, 0, 1, 5])
    spans = sequence_matching(Records(key, {"a": a, "b": b}), gap=1, gamma=2)
    assert spans.tolist() == [[7, 0, 2, 5], [7, 10, 0, 2]]
    assert sequence_matching(Records(key, {"a": a, "b": b}), gap=0, gamma=2).tolist() == [
        [7, 0, 2, 2], [7, 3, 5, 2], [7, 10, 0, 2]]


def test_records_shuffle_is_a_stable_group_by():
    r = Records(np.array([3, 1, 3, 1]), {"v": np.array([0, 1, 2, 3])}).shuffle()
    assert r.key.tolist() == [1, 1, 3, 3] and r.values["v"].tolist() == [1, 3, 0, 2]
    assert r.runs().tolist() == [0, 2, 4]


def test_evaluation_counts_sentences_and_pairs():
    texts = {"A": "One here. Two here. Three here. Four here.", "B": "Intro. One here. Two here. Three here.",
             "C": "Other story. Nothing shared."}
    truth = Truth(cluster={"A": 0, "B": 1, "C": 2}, partials=[
        {"a": "A", "b": "B", "a_chars": (0, 30), "b_chars": (7, 37)}])
    sents = {k: split_sentences(v) for k, v in texts.items()}
    exact = [{"a": "A", "b": "B", "spans": [{"a_start": 0, "b_start": 1, "length": 3}]}]
    ev = evaluate_partials(exact, truth, sents)
    assert ev["all"]["span_f1"] == 1.0 and ev["all"]["pair_f1"] == 1.0
    wider = [{"a": "B", "b": "A", "spans": [{"a_start": 0, "b_start": 0, "length": 4}]},
             {"a": "A", "b": "C", "spans": [{"a_start": 0, "b_start": 0, "length": 2}]}]
    ev = evaluate_partials(wider, truth, sents)["all"]
    # (B, A) swapped: 3 + 3 true sentences found, B's intro and A's fourth sentence extra; (A, C) all wrong
    assert ev["span_precision"] == pytest.approx(6 / 12) and ev["span_recall"] == 1.0
    assert ev["pair_precision"] == 0.5 and ev["pair_recall"] == 1.0


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="signature"):
        PartialDetector(signature="nope")
    with pytest.raises(ValueError, match="tau"):
        PartialDetector(tau=1.5)
    with pytest.raises(ValueError, match="gap"):
        sequence_matching(Records(np.zeros(0, np.int64), {"a": np.zeros(0), "b": np.zeros(0)}), gap=-1)


def test_partial_truth_and_eval_partials_report_the_same_measures(tmp_path, capsys):
    """The summary of ``partial --truth`` and ``eval --partials`` on its output: one set of measures,
    with the pasted passages apart (``pan_pasted`` was missing from eval's)."""
    import json

    from neardup.cli import main
    from neardup.evaluate.corpora import shipped_articles
    from neardup.evaluate.synth import write_corpus

    write_corpus(shipped_articles(), tmp_path, 5, 150)
    docs, truth, out = tmp_path / "docs.jsonl", tmp_path / "truth.jsonl", tmp_path / "p"
    whys = {json.loads(line).get("why") for line in truth.read_text().splitlines() if '"partial"' in line}
    assert {"quote", "split"} <= whys
    assert main(["partial", str(docs), "-o", str(out), "--truth", str(truth), "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())["evaluation"]
    assert main(["eval", str(docs), "--truth", str(truth), "--partials", str(out / "partials.jsonl")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "pan_pasted" in summary and report == {"task": "partial", **summary}
