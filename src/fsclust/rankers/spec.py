"""SPEC: spectral feature selection (Zhao & Liu 2007), phi1, phi2, phi3 and gamma(L)."""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ..graphs import BANDWIDTH_RULES, laplacian, rbf_affinity, smallest_eigenvectors
from .base import FeatureRanker, IntInterval, constant_features

STYLES = ("phi1", "phi2", "phi3")


def _lsym_power_quadratic(Lsym, Fh, power):
    """``f^T Lsym^r f`` for every column ``f`` of ``Fh`` by repeated products (no eigh)."""
    G = Fh
    for _ in range(power // 2):
        G = Lsym @ G
    if power % 2:
        return np.einsum("ij,ij->j", G, Lsym @ G)
    return np.einsum("ij,ij->j", G, G)


def _phi12_by_rayleigh_quotients(X, W, style, constant=None):
    """phi1 and phi2 at ``power=1`` without ``Lsym`` or the normalised features ``f^``.

    With ``f^ = D^1/2 f / ||D^1/2 f||``, ``phi1 = f^T L f / f^T D f`` (``L = D - W``) and
    ``xi_0^T f^ = d^T f / sqrt(1^T d f^T D f)``: one product ``W X`` (``2 n^2 D`` flops, the
    kernel of SPEC) and three elementwise passes over ``X``, instead of forming ``Lsym``,
    ``f^`` and ``Lsym f^``. Equal to the ``Lsym`` form to round-off.
    """
    X = np.asarray(X, dtype=np.float64)
    d = W.sum(axis=1)
    WX = W @ X
    fDf = d @ (X * X)
    fWf = np.einsum("ij,ij->j", X, WX)
    constant = (constant_features(X) if constant is None else constant) | (fDf == 0)
    safe = np.where(constant, 1.0, fDf)
    phi1 = np.maximum((fDf - fWf) / safe, 0.0)
    phi1[constant] = 0.0  # phi1 of a constant feature is 0 by definition (Zhao & Liu 2007, eq. 4)
    if style == "phi1":
        return phi1
    a0 = (d @ X) / np.sqrt(d.sum() * safe)
    rest = 1.0 - a0**2
    scores = np.full(X.shape[1], np.inf)
    ok = (rest > 1e-12) & ~constant
    scores[ok] = phi1[ok] / rest[ok]
    return scores


def spec_scores(X, W, style="phi2", power=1, n_clusters=None, constant=None):
    """SPEC scores of every column of ``X`` on the graph ``W`` (Zhao & Liu 2007, eqs. (4)-(6)).

    With ``d = W 1``, ``Lsym = I - D^-1/2 W D^-1/2``, ``xi_0 = sqrt(d) / ||sqrt(d)||`` and
    ``f^ = D^1/2 f / ||D^1/2 f||``, the spectral shaping ``gamma(lambda) = lambda^power``:

    - ``"phi1"``: ``f^T gamma(Lsym) f^`` (smaller is better);
    - ``"phi2"``: ``phi1 / (1 - (xi_0^T f^)^2)`` (smaller is better; ``+inf`` for a constant);
    - ``"phi3"``: ``sum_{j=1}^{k-1} (gamma(2) - gamma(lambda_j)) (xi_j^T f^)^2`` with the
      ``k - 1 = n_clusters - 1`` smallest non-trivial eigenpairs (larger is better); the
      trivial eigenvector is deflated, never taken by position.

    Parameters
    ----------
    X : ndarray of shape (n, D)
    W : ndarray of shape (n, n)
        Symmetric non-negative affinity (SPEC keeps the kernel's unit diagonal).
    style : {"phi1", "phi2", "phi3"}, default="phi2"
    power : int, default=1
        Exponent ``r`` of ``gamma``; 1 gives the plain scores.
    n_clusters : int or None
        ``k`` for phi3.
    constant : ndarray of shape (D,) of bool, optional
        :func:`~fsclust.rankers.base.constant_features` of ``X``, when the caller has it.

    Returns
    -------
    scores : ndarray of shape (D,)

    Examples
    --------
    >>> W = np.array([[1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0],
    ...               [0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]])
    >>> X = np.array([[1.0, 1.0], [1.0, -1.0], [0.0, 1.0], [0.0, -1.0]])
    >>> spec_scores(X, W, "phi2").round(6)
    array([0., 1.])
    """
    if style not in STYLES:
        raise ValueError(f"style must be one of {STYLES}, got {style!r}.")
    power = int(power)
    if power < 1:
        raise ValueError(f"power must be a positive integer, got {power}.")
    W = np.asarray(W, dtype=np.float64)
    if power == 1 and style != "phi3":
        return _phi12_by_rayleigh_quotients(X, W, style, constant)
    Lsym, d = laplacian(W, "sym")
    sqrt_d = np.sqrt(d)
    Fh = sqrt_d[:, None] * X
    norms = np.linalg.norm(Fh, axis=0)
    zero = norms == 0
    Fh = Fh / np.where(zero, 1.0, norms)
    xi0 = sqrt_d / np.linalg.norm(sqrt_d)
    constant = (constant_features(X) if constant is None else constant) | zero
    if style == "phi3":
        if n_clusters is None or int(n_clusters) < 2:
            raise ValueError("phi3 needs n_clusters >= 2.")
        # deflation: the trivial eigenvalue 0 moves to 3, above the spectrum [0, 2]
        lam, Xi = smallest_eigenvectors(Lsym + 3.0 * np.outer(xi0, xi0), int(n_clusters) - 1,
                                        solver="dense")
        lam = np.clip(lam, 0.0, 2.0)
        A = Xi.T @ Fh
        scores = ((2.0**power - lam**power)[:, None] * A**2).sum(axis=0)
        scores[constant] = 0.0
        return scores
    phi1 = np.maximum(_lsym_power_quadratic(Lsym, Fh, power), 0.0)
    phi1[constant] = 0.0  # phi1 of a constant feature is 0 by definition (Zhao & Liu 2007, eq. 4)
    if style == "phi1":
        return phi1
    a0 = xi0 @ Fh
    rest = 1.0 - a0**2
    scores = np.full(X.shape[1], np.inf)
    ok = (rest > 1e-12) & ~constant
    scores[ok] = phi1[ok] / rest[ok]
    return scores


class SPEC(FeatureRanker):
    """Spectral feature selection: how smooth each feature is on the data's similarity graph.

    The graph is the full Gaussian kernel ``S_ij = exp(-||x_i - x_j||^2 / t)`` with its unit
    diagonal (the authors' ``fsSpectrum.m`` takes a kernel matrix); see :func:`spec_scores`
    for the three scores and the ``gamma(lambda) = lambda^power`` extension.

    Parameters
    ----------
    n_features_to_select : int or None, default=None
    style : {"phi1", "phi2", "phi3"}, default="phi2"
        phi1 and phi2: smaller is better; phi3: larger is better. (scikit-feature sorts all
        three the wrong way round.)
    power : int, default=1
        ``r`` of ``gamma(lambda) = lambda^r``; seed 002 uses phi1-hat, for which we take
        ``r = 2`` (an assumption: the paper does not give ``r``; 1 and 4 are sensitivity
        checks).
    n_clusters : int or None, default=None
        ``k`` of phi3.
    t : float or None, default=None
        Kernel parameter; None: ``t_rule``.
    t_rule : {"cai", "seed000", "median"}, default="cai"

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
    ranking_ : ndarray of shape (n_features,), int
        Rank of each feature, 1 = best (the position in ``feature_order_`` + 1).
    feature_order_ : ndarray of shape (n_features,), int
        Best first under the style's direction; constant features last.
    t_ : float
    constant_mask_, n_features_in_

    References
    ----------
    Zhao & Liu (2007), "Spectral feature selection for supervised and unsupervised learning",
    ICML, eqs. (4)-(6) and section 4 (gamma); Maldonado, Carrizosa & Weber (2015), section 2.3,
    eqs. (3)-(7).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> groups = np.repeat([0.0, 5.0], 20)
    >>> X = np.column_stack([rng.randn(40), groups + 0.1 * rng.randn(40)])
    >>> SPEC().fit(X).feature_order_.tolist()
    [1, 0]
    """

    _parameter_constraints: dict = {
        **FeatureRanker._parameter_constraints,
        "style": [StrOptions(set(STYLES))],
        "power": [IntInterval(1, None, closed="left")],
        "n_clusters": [IntInterval(1, None, closed="left"), None],
        "t": [Interval(Real, 0, None, closed="neither"), None],
        "t_rule": [StrOptions(set(BANDWIDTH_RULES))],
    }

    def __init__(self, n_features_to_select=None, *, style="phi2", power=1, n_clusters=None,
                 t=None, t_rule="cai"):
        self.n_features_to_select = n_features_to_select
        self.style = style
        self.power = power
        self.n_clusters = n_clusters
        self.t = t
        self.t_rule = t_rule

    @property
    def higher_is_better(self):
        return self.style == "phi3"

    def _score(self, X, rng):
        W, self.t_ = rbf_affinity(X, t=self.t, t_rule=self.t_rule, keep_diagonal=True,
                                  return_bandwidth=True)
        return spec_scores(X, W, self.style, self.power, self.n_clusters,
                           constant=self.constant_mask_)
