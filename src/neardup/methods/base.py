"""The interface every document-level detection method implements.

A method composes the pipeline's rooms: it turns texts into features, features into a
sketch it stores (streaming, batch by batch), proposes candidate pairs from an index
over the sketches, and scores pairs with its own similarity.  The pipeline
(:mod:`neardup.pipeline`) drives it the same way for every method::

    method.add(texts)            # per batch: features -> sketch; returns usable mask
                                 # (the pipeline: add_prepared(prepare(texts)), see prepare)
    method.finalize()            # corpus-level work (document frequencies, filters)
    a, b = method.candidate_pairs()   # index: pairs worth verifying, without all pairs
    s = method.score(a, b)       # verify: the method's similarity for given pairs

``score`` also serves the evaluation harness, which scores every pair.  Parameters are
set in ``__init__`` and never changed by the work (scikit-learn's habit), so
:meth:`get_params` reproduces a run.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Sequence, get_args, get_type_hints

import numpy as np

from ..errors import UserError


class Method(ABC):
    """A near-duplicate detection method over a growing collection of documents."""

    name: ClassVar[str]
    #: One line for ``neardup methods`` and the README.
    summary: ClassVar[str]
    #: Help text of each ``__init__`` parameter (the CLI makes an option of each).
    param_help: ClassVar[dict[str, str]] = {}
    #: Allowed values of the parameters that take one of a few.
    param_choices: ClassVar[dict[str, tuple[str, ...]]] = {}

    def __init__(self, threshold: float | None, seed: int) -> None:
        """``threshold`` None: the method sets it once it can, before it scores (andd: from its model)."""
        if threshold is not None and not 0.0 <= threshold <= 1.0:
            raise UserError(f"threshold must be between 0 and 1, got {threshold}")
        self.threshold = threshold
        self.seed = seed
        self.n_docs_ = 0

    def check_choices(self, **values: str) -> None:
        """Reject a parameter value that is not among the method's :attr:`param_choices`."""
        for name, value in values.items():
            allowed = self.param_choices[name]
            if value not in allowed:
                raise UserError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")

    def __len__(self) -> int:
        """Number of documents added."""
        return self.n_docs_

    def get_params(self) -> dict[str, Any]:
        """The parameters this method was built with (JSON-serializable)."""
        return {p.name: getattr(self, p.name) for p in method_params(type(self))}

    @abstractmethod
    def add(self, texts: Sequence[str]) -> np.ndarray:
        """Add a batch of documents; returns which of them have any feature at all."""

    def prepare(self, texts: Sequence[str]) -> Any:
        """The first part of :meth:`add`, the one that holds the interpreter (the GIL).

        ``add(texts)`` is ``add_prepared(prepare(texts))``.  The pipeline prepares a batch
        in its reading thread and adds it in its worker, so that the worker's compiled
        kernels do not wait for the GIL the reader holds.  By default nothing is prepared.
        """
        return texts

    def add_prepared(self, prepared: Any) -> np.ndarray:
        """:meth:`add` for what :meth:`prepare` returned."""
        return self.add(prepared)

    @property
    def learns(self) -> bool:
        """Whether the method learns from labeled clusters (:meth:`fit`); the evaluation
        harness then trains it on the development side of every split."""
        return False

    def fit(self, texts: Sequence[str], clusters: np.ndarray) -> None:
        """Learn from ``texts`` labeled with ``clusters`` (negative: a singleton), before any :meth:`add`."""
        raise NotImplementedError(f"method {self.name} does not learn")

    def finalize(self) -> None:
        """Corpus-level work once every document is added (nothing by default)."""

    @abstractmethod
    def candidate_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Index arrays ``(a, b)``, ``a < b``, of the pairs worth verifying."""

    @abstractmethod
    def score(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The method's similarity in [0, 1] of each pair ``(a[i], b[i])``."""



@dataclass(frozen=True)
class ParamSpec:
    """One parameter of a method: what the CLI, ``neardup methods`` and reports show."""

    name: str
    type: type
    default: Any
    help: str
    choices: tuple[str, ...] | None = None


def method_params(cls: type[Method]) -> list[ParamSpec]:
    """The parameters of ``cls.__init__`` with their types, defaults and help."""
    hints = get_type_hints(cls.__init__)
    specs = []
    for p in list(inspect.signature(cls.__init__).parameters.values())[1:]:
        kinds = [t for t in get_args(hints[p.name]) or (hints[p.name],) if t is not type(None)]
        specs.append(
            ParamSpec(p.name, kinds[0], p.default, cls.param_help.get(p.name, ""), cls.param_choices.get(p.name))
        )
    return specs
