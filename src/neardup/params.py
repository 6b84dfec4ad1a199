"""Parameter objects: scikit-learn's convention, shared by every method and every located task.

A parameter object's ``__init__`` stores each argument under its own name, validates it
(cheap checks that raise :class:`~neardup.errors.UserError` with a clear message) and does
nothing else: no file is read, nothing is derived and kept, no run state is set up.  What a
run needs from the parameters (a statistics file loaded, a window parsed, stopwords hashed)
is made when the run starts and lives in that run's state.  So :meth:`Params.get_params` is
what the object was built with, :meth:`Params.clone` builds the same object again (with
changes), and two runs of one object never see each other's state.

Used by :class:`~neardup.methods.base.Method` (the document-level methods),
:class:`~neardup.contain.detector.ContainmentDetector` and
:class:`~neardup.pdc.detector.PartialDetector`.
"""

from __future__ import annotations

import inspect
from typing import Any, Self


class Params:
    """Parameters stored as given; :meth:`get_params` and :meth:`clone` read them back."""

    @classmethod
    def param_names(cls) -> list[str]:
        """The names of ``__init__``'s parameters, in order (each one an attribute of the object)."""
        return [p.name for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
                if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]

    def get_params(self) -> dict[str, Any]:
        """The parameters this object was built with."""
        return {name: getattr(self, name) for name in self.param_names()}

    def clone(self, **changes: Any) -> Self:
        """A new object with the same parameters (and ``changes``), without any run's or fit's state."""
        return type(self)(**{**self.get_params(), **changes})

    def __repr__(self) -> str:
        """The class and the parameters that differ from their defaults, as a call that builds it."""
        given = inspect.signature(type(self).__init__).parameters
        changed = {k: v for k, v in self.get_params().items() if not _same(given[k].default, v)}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in changed.items())})"


def _same(default: Any, value: Any) -> bool:
    """``value`` is the parameter's default (arrays and odd types compare as different)."""
    if default is value:
        return True
    try:
        return type(default) is type(value) and bool(default == value)
    except (TypeError, ValueError):
        return False
