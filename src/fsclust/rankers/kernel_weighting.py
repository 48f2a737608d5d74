"""Kernel feature weighting integrated with spectral clustering (Zeng & Cheung 2008)."""

from __future__ import annotations

import warnings
from numbers import Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval

from ..cluster.affinity import check_n_clusters
from ..cluster.kmeans import KMeans
from ..graphs import largest_eigenvectors
from .base import FeatureRanker, IntInterval

_BYTES = np.dtype(np.float64).itemsize
# Default bytes of one block of kernels. Blocks of the whole memory limit (1 GiB, 4590 kernels
# of TOX-171) run from main memory; blocks of a few MiB from cache. TOX-171 (171 x 5748, k = 4,
# 5 iterations, kernels rebuilt per pass), one run on the shared machine: 65.8 s with 1 GiB
# blocks, 57.2 s with 256 kernels (30 MB), 41.7 s with 64 (15 MB), 38.9 s with 16 (3.7 MB).
_BLOCK_BYTES = 2**23


def feature_bandwidths(X, bandwidth_factor=0.0025):
    """Per-feature RBF parameters ``t_p = factor * max_ij (x_ip - x_jp)^2``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    bandwidth_factor : float, default=0.0025
        The paper's 0.0025.

    Returns
    -------
    t : ndarray of shape (d,)
        ``factor * (max_i x_ip - min_i x_ip)^2``; 0 for a constant feature.

    Examples
    --------
    >>> feature_bandwidths(np.array([[0.0, 1.0], [10.0, 1.0]]))
    array([0.25, 0.  ])
    """
    X = np.asarray(X, dtype=np.float64)
    return bandwidth_factor * np.ptp(X, axis=0) ** 2


def normalized_feature_kernels(X, t):
    """The degree-normalised one-feature RBF kernels ``K_p`` of every column of ``X``.

    ``K_p[i, j] = exp(-(x_ip - x_jp)^2 / t_p)`` (diagonal 1, kept: ``K_p`` is used as a
    kernel), then ``K_p <- D_p^-1/2 K_p D_p^-1/2`` with ``D_p = diag(K_p 1)``.

    Parameters
    ----------
    X : ndarray of shape (n, b)
        The columns of one block of features.
    t : ndarray of shape (b,)
        Their kernel parameters, all > 0.

    Returns
    -------
    K : ndarray of shape (b, n, n)
        Symmetric and positive semi-definite (a 1-D Gaussian kernel is PSD and the degree
        scaling is a congruence); ``K_p[i, i] = 1 / g_p[i]``.

    References
    ----------
    Zeng & Cheung (2008), eq. (7) and the normalisation below it; Algorithm 1, step 1.

    Examples
    --------
    >>> K = normalized_feature_kernels(np.array([[0.0], [1.0]]), np.array([1.0]))
    >>> bool(np.allclose(K[0], np.array([[1.0, np.exp(-1)], [np.exp(-1), 1.0]]) / (1 + np.exp(-1))))
    True
    """
    cols = np.asarray(X, dtype=np.float64).T  # (b, n)
    t = np.asarray(t, dtype=np.float64)
    # one (b, n, n) array, transformed in place: it is the block's whole memory
    K = cols[:, :, None] - cols[:, None, :]
    np.square(K, out=K)
    K /= -t[:, None, None]
    np.exp(K, out=K)
    scale = 1.0 / np.sqrt(K.sum(axis=2))  # (b, n); degrees >= 1 (the diagonal)
    K *= scale[:, :, None]
    K *= scale[:, None, :]
    return K


class _FeatureKernels:
    """The normalised kernels of the non-constant features, cached or rebuilt block by block.

    Both modes contract the same blocks in the same order, so they give bit-identical results;
    only the time (recomputing the kernels in every pass) and the memory differ.
    """

    def __init__(self, X, t, block_size, cache):
        self.X, self.t = X, t
        d = X.shape[1]
        self.blocks = [slice(s, min(s + block_size, d)) for s in range(0, d, block_size)]
        self.cache = [self._build(B) for B in self.blocks] if cache else None

    def _build(self, B):
        n = self.X.shape[0]
        return normalized_feature_kernels(self.X[:, B], self.t[B]).reshape(-1, n * n)

    def __iter__(self):
        for i, B in enumerate(self.blocks):
            yield B, (self.cache[i] if self.cache is not None else self._build(B))


def _centre(S):
    """``Pi S Pi`` with ``Pi = I - 11^T / n``, for a symmetric ``S``, made exactly symmetric."""
    row = S.mean(axis=1)
    Kt = S - row[:, None] - row[None, :] + row.mean()
    return 0.5 * (Kt + Kt.T)


#: The largest number of samples (:class:`~fsclust.rankers.base.RankerTags`): besides the
#: kernels cached within ``memory_limit`` (1 GiB), ``S``, its centred copies, the next ``S``
#: and a block of kernels are about 6 float64 ``n x n`` arrays (within 4 GiB up to 8,158);
#: lower for time: ``O(d n^2)`` per iteration and a dense ``n x n`` eigenproblem, ``O(n^3)``,
#: about 10 minutes on 2 cores at 6,000 samples (docs/measurements.md, "Size bounds of the
#: rankers").
MAX_SAMPLES = 6_000


class KernelWeightingClustering(FeatureRanker):
    """Feature weights and a clustering from one kernel objective (Zeng & Cheung 2008).

    Each feature ``p`` gets a degree-normalised RBF kernel ``K_p`` on that feature alone; the
    similarity is ``S_w = sum_p w_p K_p`` and the objective (eq. (8))

    ``Q(L, w) = trace(L^T Pi S_w Pi L)``,  s.t. ``L^T L = I_c``, ``w >= 0``, ``||w||_2 = 1``,

    with the centring matrix ``Pi = I - 11^T / n``, is maximised by alternating two exact block
    updates (Algorithm 1): ``L`` = the ``c`` leading eigenvectors of ``Pi S_w Pi`` (Ky Fan,
    section 3.1), then ``w = z / ||z||`` with ``z_p = trace(L^T Pi K_p Pi L) >= 0`` (eq. (11)).
    ``Q`` never decreases and is bounded by ``||nu||_2``, ``nu_p = trace(Pi K_p Pi)``
    (Theorem 1, eq. (12)). The weights rank the features ("wrank"); k-means on the row-normalised
    relaxed indicator ``L`` gives the clusters ("integrated").

    The ``d`` kernels of size ``n x n`` are cached when they fit in ``memory_limit``; otherwise
    they are rebuilt in every iteration, ``block_size`` features at a time, and one pass over the
    blocks gives both ``z`` and the next similarity ``S_w = (sum_p z_p K_p) / ||z||`` (the
    normalisation of ``w`` is one scalar), so memory stays ``O(block_size n^2)``.

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters ``c`` (the columns of ``L``).
    n_features_to_select : int or None, default=None
        Number of top-weighted features kept by ``transform``; None keeps all.
    bandwidth_factor : float, default=0.0025
        ``t_p = bandwidth_factor * max_ij (x_ip - x_jp)^2`` (the paper's rule, per feature).
    tol : float, default=5e-4
        Stop when ``|Q_t - Q_{t-1}| / |Q_{t-1}| < tol`` (the paper's epsilon), from ``t = 2``.
    max_iter : int, default=50
        Cap on the number of iterations (the paper never needed more than 10).
    memory_limit : int, default=2**30
        Bytes for the kernels: all ``d`` normalised kernels are cached when ``8 d n^2`` bytes
        fit, otherwise they are rebuilt in blocks.
    block_size : int or None, default=None
        Features per block; None: as many as fit in ``_BLOCK_BYTES`` (8 MiB, a cache-sized
        block: the kernels of a block are built, used and dropped while they are still in
        cache) and in ``memory_limit`` (at least 1). Changes only the summation order
        (round-off), never the method.
    n_init : int, default=10
        Restarts of the k-means that discretises ``L``.
    random_state : int, RandomState instance or None, default=None
        Seeds the k-means (the weights themselves are deterministic).

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        The weights ``w`` (higher is better); 0 for constant features.
    weights_ : ndarray of shape (n_features,)
        The same weights, under the paper's name.
    ranking_ : ndarray of shape (n_features,), int
        Rank of each feature, 1 = best (the position in ``feature_order_`` + 1).
    feature_order_ : ndarray of shape (n_features,), int
        Feature indices, largest weight first; constant features last.
    constant_mask_ : ndarray of shape (n_features,), bool
    bandwidths_ : ndarray of shape (n_features,)
        The per-feature kernel parameters ``t_p`` (0 for constant features).
    indicator_ : ndarray of shape (n_samples, n_clusters)
        The relaxed cluster indicator ``L`` of the last iteration (the one ``w`` was computed
        from).
    eigenvalues_ : ndarray of shape (n_clusters,)
        The ``c`` largest eigenvalues of ``Pi S_w Pi`` that gave ``indicator_``.
    labels_ : ndarray of shape (n_samples,)
        The "integrated" clustering: k-means on the rows of ``L`` scaled to unit length.
    objective_history_ : ndarray of shape (``n_iter_``,)
        ``Q_t = w_t^T z_t = ||z_t||_2`` after each iteration; non-decreasing.
    trace_bound_ : float
        ``||nu||_2`` of Theorem 1, an upper bound of every ``Q_t``.
    n_iter_ : int
        Iterations run (``L``-updates).
    kernels_cached_ : bool
        Whether the kernels were held in memory.
    n_features_in_ : int

    Notes
    -----
    Decisions where the paper is silent:

    - A constant feature has no kernel (``t_p = 0``): it is left out, gets ``w_p = 0`` and is
      ranked last. The initial weights are ``1 / sqrt(d')`` over the ``d'`` other features.
    - ``z_p`` is clipped at 0; only round-off can make it negative (``K_p`` is PSD).
    - ``max_iter = 50``; hitting it raises a ``ConvergenceWarning``.
    - The discretisation is Ng-Jordan-Weiss's (reference [10] of the paper): each row of ``L``
      scaled to unit length, then k-means with ``n_init`` restarts.
    - The kernels keep their unit diagonal (they are kernels, not graphs: PSD is needed for
      ``z_p >= 0``).

    Planted structure (issue 40; ``speed/planted_suite.py``, docs/measurements.md, "Planted
    structure at the defaults"). Against the paper (eqs. (7)-(11), Algorithm 1, the bandwidth
    rule of section 4) no departure was found: the one-feature kernels and their degree
    normalisation with the diagonal kept, the two exact block updates, the start and the stop
    are the paper's. The shortfall (shares 0.00 0.00 0.37 0.37 0.00 0.40 0.19 0.93 0.93 1.00
    1.00 0.00, wide ... counts, mean 0.43) comes from the paper's narrow bandwidth, through
    two effects, each measured on the suite's draws (seed 0, ``python
    speed/seed_planted_causes.py kernel_weighting``):

    - the kernel's diagonal. ``z_p = <K_p, (Pi L)(Pi L)^T>`` contains ``sum_i ||(Pi L)_i||^2 /
      g_p[i]`` (``K_p[i, i] = 1 / g_p[i]``), which every feature has, signal or not. With
      ``t_p = 0.0025 max (x_ip - x_jp)^2`` the width is a fixed fraction of the range and a
      one-feature kernel reaches few samples (mean ``1 / g_p`` 0.138 at 80 samples, 0.070 at
      160, 0.028 at 400, 0.014 at 800); the diagonal is 1.06-1.13 of a noise feature's
      ``z_p`` on the 11 Gaussian problems (its off-diagonal part is negative), and its
      spread over the ``d - p`` noise features outranks the planted ones. Ranked by the
      off-diagonal part alone at the same fitted ``L``: base 0.37 -> 0.97, groups2 0.40 ->
      0.87 (where the fit's clusters are exact, adjusted Rand 1.00), groups8 0.19 -> 0.72;
      the square and tall problems, where ``1 / g_p`` is small, reach 0.93-1.00 as they are.
    - the ``L``-step. On wide, weak and the counts the clustering of ``S_w`` misses the groups
      (adjusted Rand 0.04, 0.01, 0.00) and the weights follow it; ``z`` at the true
      clusters' indicator (labels used: a diagnosis) ranks 0.87, 0.87, 0.97 planted.

    Both move with the bandwidth. ``python speed/planted_suite.py --methods random --variant
    kw-bw0.01 kernel_weighting '{"bandwidth_factor": 0.01}'`` (and 0.04, 0.25) gives mean
    shares 0.60, 0.88, 0.96 against 0.43 (0.04: 0.83 0.83 1.00 1.00 0.93 0.93 1.00 1.00 1.00
    1.00 1.00 0.00); seeds 1 and 2 (``--seeds 1 2``): 0.45 and 0.52 at the default, 0.88 and
    0.89 at 0.04. At 0.04 the fit's clusters have adjusted Rand 1.00 on base, wide, weak and
    groups8 and the diagonal is 0.12-0.30 of a planted feature's ``z_p`` (``python
    speed/seed_planted_causes.py kernel_weighting --bandwidth-factor 0.04``); the counts come
    only at 0.25 (0.88; at 0.04 the fit's clusters still miss the cell types, adjusted Rand
    0.00, where ``z`` at the true types ranks 0.97 planted). The default stays the paper's
    0.0025: the wider factors were scored with the suite's labels, not chosen without them,
    and not measured on the paper's data; a label-free rule (from the degrees ``g_p``) is a
    proposal. What bounds the method beyond the bandwidth: ``z_p`` is each feature's own
    agreement with one relaxed clustering of ``S_w``; where that clustering misses the groups
    (wide, 80 samples: 0.83-0.90 at the wider factors, 0.87 with the true indicator) nothing
    in the weights recovers them.

    References
    ----------
    Zeng, H. & Cheung, Y. (2008), "Feature Selection for Clustering on High Dimensional Data",
    PRICAI 2008, LNAI 5351, pp. 913-922: eqs. (7)-(12), Algorithm 1, Theorem 1.

    Examples
    --------
    Three clusters separated along the first 3 of 20 features:

    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> y = np.repeat([0, 1, 2], 20)
    >>> X = rng.randn(60, 20)
    >>> X[:, :3] += 6 * y[:, None]
    >>> model = KernelWeightingClustering(n_clusters=3, random_state=0).fit(X)
    >>> sorted(model.feature_order_[:3].tolist())
    [0, 1, 2]
    >>> bool(np.isclose(np.linalg.norm(model.weights_), 1.0))
    True
    >>> bool(np.all(np.diff(model.objective_history_) >= 0))
    True
    >>> sorted(np.bincount(model.labels_).tolist())
    [20, 20, 20]
    """

    higher_is_better = True

    _parameter_constraints: dict = {
        **FeatureRanker._parameter_constraints,
        "n_clusters": [IntInterval(1, None, closed="left")],
        "bandwidth_factor": [Interval(Real, 0, None, closed="neither")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_iter": [IntInterval(1, None, closed="left")],
        "memory_limit": [IntInterval(0, None, closed="left")],
        "block_size": [IntInterval(1, None, closed="left"), None],
        "n_init": [IntInterval(1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self, n_clusters=2, n_features_to_select=None, *, bandwidth_factor=0.0025, tol=5e-4,
        max_iter=50, memory_limit=2**30, block_size=None, n_init=10, random_state=None,
    ):
        self.n_clusters = n_clusters
        self.n_features_to_select = n_features_to_select
        self.bandwidth_factor = bandwidth_factor
        self.tol = tol
        self.max_iter = max_iter
        self.memory_limit = memory_limit
        self.block_size = block_size
        self.n_init = n_init
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.ranker_tags.max_samples = MAX_SAMPLES
        return tags

    def _score(self, X, rng):
        n, d = X.shape
        c = self.n_clusters
        check_n_clusters(c, n)

        self.bandwidths_ = feature_bandwidths(X, self.bandwidth_factor)
        active = np.flatnonzero(~self.constant_mask_ & (self.bandwidths_ > 0))
        weights = np.zeros(d)
        self.objective_history_ = np.zeros(0)
        self.n_iter_ = 0
        self.trace_bound_ = 0.0
        self.kernels_cached_ = False
        if active.size == 0:
            warnings.warn("Every feature is constant: no kernel, all weights 0, one cluster.",
                          UserWarning, stacklevel=4)
            self.indicator_ = np.zeros((n, c))
            self.eigenvalues_ = np.zeros(c)
            self.labels_ = np.zeros(n, dtype=int)
            self.weights_ = weights
            return weights

        per_feature = _BYTES * n * n
        fit_budget = max(1, min(int(self.memory_limit), _BLOCK_BYTES) // per_feature)
        block_size = fit_budget if self.block_size is None else int(self.block_size)
        self.kernels_cached_ = active.size * per_feature <= int(self.memory_limit)
        kernels = _FeatureKernels(X[:, active], self.bandwidths_[active], block_size,
                                  cache=self.kernels_cached_)

        # First pass: S(w0) with w0 uniform on the sphere, and Theorem 1's nu.
        S = np.zeros(n * n)
        nu = np.empty(active.size)
        for B, K in kernels:
            S += K.sum(axis=0)
            nu[B] = K[:, :: n + 1].sum(axis=1) - K.sum(axis=1) / n  # trace(Pi K_p Pi)
            del K  # free this block before the next one is built
        S = S.reshape(n, n) / np.sqrt(active.size)
        self.trace_bound_ = float(np.linalg.norm(nu))

        w = np.full(active.size, 1.0 / np.sqrt(active.size))
        history = []
        converged = False
        for _ in range(int(self.max_iter)):
            # L-step (section 3.1): Ky Fan
            vals, L = largest_eigenvectors(_centre(S), c, solver="dense")
            PL = L - L.mean(axis=0)  # Pi L (= L when the top eigenvalues are positive)
            Gm = (PL @ PL.T).ravel()
            # w-step (section 3.2) and, in the same pass, the next similarity
            z = np.empty(active.size)
            acc = np.zeros(n * n)
            for B, K in kernels:
                zB = np.maximum(K @ Gm, 0.0)
                z[B] = zB
                acc += zB @ K
                del K
            norm = float(np.linalg.norm(z))
            self.indicator_, self.eigenvalues_ = L, vals
            if norm == 0.0:  # L orthogonal to every kernel: nothing left to weigh
                warnings.warn("All feature contributions z_p are 0; weights left unchanged.",
                              UserWarning, stacklevel=4)
                break
            w = z / norm
            S = acc.reshape(n, n) / norm
            history.append(norm)  # Q_t = w^T z = ||z||
            if len(history) >= 2 and abs(history[-1] - history[-2]) < self.tol * abs(history[-2]):
                converged = True
                break
        if not converged and len(history) == int(self.max_iter):
            warnings.warn(f"Kernel weighting did not converge in max_iter={self.max_iter} "
                          f"iterations (tol={self.tol}).", ConvergenceWarning, stacklevel=4)

        weights[active] = w
        self.weights_ = weights
        self.objective_history_ = np.asarray(history)
        self.n_iter_ = len(history)
        self.labels_ = self._discretize(self.indicator_, rng)
        return weights

    def _discretize(self, L, rng):
        """NJW: rows of ``L`` scaled to unit length, then k-means (the paper's [10])."""
        norms = np.linalg.norm(L, axis=1, keepdims=True)
        rows = np.divide(L, norms, out=np.zeros_like(L), where=norms > 0)
        model = KMeans(n_clusters=self.n_clusters, n_init=self.n_init, random_state=rng)
        return model.fit_predict(rows)
