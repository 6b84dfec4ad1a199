"""Learned representations for near-duplicate detection (ANDD, Hajishirzi et al. 2010)."""

from .andd import FEATURES, SIMILARITIES, ANDDModel, QueryFrequencies, featurize, fit

__all__ = ["FEATURES", "SIMILARITIES", "ANDDModel", "QueryFrequencies", "featurize", "fit"]
