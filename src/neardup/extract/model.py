"""Learned block classifiers: CE-SIMPLE (logistic regression) and CE-BEST (linear-chain CRF).

Both are linear in the sparse block features of :mod:`.features`, so one class,
:class:`BlockModel`, holds either: a weight per (feature column, label) and, for the
CRF, a 2x2 label-transition matrix.  With two labels only score differences matter, so
prediction computes one margin per block (one ``bincount``) and, for the CRF, decodes
the best label sequence with Viterbi (compiled).  The training libraries (scikit-learn,
python-crfsuite) are needed only to train (:mod:`.train`); a trained model is plain
arrays in an ``.npz`` file (no pickle), loaded with numpy alone.
"""

from __future__ import annotations

import json
import zipfile
import zlib
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import numpy as np
from numba import njit

from ..errors import UserError
from .blocks import Page
from .features import FEATURE_SETS, FEATURES_VERSION, FEATURIZERS, LAYOUTS, BlockStats
from ..io.writers import atomic_file

KINDS = ("crf", "logreg")
DEFAULT_MODEL = "extract-model-v2.npz"
"""The trained CE-BEST model shipped in ``neardup/data`` (how it was made: the .json beside it)."""


@njit(cache=True)
def viterbi(unary: np.ndarray, trans: np.ndarray) -> np.ndarray:
    """Most likely label sequence for ``unary[i, label]`` and ``trans[from, to]`` scores."""
    n, k = unary.shape
    out = np.zeros(n, dtype=np.int64)
    if n == 0:
        return out
    back = np.zeros((n, k), dtype=np.int64)
    score = unary[0].copy()
    new = np.empty(k)
    for i in range(1, n):
        for b in range(k):
            best, arg = score[0] + trans[0, b], 0
            for a in range(1, k):
                s = score[a] + trans[a, b]
                if s > best:
                    best, arg = s, a
            new[b] = best + unary[i, b]
            back[i, b] = arg
        score[:] = new
    out[n - 1] = np.argmax(score)
    for i in range(n - 1, 0, -1):
        out[i - 1] = back[i, out[i]]
    return out


@dataclass
class BlockModel:
    """A linear block classifier over one feature set.

    ``cols`` are the feature columns with a weight, ``weights[j]`` their scores for
    labels (not content, content); ``transitions`` is set for a CRF.
    """

    kind: str
    features: str
    cols: np.ndarray
    weights: np.ndarray
    transitions: np.ndarray | None = None
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise UserError(f"unknown model kind {self.kind!r}; choose from {', '.join(KINDS)}")
        if self.features not in FEATURE_SETS:
            raise UserError(f"unknown feature set {self.features!r}")
        # Only score differences matter for two labels: one weight per column.
        self._margin = np.zeros(LAYOUTS[self.features].size, dtype=np.float64)
        self._margin[self.cols] = self.weights[:, 1] - self.weights[:, 0]

    def margins(self, page: Page, stats: BlockStats | None = None) -> np.ndarray:
        """Per block, score(content) - score(not content)."""
        return FEATURIZERS[self.features](page, stats).dot(self._margin)

    def predict(self, page: Page, stats: BlockStats | None = None) -> np.ndarray:
        """Content labels (bool) of the blocks of ``page``."""
        if len(page) == 0:
            return np.zeros(0, dtype=bool)
        margin = self.margins(page, stats)
        if self.transitions is None:
            return margin > 0
        unary = np.column_stack((np.zeros(len(margin)), margin))
        return viterbi(unary, self.transitions).astype(bool)

    def save(self, path: str | Path, exact: bool = False) -> None:
        """Write the model as an ``.npz`` of plain arrays (metadata as a JSON string); weights as
        float32, or with ``exact`` as float64 (a cached model that must label as the fitted one)."""
        meta = {**self.meta, "kind": self.kind, "features": self.features, "features_version": FEATURES_VERSION}
        real = np.float64 if exact else np.float32
        arrays = {"cols": self.cols.astype(np.int32), "weights": self.weights.astype(real),
                  "meta": np.array(json.dumps(meta, sort_keys=True))}
        if self.transitions is not None:
            arrays["transitions"] = self.transitions.astype(real)
        with atomic_file(path) as tmp, open(tmp, "wb") as fh:
            np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]  # the stub matches **arrays to allow_pickle

    @classmethod
    def load(cls, path: str | Path) -> BlockModel:
        """Read a model written by :meth:`save`; refuses one made for other features."""
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                arrays = {k: data[k] for k in ("cols", "weights", "transitions") if k in data}
        except (OSError, EOFError, KeyError, ValueError, zipfile.BadZipFile, zlib.error) as exc:
            raise UserError(f"{path}: not a neardup extraction model ({exc})") from None
        if not isinstance(meta, dict):
            raise UserError(f"{path}: not a neardup extraction model (its metadata is not a JSON object)")
        if meta.get("features_version") != FEATURES_VERSION:
            raise UserError(
                f"{path}: model made for block features v{meta.get('features_version')}, "
                f"this neardup computes v{FEATURES_VERSION}; retrain it"
            )
        try:  # a tampered file: arrays of the wrong shape or type, columns out of range, weights not finite
            cols, weights = arrays["cols"], arrays["weights"]
            if cols.ndim != 1 or cols.dtype.kind not in "iu" or weights.shape != (cols.shape[0], 2):
                raise ValueError(f"cols of shape {cols.shape}, weights of shape {weights.shape}")
            trans = arrays["transitions"].astype(np.float64) if "transitions" in arrays else None
            if trans is not None and trans.shape != (2, 2):
                raise ValueError(f"transitions of shape {trans.shape}")
            if not np.isfinite(weights.astype(np.float64)).all() or (trans is not None and not np.isfinite(trans).all()):
                raise ValueError("weights that are not finite numbers")
            return cls(meta["kind"], meta["features"], cols.astype(np.int64), weights.astype(np.float64), trans, meta)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise UserError(f"{path}: not a neardup extraction model, or damaged ({type(exc).__name__}: {exc})") from None


def default_model_path() -> Traversable:
    """The shipped model file (a traversable inside the installed package)."""
    return resources.files("neardup").joinpath("data", DEFAULT_MODEL)


def load_default() -> BlockModel:
    """The shipped CE-BEST model."""
    with resources.as_file(default_model_path()) as path:
        return BlockModel.load(path)
