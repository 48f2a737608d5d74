"""SPEC: spectral feature selection (Zhao & Liu 2007), phi1, phi2, phi3 and gamma(L)."""

from __future__ import annotations

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from ..graphs import (BANDWIDTH_RULES, graph_quadratic_forms, largest_eigenvectors, laplacian,
                      rbf_affinity, smallest_eigenvectors)
from .base import FeatureRanker, IntInterval, constant_features
from .laplacian import GraphOnPCA

#: The largest number of samples of SPEC's graph on the data: the full kernel is ``n x n``
#: dense (and its products read it whole); at 20,000 samples it died of a segmentation fault
#: at 6.25 GB (issue 39).
SPEC_DATA_GRAPH_MAX_SAMPLES = 10_000

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
    if sp.issparse(X):
        return _spec_scores_sparse(X, W, style, power, n_clusters, constant)
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


def _spec_scores_sparse(X, W, style, power, n_clusters, constant):
    """:func:`spec_scores` of a sparse ``X`` on a sparse graph ``W``, never densified.

    ``phi1 = f^T L f / f^T D f`` and ``xi_0^T f^ = d^T f / sqrt(1^T d f^T D f)`` come from
    :func:`fsclust.graphs.graph_quadratic_forms`. ``phi3``'s eigenvectors are the largest of
    ``2 I - Lsym = I + D^-1/2 W D^-1/2`` (sparse, ARPACK), the trivial one (eigenvalue 0 of
    ``Lsym``, ``xi_0``) dropped; ``xi_j^T f^ = (D^1/2 xi_j)^T f / sqrt(f^T D f)``, one sparse
    product. ``power > 1`` needs ``Lsym^r`` applied to every feature (a dense ``n x D``
    product) and is refused.
    """
    if power != 1:
        raise ValueError(f"SPEC with power={power} applies Lsym^{power} to every feature (a "
                         "dense n x d product); with sparse input use power=1.")
    W = sp.csr_matrix(W)
    d, dX, fDf, fLf = graph_quadratic_forms(X, W)
    constant = (constant_features(X) if constant is None else constant) | (fDf == 0)
    safe = np.where(constant, 1.0, fDf)
    if style == "phi3":
        if n_clusters is None or int(n_clusters) < 2:
            raise ValueError("phi3 needs n_clusters >= 2.")
        k = int(n_clusters)
        inv_sqrt = 1.0 / np.sqrt(d)
        N = sp.diags(inv_sqrt) @ W @ sp.diags(inv_sqrt)
        # k largest of I + N: the trivial pair (Lsym eigenvalue 0) and the k - 1 next
        mu, V = largest_eigenvectors(sp.csr_matrix(N + sp.identity(X.shape[0])), k,
                                     random_state=0)
        xi0 = np.sqrt(d) / np.linalg.norm(np.sqrt(d))
        trivial = int(np.argmax(np.abs(xi0 @ V)))
        keep = np.delete(np.arange(k), trivial)
        lam = np.clip(2.0 - mu[keep], 0.0, 2.0)
        A = np.asarray(X.T @ (np.sqrt(d)[:, None] * V[:, keep])).T / np.sqrt(safe)
        scores = ((2.0 - lam)[:, None] * A**2).sum(axis=0)
        scores[constant] = 0.0
        return scores
    phi1 = np.maximum(fLf / safe, 0.0)
    phi1[constant] = 0.0
    if style == "phi1":
        return phi1
    a0 = dX / np.sqrt(d.sum() * safe)
    rest = 1.0 - a0**2
    scores = np.full(X.shape[1], np.inf)
    ok = (rest > 1e-12) & ~constant
    scores[ok] = phi1[ok] / rest[ok]
    return scores


class SPEC(GraphOnPCA, FeatureRanker):
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
        ``r`` of ``gamma(lambda) = lambda^r``; Maldonado et al. 2015 use phi1-hat, for which we take
        ``r = 2`` (an assumption: the paper does not give ``r``; 1 and 4 are sensitivity
        checks).
    n_clusters : int or None, default=None
        ``k`` of phi3.
    t : float or None, default=None
        Kernel parameter; None: ``t_rule``.
    t_rule : {"cai", "zeng2008", "median"}, default="cai"
    graph : {"data", "pca"}, default="data"
        ``"data"``: the paper's full Gaussian kernel on the features (dense input, at most
        :data:`SPEC_DATA_GRAPH_MAX_SAMPLES` samples). ``"pca"``: a kNN graph on principal
        components (:func:`fsclust.graphs.pca_knn_graph`, heat weights, the unit diagonal of a
        kernel kept), linear in the number of samples; takes sparse input and keeps it sparse
        (``power=1`` only). ``t`` and ``t_rule`` apply to ``"data"`` only.
    n_neighbors : int, default=15
        ``k`` of the ``"pca"`` graph.
    n_pcs, graph_features, graph_prefilter, random_state
        As :class:`~fsclust.rankers.laplacian.LaplacianScore`'s, for the ``"pca"`` graph.

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
        "n_neighbors": [IntInterval(1, None, closed="left")],
        **GraphOnPCA._graph_constraints,
    }

    #: the heat weights of the "pca" graph (GraphOnPCA reads it)
    weight = "heat"

    def __init__(self, n_features_to_select=None, *, style="phi2", power=1, n_clusters=None,
                 t=None, t_rule="cai", graph="data", n_neighbors=15, n_pcs=50,
                 graph_features=2000, graph_prefilter="variance", random_state=None):
        self.n_features_to_select = n_features_to_select
        self.style = style
        self.power = power
        self.n_clusters = n_clusters
        self.t = t
        self.t_rule = t_rule
        self.graph = graph
        self.n_neighbors = n_neighbors
        self.n_pcs = n_pcs
        self.graph_features = graph_features
        self.graph_prefilter = graph_prefilter
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.ranker_tags.sparse_input = True
        # MEASURED (speed/singlecell_scale.py, the single-cell preset, from the file to the
        # scores): beyond the counts, 0.95 times them at 10^5 cells
        tags.ranker_tags.sparse_memory = 1.0
        return tags

    def _scores_use_random_state(self):
        return self.graph == "pca"

    @property
    def higher_is_better(self):
        return self.style == "phi3"

    def _score(self, X, rng):
        X = self._check_graph(X, SPEC_DATA_GRAPH_MAX_SAMPLES)
        if self.graph == "pca":
            W = self._pca_graph(X, self.n_neighbors)
            W = sp.csr_matrix(W + sp.identity(X.shape[0], format="csr"))  # the kernel's S_ii
            self.t_ = None
            return spec_scores(X, W, self.style, self.power, self.n_clusters,
                               constant=self.constant_mask_)
        W, self.t_ = rbf_affinity(X, t=self.t, t_rule=self.t_rule, keep_diagonal=True,
                                  return_bandwidth=True)
        return spec_scores(X, W, self.style, self.power, self.n_clusters,
                           constant=self.constant_mask_)
