"""MCFS: multi-cluster feature selection (Cai, Zhang & He 2010)."""

from __future__ import annotations

import contextlib
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

    Cai's ``solver="cai"``: no intercept, Gram matrix ``X^T X + ridge I``, the last point of the
    lasso path with ``n_nonzero`` active features, then ``a_k / ||a_k||_2``. When that
    cardinality is never reached, the path point of largest cardinality (the caller warns).

    Up to D = 4096 (``_WHOLE_GRAM_BYTES``) the paths share one Gram matrix, formed once; above,
    they never form it (:func:`ridge_lasso_path`, ``O(n D)`` per step and memory). Each path
    stops as soon as no later point can have ``n_nonzero`` non-zeros. While ``8 D^2`` bytes
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
        LARS steps of each path at most; None: ``4 n_nonzero + 50`` (drop steps consume steps:
        slack, the path read afterwards).

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
    whole = ridge > 0 and 8 * D * D <= _GRAM_MAX_BYTES and _on_whole_gram(D)
    if ridge > 0 and 8 * D * D <= _GRAM_MAX_BYTES:
        if whole:
            paths = _whole_gram_lasso_paths(X, Y, ridge, max_iter, n_nonzero)
        else:
            paths = (ridge_lasso_path(X, y, ridge, max_iter, stop_cardinality=n_nonzero)[2]
                     for y in Y.T)
        ridge_used = float(ridge)
    else:
        # the same Gram-free path with no ridge: scikit-learn's lars_path(X) to round-off
        # (1e-14 on 200 x 20000), stopped at the cardinality (0.41 s instead of 0.62 s a path)
        paths = (ridge_lasso_path(X, y, 0.0, max_iter, stop_cardinality=n_nonzero)[2]
                 for y in Y.T)
        ridge_used = 0.0
    A = np.zeros((D, Y.shape[1]))
    cardinality = np.zeros(Y.shape[1], dtype=int)
    steps = np.zeros(Y.shape[1], dtype=int)
    # the whole-Gram paths on one BLAS thread (see _whole_gram_lasso_paths); the paths on X
    # keep the caller's threads, as before
    with threadpool_limits(limits=1) if whole else contextlib.nullcontext():
        for k, coefs in enumerate(paths):
            A[:, k], cardinality[k] = _path_point(coefs, n_nonzero)
            steps[k] = coefs.shape[1] - 1
    return (A, cardinality, ridge_used, steps) if return_steps else (A, cardinality, ridge_used)


def _path_point(coefs, n_nonzero):
    """The last path column with ``n_nonzero`` non-zeros (else the first of largest
    cardinality), L2-normalised, and its number of non-zeros."""
    counts = np.count_nonzero(coefs, axis=0)
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


class _ActiveRowProducts:
    """The entries of a formed ``G = X^T X + ridge I`` (never written) for the whole-Gram
    paths of :func:`lasso_coefficients`: each active row ``G_{j, :}`` copied whole, in
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
            grown = np.empty((2 * self.rows.shape[0], self.gram.shape[0]))
            grown[:self.rows.shape[0]] = self.rows
            self.rows = grown
        self.n_slots = max(self.n_slots, free + 1)
        self.slot[position] = free
        feature = indices[position]
        row = self.rows[free]
        row[:] = self.gram[feature]
        return row[feature], row[indices[:position]]

    def move_back(self, i, j):
        # the positions i + 1..j one forward, as _GramProducts moves its rows (position j
        # keeps its slot: it is no longer active)
        self.slot[i:j] = self.slot[i + 1:j + 1]

    def direction(self, n_active, indices, w):
        weights = np.bincount(self.slot[:n_active], weights=w, minlength=self.n_slots)
        return (weights @ self.rows[:self.n_slots])[indices[n_active:]]

    def coefficient_products(self, features, coef):
        return self.gram[features] @ coef


def ridge_lasso_path(X, y, ridge, max_iter, stop_cardinality=None):
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
    :func:`gram_lasso_path` for the algorithm and ``stop_cardinality``.
    """
    return _lasso_lars_path(X.T @ y, X.shape[0], _ColumnProducts(X, ridge), max_iter,
                            stop_cardinality)


def gram_lasso_path(gram, Xy, n_samples, max_iter, stop_cardinality=None):
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
    off), so the last point with ``d`` non-zeros, which MCFS reads, is already on the path.

    Returns
    -------
    alphas : ndarray of shape (steps,)
    active : list of int
    coefs : ndarray of shape (D, steps)
    """
    return _lasso_lars_path(Xy, n_samples, _GramProducts(gram), max_iter, stop_cardinality)


def _lasso_lars_path(Xy, n, products, max_iter, stop_cardinality):
    """scikit-learn's lasso-LARS on the Gram entries ``products`` gives (see
    :func:`gram_lasso_path`).

    Its arithmetic is scikit-learn's operation for operation; the bookkeeping around it is
    leaner (the active set also kept as an index array, the signs as floats, the scratch arrays
    of the step length allocated once, ``AA`` in Python floats: the same IEEE operations),
    which took a warpPIE10P path step from about 140 to 60 us of Python.
    """
    D = Xy.shape[0]
    Cov = Xy.copy()
    indices = np.arange(D)
    max_features = min(max_iter, D)
    coefs = np.zeros((max_features + 1, D))
    alphas = np.zeros(max_features + 1)
    n_iter, n_active = 0, 0
    active = []
    # the active features as an array too (active[i] == active_idx[i]): indexing with it
    # saves converting the list at each of the step's three reads
    active_idx = np.empty(max_features + 1, dtype=np.intp)
    # the signs as float64 (sklearn keeps int8 and converts them at each step: same values)
    sign_active = np.zeros(max_features)
    drop = False
    multi_drop = False
    L = np.empty((max_features, max_features))
    tiny32 = np.finfo(np.float32).tiny
    cov_precision = np.finfo(np.float64).precision
    equality_tolerance = np.finfo(np.float32).eps
    eps = np.finfo(np.float64).eps
    scratch = np.empty((2, D))
    while True:
        if Cov.size:
            C_idx = int(np.abs(Cov, out=scratch[0, :Cov.size]).argmax())
            C_ = Cov[C_idx]
            C = abs(C_)
        else:
            C = 0.0
        alpha = C / n
        alphas[n_iter] = alpha
        coef = coefs[n_iter]
        if alpha <= equality_tolerance:  # alpha_min = 0: the residual is fitted
            break
        if n_iter >= max_iter or n_active >= D:
            break
        if (stop_cardinality is not None and not multi_drop
                and n_active - stop_cardinality > max_iter - n_iter):
            break
        if not drop:
            sign_active[n_active] = 1.0 if C_ > 0 else (-1.0 if C_ < 0 else 0.0)  # np.sign
            m, k = n_active, C_idx + n_active
            Cov[C_idx], Cov[0] = Cov[0], Cov[C_idx]
            indices[k], indices[m] = indices[m], indices[k]
            Cov_not_shortened = Cov
            Cov = Cov[1:]
            products.swap(k, m)
            # the new row of the Gram matrix, G_{j, A}, and its diagonal G_jj
            c, L[n_active, :n_active] = products.enter(n_active, indices)
            if n_active:
                # the transposed upper system on the F-ordered view, as scipy's
                # solve_triangular does with a C-ordered factor (and scikit-learn with it)
                L[n_active, :n_active] = _dtrtrs(L[:n_active, :n_active].T,
                                                 L[n_active, :n_active], lower=0, trans=1)[0]
            v = L[n_active, :n_active] @ L[n_active, :n_active]
            diag = max(math.sqrt(abs(c - v)), eps)
            L[n_active, n_active] = diag
            if diag < 1e-7:
                Cov = Cov_not_shortened
                Cov[0] = 0
                Cov[C_idx], Cov[0] = Cov[0], Cov[C_idx]
                continue
            active.append(int(indices[n_active]))
            active_idx[n_active] = active[-1]
            n_active += 1
        if n_iter > 0 and alphas[n_iter - 1] < alpha:
            break
        # the equiangular direction: G_AA w = AA s, 1 / AA^2 = s^T G_AA^-1 s
        signs = sign_active[:n_active]
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
                L_.flat[::n_active + 1] += (2**i) * eps
                least_squares = _dpotrs(L_, signs, lower=1)[0]
                AA = 1.0 / math.sqrt(max(float(np.add.reduce(least_squares * signs)), eps))
                i += 1
            least_squares *= AA
        # the inactive features' correlations with the direction, G_{I, A} w
        corr_eq_dir = products.direction(n_active, indices, least_squares)
        np.around(corr_eq_dir, decimals=cov_precision, out=corr_eq_dir)
        # the step to the next entry: sklearn's two quotients, in two scratch rows
        size = Cov.size
        num, den = scratch[0, :size], scratch[1, :size]
        np.subtract(C, Cov, out=num)
        np.subtract(AA, corr_eq_dir, out=den)
        np.add(den, tiny32, out=den)
        g1 = min_pos(np.divide(num, den, out=num))
        np.add(C, Cov, out=num)
        np.add(AA, corr_eq_dir, out=den)
        np.add(den, tiny32, out=den)
        g2 = min_pos(np.divide(num, den, out=num))
        gamma_ = min(g1, g2, C / AA)
        drop = False
        on = active_idx[:n_active]
        z = -coef[on] / (least_squares + tiny32)
        z_pos = min_pos(z)
        if z_pos < gamma_:
            idx = np.where(z == z_pos)[0][::-1]
            sign_active[idx] = -sign_active[idx]
            gamma_ = z_pos
            drop = True
        n_iter += 1
        if n_iter >= coefs.shape[0]:
            add = 2 * max(1, max_features - n_active)
            coefs = np.concatenate([coefs, np.zeros((add, D))])
            alphas = np.concatenate([alphas, np.zeros(add)])
        coef = coefs[n_iter]
        coef[on] = coefs[n_iter - 1][on] + gamma_ * least_squares
        Cov -= gamma_ * corr_eq_dir
        if drop:
            multi_drop = multi_drop or len(idx) > 1
            for ii in idx:
                cholesky_delete(L[:n_active, :n_active], ii)
                n_active -= 1
            drop_idx = [active.pop(ii) for ii in idx]
            active_idx[:len(active)] = active
            for ii in idx:  # each dropped variable to the end of the active positions
                moved = indices[ii]
                indices[ii:n_active] = indices[ii + 1:n_active + 1]
                indices[n_active] = moved
                products.move_back(ii, n_active)
            # the dropped features' correlations again: x_j^T y - G_{j, :} a
            temp = Xy[drop_idx] - products.coefficient_products(drop_idx, coef)
            Cov = np.concatenate([temp, Cov])
            if len(idx) == 1:  # np.delete, then np.append(0), in place
                sign_active[idx[0]:-1] = sign_active[idx[0] + 1:]
                sign_active[-1] = 0.0
            else:
                sign_active = np.append(np.delete(sign_active, idx), 0.0)
    return alphas[:n_iter + 1], active, coefs[:n_iter + 1].T


def _inverse_sqrt(x):
    """``1 / sqrt(x)`` as numpy computes it on a float64: IEEE's correctly rounded square root
    and quotient, ``inf`` at 0 and ``nan`` below (or at ``nan``)."""
    if x > 0:
        return 1.0 / math.sqrt(x)
    return math.inf if x == 0 else math.nan


def _whole_gram_lasso_paths(X, Y, ridge, max_iter, stop_cardinality):
    """Lasso-LARS paths (D, steps) of every column of ``Y`` on one ``G = X^T X + ridge I``,
    formed once per fit (here, not at the first path) and only read: :func:`gram_lasso_path`'s
    algorithm on :class:`_ActiveRowProducts`. Consume within one BLAS thread (the caller's
    ``threadpool_limits``): the small products are faster so, and sum in one order."""
    gram = X.T @ X
    gram[np.diag_indices(X.shape[1])] += ridge
    return (_lasso_lars_path(X.T @ y, X.shape[0], _ActiveRowProducts(gram), max_iter,
                             stop_cardinality)[2] for y in Y.T)


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
    the last point of the path with ``n_nonzero`` non-zeros, L2-normalised, as in
    :func:`lasso_coefficients`; the features outside S_k get 0. Each eigenvector's regression
    depends on that eigenvector alone. ``X`` (dense or CSR) is read three times: the means,
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
                                     n_nonzero)[2]
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
    largest cardinality, with one warning per fit.

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
