"""Extraction on the shared labeled pages (skipped when ``../shared/data`` is absent).

These check that the corpora load and label correctly and guard against regressions of
the shipped model on real pages; they are not the evaluation (the shipped model was
trained on these pages: see ``neardup extract eval`` for site-grouped CV numbers).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from neardup.extract import EXTRACTORS
from neardup.extract.datasets import load
from neardup.extract.evaluate import text_scores
from neardup.extract.extractor import assemble
from neardup.extract.train import example

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "extraction"
L3S = DATA / "l3s-gn1"
MSV = DATA / "msv-news"
OTHERS = {"dragnet": 1381, "cleaneval": 739, "readability": 116, "cleanportaleval": 71}

pytestmark = pytest.mark.skipif(not (L3S.is_dir() and MSV.is_dir()), reason="shared extraction data not present")


@pytest.fixture(scope="module")
def pages():
    return load(L3S, MSV)


@pytest.mark.slow
def test_corpora_load_with_sites(pages):
    by = {ds: [p for p in pages if p.dataset == ds] for ds in ("l3s-gn1", "msv-news")}
    assert len(by["l3s-gn1"]) == 621 and len(by["msv-news"]) == 360
    assert all(p.gold.strip() for p in pages)
    msv_sites = {p.site for p in by["msv-news"]}
    assert {"bbc", "cnn", "forbes", "foxnews", "latimes", "nymag", "nypost", "yahoo", "arstechnica"} <= msv_sites
    assert len({p.site for p in by["l3s-gn1"]}) > 300


@pytest.mark.parametrize("dataset", ["l3s-gn1", "msv-news"])
def test_block_labels_reproduce_the_gold_text(pages, dataset):
    sample = [p for p in pages if p.dataset == dataset][::12]
    oracle = [assemble(ex.page, ex.labels).full_text() for ex in map(example, sample)]
    score = text_scores([p.gold for p in sample], oracle, [p.annotated is not None for p in sample])
    assert score.f1 > 0.97


@pytest.mark.slow
@pytest.mark.parametrize("dataset", ["l3s-gn1", "msv-news"])
def test_extractors_rank_on_real_pages(pages, dataset):
    sample = [p for p in pages if p.dataset == dataset][::10]
    golds, folded = [p.gold for p in sample], [p.annotated is not None for p in sample]
    f1 = {name: text_scores(golds, [EXTRACTORS[name](p.html) for p in sample], folded).f1
          for name in ("none", "heuristic", "model")}
    assert f1["none"] < 0.75 < f1["heuristic"] < f1["model"]
    assert f1["model"] > 0.93


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(OTHERS))
def test_gold_standard_collections_load_and_label(name):
    if not (DATA / name).is_dir():
        pytest.skip(f"{name} not present")
    pages = load(DATA / name)
    assert len(pages) == OTHERS[name]
    assert sum(bool(p.gold.strip()) for p in pages) >= 0.98 * len(pages)
    assert not any("COMMENTS" in p.gold and "!@" in p.gold for p in pages)  # Dragnet's comments cut off
    assert not any(p.gold.lstrip().startswith(("URL:", "<div")) for p in pages)  # markers and markup gone
    assert len({p.site for p in pages}) >= 4
    sample = pages[::15]
    oracle = [assemble(ex.page, ex.labels).full_text() for ex in map(example, sample)]
    assert text_scores([p.gold for p in sample], oracle, [False] * len(sample)).f1 > 0.9
