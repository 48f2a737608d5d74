"""What the clusterers share: the affinity graph of the graph-based ones, the squared distances
their ``fit`` accepts, the check of ``n_clusters`` against the data and the seeds they pass on.

Feature rankers that cluster (LLC-fs, Q-alpha, kernel weighting, KP-Kmeans) and the consensus
functions import these too.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array
from sklearn.utils._param_validation import Interval, StrOptions

from ..graphs import BANDWIDTH_RULES, heat_affinity, knn_graph, squared_distances
from .tags import clusterer_tags

AFFINITIES = ("rbf", "knn", "precomputed")

#: Constraints of the parameters every clusterer takes (scikit-learn's ``_parameter_constraints``).
CLUSTERER_PARAMETERS = {
    "n_clusters": [Interval(Integral, 1, None, closed="left")],
    "random_state": ["random_state"],
}

#: Constraints of the graph parameters of :func:`build_affinity`.
GRAPH_PARAMETERS = {
    "affinity": [StrOptions(set(AFFINITIES))],
    "t": [Interval(Real, 0, None, closed="neither"), None],
    "t_rule": [StrOptions(set(BANDWIDTH_RULES))],
    "n_neighbors": [Interval(Integral, 1, None, closed="left")],
}


def sklearn_seed(rng):
    """An int for a scikit-learn call, drawn from our generator (never numpy's global state)."""
    return int(rng.randint(np.iinfo(np.int32).max))


def check_n_clusters(n_clusters, n_samples):
    """Refuse more clusters than samples, or a number of clusters that is not an int >= 1."""
    # The type and lower bound repeat the clusterers' constraints for the rankers that cluster
    # and call this without declaring n_clusters in _parameter_constraints yet.
    if not isinstance(n_clusters, Integral) or isinstance(n_clusters, bool):
        raise TypeError(f"n_clusters must be an int, got {n_clusters!r}.")
    if not 1 <= n_clusters <= n_samples:
        raise ValueError(
            f"n_clusters={n_clusters} must be between 1 and n_samples={n_samples}; ask for "
            "fewer clusters or give more samples."
        )


def check_sq_distances(sq_distances, n_samples):
    """Validate squared distances given to ``fit`` in place of computing them from ``X``."""
    D2 = check_array(sq_distances, dtype=np.float64, input_name="sq_distances")
    if D2.shape != (n_samples, n_samples):
        raise ValueError(
            f"sq_distances must have shape ({n_samples}, {n_samples}) for {n_samples} samples, "
            f"got {D2.shape}; pass the squared distances between the rows of X."
        )
    if D2.min(initial=0.0) < 0:
        raise ValueError("sq_distances must be non-negative; pass squared Euclidean distances.")
    return D2


def build_affinity(X, affinity, t, t_rule, n_neighbors, weight="heat", sq_distances=None):
    """Return ``(W, t_used)``; ``X`` are features, or the affinity itself when precomputed.

    ``sq_distances``: the squared distances between the rows of ``X`` when the caller already
    has them (``affinity="rbf"`` only); otherwise they are computed here from ``X`` with
    :func:`fsclust.graphs.squared_distances`. Either way the graph comes from
    :func:`fsclust.graphs.heat_affinity`, so the same distances give the same graph.
    """
    if sq_distances is not None and affinity != "rbf":
        raise ValueError(
            f"sq_distances can only be used with affinity='rbf', not affinity={affinity!r}; "
            "leave sq_distances out."
        )
    if affinity == "rbf":
        if sq_distances is None:
            D2 = squared_distances(X)
        else:
            D2 = check_sq_distances(sq_distances, X.shape[0])
        return heat_affinity(D2, t=t, t_rule=t_rule, return_bandwidth=True)
    if affinity == "knn":
        return knn_graph(
            X, n_neighbors=n_neighbors, t=t, t_rule=t_rule, weight=weight, return_bandwidth=True
        )
    if affinity == "precomputed":
        if X.shape[0] != X.shape[1]:
            raise ValueError(f"A precomputed affinity must be square, got shape {X.shape}; "
                             "pass W, or the features with affinity='rbf' or 'knn'.")
        W = sp.csr_matrix(X, dtype=np.float64, copy=True) if sp.issparse(X) else X.copy()
        if (W.min() if sp.issparse(W) else np.min(W)) < 0:
            raise ValueError("A precomputed affinity must be non-negative; pass similarities, "
                             "not distances.")
        asym = abs(W - W.T).max()
        if asym > 1e-10 * max(abs(W).max(), np.finfo(float).tiny):
            raise ValueError("A precomputed affinity must be symmetric; pass (W + W.T) / 2.")
        return W, None
    raise ValueError(f"affinity must be one of {AFFINITIES}, got {affinity!r}.")


def graph_clusterer_tags(tags, affinity):
    """Tags of a clusterer of the graph :func:`build_affinity` makes with ``affinity``.

    A precomputed affinity is a square, possibly sparse, input; the RBF graph is a function of
    the squared distances between the features as given, so ``fit`` accepts those.
    """
    tags.input_tags.pairwise = affinity == "precomputed"
    tags.input_tags.sparse = affinity == "precomputed"
    return clusterer_tags(tags, sq_distance_space="none" if affinity == "rbf" else None)
