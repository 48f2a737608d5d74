"""Q-alpha: feature weights from the spectrum of a weighted affinity (Wolf & Shashua 2005)."""

from __future__ import annotations

import warnings
from numbers import Real

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import LinearOperator, eigsh
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..cluster.affinity import check_n_clusters
from ..cluster.kmeans import KMeans
from ..graphs import canonical_sign_flip, largest_eigenvectors
from .base import FeatureRanker, IntInterval, constant_features

INITS = ("uniform", "random")

# G is formed, and its top eigenpair taken by a dense eigh, when D^2 <= _DENSE_G_RATIO * n k
# (and D <= _DENSE_G_MAX_FEATURES: 8 D^2 bytes stay small); otherwise ARPACK runs on the matrix-free
# product. The ratio is the measured crossover with one BLAS thread (dense and matrix-free
# times equal at D^2 / (n k) between about 120 and 150, e.g. n = 83, D = 200, k = 4 and
# n = 1673, D = 1000, k = 4); at 1673 x 256 the dense path is twice as fast, at 62 x 2000
# the matrix-free one is 90 times faster.
_DENSE_G_RATIO = 128
_DENSE_G_MAX_FEATURES = 5000


def normalized_feature_rows(X):
    """The paper's ``M``: one row per feature, centred over the samples, unit L2 norm.

    Parameters
    ----------
    X : array-like of shape (n, D)

    Returns
    -------
    M : ndarray of shape (D, n)
        Row ``j`` is ``(f_j - mean(f_j)) / ||f_j - mean(f_j)||``; a constant feature
        (``ptp(f) <= 1e-12 max(1, max|f|)``) or one whose centred norm is 0 gets a zero row.

    Examples
    --------
    >>> normalized_feature_rows([[0.0, 5.0], [2.0, 5.0]]).round(4)
    array([[-0.7071,  0.7071],
           [ 0.    ,  0.    ]])
    """
    X = np.asarray(X, dtype=np.float64)
    M = (X - X.mean(axis=0)).T
    norms = np.linalg.norm(M, axis=1)
    # a nearly constant feature would be blown up to unit norm from pure round-off
    usable = (norms > 0) & ~constant_features(X)
    return np.divide(M, norms[:, None], out=np.zeros_like(M), where=usable[:, None])


def g_matvec(M, P, v):
    """``G v`` without forming ``G = (M M^T) o (P P^T)``, in ``O(D n k)`` time, ``O(D k)`` memory.

    With ``C = M^T diag(v) P`` (``(n, k)``), ``(G v)_i = sum_b P_ib (M C)_ib``: the same
    number as ``rowsum(M o (P C^T))``, without the ``(D, n)`` temporary.

    Parameters
    ----------
    M : ndarray of shape (D, n)
        Normalised feature rows.
    P : ndarray of shape (D, k)
        ``M Q``.
    v : ndarray of shape (D,)

    Returns
    -------
    Gv : ndarray of shape (D,)

    Examples
    --------
    >>> M = np.array([[1.0, 0.0], [0.6, 0.8]])
    >>> P = M @ np.array([[1.0], [0.0]])
    >>> v = np.array([1.0, -2.0])
    >>> bool(np.allclose(g_matvec(M, P, v), g_matrix(M, P) @ v))
    True
    """
    C = M.T @ (v[:, None] * P)
    return np.einsum("ib,ib->i", P, M @ C)


def g_matrix(M, P, gram=None):
    """The explicit ``G = (M M^T) o (P P^T)`` (``(D, D)``, PSD by the Schur product theorem).

    For a fixed ``Q`` with ``P = M Q``, ``alpha^T G alpha = trace(Q^T A_alpha^2 Q)`` where
    ``A_alpha = M^T diag(alpha) M``.

    Parameters
    ----------
    M : ndarray of shape (D, n)
    P : ndarray of shape (D, k)
    gram : ndarray of shape (D, D) or None
        ``M M^T`` if already computed.

    Returns
    -------
    G : ndarray of shape (D, D)

    Examples
    --------
    >>> M = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> g_matrix(M, M @ np.array([[1.0], [0.0]]))
    array([[1., 0.],
           [0., 0.]])
    """
    gram = M @ M.T if gram is None else gram
    return gram * (P @ P.T)


def _orient(alpha):
    """The sign that makes ``sum(alpha) >= 0`` (largest entry positive when the sum is 0)."""
    total = alpha.sum()
    if total == 0:
        return canonical_sign_flip(alpha)
    return -alpha if total < 0 else alpha


def _leading_eigenvector(M, P, v0, gram):
    """Unit leading eigenvector of ``G``: dense when ``gram`` is given, else matrix-free ARPACK.

    ``v0`` (the previous ``alpha``) warm-starts ARPACK and makes it deterministic (its
    default start is random).
    """
    if gram is not None:
        return largest_eigenvectors(g_matrix(M, P, gram), 1, solver="dense")[1][:, 0]
    d = M.shape[0]
    G = LinearOperator((d, d), matvec=lambda v: g_matvec(M, P, np.ravel(v)), dtype=np.float64)
    vec = canonical_sign_flip(eigsh(G, k=1, which="LA", v0=v0)[1][:, 0])
    return vec / np.linalg.norm(vec)


def _initial_indicator(M, n_clusters, init, rng):
    """``Q^(0)``: the top ``k`` eigenvectors of ``A_alpha0 = M^T M / sqrt(D)``, or random."""
    n = M.shape[1]
    if init == "random":
        return np.linalg.qr(rng.standard_normal((n, n_clusters)))[0]
    # alpha0 = 1/sqrt(D) >= 0, so the eigenvectors of A_alpha0 are the right singular vectors of
    # M: an SVD of the (D, n) matrix, never the eigh of the (n, n) one
    full = n_clusters > min(M.shape)
    Vt = scipy.linalg.svd(M, full_matrices=full, compute_uv=True)[2]
    return np.ascontiguousarray(canonical_sign_flip(Vt[:n_clusters].T))


#: The largest ``min(n, d)`` (:mod:`fsclust.rankers._bounds`): the SVD of the ``(d, n)``
#: feature rows (its factors and workspace) and the copies of the data are 8 float64
#: arrays of ``min(n, d)^2`` for a square input (docs/measurements.md, "Size bounds of the
#: rankers"), within 4 GiB up to 8,192.
MAX_SMALLER_SIDE = 8_000


class QAlpha(FeatureRanker):
    """Q-alpha feature weights and clusters: the weights whose affinity has a strong top spectrum.

    With ``M`` the features as rows, centred and scaled to unit norm (``(D, n)``), a weight
    vector ``alpha`` defines the affinity ``A_alpha = sum_j alpha_j m_j m_j^T = M^T diag(alpha) M``
    (``(n, n)``). Q-alpha maximises the energy of its ``k`` leading eigenvalues,

    ``max trace(Q^T A_alpha^T A_alpha Q)``  s.t. ``Q^T Q = I_k``, ``alpha^T alpha = 1``,

    by alternating two steps. For a fixed ``Q`` the objective is ``alpha^T G alpha`` with
    ``G = (M M^T) o (M Q Q^T M^T)`` (``(D, D)``, Hadamard product), so ``alpha`` is the leading
    eigenvector of ``G``; for a fixed ``alpha``, ``Q`` takes one orthogonal-iteration step,
    ``Q <- qr(A_alpha Q)``. Both steps never decrease the objective. The weights come out
    sparse and nearly all of one sign (the paper's "emergence of sparsity"): the relevant
    features are those with a large ``alpha_j``. k-means on the rows of the final ``Q`` gives
    the clustering (Zeng & Cheung 2009 use Q-alpha as a clustering baseline too).

    ``G`` is formed only when it is small next to the data (``D^2 <= 128 n k`` and
    ``D <= 5000``, ``D`` counting non-constant features), where a dense ``eigh`` is fastest;
    otherwise ARPACK's Lanczos runs on the matrix-free product (:func:`g_matvec`,
    ``O(D n k)`` per product), warm-started at the previous ``alpha``.

    Parameters
    ----------
    n_clusters : int, default=2
        Number ``k`` of clusters (columns of ``Q``).
    max_iter : int, default=100
        Cap on the number of (``alpha``, ``Q``) iterations; hitting it raises a
        ``ConvergenceWarning``.
    tol : float, default=1e-6
        Stop when ``||alpha^(r) - alpha^(r-1)|| < tol``, the two signs aligned.
    init : {"uniform", "random"}, default="uniform"
        ``"uniform"``: ``alpha^(0) = 1/sqrt(D)`` and ``Q^(0)`` the ``k`` leading eigenvectors of
        ``A_alpha0`` (deterministic; Zeng & Cheung 2009's setting). ``"random"``: a random
        orthonormal ``Q^(0)`` drawn from ``random_state``.
    n_init : int, default=10
        Restarts of the k-means on the rows of ``Q``.
    random_state : int, RandomState instance or None, default=None
        Seeds the k-means and, with ``init="random"``, ``Q^(0)`` (drawn first).
    n_features_to_select : int or None, default=None
        Number of top-weighted features kept by ``transform``; None keeps all.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        The weights ``alpha`` (higher is better): unit norm, sign chosen so that
        ``sum(alpha) >= 0``; 0 for constant features.
    ranking_ : ndarray of shape (n_features,), int
        Rank of each feature, 1 = best (the position in ``feature_order_`` + 1).
    feature_order_ : ndarray of shape (n_features,), int
        Feature indices, largest weight first; constant features last.
    constant_mask_ : ndarray of shape (n_features,), bool
    Q_ : ndarray of shape (n_samples, n_clusters)
        The orthonormal ``Q`` of the last iteration, ``qr(A_alpha Q_prev)``.
    labels_ : ndarray of shape (n_samples,)
        k-means (``n_init`` restarts) on the rows of ``Q_``, not row-normalised.
    objective_history_ : list of float
        ``alpha^(r)T G(Q^(r-1)) alpha^(r) = trace(Q^(r-1)T A_alpha^2 Q^(r-1))`` for each
        iteration ``r``, computed as ``||A_alpha Q^(r-1)||_F^2``; non-decreasing.
    n_iter_ : int
        Iterations run.
    n_features_in_ : int

    Notes
    -----
    Decisions (the paper's text was not at hand; each is an assumption):

    - Preprocessing: every feature is centred over the samples and scaled to unit L2 norm
      (our reading of the paper's normalisation). A constant feature has no
      direction: it is left out of ``M``, gets ``alpha_j = 0`` and is ranked last.
    - The objective recorded is the eigenvalue reached by the ``alpha``-step, i.e. the
      objective at (``alpha^(r)``, ``Q^(r-1)``). It is non-decreasing because ``alpha^(r+1)``
      maximises over the sphere for ``Q^(r)``, and because, for ``C = Q^T A^2 Q`` and
      ``E = Q^T A^4 Q >= C^2`` (Loewner order), the orthogonal-iteration step gives
      ``trace(C^-1 E) >= trace(C)``.
    - ``labels_``: k-means on the rows of ``Q`` as they are. ``A_alpha`` is a linear kernel of
      centred features, not a non-negative affinity, so the clusters sit at distinct means in
      the row space of ``Q`` (the spectral relaxation of k-means) rather than along distinct
      directions; scaling each row to unit length (Ng-Jordan-Weiss) would throw away the
      distance from the origin that separates them.
    - Only the k-means draws from ``random_state`` when ``init="uniform"``, so
      :meth:`relabel` reproduces the labels of another seed without refitting.
    - Convergence can be slow: ``Q`` takes one orthogonal-iteration step per iteration, and
      with centred features ``k`` clusters fill only ``k - 1`` strong directions of
      ``A_alpha``, so the last column of ``Q`` moves at the rate of a small eigengap. On
      unstructured data ``tol=1e-6`` is often not met within ``max_iter=100`` (a
      ``ConvergenceWarning``), although the weights then change little.

    References
    ----------
    Wolf, L. & Shashua, A. (2005), "Feature selection for unsupervised and supervised
    inference: the emergence of sparsity in a weight-based approach", JMLR 6, pp. 1855-1887:
    the unsupervised objective ``trace(Q^T A_alpha^T A_alpha Q)`` and the Q-alpha algorithm
    (the matrix ``G``, its leading eigenvector, the QR step). Equation numbers are not cited:
    the paper's text was not at hand.

    Examples
    --------
    Three clusters separated along the first 3 of 30 features:

    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> y = np.repeat([0, 1, 2], 20)
    >>> X = rng.randn(60, 30)
    >>> X[:, :3] += 4 * np.eye(3)[y]
    >>> model = QAlpha(n_clusters=3, random_state=0).fit(X)
    >>> sorted(model.feature_order_[:3].tolist())
    [0, 1, 2]
    >>> bool(np.isclose(np.linalg.norm(model.scores_), 1.0))
    True
    >>> sorted(np.bincount(model.labels_).tolist())
    [20, 20, 20]
    """

    higher_is_better = True

    _parameter_constraints: dict = {
        **FeatureRanker._parameter_constraints,
        "n_clusters": [IntInterval(1, None, closed="left")],
        "max_iter": [IntInterval(1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "init": [StrOptions(set(INITS))],
        "n_init": [IntInterval(1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self, n_clusters=2, *, max_iter=100, tol=1e-6, init="uniform", n_init=10,
        random_state=None, n_features_to_select=None,
    ):
        self.n_clusters = n_clusters
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.n_init = n_init
        self.random_state = random_state
        self.n_features_to_select = n_features_to_select

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # min(n, d) x min(n, d) arrays: FeatureRanker.fit refuses beyond, before any copy
        tags.ranker_tags.max_smaller_side = MAX_SMALLER_SIDE
        return tags

    def _score(self, X, rng):
        n, D = X.shape
        check_n_clusters(self.n_clusters, n)
        c = self.n_clusters
        M_all = normalized_feature_rows(X)
        active = np.flatnonzero(np.any(M_all, axis=1))
        weights = np.zeros(D)
        self.objective_history_ = []
        self.n_iter_ = 0
        if active.size == 0:
            warnings.warn("Every feature is constant: all weights 0, one cluster.",
                          UserWarning, stacklevel=4)
            self.Q_ = np.zeros((n, c))
            self.labels_ = np.zeros(n, dtype=np.intp)
            return weights

        M = np.ascontiguousarray(M_all[active])
        d = active.size
        alpha = np.full(d, 1.0 / np.sqrt(d))
        Q = _initial_indicator(M, c, self.init, rng)
        dense = d <= _DENSE_G_MAX_FEATURES and d * d <= _DENSE_G_RATIO * n * c
        gram = M @ M.T if dense else None
        history = []
        converged = False
        for _ in range(self.max_iter):
            P = M @ Q
            if not np.any(P):  # Q orthogonal to every feature: G = 0, nothing to weigh
                warnings.warn("Q is orthogonal to every feature (G = 0); weights left as they "
                              "are.", UserWarning, stacklevel=4)
                break
            new = _orient(_leading_eigenvector(M, P, alpha, gram))
            Z = M.T @ (new[:, None] * P)  # A_alpha Q, (n, k)
            history.append(float(np.einsum("ij,ij->", Z, Z)))  # = alpha^T G alpha
            Q = np.linalg.qr(Z)[0]
            step = min(np.linalg.norm(new - alpha), np.linalg.norm(new + alpha))
            alpha = new
            if step < self.tol:
                converged = True
                break
        if not converged and len(history) == self.max_iter:
            warnings.warn(f"Q-alpha did not converge in max_iter={self.max_iter} iterations "
                          f"(tol={self.tol}).", ConvergenceWarning, stacklevel=4)

        weights[active] = alpha
        self.Q_ = Q
        self.objective_history_ = history
        self.n_iter_ = len(history)
        self.labels_ = self._discretize(rng)
        return weights

    def _discretize(self, rng):
        """k-means on the rows of ``Q_`` (the only use of ``rng`` with ``init="uniform"``)."""
        if not np.any(self.Q_):
            return np.zeros(self.Q_.shape[0], dtype=np.intp)
        model = KMeans(n_clusters=self.n_clusters, n_init=self.n_init, random_state=rng)
        return model.fit_predict(self.Q_)

    def _scores_use_random_state(self):
        """True only with ``init="random"``: otherwise ``alpha`` and ``Q`` are deterministic."""
        return self.init == "random"

    def relabel(self, random_state):
        """``labels_`` of a fit with ``random_state``, by re-running only the k-means on ``Q_``.

        Parameters
        ----------
        random_state : int, RandomState instance or None

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Equal to ``QAlpha(..., random_state=random_state).fit(X).labels_``.
        """
        check_is_fitted(self)
        if self._scores_use_random_state():
            raise NotImplementedError(
                "QAlpha with init='random' draws Q0 from random_state: refit to change it."
            )
        return self._discretize(check_random_state(random_state))
