"""The syndication simulator: exact labels, determinism, streaming, realistic pages."""

import html
import inspect
import random
import time
import tracemalloc

import orjson
import pytest

from neardup.evaluate.synth import SynthConfig, Syndicator, sentence_spans, simulate, write_corpus

WORDS = (
    "minister council budget river harbour festival election market bank shares union strike "
    "farmers harvest drought storm police court judge trial museum concert team coach season "
    "league player goal school teachers hospital doctors patients airport airline flights "
    "bridge road railway station energy prices oil gas power plant factory workers wages "
    "mayor city town village county region province border talks treaty deal report survey"
).split()
GLUE = "the a of in on for with and to from at by said will has was after before over".split()
TOPICS = ["politics", "business", "sport"]

# Every record kind shows up even in a small corpus.
BUSY = SynthConfig(n_sites=6, p_trim=0.2, p_split=0.15, p_partial=0.4, mean_cluster_size=4.0)


def _sentence(r: random.Random) -> str:
    ws = [r.choice(WORDS) if r.random() < 0.6 else r.choice(GLUE) for _ in range(r.randint(8, 18))]
    return ws[0].capitalize() + " " + " ".join(ws[1:]) + r.choice([".", ".", ".", "?", "!"])


def make_articles(n: int = 24, seed: int = 0) -> list[dict]:
    r = random.Random(seed)
    arts = []
    for i in range(n):
        paras = [" ".join(_sentence(r) for _ in range(r.randint(2, 4))) for _ in range(r.randint(3, 7))]
        arts.append({"id": f"a{i}", "title": f"{r.choice(WORDS).title()} {r.choice(WORDS)} story {i}",
                     "text": "\n\n".join(paras), "topic": TOPICS[i % 3]})
    return arts


@pytest.fixture(scope="module")
def corpus():
    docs, truth = {}, []
    for what, rec in simulate(make_articles(), seed=5, n_docs=400, config=BUSY):
        if what == "doc":
            docs[rec["id"]] = rec
        else:
            truth.append(rec)
    return docs, truth


def _read(d):
    return (d / "docs.jsonl").read_bytes(), (d / "truth.jsonl").read_bytes()


def test_deterministic(tmp_path):
    arts = make_articles()
    c1 = write_corpus(arts, tmp_path / "a", seed=11, n_docs=150, config=BUSY)
    c2 = write_corpus(arts, tmp_path / "b", seed=11, n_docs=150, config=BUSY)
    write_corpus(arts, tmp_path / "c", seed=12, n_docs=150, config=BUSY)
    assert _read(tmp_path / "a") == _read(tmp_path / "b")
    assert _read(tmp_path / "a")[0] != _read(tmp_path / "c")[0]
    assert c1 == c2 and c1["docs"] == 150
    lines = (tmp_path / "a" / "docs.jsonl").read_bytes().splitlines()
    assert len(lines) == 150 and set(orjson.loads(lines[0])) >= {"id", "html", "text", "site", "cluster", "time", "kind"}


@pytest.mark.parametrize("n", [1, 2, 7, 100])
def test_exact_doc_count(n):
    got = sum(what == "doc" for what, _ in simulate(make_articles(), seed=1, n_docs=n, config=BUSY))
    assert got == n


def test_default_size_uses_every_story():
    arts = make_articles()
    sim = Syndicator(arts, seed=2)
    out = list(sim.run())
    clusters = [r for what, r in out if what == "truth" and r["type"] == "cluster"]
    assert len(clusters) == len(arts) and len({c["source"] for c in clusters}) == len(arts)


def test_partial_spans_exact(corpus):
    docs, truth = corpus
    partial = [r for r in truth if r["type"] == "partial"]
    assert {r["why"] for r in partial} == {"quote", "split"}
    for r in partial:
        a, b = docs[r["a"]], docs[r["b"]]
        (s, e), (s2, e2) = r["a_chars"], r["b_chars"]
        assert e - s >= BUSY.min_partial_chars or r["why"] == "split"
        assert a["text"][s:e] == b["text"][s2:e2] and e > s
        if r["why"] == "quote":  # copied into an unrelated story, as a whole paragraph
            assert a["cluster"] != b["cluster"] and a["time"] <= b["time"]
            assert b["text"][s2 - 2: s2] == "\n\n" and b["text"][e2: e2 + 2] in ("", "\n\n")
        else:  # a page of a split article
            assert a["cluster"] == b["cluster"] and b["kind"] == "page"


def _sentences(text: str) -> list[str]:
    out = []
    for para in text.split("\n\n"):
        out += [para[s:e] for s, e in sentence_spans(para)]
    return out


def test_containment_direction(corpus):
    docs, truth = corpus
    cont = [r for r in truth if r["type"] == "containment"]
    assert {r["why"] for r in cont} == {"trim", "split"}
    for r in cont:
        big, small = docs[r["container"]], docs[r["contained"]]
        assert big["cluster"] == small["cluster"] and len(small["text"]) < len(big["text"])
        assert small["kind"] in ("trim", "page")
        assert all(s in big["text"] for s in _sentences(small["text"]))
        assert not all(s in small["text"] for s in _sentences(big["text"]))


def test_clusters_partition_docs(corpus):
    docs, truth = corpus
    clusters = [r for r in truth if r["type"] == "cluster"]
    seen = [i for c in clusters for i in c["ids"]]
    assert sorted(seen) == sorted(docs) and len(seen) == len(set(seen))
    for c in clusters:
        members = [docs[i] for i in c["ids"]]
        assert all(d["cluster"] == c["cluster"] and d["source"] == c["source"] for d in members)
        assert sum(d["kind"] == "original" for d in members) == 1
    kinds = {d["kind"] for d in docs.values()}
    assert kinds == {"original", "rewrite", "trim", "page"}
    assert len({c["source"] for c in clusters}) == len(clusters)  # one cluster per story


def _jaccard(a: str, b: str) -> float:
    """Jaccard similarity of word 3-gram sets."""
    x, y = ({tuple(w[i: i + 3]) for i in range(len(w) - 2)} for w in (a.lower().split(), b.lower().split()))
    return len(x & y) / len(x | y)


def test_rewrites_are_near_duplicates(corpus):
    docs, truth = corpus
    original = {d["cluster"]: d for d in docs.values() if d["kind"] == "original"}
    rewrites = [d for d in docs.values() if d["kind"] == "rewrite"]
    sims = [_jaccard(d["text"], original[d["cluster"]]["text"]) for d in rewrites]
    assert min(sims) > 0.25 and sorted(sims)[len(sims) // 2] > 0.6  # chains drift further
    assert sum(s < 1 for s in sims) > 0.9 * len(sims)
    other = [_jaccard(d["text"], original[(d["cluster"] + 1) % len(original)]["text"]) for d in rewrites]
    assert max(other) < 0.05


def test_hard_negatives_same_topic():
    sim = Syndicator(make_articles(60), seed=3, config=SynthConfig(p_same_topic=1.0))
    topics = [r["topic"] for what, r in sim.run(300) if what == "truth" and r["type"] == "cluster"]
    same = sum(a == b for a, b in zip(topics, topics[1:]))
    assert same >= len(topics) - 1 - 3  # only a topic running out breaks the run


def test_html_embeds_text_and_boilerplate(corpus):
    docs, _ = corpus
    sim = Syndicator(make_articles(), seed=5, config=BUSY)  # same seed: same sites
    sites = {s.key: s for s in sim.sites}
    by_site = {}
    for d in docs.values():
        page = html.unescape(d["html"])
        for para in d["text"].split("\n\n"):
            assert para in page
        site = sites[d["site"]]
        for piece in (site.name, site.cookie, site.footer_text, *site.menu, *site.popular):
            assert piece in page
        assert "<script" not in d["html"] and d["html"].count("<article>") == 1
        by_site.setdefault(d["site"], []).append(d)
    assert len(by_site) > 1


def test_html_escapes():
    arts = make_articles(6)
    arts[0]["title"] = "A <b>bold</b> & \"quoted\" title"
    arts[0]["text"] = arts[0]["text"].replace(".", " <script>x</script> & more.", 1)
    docs = [r for what, r in simulate(arts, seed=1, n_docs=30) if what == "doc"]
    hit = [d for d in docs if "<script>" in d["text"]]
    assert hit
    for d in hit:
        assert "<script>" not in d["html"] and "&lt;script&gt;" in d["html"]


def test_time_order_and_fields(corpus):
    docs, _ = corpus
    times = [d["time"] for d in docs.values()]  # dict keeps emission order
    assert times == sorted(times)
    assert all(d["url"].startswith("https://www.") for d in docs.values())


# Pending documents span max_delay_hours / story_gap_minutes stories: keep the window small.
WINDOW = SynthConfig(n_sites=6, story_gap_minutes=60, mean_delay_hours=1, max_delay_hours=3)


@pytest.mark.slow
def test_streams_10k_docs():
    gen = simulate(make_articles(400), seed=9, n_docs=10_000, config=WINDOW)
    assert inspect.isgenerator(gen)
    t0 = time.perf_counter()
    n = sum(what == "doc" for what, _ in gen)
    assert n == 10_000
    assert time.perf_counter() - t0 < 30  # about 2 s on a laptop


@pytest.mark.slow
def test_memory_bounded():
    gen = simulate(make_articles(400), seed=9, n_docs=3_000, config=WINDOW)
    tracemalloc.start()
    size = 0
    try:
        for what, rec in gen:
            if what == "doc":
                size += len(rec["html"]) + len(rec["text"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < size / 10  # far less than the output: nothing is kept


def test_shards_hold_the_jsonl_records_in_order(tmp_path):
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    write_corpus(make_articles(), tmp_path / "jsonl", seed=3, n_docs=250, config=BUSY)
    write_corpus(make_articles(), tmp_path / "shards", seed=3, n_docs=250, config=BUSY, shard_docs=100)
    parts = sorted((tmp_path / "shards" / "docs").iterdir())
    assert [p.name for p in parts] == ["part-00000.parquet", "part-00001.parquet", "part-00002.parquet"]
    assert [pq.ParquetFile(p).metadata.num_rows for p in parts] == [100, 100, 50]
    jsonl = [orjson.loads(line) for line in (tmp_path / "jsonl" / "docs.jsonl").read_bytes().splitlines()]
    assert ds.dataset(parts).to_table().to_pylist() == jsonl
    assert (tmp_path / "shards" / "truth.jsonl").read_bytes() == (tmp_path / "jsonl" / "truth.jsonl").read_bytes()
    assert not (tmp_path / "shards" / "docs.jsonl").exists()


def test_the_input_stage_reads_shards_as_the_jsonl(tmp_path):
    from neardup.run import dedup_files

    write_corpus(make_articles(), tmp_path / "jsonl", seed=4, n_docs=120, config=BUSY)
    write_corpus(make_articles(), tmp_path / "shards", seed=4, n_docs=120, config=BUSY, shard_docs=50)
    for name, source in (("a", tmp_path / "jsonl" / "docs.jsonl"), ("b", tmp_path / "shards" / "docs")):
        dedup_files([str(source)], str(tmp_path / name))
    for out in ("pairs.jsonl", "clusters.jsonl"):
        assert (tmp_path / "a" / out).read_bytes() == (tmp_path / "b" / out).read_bytes()
    assert (tmp_path / "a" / "pairs.jsonl").read_bytes()  # the corpus has pairs to compare


@pytest.mark.parametrize("argv, names", [
    (["--n-sites", "0"], "n_sites (--n-sites) must be a finite number of at least 1"),
    (["--n-sites", "-1"], "--n-sites"),
    (["--mean-cluster-size", "0"], "--mean-cluster-size"),
    (["--cluster-size-sigma", "-1"], "--cluster-size-sigma"),
    (["--story-gap-minutes", "-5"], "--story-gap-minutes"),
    (["--mean-delay-hours", "-1"], "--mean-delay-hours"),
    (["--max-delay-hours", "inf"], "--max-delay-hours"),
    (["--recent-window", "-1"], "--recent-window"),
    (["--min-partial-chars", "0"], "--min-partial-chars"),
    (["--docs", "-5"], "n_docs (--docs) must be at least 1"),
    (["--docs", "0"], "--docs"),
    (["--p-trim", "2"], "p_trim (--p-trim) is a probability or share, in [0, 1]"),
    (["--p-partial", "3"], "--p-partial"),
    (["--p-split", "-1"], "--p-split"),
    (["--edit-rate", "-1"], "--edit-rate"),
    (["--p-site-about", "nan"], "--p-site-about"),
    (["--max-digit-share", "-1"], "--max-digit-share"),
    (["--p-trim", "0.6", "--p-split", "0.6"], "p_trim + p_split"),
])
def test_a_knob_out_of_range_is_one_line_naming_it(tmp_path, capsys, argv, names):
    from neardup.cli import main

    assert main(["synth", "-o", str(tmp_path / "o"), "--docs", "30", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and names in err, err
    assert not (tmp_path / "o").exists()  # refused before anything is written


def test_the_config_refuses_bad_knobs_for_api_users_too():
    with pytest.raises(ValueError, match="n_sites"):
        SynthConfig(n_sites=0)
    with pytest.raises(ValueError, match="a whole number"):
        SynthConfig(recent_window=2.5)
    with pytest.raises(ValueError, match="start must be an ISO 8601 time"):
        SynthConfig(start="yesterday")
    with pytest.raises(ValueError, match="n_docs"):
        Syndicator(make_articles(), seed=1).run(0)  # when called, not when the stream is read
    assert SynthConfig(p_trim=1.0, p_split=0.0, recent_window=0, cluster_size_sigma=0.0)  # the ends are in range


def test_every_simulation_knob_says_what_it_is_in_help(capsys):
    """`neardup synth --help` explains each knob (it listed only their defaults)."""
    from dataclasses import fields

    from neardup.cli import main
    from neardup.evaluate.synth import SynthConfig

    with pytest.raises(SystemExit):
        main(["synth", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for f in fields(SynthConfig):
        if f.name != "start":
            assert f"{' '.join(f.metadata['help'].split())} ({f.default})" in text, f.name
