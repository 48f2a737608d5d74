"""Inf-FS: infinite feature selection, unsupervised (Roffo, Melzi & Cristani 2015; Roffo et al. 2020)."""

from __future__ import annotations

from numbers import Real

import numpy as np
import scipy.linalg
import scipy.sparse.linalg
from scipy.stats import rankdata
from sklearn.utils._param_validation import Interval, StrOptions

from .base import FeatureRanker

#: ``A`` is kept in float64 while its ``8 d^2`` bytes stay within 1 GiB (d <= 11585, the bound
#: MCFS's Gram matrix has); above, in float32 (``4 d^2`` bytes: 1.6 GB at d = 20,000, where the
#: float64 matrix would be 3.2 GB), each product accumulating in float64 over row blocks.
_FLOAT64_MAX_BYTES = 2**30

#: Rows of ``A`` per block when it is built, and per float64 product of the float32 ``A``:
#: the block's float64 working copy stays within 32 MiB.
_BLOCK_BYTES = 2**25

#: Up to this many features the Perron root comes from a dense ``eigvalsh``; above, from
#: Lanczos on the matrix-vector product (one ``A`` in memory either way).
_DENSE_EIG_MAX_D = 512

#: Relative residual of the conjugate gradients on ``(I - r B) x = 1``: with the condition number
#: of at most ``(1 + f) / (1 - f)`` (199 for the 2015 factor 0.99) the scores are exact to ~1e-11.
_CG_RTOL = 1e-13


#: Standard deviations within this relative spread count as equal (``sigma = 0``): the min-max
#: normalisation would otherwise stretch round-off to [0, 1]. z-scored features have standard
#: deviations 1 to within 1.4e-15 to 2.9e-15 on the planted suite (80-800 samples), and the
#: references' ``sigma`` was then round-off at full weight.
_EQUAL_SPREAD_RTOL = 1e-10


def spearman_unit_columns(X):
    """``Z (n, d)``: the centred column ranks, each column of unit norm, so that ``Z^T Z`` is
    Spearman's rank correlation matrix (ties get their average rank, as MATLAB's
    ``corr(X, 'type', 'Spearman')``). Columns must not be constant."""
    Z = rankdata(X, axis=0, method="average")
    Z -= Z.mean(axis=0)
    Z /= np.linalg.norm(Z, axis=0)
    return Z


def _rows_per_block(d):
    return max(1, _BLOCK_BYTES // (8 * max(d, 1)))


def inffs_graph(X, alpha, dtype=np.float64):
    """The graph ``A (d, d)`` on the features: ``a_ij = alpha sigma_ij + (1 - alpha) c_ij``.

    ``c_ij = 1 - |rho_S(f_i, f_j)|`` (Spearman) and ``sigma_ij = max(std_i, std_j)`` min-max
    normalised over the matrix to [0, 1] (0 everywhere when all the stds are equal, the
    reference's NaN rule, and when they differ by at most ``_EQUAL_SPREAD_RTOL`` of the
    largest: on standardised features the references normalise round-off). Built
    ``_BLOCK_BYTES`` of rows at a time: besides ``A`` only ``O(n d)`` memory.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        No constant column.
    alpha : float
        Weight of ``sigma`` (the ICCV paper's and the 2020 code's meaning).
    dtype : {numpy.float64, numpy.float32}

    Returns
    -------
    A : ndarray of shape (d, d), ``dtype``
    row_sums : ndarray of shape (d,), float64
        ``A 1``, summed in float64 before any rounding to ``dtype``.
    """
    n, d = X.shape
    Z = spearman_unit_columns(X)
    std = X.std(axis=0)  # the ddof cancels in the min-max normalisation
    lo, hi = std.min(), std.max()
    sigma_row = (std - lo) / (hi - lo) if hi - lo > _EQUAL_SPREAD_RTOL * hi else np.zeros(d)
    A = np.empty((d, d), dtype=dtype)
    row_sums = np.empty(d)
    step = _rows_per_block(d)
    for start in range(0, d, step):
        rows = slice(start, min(start + step, d))
        block = Z[:, rows].T @ Z
        np.abs(block, out=block)
        # alpha sigma + (1 - alpha)(1 - |rho|), in place on the block
        block *= -(1.0 - alpha)
        block += (1.0 - alpha) + alpha * np.maximum(sigma_row[rows, None], sigma_row[None, :])
        row_sums[rows] = block.sum(axis=1)
        A[rows] = block
    return A, row_sums


def _matvec(A):
    """``v -> A v`` in float64, by row blocks when ``A`` is float32."""
    if A.dtype == np.float64:
        return lambda v: A @ np.ravel(v)
    step = _rows_per_block(A.shape[0])

    def matvec(v):
        v = np.ravel(v).astype(np.float64)
        out = np.empty(A.shape[0])
        for start in range(0, A.shape[0], step):
            out[start:start + step] = A[start:start + step] @ v  # block promoted to float64
        return out
    return matvec


def perron_root(A):
    """The largest eigenvalue of the symmetric non-negative ``A``: its spectral radius
    (Perron-Frobenius). Lanczos from the all-ones vector above ``_DENSE_EIG_MAX_D`` features,
    so the result does not depend on a random start."""
    d = A.shape[0]
    if d <= _DENSE_EIG_MAX_D:
        return float(scipy.linalg.eigvalsh(A.astype(np.float64, copy=False),
                                           subset_by_index=[d - 1, d - 1])[0])
    op = scipy.sparse.linalg.LinearOperator((d, d), matvec=_matvec(A), dtype=np.float64)
    return float(scipy.sparse.linalg.eigsh(op, k=1, which="LA", v0=np.ones(d) / np.sqrt(d),
                                           tol=0, return_eigenvectors=False)[0])


def path_energies(A, r, scale=1.0):
    """``x = (I - r B)^{-1} 1`` with ``B = A / scale``, by conjugate gradients.

    ``x_i = sum_{l >= 0} r^l (B^l 1)_i``: the energy of all paths through feature ``i``.
    ``I - r B`` is SPD when ``r rho(B) < 1`` (``B`` symmetric, ``|lambda| <= rho(B)``), and
    never inverted: each iteration is one product with ``A`` (``O(d^2)``).

    Returns
    -------
    x : ndarray of shape (d,)
    n_iter : int
        Conjugate-gradient iterations.
    converged : bool
    """
    d = A.shape[0]
    product = _matvec(A)
    coef = r / scale
    op = scipy.sparse.linalg.LinearOperator(
        (d, d), matvec=lambda v: np.ravel(v) - coef * product(v), dtype=np.float64)
    n_iter = 0

    def count(_):
        nonlocal n_iter
        n_iter += 1
    x, info = scipy.sparse.linalg.cg(op, np.ones(d), rtol=_CG_RTOL, atol=0.0,
                                     maxiter=10 * d + 100, callback=count)
    return x, n_iter, info == 0


def subset_size(energies):
    """The 2020 code's cut: the number of histogram bins (``d // 2`` of equal width, as
    Octave's ``hist(t, d/2)``, which truncates an odd ``d / 2``) holding more features than
    the mean bin. It counts bins, not features; kept as the reference computes it."""
    nbins = energies.size // 2
    if nbins < 1:
        return int(energies.size)
    counts, _ = np.histogram(energies, bins=nbins)
    return int(np.sum(counts > counts.mean()))


#: The largest number of features (:class:`~fsclust.rankers.base.RankerTags`): the graph ``A``
#: (float32 above 11,585 features) and a block of rows, 1.13 times ``A`` at the peak
#: (docs/measurements.md, "Size bounds of the rankers"), within 4 GiB up to 30,825.
MAX_FEATURES = 30_000


class InfFS(FeatureRanker):
    """Inf-FS: rank features by the energy of all the paths through them in a feature graph.

    The graph ``A`` on the features mixes the spread of a pair with its non-redundancy
    (:func:`inffs_graph`). The score of feature ``i`` sums the weights of all paths of every
    length through it, ``s = sum_{l >= 1} r^l A^l 1 = ((I - r A)^{-1} - I) 1``, a geometric
    series that converges for ``r < 1 / rho(A)``: 2015, ``r = factor / rho(A)`` with ``rho(A)``
    the Perron root. The 2020 version rescales ``A`` to be substochastic,
    ``A' = A / (max_i (A 1)_i + eps)`` with ``eps = 5e-6 d``, and scores
    ``(I - r A')^{-1} 1`` with ``r = factor = 1 - eps`` (the shift by 1 is rank-neutral).

    Parameters
    ----------
    n_features_to_select : int or None, default=None
    alpha : float in [0, 1], default=0.5
        Weight of the spread ``sigma`` in ``A`` (``1 - alpha`` weighs the non-redundancy
        ``c``): the ICCV paper's and the 2020 code's meaning.
    variant : {"2015", "2020"}, default="2020"
        The ICCV 2015 normalisation (``r`` relative to the Perron root of ``A``) or the TPAMI
        2020 one (``r`` on the substochastic ``A'``).
    factor : float in (0, 1) or None, default=None
        ``r`` as a fraction of the convergence limit; None: 0.99 (2015), ``1 - 5e-6 d`` (2020).
    compat : bool, default=False
        Reproduce the reference code's reading of ``variant``: 2015 (``infFS.m``), ``alpha``
        weighs ``c``; 2020 (``InfFS_U.m``), ``r = factor / max_i (A 1)_i`` applied to the already
        rescaled ``A'``, whose spectral radius is then about ``1 / d``: the series is the row
        sums of ``A`` plus ``O(1 / d^2)``, a ranking by degree.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Path energies (larger is better); constant features get ``-inf``.
    r_ : float
        The ``r`` of the series, on the matrix it multiplies (``A`` or ``A'``).
    spectral_radius_bound_ : float
        An upper bound of the spectral radius of ``r A`` (2015: exactly ``factor``) or
        ``r A'`` (2020: ``r rho / (rho + eps)``), below 1: the series' convergence rate.
    subset_size_ : int
        The 2020 code's number of features to keep (:func:`subset_size`); sweeps ignore it.
    n_iter_ : int
        Conjugate-gradient iterations of the solve.
    converged_ : bool
    ranking_, feature_order_, constant_mask_, n_features_in_

    Notes
    -----
    Decisions, where the papers and the code differ: ``alpha`` always weighs ``sigma`` (the
    2015 code's ``alpha`` weighs ``c``, ``compat=True`` follows it); the 2020 code normalises
    twice (``compat=True``); the default reads ``r`` as the TPAMI text presents it, close to the
    convergence limit of the rescaled ``A'``. Constant features are removed before the graph is
    built (the references set their NaN correlation to 0, so ``c_ij = 1``: maximally
    non-redundant, ranked high) and ranked last.

    No inverse is formed (the references call ``inv``, ``O(d^3)``): the Perron root by Lanczos
    and the solve by conjugate gradients, both ``O(d^2)`` per product with ``A``; ``I - r A``
    has condition number at most ``(1 + f) / (1 - f)`` with ``f`` the spectral radius, and
    in practice far less (the Perron eigenvalue is isolated). Memory: ``A`` and ``O(n d)``;
    above ``d = 11585`` ``A`` is stored in float32 (``4 d^2`` bytes), so that no ``d x d``
    float64 array exists; its entries lie in [0, 1], rounded by at most ``3e-8``.

    Planted structure (issue 40; ``speed/planted_suite.py``, docs/measurements.md, "Planted
    structure at the defaults"). Against the reference code (``InfFS_U.m`` of
    giorgioroffo/Infinite-Feature-Selection, ``infFS.m`` of 2015) and the spec's reading of the
    papers, the graph and the series are the same; the differences are the documented ones
    (``alpha``'s meaning in the 2015 code, the 2020 code's double normalisation) and none
    changes a share of the suite: the 2015 and 2020 variants, with and without ``compat``,
    give the same 12 shares within 0.03. The shortfall is the formulation's. ``sigma`` is the
    only term that favours a feature with structure (its spread), and on raw data it decides:
    the ranking is the variance's (0.87 0.00 1.00 0.03 0.73 0.73 1.00 0.97 0.00 0.97 0.07
    0.28 against variance's 0.87 0.01 1.00 0.03 0.73 0.73 1.00 0.97 0.07 0.97 0.15 0.28).
    ``c = 1 - |rho|`` rewards non-redundancy, and features that share a group structure are
    redundant: the mean Spearman ``|rho|`` between two planted features is 0.30-0.31, between
    two noise features 0.03-0.09, so with ``alpha = 0`` (``c`` alone) the share is 0.00 on
    all 12 problems, and on z-scored data, where
    the spreads are equal, the planted features rank last (square-z: mean score 5.553
    planted against 5.587 noise). The z-scored spreads differ by round-off only (1.4e-15 to
    2.9e-15), which the min-max normalisation of the references stretched to [0, 1]: the
    scores correlated 0.57-0.65 with round-off. Ours counts spreads within
    :data:`_EQUAL_SPREAD_RTOL` as equal (``sigma = 0``, as the references' rule for exactly
    equal ones): base-z 0.03 -> 0.00, tall-z 0.07 -> 0.00, the other shares unchanged.
    Command: ``python speed/planted_suite.py --methods inffs variance --variant inffs-c inffs
    '{"alpha": 0.0}' --variant inffs-2015 inffs '{"variant": "2015"}' --variant inffs-compat
    inffs '{"compat": true}' --jobs 1``.

    References
    ----------
    Roffo, Melzi & Cristani (2015), "Infinite Feature Selection", ICCV, pp. 4202-4210;
    Roffo, Melzi, Castellani, Vinciarelli & Cristani (2020), "Infinite Feature Selection: a
    Graph-based Feature Filtering Approach", IEEE TPAMI 43(12), doi:10.1109/TPAMI.2020.3002843.
    Equation numbers not verified (the papers' text was not available).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(50, 4) * [1.0, 1.0, 1.0, 5.0]  # the widest feature
    >>> int(InfFS().fit(X).feature_order_[0])
    3
    """

    higher_is_better = True

    _parameter_constraints: dict = {
        **FeatureRanker._parameter_constraints,
        "alpha": [Interval(Real, 0, 1, closed="both")],
        "variant": [StrOptions({"2015", "2020"})],
        "factor": [Interval(Real, 0, 1, closed="neither"), None],
        "compat": ["boolean"],
    }

    def __init__(self, n_features_to_select=None, *, alpha=0.5, variant="2020", factor=None,
                 compat=False):
        self.n_features_to_select = n_features_to_select
        self.alpha = alpha
        self.variant = variant
        self.factor = factor
        self.compat = compat

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.ranker_tags.max_features = MAX_FEATURES
        return tags

    def _score(self, X, rng):
        scores = np.full(X.shape[1], -np.inf)
        varying = ~self.constant_mask_
        d = int(varying.sum())
        if d == 0:
            self.r_, self.spectral_radius_bound_, self.subset_size_ = 0.0, 0.0, 0
            self.n_iter_, self.converged_ = 0, True
            return scores
        alpha = 1.0 - self.alpha if (self.compat and self.variant == "2015") else self.alpha
        dtype = np.float64 if 8 * d * d <= _FLOAT64_MAX_BYTES else np.float32
        A, row_sums = inffs_graph(X[:, varying], alpha, dtype)
        if self.variant == "2015":
            factor = 0.99 if self.factor is None else self.factor
            lam = perron_root(A)
            scale, self.r_ = 1.0, factor / lam
            self.spectral_radius_bound_ = factor
        else:
            eps = 5e-6 * d
            factor = 1.0 - eps if self.factor is None else self.factor
            rho = float(row_sums.max())
            scale = rho + eps  # A' = A / (rho + eps): row sums below 1
            self.r_ = factor / rho if self.compat else factor
            # rho(A') <= max row sum of A' = rho / (rho + eps)
            self.spectral_radius_bound_ = self.r_ * rho / scale
        energies, self.n_iter_, self.converged_ = path_energies(A, self.r_, scale)
        # 2015: the paths of length >= 1, ((I - rA)^-1 - I) 1; 2020 keeps the empty path
        scores[varying] = energies - 1.0 if self.variant == "2015" else energies
        self.subset_size_ = subset_size(energies)
        return scores
