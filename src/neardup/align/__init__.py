"""Seed-and-extend alignment: the passages two documents share, located, copy-edits bridged.

One algorithm serving several tasks: ``neardup partial`` (its default method), ``neardup
contain`` (coverage by aligned passages), ``dedup``'s relations, the online index's
``--partial`` and the Spark engine.  :mod:`.aligner` is the local engine of the stages
(:class:`~.aligner.Aligner`; :func:`~.aligner.align` for a list of texts), :mod:`.seeds`
the compiled kernel of each stage, which other engines run on their partitions.
"""
