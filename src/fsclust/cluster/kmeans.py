"""k-means (Lloyd), a thin wrapper of scikit-learn that pins the defaults that changed."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import KMeans as _SklearnKMeans
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from ._affinity import _check_n_clusters, _sklearn_seed


class KMeans(ClusterMixin, BaseEstimator):
    """k-means clustering with Lloyd's algorithm and an explicit number of restarts.

    A wrapper of :class:`sklearn.cluster.KMeans` that always passes ``n_init`` (its default
    changed from 10 to ``"auto"``, i.e. one run with k-means++, in scikit-learn 1.4) and
    ``algorithm="lloyd"``, so numbers do not move with the installed version.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters ``c``.
    init : {"k-means++", "random"}, default="k-means++"
        ``"random"`` with ``n_init=1`` is the "single-start k-means" of MATLAB-era code
        (``c`` random samples as initial centres).
    n_init : int, default=10
        Number of restarts; the run with the lowest inertia is kept.
    max_iter : int, default=300
    tol : float, default=1e-4
        Relative tolerance on the centre shift (scikit-learn's definition).
    random_state : int, RandomState instance or None, default=None
        An int for scikit-learn is drawn from ``check_random_state(random_state)``.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each sample, in ``0..c-1``.
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
    inertia_ : float
        Sum of squared distances of the samples to their centre.
    n_iter_ : int
        Iterations of the best run.
    n_features_in_ : int

    References
    ----------
    Lloyd (1982), "Least squares quantization in PCM", IEEE Trans. Inf. Theory 28;
    Arthur & Vassilvitskii (2007), "k-means++", SODA. ``n_init``
    is always passed: scikit-learn's default changed from 10 to "auto" in 1.4.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> labels = KMeans(n_clusters=2, random_state=0).fit_predict(X)
    >>> bool(labels[0] == labels[1] != labels[2] == labels[3])
    True
    """

    def __init__(
        self, n_clusters=8, *, init="k-means++", n_init=10, max_iter=300, tol=1e-4,
        random_state=None,
    ):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, y=None):
        """Cluster the rows of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Ignored

        Returns
        -------
        self : KMeans
        """
        X = validate_data(self, X, dtype=np.float64)
        _check_n_clusters(self.n_clusters, X.shape[0])
        rng = check_random_state(self.random_state)
        self._kmeans = _SklearnKMeans(
            n_clusters=self.n_clusters,
            init=self.init,
            n_init=self.n_init,
            max_iter=self.max_iter,
            tol=self.tol,
            algorithm="lloyd",
            random_state=_sklearn_seed(rng),
        ).fit(X)
        self.labels_ = self._kmeans.labels_.astype(np.intp, copy=False)
        self.cluster_centers_ = self._kmeans.cluster_centers_
        self.inertia_ = float(self._kmeans.inertia_)
        self.n_iter_ = int(self._kmeans.n_iter_)
        return self

    def predict(self, X):
        """Index of the nearest centre for each row of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        labels : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._kmeans.predict(X).astype(np.intp, copy=False)
