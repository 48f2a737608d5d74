"""Shared math of the l2,1-regularised embedded methods (UDFS, NDFS; JELSR and SOGFS to come).

Three pieces, each used by at least two methods:

- the reweighted l2,1 (IRLS) step: for the current ``W``, ``E = diag(2 sqrt(||w^j||^2 + eps))``
  (the inverse of the references' ``D``), and the smoothed norm it majorises
  (:func:`l21_eps`, :func:`reweighting`, :func:`smoothed_l21`);
- the weighted ridge ``W = (X^T X + beta E^{-1})^{-1} X^T Y`` solved in whichever space is
  smaller, by the push-through identity when ``d > n`` (:class:`WeightedRidge`);
- the ``c`` smallest eigenvectors of ``P = M + gamma E^{-1}`` with ``M = X^T L X``, dense when
  ``d <= n`` and through a low-rank operator for ``P^{-1}`` when ``d > n``
  (:class:`GraphQuadratic`, :func:`penalized_smallest_eigenvectors`), with the starts of
  ``init_D`` (:func:`initial_weights`, :func:`null_space_start`).

Conventions: rows are samples; ``E`` is kept rather than
``D = E^{-1}`` because it is bounded and a pruned feature simply gets ``E_jj ~ 0``; no ``d x d``
array is formed when ``d > n``.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg

from ..graphs import canonical_sign_flip
from .base import FeatureRanker

__all__ = ["EPS_FACTOR", "INIT_D", "EmbeddedRanker", "GraphQuadratic", "WeightedRidge", "initial_weights",
           "l21_eps", "null_space_start", "penalized_smallest_eigenvectors", "reweighting",
           "row_norms_sq", "smoothed_l21"]

#: Our smoothing of the l2,1 norm: ``eps = EPS_FACTOR * max(1, max_j ||w^j||^2)``.
EPS_FACTOR = 1e-12

#: The starts of the reweighting: ``"identity"`` (``D0 = I``, the papers') and ``"diag_M"``
#: (``D0 = diag(M) / mean(diag M) + 1e-3``, ours, which breaks the tie of the degenerate start).
INIT_D = ("identity", "diag_M")

# Eigenvalues of L below this times the largest are round-off of its null space (L 1 = 0).
_RANK_RTOL = 1e-12


class EmbeddedRanker(FeatureRanker):
    """Base of the l2,1 embedded methods: scores ``||w^j||_2`` of a fitted ``W``.

    Constant features are left out of the fit (their zero local cost would rank them first
    in UDFS/SOGFS, and a constant column is an intercept to the regressions): a subclass
    fits ``X[:, ~constant_mask_]`` and calls :meth:`_embedded_scores` with its ``W``, which
    sets ``W_`` (zero rows for the constant features), ``objective_history_``, ``n_iter_``
    and ``converged_``, and returns the scores (``-inf`` for the constant features).
    """

    higher_is_better = True
    reported_attributes = (*FeatureRanker.reported_attributes, "converged_")
    stored_arrays = ("W_",)

    #: ``status_`` of a fit (:func:`~fsclust.rankers.base.status_warnings` reports it): a
    #: weight of the l2,1 term large beside the data's scale drives every row of ``W`` to the
    #: smoothing floor, where the order of the rows is round-off's, not the fit's. Measured
    #: (issue 40): NDFS's ``beta="auto"`` before 7de96bf on Yale, ORL and COIL20 (largest row
    #: norm 2e-7 to 8e-7; at ``beta = 1``, 2e-3 on ORL), and on the planted suite's counts at
    #: 0.5; ``beta=1e6`` on blobs (tests/test_ndfs.py).
    statuses = {
        "fitted": ("ok", "the fit kept rows of W above the smoothing floor"),
        "collapsed": ("warning", "every row of W fell to the l2,1 smoothing floor (largest "
                                 "row norm below sqrt(1e-12)): the order of the features is "
                                 "round-off's, not the fit's; the l2,1 weight is too large "
                                 "for these data, pass a smaller one"),
    }

    def _embedded_scores(self, W, history, converged, floor=None):
        keep = ~self.constant_mask_
        self.W_ = np.zeros((keep.size, W.shape[1]))
        self.W_[keep] = W
        self.objective_history_ = history
        self.n_iter_ = len(history)
        self.converged_ = converged
        scores = np.full(keep.size, -np.inf)
        scores[keep] = np.sqrt(row_norms_sq(W))
        # sqrt(EPS_FACTOR) bounds the smoothing sqrt(eps) from below: a row norm under it is
        # at the floor whatever the fit's eps (``floor``: that bound in the units of W, for a
        # fit that ran on a scaled X)
        floor = np.sqrt(EPS_FACTOR) if floor is None else floor
        collapsed = W.size > 0 and float(scores[keep].max()) <= floor
        self.status_ = "collapsed" if collapsed else "fitted"
        return scores


def row_norms_sq(W):
    """``||w^j||^2`` for every row ``j`` of ``W``."""
    return np.einsum("ij,ij->i", W, W)


def l21_eps(W):
    """The smoothing ``eps = 1e-12 * max(1, max_j ||w^j||^2)`` for the scale of ``W``.

    A fit takes it once, from its first ``W``, and keeps it: the objective ``J_eps`` that the
    reweighting provably decreases is then one function throughout the fit.

    Examples
    --------
    >>> l21_eps(np.array([[3.0, 4.0], [0.0, 0.0]]))
    2.5e-11
    """
    return EPS_FACTOR * max(1.0, float(np.max(row_norms_sq(W), initial=0.0)))


def smoothed_l21(W, eps):
    """``sum_j sqrt(||w^j||^2 + eps)``: the l2,1 norm the reweighting minimises.

    Examples
    --------
    >>> smoothed_l21(np.array([[3.0, 4.0], [0.0, 0.0]]), 0.0)
    5.0
    """
    return float(np.sum(np.sqrt(row_norms_sq(W) + eps)))


def l21_weight_max(X, Y):
    """``2 max_j ||x_j^T Y||_2``: the smallest weight ``lam`` for which ``W = 0`` minimises
    ``||X W - Y||_F^2 + lam ||W||_{2,1}`` (the group lasso's ``lambda_max``: ``W = 0`` is
    optimal iff every row's gradient ``2 ||x_j^T Y||`` is at most ``lam``).

    Scaling ``X`` by ``s`` scales it by ``s``: a weight given as a fraction of it is
    scale-free (the fit's ``W`` scales by ``1 / s``, its ranking does not change).

    Examples
    --------
    >>> l21_weight_max(np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([[3.0], [4.0]]))
    16.0
    """
    return 2.0 * float(np.sqrt(np.max(row_norms_sq(X.T @ Y), initial=0.0)))


def reweighting(W, eps):
    """``E = 2 sqrt(||w^j||^2 + eps)``, the diagonal of ``D^{-1}`` of the IRLS step.

    Minimising ``f(W) + g tr(W^T E^{-1} W)`` over a constraint set that holds the current
    ``W`` does not increase ``f(W) + g smoothed_l21(W, eps)`` (Nie et al. 2010, Lemma 1:
    ``sqrt(a) - a / (2 sqrt(b)) <= sqrt(b) - b / (2 sqrt(b))``, here with ``a, b`` shifted
    by ``eps``).

    Parameters
    ----------
    W : ndarray of shape (d, c)
    eps : float
        From :func:`l21_eps`.

    Returns
    -------
    E : ndarray of shape (d,)
        Strictly positive (at least ``2 sqrt(eps)``).

    References
    ----------
    Nie, Huang, Cai & Ding (2010), "Efficient and robust feature selection via joint
    l2,1-norms minimization", NIPS 23, Lemma 1.

    Examples
    --------
    >>> reweighting(np.array([[3.0, 4.0], [0.0, 0.0]]), 0.0)
    array([10.,  0.])
    """
    return 2.0 * np.sqrt(row_norms_sq(W) + eps)


class WeightedRidge:
    """The weighted ridge ``W = (X^T X + beta E^{-1})^{-1} X^T Y`` for many ``Y``, factored once.

    When ``d > n``, the push-through identity
    ``(X^T X + beta E^{-1})^{-1} X^T = E X^T (X E X^T + beta I_n)^{-1}`` gives ``W`` from one
    ``n x n`` Cholesky factor (``O(n^2 d + n^3)``, memory ``O(n^2 + n d)``), and the residual
    ``Y - X W = beta (X E X^T + beta I_n)^{-1} Y`` without cancellation. When ``d <= n``, the
    ``d x d`` system in the scaled form ``(E^{1/2} X^T X E^{1/2} + beta I_d) Z = E^{1/2} X^T Y``,
    ``W = E^{1/2} Z``, which stays bounded when ``E_jj -> 0`` (no ``E^{-1}`` is formed). Both
    matrices are SPD with smallest eigenvalue at least ``beta``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    E : ndarray of shape (d,)
        Non-negative diagonal (:func:`reweighting`).
    beta : float
        Strictly positive.

    Examples
    --------
    >>> rng = np.random.RandomState(0)
    >>> X, Y, E = rng.randn(5, 8), rng.randn(5, 2), rng.rand(8)
    >>> W, R = WeightedRidge(X, E, 0.5).solve(Y)
    >>> literal = np.linalg.solve(X.T @ X + 0.5 * np.diag(1 / E), X.T @ Y)
    >>> bool(np.allclose(W, literal)), bool(np.allclose(R, Y - X @ W))
    (True, True)
    """

    def __init__(self, X, E, beta):
        self.beta = float(beta)
        n, d = X.shape
        self.push_through = d > n
        self._root = np.sqrt(E)
        self._Xs = X * self._root
        # X E X^T (n x n) or E^{1/2} X^T X E^{1/2} (d x d), each a symmetric rank-k product
        A = self._Xs @ self._Xs.T if self.push_through else self._Xs.T @ self._Xs
        A = 0.5 * (A + A.T)
        A[np.diag_indices_from(A)] += self.beta
        self._factor = scipy.linalg.cho_factor(A, lower=True, check_finite=False)

    def solve(self, Y):
        """``W (d, c)`` and the residual ``Y - X W (n, c)`` for the targets ``Y (n, c)``."""
        if self.push_through:
            B = scipy.linalg.cho_solve(self._factor, Y, check_finite=False)
            return self._root[:, None] * (self._Xs.T @ B), self.beta * B
        Z = scipy.linalg.cho_solve(self._factor, self._Xs.T @ Y, check_finite=False)
        return self._root[:, None] * Z, Y - self._Xs @ Z

    def hat_complement(self):
        """``I_n - X (X^T X + beta E^{-1})^{-1} X^T`` as a dense ``n x n`` array, symmetric.

        ``beta (X E X^T + beta I_n)^{-1}`` when ``d > n``. For updates that need the matrix
        itself (its positive and negative parts); a product with it is :meth:`solve`'s
        residual, which is cheaper.
        """
        if self.push_through:
            n = self._Xs.shape[0]
            H = self.beta * scipy.linalg.cho_solve(self._factor, np.eye(n), check_finite=False)
        else:
            H = -self._Xs @ scipy.linalg.cho_solve(self._factor, self._Xs.T, check_finite=False)
            H[np.diag_indices_from(H)] += 1.0
        return 0.5 * (H + H.T)


class GraphQuadratic:
    """``M = X^T L X`` for a symmetric PSD ``L (n, n)``, dense or as a factor ``U U^T``.

    ``d <= n``: ``M`` is formed (``d x d``). ``d > n``: ``L = R R^T`` from the ``n x n``
    ``eigh`` of ``L`` (eigenvalues above ``1e-12`` times the largest; ``r <= n - 1`` columns
    since ``L 1 = 0``), and ``U = X^T R`` (``d x r``) stands for ``M = U U^T``: no ``d x d``
    array. ``null_dim`` bounds the dimension of ``null(M)`` from below (``d - r``, or 0 when
    ``M`` is dense); the start ``D0 = I`` is degenerate when it exceeds the number ``c`` of
    eigenvectors asked for: the first ``W`` is then not unique.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    L : ndarray or scipy.sparse matrix of shape (n, n)

    Examples
    --------
    >>> rng = np.random.RandomState(0)
    >>> X, L = rng.randn(4, 6), np.eye(4) - np.ones((4, 4)) / 4
    >>> Mq = GraphQuadratic(X, L)
    >>> Mq.dense, Mq.null_dim, bool(np.allclose(Mq.U @ Mq.U.T, X.T @ L @ X))
    (False, 3, True)
    """

    def __init__(self, X, L):
        n, d = X.shape
        self.n_features = d
        self.dense = d <= n
        if self.dense:
            LX = L @ X
            M = X.T @ np.asarray(LX)
            self.M = 0.5 * (M + M.T)
            self.U = None
            self.null_dim = 0
        else:
            Ld = L.toarray() if sp.issparse(L) else np.asarray(L, dtype=np.float64)
            vals, vecs = scipy.linalg.eigh(0.5 * (Ld + Ld.T))
            keep = vals > _RANK_RTOL * max(vals[-1], 0.0)
            R = vecs[:, keep] * np.sqrt(vals[keep])
            self.M = None
            self.U = X.T @ R
            self.null_dim = d - int(keep.sum())

    def diagonal(self):
        """``diag(M)``, the local cost ``f_j^T L f_j`` of each feature."""
        return np.diag(self.M).copy() if self.dense else row_norms_sq(self.U)

    def trace_form(self, W):
        """``tr(W^T M W)``."""
        if self.dense:
            return float(np.einsum("ij,ij->", W, self.M @ W))
        UW = self.U.T @ W
        return float(np.einsum("ij,ij->", UW, UW))

    def matmat(self, W):
        """``M W``."""
        return self.M @ W if self.dense else self.U @ (self.U.T @ W)


def initial_weights(quadratic, init_D):
    """The start ``E0 = D0^{-1}`` of the reweighting.

    Parameters
    ----------
    quadratic : GraphQuadratic
    init_D : {"identity", "diag_M"}
        ``"identity"``: ``D0 = I`` (the papers'). ``"diag_M"``: ``D0 = diag(M_jj) /
        mean(M_jj) + 1e-3`` (our decision): breaks the tie of the degenerate start
        towards the features with a small local cost.

    Returns
    -------
    E0 : ndarray of shape (d,)
    """
    d = quadratic.n_features
    if init_D == "identity":
        return np.ones(d)
    if init_D == "diag_M":
        m = quadratic.diagonal()
        mean = m.mean()
        return 1.0 / ((m / mean if mean > 0 else m) + 1e-3)
    raise ValueError(f"init_D must be one of {INIT_D}, got {init_D!r}.")


def null_space_start(quadratic, n_components, random_state):
    """An orthonormal ``W (d, c)`` in ``null(M)``: a minimiser of ``tr(W^T (M + g I) W)``.

    When ``null(M)`` has dimension above ``c`` (``d >= n`` and ``D0 = I``), every orthonormal
    basis of any ``c``-dimensional subspace of it minimises the first step, and an
    eigensolver picks one by round-off (LAPACK, ARPACK and MATLAB's ``eig`` differ; ARPACK's
    single Krylov vector may even miss all but one direction of the eigenspace). We pick it
    ourselves, reproducibly: the projection of a seeded Gaussian ``d x c`` block onto
    ``range(U)^perp``, orthonormalised. The choice reaches the scores (the later reweighting
    depends on it): they depend on ``random_state`` on such data, as any implementation's
    depend on its solver.

    Parameters
    ----------
    quadratic : GraphQuadratic
        In its factored form (``d > n``).
    n_components : int
    random_state : numpy.random.RandomState

    Returns
    -------
    W : ndarray of shape (d, n_components)
    """
    U = quadratic.U
    Q, _ = np.linalg.qr(U)
    G = random_state.standard_normal((U.shape[0], n_components))
    G -= Q @ (Q.T @ G)
    W, _ = np.linalg.qr(G)
    return canonical_sign_flip(W)


def penalized_smallest_eigenvectors(quadratic, E, gamma, n_components):
    """The ``c`` smallest eigenpairs of ``P = M + gamma E^{-1}`` (the UDFS / SOGFS W-step).

    Dense ``M`` (``d <= n``): ``scipy.linalg.eigh(P, subset_by_index=[0, c-1])``. Factored
    ``M = U U^T`` (``d > n``): with ``E' = E / gamma``, ``P^{-1} v = E' v - E' U (I_r + U^T E'
    U)^{-1} U^T E' v`` (Woodbury; ``O(d r^2 + r^3)`` setup, ``O(d r)`` per product), and the
    ``c`` largest eigenpairs of ``P^{-1}`` by ARPACK (``which="LA"``, ``v0 = 1 / sqrt(d)``),
    so that no ``d x d`` array exists. ``E_jj -> 0`` (a pruned feature) only makes ``P^{-1}``
    smaller there.

    Parameters
    ----------
    quadratic : GraphQuadratic
    E : ndarray of shape (d,)
        Strictly positive.
    gamma : float
        Strictly positive.
    n_components : int
        ``c < d``.

    Returns
    -------
    eigenvalues : ndarray of shape (c,)
        Of ``P``, ascending.
    W : ndarray of shape (d, c)
        Orthonormal columns, each with its largest-magnitude entry positive. Scores that use
        ``W`` only through ``W W^T`` (row norms) do not depend on the basis.
    """
    c = int(n_components)
    if quadratic.dense:
        P = quadratic.M.copy()
        P[np.diag_indices_from(P)] += gamma / E
        vals, W = scipy.linalg.eigh(P, subset_by_index=[0, c - 1], check_finite=False)
        return vals, canonical_sign_flip(W)
    U = quadratic.U
    d, r = U.shape
    Ep = E / gamma
    EU = Ep[:, None] * U
    K = U.T @ EU
    K = 0.5 * (K + K.T)
    K[np.diag_indices(r)] += 1.0
    factor = scipy.linalg.cho_factor(K, lower=True, check_finite=False)

    def inverse(V):
        V = V.reshape(d, -1)
        EV = Ep[:, None] * V
        return EV - EU @ scipy.linalg.cho_solve(factor, U.T @ EV, check_finite=False)

    op = scipy.sparse.linalg.LinearOperator((d, d), matvec=inverse, matmat=inverse,
                                            rmatvec=inverse, dtype=np.float64)
    mu, W = scipy.sparse.linalg.eigsh(op, k=c, which="LA", v0=np.full(d, 1.0 / np.sqrt(d)),
                                      tol=0.0)
    order = np.argsort(-mu)
    return 1.0 / mu[order], canonical_sign_flip(W[:, order])
