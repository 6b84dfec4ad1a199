"""Evaluation of near-duplicate detection against ground truth."""
