"""The sentences of a batch of documents: offsets, texts and per-sentence token features.

Sentence-level methods need, for many documents at once, every sentence's character
span in its document (to report positions) and the sentence's tokens (to compare).
:class:`SentenceBatch` keeps the spans as flat arrays with per-document offsets (CSR)
and the sentence strings themselves, which feed the compiled tokenizer as a batch of
tiny "documents": a token never crosses a sentence boundary, so tokenizing sentences
one by one gives exactly the document's tokens, grouped by sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .split import sentence_spans


@dataclass(frozen=True)
class SentenceBatch:
    """Sentences of ``len(doc_offsets) - 1`` documents.

    Document ``d`` has sentences ``doc_offsets[d] : doc_offsets[d + 1]``; sentence ``s``
    is ``text_of_its_document[starts[s] : ends[s]]`` and ``texts[s]`` holds that string
    (``texts`` is empty when only the offsets are kept).
    """

    doc_offsets: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    texts: list[str]

    @classmethod
    def from_texts(cls, docs: Sequence[str]) -> "SentenceBatch":
        """Split every text of ``docs`` into sentences."""
        counts = np.zeros(len(docs), dtype=np.int64)
        spans: list[tuple[int, int]] = []
        texts: list[str] = []
        for d, text in enumerate(docs):
            found = sentence_spans(text)
            counts[d] = len(found)
            spans.extend(found)
            texts.extend(text[s:e] for s, e in found)
        offsets = np.zeros(len(docs) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        arr = np.array(spans, dtype=np.int64).reshape(-1, 2)
        return cls(offsets, arr[:, 0].copy(), arr[:, 1].copy(), texts)

    def __len__(self) -> int:
        return self.doc_offsets.shape[0] - 1

    @property
    def n_sentences(self) -> int:
        return self.starts.shape[0]

    def counts(self) -> np.ndarray:
        """Number of sentences of each document."""
        return np.diff(self.doc_offsets)

    def sentence_doc(self) -> np.ndarray:
        """The document (index in the batch) of each sentence."""
        return np.repeat(np.arange(len(self), dtype=np.int64), self.counts())
