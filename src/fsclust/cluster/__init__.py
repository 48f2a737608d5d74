"""Clustering algorithms used to evaluate selected features.

The names below are imported from their module on first use (:mod:`fsclust._lazy`).
"""

from fsclust._lazy import lazy_exports

# public name -> the module that defines it
_EXPORTS = {
    "KernelKMeans": "kernel_kmeans",
    "KMeans": "kmeans",
    "LLC": "llc",
    "leiden_labels": "leiden",
    "NormalizedCut": "ncut",
    "SpectralClustering": "spectral",
    "ClustererTags": "tags",
    "distance_space": "tags",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)
