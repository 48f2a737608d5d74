"""UDFS: l2,1-norm regularised discriminative feature selection (Yang et al. 2011)."""

from __future__ import annotations

import logging
from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from ..cluster.affinity import check_n_clusters
from ..graphs import capped_n_neighbors, squared_distances
from ._sparse_learning import (INIT_D, EmbeddedRanker, GraphQuadratic, initial_weights,
                               l21_eps, null_space_start, penalized_smallest_eigenvectors,
                               reweighting, smoothed_l21)
from .base import FeatureRanker, IntInterval

log = logging.getLogger(__name__)


def neighbourhoods(X, n_neighbors):
    """``N_i = [i, i_1, ..., i_k]``: each sample first, then its ``k`` nearest others.

    Returns
    -------
    N : ndarray of shape (n, k + 1), int
    D2 : ndarray of shape (n, n)
        The squared Euclidean distances (:func:`fsclust.graphs.squared_distances`).
    """
    D2 = squared_distances(X)
    n = D2.shape[0]
    ranked = D2.copy()
    # the sample itself first even when a duplicate is at distance 0 (our decision)
    ranked[np.diag_indices(n)] = -1.0
    N = np.argsort(ranked, axis=1, kind="stable")[:, :n_neighbors + 1]
    return N, D2


def local_discriminative_laplacian(X, n_neighbors, lam):
    """``L = sum_i S_i H B_i H S_i^T``, ``B_i = (Xt_i Xt_i^T + lambda I_{k+1})^{-1}``.

    ``Xt_i = H X[N_i]`` is the neighbourhood of sample i centred within itself
    (:func:`neighbourhoods`), so its Gram matrix is ``-1/2 H D2[N_i, N_i] H`` (classical
    scaling): all ``n`` local blocks come from the one ``n x n`` distance matrix, in one
    batched solve, ``O(n^2 d + n k^3)``. ``L`` is symmetric PSD with ``L 1 = 0``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    n_neighbors : int
        ``k``, at most ``n - 1``.
    lam : float
        The local ridge ``lambda``.

    Returns
    -------
    L : scipy.sparse.csr_matrix of shape (n, n)
        At most ``n (k + 1)^2`` non-zeros.

    References
    ----------
    Yang, Shen, Ma, Huang & Zhou (2011), IJCAI, section 3 (the local discriminative score
    and its trace form ``tr(W^T X L X^T W)`` in the paper's column convention).
    """
    N, D2 = neighbourhoods(X, n_neighbors)
    n, m = N.shape
    H = np.eye(m) - 1.0 / m
    local_d2 = D2[N[:, :, None], N[:, None, :]]
    gram = -0.5 * (H @ local_d2 @ H)
    gram[:, np.arange(m), np.arange(m)] += lam
    blocks = H @ np.linalg.solve(gram, np.broadcast_to(H, gram.shape))
    rows = np.broadcast_to(N[:, :, None], blocks.shape).ravel()
    cols = np.broadcast_to(N[:, None, :], blocks.shape).ravel()
    L = sp.csr_matrix((blocks.ravel(), (rows, cols)), shape=(n, n))
    return sp.csr_matrix(0.5 * (L + L.T))


#: The largest number of samples (:class:`~fsclust.rankers.base.RankerTags`): the local
#: discriminative Laplacian (dense ``n x n``) and ``X^T L X`` (``d x d`` for ``d <= n``, else
#: an ``n x n`` eigen-decomposition): about 4.0 float64 ``n x n`` arrays at ``d = n``
#: (docs/measurements.md, "Size bounds of the rankers"), within 4 GiB up to 11,585.
MAX_SAMPLES = 10_000


class UDFS(EmbeddedRanker):
    """UDFS: the projection ``W`` that best preserves the local discriminative structure.

    Solves ``min_W tr(W^T M W) + gamma ||W||_{2,1}`` s.t. ``W^T W = I_c``, with
    ``M = X^T L X`` and ``L`` the local discriminative Laplacian of the ``k``-neighbourhoods
    (:func:`local_discriminative_laplacian`), by the reweighted eigen-step: ``W`` = the ``c``
    smallest eigenvectors of ``M + gamma D``, ``D = diag(1 / (2 sqrt(||w^j||^2 + eps)))``.
    Features are ranked by ``||w^j||_2`` (higher is better).

    Parameters
    ----------
    n_clusters : int, default=5
        ``c``, the number of columns of ``W``.
    n_neighbors : int, default=5
        ``k``: each neighbourhood has the sample and its ``k`` nearest others.
    lam : float, default=1000.0
        The local ridge ``lambda`` (FSASL's default).
    gamma : float, default=1.0
        The l2,1 weight.
    init_D : {"identity", "diag_M"}, default="identity"
        The start of the reweighting (:func:`~fsclust.rankers._sparse_learning.initial_weights`).
        With ``"identity"`` and ``d >= n`` the first step is degenerate (``degenerate_start_``).
    max_iter : int, default=100
    tol : float, default=1e-8
        Stop when the objective changes by at most ``tol`` times its value.
    random_state : int, RandomState instance or None, default=None
        Used only for the degenerate start (:func:`~fsclust.rankers._sparse_learning.
        null_space_start`); the fit is deterministic otherwise.
    n_features_to_select : int or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``||w^j||_2``; ``-inf`` for constant features (left out of the fit).
    W_ : ndarray of shape (n_features, c)
        The final projection (zero rows for constant features); ``c = n_clusters``, or
        ``d - 1`` when there are fewer non-constant features ``d`` than that.
    objective_history_ : list of float
        ``J_eps = tr(W^T M W) + gamma sum_j sqrt(||w^j||^2 + eps)`` after each W-step.
    n_iter_ : int
    converged_ : bool
        The relative change fell to ``tol`` within ``max_iter`` iterations.
    degenerate_start_ : bool
        ``init_D="identity"`` and ``null(M)`` has more than ``c`` dimensions (``d >= n``):
        the first ``W`` is one of infinitely many minimisers, drawn from ``random_state``
        (as any eigensolver's choice would be); other implementations' scores cannot be expected to agree.
    init_D_ : str
        The start used (reported beside the ranking).

    Notes
    -----
    Decisions: ``lambda = 1000`` (FSASL's default) and ``gamma = 1`` (values of FSASL's
    grid ``10^(-5..5)``; the paper's own were not verified); each sample is forced first in its own neighbourhood; the smoothing
    ``eps = 1e-12 max(1, max ||w^j||^2)`` is fixed from the first ``W`` (``||w^j|| <= 1``
    here, so ``eps = 1e-12``); ``M`` is formed only when ``d <= n``, else it is ``U U^T``
    with ``U = X^T R``, ``L = R R^T``, and the eigen-step runs on ``P^{-1}`` (the
    references form ``M`` and eigendecompose ``d x d`` every iteration). UDFS is not scale
    invariant (a constant feature would have zero local cost and rank first): constant
    features are left out; the estimator does not rescale the others (z-score them first).

    References
    ----------
    Yang, Shen, Ma, Huang & Zhou (2011), "l2,1-Norm Regularized Discriminative Feature
    Selection for Unsupervised Learning", IJCAI, pp. 1589-1594 (the objective and Algorithm
    1; equation numbers not verified); Nie, Huang, Cai & Ding (2010), NIPS (the reweighting).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(60, 6))
    >>> X[:30, 2] += 6.0
    >>> X[15:45, 4] += 6.0
    >>> X = (X - X.mean(0)) / X.std(0)  # the local costs compare features of equal variance
    >>> sorted(UDFS(n_clusters=2).fit(X).feature_order_[:2].tolist())
    [2, 4]
    """

    reported_attributes = (*EmbeddedRanker.reported_attributes, "degenerate_start_", "init_D_")

    _parameter_constraints: dict = {
        **FeatureRanker._parameter_constraints,
        "n_clusters": [IntInterval(1, None, closed="left")],
        "n_neighbors": [IntInterval(1, None, closed="left")],
        "lam": [Interval(Real, 0, None, closed="neither")],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "init_D": [StrOptions(set(INIT_D))],
        "max_iter": [IntInterval(1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, n_clusters=5, *, n_neighbors=5, lam=1000.0, gamma=1.0,
                 init_D="identity", max_iter=100, tol=1e-8, random_state=None,
                 n_features_to_select=None):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.lam = lam
        self.gamma = gamma
        self.init_D = init_D
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.ranker_tags.max_samples = MAX_SAMPLES
        return tags

    def _score(self, X, rng):
        n = X.shape[0]
        Xk = X[:, ~self.constant_mask_]
        d = Xk.shape[1]
        check_n_clusters(self.n_clusters, n)
        # c orthonormal columns in d dimensions: with c >= d every feature would get norm 1
        c = max(1, min(int(self.n_clusters), d - 1))
        L = local_discriminative_laplacian(Xk, capped_n_neighbors(self.n_neighbors, n, "UDFS"),
                                           self.lam)
        quadratic = GraphQuadratic(Xk, L)
        W, history, converged, degenerate = fit_udfs(
            quadratic, c, self.gamma, self.init_D, self.max_iter, self.tol, rng)
        self.degenerate_start_ = degenerate
        self.init_D_ = self.init_D
        log.info("UDFS: %d iterations, J = %.6g, converged %s, degenerate start %s",
                 len(history), history[-1], converged, degenerate)
        return self._embedded_scores(W, history, converged)


def fit_udfs(quadratic, n_components, gamma, init_D, max_iter, tol, random_state, *,
             eps=None, absolute_tol=False):
    """The reweighted eigen-iteration of UDFS on ``M`` (:class:`GraphQuadratic`).

    Also SOGFS's inner loop. Returns ``(W, objective_history, converged, degenerate_start)``;
    ``degenerate_start`` says the first ``W`` came from
    :func:`~fsclust.rankers._sparse_learning.null_space_start` (``D0 = I`` and
    ``dim null(M) > c``). ``eps`` (default: :func:`~fsclust.rankers._sparse_learning.l21_eps`
    of the first ``W``) and ``absolute_tol`` (stop on ``|dJ| <= tol``) are for reproducing
    a reference's guard and stop.
    """
    c = n_components
    degenerate = init_D == "identity" and quadratic.null_dim > c
    E = initial_weights(quadratic, init_D)
    history = []
    converged = False
    for it in range(max_iter):
        if it == 0 and degenerate:
            W = null_space_start(quadratic, c, random_state)
        else:
            _, W = penalized_smallest_eigenvectors(quadratic, E, gamma, c)
        if eps is None:
            eps = l21_eps(W)
        history.append(quadratic.trace_form(W) + gamma * smoothed_l21(W, eps))
        E = reweighting(W, eps)
        if it >= 1 and abs(history[-1] - history[-2]) <= tol * (
                1.0 if absolute_tol else abs(history[-2])):
            converged = True
            break
    return W, history, converged, degenerate
