"""The one list of method and clusterer names.

A name maps to ``"module:Class"`` plus default parameters. Classes are imported lazily, so a new
method is one module under ``fsclust.rankers`` (or ``fsclust.cluster``) and one line here.
"""

from __future__ import annotations

import importlib
import inspect

# name -> (import path, default parameters that define this preset)
RANKERS = {
    "variance": ("fsclust.rankers.variance:VarianceScore", {}),
    "laplacian": ("fsclust.rankers.laplacian:LaplacianScore", {}),
    "frcm": ("fsclust.rankers.frcm:FRCM", {}),
    "uff": ("fsclust.rankers.uff:UFF", {}),
    "frmv": ("fsclust.rankers.frmv:FRMV", {}),
    "kernel_weighting": ("fsclust.rankers.kernel_weighting:KernelWeightingClustering", {}),
    "kpkmeans": ("fsclust.rankers.kpkmeans:KPKMeans", {}),
    "pca": ("fsclust.rankers.pca:PCARanking", {}),
    "gha": ("fsclust.rankers.gha:GHA", {}),
    "spec": ("fsclust.rankers.spec:SPEC", {}),
    "mcfs": ("fsclust.rankers.mcfs:MCFS", {}),
    # Zeng & Cheung 2009: feature weights tau learned with a local learning clustering
    "llcfs": ("fsclust.rankers.llcfs:LLCFS", {}),
    # Wolf & Shashua 2005, the global counterpart LLC-fs is compared with
    "qalpha": ("fsclust.rankers.qalpha:QAlpha", {}),
    # Jiang & Ren 2011: eigenvector sensitivity for the spectral clustering of one Laplacian
    "evsfsc": ("fsclust.rankers.evsfsc:EVSFSC", {}),
    # Mitra, Murthy & Pal 2002: feature similarity (MICI), exact subsets per size
    "fsfs": ("fsclust.rankers.fsfs:FSFS", {}),
}

CLUSTERERS = {
    "kmeans": ("fsclust.cluster.kmeans:KMeans", {}),
    "ncut": ("fsclust.cluster.ncut:NormalizedCut", {}),
    # von Luxburg's three spectral clusterings; "njw" is Ng-Jordan-Weiss (L_sym, rows normalised)
    "spectral-unnormalized": ("fsclust.cluster.spectral:SpectralClustering", {"laplacian": "unnormalized"}),
    "spectral-rw": ("fsclust.cluster.spectral:SpectralClustering", {"laplacian": "rw"}),
    "njw": ("fsclust.cluster.spectral:SpectralClustering", {"laplacian": "sym"}),
    # kernel k-means (hand-written), Gaussian sigma = 1 on Maldonado et al. 2015's "normalized data"
    "kernel_kmeans": ("fsclust.cluster.kernel_kmeans:KernelKMeans", {}),
    # local learning based clustering (Wu & Schölkopf), linear kernel, mutual neighbours
    "llc": ("fsclust.cluster.llc:LLC", {}),
}


class UnknownNameError(ValueError):
    """A method, clusterer or parameter name that the registry does not know."""


def _import(path):
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def _lookup(table, kind, name):
    try:
        return table[name]
    except KeyError:
        valid = ", ".join(sorted(table))
        raise UnknownNameError(f"unknown {kind} {name!r}; valid {kind}s: {valid}") from None


def ranker_class(name):
    """Return the class registered as ranker ``name``."""
    return _import(_lookup(RANKERS, "method", name)[0])


def clusterer_class(name):
    """Return the class registered as clusterer ``name``."""
    return _import(_lookup(CLUSTERERS, "clusterer", name)[0])


def _build(table, kind, name, params, n_clusters, random_state):
    path, defaults = _lookup(table, kind, name)
    cls = _import(path)
    accepted = set(inspect.signature(cls.__init__).parameters) - {"self"}
    kwargs = dict(defaults)
    unknown = sorted(set(params or {}) - accepted)
    if unknown:
        raise UnknownNameError(
            f"{kind} {name!r} ({cls.__name__}) has no parameter(s) {', '.join(unknown)}; "
            f"valid parameters: {', '.join(sorted(accepted))}"
        )
    kwargs.update(params or {})
    # The workflow knows k and the seed; pass them only to estimators that take them.
    if n_clusters is not None and "n_clusters" in accepted:
        kwargs.setdefault("n_clusters", int(n_clusters))
    if random_state is not None and "random_state" in accepted:
        kwargs.setdefault("random_state", int(random_state))
    return cls(**kwargs)


def make_ranker(name, params=None, *, n_clusters=None, random_state=None):
    """Instantiate ranker ``name`` with ``params``, k and a seed where the class takes them.

    Examples
    --------
    >>> make_ranker("laplacian", {"n_neighbors": 7}).n_neighbors
    7
    >>> make_ranker("nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fsclust.registry.UnknownNameError: unknown method 'nope'; valid methods: ..., laplacian, ...
    """
    return _build(RANKERS, "method", name, params, n_clusters, random_state)


def make_clusterer(name, params=None, *, n_clusters=None, random_state=None):
    """Instantiate clusterer ``name`` with ``params``, k and a seed."""
    return _build(CLUSTERERS, "clusterer", name, params, n_clusters, random_state)


def method_names():
    """Names of the registered feature-ranking methods."""
    return sorted(RANKERS)


def clusterer_names():
    """Names of the registered clusterers."""
    return sorted(CLUSTERERS)
