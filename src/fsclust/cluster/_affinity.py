"""Affinity construction shared by the graph-based clusterers (private)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..graphs import knn_graph, rbf_affinity

AFFINITIES = ("rbf", "knn", "precomputed")


def _sklearn_seed(rng):
    """An int for a scikit-learn call, drawn from our generator (spec methods-baselines 0.4)."""
    return int(rng.randint(np.iinfo(np.int32).max))


def _check_n_clusters(n_clusters, n_samples):
    if not isinstance(n_clusters, (int, np.integer)) or isinstance(n_clusters, bool):
        raise TypeError(f"n_clusters must be an int, got {n_clusters!r}.")
    if n_clusters < 1:
        raise ValueError(f"n_clusters={n_clusters} must be >= 1.")
    if n_samples < n_clusters:
        raise ValueError(f"n_samples={n_samples} should be >= n_clusters={n_clusters}.")


def _build_affinity(X, affinity, t, t_rule, n_neighbors, weight="heat"):
    """Return ``(W, t_used)``; ``X`` are features, or the affinity itself when precomputed."""
    if affinity == "rbf":
        return rbf_affinity(X, t=t, t_rule=t_rule, return_bandwidth=True)
    if affinity == "knn":
        return knn_graph(
            X, n_neighbors=n_neighbors, t=t, t_rule=t_rule, weight=weight, return_bandwidth=True
        )
    if affinity == "precomputed":
        if X.shape[0] != X.shape[1]:
            raise ValueError(f"A precomputed affinity must be square, got shape {X.shape}.")
        W = sp.csr_matrix(X, dtype=np.float64, copy=True) if sp.issparse(X) else X.copy()
        if (W.min() if sp.issparse(W) else np.min(W)) < 0:
            raise ValueError("A precomputed affinity must be non-negative.")
        asym = abs(W - W.T).max()
        if asym > 1e-10 * max(abs(W).max(), np.finfo(float).tiny):
            raise ValueError("A precomputed affinity must be symmetric.")
        return W, None
    raise ValueError(f"affinity must be one of {AFFINITIES}, got {affinity!r}.")
