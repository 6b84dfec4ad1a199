"""PDC-MR (zhang2010): partial duplicates as runs of duplicate sentences.

``neardup partial --method pdc``: :class:`~.detector.PartialDetector` reads documents,
makes each sentence's signatures (:mod:`.signatures`) and runs the paper's three jobs
(:mod:`.stages`: index, sentence duplicates, sequence matching) over key/value records, the
stages another engine runs too.
"""
