"""Collection statistics: document frequencies of words and phrases, shared by methods."""

from .df import DocumentFrequencies

__all__ = ["DocumentFrequencies"]
