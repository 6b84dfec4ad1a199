"""Content extraction: turning an HTML page into the text that detection compares.

An extractor is a callable ``html -> text``; :data:`EXTRACTORS` names the ones there
are, so the pipeline picks one by name:

* ``none``: all visible text of the page, template included;
* ``heuristic``: CEDAR's MinBlock filter plus a link-density rule (:mod:`.heuristic`);
* ``model``: blocks labeled by the shipped CE-BEST model, a CRF over the page's blocks
  (:mod:`.model`); the default for HTML input.

:func:`extract` gives the title and body separately (:class:`Extracted`).
"""

from __future__ import annotations

from typing import Callable

from ..errors import UserError
from .extractor import Extracted, extract, heuristic_text, model_text
from .visible import visible_text

Extractor = Callable[[str], str]

EXTRACTORS: dict[str, Extractor] = {
    "none": visible_text,
    "heuristic": heuristic_text,
    "model": model_text,
}

DEFAULT_EXTRACTOR = "model"


def get_extractor(name: str) -> Extractor:
    """The extractor called ``name``."""
    try:
        return EXTRACTORS[name]
    except KeyError:
        raise UserError(f"unknown extractor {name!r}; choose from {', '.join(EXTRACTORS)}") from None


__all__ = ["DEFAULT_EXTRACTOR", "EXTRACTORS", "Extracted", "Extractor", "extract", "get_extractor"]
