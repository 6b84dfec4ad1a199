"""Learned representations for near-duplicate detection (ANDD, Hajishirzi et al. 2010)."""

from .andd import FEATURES, SIMILARITIES, ANDDModel, QueryFrequencies, featurize
from .training import OBJECTIVES, fit

__all__ = ["FEATURES", "OBJECTIVES", "SIMILARITIES", "ANDDModel", "QueryFrequencies", "featurize", "fit"]
