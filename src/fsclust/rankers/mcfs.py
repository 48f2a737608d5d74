"""MCFS: multi-cluster feature selection (Cai, Zhang & He 2010)."""

from __future__ import annotations

import math
import warnings
from numbers import Real

import numpy as np
import scipy.linalg
import scipy.linalg.lapack
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, eigsh
from sklearn.linear_model import Lars
# scikit-learn's own Cython helpers of its LARS: the smallest positive entry, and the Givens
# downdate of the Cholesky factor when a variable leaves (the same BLAS rotations)
from sklearn.utils.arrayfuncs import cholesky_delete, min_pos

from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from ..graphs import (BANDWIDTH_RULES, canonical_sign_flip, capped_n_neighbors, knn_graph,
                      laplacian, smallest_eigenvectors)
from .base import FeatureRanker, IntInterval, SizeBoundError
from .laplacian import GraphOnPCA

# Above this many samples the embedding uses ARPACK on the sparse graph instead of a dense eigh.
_DENSE_MAX_N = 2000

#: The largest number of samples of MCFS's graph on the data (``graph="data"``): the graph reads
#: all ``n^2`` pairs, and above 2,000 samples the embedding factorises the Laplacian (ARPACK's
#: shift-invert mode), whose fill-in grows faster than ``n^2``. Measured on 2,000 dense
#: log-normalised genes of synthetic counts (2 cores): at 10,000 samples the graph took 44 s
#: and the embedding 2 s with 5 neighbours, 126 s with 15 (peak 1.1 GB); at 20,000 the graph
#: took 167 s and the embedding 5 s with 5 neighbours, 365 s with 15. ``graph="pca"`` has no
#: bound.
MCFS_DATA_GRAPH_MAX_SAMPLES = 10_000

# entries of the dense row blocks the screened Gram matrix is accumulated from (2^24 float64:
# 128 MiB, as pca_embedding's covariance)
_GRAM_BLOCK_ENTRIES = 2**24

# stored values of the row blocks of the sparse product X^T R: its float64 temporaries stay at
# 32 MiB (scipy would convert a whole float32 X to float64 for one product)
_PRODUCT_BLOCK_VALUES = 2**22

# Cai's ridge term is kept while 8 D^2 bytes (the D x D Gram matrix X^T X + ridge I the ridge
# path used to need) stay within 1 GiB (D <= 11585); above, the ridge is dropped and the paths
# run on X (Cai, Zhang & He 2010 pose a plain lasso; the ridge is their code's). The paths no
# longer form that matrix (see ridge_lasso_path); the bound is kept so that the scores of the
# wider data sets stay what they were.
_GRAM_MAX_BYTES = 2**30

# Up to D = 4096 (16 D^2 bytes within this: the bound dates from when scikit-learn's
# lars_path_gram kept a copy of the Gram matrix; gram_lasso_path only reads it, 8 D^2 bytes) the K
# paths run on one Gram matrix, formed once per fit: bit for bit scikit-learn's path on it.
# Above, on X (ridge_lasso_path), O(n D) memory. Both give the same path to round-off, but a long
# path whose active set passes n is ill-conditioned enough that round-off moves its tail:
# srbct-khan (83 x 2308) at d = 300 (1250 steps) moves by 7.1e-4 in the scores, and so does
# scikit-learn's own path when its Gram matrix is merely summed in another order (einsum instead
# of BLAS). The switch stays where it was so that such rankings stay exactly as they were.
_WHOLE_GRAM_BYTES = 2**28


# Cai's stop: each lasso path ends once d + 5 features are active, and is read at its last point
# with d non-zeros before that. Cai's SR.m (the solver of MCFS_p.m) calls Sjostrand's
# ``lars(data, y, 'lasso', -(max(LassoCardi) + 5), 1, Gram, LassoCardi)`` (a negative stop: the
# number of active variables) and takes ``iMin(end)`` of ``find(tCar == LassoCardi)``. The
# points past it can change the read (a lasso drop brings the path back to d non-zeros), and
# so the ranking: on golub-leukemia-72 at the defaults (docs/measurements.md, "MCFS against
# scikit-feature").
CAI_EXTRA_ACTIVE = 5


def _cai_stop(n_nonzero):
    """The active-set size at which a path read at ``n_nonzero`` non-zeros stops (Cai's)."""
    return int(n_nonzero) + CAI_EXTRA_ACTIVE


def _on_whole_gram(D):
    """Whether the paths of ``D`` features run on one formed Gram matrix (ridge kept)."""
    return 16 * D * D <= _WHOLE_GRAM_BYTES


def spectral_embedding_targets(W, n_eigenvectors):
    """``Y (n, K)``: the ``K`` smallest non-trivial solutions of ``L y = lambda D y``.

    ``Y = D^-1/2 V`` with ``V`` the eigenvectors of ``Lsym + 3 xi_0 xi_0^T`` (the trivial
    eigenvector ``xi_0 = sqrt(d) / ||sqrt(d)||`` deflated to eigenvalue 3, above the spectrum),
    so ``Y^T D Y = I`` and ``Y^T D 1 = 0`` (Cai, Zhang & He 2010, section 3; trivial
    eigenvector excluded).
    """
    Lsym, d = laplacian(W, "sym")
    sqrt_d = np.sqrt(d)
    xi0 = sqrt_d / np.linalg.norm(sqrt_d)
    if sp.issparse(Lsym) and Lsym.shape[0] > _DENSE_MAX_N:
        # large sparse graph: ARPACK on Lsym itself (the rank-one deflation would make it
        # dense); of the K + 1 smallest eigenvectors drop the one closest to xi_0, which is
        # exact for a connected graph
        _, V = smallest_eigenvectors(Lsym, n_eigenvectors + 1, solver="arpack",
                                     random_state=0)
        V = np.delete(V, int(np.argmax(np.abs(xi0 @ V))), axis=1)
    else:
        Lsym = Lsym.toarray() if sp.issparse(Lsym) else Lsym
        _, V = smallest_eigenvectors(Lsym + 3.0 * np.outer(xi0, xi0), n_eigenvectors,
                                     solver="dense")
    return V / sqrt_d[:, None]


def lanczos_embedding_targets(W, n_eigenvectors, random_state=0):
    """``Y (n, K)`` of :func:`spectral_embedding_targets` on a large sparse graph, from products
    with ``W`` only: the same deflated problem, solved without factorising anything.

    The ``K`` smallest eigenvectors of ``Lsym + 3 xi_0 xi_0^T`` are the ``K`` largest of
    ``I - Lsym - 3 xi_0 xi_0^T = D^-1/2 W D^-1/2 - 3 xi_0 xi_0^T``, which ARPACK's Lanczos
    finds in its regular mode (``which="LA"``) from products with the sparse ``D^-1/2 W D^-1/2``
    and a rank-one correction. The shift-invert mode of :func:`spectral_embedding_targets`
    (and of :func:`fsclust.graphs.smallest_eigenvectors`) factorises the Laplacian instead:
    on the kNN graph of 15 neighbours on principal components of 10^4 synthetic cells that
    took 480 s, Lanczos 0.4 s. ARPACK runs on one BLAS thread, so that its inner products sum
    in one order whatever the thread count; the signs are canonical
    (:func:`~fsclust.graphs.canonical_sign_flip`) and ``Y = D^-1/2 V`` (``Y^T D Y = I``,
    ``Y^T D 1 = 0``).

    Parameters
    ----------
    W : scipy.sparse matrix of shape (n, n)
        Symmetric, non-negative, no isolated node; ``n_eigenvectors < n``.
    n_eigenvectors : int
    random_state : int, default=0
        Seed of ARPACK's starting vector.

    Returns
    -------
    Y : ndarray of shape (n, n_eigenvectors)
        Smallest eigenvalue of ``L y = lambda D y`` first.
    """
    W = sp.csr_matrix(W, dtype=np.float64)
    n = W.shape[0]
    d = np.asarray(W.sum(axis=1), dtype=np.float64).ravel()
    if np.any(d <= 0):
        raise ValueError("the graph has isolated nodes (degree 0): its normalised Laplacian "
                         "is undefined")
    inv_sqrt = 1.0 / np.sqrt(d)
    N = sp.csr_matrix(W.multiply(inv_sqrt[:, None]).multiply(inv_sqrt[None, :]))
    xi0 = np.sqrt(d) / np.linalg.norm(np.sqrt(d))

    def deflated(v):
        v = np.ravel(v)
        return N @ v - 3.0 * xi0 * (xi0 @ v)

    v0 = check_random_state(random_state).uniform(-1.0, 1.0, n)
    with threadpool_limits(limits=1):
        values, V = eigsh(LinearOperator((n, n), matvec=deflated, dtype=np.float64),
                          k=int(n_eigenvectors), which="LA", v0=v0)
    V = canonical_sign_flip(np.ascontiguousarray(V[:, np.argsort(-values, kind="stable")]))
    return V * inv_sqrt[:, None]


def lasso_coefficients(X, Y, n_nonzero, ridge=1e-3, return_steps=False, max_iter=None):
    """Lasso-LARS coefficients ``A (D, K)`` of ``y_k ~ X a_k`` with ``n_nonzero`` non-zeros each.

    Cai's ``solver="cai"``: no intercept, Gram matrix ``X^T X + ridge I``, each lasso path
    stopped once ``n_nonzero + 5`` features are active and read at its last point with
    ``n_nonzero`` non-zeros (Cai's SR.m, :data:`CAI_EXTRA_ACTIVE`), then ``a_k / ||a_k||_2``.
    When that cardinality is never reached, the path point of largest cardinality (the caller
    warns).

    Up to D = 4096 (``_WHOLE_GRAM_BYTES``) the paths share one Gram matrix, formed once; above,
    they never form it (``O(n D)`` per step and memory). A path also stops once no later point
    within ``max_iter`` steps can have ``n_nonzero`` non-zeros. Where no path can hold as
    many active features as samples (:func:`_paths_together`: ``d + 5 < n``) the paths
    advance together and keep only their points
    (:func:`_lasso_points`), their products summed in another order than scikit-learn's (the
    same points to round-off); elsewhere they run one by one (:func:`gram_lasso_path`,
    :func:`ridge_lasso_path`), bit for bit as before. While ``8 D^2`` bytes
    stay within ``_GRAM_MAX_BYTES`` the ridge is kept; above (and for ``ridge=0``), the ridge
    term is dropped and each path runs on ``X`` itself: the paper's problem is a plain lasso
    (Cai, Zhang & He 2010, section 3); the ridge is their code's.

    Parameters
    ----------
    X : ndarray of shape (n, D)
    Y : ndarray of shape (n, K)
        The regression targets, one per column.
    n_nonzero : int
        The cardinality ``d``.
    ridge : float, default=1e-3
    max_iter : int or None, default=None
        LARS steps of each path at most; None: ``4 n_nonzero + 50``. Drop steps consume steps:
        the slack lets a path whose lasso drops variables often still reach ``n_nonzero + 5``
        active (Sjostrand's lars.m, Cai's, allows ``8 min(n - 1, D)`` steps; on 109 prepared
        sets no path reaches ``4 d + 50`` at d = 50 or 300, docs/measurements.md).

    Returns
    -------
    A : ndarray of shape (D, K)
    cardinality : ndarray of shape (K,), int
        Non-zeros of each ``a_k`` (``< n_nonzero`` when the path never reached ``n_nonzero``).
    ridge_used : float
        ``ridge``, or 0.0 when the paths ran on ``X``.
    steps : ndarray of shape (K,), int
        Only with ``return_steps``: the LARS steps each path took.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [1.0, 1.0, 0.0]])
    >>> A, cardinality, _ = lasso_coefficients(X, np.array([[2.0], [0.1], [2.1]]), 1)
    >>> np.flatnonzero(A[:, 0]), cardinality
    (array([0]), array([1]))
    """
    n, D = X.shape
    if max_iter is None:
        max_iter = 4 * int(n_nonzero) + 50
    ridge_used = float(ridge) if ridge > 0 and 8 * D * D <= _GRAM_MAX_BYTES else 0.0
    stop_active = _cai_stop(n_nonzero)
    if _paths_together(n, D, n_nonzero, max_iter):
        with threadpool_limits(limits=1):
            on_gram = (ridge_used > 0 and _on_whole_gram(D)
                       and _gram_is_cheaper(n, D, Y.shape[1], n_nonzero))
            A, cardinality, steps = _lasso_points(X, Y, n_nonzero, ridge_used, max_iter,
                                                  on_gram=on_gram)
        return (A, cardinality, ridge_used, steps) if return_steps else (A, cardinality,
                                                                          ridge_used)
    if ridge > 0 and 8 * D * D <= _GRAM_MAX_BYTES:
        if _on_whole_gram(D):
            paths = _whole_gram_lasso_paths(X, Y, ridge, max_iter, n_nonzero)
        else:
            paths = (ridge_lasso_path(X, y, ridge, max_iter, stop_cardinality=n_nonzero,
                                      stop_active=stop_active)[2]
                     for y in Y.T)
        ridge_used = float(ridge)
    else:
        # the same Gram-free path with no ridge: scikit-learn's lars_path(X) to round-off
        # (1e-14 on 200 x 20000), stopped at the cardinality (0.41 s instead of 0.62 s a path)
        paths = (ridge_lasso_path(X, y, 0.0, max_iter, stop_cardinality=n_nonzero,
                                  stop_active=stop_active)[2]
                 for y in Y.T)
        ridge_used = 0.0
    A = np.zeros((D, Y.shape[1]))
    cardinality = np.zeros(Y.shape[1], dtype=int)
    steps = np.zeros(Y.shape[1], dtype=int)
    for k, coefs in enumerate(paths):
        A[:, k], cardinality[k] = _path_point(coefs, n_nonzero)
        steps[k] = coefs.shape[1] - 1
    return (A, cardinality, ridge_used, steps) if return_steps else (A, cardinality, ridge_used)


def _path_point(coefs, n_nonzero):
    """The column of a lasso path ``coefs (D, steps)`` MCFS reads, L2-normalised, and its
    number of non-zeros: the path cut at its first point with ``n_nonzero + 5`` non-zeros
    (Cai's stop, :data:`CAI_EXTRA_ACTIVE`; a path stopped so is whole), then its last column
    with ``n_nonzero`` non-zeros, else the first of largest cardinality."""
    counts = np.count_nonzero(coefs, axis=0)
    over = np.flatnonzero(counts >= _cai_stop(n_nonzero))
    if over.size:
        counts = counts[:over[0] + 1]
    hit = np.flatnonzero(counts == n_nonzero)
    j = hit[-1] if hit.size else int(np.argmax(counts))
    a = coefs[:, j]
    norm = np.linalg.norm(a)
    return (a / norm if norm > 0 else a), counts[j]


# the LAPACK routines scipy.linalg.solve_triangular and cho_solve call (trtrs, potrs), called
# directly: the wrappers' checks cost more than the solves on the path's small factors
_dtrtrs = scipy.linalg.lapack.dtrtrs
_dpotrs = scipy.linalg.lapack.dpotrs


class _ColumnProducts:
    """The Gram entries the lasso-LARS path reads, as inner products of the columns of ``X``:
    ``G = X^T X + ridge I`` is never formed (``O(n D)`` per step and memory).

    The features' rows of ``X^T`` are kept in path position order (swapped as variables enter
    and leave), so the inactive block is one contiguous slice.
    """

    def __init__(self, X, ridge):
        self.X, self.ridge = X, ridge
        self.Xt = np.array(X.T, order="C")

    def swap(self, i, j):
        self.Xt[[i, j]] = self.Xt[[j, i]]

    def move_back(self, i, j):
        """Position ``i`` to ``j > i``, those between one forward: the bubble of swaps
        ``(i, i+1), ..., (j-1, j)`` as one shift."""
        row = self.Xt[i].copy()
        self.Xt[i:j] = self.Xt[i + 1:j + 1]
        self.Xt[j] = row

    def enter(self, position, indices):
        """``G_jj`` and the new row ``G_{j, A}`` of the feature ``j`` at ``position`` (the
        active set is the positions before it; ``indices`` maps positions to features)."""
        x = self.Xt[position]
        return x @ x + self.ridge, self.Xt[:position] @ x

    def direction(self, n_active, indices, w):
        """``G_{I, A} w`` over the inactive positions: ``X_I^T (X_A w)``, two products."""
        return self.Xt[n_active:] @ (self.Xt[:n_active].T @ w)

    def coefficient_products(self, features, coef):
        """``G_{j, :} a`` for the features ``j``: ``x_j^T (X a) + ridge a_j``."""
        return self.X[:, features].T @ (self.X @ coef) + self.ridge * coef[features]


class _GramProducts:
    """The same entries read from a formed ``G = X^T X + ridge I``, which is never written.

    The active rows ``G_{A, :}`` are copied into a buffer of ``steps x D``, their columns in
    path position order, so that ``G_{A, I}^T w`` is the very product (layout, order of
    summation) scikit-learn's ``lars_path_gram`` computes on its permuted matrix, and the path
    is bit for bit its path. scikit-learn swaps whole rows and columns of ``G`` (strided
    columns of ``D``, ``|A|`` pairs at each drop step) and keeps a copy of it; here a column
    swap touches ``|A|`` entries, so a step costs ``O(|A| D)``.
    """

    def __init__(self, gram):
        self.gram = gram
        self.rows = np.empty((0, gram.shape[0]))

    def swap(self, i, j):
        self.rows[:, [i, j]] = self.rows[:, [j, i]]

    def enter(self, position, indices):
        if position >= self.rows.shape[0]:
            grown = np.empty((max(16, 2 * self.rows.shape[0]), self.gram.shape[0]))
            grown[:self.rows.shape[0]] = self.rows
            self.rows = grown
        feature = indices[position]
        row = self.rows[position]
        np.take(self.gram[feature], indices, out=row)
        return row[position], row[:position]

    def move_back(self, i, j):
        # the rows from position j on are no longer active: only their shift matters
        self.rows[i:j] = self.rows[i + 1:j + 1]
        column = self.rows[:, i].copy()
        self.rows[:, i:j] = self.rows[:, i + 1:j + 1]
        self.rows[:, j] = column

    def direction(self, n_active, indices, w):
        return np.dot(self.rows[:n_active, n_active:].T, w)

    def coefficient_products(self, features, coef):
        return self.gram[features] @ coef


def ridge_lasso_path(X, y, ridge, max_iter, stop_cardinality=None, stop_active=None):
    """The lasso-LARS path of ``y`` on ``X`` with the Gram matrix ``X^T X + ridge I``, without
    forming it: ``lars_path_gram``'s algorithm step for step, its Gram rows computed from ``X``.

    scikit-learn's ``lars_path_gram`` needs the ``D x D`` Gram matrix and keeps a full copy of
    it for the lasso drop steps (16 D^2 bytes: 1.7 GB at D = 10304, the whole of MCFS's
    memory); ``lars_path`` on ``X`` has no ridge, and Cai's augmented ``[X; sqrt(ridge) I]`` is
    ``(n + D) x D``. Every Gram entry the algorithm reads is an inner product of columns of
    ``X`` (plus ``ridge`` on the diagonal): the new active row ``x_j^T X_A``, the correlations
    of the inactive features with the equiangular direction ``X_{I}^T (X_A w_A)``, and the
    correlation of a dropped feature ``x_j^T (y - X a) - ridge a_j``. So each step costs
    ``O(n D)`` (one product with ``X``) and memory is ``O(n D + steps D)``. See
    :func:`gram_lasso_path` for the algorithm, ``stop_cardinality`` and ``stop_active``.
    """
    return _lasso_lars_path(X.T @ y, X.shape[0], _ColumnProducts(X, ridge), max_iter,
                            stop_cardinality, stop_active)


def gram_lasso_path(gram, Xy, n_samples, max_iter, stop_cardinality=None, stop_active=None):
    """The lasso-LARS path on a formed Gram matrix (``gram`` is read, never written): equal to
    ``lars_path_gram(Xy=Xy, Gram=gram, n_samples=n_samples, method="lasso",
    max_iter=max_iter)`` to round-off.

    The selection rule, the tie order (the same swaps of positions), the rounding of the
    correlations, the step length, the lasso drop rule and the stopping rules are
    scikit-learn's (1.x); the Cholesky factor is downdated by the same Givens rotations after a
    drop. Each step costs ``O(|A| D)``: the active rows ``G_{A, :}`` are kept in a buffer.

    ``stop_cardinality=d`` ends the path early, exactly: once the active set exceeds ``d`` by
    more than the steps left before ``max_iter``, no later point can have ``d`` non-zeros
    (a step drops at most one variable; after a step that drops several at once the rule is
    off), so the last point with ``d`` non-zeros within ``max_iter`` is already on the path.
    ``stop_active=s`` ends it once ``s`` features are active (Cai's stop, ``s = d + 5``:
    Sjostrand's lars.m with ``stop = -s``), that point included.

    Returns
    -------
    alphas : ndarray of shape (steps,)
    active : list of int
    coefs : ndarray of shape (D, steps)
    """
    return _lasso_lars_path(Xy, n_samples, _GramProducts(gram), max_iter, stop_cardinality,
                            stop_active)


def _lasso_lars_path(Xy, n, products, max_iter, stop_cardinality, stop_active=None):
    """scikit-learn's lasso-LARS on the Gram entries ``products`` gives (see
    :func:`gram_lasso_path`): one path of :class:`_LassoLarsPaths`, every point kept."""
    paths = _LassoLarsPaths(Xy[None, :], n, [products], max_iter, stop_cardinality,
                            stop_active=stop_active, record=True)
    paths.run()
    path = paths.paths[0]
    return path.alphas[:path.n_iter + 1], path.active, path.coefs[:path.n_iter + 1].T


# scikit-learn's constants of its LARS
_TINY32 = np.finfo(np.float32).tiny
_COV_PRECISION = np.finfo(np.float64).precision
_EQUALITY_TOLERANCE = np.finfo(np.float32).eps
_EPS = np.finfo(np.float64).eps
# sklearn.utils.arrayfuncs.min_pos's answer when no entry is positive
_NO_POSITIVE = np.finfo(np.float64).max


class _PathState:
    """What one path of :class:`_LassoLarsPaths` keeps besides its rows of the shared arrays."""

    def __init__(self, D, products, max_features, record):
        self.products = products
        self.indices = np.arange(D)  # the feature at each path position
        self.L = np.empty((max_features, max_features))
        # the signs as float64 (sklearn keeps int8 and converts them at each step: the same
        # values); the active features as a list and as an array (active[i] == active_idx[i]):
        # indexing with the array saves converting the list at each of a step's three reads
        self.sign_active = np.zeros(max_features)
        self.active = []
        self.active_idx = np.empty(max_features + 1, dtype=np.intp)
        self.n_iter = self.n_active = 0
        self.drop = self.multi_drop = False
        self.alpha_last = None
        if record:
            self.coefs = np.zeros((max_features + 1, D))
            self.alphas = np.zeros(max_features + 1)
        else:
            self.coef = np.zeros(D)  # the last point; entries dropped at it zeroed at the next
            self.dropped = None
            self.hit = None  # the last point with stop_cardinality non-zeros
            self.largest, self.largest_count = np.zeros(D), 0  # the first of most non-zeros


class _LassoLarsPaths:
    """``K`` lasso-LARS paths advanced together, a step of each at a time: scikit-learn's
    ``lars_path_gram`` (1.x) on the Gram entries each path's ``products`` gives, its arithmetic
    operation for operation on every path.

    The correlations of path ``k`` are row ``k`` of ``Cov`` (``K x D``) in path position
    order, as scikit-learn permutes them, with the active positions held at 0: its ``Cov`` is
    ``Cov[k, n_active:]``. So the steps' ``D``-long arithmetic runs on all paths in one call
    each (the largest ``|Cov|``, the rounding of the direction's correlations, the two
    quotients of the step length, the update of ``Cov``), the same operations on the same
    numbers: an active position adds ``C / (AA + tiny)`` to the minima of the step length,
    which is ``C / AA``, already one of the candidates (checked; a path where it is not takes
    its minima over its inactive positions alone). Per path remain the entering variable, the
    Cholesky factor and its solve, the products with the Gram entries, the lasso drop. The
    bookkeeping around scikit-learn's arithmetic is leaner (the active set also as an index
    array, the signs as floats, ``AA`` in Python floats: the same IEEE operations). With one
    path (``K = 1``) this is scikit-learn's path bit for bit (tested against
    ``lars_path_gram``).

    ``record=True`` keeps every point of each path (``coefs``, ``alphas``); with ``False`` only
    the point MCFS reads (:meth:`point`, :func:`_path_point`'s), ``O(D)`` a path.
    ``stop_cardinality``, ``stop_active``: see :func:`gram_lasso_path`.
    """

    def __init__(self, XY, n, products, max_iter, stop_cardinality, stop_active=None,
                 record=True):
        K, D = XY.shape
        self.XY, self.n = XY, n
        self.max_iter, self.stop_cardinality, self.record = max_iter, stop_cardinality, record
        self.stop_active = stop_active
        self.Cov = np.array(XY, dtype=np.float64, order="C")
        self.corr = np.zeros((K, D))  # the direction's correlations G_{I, A} w, positions
        self.scratch = np.empty((2, K, D))
        self.C = np.zeros((K, 1))
        self.AA = np.ones((K, 1))
        # the most features a path can hold active (the size of its Cholesky factor): a step
        # adds at most one
        max_features = min(max_iter, D, stop_active or max_iter)
        self.paths = [_PathState(D, p, max_features, record) for p in products]

    def run(self, directions=None):
        """Advance every path to its end. ``directions(self, live)`` writes
        ``corr[k, n_active:]`` of the live paths; None: each path's
        ``products.direction``."""
        K, D = self.Cov.shape
        live = list(range(K))
        absolute = self.scratch[0]
        gammas = np.zeros(K)
        while live:
            # each path's largest |Cov| (its active positions hold 0)
            largest = np.abs(self.Cov, out=absolute).argmax(axis=1)
            live = [k for k in live if self._begin_step(k, int(largest[k]))]
            if not live:
                break
            if directions is None:
                for k in live:
                    path = self.paths[k]
                    self.corr[k, path.n_active:] = path.products.direction(
                        path.n_active, path.indices, path.least_squares)
            else:
                directions(self, live)
            for k in live:
                self.corr[k, :self.paths[k].n_active] = 0.0
            np.around(self.corr, decimals=_COV_PRECISION, out=self.corr)
            g1, g2 = self._step_quotients()
            gammas[:] = 0.0
            for k in live:
                gammas[k] = self._move(k, g1[k], g2[k])
            self.Cov -= gammas[:, None] * self.corr
            for k in live:
                if self.paths[k].drop:
                    self._drop(k)

    def _begin_step(self, k, position):
        """Path ``k``: enter the variable at ``position`` (none after a drop) and solve for
        the equiangular direction; False: the path ended (``alpha`` at 0 or rising,
        ``max_iter`` steps, every feature active, ``stop_active`` features active, or
        ``stop_cardinality``)."""
        path = self.paths[k]
        Cov, n_active, n_iter = self.Cov[k], path.n_active, path.n_iter
        L, indices, products = path.L, path.indices, path.products
        D = indices.size
        while True:
            C_ = Cov[position] if n_active < D else 0.0
            C = abs(C_)
            alpha = C / self.n
            if self.record:
                path.alphas[n_iter] = alpha
            if alpha <= _EQUALITY_TOLERANCE:  # alpha_min = 0: the residual is fitted
                return False
            if n_iter >= self.max_iter or n_active >= D:
                return False
            if self.stop_active is not None and n_active >= self.stop_active:
                return False
            if (self.stop_cardinality is not None and not path.multi_drop
                    and n_active - self.stop_cardinality > self.max_iter - n_iter):
                return False
            if not path.drop:
                path.sign_active[n_active] = 1.0 if C_ > 0 else -1.0  # np.sign (C_ != 0)
                m = n_active
                Cov[position], Cov[m] = Cov[m], Cov[position]
                indices[position], indices[m] = indices[m], indices[position]
                products.swap(position, m)
                # the new row of the Gram matrix, G_{j, A}, and its diagonal G_jj
                c, L[n_active, :n_active] = products.enter(n_active, indices)
                if n_active:
                    # the transposed upper system on the F-ordered view, as scipy's
                    # solve_triangular does with a C-ordered factor (and scikit-learn with it)
                    L[n_active, :n_active] = _dtrtrs(L[:n_active, :n_active].T,
                                                     L[n_active, :n_active], lower=0,
                                                     trans=1)[0]
                v = L[n_active, :n_active] @ L[n_active, :n_active]
                diag = max(math.sqrt(abs(c - v)), _EPS)
                L[n_active, n_active] = diag
                if diag < 1e-7:  # degenerate: its correlation set to 0, the next largest
                    Cov[m] = 0
                    Cov[position], Cov[m] = Cov[m], Cov[position]
                    position = n_active + int(np.abs(Cov[n_active:]).argmax())
                    continue
                Cov[m] = 0.0  # active
                path.active.append(int(indices[n_active]))
                path.active_idx[n_active] = path.active[-1]
                n_active += 1
            break
        path.n_active = n_active
        if n_iter > 0 and path.alpha_last < alpha:
            return False
        path.alpha_last = alpha
        # the equiangular direction: G_AA w = AA s, 1 / AA^2 = s^T G_AA^-1 s
        signs = path.sign_active[:n_active]
        least_squares = _dpotrs(L[:n_active, :n_active], signs, lower=1)[0]
        if least_squares.size == 1 and least_squares[0] == 0:
            least_squares[...] = 1
            AA = 1.0
        else:
            # np.sum's pairwise sum, then numpy's 1 / sqrt in Python floats (inf at 0, nan
            # below, as numpy gives them with its warnings silenced)
            AA = _inverse_sqrt(float(np.add.reduce(least_squares * signs)))
            i, L_ = 0, None
            while not math.isfinite(AA):  # sklearn's regularisation of a degenerate factor
                if L_ is None:  # copied only here: n_active^2 per step otherwise
                    L_ = L[:n_active, :n_active].copy()
                L_.flat[::n_active + 1] += (2**i) * _EPS
                least_squares = _dpotrs(L_, signs, lower=1)[0]
                AA = 1.0 / math.sqrt(max(float(np.add.reduce(least_squares * signs)), _EPS))
                i += 1
            least_squares *= AA
        path.least_squares = least_squares
        self.C[k, 0], self.AA[k, 0] = C, AA
        return True

    def _step_quotients(self):
        """scikit-learn's two minima of the step length, ``min_pos((C - Cov) / (AA - corr +
        tiny))`` and ``min_pos((C + Cov) / (AA + corr + tiny))``, for every path at once (an
        active position gives ``C / (AA + tiny)``)."""
        num, den = self.scratch
        minima = []
        for sign in (np.subtract, np.add):
            sign(self.C, self.Cov, out=num)
            sign(self.AA, self.corr, out=den)
            np.add(den, _TINY32, out=den)
            np.divide(num, den, out=num)
            minima.append(np.where(num > 0, num, _NO_POSITIVE).min(axis=1))
        return minima

    def _move(self, k, g1, g2):
        """Path ``k``'s step length, the lasso drop and the new point; returns ``gamma``."""
        path = self.paths[k]
        C, AA = self.C[k, 0], self.AA[k, 0]
        if AA + _TINY32 != AA:  # the active positions' C / (AA + tiny) is not C / AA
            g1, g2 = self._inactive_quotients(k)
        least_squares, n_active = path.least_squares, path.n_active
        gamma_ = min(g1, g2, C / AA)
        path.drop = False
        on = path.active_idx[:n_active]
        coef = path.coefs[path.n_iter] if self.record else path.coef
        coef_on = coef[on]  # gathered once for the drop test, the move and the count
        z = -coef_on / (least_squares + _TINY32)
        z_pos = min_pos(z)
        if z_pos < gamma_:
            idx = np.where(z == z_pos)[0][::-1]
            path.sign_active[idx] = -path.sign_active[idx]
            gamma_ = z_pos
            path.drop, path.drop_positions = True, idx
        path.n_iter += 1
        if self.record:
            n_iter = path.n_iter
            if n_iter >= path.coefs.shape[0]:
                add = 2 * max(1, path.L.shape[0] - n_active)
                path.coefs = np.concatenate([path.coefs, np.zeros((add, path.coefs.shape[1]))])
                path.alphas = np.concatenate([path.alphas, np.zeros(add)])
            path.coefs[n_iter][on] = coef_on + gamma_ * least_squares
        else:
            if path.dropped is not None:  # dropped at the last point: 0 from this one on
                coef[path.dropped] = 0.0
                path.dropped = None
            coef[on] = coef_on = coef_on + gamma_ * least_squares
            self._read_point(path, coef, coef_on)
        return gamma_

    def _inactive_quotients(self, k):
        path = self.paths[k]
        Cov, corr = self.Cov[k, path.n_active:], self.corr[k, path.n_active:]
        C, AA = self.C[k, 0], self.AA[k, 0]
        return (min_pos((C - Cov) / (AA - corr + _TINY32)),
                min_pos((C + Cov) / (AA + corr + _TINY32)))

    def _drop(self, k):
        """Path ``k``'s dropped variables leave the active set (after ``Cov``'s update)."""
        path = self.paths[k]
        idx, n_active = path.drop_positions, path.n_active
        L, indices, active = path.L, path.indices, path.active
        path.multi_drop = path.multi_drop or len(idx) > 1
        for ii in idx:
            cholesky_delete(L[:n_active, :n_active], ii)
            n_active -= 1
        drop_idx = [active.pop(ii) for ii in idx]
        path.active_idx[:len(active)] = active
        for ii in idx:  # each dropped variable to the end of the active positions
            moved = indices[ii]
            indices[ii:n_active] = indices[ii + 1:n_active + 1]
            indices[n_active] = moved
            path.products.move_back(ii, n_active)
        # the dropped features' correlations again: x_j^T y - G_{j, :} a
        coef = path.coefs[path.n_iter] if self.record else path.coef
        self.Cov[k, n_active:n_active + len(idx)] = (
            self.XY[k, drop_idx] - path.products.coefficient_products(drop_idx, coef))
        if len(idx) == 1:  # np.delete, then np.append(0), in place
            path.sign_active[idx[0]:-1] = path.sign_active[idx[0] + 1:]
            path.sign_active[-1] = 0.0
        else:
            path.sign_active = np.append(np.delete(path.sign_active, idx), 0.0)
        path.n_active = n_active
        if not self.record:
            path.dropped = drop_idx

    def _read_point(self, path, coef, values):
        """Keep the point :func:`_path_point` would read: the last with ``stop_cardinality``
        non-zeros, else the first of the most (``values``: ``coef``'s entries that can be
        non-zero, those of the features active during the step)."""
        count = int(np.count_nonzero(values))
        if count == self.stop_cardinality:
            path.hit = coef.copy()
        if count > path.largest_count:
            path.largest, path.largest_count = coef.copy(), count

    def point(self, k):
        """``record=False``: path ``k``'s point MCFS reads, L2-normalised, and its non-zeros."""
        path = self.paths[k]
        a = path.hit if path.hit is not None else path.largest
        norm = np.linalg.norm(a)
        return (a / norm if norm > 0 else a), int(np.count_nonzero(a))


def _inverse_sqrt(x):
    """``1 / sqrt(x)`` as numpy computes it on a float64: IEEE's correctly rounded square root
    and quotient, ``inf`` at 0 and ``nan`` below (or at ``nan``)."""
    if x > 0:
        return 1.0 / math.sqrt(x)
    return math.inf if x == 0 else math.nan


def _whole_gram_lasso_paths(X, Y, ridge, max_iter, stop_cardinality):
    """Lasso-LARS paths (D, steps) of every column of ``Y`` on one ``G = X^T X + ridge I``,
    formed once per fit and only read (:func:`gram_lasso_path`)."""
    gram = X.T @ X
    gram[np.diag_indices(X.shape[1])] += ridge
    for y in Y.T:
        yield gram_lasso_path(gram, X.T @ y, X.shape[0], max_iter, stop_cardinality,
                              _cai_stop(stop_cardinality))[2]


class _SlotColumnProducts:
    """The Gram entries of one path as inner products of the columns of ``X`` (never
    ``X^T X``), for paths that advance together on ``X`` (:func:`_lasso_points`).

    The active columns ``x_j`` (rows of ``X^T``) are copied into the slots of a small buffer,
    ``slot`` mapping the path positions to them: the position map moves as the positions do,
    no row moves, and an entering column takes the lowest slot no active position holds.
    :meth:`equiangular` gives ``u = X_A w`` (the weights scattered to their slots, a slot no
    active position holds weighted 0); the caller forms ``X^T u`` of all paths at once and
    reads each at its inactive positions. The same entries as :class:`_ColumnProducts`'
    summed in another order: the same path to round-off.
    """

    def __init__(self, X, Xt, ridge):
        self.X, self.Xt, self.ridge = X, Xt, ridge
        self.rows = np.empty((16, X.shape[0]))
        self.slot = np.zeros(16, dtype=np.intp)
        self.n_slots = 0  # the slots [0, n_slots) have held a column

    def swap(self, i, j):
        # positions i, j >= |A| (a variable entering): no active position moves
        pass

    def enter(self, position, indices):
        if position >= self.slot.size:
            self.slot = np.concatenate([self.slot, np.zeros_like(self.slot)])
        held = np.zeros(self.n_slots + 1, dtype=bool)
        held[self.slot[:position]] = True
        free = int(held.argmin())  # the lowest slot no active position holds
        if free >= self.rows.shape[0]:
            grown = np.empty((2 * self.rows.shape[0], self.rows.shape[1]))
            grown[:self.rows.shape[0]] = self.rows
            self.rows = grown
        self.n_slots = max(self.n_slots, free + 1)
        self.slot[position] = free
        x = self.rows[free]
        x[:] = self.Xt[indices[position]]
        return x @ x + self.ridge, (self.rows[:self.n_slots] @ x)[self.slot[:position]]

    def move_back(self, i, j):
        # the positions i + 1..j one forward, as _GramProducts moves its rows (position j
        # keeps its slot: it is no longer active)
        self.slot[i:j] = self.slot[i + 1:j + 1]

    def equiangular(self, n_active, w, out=None):
        """``u = X_A w``, the equiangular vector (n,)."""
        weights = np.bincount(self.slot[:n_active], weights=w, minlength=self.n_slots)
        return np.matmul(weights, self.rows[:self.n_slots], out=out)

    def direction(self, n_active, indices, w):
        return (self.equiangular(n_active, w) @ self.X)[indices[n_active:]]

    def coefficient_products(self, features, coef):
        """``x_j^T (X a) + ridge a_j`` for the features ``j``."""
        support = np.flatnonzero(coef)
        residual = coef[support] @ self.Xt[support]
        return self.Xt[features] @ residual + self.ridge * coef[features]


class _ActiveRowProducts:
    """The entries of a formed ``G = X^T X + ridge I`` (never written) for the paths of
    :func:`_lasso_points` on the Gram matrix: each active row ``G_{j, :}`` copied whole, in
    feature order, into a slot of a buffer; ``slot`` maps the path positions to the slots.

    ``G_{I, A} w`` is then ``w^T G_{A, :}``, one row-major product over the occupied slots (the
    weights scattered to their slots, a slot no active position holds weighted 0), read at the
    inactive positions: the same entries as :class:`_GramProducts`' ``G_{A, I}^T w``, summed in
    another order (to round-off, not bit for bit scikit-learn's). No column of the buffer moves
    when a variable enters and no row when one leaves: the position map moves instead, as the
    positions do, and an entering row takes the lowest slot no active position holds. On
    warpPIE10P (210 x 2420) at 100 active features the product takes 47 us on one BLAS
    thread, the transposed one 280 us.
    """

    def __init__(self, gram):
        self.gram = gram
        self.rows = np.empty((16, gram.shape[0]))
        self.slot = np.zeros(16, dtype=np.intp)
        self.n_slots = 0  # the slots [0, n_slots) have held a row
        self.in_order = True  # slot[p] == p for every active position p (no drop yet)

    def swap(self, i, j):
        # positions i, j >= |A| (a variable entering): no active position moves
        pass

    def enter(self, position, indices):
        if position >= self.slot.size:
            self.slot = np.concatenate([self.slot, np.zeros_like(self.slot)])
        if self.in_order and self.n_slots <= position:
            free = position  # the slots 0..position - 1 hold the active rows, in order
        else:
            held = np.zeros(self.n_slots + 1, dtype=bool)
            held[self.slot[:position]] = True
            free = int(held.argmin())  # the lowest slot no active position holds
        if free >= self.rows.shape[0]:
            grown = np.empty((2 * self.rows.shape[0], self.gram.shape[0]))
            grown[:self.rows.shape[0]] = self.rows
            self.rows = grown
        self.n_slots = max(self.n_slots, free + 1)
        self.slot[position] = free
        self.in_order = self.in_order and free == position
        feature = indices[position]
        row = self.rows[free]
        row[:] = self.gram[feature]
        return row[feature], row[indices[:position]]

    def move_back(self, i, j):
        # the positions i + 1..j one forward, as _GramProducts moves its rows (position j
        # keeps its slot: it is no longer active)
        self.slot[i:j] = self.slot[i + 1:j + 1]
        self.in_order = self.in_order and i == j

    def combination(self, n_active, w):
        """``w^T G_{A, :}`` (D,), in feature order."""
        if self.n_slots == n_active and self.in_order:
            return w @ self.rows[:n_active]
        weights = np.bincount(self.slot[:n_active], weights=w, minlength=self.n_slots)
        return weights @ self.rows[:self.n_slots]

    def direction(self, n_active, indices, w):
        return self.combination(n_active, w)[indices[n_active:]]

    def coefficient_products(self, features, coef):
        return self.gram[features] @ coef


def _lasso_points(X, Y, n_nonzero, ridge, max_iter, on_gram):
    """The point MCFS reads on the lasso-LARS path of each column of ``Y`` (as
    :func:`lasso_coefficients`), the paths advancing together (:class:`_LassoLarsPaths`).

    ``on_gram``: on one formed ``G = X^T X + ridge I``, each path's direction from its active
    rows (:class:`_ActiveRowProducts`); else on ``X``, the directions of all paths from one
    product ``[u_1 .. u_K]^T X`` a step (:class:`_SlotColumnProducts`), which reads ``X`` once
    where ``K`` matrix-vector products read it ``K`` times (TOX-171's five paths: 0.38 s
    against 0.77 s one by one, the fastest of 9), and no ``D x D`` matrix is formed. Groups
    of paths hold at most 64 MiB of active rows (or columns) and Cholesky factors. Call within
    one BLAS thread: the small products are faster so, and sum in one order.

    Returns
    -------
    A : ndarray of shape (D, K)
    cardinality, steps : ndarrays of shape (K,), int
    """
    n, D = X.shape
    K = Y.shape[1]
    X = np.ascontiguousarray(X, dtype=np.float64)
    XY = Y.T @ X  # row k: X^T y_k
    reach = _reachable_active(D, n_nonzero, max_iter)
    stop_active = _cai_stop(n_nonzero)
    if on_gram:
        gram = X.T @ X
        gram[np.diag_indices(D)] += ridge
        width = D
        products, directions = (lambda: _ActiveRowProducts(gram)), _directions_on_rows
    else:
        Xt = np.ascontiguousarray(X.T)
        width = n
        products, directions = (lambda: _SlotColumnProducts(X, Xt, ridge)), _directions_on(X)
    # a path's own arrays: its active rows (or columns) and its Cholesky factor
    group = max(1, 2**26 // (8 * (reach * width + reach**2)))
    A = np.zeros((D, K))
    cardinality = np.zeros(K, dtype=int)
    steps = np.zeros(K, dtype=int)
    for start in range(0, K, group):
        block = range(start, min(K, start + group))
        paths = _LassoLarsPaths(XY[block.start:block.stop], n, [products() for _ in block],
                                max_iter, n_nonzero, stop_active=stop_active, record=False)
        paths.run(directions)
        for i, k in enumerate(block):
            A[:, k], cardinality[k] = paths.point(i)
            steps[k] = paths.paths[i].n_iter
    return A, cardinality, steps


def _directions_on(X):
    """``directions`` for :meth:`_LassoLarsPaths.run` on :class:`_SlotColumnProducts`: every
    live path's ``X^T u`` from one matrix product, read at its inactive positions."""
    U = np.empty((0, X.shape[0]))

    def directions(paths, live):
        nonlocal U
        if U.shape[0] < len(live):
            U = np.empty((len(live), X.shape[0]))
        for i, k in enumerate(live):
            path = paths.paths[k]
            path.products.equiangular(path.n_active, path.least_squares, out=U[i])
        R = U[:len(live)] @ X
        for i, k in enumerate(live):
            path = paths.paths[k]
            np.take(R[i], path.indices[path.n_active:], out=paths.corr[k, path.n_active:])

    return directions


def _directions_on_rows(paths, live):
    """``directions`` for :meth:`_LassoLarsPaths.run` on :class:`_ActiveRowProducts`: each
    live path's ``w^T G_{A, :}``, read at its inactive positions into ``paths.corr``."""
    for k in live:
        path = paths.paths[k]
        products, n_active = path.products, path.n_active
        np.take(products.combination(n_active, path.least_squares),
                path.indices[n_active:], out=paths.corr[k, n_active:])


def _reachable_active(D, n_nonzero, max_iter):
    """The most active features a path read at ``n_nonzero`` can hold: ``d + 5`` (Cai's
    stop, :data:`CAI_EXTRA_ACTIVE`), and while it runs ``|A| - d <= max_iter - steps`` and
    ``|A| <= steps``, so ``|A| <= (max_iter + d) / 2`` before its last entry."""
    return min(D, _cai_stop(n_nonzero), (max_iter + n_nonzero) // 2 + 1)


def _gram_is_cheaper(n, D, K, n_nonzero):
    """Whether ``K`` paths advancing together run faster on a formed Gram matrix than on
    ``X``. Each path takes about ``s = d + 5`` steps (Cai's stop). On the Gram matrix: ``n D^2``
    multiply-adds to form it (one BLAS product, at full speed), then ``w^T G_A`` a step, small.
    On ``X``: one product ``[u_1 .. u_K]^T X`` a step for all paths, ``K n D`` multiply-adds
    that read all of ``X``, each step about 25 times slower per multiply-add than the Gram
    product where ``K`` is small. So ``X`` pays where ``D > 25 s`` and ``K s (n - s / 2) <
    n D`` (the flop count with the Gram rows). Measured with ``speed/mcfs_same_ranking.py``
    on 109 prepared sets (the CPU of a fit, the defaults, both routes; the same orders):
    warpPIE10P (210 x 2420) 0.087 s on the Gram matrix, 0.075 s on ``X``; skfeature-lymphoma
    (96 x 4026) 0.155 and 0.069 s; pie-c27 (1428 x 1280) 0.419 and 0.530 s; skfeature-orl
    (400 x 1024) 0.044 and 0.062 s; docs/measurements.md, "Cai's stop"."""
    steps = _cai_stop(n_nonzero)
    return D <= 25 * steps or K * steps * (n - steps / 2) > n * D


def _paths_together(n, D, n_nonzero, max_iter):
    """Whether :func:`lasso_coefficients` runs its paths together (:func:`_lasso_points`),
    with its products summed in another order than scikit-learn's: only while every point a
    path can reach has fewer active features than samples, so that ``X_A`` can have full
    column rank and a change of order in the sums stays a change of round-off. Past ``n``
    the active Gram block is singular but for the ridge (1e-3), and round-off grows along the
    path: at d = 300 such paths moved the scores by up to 0.09 and changed the feature order
    on 6 of the prepared sets, where below ``n`` the order stayed the same on every set
    (docs/measurements.md, "MCFS against scikit-feature"). Those paths run one by one, as
    before, bit for bit."""
    return _reachable_active(D, n_nonzero, max_iter) < n


class _RowGramProducts(_GramProducts):
    """:class:`_GramProducts` whose ``G_{I, A} w`` is the combination of the active rows,
    ``w^T G_{A, I}`` (a row-major product): the same entries as scikit-learn's ``G_{A, I}^T w``
    summed in another order, so equal to its path to round-off, not bit for bit. For 500
    active of 2,000 features it takes 0.33 ms on one BLAS thread, where the transposed product
    takes 4 ms on one and 15 ms on two."""

    def direction(self, n_active, indices, w):
        return w @ self.rows[:n_active, n_active:]


def _column_means(X):
    """Column means in float64, of a dense or CSR ``X`` (blocks of stored values)."""
    n, D = X.shape
    if not sp.issparse(X):
        return np.asarray(X, dtype=np.float64).mean(axis=0)
    total = np.zeros(D)
    for start in range(0, X.nnz, _PRODUCT_BLOCK_VALUES):
        stop = start + _PRODUCT_BLOCK_VALUES
        total += np.bincount(X.indices[start:stop],
                             weights=X.data[start:stop].astype(np.float64), minlength=D)
    return total / n


def _transposed_product(X, R):
    """``X^T R`` in float64 for a dense or CSR ``X`` and a dense ``R (n, K)``: for sparse ``X``
    summed over blocks of rows in order (each block's values converted, never all of X's)."""
    if not sp.issparse(X):
        return np.asarray(X, dtype=np.float64).T @ R
    n = X.shape[0]
    rows = max(1, int(_PRODUCT_BLOCK_VALUES / max(1.0, X.nnz / max(n, 1))))
    out = np.zeros((X.shape[1], R.shape[1]))
    for start in range(0, n, rows):
        block = X[start:start + rows]
        out += np.asarray(block.T @ R[start:start + rows])
    return out


def _centred_grams(X, screens, mean, ridge):
    """``(X_S - 1 mu_S^T)^T (X_S - 1 mu_S^T) + ridge I`` for each column set S of ``screens``
    (sorted index arrays) of a dense or CSR ``X``.

    ``X_S^T X_S`` is accumulated from dense blocks of rows of the union of the sets (one
    densification of each block, then one BLAS ``syrk`` per set, as
    :func:`fsclust.graphs.pca_embedding`'s covariance), then ``- n mu_S mu_S^T``: memory the
    Grams plus one block, time ``n sum |S|^2``; ``X`` is never centred nor densified whole.
    The blocks are column-major, so that a set's columns are gathered as whole columns (10^4
    synthetic cells, 10 sets of 1,000 of 4,794 genes: 0.25 s of gathers instead of 1.5 s, and
    a densification of 1.1 s instead of 1.7 s; the same matrices).
    """
    n, D = X.shape
    union = np.unique(np.concatenate(screens)) if len(screens) > 1 else screens[0]
    every = union.size == D
    positions = [np.searchsorted(union, S) for S in screens]
    whole = [p.size == union.size for p in positions]  # a set that is the union: no gather
    grams = [np.zeros((S.size, S.size)) for S in screens]
    rows = max(1, _GRAM_BLOCK_ENTRIES // max(union.size, 1))
    for start in range(0, n, rows):
        block = X[start:min(n, start + rows)]
        block = block if every else block[:, union]
        B = (block.toarray(order="F") if sp.issparse(block) else block).astype(
            np.float64, order="F", copy=False)
        for gram, p, is_whole in zip(grams, positions, whole):
            Bs = B if is_whole else B[:, p]
            gram += Bs.T @ Bs
    for i, (gram, S) in enumerate(zip(grams, screens)):
        mu = mean[S]
        gram -= n * np.outer(mu, mu)
        gram = (gram + gram.T) / 2.0  # exactly symmetric, whatever order the blocks summed in
        gram[np.diag_indices(S.size)] += ridge
        grams[i] = gram
    return grams


def correlation_screens(correlations, n_features):
    """Each target's ``n_features`` features of largest ``|c_jk|`` (sorted indices; ties by
    index): the marginal screen of Fan & Lv (2008), one per target. A target's lasso-LARS path
    takes its features in about that order (its first step is the largest ``|c_jk|``). None
    or ``n_features >= D``: every feature.

    Examples
    --------
    >>> c = np.array([[0.9, 0.0], [0.1, 0.2], [0.0, 0.8], [0.5, 0.1]])
    >>> correlation_screens(c, 2)
    [array([0, 3]), array([1, 2])]
    """
    D, K = correlations.shape
    if n_features is None or n_features >= D:
        every = np.arange(D)
        return [every] * K
    return [np.sort(np.argsort(-np.abs(c), kind="stable")[:int(n_features)])
            for c in correlations.T]


def screened_lasso_coefficients(X, Y, n_nonzero, ridge=1e-3, n_screen=None, max_iter=None):
    """MCFS's regression at single-cell scale: the lasso-LARS of each ``y_k`` on the centred
    features, on the ``n_screen`` features most correlated with ``y_k``.

    ``y_k ~ (X_S - 1 mu_S^T) a_k`` (an intercept) with Cai's ridge, on the features S_k of
    :func:`correlation_screens` of the centred correlations ``(x_j - mu_j)^T y_k``; ``a_k`` is
    the last point with ``n_nonzero`` non-zeros of the path stopped at ``n_nonzero + 5``
    active, L2-normalised, as in :func:`lasso_coefficients`; the features outside S_k get 0.
    Each eigenvector's regression depends on that eigenvector alone. ``X`` (dense or CSR) is read three times: the means,
    the correlations (``O(nnz K)``) and the Gram matrices of the S_k
    (:func:`_centred_grams`, ``n sum |S_k|^2``); the paths then run on those matrices alone
    (:func:`gram_lasso_path`'s algorithm, each step ``O(|A| |S_k|)``, on one BLAS thread).
    With ``n_screen=None`` (or at least ``D``) every regression runs on every feature, one
    shared Gram matrix, and the coefficients are :func:`lasso_coefficients`' of the centred
    ``X`` to round-off.

    Parameters
    ----------
    X : ndarray or scipy.sparse CSR matrix of shape (n, D)
    Y : ndarray of shape (n, K)
    n_nonzero : int
    ridge : float, default=1e-3
    n_screen : int or None, default=None
    max_iter : int or None, default=None
        As :func:`lasso_coefficients`' (None: ``4 n_nonzero + 50``).

    Returns
    -------
    A : ndarray of shape (D, K)
    cardinality : ndarray of shape (K,), int
    screens : ndarray of shape (K, min(n_screen, D)), int
        Each eigenvector's features S_k, sorted.
    steps : ndarray of shape (K,), int

    Examples
    --------
    >>> X = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    >>> A, cardinality, screens, _ = screened_lasso_coefficients(
    ...     X, np.array([[1.0], [-1.0], [0.5], [-0.5]]), 1, n_screen=2)
    >>> np.flatnonzero(A[:, 0]), cardinality, screens
    (array([0]), array([1]), array([[0, 1]]))
    """
    n, D = X.shape
    K = Y.shape[1]
    if max_iter is None:
        max_iter = 4 * int(n_nonzero) + 50
    mean = _column_means(X)
    correlations = _transposed_product(X, Y) - np.outer(mean, Y.sum(axis=0))
    screens = correlation_screens(correlations, n_screen)
    if n_screen is None or n_screen >= D:
        grams = _centred_grams(X, screens[:1], mean, ridge) * K  # one matrix, only read
    else:
        grams = _centred_grams(X, screens, mean, ridge)
    A = np.zeros((D, K))
    cardinality = np.zeros(K, dtype=int)
    steps = np.zeros(K, dtype=int)
    # the path's small products are faster on one thread, and then sum in one order
    with threadpool_limits(limits=1):
        for k, (S, gram) in enumerate(zip(screens, grams)):
            coefs = _lasso_lars_path(correlations[S, k], n, _RowGramProducts(gram), max_iter,
                                     n_nonzero, _cai_stop(n_nonzero))[2]
            A[S, k], cardinality[k] = _path_point(coefs, n_nonzero)
            steps[k] = coefs.shape[1] - 1
    return A, cardinality, np.array(screens), steps


def skfeature_embedding_targets(W, n_eigenvectors):
    """scikit-feature's ``Y (n, K)``: ``D^-1/2 V`` with ``V`` the eigenvectors of the ``K``
    largest eigenvalues of ``D^-1/2 W D^-1/2`` below the top one, taken by position from a
    full dense ``eigh`` (columns ``[-K-1:-1]``).

    The compatibility recipe's embedding (``solver="skfeature"``): the same subspace as
    :func:`spectral_embedding_targets` on a connected graph, in the reverse order. The signed
    maximum of ``score_rule="signed_max"`` sees the signs: scikit-feature keeps LAPACK's,
    which change with the CPU's BLAS kernels; these are canonical
    (:func:`~fsclust.graphs.canonical_sign_flip`), so scikit-feature's coefficients are matched
    up to the sign of each eigenvector. The trivial eigenvector is dropped by position, which
    is wrong on a disconnected graph.
    """
    W = W.toarray() if sp.issparse(W) else np.array(W, dtype=np.float64)
    W = 0.5 * (W + W.T)
    inv_sqrt = np.sqrt(1.0 / W.sum(axis=1))
    M = inv_sqrt[:, None] * W * inv_sqrt[None, :]
    M = np.maximum(M, M.T)
    V = canonical_sign_flip(scipy.linalg.eigh(M)[1])
    return inv_sqrt[:, None] * V[:, -n_eigenvectors - 1:-1]


def lar_coefficients(X, Y, n_nonzero):
    """scikit-feature's regression: pure LAR, ``Lars(n_nonzero_coefs=d)`` with an intercept
    (``X`` and ``y`` centred), no lasso drop step, no ridge and no normalisation of ``a_k``.

    On scikit-learn >= 1.2 this is what scikit-feature's ``mcfs`` runs; before 1.2 ``Lars``
    also scaled the columns of ``X`` to unit norm (``normalize=True``). Returns the
    coefficients ``A (D, K)`` and the LARS steps of each path ``(K,)``.
    """
    A = np.zeros((X.shape[1], Y.shape[1]))
    steps = np.zeros(Y.shape[1], dtype=int)
    for k, y in enumerate(Y.T):
        lars = Lars(n_nonzero_coefs=int(n_nonzero)).fit(X, y)
        A[:, k], steps[k] = lars.coef_, lars.n_iter_
    return A, steps


class MCFS(GraphOnPCA, FeatureRanker):
    """Multi-cluster feature selection: ``MCFS_j = max_k |a_kj|`` over sparse regressions.

    A kNN heat-kernel graph gives the ``K`` smallest non-trivial generalised eigenvectors
    ``y_k`` of ``L y = lambda D y`` (a flat embedding of the clusters); each is regressed on the
    features by lasso-LARS, stopped at ``n_nonzero_coefs`` non-zero coefficients ``a_k``; a
    feature's score is its largest absolute coefficient (eq. (11) of Maldonado et al.).
    ``graph="pca"`` is the single-cell form: the graph on principal components, sparse input
    kept sparse, and each regression on the features most correlated with its eigenvector
    (see Notes).

    Parameters
    ----------
    n_features_to_select : int or None, default=None
    n_clusters : int, default=5
        Default number of eigenvectors ``K``.
    n_eigenvectors : int or None, default=None
        ``K``; None: ``n_clusters``.
    n_nonzero_coefs : int or None, default=None
        Cardinality ``d`` of each lasso solution; None: ``n_features_to_select``, else
        ``min(n_features, 50)``. Maldonado et al. 2015 use ``d = n`` (the number of features
        evaluated).
    n_neighbors : int, default=5
        ``k`` of the kNN graph (either graph; single-cell analyses use 15).
    t : float or None, default=None
    t_rule : {"cai", "zeng2008", "median"}, default="cai"
    ridge : float, default=1e-3
        Ridge term of Cai's Gram matrix ``X^T X + ridge I``; dropped when ``8 D^2`` bytes
        exceed 1 GiB (``D > 11585``). Without it (or with 0) the paths run on ``X``.
    solver : {"cai", "skfeature"}, default="cai"
        ``"cai"``: the embedding with the trivial eigenvector deflated and lasso-LARS with
        Cai's ridge, each ``a_k`` L2-normalised (Cai, Zhang & He 2010; Cai's code).
        ``"skfeature"``: scikit-feature's ``mcfs`` (compatibility): its embedding
        (:func:`skfeature_embedding_targets`) and pure LAR with an intercept
        (:func:`lar_coefficients`); ``ridge`` is not used.
    score_rule : {"max_abs", "signed_max"}, default="max_abs"
        ``max_k |a_kj|`` (Cai, Zhang & He 2010, eq. (5)), or scikit-feature's signed
        ``max_k a_kj``. (Not ``score``: that name is scikit-learn's ``score`` method.)
    self_loops : bool, default=False
        ``W_ii = 1`` on the kNN graph, as scikit-feature's ``construct_W``.
    graph : {"data", "pca"}, default="data"
        ``"data"``: the paper's graph, on the features themselves (dense input, at most
        :data:`MCFS_DATA_GRAPH_MAX_SAMPLES` samples). ``"pca"``: the kNN graph on principal
        components (:func:`fsclust.graphs.pca_knn_graph`, heat weights), its embedding by
        Lanczos (:func:`lanczos_embedding_targets`) and the screened regressions
        (:func:`screened_lasso_coefficients`): memory and time linear in the number of
        samples; takes sparse input and keeps it sparse. ``t``, ``t_rule`` and ``self_loops``
        apply to ``"data"`` only, ``regression_features`` to ``"pca"`` only; ``solver`` must
        be ``"cai"``.
    n_pcs, graph_features, graph_prefilter, random_state
        As :class:`~fsclust.rankers.laplacian.LaplacianScore`'s, for the ``"pca"`` graph.
    regression_features : int or None, default=1000
        ``graph="pca"``: each eigenvector is regressed on its ``regression_features`` features
        of largest centred correlation with it (at least ``2 n_nonzero_coefs``); None: on every
        feature, as the paper (one ``D x D`` Gram matrix: at most 11,585 features).

    The compatibility recipe (scikit-feature's ``construct_W(X, metric="euclidean",
    neighbor_mode="knn", weight_mode="heat_kernel", k=k, t=t_sk)`` then ``mcfs(X, d, W=W,
    n_clusters=K)``): ``MCFS(n_eigenvectors=K, n_nonzero_coefs=d, n_neighbors=k,
    t=2 * t_sk**2, self_loops=True, solver="skfeature", score_rule="signed_max")``.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``max_k |a_kj|`` (larger is better); features never active score 0 and tie (lower
        index first).
    coef_ : ndarray of shape (n_features, K)
        The normalised lasso coefficients.
    ridge_ : float
        The ridge term used: ``ridge``, or 0.0 when the Gram matrix was too large.
    path_steps_ : ndarray of shape (K,), int
        LARS steps of each eigenvector's path (each costs one product with ``X`` or with the
        Gram matrix's active rows).
    screened_features_ : ndarray of shape (K, n_screened), int
        ``graph="pca"`` only: the features each eigenvector was regressed on (sorted). A
        feature in none of them scores 0 and ranks after every feature in one.
    ranking_, feature_order_, constant_mask_, t_, n_features_in_

    Notes
    -----
    Decisions (where the paper, Cai's code and scikit-feature differ): the score is the
    absolute maximum (scikit-feature takes the signed one); LARS-lasso with Cai's ridge term
    and per-eigenvector L2 normalisation, not pure LAR; the trivial eigenvector is deflated, not
    dropped by position (a disconnected graph has several zero eigenvalues). The Gram matrix is
    formed once per fit up to D = 4096 and only read (:func:`gram_lasso_path`, scikit-learn's
    ``lars_path_gram`` bit for bit, without its copies and swaps of the matrix); above, never:
    its rows are computed from ``X`` as the path needs them (:func:`ridge_lasso_path`, the
    same path to round-off). When ``8 D^2`` bytes exceed 1 GiB the ridge term is dropped and
    the paths run on ``X`` (O(n D) memory; the paper's problem is a plain lasso): Cai's code
    instead augments ``X`` with ``sqrt(ridge) I`` rows when ``D >= 10000``, a matrix as large
    as the Gram one. Without the ridge the path cannot pass
    ``rank(X) <= n`` features. When a path never reaches ``d`` non-zeros it gives the point of
    largest cardinality, with one warning per fit. Each path stops once ``d + 5`` features
    are active and is read at its last point with ``d`` non-zeros, as Cai's code does
    (:data:`CAI_EXTRA_ACTIVE`; at most ``4 d + 50`` steps). Until 2026-11-29 the paths ran on
    to ``4 d + 50`` steps and were read at their last point with ``d`` non-zeros there, which
    no source has: twice the steps, and on a few sets another order (docs/measurements.md,
    "MCFS against scikit-feature"). Where no path can hold ``n`` active features
    (``d + 5 < n``) the ``K`` paths advance together and their products are summed in
    another order (the same scores to round-off, :func:`lasso_coefficients`).

    ``graph="pca"`` departs from the paper and Cai's code in three ways, for data of 10^5
    samples and more (docs/measurements.md, "MCFS at single-cell scale"):

    - each ``y_k`` is regressed on its ``regression_features`` features of largest
      ``|(x_j - mu_j)^T y_k|`` (a marginal screen, Fan & Lv 2008), not on all ``D``: a LARS
      step over all features costs a pass over ``X`` (``O(nnz)``) or a ``D x D`` Gram matrix,
      and ``d`` in the hundreds takes over a thousand steps per eigenvector. The other
      features score 0 and rank after the screened ones; ``regression_features=None``
      regresses on every feature. Each eigenvector's screen depends on it alone, so
      :meth:`scores_for_n_clusters` still equals a fit at the smaller ``K``;
    - the features are centred (an intercept, as scikit-feature's ``Lars``), so that the
      scores do not change when a constant is added to a feature (a gene's baseline); Cai's
      regression without an intercept is not invariant so (the eigenvectors are orthogonal to
      the degrees, not to the constant). Of the planted markers of synthetic counts, the
      centred regressions put 0.95 in the top m at 10^5 cells, Cai's 0.92 (``K = 10``); at
      10^4 cells as many (0.69 and 0.70);
    - the eigenvectors come from Lanczos on the sparse graph
      (:func:`lanczos_embedding_targets`; a dense ``eigh`` when ``K >= n / 10``), never from a
      factorisation: the same eigenvectors to round-off.

    Planted structure (issue 40; ``speed/planted_suite.py``, docs/measurements.md, "Planted
    structure at the defaults"). Against the spec's reading of the paper and Cai's
    ``MCFS_p.m``/``SR.m`` (the embedding without the trivial eigenvector, lasso-LARS with the
    ridge, each ``a_k`` normalised, the absolute maximum, the stop at ``d + 5`` active) no
    departure was found that the suite sees. The shortfall has two causes, both of the
    formulation and its defaults. ``K = n_clusters`` eigenvectors: ``c`` groups span ``c - 1``
    non-trivial eigenvectors, the ``c``-th is noise, and its lasso path (0-6 planted among its
    30 active features on the 12 problems) enters the maximum with the same unit norm as the
    others, so its noise features score as high as the planted ones. With
    ``n_eigenvectors = c - 1`` the shares (precision, seed 0) are 0.57 0.03 0.87 0.37 0.43
    0.60 0.97 0.93 0.97 1.00 1.00 0.34 against 0.50 0.00 0.63 0.37 0.43 0.40 0.81 0.70 0.73
    0.70 0.70 0.28 at the defaults (wide ... counts, the suite's order). The other cause is
    the lasso's: the planted features are copies of one group structure, and each path
    (``d = p = 30`` non-zeros) keeps 15-25 of them and fills the rest with noise features that
    fit the residual; ``d`` = 5, 10 or 100 does not help (base: 0.37, 0.60, 0.57). On wide-z
    and base-z neither reading helps (0.03, 0.37; the Laplacian score 0.47, 0.97): not
    measured further. Measured with ``MCFS(p, n_clusters=K, n_eigenvectors=K - 1)`` on the
    suite's draws (the suite's ``--variant`` takes ``"K"``, not ``K - 1``). The default ``K =
    c`` (Cai et al.'s) is kept: on the data of their experiments ``c - 1`` does not carry the
    gain (``speed/mcfs_eigenvectors.py``, k-means ACC over m = 50..300 and three k-means
    seeds, ``c`` against ``c - 1``: Yale 0.399 / 0.396, ORL 0.594 / 0.599, Isolet 0.638 /
    0.648, COIL20 0.680 / 0.680, TOX-171 0.383 / 0.379; docs/measurements.md, "MCFS's number
    of eigenvectors"), and a change would move :meth:`scores_for_n_clusters` and the
    label-free selection of ``K`` with it.

    References
    ----------
    Cai, Zhang & He (2010), "Unsupervised feature selection for multi-cluster data", KDD,
    section 3, eqs. (3)-(5); Maldonado, Carrizosa & Weber (2015), section 2.4, eqs. (8)-(11);
    Fan & Lv (2008), "Sure independence screening for ultrahigh dimensional feature space",
    JRSS B 70(5), section 2 (the marginal screen of ``graph="pca"``).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> groups = np.repeat([0.0, 4.0], 30)
    >>> X = np.column_stack([rng.randn(60), groups + rng.randn(60) * 0.3, rng.randn(60)])
    >>> MCFS(n_clusters=2, n_nonzero_coefs=1).fit(X).feature_order_[0]
    np.int64(1)
    """

    higher_is_better = True

    _parameter_constraints: dict = {
        **FeatureRanker._parameter_constraints,
        "n_clusters": [IntInterval(1, None, closed="left")],
        "n_eigenvectors": [IntInterval(1, None, closed="left"), None],
        "n_nonzero_coefs": [IntInterval(1, None, closed="left"), None],
        "n_neighbors": [IntInterval(1, None, closed="left")],
        "t": [Interval(Real, 0, None, closed="neither"), None],
        "t_rule": [StrOptions(set(BANDWIDTH_RULES))],
        "ridge": [Interval(Real, 0, None, closed="left")],
        "solver": [StrOptions({"cai", "skfeature"})],
        "score_rule": [StrOptions({"max_abs", "signed_max"})],
        "self_loops": ["boolean"],
        "regression_features": [IntInterval(1, None, closed="left"), None],
        **GraphOnPCA._graph_constraints,
    }

    #: the heat weights of the "pca" graph (GraphOnPCA reads it)
    weight = "heat"

    def __init__(self, n_features_to_select=None, *, n_clusters=5, n_eigenvectors=None,
                 n_nonzero_coefs=None, n_neighbors=5, t=None, t_rule="cai", ridge=1e-3,
                 solver="cai", score_rule="max_abs", self_loops=False, graph="data", n_pcs=50,
                 graph_features=2000, graph_prefilter="variance", regression_features=1000,
                 random_state=None):
        self.n_features_to_select = n_features_to_select
        self.n_clusters = n_clusters
        self.n_eigenvectors = n_eigenvectors
        self.n_nonzero_coefs = n_nonzero_coefs
        self.n_neighbors = n_neighbors
        self.t = t
        self.t_rule = t_rule
        self.ridge = ridge
        self.solver = solver
        self.score_rule = score_rule
        self.self_loops = self_loops
        self.graph = graph
        self.n_pcs = n_pcs
        self.graph_features = graph_features
        self.graph_prefilter = graph_prefilter
        self.regression_features = regression_features
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.ranker_tags.sparse_input = True
        # MEASURED (speed/singlecell_scale.py, the single-cell preset, from the file to the
        # scores): beyond the counts, 1.13 times them at 10^5 cells
        tags.ranker_tags.sparse_memory = 1.2
        return tags

    def _scores_use_random_state(self):
        # only the approximate neighbour search of the PCA graph draws anything
        return self.graph == "pca"

    def _score(self, X, rng):
        X = self._check_graph(X, MCFS_DATA_GRAPH_MAX_SAMPLES)
        n, D = X.shape
        K = int(self.n_clusters if self.n_eigenvectors is None else self.n_eigenvectors)
        if K > n - 1:
            warnings.warn(f"MCFS: {K} eigenvectors asked with {n} samples: using {max(1, n - 1)} "
                          "(ask for fewer or give more samples).", UserWarning, stacklevel=2)
        K = max(1, min(K, n - 1))
        card = self.n_nonzero_coefs
        if card is None:
            card = self.n_features_to_select if self.n_features_to_select else min(D, 50)
        card = int(min(card, D))
        k = capped_n_neighbors(self.n_neighbors, n, "MCFS")
        cardinality = None
        if self.graph == "pca":
            cardinality = self._regress_on_pca_graph(X, K, card, k)
        elif self.solver == "skfeature":
            W, self.t_ = knn_graph(X, n_neighbors=k, t=self.t, t_rule=self.t_rule,
                                   return_bandwidth=True, allow_isolated=True,
                                   self_loops=self.self_loops)
            Y = skfeature_embedding_targets(W, K)
            (self.coef_, self.path_steps_), self.ridge_ = lar_coefficients(X, Y, card), 0.0
        else:
            W, self.t_ = knn_graph(X, n_neighbors=k, t=self.t, t_rule=self.t_rule,
                                   return_bandwidth=True, allow_isolated=True,
                                   self_loops=self.self_loops)
            Y = spectral_embedding_targets(W, K)
            self.coef_, cardinality, self.ridge_, self.path_steps_ = lasso_coefficients(
                X, Y, card, self.ridge, return_steps=True)
        if cardinality is not None:
            short = np.flatnonzero(cardinality < card)
            if short.size:
                # one warning per fit: with d > n it is every eigenvector
                warnings.warn(f"lasso path never reached {card} non-zero coefficients for "
                              f"{short.size} of {K} eigenvectors (largest: "
                              f"{cardinality[short].max()}); using the largest",
                              RuntimeWarning, stacklevel=4)
        self.n_eigenvectors_ = int(self.coef_.shape[1])
        self._eigenvectors_capped = K < int(self.n_clusters if self.n_eigenvectors is None
                                            else self.n_eigenvectors)
        return self._max_coefficient(self.coef_)

    def _regress_on_pca_graph(self, X, K, card, n_neighbors):
        """``graph="pca"``: the embedding of the PCA graph and the screened regressions; sets
        the fitted attributes and returns each path's cardinality."""
        n, D = X.shape
        if self.solver != "cai":
            raise ValueError("MCFS: solver='skfeature' is scikit-feature's recipe on the graph "
                             "on the data (dense n x n); graph='pca' takes solver='cai'.")
        n_screen = self.regression_features
        if n_screen is not None:
            n_screen = max(int(n_screen), 2 * card)
        if (n_screen is None or n_screen >= D) and 8 * D * D > _GRAM_MAX_BYTES:
            # before the graph: a refusal allocates nothing
            raise SizeBoundError(
                f"MCFS: regression_features={self.regression_features} regresses on all "
                f"{D:,} features through a {D:,} x {D:,} Gram matrix "
                f"({8 * D * D / 2**30:.1f} GiB); pass regression_features (e.g. 1000) or "
                "prefilter the features.")
        W = self._pca_graph(X, n_neighbors)
        self.t_ = None
        # Lanczos pays off for a few eigenvectors of many samples, as graphs' "auto" rule
        Y = (lanczos_embedding_targets(W, K) if K < n // 10
             else spectral_embedding_targets(W, K))
        self.coef_, cardinality, self.screened_features_, self.path_steps_ = (
            screened_lasso_coefficients(X, Y, card, self.ridge, n_screen))
        self.ridge_ = float(self.ridge)
        return cardinality

    def _post_fit(self, X):
        screens = getattr(self, "screened_features_", None)
        if self.graph != "pca" or screens is None or screens.shape[1] == self.n_features_in_:
            return
        # the features no regression saw: after every screened one, constant features last
        outside = np.ones(self.n_features_in_, dtype=bool)
        outside[screens.ravel()] = False
        order = self.feature_order_
        self._set_feature_order(order[np.lexsort((np.arange(order.size), outside[order],
                                                  self.constant_mask_[order]))])

    def _max_coefficient(self, coef):
        if self.score_rule == "signed_max":
            return np.max(coef, axis=1)
        return np.max(np.abs(coef), axis=1)

    def scores_for_n_clusters(self, n_clusters):
        """``scores_`` as a fit with ``n_clusters`` would give them, from this fit.

        The embedding's eigenvectors do not depend on ``K`` and each is regressed on its own,
        so the scores for ``K`` are the maximum over the first ``K`` eigenvectors' coefficients
        (Cai et al. 2010, eq. (5)): :class:`fsclust.selection.LabelFreeSelector` fits MCFS once
        per subsample at the largest ``K`` and reads every smaller ``K`` here, instead of
        one fit per ``K`` (measured on 40 x 1203: 49 s of CPU for ``K = 2..10``, of which
        the nine fits were nearly all). Equal to a fit with ``n_clusters`` to round-off
        (tested) unless two eigenvalues coincide at the cut, where any basis is an answer.

        Parameters
        ----------
        n_clusters : int
            At most this fit's ``n_clusters``. With ``n_eigenvectors`` set, ``K`` does not
            depend on ``n_clusters`` and ``scores_`` is returned.

        Returns
        -------
        ndarray of shape (n_features,)
        """
        check_is_fitted(self, "coef_")
        if self.n_eigenvectors is not None:
            return self.scores_
        k = max(1, int(n_clusters))
        if k > self.n_eigenvectors_:
            if not self._eigenvectors_capped:
                raise ValueError(f"n_clusters={n_clusters} exceeds the {self.n_eigenvectors_} "
                                 "eigenvectors of this fit; fit with the largest K")
            k = self.n_eigenvectors_  # a fit with k would be capped at n - 1 alike
        # the default embedding lists the eigenvectors smallest eigenvalue first;
        # scikit-feature's takes the last columns (the largest eigenvalues of its W)
        coef = (self.coef_[:, :k] if self.solver != "skfeature"
                else self.coef_[:, self.n_eigenvectors_ - k:])
        return self._max_coefficient(coef)
