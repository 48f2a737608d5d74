"""UFF (Varshavsky, Gottlieb, Linial & Horn 2006): contribution of a feature to the SVD entropy."""

from __future__ import annotations

import numpy as np

from .base import FeatureRanker, mean_plus_std_rule


class UFF(FeatureRanker):
    """Unsupervised feature filtering by the contribution of each feature to the SVD entropy.

    With the singular values ``s_1..s_N`` of a matrix (``N = min(rows, cols)``),
    ``V_k = s_k^2 / sum_l s_l^2`` and the SVD entropy ``E = -(1/log N) sum_k V_k log V_k``
    (in [0, 1]). The contribution of feature ``j`` is ``CE_j = E(X) - E(X without column j)``;
    larger is better. The paper's "simple ranking" selection keeps
    ``CE_j > mean(CE) + sd(CE)`` (:func:`fsclust.rankers.base.mean_plus_std_rule`).

    The squared singular values are the eigenvalues of a Gram matrix: for ``n <= D`` of
    ``G = X X^T`` ``(n, n)``, where removing column ``j`` is the rank-one downdate
    ``G - x_j x_j^T``; for ``D < n`` of the principal submatrices of ``X^T X`` ``(D, D)``.
    The ``D`` downdated spectra are computed by batched ``eigvalsh`` over stacks of at most
    ``batch_size`` matrices: ``O(D min(n, D)^3)`` time, ``O(batch_size min(n, D)^2)`` memory.

    Parameters
    ----------
    n_features_to_select : int or None, default=None
        Number of top-ranked features kept by ``transform``; None keeps all.
    ddof : int, default=1
        Degrees of freedom of the sd of the selection rule (MATLAB's ``std``: 1).
    batch_size : int, default=256
        Matrices per batched eigenvalue call.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``CE``, larger is better.
    ranking_ : ndarray of shape (n_features,), int
        Rank of each feature, 1 = best (the position in ``feature_order_`` + 1).
    feature_order_ : ndarray of shape (n_features,), int
        Feature indices, best first; constant features last.
    entropy_ : float
        ``E(X)``.
    selected_features_ : ndarray of int
        Indices kept by the ``CE > mean + sd`` rule, best first.
    n_features_selected_ : int
        Their number.
    constant_mask_ : ndarray of shape (n_features,), bool
    n_features_in_ : int

    Notes
    -----
    The data are used as given (the dataset's preprocessing happens upstream; an assumption:
    the paper does not say whether it centred or standardised before the SVD). ``N`` is
    recomputed for the reduced matrix; it changes only when ``D - 1 < n``. A matrix with
    ``N = 1`` has entropy 0 by convention. Only the simple ranking (SR) of the paper is
    implemented, not its forward/backward variants.

    References
    ----------
    Varshavsky, Gottlieb, Linial & Horn (2006), "Novel unsupervised feature filtering of
    biological data", Bioinformatics 22(14), e507-e513 (SVD entropy, CE, the SR rule).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> X = np.column_stack([np.repeat([-3.0, 3.0], 10) + rng.randn(20), 0.1 * rng.randn(20, 4)])
    >>> uff = UFF().fit(X)
    >>> X.shape[1] == uff.scores_.shape[0], bool(0 <= uff.entropy_ <= 1)
    (True, True)
    """

    higher_is_better = True

    def __init__(self, n_features_to_select=None, *, ddof=1, batch_size=256):
        self.n_features_to_select = n_features_to_select
        self.ddof = ddof
        self.batch_size = batch_size

    def fit(self, X, y=None):
        """Score and rank the features of ``X``; apply the ``CE > mean + sd`` rule.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Ignored

        Returns
        -------
        self
        """
        super().fit(X, y)
        keep = mean_plus_std_rule(self.scores_, True, self.constant_mask_, ddof=self.ddof)
        self.selected_features_ = self.feature_order_[keep[self.feature_order_]]
        self.n_features_selected_ = int(keep.sum())
        return self

    def _score(self, X, rng):
        self.entropy_, reduced = svd_entropy_contributions(X, batch_size=self.batch_size)
        return self.entropy_ - reduced


def svd_entropy(eigenvalues, n_values=None):
    """Normalised SVD entropy from squared singular values (eigenvalues of a Gram matrix).

    Parameters
    ----------
    eigenvalues : array-like of shape (..., N)
        ``s^2``; negative round-off is clipped to 0.
    n_values : int, optional
        ``N`` of the normaliser ``log N``; defaults to the last axis length.

    Examples
    --------
    >>> float(svd_entropy(np.ones(4))), float(svd_entropy([5.0, 0.0, 0.0]))
    (1.0, 0.0)
    """
    lam = np.clip(np.asarray(eigenvalues, dtype=np.float64), 0.0, None)
    N = lam.shape[-1] if n_values is None else int(n_values)
    if N <= 1:
        return np.zeros(lam.shape[:-1])
    total = lam.sum(axis=-1, keepdims=True)
    V = np.divide(lam, total, out=np.zeros_like(lam), where=total > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(V > 0, V * np.log(V), 0.0)
    return 0.0 - terms.sum(axis=-1) / np.log(N)


def svd_entropy_contributions(X, batch_size=256):
    """``E(X)`` and ``E(X without column j)`` for every ``j``, by batched ``eigvalsh``.

    Returns
    -------
    entropy : float
    reduced : ndarray of shape (D,)

    Examples
    --------
    >>> X = np.random.RandomState(0).rand(5, 3)
    >>> e, reduced = svd_entropy_contributions(X)
    >>> s = np.linalg.svd(np.delete(X, 1, axis=1), compute_uv=False)
    >>> bool(np.isclose(reduced[1], svd_entropy(s**2)))
    True
    """
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    reduced = np.empty(d)
    if n <= d:
        G = X @ X.T
        entropy = float(svd_entropy(np.linalg.eigvalsh(G)))
        n_values = min(n, d - 1)
        for a in range(0, d, batch_size):
            cols = X[:, a:a + batch_size]  # (n, B)
            stack = G[None, :, :] - np.einsum("ib,jb->bij", cols, cols)
            lam = np.linalg.eigvalsh(stack)  # (B, n), ascending
            # rank(X without j) <= d - 1: keep the N largest when D - 1 < n
            reduced[a:a + batch_size] = svd_entropy(lam[:, n - n_values:], n_values)
    else:
        C = X.T @ X
        entropy = float(svd_entropy(np.linalg.eigvalsh(C)))
        keep = ~np.eye(d, dtype=bool)
        for a in range(0, d, batch_size):
            js = np.arange(a, min(a + batch_size, d))
            idx = np.array([np.flatnonzero(keep[j]) for j in js])  # (B, d - 1)
            stack = C[idx[:, :, None], idx[:, None, :]]
            reduced[js] = svd_entropy(np.linalg.eigvalsh(stack), d - 1)
    return entropy, reduced
