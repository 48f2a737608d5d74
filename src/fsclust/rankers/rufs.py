"""RUFS: robust unsupervised feature selection (Qian & Zhai 2013)."""

from __future__ import annotations

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from ..cluster.kmeans import KMeans
from ..graphs import capped_n_neighbors, knn_graph
from .base import FeatureRanker, IntInterval

#: Row norms below this count as this in the normalised residuals: the reference divides by
#: the norm unguarded and gives NaN on an exactly fitted row (duplicated samples).
_ROW_NORM_FLOOR = 1e-12

#: The reference's inner solvers: Armijo constant, step shrink factor, L-BFGS memory.
_ARMIJO, _SHRINK, _MEMORY = 0.2, 0.5, 10

#: Our caps (the reference loops until its tolerances hold): halvings of one line search and
#: iterations of one inner solve.
_MAX_HALVINGS, _MAX_INNER = 60, 500

#: Values of the neighbours' features gathered at once for the local kernel blocks (32 MiB).
_GATHER_ENTRIES = 2**22


def local_learning_matrix(X, n_neighbors=5, ridge=0.1, kernel="gram"):
    """``M = I - A`` (sparse) with ``L = M^T M``, the local-learning regulariser.

    ``N_i`` are the neighbours of sample ``i`` in the heat-kernel kNN graph (OR-symmetrised,
    no self-loops, Cai's bandwidth ``t``: the ``constructW`` defaults) and row ``i`` of ``A``
    is the kernel ridge regression from ``N_i`` evaluated at ``x_i``,
    ``a_i = k_i^T (K_i + ridge I)^{-1}`` with ``k_i = [k(x_i, x_j)]_{j in N_i}``, so that
    ``(A g)_i`` is the local model's prediction of ``g_i`` from the neighbours' values (Wu &
    Schoelkopf 2007; ``k(x, y) = exp(-||x - y||^2 / t)``).

    Parameters
    ----------
    X : ndarray of shape (n, D)
    n_neighbors : int, default=5
    ridge : float, default=0.1
        ``rLambda``.
    kernel : {"gram", "graph"}, default="gram"
        ``K_i``: ``"gram"``, the kernel's Gram matrix on ``N_i`` (``k(x_j, x_l)`` for every pair,
        1 on the diagonal); ``"graph"``, FSASL's ``localLearnMx_KRR``: the block of the sparse
        graph on ``N_i`` (0 on the diagonal and between neighbours that are not neighbours of
        each other), which is no kernel matrix (not positive semi-definite) and whose rows of
        ``A`` sum to 8-24 on the planted suite instead of about 0.9 (see :class:`RUFS`).

    Returns
    -------
    M : scipy.sparse.csr_matrix of shape (n, n)
    """
    n = X.shape[0]
    K, t = knn_graph(X, n_neighbors=capped_n_neighbors(n_neighbors, n, "RUFS"),
                     return_bandwidth=True)
    K = K.tocsr()
    K.sort_indices()
    dense = K.toarray() if kernel == "graph" else None
    squares = np.einsum("ij,ij->i", X, X)
    sizes = np.diff(K.indptr)
    rows, cols, vals = [], [], []
    for size in np.unique(sizes):
        members = np.flatnonzero(sizes == size)
        # batches whose gathered neighbours X[idx] stay within _GATHER_ENTRIES values
        step = max(1, _GATHER_ENTRIES // (int(size) * max(X.shape[1], 1)))
        for start in range(0, members.size, step):
            who = members[start:start + step]
            idx = K.indices[K.indptr[who][:, None] + np.arange(size)]
            # k_i: the graph's weights are the kernel's values on its edges
            targets = K.data[K.indptr[who][:, None] + np.arange(size)]
            if kernel == "graph":
                blocks = dense[idx[:, :, None], idx[:, None, :]]
            else:
                near = X[idx]
                sq = squares[idx]
                d2 = sq[:, :, None] + sq[:, None, :] - 2.0 * (near @ near.transpose(0, 2, 1))
                blocks = np.exp(-np.maximum(d2, 0.0) / t)
                blocks[:, np.arange(size), np.arange(size)] = 1.0
            blocks = blocks + ridge * np.eye(size)
            # K_i + ridge I is symmetric: a_i = solve(block, k_i)
            a = np.linalg.solve(blocks, targets[:, :, None])[:, :, 0]
            rows.append(np.repeat(who, size))
            cols.append(idx.ravel())
            vals.append(a.ravel())
    A = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(n, n))
    return (sp.identity(n, format="csr") - A).tocsr()


def _row_residual(R):
    """Sum of the row norms of ``R`` and ``R`` with each row divided by its (floored) norm."""
    norms = np.sqrt(np.einsum("ij,ij->i", R, R))
    return norms.sum(), R / np.maximum(norms, _ROW_NORM_FLOOR)[:, None]


def _l21(W, axis):
    """``sum ||.||`` over rows (``axis=1``) or columns (``axis=0``), and its gradient."""
    norms = np.sqrt(np.sum(W * W, axis=axis, keepdims=True))
    return norms.sum(), W / (norms + np.finfo(float).eps)


class _Objective:
    """The RUFS objective and its block gradients (one definition for all three blocks):

    ``J = ||GF - X||_{2,1} + gamma_F sum_j ||F[:, j]|| + mu sum(G) + nu tr(G^T L G)
    + alpha ||XW - G||_{2,1} + beta ||W||_{2,1} + (zeta / 4) ||G^T G - I||_F^2``.
    """

    def __init__(self, X, M, nu, alpha, beta, mu, gamma_F, zeta):
        self.X, self.M = X, M
        self.nu, self.alpha, self.beta = nu, alpha, beta
        self.mu, self.gamma_F, self.zeta = mu, gamma_F, zeta

    def W_block(self, G):
        def fun(W):
            loss, U = _row_residual(self.X @ W - G)
            penalty, dW = _l21(W, axis=1)
            return (self.alpha * loss + self.beta * penalty,
                    self.alpha * (self.X.T @ U) + self.beta * dW)
        return fun

    def G_block(self, F, W):
        XW = self.X @ W

        def fun(G):
            loss_f, U_f = _row_residual(G @ F - self.X)
            loss_h, U_h = _row_residual(G - XW)
            MG = self.M @ G
            LG = self.M.T @ MG
            gap = G.T @ G - np.eye(G.shape[1])
            value = (loss_f + self.mu * G.sum() + self.nu * np.sum(MG * MG)
                     + self.alpha * loss_h + 0.25 * self.zeta * np.sum(gap * gap))
            grad = (U_f @ F.T + self.mu + 2.0 * self.nu * LG + self.alpha * U_h
                    + self.zeta * (G @ gap))
            return value, grad
        return fun

    def F_block(self, G):
        def fun(F):
            loss, U = _row_residual(G @ F - self.X)
            penalty, dF = _l21(F, axis=0)
            return loss + self.gamma_F * penalty, G.T @ U + self.gamma_F * dF
        return fun

    def value(self, G, F, W):
        return self.G_block(F, W)(G)[0] + self.gamma_F * _l21(F, axis=0)[0] + \
            self.beta * _l21(W, axis=1)[0]


def _projected_gradient(x, g, nonnegative):
    """The gradient's components that can move ``x`` (kept where ``g < 0`` or ``x > 0``)."""
    return np.where((g < 0) | (x > 0), g, 0.0) if nonnegative else g


def projected_lbfgs(fun, x, *, nonnegative, tol_f, tol_grad):
    """FSASL's inner (projected) L-BFGS of RUFS, one solver for the three blocks.

    Memory 10, first scaling 1 then ``s^T y / y^T y``; the projected direction where it is a
    descent direction, else the projected gradient; backtracking by halves until
    ``f(P(x + t p)) <= f(x) + 0.2 g^T (P(x + t p) - x)`` (``P = max(., 0)`` or the identity).
    Stops when ``||PG|| <= tol_grad`` or when a step changes ``f`` by less than ``tol_f``, that
    step then not taken (as the reference).

    Returns
    -------
    x : ndarray
    pg : ndarray
        The projected gradient at ``x``.
    """
    f, g = fun(x)
    steps, changes = [], []
    for _ in range(_MAX_INNER):
        pg = _projected_gradient(x, g, nonnegative)
        if np.linalg.norm(pg) <= tol_grad:
            break
        q, coefs = g.copy(), []
        for s, y in reversed(list(zip(steps, changes))):
            a = np.vdot(s, q) / np.vdot(y, s)
            q -= a * y
            coefs.append(a)
        if steps:
            q *= np.vdot(steps[-1], changes[-1]) / np.vdot(changes[-1], changes[-1])
        for (s, y), a in zip(zip(steps, changes), reversed(coefs)):
            q += (a - np.vdot(y, q) / np.vdot(y, s)) * s
        direction = _projected_gradient(x, q, nonnegative)
        p = -direction if np.vdot(direction, g) > 0 else -pg
        t = 1.0
        for _ in range(_MAX_HALVINGS):
            x_t = x + t * p
            if nonnegative:
                np.maximum(x_t, 0.0, out=x_t)
            f_t, g_t = fun(x_t)
            # min(., 0): the projected step's first-order change can be positive; then only a
            # decrease is accepted (ours; the reference would accept that increase)
            if f_t <= f + _ARMIJO * min(np.vdot(g, x_t - x), 0.0):
                break
            t *= _SHRINK
        else:
            break  # no decrease along p to the last bit
        if abs(f_t - f) < tol_f:
            break
        s, y = x_t - x, g_t - g
        if np.vdot(y, s) > 0:  # the curvature pair keeps H positive definite (ours)
            steps, changes = (steps + [s])[-_MEMORY:], (changes + [y])[-_MEMORY:]
        x, f, g = x_t, f_t, g_t
    return x, _projected_gradient(x, g, nonnegative)


#: The settings of the reference (FSASL's ``fs_unsup_rufs.m`` with ``localLearnMx_KRR.m``) and
#: of our defaults before issue 40, for the comparisons with its code
#: (config/experiments/peers.yaml): ``RUFS(**REFERENCE_SETTINGS)`` is the reference's RUFS.
REFERENCE_SETTINGS = {"local_kernel": "graph", "beta": 1.0}

#: ``beta="auto"``: the weight of ``||W||_{2,1}`` is this fraction of the weight at which
#: ``W = 0`` minimises the robust regression of the start ``G0``,
#: ``alpha max_j ||x_j^T H0||`` (``H0`` the one-hot k-means labels; issue 40, see RUFS's
#: Notes, "Planted structure").
BETA_PER_MAX = 0.1


def resolve_beta(beta, alpha, X, labels, n_clusters):
    """The weight of ``||W||_{2,1}``: for ``"auto"``, :data:`BETA_PER_MAX` times
    ``alpha max_j ||x_j^T H0||`` with ``H0`` the one-hot ``labels`` (the smallest weight for
    which ``W = 0`` minimises ``alpha ||X W - G0||_{2,1} + beta ||W||_{2,1}``: the loss's
    subgradient at ``W = 0`` is ``-alpha X^T U`` with the rows of ``U`` those of ``G0``
    scaled to unit norm, which is ``H0`` for a one-hot or orthonormal ``G0``); a number as
    given. 1 where every feature is orthogonal to ``H0``.

    Examples
    --------
    >>> resolve_beta("auto", 1.0, np.array([[1.0, 0.0], [3.0, 1.0]]), np.array([0, 1]), 2)
    0.316227766016838
    """
    if beta != "auto":
        return float(beta)
    H = np.zeros((X.shape[0], n_clusters))
    H[np.arange(X.shape[0]), labels] = 1.0
    weight = alpha * float(np.sqrt(np.max(np.sum((X.T @ H) ** 2, axis=1), initial=0.0)))
    return BETA_PER_MAX * weight if weight > 0 else 1.0


#: The largest number of samples (:class:`~fsclust.rankers.base.RankerTags`): the neighbour
#: graph's distances and its dense copy (``n x n``), and ``X X^T`` or ``X^T X`` when ``d`` is
#: near ``n``: about 5.1 float64 ``n x n`` arrays at ``d = n`` (docs/measurements.md, "Size
#: bounds of the rankers"), within 4 GiB up to 10,260.
MAX_SAMPLES = 10_000


class RUFS(FeatureRanker):
    """RUFS: robust label learning by orthogonal NMF and robust feature learning by l2,1
    regression, jointly; features ranked by the row norms of the regression ``W``.

    Minimises (rows = samples; ``G`` n x c cluster indicator, ``F`` c x d centres, ``W`` d x c)
    ``||X - G F||_{2,1} + nu tr(G^T L G) + alpha ||X W - G||_{2,1} + beta ||W||_{2,1}`` with
    ``G, F >= 0`` and ``G^T G = I``, where both losses are sums of row norms (a gross outlier
    sample costs linearly) and ``L = (I - A)^T (I - A)`` is the local-learning regulariser
    (:func:`local_learning_matrix`: each row of ``A`` is a kernel ridge regression from the
    sample's neighbours). As the authors' code: ``+ mu sum(G)``,
    ``+ gamma_F sum_j ||F[:, j]||``, orthogonality as the penalty
    ``(zeta / 4) ||G^T G - I||_F^2``; blocks ``W``, ``G``, ``F`` in turn, each by a projected
    L-BFGS (:func:`projected_lbfgs`).

    Parameters
    ----------
    n_features_to_select : int or None, default=None
    n_clusters : int, default=5
        ``c``.
    nu, alpha : float, default=1.0
        Weights of the local-learning term and the robust regression.
    beta : float or "auto", default="auto"
        Weight of ``||W||_{2,1}``. ``"auto"``: :data:`BETA_PER_MAX` (0.1) times
        ``alpha max_j ||x_j^T H0||``, the weight at which ``W = 0`` minimises
        ``alpha ||X W - G0||_{2,1} + beta ||W||_{2,1}`` for the start (``H0``: the one-hot
        k-means labels, the rows of ``G0`` scaled to unit norm), so that it scales with ``X``;
        ``beta_`` is the value used. A number is used as given (the reference's: 1).
    n_neighbors : int, default=5
        ``k`` of the local-learning graph.
    ridge : float, default=0.1
        ``rLambda`` of the local kernel ridge regressions.
    max_iter : int, default=20
        Outer iterations (block cycles).
    tol : float, default=1e-2
        Outer stop: ``||[PGrad_F; PGrad_G; Grad_W]|| <= tol ||initial gradient||``.
    inner_tol : float, default=0.1
        The inner solvers' tolerance (change of the block objective; ``G``: also relative
        projected-gradient norm; ``W``: absolute gradient norm), as the reference.
    mu : float, default=0.1
    gamma_F : float, default=1e-4
    zeta : float, default=1e7
    init : {"orthonormal", "one-hot"}, default="orthonormal"
        The start ``G0`` from the k-means labels: ``"one-hot"`` is the reference's (so
        ``G0^T G0 = diag(counts)`` and the orthogonality penalty starts near
        ``zeta |cluster|^2 / 4``); ``"orthonormal"`` divides each column by the square root of
        its count, so ``G0^T G0 = I`` as the constraint asks and the penalty starts at 0.
    local_kernel : {"gram", "graph"}, default="gram"
        The kernel matrix on the neighbours in the local regressions of ``L``
        (:func:`local_learning_matrix`): the heat kernel's Gram matrix (kernel ridge
        regression as the local-learning regulariser defines it), or ``"graph"``, FSASL's
        block of the sparse kNN graph (zero diagonal; :data:`REFERENCE_SETTINGS`).
    random_state : int, RandomState or None, default=None
        Seeds the k-means (10 restarts) that gives ``G0``.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``||w^j||_2`` (larger is better).
    W_ : ndarray of shape (n_features, c)
    G_ : ndarray of shape (n_samples, c)
    F_ : ndarray of shape (c, n_features)
    beta_ : float
        The weight of ``||W||_{2,1}`` used.
    objective_history_ : list of float
        ``J`` at the start and after each outer iteration (non-increasing).
    n_iter_ : int
    converged_ : bool
        Whether, within ``max_iter``, the outer projected-gradient test held or a cycle left
        ``W``, ``G`` and ``F`` unchanged (each inner solve refused its first step: the
        iteration's fixed point at ``inner_tol``).
    ranking_, feature_order_, constant_mask_, n_features_in_

    Notes
    -----
    Departures from the authors' code (FSASL's ``fs_unsup_rufs.m``, the only reference;
    ``init="one-hot"`` and ``local_kernel="graph"`` follow it). The local regressions of ``L``
    use the kernel's Gram matrix on the neighbours: FSASL's ``localLearnMx_KRR`` (its comment:
    "local regularized kernel ridge regression") puts in its place the block of the sparse
    kNN graph, whose diagonal is 0 (``k(x, x) = 1``) and whose entries between neighbours
    that are not each other's neighbours are 0; that matrix is no kernel matrix, the rows of
    ``A`` sum to 8-24 instead of about 0.9, and ``tr(G^T L G)`` then penalises the
    clustering (see "Planted structure"). The orthonormal start: from the one-hot ``G0`` the
    objective is ``1e7``-``1e10``, the outer stop is relative to an initial gradient that the
    penalty inflates, and the fit ends after 1-2 cycles at a point of the penalty's descent
    that round-off decides (scores moved by ``3e-5`` relative between 1 and 2 BLAS threads
    on 300 genes of TOX-171, swapping features); from the orthonormal ``G0`` they agree to
    ``1e-13``. The fit also stops at the iteration's fixed point (``converged_``), which the
    reference runs on until ``max_iter``. The rest where the code is inconsistent or
    unguarded: one objective for the three blocks (``gamma_F`` on
    column norms of ``F`` everywhere; the code's printout uses row norms); ``F``'s gradient
    with the current residual norms (the code divides by stale ones); zero residual rows
    floored at ``1e-12`` (NaN in the code); a curvature pair with ``s^T y <= 0`` is not stored,
    a line search never accepts an increase and stops after 60 halvings, an inner solve after
    500 iterations; ``W0 = X^T (X X^T + (beta/alpha) I_n)^{-1} G0``, the push-through form of
    the code's ``d x d`` ridge solve; ``max_iter`` outer iterations (the code runs one more,
    and 5 instead of 20 when ``alpha + beta + nu > 1e4``). No ``d x d`` array: memory
    ``O(n d + nnz(L))``; cost ``O(n d c)`` per function evaluation.

    Planted structure (issue 40; ``speed/planted_suite.py``, docs/measurements.md, "Planted
    structure at the defaults"). The paper's objective and updates (as the spec reads them
    from the authors' code: the paper's text was not available) are what the code minimises;
    three causes of the shortfall against the Laplacian score, each measured on the suite's
    draw (seed 0):

    - the local-learning matrix of FSASL (``local_kernel="graph"``): on the tall problem
      (800 x 200) ``tr(G^T L G)`` was 3830 for the true clusters' indicator against 1511 for
      a shuffled one and 957 for the constant, so the ``G`` step moved away from a perfect
      k-means start (adjusted Rand 1.00 -> 0.50) and the ranking with it (``W`` at the start:
      0.97 of the top 30 planted; after the fit 0.43). With ``nu = 0`` the fit kept the start
      (0.97). With the Gram matrix the true clusters cost 0.016 against 3.37 shuffled, and
      ``nu = 1`` and ``nu = 0`` give the same 12 shares. Suite, ``"graph"`` -> ``"gram"``:
      square 0.27 -> 0.40, square-z 0.30 -> 0.77, tall 0.43 -> 0.97, tall-z 0.47 -> 0.97,
      the other 8 problems unchanged.
    - the k-means start, which the fit does not leave: on wide-z, base-z, weak and the counts
      its adjusted Rand index is 0.03, 0.15, 0.10 and 0.00, and the final ``G``'s the same;
      started from the true labels (a diagnosis, labels used) the shares are 0.93, 1.00,
      0.93 instead of 0.03, 0.07, 0.50 (counts: 0.00 either way). Where ``d > n`` no inner
      solve moves ``W`` at all (the reference's absolute tolerance 0.1 on an objective of
      thousands: the first step changes it by less), so the ranking is the ridge start
      ``W0`` of the k-means indicator.
    - ``beta = 1`` (the reference's grid centre), small beside the data's scale: at
      ``n = d`` (square) the ridge start interpolates ``G0`` with the noise features (0.40
      with a perfect start). ``beta="auto"`` (since issue 40) is :data:`BETA_PER_MAX` = 0.1
      of the weight at which ``W = 0`` solves the robust regression of the start, which
      scales with ``X``. Chosen without labels on the suite and the papers' image sets
      (``speed/rufs_defaults.py``, docs/measurements.md, "RUFS's weight"; the labels only
      scored): mean share over the 12 problems at seeds 0-2, ``beta = 1``: 0.670, fraction
      0.03: 0.736, 0.1: 0.762, 0.3: 0.791 (square 0.40 -> 1.00, square-z 0.77 -> 1.00,
      base-z 0.07 -> 0.23 at seed 0); k-means ACC over m = 50..300 on Yale, ORL, Isolet,
      COIL20, ``beta = 1``: 0.348, 0.552, 0.425, 0.608 (mean 0.483); 0.1: 0.350, 0.562,
      0.633, 0.663 (0.552); 0.3: 0.353, 0.568, 0.581, 0.631 (0.533); 0.03 and 0.05: 0.525
      and 0.546. On the image sets 0.1 is the best of these fractions; on the suite the
      share grows with the fraction, and 0.3 gains there (0.029) less than it loses on the
      image sets (0.019 on the mean, 0.052 on Isolet). ``inner_tol = 1e-3`` (auto's) changes no share by more
      than 0.1.

    Command: ``python speed/planted_suite.py --methods laplacian rufs --variant rufs-graph
    rufs '{"local_kernel": "graph"}' --variant rufs-beta10 rufs '{"beta": 10.0}' --jobs 1``.

    References
    ----------
    Qian & Zhai (2013), "Robust Unsupervised Feature Selection", IJCAI, pp. 1621-1627
    (equation numbers not verified: the paper's text was not available); FSASL
    (csliangdu/FSASL), ``fs_unsup_rufs.m`` and ``localLearnMx_KRR.m``; Wu & Schoelkopf
    (2007), "Transductive classification via local learning regularization", AISTATS (the
    local kernel ridge regressions of ``L``).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> groups = np.repeat([0.0, 4.0], 30)
    >>> X = np.column_stack([rng.randn(60), groups + rng.randn(60) * 0.3, rng.randn(60)])
    >>> X = (X - X.mean(axis=0)) / X.std(axis=0)
    >>> int(RUFS(n_clusters=2, random_state=0).fit(X).feature_order_[0])
    1
    """

    higher_is_better = True

    _parameter_constraints: dict = {
        **FeatureRanker._parameter_constraints,
        "n_clusters": [IntInterval(1, None, closed="left")],
        "nu": [Interval(Real, 0, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "beta": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
        "n_neighbors": [IntInterval(1, None, closed="left")],
        "ridge": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [IntInterval(0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "inner_tol": [Interval(Real, 0, None, closed="left")],
        "mu": [Interval(Real, 0, None, closed="left")],
        "gamma_F": [Interval(Real, 0, None, closed="left")],
        "zeta": [Interval(Real, 0, None, closed="left")],
        "init": [StrOptions({"orthonormal", "one-hot"})],
        "local_kernel": [StrOptions({"gram", "graph"})],
        "random_state": ["random_state"],
    }

    def __init__(self, n_features_to_select=None, *, n_clusters=5, nu=1.0, alpha=1.0, beta="auto",
                 n_neighbors=5, ridge=0.1, max_iter=20, tol=1e-2, inner_tol=0.1, mu=0.1,
                 gamma_F=1e-4, zeta=1e7, init="orthonormal", local_kernel="gram",
                 random_state=None):
        self.n_features_to_select = n_features_to_select
        self.n_clusters = n_clusters
        self.nu = nu
        self.alpha = alpha
        self.beta = beta
        self.n_neighbors = n_neighbors
        self.ridge = ridge
        self.max_iter = max_iter
        self.tol = tol
        self.inner_tol = inner_tol
        self.mu = mu
        self.gamma_F = gamma_F
        self.zeta = zeta
        self.init = init
        self.local_kernel = local_kernel
        self.random_state = random_state

    def _start(self, X, rng):
        """``G0`` the k-means labels (one-hot, or orthonormal: columns scaled to unit norm);
        ``F0`` the positive part of the least-squares ``(G0^T G0)^{-1} G0^T X`` plus 0.2 times
        its mean non-zero entry; ``W0`` the ridge regression of ``G0``."""
        n = X.shape[0]
        c = min(self.n_clusters, n)
        labels = KMeans(n_clusters=c, n_init=10, random_state=rng).fit(X).labels_
        G = np.zeros((n, c))
        G[np.arange(n), labels] = 1.0
        counts = G.sum(axis=0)
        if self.init == "orthonormal":
            G /= np.sqrt(np.maximum(counts, 1.0))
        # G0^T G0 is diagonal: the least-squares F0 divides by its diagonal
        F = np.maximum((G.T @ X) / np.maximum(np.sum(G * G, axis=0), 1e-300)[:, None], 0.0)
        nonzero = np.count_nonzero(F)
        F += 0.2 * F.sum() / nonzero if nonzero else 0.0
        self.beta_ = resolve_beta(self.beta, self.alpha, X, labels, c)
        gram = X @ X.T
        gram[np.diag_indices(n)] += self.beta_ / self.alpha
        W = X.T @ np.linalg.solve(gram, G)
        return G, F, W

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.ranker_tags.max_samples = MAX_SAMPLES
        return tags

    def _score(self, X, rng):
        M = local_learning_matrix(X, self.n_neighbors, self.ridge, self.local_kernel)
        G, F, W = self._start(X, rng)
        objective = _Objective(X, M, self.nu, self.alpha, self.beta_, self.mu, self.gamma_F,
                               self.zeta)
        initial = np.sqrt(sum(np.sum(block(x)[1] ** 2) for block, x in (
            (objective.F_block(G), F), (objective.G_block(F, W), G), (objective.W_block(G), W))))
        history = [objective.value(G, F, W)]
        converged = False
        tol_in = self.inner_tol
        for _ in range(self.max_iter):
            previous = W, G, F
            W, grad_W = projected_lbfgs(objective.W_block(G), W, nonnegative=False,
                                        tol_f=tol_in, tol_grad=tol_in)
            G_fun = objective.G_block(F, W)
            G, pg_G = projected_lbfgs(G_fun, G, nonnegative=True, tol_f=tol_in,
                                      tol_grad=tol_in * np.linalg.norm(G_fun(G)[1]))
            F, pg_F = projected_lbfgs(objective.F_block(G), F, nonnegative=True, tol_f=tol_in,
                                      tol_grad=0.0)
            history.append(objective.value(G, F, W))
            norm = np.sqrt(np.sum(grad_W**2) + np.sum(pg_G**2) + np.sum(pg_F**2))
            # a cycle whose three solves all refused their first step is the iteration's fixed
            # point: every later cycle would repeat it exactly (ours; the reference runs on)
            if norm <= self.tol * initial or all(
                    np.array_equal(new, old) for new, old in zip((W, G, F), previous)):
                converged = True
                break
        self.W_, self.G_, self.F_ = W, G, F
        self.objective_history_ = history
        self.n_iter_ = len(history) - 1
        self.converged_ = converged
        return np.linalg.norm(W, axis=1)
