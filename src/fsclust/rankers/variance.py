"""Variance score: the simplest unsupervised ranking, a reference point for the others."""

from __future__ import annotations

import numpy as np

from .base import FeatureRanker


class VarianceScore(FeatureRanker):
    """Rank features by their variance ``var(f_r) = mean((f_r - mean(f_r))^2)``, larger first.

    Parameters
    ----------
    n_features_to_select : int or None, default=None
        Number of top-ranked features kept by ``transform``; None keeps all.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Population variance (``ddof=0``) of each feature.
    ranking_ : ndarray of shape (n_features,), int
        Rank of each feature, 1 = best (the position in ``feature_order_`` + 1).
    feature_order_ : ndarray of shape (n_features,), int
        Feature indices, largest variance first; constant features last.
    constant_mask_ : ndarray of shape (n_features,), bool
    n_features_in_ : int

    References
    ----------
    He, Cai & Niyogi (2005), "Laplacian Score for Feature Selection", NIPS, section 4 (the
    "Variance" baseline: maximum variance, the unsupervised Fisher-type criterion).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0, 5.0], [0.0, 3.0, 5.5], [0.0, 5.0, 6.0]])
    >>> selector = VarianceScore(n_features_to_select=2).fit(X)
    >>> selector.feature_order_
    array([1, 2, 0])
    >>> selector.ranking_
    array([3, 1, 2])
    >>> selector.transform(X).shape
    (3, 2)
    """

    higher_is_better = True

    def __init__(self, n_features_to_select=None):
        self.n_features_to_select = n_features_to_select

    def _score(self, X, rng):
        return np.var(X, axis=0)
