"""Clustering algorithms used to evaluate selected features (spec methods-baselines 11)."""

from .kmeans import KMeans
from .ncut import NormalizedCut
from .spectral import SpectralClustering

__all__ = ["KMeans", "NormalizedCut", "SpectralClustering"]
