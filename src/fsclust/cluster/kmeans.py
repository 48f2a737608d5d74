"""k-means (Lloyd), a thin wrapper of scikit-learn that pins the defaults that changed, with
MATLAB's online phase as an option."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.cluster import KMeans as _SklearnKMeans
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .affinity import CLUSTERER_PARAMETERS, check_n_clusters, sklearn_seed


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
    online_phase : bool, default=False
        After the batch (Lloyd) passes, move single samples between clusters while a move
        lowers the sum of squared errors, as MATLAB's ``kmeans`` does by default
        (``'OnlinePhase', 'on'``): the k-means the MATLAB-era papers ran (with ``init="random"``,
        MATLAB's ``'Start', 'sample'``). See :func:`online_phase`. With ``n_init > 1`` every
        restart gets its own online phase and the lowest final SSE is kept, as MATLAB's
        ``'Replicates'``.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each sample, in ``0..c-1``.
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
    inertia_ : float
        Sum of squared distances of the samples to their centre.
    n_iter_ : int
        Lloyd iterations of the best run.
    n_moves_ : int
        Single-sample moves of its online phase (0 without one).
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

    _parameter_constraints: dict = {
        **CLUSTERER_PARAMETERS,
        "init": [StrOptions({"k-means++", "random"})],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "online_phase": ["boolean"],
    }

    def __init__(
        self, n_clusters=8, *, init="k-means++", n_init=10, max_iter=300, tol=1e-4,
        random_state=None, online_phase=False,
    ):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.online_phase = online_phase

    @_fit_context(prefer_skip_nested_validation=True)
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
        check_n_clusters(self.n_clusters, X.shape[0])
        rng = check_random_state(self.random_state)
        if not self.online_phase:
            self._kmeans = self._batch(self.n_init, sklearn_seed(rng)).fit(X)
            self.labels_ = self._kmeans.labels_.astype(np.intp, copy=False)
            self.cluster_centers_ = self._kmeans.cluster_centers_
            self.inertia_ = float(self._kmeans.inertia_)
            self.n_iter_ = int(self._kmeans.n_iter_)
            self.n_moves_ = 0
            return self
        best = None
        # one seed per restart, the first the one a batch-only fit uses
        for _ in range(int(self.n_init)):
            batch = self._batch(1, sklearn_seed(rng)).fit(X)
            labels, centers, sse, moves = online_phase(
                X, batch.labels_, self.n_clusters, max_moves=self.max_iter * X.shape[0])
            if best is None or sse < best[3]:
                best = (batch, labels, centers, sse, moves)
        self._kmeans, self.labels_, self.cluster_centers_, self.inertia_, self.n_moves_ = best
        # predict() finds the nearest of the online phase's centres
        self._kmeans.cluster_centers_ = self.cluster_centers_
        self.n_iter_ = int(self._kmeans.n_iter_)
        return self

    def _batch(self, n_init, seed):
        return _LeanSeedingKMeans(
            n_clusters=self.n_clusters,
            init=self.init,
            n_init=n_init,
            max_iter=self.max_iter,
            tol=self.tol,
            algorithm="lloyd",
            random_state=seed,
        )

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


class _LeanSeedingKMeans(_SklearnKMeans):
    """scikit-learn's k-means, its k-means++ seeding computed without its per-call checks.

    On small data the seeding is most of a fit: ``2 + ln c`` candidate distances for each of
    the ``c`` centres of each restart, and each call of scikit-learn's distance helper spends
    about 0.3 ms finding the array namespace and checking its input (60 % of a 10-restart fit
    of 165 x 15 at c = 15; a spectral clustering's discretisation, a selector's hundreds of
    subsample fits). :func:`_kmeans_plusplus` makes the same operations on the same arrays in
    the same order, so the centres, and every fit, are scikit-learn's bit for bit
    (tests/test_cluster.py compares them); another init, sparse or float32 data go to
    scikit-learn's own."""

    def _init_centroids(self, X, x_squared_norms, init, random_state, sample_weight,
                        init_size=None, n_centroids=None):
        if (isinstance(init, str) and init == "k-means++" and init_size is None
                and n_centroids is None and not sp.issparse(X) and X.dtype == np.float64):
            return _kmeans_plusplus(X, self.n_clusters, x_squared_norms, sample_weight,
                                    random_state)
        return super()._init_centroids(X, x_squared_norms, init, random_state, sample_weight,
                                       init_size=init_size, n_centroids=n_centroids)


def _squared_distances_to(A, X, X_squared_norms):
    """``||a_i - x_j||^2`` for the rows of ``A`` against those of ``X`` (float64, dense), as
    scikit-learn's ``_euclidean_distances(A, X, Y_norm_squared=..., squared=True)`` computes
    them: ``-2 A X^T + |a|^2 + |x|^2``, clipped at 0."""
    distances = -2 * (A @ X.T)
    distances += np.einsum("ij,ij->i", A, A)[:, None]
    distances += X_squared_norms
    np.maximum(distances, 0, out=distances)
    return distances


def _kmeans_plusplus(X, n_clusters, x_squared_norms, sample_weight, random_state):
    """The k-means++ seeding of scikit-learn's ``sklearn.cluster._kmeans._kmeans_plusplus``
    (greedy, ``2 + ln c`` candidates per centre) on dense float64 ``X``, the same draws from
    ``random_state`` and the same arithmetic; returns the centres."""
    n_samples, n_features = X.shape
    centers = np.empty((n_clusters, n_features), dtype=X.dtype)
    n_local_trials = 2 + int(np.log(n_clusters))
    center_id = random_state.choice(n_samples, p=sample_weight / sample_weight.sum())
    centers[0] = X[center_id]
    norms = np.reshape(x_squared_norms, (1, -1))
    closest_dist_sq = _squared_distances_to(centers[0, np.newaxis], X, norms)
    current_pot = closest_dist_sq @ sample_weight
    for c in range(1, n_clusters):
        # candidates drawn with probability proportional to the distance to the closest centre
        rand_vals = random_state.uniform(size=n_local_trials) * current_pot
        candidate_ids = np.searchsorted(np.cumsum(sample_weight * closest_dist_sq), rand_vals)
        np.clip(candidate_ids, None, closest_dist_sq.size - 1, out=candidate_ids)
        distance_to_candidates = _squared_distances_to(X[candidate_ids], X, norms)
        np.minimum(closest_dist_sq, distance_to_candidates, out=distance_to_candidates)
        candidates_pot = distance_to_candidates @ sample_weight.reshape(-1, 1)
        best = np.argmin(candidates_pot)
        current_pot = candidates_pot[best]
        closest_dist_sq = distance_to_candidates[best]
        centers[c] = X[candidate_ids[best]]
    return centers


def online_phase(X, labels, n_clusters, *, max_moves=None):
    """MATLAB's k-means online phase: single-sample moves that lower the SSE, to a local minimum.

    Starting from a partition (the batch phase's), repeatedly take the next sample, in cyclic
    order after the last one moved, that has a move to another cluster lowering the sum of
    squared errors, and move it there (to the cluster of largest decrease); update both centres
    and stop when no single move lowers the SSE. Moving ``x`` from cluster ``a`` (``n_a``
    members, centre ``c_a``) to ``b`` changes the SSE by (MATLAB's ``Del``)

    ``n_b / (n_b + 1) ||x - c_b||^2 - n_a / (n_a - 1) ||x - c_a||^2``;

    a singleton never moves (it would empty its cluster), an empty cluster receives no sample,
    and a tie means no move. A move must lower the SSE by more than ``1e-12`` of the total
    sum of squares, so round-off never makes samples cycle.

    Parameters
    ----------
    X : ndarray of shape (n, D)
    labels : array-like of shape (n,), int in ``0..n_clusters-1``
    n_clusters : int
    max_moves : int or None
        Stop after so many moves (MATLAB stops at ``MaxIter`` passes: pass ``max_iter * n``).

    Returns
    -------
    labels : ndarray of shape (n,), int
    centers : ndarray of shape (n_clusters, D)
        Means of the final clusters (zeros for an empty one).
    sse : float
    n_moves : int

    References
    ----------
    MATLAB ``kmeans`` (Statistics Toolbox, 2006-2012 releases), its "online update" phase;
    Duda, Hart & Stork (2001), "Pattern Classification", section 10.8.3 (the move criterion).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [3.0], [3.0], [5.0], [11.0]])
    >>> # {0 | 3, 3, 5, 11} is a Lloyd fixed point (3 is nearer 5.5 than 0), SSE 43
    >>> labels, centers, sse, moves = online_phase(X, [0, 1, 1, 1, 1], 2)
    >>> labels.tolist(), sse, moves
    ([0, 0, 0, 0, 1], 12.75, 3)
    """
    X = np.asarray(X, dtype=np.float64)
    labels = np.array(labels, dtype=np.intp, copy=True)
    n, k = X.shape[0], int(n_clusters)
    counts = np.bincount(labels, minlength=k).astype(np.float64)
    sums = np.zeros((k, X.shape[1]))
    np.add.at(sums, labels, X)
    total = float(((X - X.mean(axis=0)) ** 2).sum())
    tol = 1e-12 * max(total, np.finfo(float).tiny)
    delta = np.empty((n, k))

    def update(j):
        # the SSE change of adding each sample to cluster j, or removing each member from it
        if counts[j] == 0:
            delta[:, j] = np.inf
            return
        d2 = ((X - sums[j] / counts[j]) ** 2).sum(axis=1)
        member = labels == j
        factor = np.where(member, counts[j] / max(counts[j] - 1.0, 1.0),
                          counts[j] / (counts[j] + 1.0))
        if counts[j] == 1:
            factor[member] = 0.0  # a singleton: leaving would empty the cluster
        delta[:, j] = factor * d2

    for j in range(k):
        update(j)
    rows = np.arange(n)
    last, moves = -1, 0
    limit = np.inf if max_moves is None else int(max_moves)
    while moves < limit:
        own = delta[rows, labels]
        target = np.argmin(delta, axis=1)
        gain = own - delta[rows, target]
        candidates = np.flatnonzero(gain > tol)
        if candidates.size == 0:
            break
        i = candidates[np.argmin((candidates - last - 1) % n)]
        a, b = labels[i], target[i]
        labels[i] = b
        counts[a] -= 1
        counts[b] += 1
        sums[a] -= X[i]
        sums[b] += X[i]
        update(a)
        update(b)
        last, moves = i, moves + 1
    centers = np.zeros_like(sums)
    filled = counts > 0
    centers[filled] = sums[filled] / counts[filled, None]
    sse = float(((X - centers[labels]) ** 2).sum())
    return labels, centers, sse, moves
