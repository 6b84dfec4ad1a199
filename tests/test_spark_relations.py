"""Issue 32, sixth part: ``dedup``'s relations on the Spark executors (:mod:`neardup.engines.spark_relations`).

At the defaults (relations on) the executors type the pairs, cluster the copies, choose what a
deduplicated set drops and write the tables: the files are the local engine's byte for byte (JSONL
and Parquet, single files and parts, every clustering, every relation listed), the summary is the
local one, and the relations stay symmetric.  What reaches the driver is counted in
``tests/test_spark_output.py``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from spark_launch import SPARK, session_fixture, small_corpus, summary_of

pytest.importorskip("pyspark")
pytestmark = [pytest.mark.spark, pytest.mark.slow,
              pytest.mark.skipif(shutil.which("java") is None, reason="the Spark engine needs Java 17+")]

from neardup.cli import main  # noqa: E402

spark = session_fixture(3)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """600 simulated documents: copies, trims, a quote of another story in half the originals, a site's
    "About us" paragraph on half the pages; three without words."""
    from neardup.evaluate.synth import SynthConfig

    config = SynthConfig(p_shared_quote=0.5, p_site_about=0.5, p_trim=0.3)
    return small_corpus(tmp_path_factory.mktemp("related"), config, wordless=3)


def _same_files(local: Path, other: Path, fmt: str) -> None:
    for name in ("pairs", "clusters"):
        assert (other / f"{name}.{fmt}").read_bytes() == (local / f"{name}.{fmt}").read_bytes(), name


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_defaults_write_the_local_files(spark, corpus, tmp_path, fmt):
    """The defaults: every relation, copies clustered by label propagation, removals -- the local files."""
    args = [str(corpus), "--quiet", "--format", fmt]
    assert main(["dedup", *args, "-o", str(tmp_path / "l")]) == 0
    assert main(["dedup", *args, "-o", str(tmp_path / "s"), *SPARK]) == 0
    if fmt == "jsonl":  # part files of both formats: test_spark_output (the same writer)
        assert main(["dedup", *args, "-o", str(tmp_path / "p"), *SPARK, "--no-coalesce"]) == 0
    local = summary_of(tmp_path / "l")
    rel = local["relations"]
    assert rel["shares"] > 100 and rel["contains"] > 100 and rel["duplicate"] > 500 and rel["similar"] > 100
    assert local["aligned"]["site_boilerplate_seeds"] > 0
    assert 0 < local["duplicates_removable"] < local["documents_in_clusters"] - local["clusters"]
    assert summary_of(tmp_path / "s") == local
    _same_files(tmp_path / "l", tmp_path / "s", fmt)
    if fmt == "jsonl":
        assert summary_of(tmp_path / "p") == local
        for name in ("pairs", "clusters"):
            parts = sorted((tmp_path / "p" / name).iterdir())
            assert len(parts) == 3
            assert b"".join(p.read_bytes() for p in parts) == (tmp_path / "l" / f"{name}.jsonl").read_bytes()


@pytest.mark.parametrize("extra", [["--cluster", "leader", "--relations", "duplicate,shares,similar"],
                                   ["--cluster", "components", "--min-coverage", "0.3", "--unique-coverage", "0.6",
                                    "--site-max-df", "0", "--method", "minhash", "--threshold", "0.5"]])
def test_options_write_the_local_files(spark, corpus, tmp_path, extra):
    """Other clusterings, relations listed, coverages and a method: still the local files."""
    args = [str(corpus), "--quiet", *extra]
    assert main(["dedup", *args, "-o", str(tmp_path / "l")]) == 0
    assert main(["dedup", *args, "-o", str(tmp_path / "s"), *SPARK]) == 0
    assert summary_of(tmp_path / "s") == summary_of(tmp_path / "l")
    _same_files(tmp_path / "l", tmp_path / "s", "jsonl")


def test_relations_are_symmetric_on_the_executors(spark, corpus, tmp_path):
    """The input reversed, on the executors, against the input in order (on the local engine, whose
    answer the executors' is: the tests above): the same pairs of documents, and where the aligner
    gives a pair the same coverages (not always: which seed places it keeps depends on the order),
    ``contains`` and ``contained`` swapped with them, the others kept."""
    lines = corpus.read_text().splitlines(keepends=True)
    backward = tmp_path / "backward.jsonl"
    backward.write_text("".join(reversed(lines)))
    assert main(["dedup", str(corpus), "--quiet", "-o", str(tmp_path / "f")]) == 0
    assert main(["dedup", str(backward), "--quiet", "-o", str(tmp_path / "b"), *SPARK]) == 0

    def pairs(out: str) -> dict:
        rows = [json.loads(x) for x in (tmp_path / out / "pairs.jsonl").read_text().splitlines()]
        return {(r["a"], r["b"]): r for r in rows}

    forward, reverse = pairs("f"), pairs("b")
    swap = {"duplicate": "duplicate", "shares": "shares", "contains": "contained", "contained": "contains"}
    assert len(forward) == len(reverse) > 1000
    assert {r["relation"] for r in forward.values()} == set(swap)
    assert set(reverse) == {(b, a) for a, b in forward}
    same = [(p, reverse[(b, a)]) for (a, b), p in forward.items()
            if (reverse[(b, a)]["coverage_a"], reverse[(b, a)]["coverage_b"]) == (p["coverage_b"], p["coverage_a"])]
    assert len(same) > 0.9 * len(forward)
    assert all(q["relation"] == swap[p["relation"]] for p, q in same)
    assert {p["relation"] for p, _ in same} == set(swap)


def test_clusters_without_removals_write_the_local_parquet(spark, tmp_path):
    """Copies that no kept document covers enough to drop (75 of 120 words shared): clusters whose
    ``removed`` lists are all empty, which the local Parquet writer types as lists of nulls."""
    import random

    r = random.Random(1)
    vocab = [f"w{i}" for i in range(3000)]
    rows = []
    for k in range(4):
        a = [r.choice(vocab) for _ in range(120)]
        rows += [{"id": f"a{k}", "text": " ".join(a)},
                 {"id": f"b{k}", "text": " ".join(a[:75] + [r.choice(vocab) for _ in range(45)])}]
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps(row) + "\n" for row in rows))
    args = [str(docs), "--quiet", "--format", "parquet", "--method", "minhash", "--threshold", "0.3"]
    assert main(["dedup", *args, "-o", str(tmp_path / "l")]) == 0
    assert main(["dedup", *args, "-o", str(tmp_path / "s"), *SPARK]) == 0
    local = summary_of(tmp_path / "l")
    assert local["clusters"] == 4 and local["duplicates_removable"] == 0
    assert summary_of(tmp_path / "s") == local
    _same_files(tmp_path / "l", tmp_path / "s", "parquet")
