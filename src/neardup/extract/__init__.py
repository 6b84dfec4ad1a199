"""Content extraction: turning an HTML page into the text that detection compares.

An extractor is a callable ``html -> text``; :data:`EXTRACTORS` names the ones there
are, so the pipeline picks one by name and later extractors (learned block
classifiers) plug in without touching it.
"""

from __future__ import annotations

from typing import Callable

from .visible import visible_text

Extractor = Callable[[str], str]

EXTRACTORS: dict[str, Extractor] = {"visible": visible_text}


def get_extractor(name: str) -> Extractor:
    """The extractor called ``name``."""
    try:
        return EXTRACTORS[name]
    except KeyError:
        raise ValueError(f"unknown extractor {name!r}; choose from {', '.join(EXTRACTORS)}") from None
