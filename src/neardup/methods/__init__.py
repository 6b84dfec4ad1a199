"""Detection methods, one module each, and the registry that names them.

A new method is a :class:`~neardup.methods.base.Method` subclass in its own module plus
one entry in :data:`REGISTRY`; the CLI, the pipeline and the evaluation harness find it
here.
"""

from __future__ import annotations

from typing import Any

from ..errors import UserError
from .andd import ANDDMethod
from .base import Method, ParamSpec, method_params
from .ffp import FullFingerprintMethod
from .imatch import IMatchMethod
from .minhash import MinHashMethod
from .simhash import SimHashMethod
from .spotsigs import SpotSigsMethod
from .wsample import WeightedSamplingMethod

#: The method ``dedup`` and ``eval`` use unless told otherwise: the most accurate at its defaults
#: on held-out news pages (docs/defaults.md, measured by bench/bench_defaults.py).
DEFAULT_METHOD = "ffp"

REGISTRY: dict[str, type[Method]] = {cls.name: cls for cls in (MinHashMethod, ANDDMethod, SpotSigsMethod, SimHashMethod, FullFingerprintMethod, IMatchMethod, WeightedSamplingMethod)}


def get_method_class(name: str) -> type[Method]:
    """The method class called ``name``."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise UserError(f"unknown method {name!r}; choose from {', '.join(sorted(REGISTRY))}") from None


def get_method(name: str, **params: Any) -> Method:
    """A new instance of the method called ``name`` with ``params``."""
    return get_method_class(name)(**params)


def method_defaults(name: str) -> dict[str, Any]:
    """The parameters of method ``name`` with their defaults."""
    return {p.name: p.default for p in method_params(REGISTRY[name])}


def all_params() -> dict[str, list[tuple[str, ParamSpec]]]:
    """Every parameter name of every method, with each method's spec of it."""
    found: dict[str, list[tuple[str, ParamSpec]]] = {}
    for name in sorted(REGISTRY):
        for spec in method_params(REGISTRY[name]):
            found.setdefault(spec.name, []).append((name, spec))
    return found
