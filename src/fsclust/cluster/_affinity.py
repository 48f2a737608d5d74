"""Affinity construction shared by the graph-based clusterers (private)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from sklearn.utils import check_array

from ..graphs import heat_affinity, knn_graph, squared_distances

AFFINITIES = ("rbf", "knn", "precomputed")


def _sklearn_seed(rng):
    """An int for a scikit-learn call, drawn from our generator (never numpy's global state)."""
    return int(rng.randint(np.iinfo(np.int32).max))


def _check_n_clusters(n_clusters, n_samples):
    if not isinstance(n_clusters, (int, np.integer)) or isinstance(n_clusters, bool):
        raise TypeError(f"n_clusters must be an int, got {n_clusters!r}.")
    if n_clusters < 1:
        raise ValueError(f"n_clusters={n_clusters} must be >= 1.")
    if n_samples < n_clusters:
        raise ValueError(f"n_samples={n_samples} should be >= n_clusters={n_clusters}.")


def _check_sq_distances(sq_distances, n_samples):
    """Validate squared distances given to ``fit`` in place of computing them from ``X``."""
    D2 = check_array(sq_distances, dtype=np.float64, input_name="sq_distances")
    if D2.shape != (n_samples, n_samples):
        raise ValueError(
            f"sq_distances must have shape ({n_samples}, {n_samples}) for {n_samples} samples, "
            f"got {D2.shape}."
        )
    if D2.min(initial=0.0) < 0:
        raise ValueError("sq_distances must be non-negative.")
    return D2


def _build_affinity(X, affinity, t, t_rule, n_neighbors, weight="heat", sq_distances=None):
    """Return ``(W, t_used)``; ``X`` are features, or the affinity itself when precomputed.

    ``sq_distances``: the squared distances between the rows of ``X`` when the caller already
    has them (``affinity="rbf"`` only); otherwise they are computed here from ``X`` with
    :func:`fsclust.graphs.squared_distances`. Either way the graph comes from
    :func:`fsclust.graphs.heat_affinity`, so the same distances give the same graph.
    """
    if sq_distances is not None and affinity != "rbf":
        raise ValueError(
            f"sq_distances can only be used with affinity='rbf', not affinity={affinity!r}."
        )
    if affinity == "rbf":
        if sq_distances is None:
            D2 = squared_distances(X)
        else:
            D2 = _check_sq_distances(sq_distances, X.shape[0])
        return heat_affinity(D2, t=t, t_rule=t_rule, return_bandwidth=True)
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
