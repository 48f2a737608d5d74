"""Local Learning based Clustering, LLC (Wu & Schölkopf 2006), and the local-learning math
that LLC-fs (Zeng & Cheung 2009) shares with it.

Every sample ``x_i`` gets a local ridge regression fitted on its neighbours ``N_i`` only; its
prediction at ``x_i`` is a weighted vote ``beta_i^T Y[N_i]`` of the neighbours' cluster
indicators. With ``A[i, N_i] = beta_i`` the clustering objective is
``sum_c ||Y_c - A Y_c||^2 = trace(Y^T T Y)``, ``T = (I - A)^T (I - A)``, relaxed to the ``c``
smallest eigenvectors of ``T``.

Both methods need, per sample, a solve with a small ``n_i x n_i`` kernel block of one shared
Gram matrix. Neighbourhoods have at most ``k`` members, so the blocks are grouped by size and
solved as stacked batches (``numpy.linalg`` on ``(m, s, s)`` arrays): no Python loop over
samples, and never a ``d x d`` system (the push-through/Woodbury form).
"""

from __future__ import annotations

import logging
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import validate_data

from ..graphs import smallest_eigenvectors
from .affinity import CLUSTERER_PARAMETERS, check_n_clusters
from .kmeans import KMeans
from .tags import clusterer_tags

log = logging.getLogger(__name__)

NEIGHBORHOODS = ("mutual", "knn")
DISCRETIZATIONS = ("kmeans", "yushi")


def gram_distances(gram):
    """Squared distances from a Gram matrix: ``D2_ij = G_ii + G_jj - 2 G_ij`` (clipped at 0).

    With ``gram = X diag(tau) X^T`` these are the tau-weighted distances
    ``sum_l tau_l (x_il - x_jl)^2`` of LLC-fs (Zeng & Cheung 2009, eq. 9).
    """
    diag = np.diag(gram)
    D2 = diag[:, None] + diag[None, :] - 2.0 * gram
    np.maximum(D2, 0.0, out=D2)
    return D2


def knn_mask(D2, k):
    """Boolean ``(n, n)`` matrix whose row ``i`` marks the ``k`` nearest other samples of ``i``.

    The point itself is excluded; equal distances go to the lower index, so the lists are
    exactly ``k`` long and deterministic (decision: Wu & Schölkopf
    2006 exclude the point itself; ties are not discussed). O(n^2) with
    ``np.partition``: no sort of whole rows.
    """
    n = D2.shape[0]
    if not 1 <= k <= n - 1:
        raise ValueError(f"n_neighbors={k} must be between 1 and n_samples - 1 = {n - 1}; "
                         "use fewer neighbours.")
    D = np.array(D2, dtype=np.float64)
    np.fill_diagonal(D, np.inf)
    kth = np.partition(D, k - 1, axis=1)[:, k - 1]
    less = D < kth[:, None]
    tie = D == kth[:, None]
    # among the samples at exactly the k-th distance, keep the lowest indices
    need = k - less.sum(axis=1)
    return less | (tie & (np.cumsum(tie, axis=1) <= need[:, None]))


def neighborhoods(D2, k, kind="mutual"):
    """The neighbourhoods ``N_i`` as a CSR boolean matrix (sorted column indices per row).

    ``kind="mutual"``: ``j in N_i`` iff ``j`` is among the ``k`` nearest of ``i`` and ``i``
    among the ``k`` nearest of ``j`` (Wu & Schölkopf's and Zeng & Cheung's k-mutual
    neighbours): symmetric, no self-loops, ``|N_i| <= k``, possibly empty. ``kind="knn"``: the
    ``k`` nearest, exactly ``k`` per row.
    """
    if kind not in NEIGHBORHOODS:
        raise ValueError(f"unknown neighborhood {kind!r}; valid: {', '.join(NEIGHBORHOODS)}")
    S = knn_mask(D2, k)
    if kind == "mutual":
        S &= S.T
    return sp.csr_matrix(S)


def graph_components(N):
    """Connected components of at least two samples of the (weakly connected) neighbourhood
    graph ``N``: with rows of ``A`` summing to 1, each gives ``T`` an eigenvalue 0."""
    _, labels = connected_components(N, directed=True, connection="weak")
    return int(np.sum(np.bincount(labels) >= 2))


def _size_groups(N):
    """Rows of the neighbourhood matrix grouped by size: yields ``(rows, idx)`` with ``idx``
    the ``(m, s)`` neighbour indices of the ``m`` rows of size ``s >= 1``."""
    sizes = np.diff(N.indptr)
    for s in np.unique(sizes):
        if s == 0:
            continue
        rows = np.flatnonzero(sizes == s)
        idx = N.indices[N.indptr[rows][:, None] + np.arange(s)]
        yield rows, idx


def _blocks(gram, rows, idx):
    """Kernel blocks ``K_i = G[N_i][:, N_i]`` ``(m, s, s)`` and ``k_i = G[i, N_i]`` ``(m, s)``."""
    return gram[idx[:, :, None], idx[:, None, :]], gram[rows[:, None], idx]


def centred_local_fits(gram, N, lam):
    """LLC-fs local models: the rows ``beta_i`` of ``A`` and the matrices ``B_i = Pi_i G_i``.

    With ``Pi`` the centring matrix of the ``s = n_i`` neighbours, ``K_i`` and ``k_i`` blocks of
    ``gram = X diag(tau) X^T`` and ``G_i = (Pi K_i Pi + lam I)^-1``:
    ``beta_i = G_i Pi (k_i - K_i 1 / s) + 1 / s`` (Zeng & Cheung 2009, eq. 14: the weighted
    ridge regression with a bias, in push-through form, evaluated at ``x_i``). ``G_i`` and
    ``Pi`` commute, so ``B_i = Pi G_i = G_i Pi`` and ``beta_i^T 1 = 1``.

    Returns
    -------
    A : scipy.sparse.csr_matrix of shape (n, n)
        Rows of isolated samples (``n_i = 0``) are zero.
    B : list of ``(rows, idx, B)``, ``B`` of shape ``(m, s, s)``
        Per size group, for the tau-step.
    """
    n = gram.shape[0]
    data = np.zeros(N.nnz)
    groups = []
    for rows, idx in _size_groups(N):
        s = idx.shape[1]
        K, kv = _blocks(gram, rows, idx)
        row_mean = K.mean(axis=2)
        Kc = K - row_mean[:, :, None] - row_mean[:, None, :] + row_mean.mean(axis=1)[:, None, None]
        Kc[:, np.arange(s), np.arange(s)] += lam
        G = np.linalg.inv(Kc)
        v = kv - row_mean
        v -= v.mean(axis=1, keepdims=True)
        beta = np.einsum("msr,mr->ms", G, v) + 1.0 / s
        data[N.indptr[rows][:, None] + np.arange(s)] = beta
        groups.append((rows, idx, G - G.mean(axis=1, keepdims=True)))
    A = sp.csr_matrix((data, N.indices.copy(), N.indptr.copy()), shape=(n, n))
    return A, groups


def kernel_local_fits(gram, N, lam):
    """Plain LLC local models: ``beta_i = (K_i + lam I)^-1 k_i`` (Wu & Schölkopf 2006, eq. 8,
    kernel ridge regression on the neighbours evaluated at ``x_i``); returns ``A`` (CSR)."""
    n = gram.shape[0]
    data = np.zeros(N.nnz)
    for rows, idx in _size_groups(N):
        s = idx.shape[1]
        K, kv = _blocks(gram, rows, idx)
        K[:, np.arange(s), np.arange(s)] += lam
        beta = np.linalg.solve(K, kv[:, :, None])[:, :, 0]
        data[N.indptr[rows][:, None] + np.arange(s)] = beta
    return sp.csr_matrix((data, N.indices.copy(), N.indptr.copy()), shape=(n, n))


def local_learning_matrix(A):
    """``T = (I - A)^T (I - A)`` (Wu & Schölkopf 2006; Zeng & Cheung 2009, eq. 4), sparse."""
    n = A.shape[0]
    M = (sp.identity(n, format="csr") - A).tocsr()
    return (M.T @ M).tocsr()


def relaxed_indicator(T, n_clusters):
    """The ``c`` smallest eigenpairs of ``T`` (ascending): the relaxed scaled indicator ``Y``
    (``Y^T Y = I``) and ``trace(Y^T T Y)``, the sum of those eigenvalues (eq. 5).

    Dense ``eigh`` on a subset up to 4000 samples (0.16 s at n = 1673 on 2 cores, faster than
    a shift-invert Lanczos with a dense Cholesky factor), ARPACK above."""
    solver = "dense" if T.shape[0] <= 4000 else "arpack"
    values, Y = smallest_eigenvectors(T, n_clusters, solver=solver, random_state=0)
    return Y, float(values.sum())


def discretize(Y, n_clusters, method, random_state, n_init=10):
    """Hard labels from the relaxed indicator.

    ``"kmeans"``: rows of ``Y`` scaled to unit length, then k-means (Ng, Jordan & Weiss 2002,
    the discretisation of Zeng & Cheung 2009, "k-means as in [10]"). ``"yushi"``: Yu & Shi's
    rotation (Wu & Schölkopf's choice), scikit-learn's ``discretize``.
    """
    if method == "kmeans":
        norms = np.linalg.norm(Y, axis=1, keepdims=True)
        # A sample without neighbours has a zero row in exact arithmetic (T e_i = e_i); scaled to
        # unit length, its round-off (~1e-14) would become a direction set by the BLAS kernels.
        # Such rows stay zero.
        real = norms > np.sqrt(np.finfo(float).eps) * norms.max(initial=0.0)
        Z = Y / np.where(real, norms, 1.0) * real
        return KMeans(n_clusters=n_clusters, n_init=n_init, random_state=random_state).fit(Z).labels_
    if method == "yushi":
        from sklearn.cluster._spectral import discretize as yu_shi

        return yu_shi(Y.copy(), random_state=check_random_state(random_state)).astype(np.intp)
    raise ValueError(f"unknown discretize {method!r}; valid: {', '.join(DISCRETIZATIONS)}")


class LLC(ClusterMixin, BaseEstimator):
    """Local Learning based Clustering (Wu & Schölkopf 2006), linear kernel, clustering only.

    Each sample's cluster indicator is predicted by a ridge regression fitted on its
    neighbours; the partition that is best predicted is found by the spectral relaxation of
    ``trace(Y^T T Y)``. This is the "LLC" baseline of Zeng & Cheung (2009).

    Parameters
    ----------
    n_clusters : int, default=2
    n_neighbors : int, default=30
        ``k``: size of the kNN lists the neighbourhoods come from.
    lam : float, default=1.0
        Ridge trade-off ``lambda``.
    append_one : bool, default=True
        Add a constant feature (``K <- X X^T + 1``): the local models get a (penalised) bias,
        the reading of Zeng & Cheung 2009 ("one feature is always 1").
    neighborhood : {"mutual", "knn"}, default="mutual"
        Mutual k-nearest neighbours (the paper's) or plain kNN.
    discretize : {"kmeans", "yushi"}, default="kmeans"
        Row-normalised k-means (Ng-Jordan-Weiss) or Yu & Shi's rotation.
    n_init : int, default=10
        Restarts of the k-means discretisation.
    random_state : int, RandomState instance or None, default=None
        Only the discretisation draws; the embedding is deterministic.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    embedding_ : ndarray of shape (n_samples, n_clusters)
        The relaxed indicator ``Y``: the ``c`` smallest eigenvectors of ``T``.
    objective_ : float
        ``trace(Y^T T Y)``, the sum of those eigenvalues.
    n_isolated_ : int
        Samples without a mutual neighbour (their row of ``A`` is zero).
    n_components_ : int
        Connected components of at least two samples of the neighbourhood graph.
    n_features_in_ : int

    The objective, isolated samples and components are its reported attributes (tag
    ``reported_attributes``), carried in a sweep's rows; only the discretisation draws (tag
    ``relabels``), so a sweep fits it once for every repeat and calls :meth:`relabel`.

    References
    ----------
    Wu & Schölkopf (2006), "A local learning approach for clustering", NIPS 19, eqs. (5)-(9);
    Zeng & Cheung (2009), "Feature selection for local learning based clustering", PAKDD,
    section 2.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 0.3, (20, 2)), rng.normal(5, 0.3, (20, 2))])
    >>> labels = LLC(n_clusters=2, n_neighbors=10, random_state=0).fit_predict(X)
    >>> bool(len(set(labels[:20])) == 1 and len(set(labels[20:])) == 1 and labels[0] != labels[-1])
    True
    """

    _parameter_constraints: dict = {
        **CLUSTERER_PARAMETERS,
        # at most n_samples - 1: checked in fit, against the data
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "lam": [Interval(Real, 0, None, closed="neither")],
        "append_one": ["boolean"],
        "neighborhood": [StrOptions(set(NEIGHBORHOODS))],
        "discretize": [StrOptions(set(DISCRETIZATIONS))],
        "n_init": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, n_clusters=2, *, n_neighbors=30, lam=1.0, append_one=True,
                 neighborhood="mutual", discretize="kmeans", n_init=10, random_state=None):
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.lam = lam
        self.append_one = append_one
        self.neighborhood = neighborhood
        self.discretize = discretize
        self.n_init = n_init
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Cluster the rows of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Ignored

        Returns
        -------
        self : LLC
        """
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2)
        n = X.shape[0]
        check_n_clusters(self.n_clusters, n)
        rng = check_random_state(self.random_state)
        gram = X @ X.T
        gram = (gram + gram.T) / 2.0
        N = neighborhoods(gram_distances(gram), self.n_neighbors, self.neighborhood)
        if self.append_one:
            gram += 1.0
        A = kernel_local_fits(gram, N, self.lam)
        self.n_isolated_ = int(np.sum(np.diff(N.indptr) == 0))
        self.n_components_ = graph_components(N)
        self.embedding_, self.objective_ = relaxed_indicator(local_learning_matrix(A),
                                                             self.n_clusters)
        self.labels_ = discretize(self.embedding_, self.n_clusters, self.discretize, rng,
                                  self.n_init)
        return self

    def __sklearn_tags__(self):
        return clusterer_tags(super().__sklearn_tags__(),
                              reported_attributes=("objective_", "n_isolated_", "n_components_"),
                              relabels=True)

    def relabel(self, random_state):
        """The labels a fit with ``random_state`` gives: only the discretisation is redrawn
        (the embedding is deterministic), so repeated runs cost one eigenproblem."""
        return discretize(self.embedding_, self.n_clusters, self.discretize,
                          check_random_state(random_state), self.n_init)
