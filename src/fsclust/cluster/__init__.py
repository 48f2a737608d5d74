"""Clustering algorithms used to evaluate selected features."""

from .kernel_kmeans import KernelKMeans
from .kmeans import KMeans
from .llc import LLC
from .ncut import NormalizedCut
from .spectral import SpectralClustering
from .tags import ClustererTags, distance_space

__all__ = [
    "KMeans", "KernelKMeans", "LLC", "NormalizedCut", "SpectralClustering", "ClustererTags",
    "distance_space",
]
