"""Detection methods, one module each, and the registry that names them.

A new method is a :class:`~neardup.methods.base.Method` subclass in its own module plus
one entry in :data:`REGISTRY`; the CLI, the pipeline and the evaluation harness find it
here.
"""

from __future__ import annotations

import inspect
from typing import Any

from .base import Method
from .minhash import MinHashMethod

REGISTRY: dict[str, type[Method]] = {cls.name: cls for cls in (MinHashMethod,)}


def get_method(name: str, **params: Any) -> Method:
    """A new instance of the method called ``name`` with ``params``."""
    try:
        cls = REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}; choose from {', '.join(sorted(REGISTRY))}") from None
    return cls(**params)


def method_defaults(name: str) -> dict[str, Any]:
    """The parameters of method ``name`` with their defaults."""
    sig = inspect.signature(REGISTRY[name].__init__)
    return {p.name: p.default for p in list(sig.parameters.values())[1:]}
