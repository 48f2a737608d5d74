"""Synthetic data whose relevant features are known.

Maldonado, Carrizosa & Weber (2015), Section 4.1, test feature selection by appending noise
variables to data with a cluster structure: 10 or 100 irrelevant N(0, 1) variables, either
independent ("10u", "100u") or equicorrelated with pairwise correlation 0.3 ("10c", "100c"),
generated as ``sqrt(0.7) e_j + sqrt(0.3) g`` with one shared factor ``g``.
"""

from __future__ import annotations

import numpy as np

from fsclust.datasets.store import Dataset

__all__ = ["make_irrelevant_features", "make_blobs_with_irrelevant"]


def make_irrelevant_features(n_samples, n_features, correlation=0.0, random_state=None):
    """Draw N(0, 1) features with a common pairwise correlation ``rho``.

    Feature ``j`` is ``sqrt(rho) * g + sqrt(1 - rho) * e_j`` with ``g`` and ``e_j`` independent
    N(0, 1) vectors over the samples, so every feature is N(0, 1) and every pair has
    correlation ``rho``.

    Parameters
    ----------
    n_samples, n_features : int
    correlation : float in [0, 1]
        Pairwise correlation ``rho`` (0.3 for KP-Kmeans' "c" sets). A shared factor cannot
        produce a negative correlation, so negative values are refused.
    random_state : int, RandomState, Generator or None

    Returns
    -------
    ndarray of shape (n_samples, n_features)

    Examples
    --------
    >>> Z = make_irrelevant_features(20000, 3, correlation=0.3, random_state=0)
    >>> C = np.corrcoef(Z, rowvar=False)
    >>> bool(abs(C[0, 1] - 0.3) < 0.03)
    True
    """
    if not 0.0 <= correlation <= 1.0:
        raise ValueError(f"correlation must be in [0, 1], got {correlation}")
    rng = _generator(random_state)
    common = rng.standard_normal((n_samples, 1))
    own = rng.standard_normal((n_samples, n_features))
    return np.sqrt(correlation) * common + np.sqrt(1.0 - correlation) * own


def make_blobs_with_irrelevant(
    n_samples=150,
    n_clusters=3,
    n_relevant=2,
    n_irrelevant=10,
    correlation=0.0,
    cluster_std=1.0,
    center_distance=8.0,
    standardize_relevant=True,
    shuffle_features=False,
    random_state=0,
):
    """Gaussian clusters in a few relevant features, plus irrelevant N(0, 1) features.

    Parameters
    ----------
    n_samples : int
        Split as evenly as possible over the clusters; samples are ordered by cluster.
    n_clusters : int
    n_relevant : int
        Number of features that carry the clusters.
    n_irrelevant : int
        Number of noise features, drawn by :func:`make_irrelevant_features`.
    correlation : float
        Pairwise correlation of the irrelevant features (0.0 or 0.3 in KP-Kmeans).
    cluster_std : float
        Standard deviation of each cluster along every relevant feature.
    center_distance : float
        Smallest distance between two cluster centres, in units of ``cluster_std``. Centres are
        drawn N(0, I) in the relevant features and rescaled to this smallest distance, so the
        default 8 gives clusters that k-means separates without error on the relevant features.
    standardize_relevant : bool
        z-score the relevant features (DECISION, after KP-Kmeans Section 4.1: "relevant variables
        z-scored"), so relevant and irrelevant features have the same scale and no method can
        find the relevant ones by their variance alone.
    shuffle_features : bool
        Permute the columns; otherwise the relevant features come first. Either way
        ``relevant_features`` holds their column indices.
    random_state : int, RandomState, Generator or None

    Returns
    -------
    Dataset
        With ``y`` the cluster of each sample and ``relevant_features`` set.

    Examples
    --------
    >>> ds = make_blobs_with_irrelevant(n_samples=30, n_irrelevant=4, random_state=0)
    >>> ds.X.shape, ds.n_classes, ds.relevant_features
    ((30, 6), 3, [0, 1])
    """
    if n_clusters < 1 or n_relevant < 1:
        raise ValueError("n_clusters and n_relevant must be >= 1")
    if n_samples < n_clusters:
        raise ValueError(f"n_samples={n_samples} is smaller than n_clusters={n_clusters}")
    rng = _generator(random_state)
    sizes = np.full(n_clusters, n_samples // n_clusters)
    sizes[: n_samples % n_clusters] += 1
    y = np.repeat(np.arange(n_clusters), sizes)

    centers = rng.standard_normal((n_clusters, n_relevant))
    if n_clusters > 1:
        diff = centers[:, None, :] - centers[None, :, :]
        dist = np.sqrt((diff**2).sum(-1))[np.triu_indices(n_clusters, 1)]
        centers *= center_distance * cluster_std / dist.min()
    relevant = centers[y] + cluster_std * rng.standard_normal((n_samples, n_relevant))
    if standardize_relevant:
        relevant = (relevant - relevant.mean(0)) / relevant.std(0)
    irrelevant = make_irrelevant_features(n_samples, n_irrelevant, correlation, rng)

    X = np.hstack([relevant, irrelevant])
    names = [f"relevant_{j}" for j in range(n_relevant)] + [
        f"irrelevant_{j}" for j in range(n_irrelevant)
    ]
    order = rng.permutation(X.shape[1]) if shuffle_features else np.arange(X.shape[1])
    relevant_features = sorted(int(np.flatnonzero(order == j)[0]) for j in range(n_relevant))
    params = {
        "n_samples": n_samples,
        "n_clusters": n_clusters,
        "n_relevant": n_relevant,
        "n_irrelevant": n_irrelevant,
        "correlation": correlation,
        "cluster_std": cluster_std,
        "center_distance": center_distance,
        "standardize_relevant": standardize_relevant,
        "shuffle_features": shuffle_features,
        "random_state": (
            random_state if isinstance(random_state, int | None) else repr(random_state)
        ),
    }
    return Dataset(
        X=X[:, order],
        y=y,
        feature_names=[names[j] for j in order],
        sample_names=[f"sample_{i}" for i in range(n_samples)],
        class_names=[f"cluster_{k}" for k in range(n_clusters)],
        provenance={
            "source": "synthetic",
            "loader": "synthetic.make_blobs_with_irrelevant",
            "generator_params": params,
        },
        relevant_features=relevant_features,
    )


def _generator(random_state):
    # Accept a Generator as is; otherwise go through sklearn's check_random_state (int, None,
    # RandomState) and derive a Generator from it, so both kinds of seed work.
    if isinstance(random_state, np.random.Generator):
        return random_state
    # imported here: the data layer (a download or prepare job of a mirror file) needs no
    # scikit-learn, whose import (scipy.stats, pandas) was most of such a job's 3 s of CPU
    from sklearn.utils import check_random_state

    rs = check_random_state(random_state)
    return np.random.default_rng(rs.randint(np.iinfo(np.int32).max))
