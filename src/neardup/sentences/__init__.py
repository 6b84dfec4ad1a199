"""Sentences: one splitter for every sentence-level method, and sentence batches.

:func:`split_sentences` finds sentence spans (exact character offsets) in one text;
:class:`SentenceBatch` holds the sentences of many documents with their offsets and
token-level features computed by the one tokenizer (:mod:`neardup.text.tokenize`).
"""

from .batch import SentenceBatch
from .split import sentence_spans, split_sentences

__all__ = ["SentenceBatch", "sentence_spans", "split_sentences"]
