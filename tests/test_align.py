"""Seed-and-extend alignment (`neardup partial --method align`): copies that survive copy-editing."""

from __future__ import annotations

import json
import random

import pytest

from neardup.cli import main
from neardup.align.aligner import align

WORDS = ("harbor council bridge vote cost ferry river budget mayor court permit traffic lane cyclist "
         "district project engineer report minister school teacher hospital doctor patient energy flour "
         "bakery price market farmer weather storm rain flood warning police station train airport").split()


def sentence(rng: random.Random, n: int = 16) -> str:
    return " ".join(rng.choice(WORDS) + str(rng.randrange(100)) for _ in range(n)).capitalize() + "."


def filler(rng: random.Random, sentences: int = 8) -> str:
    return " ".join(sentence(rng) for _ in range(sentences))


def located(a: str, b: str, copy_a: str, copy_b: str) -> bool:
    """Some passage of the pair covers at least half of the copy on both sides (IoU >= 0.5)."""
    def iou(x, lo, hi):
        inter = max(0, min(x[1], hi) - max(x[0], lo))
        return inter / (max(x[1], hi) - min(x[0], lo))

    la, lb = a.index(copy_a), b.index(copy_b)
    found = align([a, b])
    return any(iou(p.a_chars, la, la + len(copy_a)) >= 0.5 and iou(p.b_chars, lb, lb + len(copy_b)) >= 0.5
               for _, _, ps in found for p in ps)


def edit_one_word_per_sentence(text: str, rng: random.Random) -> str:
    out = []
    for s in text.split(". "):
        words = s.split()
        words[rng.randrange(len(words))] = "edited"
        out.append(" ".join(words))
    return ". ".join(out)


@pytest.mark.slow
def test_a_copy_with_one_edited_word_per_sentence_is_located():
    rng = random.Random(1)
    copy = " ".join(sentence(rng) for _ in range(3))
    edited = edit_one_word_per_sentence(copy, rng)
    a, b = filler(rng) + " " + copy + " " + filler(rng), filler(rng) + " " + edited + " " + filler(rng)
    assert located(a, b, copy, edited)


def test_one_and_two_sentence_pastes_are_located():
    rng = random.Random(2)
    for n in (1, 2):
        copy = " ".join(sentence(rng, 20) for _ in range(n))
        a, b = filler(rng) + " " + copy + " " + filler(rng), filler(rng, 5) + " " + copy + " " + filler(rng, 5)
        assert located(a, b, copy, copy), n


def test_a_paste_with_a_skipped_and_a_reordered_sentence_is_located():
    rng = random.Random(3)
    s = [sentence(rng) for _ in range(5)]
    copy_a = " ".join(s)
    copy_b = " ".join([s[0], s[2], s[4], s[3]])  # s[1] skipped, s[3] and s[4] swapped
    a, b = filler(rng) + " " + copy_a + " " + filler(rng), filler(rng) + " " + copy_b + " " + filler(rng)
    assert located(a, b, copy_a, copy_b)
    (_, _, passages), = align([a, b])
    assert len(passages) == 1  # one copy is one passage (granularity 1)


def test_offsets_are_exact_characters_of_the_matched_text():
    copied = "the minister said on tuesday that the new budget would cut taxes for small firms in the north"
    a = "Completely different opening words here. " + copied + ". And a different ending for this one."
    b = "Another unrelated beginning of a story! " + copied.upper() + " -- then other words entirely."
    (_, _, (p,)), = align([a, b])
    assert a[slice(*p.a_chars)] == copied and b[slice(*p.b_chars)] == copied.upper()
    assert p.a_words == p.b_words == 18


def test_same_topic_text_that_is_not_a_copy_does_not_pair():
    rng = random.Random(4)
    a = filler(rng, 10)
    b = filler(rng, 10)  # the same vocabulary, no copied run
    assert align([a, b]) == []


def test_boilerplate_seeds_are_dropped():
    rng = random.Random(5)
    footer = "Subscribe to our newsletter for the latest news and updates from around the region today"
    texts = [filler(rng) + " " + footer for _ in range(60)]  # the footer is in 60 > max_df documents
    assert align(texts) == []


def test_the_command_writes_located_passages(tmp_path, capsys):
    rng = random.Random(6)
    copy = " ".join(sentence(rng) for _ in range(2))
    docs = [{"id": "a", "text": filler(rng) + " " + copy}, {"id": "b", "text": copy + " " + filler(rng)},
            {"id": "c", "text": filler(rng)}]
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    assert main(["partial", str(path), "-o", str(tmp_path / "out"), "--method", "align", "--quiet"]) == 0
    (row,) = [json.loads(line) for line in (tmp_path / "out" / "partials.jsonl").read_text().splitlines()]
    assert (row["a"], row["b"]) == ("a", "b")
    span = row["spans"][0]
    assert docs[0]["text"][slice(*span["a_chars"])] == copy.rstrip(".")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["pairs"] == 1 and summary["documents"]["kept"] == 3 and summary["complete"]


def test_same_story_told_twice_without_copying_does_not_pair():
    """Two reports of one event share names and stock phrases, a few words at a time, not a passage."""
    a = ("The city council voted on Tuesday to approve the new harbor bridge, ending a debate that lasted "
         "two years. Mayor Ellen Park said in a statement that the bridge would ease traffic on the river road. "
         "Opponents said the cost of the project had doubled since it was first proposed. Construction is "
         "expected to begin next spring and to last three years, the council said.")
    b = ("After two years of argument, the harbor bridge won the approval of the city council on Tuesday. "
         "The cost of the project, critics noted, has doubled. Mayor Ellen Park said in a statement she was "
         "pleased. Work should begin next spring; the river road will stay open while the bridge is built, "
         "officials said, and the project is expected to last three years.")
    assert align([a, b]) == []


def test_a_copy_in_a_script_without_spaces_is_located_by_character_seeds():
    copied = "市议会周二投票批准了新的港口大桥项目结束了长达两年的辩论市长表示大桥将缓解河边道路的交通"
    a = "今天的天气很好我们去公园散步了。" + copied + "。晚上我们在家里吃饭看电视。"
    b = "股市今天上涨了百分之二。" + copied + "。明天还会有更多的新闻报道。"
    (_, _, (p,)), = align([a, b])
    assert a[slice(*p.a_chars)] == copied and b[slice(*p.b_chars)] == copied


def test_spilled_and_partitioned_runs_give_the_same_passages(tmp_path):
    """The engine's bounds (spill files, seed pairs one document range at a time) change nothing."""
    from neardup.align.aligner import align_texts

    rng = random.Random(7)
    shared = [" ".join(sentence(rng) for _ in range(3)) for _ in range(5)]
    texts = [filler(rng, 3) + " " + shared[i % 5] + " " + filler(rng, 3) for i in range(40)]
    whole = [(p.a, p.b, p.passages, p.coverage_a, p.new_b) for p in align_texts(texts)]
    bounded = [(p.a, p.b, p.passages, p.coverage_a, p.new_b)
               for p in align_texts(texts, batch_docs=7, memory_mb=0.001, pair_budget=50, folder=str(tmp_path))]
    assert whole == bounded and len(whole) == 5 * 28  # every pair of the 8 documents sharing each passage
    assert list(tmp_path.iterdir()) == []  # the spill folder is removed


def test_folders_and_jsonl_in_a_legacy_encoding_are_decoded_and_located(tmp_path):
    """Reuse corpora often come as cp1252 text files: decoded, not rejected; offsets are characters
    of the decoded text."""
    rng = random.Random(8)
    copied = "The caf\u00e9\u2019s owner said \u201cwe will stay open\u201d \u2014 " + " ".join(sentence(rng) for _ in range(2))
    a, b = filler(rng) + " " + copied + " " + filler(rng), filler(rng, 4) + " " + copied
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_bytes(a.encode("cp1252"))
    (folder / "b.txt").write_bytes(b.encode("cp1252"))
    (folder / "c.txt").write_bytes(filler(rng).encode("cp1252"))
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_bytes(b"".join((json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n").encode("cp1252")
                               for i, t in (("a.txt", a), ("b.txt", b))))
    for source in (folder, jsonl):
        out = tmp_path / f"out-{source.name}"
        assert main(["partial", str(source), "-o", str(out), "--quiet"]) == 0
        (row,) = [json.loads(line) for line in (out / "partials.jsonl").read_text().splitlines()]
        span = row["spans"][0]
        assert (row["a"], row["b"]) == ("a.txt", "b.txt")
        assert a[slice(*span["a_chars"])] == b[slice(*span["b_chars"])] == copy_words(copied)
        summary = json.loads((out / "summary.json").read_text())
        assert summary["documents"]["rejected"] == 0 and summary["documents"]["detected_encodings"] == {"cp1252": 2}


def copy_words(text: str) -> str:
    """``text`` from its first to its last word character (what a located passage spans)."""
    import re

    words = list(re.finditer(r"\w+", text))
    return text[words[0].start():words[-1].end()]


def test_a_passage_one_document_holds_twice_is_one_copy():
    # the source repeats its lead (a crawl that doubled a paragraph); the paste is one copy, one passage
    rng = random.Random(7)
    lead, copy = sentence(rng, 20), " ".join(sentence(rng, 18) for _ in range(2))
    a = lead + " " + filler(rng, 4) + " " + copy + " " + filler(rng, 4) + " " + copy + " " + filler(rng, 3)
    b = filler(rng, 5) + " " + copy + " " + filler(rng, 5)
    [(_, _, passages)] = align([a, b])
    assert len(passages) == 1
    (p,) = passages
    assert b[p.b_chars[0]:p.b_chars[1]] == copy[:-1] == a[p.a_chars[0]:p.a_chars[1]]  # first to last matched word


def test_an_aligner_within_its_memory_makes_no_folder(tmp_path):
    """The spill folder is made at the first spill only: a run that fits in memory touches no disk,
    so a killed process (a Spark worker ends with ``os._exit``) leaves nothing behind."""
    from neardup.align.aligner import Aligner

    rng = random.Random(3)
    texts = [filler(rng, 3) for _ in range(6)]
    small = Aligner(folder=str(tmp_path))
    small.add(texts)
    list(small.pairs())
    assert list(tmp_path.iterdir()) == []
    spilling = Aligner(memory_mb=0.001, folder=str(tmp_path))
    spilling.add(texts)
    list(spilling.pairs())
    assert [p.name[:14] for p in tmp_path.iterdir()] == ["neardup-align-"]
    spilling.close()
    assert list(tmp_path.iterdir()) == []


def _every_seed_pair(doc, pos, groups):
    """Stage 2 as it was: every seed pair of every key group, sorted by ``(a, b, pa, pb)``."""
    import numpy as np

    cols = [[], [], [], []]
    for g in range(groups.shape[0] - 1):
        d, p = doc[groups[g]:groups[g + 1]], pos[groups[g]:groups[g + 1]]
        i, j = np.triu_indices(d.shape[0], 1)
        other = d[i] != d[j]
        for c, x in zip(cols, (d[i], d[j], p[i], p[j])):
            c.append(x[other])
    a, b, pa, pb = (np.concatenate(c).astype(np.int32) for c in cols)
    order = np.lexsort((pb, pa, b, a))
    return a[order], b[order], pa[order], pb[order]


def test_seed_pairs_are_made_only_for_documents_sharing_enough_seeds():
    """A stock phrase in many documents meets every pair of them once: none of those pairs is
    written (a passage needs ``min_seeds`` seeds); the pairs of a copy are, in order."""
    import numpy as np

    from neardup.align.aligner import Aligner
    from neardup.align.seeds import by_document, pair_counts, sieve_pairs
    from neardup.relations import dedup_align_params

    rng = random.Random(7)
    copy = filler(rng, 2)
    texts = [f"{filler(rng, 2)} Page{i} said on condition of anonymity, page{i}. {filler(rng, 2)}" for i in range(60)]
    texts[10] += " " + copy
    texts[40] = copy + " " + texts[40]
    al = Aligner(dedup_align_params())  # the phrase is far below its document-frequency cap
    al.add(texts)
    doc, pos, groups = al._shared()
    per_doc = pair_counts(doc, groups, al.documents)
    a, b, pa, pb = sieve_pairs(doc, pos, by_document(doc, pos, groups, al.documents), 0, al.documents,
                               int(per_doc.sum()), al.params.min_seeds)
    assert per_doc.sum() >= 60 * 59 // 2  # the phrase's seeds meet every pair
    assert set(zip(a.tolist(), b.tolist())) == {(10, 40)}
    assert a.shape[0] == len(copy.split()) - al.params.n + 1 + 2  # the copy's seeds and the phrase's two
    rows = np.column_stack([a, b, pa, pb])
    assert (np.lexsort(rows.T[::-1]) == np.arange(rows.shape[0])).all()


def test_the_sieved_seed_pairs_give_the_passages_of_every_seed_pair(monkeypatch):
    """On a simulated corpus (copies, trims, quotes, one site's boilerplate), the passages and
    coverages are those of every seed pair sorted and chained, whatever the pair budget and the
    number of threads chaining the ranges."""
    import numpy as np

    from neardup.align import aligner as aligner_module
    from neardup.align.aligner import Aligner
    from neardup.align.seeds import chain_pairs
    from neardup.evaluate.corpora import shipped_articles
    from neardup.evaluate.synth import SynthConfig, simulate
    from neardup.relations import dedup_align_params

    docs = [d for kind, d in simulate(shipped_articles(), 5, 300, SynthConfig(p_shared_quote=1.0, p_site_about=0.5))
            if kind == "doc"]
    p = dedup_align_params()
    codes = np.unique([d["site"] for d in docs], return_inverse=True)[1]  # for the sites' boilerplate
    for budget, threads in ((50, 1), (50, 3), (8_000_000, 2)):
        monkeypatch.setattr(aligner_module, "kernel_threads", lambda t=threads: t)
        al = Aligner(p, pair_budget=budget)
        al.add([d["text"] for d in docs], codes)
        got = [np.concatenate(x) for x in zip(*al.chains())]
        doc, pos, groups = al._shared()
        want = chain_pairs(*_every_seed_pair(doc, pos, groups), al.doc_words(), *p.chain_args())
        assert got[0].shape[0] > 100
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_the_threads_share_the_pair_budget(monkeypatch):
    """With three threads each range holds at most a third of ``pair_budget`` seed pairs (or one
    document's), so the seed pairs at work at once stay within the budget, as with one thread."""
    from neardup.align import aligner as aligner_module
    from neardup.align.aligner import Aligner
    from neardup.align.seeds import pair_counts
    from neardup.evaluate.corpora import shipped_articles
    from neardup.evaluate.synth import simulate
    from neardup.relations import dedup_align_params
    from neardup.threads import in_order_threads

    docs = [d["text"] for kind, d in simulate(shipped_articles(), 5, 200) if kind == "doc"]
    ranges = []

    def recorded(fn, items, threads):
        items = list(items)
        ranges.extend(r for r in items if isinstance(r, tuple))  # the chained ranges, not the key partitions
        return in_order_threads(fn, items, threads)

    monkeypatch.setattr(aligner_module, "kernel_threads", lambda: 3)
    monkeypatch.setattr(aligner_module, "in_order_threads", recorded)
    al = Aligner(dedup_align_params(), pair_budget=300)
    al.add(docs)
    list(al.chains())
    doc, _, groups = al._shared()
    per_doc = pair_counts(doc, groups, al.documents)
    assert len(ranges) > 3 and sum(total for _, _, total in ranges) == per_doc.sum()
    assert all(total <= 100 or hi - lo == 1 for lo, hi, total in ranges)


def test_coverage_leaves_out_the_holes_of_the_shown_passages_only():
    """Passages (a_lo, a_hi, b_lo, b_hi, matched) with holes (passage, side, lo, hi): a word is
    covered when a shown passage holds it outside that passage's holes."""
    import numpy as np

    from neardup.align.cover import side_cover

    passages = np.array([[0, 40, 10, 50, 30], [60, 80, 0, 10, 20], [30, 70, 50, 60, 8]], np.int64)
    holes = np.array([[0, 0, 10, 20], [0, 0, 15, 25], [1, 1, 2, 4], [2, 0, 30, 40]], np.int64)
    shown = np.array([True, True, False])
    # a: [0, 40) less [10, 25) and [60, 80): 25 + 20 words; the longest run outside: 100 - 80
    assert side_cover(passages, shown, holes, 0, 100) == (45, 20)
    # b: [10, 50) and [0, 10) less [2, 4): 48 words; longest run outside: 50 - 100
    assert side_cover(passages, shown, holes, 1, 100) == (48, 50)
    # the third shown too: its hole [30, 40) is still covered by the first passage, [40, 70) is added
    assert side_cover(passages, np.ones(3, bool), holes, 0, 100) == (65, 20)


def test_a_hole_gives_back_the_words_a_later_piece_of_its_passage_holds():
    """Pieces merged out of order: the words of a piece that lands in a hole an earlier one left
    are covered again (the hole is split around it)."""
    import numpy as np

    from neardup.align.seeds import _chain_one

    # a: x 0-30, p 30-60, 18 words of its own, q 78-92; b: p 0-30, q 32-46, x 50-80
    pa = np.r_[np.arange(0, 27), np.arange(30, 57), np.arange(78, 89)].astype(np.int64)
    pb = np.r_[np.arange(50, 77), np.arange(0, 27), np.arange(32, 43)].astype(np.int64)
    order = np.lexsort((pb, pa))
    passages, holes, _, _ = _chain_one(pa[order], pb[order], pa[order], 4, 20, 12, np.zeros(96, np.int64), np.zeros(96, np.int64))
    assert passages.tolist() == [[0, 92, 0, 80, 30 + 30 + 14, 30 + 30 + 14]]  # matched, distinct
    got = sorted((side, lo, hi) for _, side, lo, hi in holes.tolist() if hi > lo)
    # p skips b's [30, 50) to reach x, where q then lies; q skips a's [60, 78)
    assert got == [(0, 60, 78), (1, 30, 32), (1, 46, 50)]


def test_a_number_with_its_separators_is_one_word_of_the_aligner():
    from neardup.align.words import tokens

    text = "Shr 47.4 cents vs 65.2, net 1,693,951 tonnes in 1986. The U.S. rose; 1.234,5 TL"
    _, starts, ends, counts = tokens([text])
    assert [text[s:e] for s, e in zip(starts, ends)] == [
        "Shr", "47.4", "cents", "vs", "65.2", "net", "1,693,951", "tonnes", "in", "1986", "The", "U", "S", "rose",
        "1.234,5", "TL"]
    assert counts.tolist() == [16]


def _versions(rng: random.Random) -> tuple[str, str]:
    """Two documents made from one set of sentences: each keeps most of them, some edited, some
    printed twice, with text of its own between, and two of them swapped now and then."""
    source = [sentence(rng, rng.randint(8, 24)) for _ in range(rng.randint(2, 6))]

    def version() -> str:
        parts = []
        for s in source:
            if rng.random() < 0.8:
                words = s.split()
                if rng.random() < 0.5:
                    words[rng.randrange(len(words))] = "edited"
                parts.append(" ".join(words))
            if rng.random() < 0.2:
                parts.append(s)
            if rng.random() < 0.5:
                parts.append(filler(rng, rng.randint(1, 3)))
        if rng.random() < 0.3 and len(parts) > 2:
            i = rng.randrange(len(parts) - 1)
            parts[i], parts[i + 1] = parts[i + 1], parts[i]
        return filler(rng, rng.randint(0, 3)) + " " + " ".join(parts)

    return version(), version()


@pytest.mark.parametrize("seed", [0, 5, 27, 29, 31])
def test_the_passages_of_two_texts_do_not_depend_on_which_comes_first(seed):
    """The same two texts give the same passages and coverages in either order of the input (these
    seeds gave other coverages when the pair was chained from the first document of the input)."""
    from neardup.align.aligner import align_texts

    x, y = _versions(random.Random(seed))
    [xy] = align_texts([x, y])
    [yx] = align_texts([y, x])
    assert (xy.coverage_a, xy.coverage_b, xy.new_a, xy.new_b) == (yx.coverage_b, yx.coverage_a, yx.new_b, yx.new_a)
    assert [(p.a_chars, p.b_chars) for p in xy.passages] == sorted((p.b_chars, p.a_chars) for p in yx.passages)


def test_a_sentence_printed_twice_in_a_row_counts_once():
    """One document prints a sentence twice in a row, the other once.  A chain moves forward in
    both documents: it no longer steps from the first print to the second at one word of the
    other (that made one passage of both prints)."""
    from neardup.align.aligner import align_texts

    rng = random.Random(3)
    said = sentence(rng, 18)
    once = said + " " + filler(rng, 5)
    twice = filler(rng, 4) + " " + said + " " + said + " " + filler(rng, 1)
    for texts in ([once, twice], [twice, once]):
        [pair] = align_texts(texts)
        assert [(p.a_words, p.b_words) for p in pair.passages] == [(18, 18)]
        assert min(pair.coverage_a, pair.coverage_b) == pytest.approx(18 / len(twice.split()), abs=1e-4)


RETOLD = ("a vote of the U.N. Security Council{} China and Russia hold veto power in the council",
          (", said the foreign minister in a speech on Tuesday. ", " as soon as this weekend, though a united "
           "response is unlikely because "))


def test_a_sentence_retold_around_two_stock_phrases_is_not_a_shared_passage():
    """Two long stories whose only common words are two stock phrases of one sentence, retold in
    between: matched words too few for the passage's density, and the pair is not reported."""
    rng = random.Random(7)
    text, (one, other) = RETOLD
    a = filler(rng, 10) + " " + text.format(one) + ". " + filler(rng, 10)
    b = filler(rng, 10) + " " + text.format(other) + ". " + filler(rng, 10)
    assert align([a, b]) == []


def test_a_short_text_made_of_the_retold_sentence_is_still_a_copy():
    """The same evidence is kept when it covers ``keep_coverage`` of one of the texts (``dedup``:
    its ``--min-coverage``): a short rewrite of a sentence of a story (a headline and its lede,
    heavily edited) is that story's copy; above its coverage, the pair only shares and goes."""
    from neardup.align.aligner import AlignParams, align_texts

    rng = random.Random(7)
    text, (one, other) = RETOLD
    texts = [filler(rng, 10) + " " + text.format(one) + ". " + filler(rng, 10),
             text.format(other) + ". " + sentence(rng, 10)]
    [pair] = align_texts(texts)
    assert 0.5 <= pair.coverage_b < 0.9
    assert list(align_texts(texts, AlignParams(keep_coverage=0.9))) == []


def test_a_stock_phrase_both_documents_print_twice_is_evidence_once():
    """Two stories open with one stock phrase of ten words, and each prints it twice (its headline
    is its lede's first words): the phrase is evidence once, under ``min_words``, and the stories
    do not pair."""
    rng = random.Random(8)
    phrase = "according to the decision published in today's official gazette"
    a, b = (f"{phrase.capitalize()}. {phrase.capitalize()} {filler(rng, 8)}" for _ in range(2))
    assert align([a, b]) == []
