"""Kernel k-means (Dhillon, Guan & Kulis 2004), hand-written: scikit-learn has none."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import validate_data

# the scalings live with the other distance helpers; KernelKMeans and the sweep share them
from ..graphs import SCALINGS, scale_features, scaled_sq_distances, squared_distances
from .affinity import CLUSTERER_PARAMETERS, check_n_clusters, check_sq_distances
from .tags import clusterer_tags

KERNELS = ("rbf", "linear", "precomputed")

# Relative margin below which a sample keeps its current cluster (ties never move a sample,
# so a constant kernel or exact duplicates cannot make the iteration cycle).
_TIE = 1e-12


def gaussian_kernel(X, sigma=1.0):
    """``K_ab = exp(-||x_a - x_b||^2 / (2 sigma^2))`` with unit diagonal (a kernel, not a graph).

    Examples
    --------
    >>> gaussian_kernel(np.array([[0.0], [1.0]])).round(4)
    array([[1.    , 0.6065],
           [0.6065, 1.    ]])
    """
    return _gaussian_from_sq_distances(squared_distances(X), sigma)


def _gaussian_from_sq_distances(D2, sigma):
    return np.exp(-D2 / (2.0 * float(sigma) ** 2))


def one_hot(labels, n_clusters):
    """The assignment matrix ``Z`` (n, c): ``Z_ik = 1`` when sample ``i`` is in cluster ``k``.

    Examples
    --------
    >>> one_hot(np.array([1, 0, 1]), 2)
    array([[0., 1.],
           [1., 0.],
           [0., 1.]])
    """
    Z = np.zeros((labels.shape[0], n_clusters))
    Z[np.arange(labels.shape[0]), labels] = 1.0
    return Z


def centroid_distances(K, labels, n_clusters, diag=None):
    """Squared feature-space distance of every sample to every cluster centroid.

    ``dist(i, k) = K_ii - 2 (K Z)_ik / N_k + (Z^T K Z)_kk / N_k^2`` (Maldonado et al. 2015
    eq. (13)), with ``Z`` the one-hot assignment and ``N_k`` the cluster sizes; ``inf`` for an
    empty cluster.

    Parameters
    ----------
    K : ndarray of shape (n, n)
    labels : ndarray of shape (n,), int in ``0..n_clusters-1``
    n_clusters : int
    diag : ndarray of shape (n,), default=None
        ``K_ii``; taken from ``K`` when None.

    Returns
    -------
    dist : ndarray of shape (n, n_clusters)
    """
    Z = one_hot(labels, n_clusters)
    sizes = Z.sum(axis=0)
    KZ = K @ Z
    within = np.einsum("ik,ik->k", Z, KZ)
    diag = np.diag(K) if diag is None else diag
    with np.errstate(divide="ignore", invalid="ignore"):
        dist = diag[:, None] - 2.0 * KZ / sizes + within / sizes**2
    dist[:, sizes == 0] = np.inf
    return dist


def _fill_empty(dist, labels, n_clusters):
    """Move into each empty cluster the sample farthest from its own centroid.

    Decision (Dhillon, Guan & Kulis 2004 do not treat empty clusters): the sample the current
    partition fits worst starts the new cluster."""
    for k in range(n_clusters):
        counts = np.bincount(labels, minlength=n_clusters)
        if counts[k] > 0:
            continue
        own = dist[np.arange(labels.shape[0]), labels].copy()
        own[counts[labels] <= 1] = -np.inf  # never empty another cluster
        labels[int(np.argmax(own))] = k
    return labels


def kernel_kmeans(K, n_clusters, *, init_labels=None, init_centers=None, max_iter=300,
                  random_state=None):
    """One run of kernel k-means from given labels, given centre samples or random centres.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric kernel matrix.
    n_clusters : int
    init_labels : ndarray of shape (n,), default=None
        Warm start from this partition.
    init_centers : array-like of c sample indices, default=None
        Initial centres ``phi(x_s)``: sample ``i`` starts in the cluster of the centre with the
        smallest ``K_ii - 2 K_is + K_ss``. When both inits are None, ``c`` distinct samples are
        drawn with ``random_state`` ("random initialization of cluster centroids",
        Maldonado et al. 2015 Algorithm 1).
    max_iter : int, default=300
    random_state : int, RandomState or None

    Returns
    -------
    labels : ndarray of shape (n,)
    energy : float
        ``sum_i dist(i, labels_i)``, the within-cluster energy.
    n_iter : int
    energy_history : list of float
        Energy after each assignment step; non-increasing.
    """
    n = K.shape[0]
    diag = np.diag(K).copy()
    if init_labels is not None:
        labels = np.asarray(init_labels, dtype=np.intp).copy()
    else:
        if init_centers is None:
            init_centers = check_random_state(random_state).choice(n, n_clusters, replace=False)
        centers = np.asarray(init_centers, dtype=np.intp)
        dist0 = diag[:, None] - 2.0 * K[:, centers] + diag[centers][None, :]
        labels = np.argmin(dist0, axis=1).astype(np.intp)
    if np.bincount(labels, minlength=n_clusters).min() == 0:
        labels = _fill_empty(centroid_distances(K, labels, n_clusters, diag), labels, n_clusters)
    rows = np.arange(n)
    Z = one_hot(labels, n_clusters)
    # K Z is updated with the columns of the samples that moved only: after the first
    # iterations few samples move, so an iteration costs O(n * moved) instead of O(n^2 c)
    KZ = K @ Z

    def distances():
        sizes = Z.sum(axis=0)
        within = np.einsum("ik,ik->k", Z, KZ)
        with np.errstate(divide="ignore", invalid="ignore"):
            dist = diag[:, None] - 2.0 * KZ / sizes + within / sizes**2
        dist[:, sizes == 0] = np.inf
        return dist

    history = []
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        dist = distances()
        current = dist[rows, labels]
        history.append(float(current.sum()))
        best = np.argmin(dist, axis=1)
        scale = np.maximum(np.abs(current), 1.0)
        move = dist[rows, best] < current - _TIE * scale
        if not move.any():
            break
        new_labels = labels.copy()
        new_labels[move] = best[move]
        if np.bincount(new_labels, minlength=n_clusters).min() == 0:
            new_labels = _fill_empty(dist, new_labels, n_clusters)
        moved = np.flatnonzero(new_labels != labels)
        delta = np.zeros((moved.size, n_clusters))
        delta[np.arange(moved.size), new_labels[moved]] += 1.0
        delta[np.arange(moved.size), labels[moved]] -= 1.0
        KZ += K[moved].T @ delta  # K is symmetric: rows are contiguous
        Z[moved] = 0.0
        Z[moved, new_labels[moved]] = 1.0
        labels = new_labels
    dist = distances()
    energy = float(dist[rows, labels].sum())
    if not history or energy != history[-1]:
        history.append(energy)
    return labels, energy, n_iter, history


class KernelKMeans(ClusterMixin, BaseEstimator):
    """Kernel k-means with a Gaussian, linear or precomputed kernel and seeded restarts.

    Each sample goes to the cluster whose centroid in feature space is nearest,
    ``||phi(x_i) - m_k||^2 = K_ii - (2/N_k) sum_{b in C_k} K_ib
    + (1/N_k^2) sum_{a,b in C_k} K_ab`` (Maldonado et al. 2015, eq. (13)); assignments and
    centroids alternate until no label changes. Of ``n_init`` runs from random centre samples
    the one with the lowest energy is kept.

    Parameters
    ----------
    n_clusters : int, default=8
    kernel : {"rbf", "linear", "precomputed"}, default="rbf"
        ``"rbf"``: ``exp(-||x - y||^2 / (2 sigma^2))`` (unit diagonal kept: it is a kernel);
        ``"linear"``: ``X X^T``; ``"precomputed"``: ``X`` is the kernel matrix.
    sigma : float, default=1.0
        Width of the Gaussian kernel (Maldonado et al. 2015 evaluate with ``sigma = 1``).
    scale : {"none", "zscore", "zscore-sqrt-d"}, default="none"
        Feature scaling before the kernel (see :func:`scale_features`); ``"zscore-sqrt-d"`` is
        our reading of Maldonado et al. 2015's "normalized data".
    n_init : int, default=10
    max_iter : int, default=300
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    energy_ : float
        Within-cluster energy of the kept run.
    n_iter_ : int
    objective_history_ : list of float
        Energy after each assignment step of the kept run (non-increasing).
    n_features_in_ : int

    Notes
    -----
    Decisions (the paper is silent): an empty cluster receives the
    sample farthest from its own centroid; a sample moves only when another centroid is
    strictly nearer (relative margin 1e-12), so ties never cause cycling. With a linear kernel
    and the same initial centres the iteration is Lloyd's k-means.

    References
    ----------
    Dhillon, Guan & Kulis (2004), "Kernel k-means: spectral clustering and normalized cuts",
    KDD, section 2.1; Maldonado, Carrizosa & Weber (2015), Information Sciences 322,
    Algorithm 1 and eq. (13).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> labels = KernelKMeans(n_clusters=2, random_state=0).fit_predict(X)
    >>> bool(labels[0] == labels[1] != labels[2] == labels[3])
    True
    """

    _parameter_constraints: dict = {
        **CLUSTERER_PARAMETERS,
        "kernel": [StrOptions(set(KERNELS))],
        "sigma": [Interval(Real, 0, None, closed="neither")],
        "scale": [StrOptions(set(SCALINGS))],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, n_clusters=8, *, kernel="rbf", sigma=1.0, scale="none", n_init=10,
                 max_iter=300, random_state=None):
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.sigma = sigma
        self.scale = scale
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state

    def _kernel(self, X, sq_distances=None):
        if sq_distances is not None and self.kernel != "rbf":
            raise ValueError(
                f"sq_distances can only be used with kernel='rbf', not kernel={self.kernel!r}; "
                "leave sq_distances out."
            )
        if self.kernel == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError(f"A precomputed kernel must be square, got shape {X.shape}; "
                                 "pass K, or the features with kernel='rbf' or 'linear'.")
            return X
        if self.kernel == "rbf":
            if sq_distances is None:
                D2 = scaled_sq_distances(X, self.scale)
            else:
                D2 = check_sq_distances(sq_distances, X.shape[0])
            return _gaussian_from_sq_distances(D2, self.sigma)
        Xs = scale_features(X, self.scale)  # the linear kernel
        return Xs @ Xs.T

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, *, sq_distances=None):
        """Cluster the rows of ``X`` (or the samples of a precomputed kernel).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
        y : Ignored
        sq_distances : array-like of shape (n_samples, n_samples), default=None
            The squared Euclidean distances between the rows of the *scaled* features,
            ``scaled_sq_distances(X, scale)`` (``kernel="rbf"`` only), when the caller already
            has them: the kernel is then computed from them instead of from ``X``, and the
            same distances give the same result as ``fit(X)``. A sweep over feature subsets
            accumulates them (:func:`fsclust.steps.sweep.run_sweep`).

        Returns
        -------
        self : KernelKMeans
        """
        X = validate_data(self, X, dtype=np.float64)
        check_n_clusters(self.n_clusters, X.shape[0])
        rng = check_random_state(self.random_state)
        K = self._kernel(X, sq_distances)
        best = None
        for _ in range(self.n_init):
            run = kernel_kmeans(K, self.n_clusters, max_iter=self.max_iter, random_state=rng)
            if best is None or run[1] < best[1]:
                best = run
        self.labels_, self.energy_, self.n_iter_, self.objective_history_ = best
        return self

    def __sklearn_tags__(self):
        # the Gaussian kernel is a function of the squared distances of the scaled features;
        # an unknown scale names no space, so the sweep leaves it to fit's validation
        space = self.scale if self.kernel == "rbf" and self.scale in SCALINGS else None
        return clusterer_tags(super().__sklearn_tags__(), sq_distance_space=space)
