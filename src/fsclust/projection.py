"""PCA projection: feature extraction at a given dimensionality (a baseline, not a selector)."""

from __future__ import annotations

import numpy as np
from sklearn.decomposition import PCA

from .graphs import canonical_sign_flip


def pca_projection(X, n_components):
    """Project the centred data on its top principal axes.

    Used as Zhang et al.'s (2012, Table 2) "PCA using the same feature dimensionality as
    FRCM": ``m`` is the number of features FRCM's rule selected. With ``m >= n - 1`` the
    projection keeps every pairwise distance (k-means on it equals k-means on all features),
    so the number of axes is ``min(m, n - 1, D)`` (decision: the paper does not say), at least 1.

    Parameters
    ----------
    X : array-like of shape (n, D)
    n_components : int
        ``m``.

    Returns
    -------
    Z : ndarray of shape (n, min(m, n - 1, D))

    References
    ----------
    Zhang, Wong, Shen & Xie (2012), IEEE/ACM TCBB 9(5), Table 2;
    ``sklearn.decomposition.PCA`` with ``svd_solver="full"`` (deterministic LAPACK SVD).

    Examples
    --------
    >>> X = np.random.RandomState(0).rand(10, 50)
    >>> pca_projection(X, 337).shape
    (10, 9)
    """
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    m = max(1, min(int(n_components), n - 1, d))
    return canonical_sign_flip(PCA(n_components=m, svd_solver="full").fit_transform(X))
