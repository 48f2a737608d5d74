"""A seeded uniform random order of the features: the control every comparison needs."""

from __future__ import annotations

import numpy as np

from .base import FeatureRanker


class RandomRanking(FeatureRanker):
    """Rank the features in a uniformly random order drawn from ``random_state``.

    The scores are a random permutation of ``D, D-1, ..., 1`` (larger first), so every order
    of the features is equally likely and no two features tie. A method that does no better
    than this control at some number of selected features ``m`` has learnt nothing there.

    Decision: as for every ranker (:func:`~fsclust.rankers.base.ranking_from_scores`), the
    constant features go last; the order of the others is uniform. A constant column changes
    no distance, so the control is the random choice among the features that can matter.

    Parameters
    ----------
    n_features_to_select : int or None, default=None
        Number of top-ranked features kept by ``transform``; None keeps all.
    random_state : int, RandomState instance or None, default=None
        The draw of the order; an int gives the same order on every machine.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        A random permutation of ``n_features, ..., 1`` (float): the larger, the earlier.
    ranking_ : ndarray of shape (n_features,), int
        Rank of each feature, 1 = best (the position in ``feature_order_`` + 1).
    feature_order_ : ndarray of shape (n_features,), int
        Feature indices in the drawn order; constant features last.
    constant_mask_ : ndarray of shape (n_features,), bool
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.RandomState(0).rand(5, 4)
    >>> ranker = RandomRanking(n_features_to_select=2, random_state=0).fit(X)
    >>> sorted(ranker.feature_order_.tolist())
    [0, 1, 2, 3]
    >>> bool((ranker.feature_order_ == RandomRanking(random_state=0).fit(X).feature_order_).all())
    True
    >>> ranker.transform(X).shape
    (5, 2)
    """

    higher_is_better = True

    _parameter_constraints: dict = {
        **FeatureRanker._parameter_constraints,
        "random_state": ["random_state"],
    }

    def __init__(self, n_features_to_select=None, random_state=None):
        self.n_features_to_select = n_features_to_select
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # only the number of columns is read: a sparse input is never densified
        tags.ranker_tags.sparse_input = True
        return tags

    def _score(self, X, rng):
        # a permutation, not uniform draws: no ties, so the order is the draw, never the index
        return rng.permutation(np.arange(X.shape[1], 0, -1)).astype(np.float64)
