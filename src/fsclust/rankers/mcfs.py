"""MCFS: multi-cluster feature selection (Cai, Zhang & He 2010)."""

from __future__ import annotations

import warnings
from numbers import Real

import numpy as np
import scipy.linalg
import scipy.linalg.lapack
import scipy.sparse as sp
from sklearn.linear_model import Lars
# scikit-learn's own Cython helpers of its LARS: the smallest positive entry, and the Givens
# downdate of the Cholesky factor when a variable leaves (the same BLAS rotations)
from sklearn.utils.arrayfuncs import cholesky_delete, min_pos

from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..graphs import (BANDWIDTH_RULES, canonical_sign_flip, capped_n_neighbors, knn_graph,
                      laplacian, smallest_eigenvectors)
from .base import FeatureRanker, IntInterval

# Above this many samples the embedding uses ARPACK on the sparse graph instead of a dense eigh.
_DENSE_MAX_N = 2000

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
    if ridge > 0 and 8 * D * D <= _GRAM_MAX_BYTES:
        if _on_whole_gram(D):
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
    :func:`gram_lasso_path`)."""
    D = Xy.shape[0]
    Cov = Xy.copy()
    indices = np.arange(D)
    max_features = min(max_iter, D)
    coefs = np.zeros((max_features + 1, D))
    alphas = np.zeros(max_features + 1)
    n_iter, n_active = 0, 0
    active = []
    sign_active = np.empty(max_features, dtype=np.int8)
    drop = False
    multi_drop = False
    L = np.empty((max_features, max_features))
    tiny32 = np.finfo(np.float32).tiny
    cov_precision = np.finfo(np.float64).precision
    equality_tolerance = np.finfo(np.float32).eps
    eps = np.finfo(np.float64).eps
    while True:
        if Cov.size:
            C_idx = int(np.argmax(np.abs(Cov)))
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
            sign_active[n_active] = np.sign(C_)
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
            diag = max(np.sqrt(abs(c - v)), eps)
            L[n_active, n_active] = diag
            if diag < 1e-7:
                Cov = Cov_not_shortened
                Cov[0] = 0
                Cov[C_idx], Cov[0] = Cov[0], Cov[C_idx]
                continue
            active.append(int(indices[n_active]))
            n_active += 1
        if n_iter > 0 and alphas[n_iter - 1] < alpha:
            break
        # the equiangular direction: G_AA w = AA s, 1 / AA^2 = s^T G_AA^-1 s
        signs = sign_active[:n_active].astype(np.float64)
        least_squares = _dpotrs(L[:n_active, :n_active], signs, lower=1)[0]
        if least_squares.size == 1 and least_squares[0] == 0:
            least_squares[...] = 1
            AA = 1.0
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                AA = 1.0 / np.sqrt(np.sum(least_squares * signs))
            i, L_ = 0, L[:n_active, :n_active].copy()
            while not np.isfinite(AA):  # sklearn's regularisation of a degenerate factor
                L_.flat[::n_active + 1] += (2**i) * eps
                least_squares = _dpotrs(L_, signs, lower=1)[0]
                AA = 1.0 / np.sqrt(max(np.sum(least_squares * signs), eps))
                i += 1
            least_squares *= AA
        # the inactive features' correlations with the direction, G_{I, A} w
        corr_eq_dir = products.direction(n_active, indices, least_squares)
        np.around(corr_eq_dir, decimals=cov_precision, out=corr_eq_dir)
        g1 = min_pos((C - Cov) / (AA - corr_eq_dir + tiny32))
        g2 = min_pos((C + Cov) / (AA + corr_eq_dir + tiny32))
        gamma_ = min(g1, g2, C / AA)
        drop = False
        z = -coef[active] / (least_squares + tiny32)
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
        prev_coef = coefs[n_iter - 1]
        coef[active] = prev_coef[active] + gamma_ * least_squares
        Cov -= gamma_ * corr_eq_dir
        if drop:
            multi_drop = multi_drop or len(idx) > 1
            for ii in idx:
                cholesky_delete(L[:n_active, :n_active], ii)
                n_active -= 1
            drop_idx = [active.pop(ii) for ii in idx]
            for ii in idx:  # each dropped variable to the end of the active positions
                indices[ii:n_active + 1] = np.r_[indices[ii + 1:n_active + 1], indices[ii]]
                products.move_back(ii, n_active)
            # the dropped features' correlations again: x_j^T y - G_{j, :} a
            temp = Xy[drop_idx] - products.coefficient_products(drop_idx, coef)
            Cov = np.r_[temp, Cov]
            sign_active = np.delete(sign_active, idx)
            sign_active = np.append(sign_active, 0)
    return alphas[:n_iter + 1], active, coefs[:n_iter + 1].T


def _whole_gram_lasso_paths(X, Y, ridge, max_iter, stop_cardinality):
    """Lasso-LARS paths (D, steps) of every column of ``Y`` on one ``G = X^T X + ridge I``,
    formed once per fit and only read (:func:`gram_lasso_path`)."""
    gram = X.T @ X
    gram[np.diag_indices(X.shape[1])] += ridge
    for y in Y.T:
        yield gram_lasso_path(gram, X.T @ y, X.shape[0], max_iter, stop_cardinality)[2]


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


class MCFS(FeatureRanker):
    """Multi-cluster feature selection: ``MCFS_j = max_k |a_kj|`` over sparse regressions.

    A kNN heat-kernel graph gives the ``K`` smallest non-trivial generalised eigenvectors
    ``y_k`` of ``L y = lambda D y`` (a flat embedding of the clusters); each is regressed on the
    features by lasso-LARS, stopped at ``n_nonzero_coefs`` non-zero coefficients ``a_k``; a
    feature's score is its largest absolute coefficient (eq. (11) of Maldonado et al.).

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

    References
    ----------
    Cai, Zhang & He (2010), "Unsupervised feature selection for multi-cluster data", KDD,
    section 3, eqs. (3)-(5); Maldonado, Carrizosa & Weber (2015), section 2.4, eqs. (8)-(11).

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
    }

    def __init__(self, n_features_to_select=None, *, n_clusters=5, n_eigenvectors=None,
                 n_nonzero_coefs=None, n_neighbors=5, t=None, t_rule="cai", ridge=1e-3,
                 solver="cai", score_rule="max_abs", self_loops=False):
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

    def _score(self, X, rng):
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
        W, self.t_ = knn_graph(X, n_neighbors=k, t=self.t, t_rule=self.t_rule,
                               return_bandwidth=True, allow_isolated=True,
                               self_loops=self.self_loops)
        if self.solver == "skfeature":
            Y = skfeature_embedding_targets(W, K)
            (self.coef_, self.path_steps_), self.ridge_ = lar_coefficients(X, Y, card), 0.0
        else:
            Y = spectral_embedding_targets(W, K)
            self.coef_, cardinality, self.ridge_, self.path_steps_ = lasso_coefficients(
                X, Y, card, self.ridge, return_steps=True)
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
