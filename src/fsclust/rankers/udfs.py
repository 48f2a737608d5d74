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
                               reweighting, row_norms_sq, smoothed_l21)
from .base import FeatureRanker, IntInterval, check_subset_size

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


#: ``gamma="auto"``: the l2,1 weight is this many times the mean local cost ``mean_j M_jj``
#: (issue 40): large enough that the fit keeps exactly as many non-zero rows as ``W`` has
#: columns (measured: ``c`` rows of norm ~1, every other row below 1e-6 of them, within 10
#: iterations), whatever the scale of ``M``.
GAMMA_PER_MEAN_COST = 10.0

#: The settings of the references (FSASL, AutoUFSTool, scikit-feature) and of our defaults
#: before issue 40, for the comparisons with their code (config/experiments/peers.yaml,
#: speed/peers_udfs.py): ``UDFS(**REFERENCE_SETTINGS)`` is the reference's UDFS.
REFERENCE_SETTINGS = {"gamma": 1.0, "standardize": False, "init_D": "identity",
                      "inactive": "norm"}

#: A row of ``W`` is inactive when its norm is at most this times the largest row norm: the
#: l2,1 term has driven it towards the smoothing floor ``sqrt(eps)``, and its value there is
#: the trace of the iterations, not an order of the features (``inactive="tie"`` ties them).
INACTIVE_RTOL = 1e-3


def active_rows(W):
    """The rows of ``W`` whose norm exceeds :data:`INACTIVE_RTOL` times the largest.

    Examples
    --------
    >>> active_rows(np.array([[1.0, 0.0], [0.0, 1e-7], [0.6, 0.8]])).tolist()
    [True, False, True]
    """
    norms = np.sqrt(row_norms_sq(W))
    return norms > INACTIVE_RTOL * np.max(norms, initial=0.0)


def resolve_n_components(n_components, n_clusters, n_features_to_select, n_features):
    """The columns of ``W``: ``n_components``, or ``max(n_clusters, n_features_to_select)``
    when it is None, at most ``n_features - 1`` (with as many orthonormal columns as features
    every row would have norm 1) and at least 1.

    Examples
    --------
    >>> resolve_n_components(None, 4, 30, 1000), resolve_n_components(None, 4, None, 1000)
    (30, 4)
    >>> resolve_n_components(7, 4, 30, 1000), resolve_n_components(None, 4, 30, 20)
    (7, 19)
    """
    c = n_components
    if c is None:
        c = max(int(n_clusters), int(n_features_to_select or 0))
    return max(1, min(int(c), n_features - 1))


class OneFitPerSize:
    """``subset(m)`` for a ranker that keeps ``c = max(n_clusters, n_features_to_select)``
    active rows (UDFS, SOGFS at ``n_components=None``).

    One fit answers one size: its ``c`` active rows are the features it selects and the rest
    are tied (``inactive="tie"``), so the top ``m > c`` of a fit made for ``c`` are drawn from
    that tie, not chosen by the method. Such a ranker fitted without ``n_features_to_select``
    (a sweep over m, the label-free selector) declares ``nested_selection = False``, and
    :meth:`subset` answers each m with the fit for that m: the fit itself when its ``c``
    is the one m asks for (``m <= n_clusters``), else a fit of a clone with
    ``n_features_to_select=m`` on the same data, kept for the next call. Given
    ``n_components`` or ``n_features_to_select``, ``c`` is fixed and the ranking is nested;
    so it is with ``inactive="norm"`` (the papers' and the reference codes' reading: one fit
    orders every feature by its row norm, as the peers experiment compares).
    """

    def _one_fit_per_size(self):
        return (self.n_components is None and self.n_features_to_select is None
                and self.inactive == "tie")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.ranker_tags.nested_selection = not self._one_fit_per_size()
        return tags

    def _post_fit(self, X):
        super()._post_fit(X)
        # a reference, not a copy: the data of subset(m)'s own fits
        self._fit_X = X if self._one_fit_per_size() else None
        self._fits_by_c = {}

    def _c_for(self, m):
        """The ``c`` of a fit made to select ``m``, as ``_score`` resolves it on the varying
        features."""
        return resolve_n_components(None, self.n_clusters, m,
                                    int(np.count_nonzero(~self.constant_mask_)))

    def subset_needs_fit(self, m):
        """Whether :meth:`subset` at ``m`` fits again (a workflow runs that fit under its time
        limit): the subsets are not nested, ``m``'s ``c`` is not this fit's and no fit for it
        is kept."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        m = check_subset_size(m, self.n_features_in_)
        if self._fit_X is None:
            return False
        c = self._c_for(m)
        return c != self.n_components_ and c not in self._fits_by_c

    def subset(self, m):
        """The ``m`` features selected by a fit made to select ``m``.

        Parameters
        ----------
        m : int
            ``1 <= m <= n_features``.

        Returns
        -------
        ndarray of shape (m,), int
            Feature indices, best first.
        """
        from sklearn.base import clone
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        m = check_subset_size(m, self.n_features_in_)
        if self._fit_X is None:  # c fixed by the parameters: nested
            return self.feature_order_[:m].copy()
        c = self._c_for(m)
        if c == self.n_components_:
            return self.feature_order_[:m].copy()
        if c not in self._fits_by_c:
            refit = clone(self).set_params(n_features_to_select=m).fit(self._fit_X)
            self._fits_by_c[c] = refit.feature_order_
        return self._fits_by_c[c][:m].copy()


def resolve_init_D(init_D, quadratic, n_components):
    """``"auto"``: ``"diag_M"`` when the start ``D0 = I`` is degenerate (``null(M)`` has more
    than ``c`` dimensions, as when ``d >= n``), else ``"identity"``; other values as given."""
    if init_D != "auto":
        return init_D
    return "diag_M" if quadratic.null_dim > n_components else "identity"


def resolve_gamma(gamma, quadratic):
    """``"auto"``: :data:`GAMMA_PER_MEAN_COST` times ``mean_j M_jj``; a number as given."""
    if gamma != "auto":
        return float(gamma)
    mean_cost = float(np.mean(quadratic.diagonal()))
    return GAMMA_PER_MEAN_COST * mean_cost if mean_cost > 0 else 1.0


def unit_variance_columns(X):
    """Each feature divided by its standard deviation (non-constant features only)."""
    return X / X.std(axis=0)


#: The largest number of samples (:class:`~fsclust.rankers.base.RankerTags`): the local
#: discriminative Laplacian (dense ``n x n``) and ``X^T L X`` (``d x d`` for ``d <= n``, else
#: an ``n x n`` eigen-decomposition): about 4.0 float64 ``n x n`` arrays at ``d = n``
#: (docs/measurements.md, "Size bounds of the rankers"), within 4 GiB up to 11,585.
MAX_SAMPLES = 10_000


class UDFS(OneFitPerSize, EmbeddedRanker):
    """UDFS: the projection ``W`` that best preserves the local discriminative structure.

    Solves ``min_W tr(W^T M W) + gamma ||W||_{2,1}`` s.t. ``W^T W = I_c``, with
    ``M = X^T L X`` and ``L`` the local discriminative Laplacian of the ``k``-neighbourhoods
    (:func:`local_discriminative_laplacian`), by the reweighted eigen-step: ``W`` = the ``c``
    smallest eigenvectors of ``M + gamma D``, ``D = diag(1 / (2 sqrt(||w^j||^2 + eps)))``.
    Features are ranked by ``||w^j||_2`` (higher is better). At the defaults the features of
    ``M`` are standardised, the fit keeps ``c = max(n_clusters, n_features_to_select)`` rows
    of ``W`` and ties the others (Notes, "Defaults").

    Parameters
    ----------
    n_clusters : int, default=5
        The number of clusters; ``c`` when ``n_components`` is None and no more features are
        to be selected.
    n_components : int or None, default=None
        ``c``, the columns of ``W`` (at most ``d - 1``). None: ``max(n_clusters,
        n_features_to_select)``, so that at least as many rows stay active as features are
        selected. The paper's ``c`` is ``n_clusters``.
    n_neighbors : int, default=5
        ``k``: each neighbourhood has the sample and its ``k`` nearest others.
    lam : float, default=1000.0
        The local ridge ``lambda`` (FSASL's default).
    gamma : float or "auto", default="auto"
        The l2,1 weight. ``"auto"``: :data:`GAMMA_PER_MEAN_COST` (10) times the mean local
        cost ``mean_j M_jj`` (``gamma_`` is the value used). A number is used as given.
    standardize : bool, default=True
        Divide every feature by its standard deviation in ``M`` (the neighbourhoods, and so
        ``L``, stay those of ``X`` as given). False: ``M`` of ``X`` as given (the paper).
    init_D : {"auto", "identity", "diag_M"}, default="auto"
        The start of the reweighting (:func:`~fsclust.rankers._sparse_learning.initial_weights`).
        ``"auto"``: ``"diag_M"`` when ``"identity"`` would be degenerate (``null(M)`` has more
        than ``c`` dimensions, as when ``d >= n``), else ``"identity"``. With ``"identity"``
        and ``d >= n`` the first step is degenerate (``degenerate_start_``).
    inactive : {"tie", "norm"}, default="tie"
        The score of an inactive row (norm at most :data:`INACTIVE_RTOL` times the largest):
        ``"tie"``: 0, so that every inactive feature is tied
        (:func:`~fsclust.rankers.base.tied_features`) and ranked after the active ones in
        column order; ``"norm"``: its norm (the paper's ranking).
    max_iter : int, default=100
    tol : float, default=1e-8
        Stop when the objective changes by at most ``tol`` times its value.
    random_state : int, RandomState instance or None, default=None
        Used only for the degenerate start (:func:`~fsclust.rankers._sparse_learning.
        null_space_start`); the fit is deterministic otherwise.
    n_features_to_select : int or None, default=None
        The number of features to select, and so the active rows kept. None (with
        ``n_components=None`` and ``inactive="tie"``): the subsets are not nested, and
        :meth:`subset` answers each m with a fit for m (:class:`OneFitPerSize`).

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``||w^j||_2`` (0 for the inactive rows with ``inactive="tie"``); ``-inf`` for
        constant features (left out of the fit).
    W_ : ndarray of shape (n_features, c)
        The final projection (zero rows for constant features).
    n_components_ : int
        ``c``, the columns of ``W``.
    gamma_ : float
        The l2,1 weight used.
    n_active_ : int
        The active rows of ``W`` (:func:`active_rows`).
    objective_history_ : list of float
        ``J_eps = tr(W^T M W) + gamma sum_j sqrt(||w^j||^2 + eps)`` after each W-step.
    n_iter_ : int
    converged_ : bool
        The relative change fell to ``tol`` within ``max_iter`` iterations.
    degenerate_start_ : bool
        The start was ``D0 = I`` and ``null(M)`` has more than ``c`` dimensions (``d >= n``):
        the first ``W`` is one of infinitely many minimisers, drawn from ``random_state``
        (as any eigensolver's choice would be); other implementations' scores cannot be
        expected to agree.
    init_D_ : str
        The start used (reported beside the ranking).

    Notes
    -----
    The paper against this code: the minimised quantity ``tr(W^T M W) + gamma ||W||_{2,1}``
    with ``M = X L X^T`` (paper's columns), the constraint ``W^T W = I_c``, the sign
    (minimised: the local discriminative score ``sum_i DS_i`` maximised), ``L = sum_i S_i H
    B_i H S_i^T`` with ``B_i = (Xt_i^T Xt_i + lambda I)^{-1}``, the start ``D = I`` and the
    ranking by ``||w^j||`` are the paper's (as read in the spec, methods-peers 1; the
    equations could not be checked against the paper's own text here). No departure was
    found; the failures on planted structure (issue 40) are the formulation's:

    - under ``W^T W = I`` the W-step minimises the absolute local scatter, so a feature's
      between-group variance earns nothing: on raw data a planted feature (group centre
      plus unit noise) has the local scatter of a noise feature;
    - with ``d >= n``, ``M`` has rank at most ``n - 1`` and ``null(M) = null(X)`` (a connected
      graph): ``D = I`` makes the first ``W`` any basis of directions in which the data do not
      vary, and the reweighting keeps its rows, which avoid the planted (high-variance)
      features: on the issue's 160 x 1000 problem the planted features scored 1e-4 of the
      noise ones;
    - with ``gamma`` large against ``M`` the l2,1 term leaves ``c`` rows of norm ~1 and drives
      the others to ~1e-7, ordered by the trace of the iterations: the method selects ``c``
      features, and with ``c = n_clusters = 4`` no more than 4 of 30 planted ones can be
      found.

    Defaults (issue 40), chosen without labels; the labels of the planted suite
    (``speed/planted_suite.py``, docs/measurements.md, "Planted structure at the defaults")
    only scored them:

    - ``standardize=True``: every feature of ``M`` divided by its standard deviation, i.e.
      the diagonal of the paper's own constraint ``G^T G = I`` on ``G = X W`` in place of
      ``W^T W = I``: a feature's local cost is then its local scatter relative to its total
      scatter (between-group variance lowers it). The neighbourhoods stay those of ``X``:
      z-scoring before the neighbour search shrinks the planted features and made the
      neighbourhoods impure (5-NN of the same group 0.57 instead of 1.00 on the issue's
      problem). Planted suite, the share of the planted features in the top ``p`` against
      ``standardize=False``: 1.00 against 0.07 at 160 x 1000, 0.97 against 0.10 at
      800 x 200, 0.83 against 0.00 at 80 x 2000 (raw features; equal on z-scored ones).
    - ``init_D="auto"``: ``D0 = diag(M) / mean(M_jj) + 1e-3`` when ``D0 = I`` is degenerate:
      the first ``W`` then prefers the features of small local cost instead of the null
      space of the data. Against ``init_D="identity"`` where ``d >= n``: 1.00 against 0.00
      at 160 x 1000, 0.83 against 0.03 at 80 x 2000, 0.27 against 0.00 with a weaker signal
      (``d < n``: the same start).
    - ``n_components=None``: ``c = max(n_clusters, n_features_to_select)``, at least as many
      active rows as features to select. Against ``c = n_clusters``: 1.00 against 0.16 at
      160 x 1000 (4 active rows, 26 of the top 30 from a tie of 996 features), 0.97 against
      0.25 at 800 x 200.
    - ``gamma="auto"`` = 10 ``mean_j M_jj``: scale-free, and large enough that exactly ``c``
      rows stay active, within about 10 iterations. Against ``gamma=1``: the same share
      within 0.07 on every case of the suite, in 7-8 iterations instead of 15-100 (400 x 400:
      0.2 s against 1.4 s, not converged in 100; the counts: 0.5 s against 5.0 s).
    - ``inactive="tie"``: the rows beyond the active ones get score 0 and are reported as
      tied (the ranking table's ``tied`` column): their order is arbitrary, and says so. At
      ``gamma="auto"`` the active rows themselves have norm 1 to about 1e-13 (``W`` is
      close to ``c`` coordinate axes), so they are tied with each other too: the fit
      selects a set of ``c`` features and orders neither it nor the rest (one tie group of
      30 on the suite's 160 x 1000 and 800 x 200 problems).

    The settings before issue 40 (the paper's, as first implemented):
    ``UDFS(n_clusters=c, n_components=c, gamma=1.0, standardize=False, init_D="identity",
    inactive="norm")``.

    Other decisions: ``lambda = 1000`` (FSASL's default; its grid ``10^(-5..5)``, the paper's
    own value not verified); each sample is forced first in its own neighbourhood; the
    smoothing ``eps = 1e-12 max(1, max ||w^j||^2)`` is fixed from the first ``W``
    (``||w^j|| <= 1`` here, so ``eps = 1e-12``); ``M`` is formed only when ``d <= n``, else
    it is ``U U^T`` with ``U = X^T R``, ``L = R R^T``, and the eigen-step runs on ``P^{-1}``
    (the references form ``M`` and eigendecompose ``d x d`` every iteration). UDFS is not
    scale invariant (a constant feature would have zero local cost and rank first): constant
    features are left out.

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
    >>> model = UDFS(n_clusters=2).fit(X)
    >>> sorted(model.feature_order_[:2].tolist()), model.n_active_
    ([2, 4], 2)
    """

    reported_attributes = (*EmbeddedRanker.reported_attributes, "degenerate_start_", "init_D_",
                           "n_components_", "gamma_", "n_active_")

    _parameter_constraints: dict = {
        **FeatureRanker._parameter_constraints,
        "n_clusters": [IntInterval(1, None, closed="left")],
        "n_components": [IntInterval(1, None, closed="left"), None],
        "n_neighbors": [IntInterval(1, None, closed="left")],
        "lam": [Interval(Real, 0, None, closed="neither")],
        "gamma": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "standardize": ["boolean"],
        "init_D": [StrOptions({"auto", *INIT_D})],
        "inactive": [StrOptions({"tie", "norm"})],
        "max_iter": [IntInterval(1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, n_clusters=5, *, n_components=None, n_neighbors=5, lam=1000.0,
                 gamma="auto", standardize=True, init_D="auto", inactive="tie", max_iter=100,
                 tol=1e-8, random_state=None, n_features_to_select=None):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_clusters = n_clusters
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.lam = lam
        self.gamma = gamma
        self.standardize = standardize
        self.init_D = init_D
        self.inactive = inactive
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
        c = resolve_n_components(self.n_components, self.n_clusters, self.n_features_to_select,
                                 d)
        L = local_discriminative_laplacian(Xk, capped_n_neighbors(self.n_neighbors, n, "UDFS"),
                                           self.lam)
        quadratic = GraphQuadratic(unit_variance_columns(Xk) if self.standardize else Xk, L)
        init_D = resolve_init_D(self.init_D, quadratic, c)
        gamma = resolve_gamma(self.gamma, quadratic)
        W, history, converged, degenerate = fit_udfs(
            quadratic, c, gamma, init_D, self.max_iter, self.tol, rng)
        self.n_components_, self.gamma_ = c, gamma
        self.degenerate_start_ = degenerate
        self.init_D_ = init_D
        log.info("UDFS: %d iterations, J = %.6g, converged %s, degenerate start %s",
                 len(history), history[-1], converged, degenerate)
        return tie_inactive_rows(self, W, history, converged)


def tie_inactive_rows(ranker, W, history, converged):
    """The embedded scores of ``W`` (:meth:`EmbeddedRanker._embedded_scores`), with the
    inactive rows (:func:`active_rows`) scored 0 when ``ranker.inactive == "tie"``; sets
    ``ranker.n_active_``."""
    scores = ranker._embedded_scores(W, history, converged)
    active = active_rows(W)
    ranker.n_active_ = int(active.sum())
    if ranker.inactive == "tie":
        keep = np.flatnonzero(~ranker.constant_mask_)
        scores[keep[~active]] = 0.0
    return scores


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
