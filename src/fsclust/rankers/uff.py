"""UFF (Varshavsky, Gottlieb, Linial & Horn 2006): contribution of a feature to the SVD entropy."""

from __future__ import annotations

import numpy as np

from ..graphs import canonical_sign_flip
from .base import FeatureRanker, IntInterval, mean_plus_std_rule


#: The largest ``min(n, d)`` (:mod:`fsclust.rankers._bounds`), for time: when ``d <= n`` (or
#: every feature is a pole) each feature takes an eigen-decomposition of ``min(n, d)^2``, time
#: ``O(min(n, d)^4)``: about 10 minutes on 2 cores at 2,000 (docs/measurements.md, "Size bounds
#: of the rankers"); the memory, 8 arrays of ``min(n, d)^2``, would allow 8,192.
MAX_SMALLER_SIDE = 2_000


class UFF(FeatureRanker):
    """Unsupervised feature filtering by the contribution of each feature to the SVD entropy.

    With the singular values ``s_1..s_N`` of a matrix (``N = min(rows, cols)``),
    ``V_k = s_k^2 / sum_l s_l^2`` and the SVD entropy ``E = -(1/log N) sum_k V_k log V_k``
    (in [0, 1]). The contribution of feature ``j`` is ``CE_j = E(X) - E(X without column j)``;
    larger is better. The paper's "simple ranking" selection keeps
    ``CE_j > mean(CE) + sd(CE)`` (:func:`fsclust.rankers.base.mean_plus_std_rule`).

    The squared singular values are the eigenvalues of a Gram matrix: for ``n <= D`` of
    ``G = X X^T`` ``(n, n)``, where removing column ``j`` is the rank-one downdate
    ``G - x_j x_j^T``; its entropy needs only ``trace(M log M)``, an integral of the
    resolvent that Sherman-Morrison gives from two sums over the eigenbasis of ``G``
    (:func:`downdated_entropies`): one ``eigh``, then matrix products, ``O(n^3 + n D Q)``
    with ``Q = 211`` quadrature nodes. For ``D < n`` the principal submatrices of ``X^T X``
    ``(D, D)`` by batched ``eigvalsh``. The entropies equal an ``eigvalsh`` per feature to
    1.5e-15.

    Parameters
    ----------
    n_features_to_select : int or None, default=None
        Number of top-ranked features kept by ``transform``; None keeps all.
    ddof : int, default=1
        Degrees of freedom of the sd of the selection rule (MATLAB's ``std``: 1).
    batch_size : int, default=1024
        Features per batch (memory ``O(batch_size Q)``; ``batch_size`` matrices of
        ``n x n`` for ``D < n``).

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

    #: Why the planted-structure suite finds it below random features (``fsclust methods``)
    planted_suite_note = ("by its definition: a planted feature concentrates the spectrum, so "
                          "removing it raises the SVD entropy (CE < 0) and it ranks low")


    higher_is_better = True

    _parameter_constraints: dict = {
        **FeatureRanker._parameter_constraints,
        "ddof": [IntInterval(0, None, closed="left")],
        "batch_size": [IntInterval(1, None, closed="left")],
    }

    def __init__(self, n_features_to_select=None, *, ddof=1, batch_size=1024):
        self.n_features_to_select = n_features_to_select
        self.ddof = ddof
        self.batch_size = batch_size

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # min(n, d) x min(n, d) arrays: FeatureRanker.fit refuses beyond, before any copy
        tags.ranker_tags.max_smaller_side = MAX_SMALLER_SIDE
        return tags

    def _post_fit(self, X):
        """The ``CE > mean + sd`` rule: the subset UFF selects itself."""
        keep = mean_plus_std_rule(self.scores_, True, self.constant_mask_, ddof=self.ddof)
        self.selected_features_ = self.feature_order_[keep[self.feature_order_]]
        self.n_features_selected_ = int(keep.sum())

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


# The trapezoid rule on t = e^u for the integral of downdated_entropies: nodes from e^-60 (an
# eigenvalue below e^-60 of the largest adds under 1e-24 to the entropy) to e^45 (the
# integrand decays as e^-u), step 0.5. The integrand is analytic in the strip |Im u| < pi, so
# the error falls as exp(-2 pi^2 / h); step 0.5 and 0.25 agree with an eigvalsh per feature to
# 1.5e-15 on the tests' matrices.
_QUADRATURE_U = np.arange(-60.0, 45.0 + 0.25, 0.5)
_QUADRATURE_STEP = 0.5
# Leverage x_j^T G^+ x_j above 1 - this: removing column j lowers the rank (the integrand
# has a pole at t = 0), and the feature's spectrum is taken by eigvalsh instead.
_LEVERAGE_GAP = 1e-6


def svd_entropy_contributions(X, batch_size=1024):
    """``E(X)`` and ``E(X without column j)`` for every ``j``.

    For ``n <= D`` the squared singular values of ``X`` without column ``j`` are the
    eigenvalues ``mu`` of the rank-one downdate ``M = G - x_j x_j^T`` of ``G = X X^T``, and the
    entropy needs only ``sum mu log mu`` (:func:`downdated_entropies`): one ``eigh`` of ``G``,
    then two matrix products per batch, ``O(n^3 + n D Q)`` with ``Q = 211`` quadrature nodes,
    instead of an ``eigvalsh`` per feature, ``O(D n^3)``. For ``D < n`` the eigenvalues of the
    principal submatrices of ``X^T X`` ``(D, D)`` by batched ``eigvalsh``.

    Returns
    -------
    entropy : float
    reduced : ndarray of shape (D,)

    Examples
    --------
    >>> X = np.random.RandomState(0).rand(5, 7)
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
        lam, U = np.linalg.eigh(G)
        U = canonical_sign_flip(U)
        entropy = float(svd_entropy(lam))
        n_values = min(n, d - 1)
        Z = U.T @ X  # (n, D): each feature in the eigenbasis of G
        for a in range(0, d, batch_size):
            reduced[a:a + batch_size], pole = downdated_entropies(lam, Z[:, a:a + batch_size].T,
                                                                  n_values)
            poles = a + np.flatnonzero(pole)
            step = max(1, 2**22 // (n * n))  # stacks of at most 32 MB
            for b in range(0, poles.size, step):
                js = poles[b:b + step]
                cols = X[:, js]
                stack = G[None, :, :] - np.einsum("ib,jb->bij", cols, cols)
                # rank(X without j) <= d - 1: keep the N largest when D - 1 < n
                reduced[js] = svd_entropy(np.linalg.eigvalsh(stack)[:, n - n_values:],
                                          n_values)
    else:
        C = X.T @ X
        entropy = float(svd_entropy(np.linalg.eigvalsh(C)))
        keep = ~np.eye(d, dtype=bool)
        step = max(1, min(batch_size, 2**22 // (d * d)))  # stacks of at most 32 MB
        for a in range(0, d, step):
            js = np.arange(a, min(a + step, d))
            idx = np.array([np.flatnonzero(keep[j]) for j in js])  # (B, d - 1)
            stack = C[idx[:, :, None], idx[:, None, :]]
            reduced[js] = svd_entropy(np.linalg.eigvalsh(stack), d - 1)
    return entropy, reduced


def downdated_entropies(lam, Z, n_values):
    """SVD entropies of ``diag(lam) - z z^T`` for every row ``z`` of ``Z``, without their
    eigenvalues.

    With ``V_i = mu_i / T``, ``T = sum mu = sum lam - ||z||^2``, the entropy is
    ``-(S / T - log T) / log N`` with ``S = sum mu log mu = trace(M log M)``. From
    ``log M = int_0^inf [I / (1 + t) - (M + t I)^-1] dt`` and Sherman-Morrison on
    ``(diag(lam) + t I - z z^T)^-1``,

    ``S = sum lam log lam + int_0^inf [t s_2(t) / (1 - s_1(t)) - ||z||^2 / (1 + t)] dt``,
    ``s_k(t) = sum_i z_i^2 / (lam_i + t)^k``,

    so every row needs only ``s_1`` and ``s_2`` at the quadrature nodes: two matrix products
    of ``z^2`` with ``1 / (lam + t)`` and its square. The integral is taken by the trapezoid
    rule in ``u = log t`` (``_QUADRATURE_U``), after scaling ``lam`` and ``z^2`` by
    ``max lam`` (the entropy is scale-free).

    Parameters
    ----------
    lam : ndarray of shape (n,)
        Eigenvalues of ``G``; negative round-off is clipped to 0.
    Z : ndarray of shape (B, n)
        Rows ``U^T x`` in the eigenbasis of ``G``.
    n_values : int
        ``N`` of the normaliser ``log N``.

    Returns
    -------
    entropy : ndarray of shape (B,)
    pole : ndarray of shape (B,), bool
        Rows with leverage ``sum z_i^2 / lam_i`` within ``_LEVERAGE_GAP`` of 1 (the downdate
        loses rank); their entropies are not computed (the caller takes their spectra).

    Examples
    --------
    >>> lam = np.array([1.0, 2.0, 4.0])
    >>> z = np.array([[0.5, 0.3, 1.0]])
    >>> e, pole = downdated_entropies(lam, z, 3)
    >>> mu = np.linalg.eigvalsh(np.diag(lam) - z.T @ z)
    >>> bool(np.isclose(e[0], svd_entropy(mu), atol=1e-14)), bool(pole[0])
    (True, False)
    """
    lam = np.clip(np.asarray(lam, dtype=np.float64), 0.0, None)
    Z = np.atleast_2d(np.asarray(Z, dtype=np.float64))
    scale = lam.max() if lam.max() > 0 else 1.0
    lam = lam / scale
    z2 = Z**2 / scale
    positive = lam > 0
    with np.errstate(divide="ignore"):
        leverage = z2[:, positive] @ (1.0 / lam[positive])
    pole = ~(leverage < 1.0 - _LEVERAGE_GAP)
    t = np.exp(_QUADRATURE_U)
    R = 1.0 / (lam[:, None] + t[None, :])  # (n, Q)
    s1 = z2 @ R
    s2 = z2 @ (R * R)
    x2 = z2.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        integrand = t * s2 / (1.0 - s1) - x2[:, None] / (1.0 + t)
    S = np.sum(lam[positive] * np.log(lam[positive])) \
        + (integrand * t) @ np.full(t.size, _QUADRATURE_STEP)
    T = lam.sum() - x2
    entropy = np.zeros(Z.shape[0])
    ok = (T > 0) & ~pole
    if n_values > 1:
        entropy[ok] = -(S[ok] / T[ok] - np.log(T[ok])) / np.log(n_values)
    return entropy, pole
