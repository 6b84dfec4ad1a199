"""The interface every document-level detection method implements.

A method composes the pipeline's rooms: it turns texts into features, features into a
sketch it stores (streaming, batch by batch), proposes candidate pairs from an index
over the sketches, and scores pairs with its own similarity.  The pipeline
(:mod:`neardup.pipeline`) drives it the same way for every method::

    method.add(texts)            # per batch: features -> sketch; returns usable mask
    method.finalize()            # corpus-level work (document frequencies, filters)
    a, b = method.candidate_pairs()   # index: pairs worth verifying, without all pairs
    s = method.score(a, b)       # verify: the method's similarity for given pairs

``score`` also serves the evaluation harness, which scores every pair.  Parameters are
set in ``__init__`` and never changed by the work (scikit-learn's habit), so
:meth:`get_params` reproduces a run.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Sequence

import numpy as np


class Method(ABC):
    """A near-duplicate detection method over a growing collection of documents."""

    name: ClassVar[str]
    #: One line for ``neardup methods`` and the README.
    summary: ClassVar[str]

    def __init__(self, threshold: float, seed: int) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be between 0 and 1, got {threshold}")
        self.threshold = threshold
        self.seed = seed

    def get_params(self) -> dict[str, Any]:
        """The parameters this method was built with (JSON-serializable)."""
        return {k: v for k, v in vars(self).items() if not k.startswith("_") and not k.endswith("_")}

    @abstractmethod
    def add(self, texts: Sequence[str]) -> np.ndarray:
        """Add a batch of documents; returns which of them have any feature at all."""

    def finalize(self) -> None:
        """Corpus-level work once every document is added (nothing by default)."""

    @abstractmethod
    def candidate_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Index arrays ``(a, b)``, ``a < b``, of the pairs worth verifying."""

    @abstractmethod
    def score(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The method's similarity in [0, 1] of each pair ``(a[i], b[i])``."""

    def __len__(self) -> int:
        return int(self.n_docs_)

    n_docs_: int = 0
