"""Learned representations for near-duplicate detection (ANDD, Hajishirzi et al. 2010)."""

from .andd import FEATURES, ANDDModel, featurize, fit

__all__ = ["FEATURES", "ANDDModel", "featurize", "fit"]
