"""Detection methods, one module each, and the registry that names them.

A new method is a :class:`~neardup.methods.base.Method` subclass in its own module plus
one entry in :data:`REGISTRY`; the CLI, the pipeline and the evaluation harness find it
here.
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, get_args, get_type_hints

import numpy as np

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
    """A new instance of the method called ``name`` with ``params`` (each of its declared type)."""
    cls = get_method_class(name)
    check_types(cls, params)
    return cls(**params)


#: The checks of the plain parameter types (a number of numpy's passes; a bool is not a number).
_TYPE_CHECKS: dict[Any, Callable[[Any], bool]] = {
    int: lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool),
    float: lambda v: isinstance(v, numbers.Real) and not isinstance(v, bool),
    bool: lambda v: isinstance(v, (bool, np.bool_)),
    str: lambda v: isinstance(v, str),
    type(None): lambda v: v is None,
}


def check_types(cls: type[Method], params: dict[str, Any]) -> None:
    """Refuse a parameter whose value is not of its declared type, naming it: through the API,
    ``threshold="0.8"`` or ``seed="a"`` failed deep in a run with a ``TypeError``.  Parameters of
    other declared types (paths, sequences) are left to the method's own checks."""
    hints = get_type_hints(cls.__init__)
    for name, value in params.items():
        allowed = get_args(hints.get(name)) or (hints.get(name),)
        checks = [_TYPE_CHECKS.get(t) for t in allowed]
        if None in checks or any(c(value) for c in checks if c is not None):
            continue
        kinds = " or ".join("None" if t is type(None) else t.__name__ for t in allowed)
        raise UserError(f"method {cls.name}: {name} must be {kinds}, got {value!r}")


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
