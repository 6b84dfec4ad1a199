"""Content extraction: turning an HTML page into the text that detection compares.

An extractor is a callable ``html -> text``; :data:`EXTRACTORS` names the ones there
are, so the pipeline picks one by name:

* ``none``: all visible text of the page, template included;
* ``heuristic``: CEDAR's MinBlock filter plus a link-density rule (:mod:`.heuristic`);
* ``model``: blocks labeled by the shipped CE-BEST model, a CRF over the page's blocks
  (:mod:`.model`); the default for HTML input.

:func:`extract` gives the title and body separately (:class:`Extracted`).

The machinery (HTML parser, kernels, model) is imported when a page is first extracted:
a job over plain text never loads it (10 ms and 14 kernels of every start-up otherwise).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any, Callable

from ..errors import UserError

Extractor = Callable[[str], str]


def _visible(html: str) -> str:
    """All visible text of the page (:func:`.visible.visible_text`)."""
    from .visible import visible_text

    return visible_text(html)


def _heuristic(html: str) -> str:
    """CEDAR's MinBlock filter (:func:`.extractor.heuristic_text`)."""
    from .extractor import heuristic_text

    return heuristic_text(html)


def _model(html: str) -> str:
    """The shipped CE-BEST model (:func:`.extractor.model_text`)."""
    from .extractor import model_text

    return model_text(html)


EXTRACTORS: dict[str, Extractor] = {
    "none": _visible,
    "heuristic": _heuristic,
    "model": _model,
}

DEFAULT_EXTRACTOR = "model"


def get_extractor(name: str) -> Extractor:
    """The extractor called ``name``."""
    try:
        return EXTRACTORS[name]
    except KeyError:
        raise UserError(f"unknown extractor {name!r}; choose from {', '.join(EXTRACTORS)}") from None


def __getattr__(name: str) -> Any:
    """``extract`` and ``Extracted``, from :mod:`.extractor` on first use (PEP 562)."""
    if name in ("extract", "Extracted"):
        return getattr(import_module(".extractor", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["DEFAULT_EXTRACTOR", "EXTRACTORS", "Extracted", "Extractor", "extract", "get_extractor"]
