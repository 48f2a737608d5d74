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
    ``G - x_j x_j^T``, whose eigenvalues are the roots of a secular equation in the
    eigenbasis of ``G`` (one ``eigh``, then ``O(n^2)`` per feature and iteration, a few
    iterations; :func:`rank_one_downdate_eigenvalues`); for ``D < n`` of the principal
    submatrices of ``X^T X`` ``(D, D)`` by batched ``eigvalsh``. Memory
    ``O(batch_size n^2)``. The entropies equal an ``eigvalsh`` per feature to 1e-15.

    Parameters
    ----------
    n_features_to_select : int or None, default=None
        Number of top-ranked features kept by ``transform``; None keeps all.
    ddof : int, default=1
        Degrees of freedom of the sd of the selection rule (MATLAB's ``std``: 1).
    batch_size : int, default=32
        Features per batch of downdated spectra.

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

    def __init__(self, n_features_to_select=None, *, ddof=1, batch_size=32):
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


def svd_entropy_contributions(X, batch_size=32):
    """``E(X)`` and ``E(X without column j)`` for every ``j``.

    For ``n <= D`` the squared singular values of ``X`` without column ``j`` are the
    eigenvalues of the rank-one downdate ``G - x_j x_j^T`` of ``G = X X^T``. With
    ``G = U diag(l) U^T`` (one ``eigh``) they are the roots of the secular equation
    ``1 - sum_i z_i^2 / (l_i - mu) = 0``, ``z = U^T x_j``, one in each interval between
    consecutive ``l_i`` (:func:`rank_one_downdate_eigenvalues`): ``O(n^3 + D n^2)`` in all
    instead of an ``eigvalsh`` per feature, ``O(D n^3)``. For ``D < n`` the eigenvalues of the
    principal submatrices of ``X^T X`` ``(D, D)`` by batched ``eigvalsh``.

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
        lam, U = np.linalg.eigh(X @ X.T)
        entropy = float(svd_entropy(lam))
        n_values = min(n, d - 1)
        Z = U.T @ X  # (n, D): each feature in the eigenbasis of G
        for a in range(0, d, batch_size):
            mu = rank_one_downdate_eigenvalues(lam, Z[:, a:a + batch_size].T)  # (B, n)
            # rank(X without j) <= d - 1: keep the N largest when D - 1 < n
            reduced[a:a + batch_size] = svd_entropy(mu[:, n - n_values:], n_values)
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


def rank_one_downdate_eigenvalues(lam, Z, max_iter=60):
    """Eigenvalues (ascending) of ``diag(lam) - z z^T`` for every row ``z`` of ``Z``.

    The eigenvalues ``mu`` of ``-(diag(lam) - z z^T) = diag(d) + z z^T`` (``d = -lam``
    reversed, ascending) are the roots of the secular equation
    ``w(mu) = 1 + sum_i z_i^2 / (d_i - mu) = 0``, increasing in ``mu``, one in each interval
    ``(d_k, d_{k+1})`` and the last in ``(d_n, d_n + ||z||^2)`` (Golub 1973). Each root is
    found in the shifted variable ``tau = mu - d_k`` by the two-pole rational model of Bunch,
    Nielsen & Sorensen (1978): the poles left and right of the interval are kept, the other
    terms matched in value and slope, and the quadratic's root in the interval taken;
    bisection on the bracket when the model step leaves it. All roots of all rows at once,
    ``O(n^2)`` per row and iteration; the accuracy is absolute, about ``eps max|lam|`` (the
    SVD entropy needs no more). ``z_i = 0`` (or repeated ``lam``) is the deflated case: the
    root is then the pole itself, reached as ``z_i^2`` is floored at ``(eps max|lam|)^2``.

    Parameters
    ----------
    lam : ndarray of shape (n,)
        Ascending.
    Z : ndarray of shape (B, n)

    Returns
    -------
    mu : ndarray of shape (B, n), ascending per row

    Examples
    --------
    >>> lam = np.array([1.0, 2.0, 4.0])
    >>> z = np.array([[0.5, 0.3, 1.0]])
    >>> mu = rank_one_downdate_eigenvalues(lam, z)
    >>> bool(np.allclose(mu, np.linalg.eigvalsh(np.diag(lam) - z.T @ z)))
    True
    """
    lam = np.asarray(lam, dtype=np.float64)
    Z = np.atleast_2d(np.asarray(Z, dtype=np.float64))
    B, n = Z.shape
    scale = max(np.abs(lam).max(initial=0.0), np.finfo(float).tiny)
    eps = np.finfo(float).eps
    d = -lam[::-1]
    z2 = np.maximum(Z[:, ::-1] ** 2, (eps * scale) ** 2)
    # pole offsets from the left pole of each root: delta[k, i] = d_i - d_k
    delta = d[None, :] - d[:, None]
    gap = np.empty((B, n))
    gap[:, :-1] = np.maximum(np.diff(d), 0.0)[None, :]
    gap[:, -1] = z2.sum(axis=1)
    left = np.tril(np.ones((n, n), dtype=bool))  # poles i <= k: the left part psi
    lo = np.zeros((B, n))
    hi = gap.copy()
    tau = _initial_roots(d, z2, gap, delta, lo, hi)
    # a root in an interval narrower than the accuracy sits on its pole
    tiny_gap = (gap <= 4 * eps * scale).ravel()
    active = np.flatnonzero(~tiny_gap)
    tau_flat, lo_flat, hi_flat, gap_flat = tau.ravel(), lo.ravel(), hi.ravel(), gap.ravel()
    tau_flat[tiny_gap] = 0.0
    tril = left.astype(np.float64)
    for _ in range(max_iter):
        if not active.size:
            break
        b, k = np.divmod(active, n)
        t = tau_flat[active]
        if 4 * active.size >= B * n:
            # most roots still move: all of them at once, by broadcasting (no gathers)
            with np.errstate(divide="ignore"):  # the settled roots on a pole
                R = 1.0 / (delta[None, :, :] - tau[:, :, None])  # (B, k, i): 1 / (d_i - mu_k)
            with np.errstate(invalid="ignore"):
                terms = z2[:, None, :] * R
                slopes = terms * R
            psi = np.einsum("bki,ki->bk", terms, tril).ravel()[active]
            dpsi = np.einsum("bki,ki->bk", slopes, tril).ravel()[active]
            phi = terms.sum(axis=2).ravel()[active] - psi
            dphi = slopes.sum(axis=2).ravel()[active] - dpsi
        else:
            R = 1.0 / (delta[k] - t[:, None])
            terms = z2[b] * R
            slopes = terms * R
            lmask = left[k]
            psi = np.where(lmask, terms, 0.0).sum(axis=1)
            dpsi = np.where(lmask, slopes, 0.0).sum(axis=1)
            phi = terms.sum(axis=1) - psi
            dphi = slopes.sum(axis=1) - dpsi
        w = 1.0 + psi + phi
        # bracket: w increases with mu
        right = w < 0
        lo_flat[active] = np.where(right, t, lo_flat[active])
        hi_flat[active] = np.where(right, hi_flat[active], t)
        g = gap_flat[active]
        last = k == n - 1
        q = dpsi * t * t
        s = np.where(last, 0.0, dphi * (g - t) ** 2)
        c = 1.0 + psi + dpsi * t + np.where(last, 0.0, phi - dphi * (g - t))
        bq = c * g + q + s
        disc = np.sqrt(np.maximum(bq * bq - 4.0 * c * q * g, 0.0))
        with np.errstate(divide="ignore", invalid="ignore"):
            interior = np.where(bq > 0, 2.0 * q * g / (bq + disc), (bq - disc) / (2.0 * c))
            new = np.where(last, q / c, interior)
        lo_a, hi_a = lo_flat[active], hi_flat[active]
        # the fallback model: the two poles of the interval exact, the other terms frozen
        # at their value at t; its root is always in (0, g)
        zk, zk1 = z2[b, k], np.where(last, 0.0, z2[b, np.minimum(k + 1, n - 1)])
        with np.errstate(divide="ignore", invalid="ignore"):
            c2 = w + zk / t - np.where(last, 0.0, zk1 / (g - t))
        bq2 = c2 * g + zk + zk1
        disc2 = np.sqrt(np.maximum(bq2 * bq2 - 4.0 * c2 * zk * g, 0.0))
        with np.errstate(divide="ignore", invalid="ignore"):
            frozen = np.where(bq2 > 0, 2.0 * zk * g / (bq2 + disc2), (bq2 - disc2) / (2.0 * c2))
            frozen = np.where(last, zk / c2, frozen)
        model_in = np.isfinite(new) & (new > lo_a) & (new < hi_a)
        new = np.where(model_in, new, frozen)
        lo_a, hi_a = lo_flat[active], hi_flat[active]
        tol = 4 * eps * (np.abs(d[k]) + np.abs(t)) + eps * eps * scale
        # converged: the model moves the root by round-off (its sign of w is then noise, and
        # so is the bracket end it just set)
        done = (np.isfinite(new) & (np.abs(new - t) <= tol)) | (w == 0) | (hi_a - lo_a <= tol)
        inside = np.isfinite(new) & (new > lo_a) & (new < hi_a)
        new = np.where(done, t, np.where(inside, new, 0.5 * (lo_a + hi_a)))
        tau_flat[active] = new
        active = active[~done]
    mu = -(d[None, :] + tau)  # eigenvalues of diag(lam) - z z^T, descending
    return mu[:, ::-1]


def _initial_roots(d, z2, gap, delta, lo, hi):
    """Starting ``tau`` of every root: at the middle of its interval, the terms of all poles
    but the interval's two frozen into a constant, and the two-pole model's root taken
    (Bunch, Nielsen & Sorensen 1978); the sign of ``w`` at the middle halves the bracket."""
    B, n = z2.shape
    mid = 0.5 * gap
    # an interval of width 0 (a repeated eigenvalue) gives inf/nan in its own row only; its
    # root is set on the pole by the caller
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = z2[:, None, :] / (delta[None, :, :] - mid[:, :, None])  # (B, k, i)
        w = 1.0 + terms.sum(axis=2)
    k = np.arange(n)
    zk = z2[:, k]
    zk1 = np.zeros_like(zk)
    zk1[:, :-1] = z2[:, 1:]
    own = terms[:, k, k]
    nxt = np.zeros_like(own)
    nxt[:, :-1] = terms[:, k[:-1], k[:-1] + 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        c = w - own - nxt
        bq = c * gap + zk + zk1
        disc = np.sqrt(np.maximum(bq * bq - 4.0 * c * zk * gap, 0.0))
        tau = np.where(bq > 0, 2.0 * zk * gap / (bq + disc), (bq - disc) / (2.0 * c))
        tau[:, -1] = zk[:, -1] / c[:, -1]
    right = w < 0
    lo[right] = mid[right]
    hi[~right] = mid[~right]
    bad = ~(np.isfinite(tau) & (tau > lo) & (tau < hi))
    tau[bad] = 0.5 * (lo[bad] + hi[bad])
    return tau
