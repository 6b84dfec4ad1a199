"""Shared fixtures: the shipped made-up articles and a small near-duplicate corpus."""

from __future__ import annotations

import os
import random
from importlib import resources
from pathlib import Path

import orjson
import pytest

from neardup.kernel_cache import use_source_keyed_cache

# The suite is a program too: numba's cache keyed by the kernel sources, as `neardup` keys it (the
# library leaves the environment alone); set before any kernel loads, and inherited by subprocesses.
use_source_keyed_cache()
# The suite runs where every machine starts empty (CI): a Spark driver JVM's class archive would be
# written at its exit and never mapped (engines/spark_classes.py); inherited by subprocesses.
os.environ.setdefault("NEARDUP_SPARK_ARCHIVE", "off")

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def load_articles() -> list[dict]:
    raw = resources.files("neardup").joinpath("data/articles.jsonl").read_bytes()
    return [orjson.loads(line) for line in raw.splitlines() if line.strip()]


def edit_words(text: str, rate: float, rng: random.Random) -> str:
    """Replace a share ``rate`` of the words of ``text`` by made-up words."""
    words = text.split()
    for i in rng.sample(range(len(words)), max(1, int(rate * len(words)))):
        words[i] = f"edit{rng.randrange(10**6)}"
    return " ".join(words)


@pytest.fixture(scope="session")
def articles() -> list[dict]:
    return load_articles()


@pytest.fixture(scope="session")
def corpus(articles) -> tuple[list[tuple[str, str]], set[tuple[str, str]]]:
    """Each article, two lightly edited copies of it; returns docs and the true pairs."""
    rng = random.Random(7)
    docs: list[tuple[str, str]] = []
    truth: set[tuple[str, str]] = set()
    for art in articles:
        group = [(art["id"], art["title"] + "\n\n" + art["text"])]
        for v in range(2):
            group.append((f"{art['id']}-copy{v}", edit_words(art["text"], 0.01, rng)))
        docs.extend(group)
        ids = [g[0] for g in group]
        truth.update((a, b) for i, a in enumerate(ids) for b in ids[i + 1 :])
    return docs, truth


def shared_data(*parts: str) -> Path:
    """A folder of ../shared/data, or skip the test when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not present")
    return path


@pytest.fixture(scope="session")
def spark_stopped_at_end():
    """The Spark session the Spark tests share (``spark_launch.session_fixture``), stopped after the run."""
    yield
    import sys

    if "pyspark" in sys.modules:
        from pyspark.sql import SparkSession

        active = SparkSession.getActiveSession()
        if active is not None:
            active.stop()
