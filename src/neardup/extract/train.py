"""Training the block classifiers from labeled pages.

:func:`examples` turns labeled pages (:mod:`.datasets`) into labeled block sequences:
annotated pages are split on their annotated copy and labeled from the annotations,
pages with gold text are split as crawled and labeled by matching blocks to the gold
text.  :func:`fit` trains CE-SIMPLE (``logreg``: scikit-learn's logistic regression on
the block's words) or CE-BEST (``crf``: python-crfsuite's L-BFGS linear-chain CRF on
the rich features) and returns a :class:`~.model.BlockModel` that needs neither library
to run.  Hyper-parameters were fixed without the evaluation corpora: the CRF's
regularization (L1 0.1 and L2 1.0; a weaker L2 let rare features such as a neighbour's
tag take large weights) was chosen on pages of neardup's syndication simulator, a
development set of its own.  Training is deterministic: the same pages and seed give
the same weights.

The models learn from :func:`training_labels`: the gold labels with credit lines (rights
notices, agency credits, bylines, bare timestamps: :func:`.credits.credit_lines`) made not
content.  The collections' gold disagrees on them (most call them boilerplate; CleanEval and
Readability keep some bylines and blog timestamps, Dragnet some bylines) and the extractor
drops them anyway, so the model is not taught to keep a block for a reason it cannot see (its
features hold no words).  Scoring (:mod:`.evaluate`) still uses the gold as it is.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import zlib
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Sequence

import numpy as np

from ..errors import UserError
from .blocks import Page, page_blocks
from .credits import credit_lines
from .datasets import LabeledPage, labels_from_gold, load
from .features import (
    FEATURES_VERSION,
    FEATURIZERS,
    BlockStats,
    FeatureRows,
    block_stats,
)
from .model import BlockModel

CRF_PARAMS = {"c1": 0.1, "c2": 1.0, "max_iterations": 150, "pages_per_collection": 400}
"""``pages_per_collection``: a CRF trains on at most this many pages of each collection (a
seeded sample), so that no collection's idea of content -- Dragnet has 1,381 pages, the
Readability tests 116 -- outweighs the others, and training stays within minutes."""
LOGREG_PARAMS = {"C": 1.0, "max_iter": 1000}


@dataclass
class Example:
    """One page's blocks, their gold labels and text statistics, with the page's site."""

    id: str
    dataset: str
    site: str
    page: Page
    labels: np.ndarray
    stats: BlockStats


def example(lp: LabeledPage) -> Example:
    """Blocks and labels of one labeled page."""
    if lp.labeled is not None:
        page, labels = lp.labeled
    else:
        page = page_blocks(lp.html)
        labels = labels_from_gold(page.texts, lp.gold)
    return Example(lp.id, lp.dataset, lp.site, page, labels, block_stats(page))


def training_labels(ex: Example) -> np.ndarray:
    """The labels a model learns from: the gold labels, credit lines of the shapes the shipped model learned
    from (:data:`.credits.LEARNED`) not content; the shapes widened after it are dropped after the model only,
    so that its training input, and the fold models of ``bench/bench_extract.py``, stay the same."""
    return ex.labels & ~credit_lines(ex.page.texts, ex.stats.regex_words, learned=True)


def examples(pages: Sequence[LabeledPage]) -> list[Example]:
    """:func:`example` of every page."""
    return [example(lp) for lp in pages]


def _rows(examples: Sequence[Example], features: str) -> list[FeatureRows]:
    return [FEATURIZERS[features](ex.page, ex.stats) for ex in examples]


def train_logreg(examples: Sequence[Example], seed: int = 0, **params: float) -> BlockModel:
    """CE-SIMPLE: logistic regression on the words of each block."""
    from scipy.sparse import vstack
    from sklearn.linear_model import LogisticRegression

    params = {**LOGREG_PARAMS, **params}
    rows = _rows(examples, "words")
    x = vstack([r.csr() for r in rows]).tocsr()
    y = np.concatenate([training_labels(ex) for ex in examples]).astype(int)
    clf = LogisticRegression(C=params["C"], max_iter=int(params["max_iter"]), solver="liblinear",
                             fit_intercept=False, random_state=seed)
    clf.fit(x, y)
    coef = clf.coef_[0]
    cols = np.flatnonzero(coef)
    weights = np.column_stack((np.zeros(len(cols)), coef[cols]))
    return BlockModel("logreg", "words", cols, weights, None, _meta(examples, "logreg", seed, params))


def balanced(examples: Sequence[Example], cap: int, seed: int = 0) -> list[Example]:
    """At most ``cap`` examples of each collection (``Example.dataset``), in their order.

    A collection's sample depends only on its own pages, ``cap`` and ``seed`` (the
    generator is seeded with the CRC-32 of its name), not on which others are present.
    """
    by: dict[str, list[int]] = {}
    for i, ex in enumerate(examples):
        by.setdefault(ex.dataset, []).append(i)
    keep: list[int] = []
    for name, idx in by.items():
        if len(idx) > cap:
            rng = np.random.default_rng([seed, zlib.crc32(name.encode("utf-8"))])
            idx = sorted(rng.choice(idx, cap, replace=False).tolist())
        keep.extend(idx)
    return [examples[i] for i in sorted(keep)]


def train_crf(examples: Sequence[Example], seed: int = 0, **params: float) -> BlockModel:
    """CE-BEST: a linear-chain CRF over each page's blocks with the rich features
    (on a :func:`balanced` sample of at most ``pages_per_collection`` pages per collection)."""
    import pycrfsuite

    params = {**CRF_PARAMS, **params}
    examples = balanced(examples, int(params["pages_per_collection"]), seed)
    trainer = pycrfsuite.Trainer(verbose=False)
    for ex, rows in zip(examples, _rows(examples, "rich")):
        if rows.n:
            trainer.append(pycrfsuite.ItemSequence(rows.dicts()), ["1" if y else "0" for y in training_labels(ex)])
    trainer.set_params({"c1": params["c1"], "c2": params["c2"], "max_iterations": int(params["max_iterations"]),
                        "feature.possible_transitions": True})
    fd, path = tempfile.mkstemp(suffix=".crfsuite")
    os.close(fd)
    try:
        trainer.train(path)
        tagger = pycrfsuite.Tagger()
        tagger.open(path)
        info = tagger.info()
        tagger.close()
    finally:
        os.unlink(path)
    state: dict[int, np.ndarray] = {}
    for (attr, label), w in info.state_features.items():
        state.setdefault(int(attr), np.zeros(2))[int(label)] = w
    cols = np.array(sorted(state), dtype=np.int64)
    weights = np.array([state[c] for c in cols.tolist()], dtype=np.float64).reshape(-1, 2)
    trans = np.zeros((2, 2))
    for (a, b), w in info.transitions.items():
        trans[int(a), int(b)] = w
    return BlockModel("crf", "rich", cols, weights, trans, _meta(examples, "crf", seed, params))


TRAINERS = {"crf": train_crf, "logreg": train_logreg}


def fit(examples: Sequence[Example], kind: str = "crf", seed: int = 0, **params: float) -> BlockModel:
    """Train a ``kind`` model (``crf`` or ``logreg``) on ``examples``."""
    if kind not in TRAINERS:
        raise UserError(f"unknown model kind {kind!r}; choose from {', '.join(TRAINERS)}")
    return TRAINERS[kind](examples, seed=seed, **params)


def fit_key(examples: Sequence[Example], kind: str = "crf", seed: int = 0, **params: float) -> str:
    """A digest of everything :func:`fit` learns from: this module's code, the trainer library's
    version, ``kind``, ``seed``, the parameters and, per page the trainer sees, its feature rows
    and training labels -- so a change to the features, the labels or the trainer gives a new key."""
    if kind not in TRAINERS:
        raise UserError(f"unknown model kind {kind!r}; choose from {', '.join(TRAINERS)}")
    defaults = CRF_PARAMS if kind == "crf" else LOGREG_PARAMS
    params = {**defaults, **params}
    seen = balanced(examples, int(params["pages_per_collection"]), seed) if kind == "crf" else list(examples)
    library = {"crf": "python-crfsuite", "logreg": "scikit-learn"}[kind]
    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(json.dumps([kind, seed, params, version(library), FEATURES_VERSION], sort_keys=True).encode())
    for ex, rows in zip(seen, _rows(seen, "rich" if kind == "crf" else "words")):
        for array in (*rows.triplets(), training_labels(ex)):
            digest.update(np.ascontiguousarray(array).tobytes())
        digest.update(str(rows.n).encode())
    return digest.hexdigest()


def fit_cached(examples: Sequence[Example], kind: str = "crf", seed: int = 0, cache: str | Path | None = None,
               **params: float) -> BlockModel:
    """:func:`fit`, or with a ``cache`` folder the model an earlier call fitted on the same input
    (:func:`fit_key`), saved there with exact weights: evaluating a change made after the model
    (the extractor's rules) then needs no retraining, and labels as a fresh fit would."""
    if cache is None:
        return fit(examples, kind, seed, **params)
    path = Path(cache) / f"{kind}-{fit_key(examples, kind, seed, **params)[:32]}.npz"
    if path.exists():
        return BlockModel.load(path)
    model = fit(examples, kind, seed, **params)
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(path, exact=True)
    return model


def _meta(examples: Sequence[Example], kind: str, seed: int, params: dict) -> dict:
    datasets: dict[str, int] = {}
    for ex in examples:
        datasets[ex.dataset] = datasets.get(ex.dataset, 0) + 1
    library = {"crf": "python-crfsuite", "logreg": "scikit-learn"}[kind]
    return {
        "model": {"crf": "CE-BEST", "logreg": "CE-SIMPLE"}[kind],
        "trainer": f"{library} {version(library)}",
        "params": params,
        "seed": seed,
        "pages": len(examples),
        "sites": len({ex.site for ex in examples}),
        "blocks": int(sum(len(ex.labels) for ex in examples)),
        "content_blocks": int(sum(int(ex.labels.sum()) for ex in examples)),
        "credit_lines_relabeled": int(sum(int((ex.labels & ~training_labels(ex)).sum()) for ex in examples)),
        "datasets": datasets,
        "neardup": version("neardup"),
    }


def train(data: Sequence[str | Path], out: str | Path, kind: str = "crf", seed: int = 0) -> BlockModel:
    """Train on the labeled pages under ``data``; save the model to ``out`` and a note beside it.

    The note (``out`` with suffix ``.json``) says how the model was made: data folders,
    page/site/block counts, model kind, parameters, seed and library versions.
    """
    model = fit(examples(load(*data)), kind, seed)
    names = [Path(d).name for d in data]
    model.meta["data"] = names
    model.meta["command"] = f"neardup extract train {' '.join(names)} -o {Path(out).name} --kind {kind} --seed {seed}"
    model.save(out)
    meta = {**model.meta, "kind": model.kind, "features": model.features, "features_version": FEATURES_VERSION,
            "nonzero_weights": len(model.cols)}
    Path(out).with_suffix(".json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return model
