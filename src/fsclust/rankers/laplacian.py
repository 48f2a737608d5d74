"""Laplacian Score (He, Cai & Niyogi 2005): how well a feature respects the data's graph."""

from __future__ import annotations

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from ..graphs import (BANDWIDTH_RULES, PCA_MAX_FEATURES, graph_quadratic_forms, knn_graph,
                      pca_knn_graph, rbf_affinity)
from .base import (DENSIFY_MAX_ENTRIES, FeatureRanker, IntInterval, SizeBoundError,
                   constant_features)

#: The graphs a graph-based ranker can score on: ``"data"``, the paper's graph on the features
#: themselves (``n x n`` work: dense data up to :data:`DATA_GRAPH_MAX_SAMPLES` samples);
#: ``"pca"``, the kNN graph of single-cell analysis on principal components, linear in ``n``.
GRAPHS = ("data", "pca")

#: The largest number of samples the graph on the features themselves takes (its neighbour
#: search and its bandwidth read all ``n^2`` pairs: 49 s and 2 GB at 20,000 x 2,000).
DATA_GRAPH_MAX_SAMPLES = 20_000


def top_variance_features(X, n_features):
    """The ``n_features`` columns of largest variance (ties by index), dense or sparse ``X``:
    the prefilter of the PCA graph (:func:`fsclust.graphs.pca_knn_graph`), ``O(nnz)``.

    Examples
    --------
    >>> top_variance_features(np.array([[0.0, 1.0, 5.0], [0.0, 3.0, 5.5]]), 2)
    array([1, 2])
    """
    n, d = X.shape
    if n_features is None or n_features >= d:
        return np.arange(d)
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        mean, sq = np.zeros(d), np.zeros(d)
        step = 2**22
        for start in range(0, X.nnz, step):
            values = X.data[start:start + step].astype(np.float64)
            columns = X.indices[start:start + step]
            mean += np.bincount(columns, weights=values, minlength=d)
            sq += np.bincount(columns, weights=values * values, minlength=d)
        mean /= n
        sq /= n
        var = sq - mean**2
    else:
        var = np.var(X, axis=0)
    order = np.argsort(-var, kind="stable")
    return np.sort(order[:n_features])


def normalized_dispersions(X, n_bins=20):
    """Seurat's normalised dispersion of every column of log-normalised ``X`` (dense or sparse).

    scanpy's ``highly_variable_genes(flavor="seurat")`` (Satija et al. 2015): on ``expm1(X)``,
    the dispersion ``var / mean`` (``var`` with ``ddof=1``) and the mean are logged, the genes
    are cut into ``n_bins`` equal-width bins of log mean, and each dispersion is z-scored
    within its bin (a bin with one gene: 1). Computed in ``O(nnz)`` from sums of the stored
    values, without scanpy's copy of the matrix; equal to scanpy's ``dispersions_norm`` to
    round-off (tests/test_scale.py). NaN for a gene never expressed.

    Examples
    --------
    >>> rng = np.random.RandomState(0)
    >>> X = np.log1p(rng.poisson(rng.uniform(0.1, 5, 60), (200, 60)).astype(float))
    >>> normalized_dispersions(X).shape
    (60,)
    """
    import pandas as pd

    n, d = X.shape
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        total, squares = np.zeros(d), np.zeros(d)
        step = 2**22  # stored values per block: float64 temporaries of 32 MiB, not nnz-sized
        for start in range(0, X.nnz, step):
            values = np.expm1(X.data[start:start + step].astype(np.float64))
            columns = X.indices[start:start + step]
            total += np.bincount(columns, weights=values, minlength=d)
            squares += np.bincount(columns, weights=values * values, minlength=d)
    else:
        values = np.expm1(np.asarray(X, dtype=np.float64))
        total, squares = values.sum(axis=0), (values * values).sum(axis=0)
    mean = total / n
    var = (squares / n - mean**2) * (n / max(n - 1, 1))
    mean[mean == 0] = 1e-12
    with np.errstate(divide="ignore", invalid="ignore"):
        dispersion = var / mean
        dispersion[dispersion <= 0] = np.nan
        dispersion = np.log(dispersion)
    frame = pd.DataFrame({"mean": np.log1p(mean), "dispersion": dispersion})
    frame["bin"] = pd.cut(frame["mean"], bins=n_bins)
    stats = frame.groupby("bin", observed=True)["dispersion"].agg(avg="mean", dev="std")
    single = stats["dev"].isnull()
    stats.loc[single, "dev"] = stats.loc[single, "avg"]
    stats.loc[single, "avg"] = 0.0
    stats = stats.loc[frame["bin"]]
    return ((frame["dispersion"].to_numpy() - stats["avg"].to_numpy())
            / stats["dev"].to_numpy())


#: How the ``"pca"`` graph picks the features its components are computed from:
#: ``"variance"``, the largest variances; ``"dispersion"``, the largest normalised
#: dispersions (:func:`normalized_dispersions`, scanpy's ``seurat`` flavor: for log-normalised
#: single-cell counts, where the variance follows the mean).
GRAPH_PREFILTERS = ("variance", "dispersion")


def graph_prefilter_features(X, n_features, prefilter="variance"):
    """The ``n_features`` columns the ``"pca"`` graph is built from (sorted indices); an
    array of column indices is those columns (``prefilter`` unused)."""
    n, d = X.shape
    if n_features is not None and not isinstance(n_features, (int, np.integer)):
        columns = np.unique(np.asarray(n_features))
        if (columns.ndim != 1 or columns.size < 2 or not np.issubdtype(columns.dtype, np.integer)
                or columns[0] < 0 or columns[-1] >= d):
            raise ValueError(f"graph_features: give at least 2 column indices in [0, {d}), "
                             f"got {np.asarray(n_features)!r:.80}")
        if columns.size > PCA_MAX_FEATURES:
            raise ValueError(f"graph_features: at most {PCA_MAX_FEATURES:,} columns for the "
                             f"components, got {columns.size:,}")
        return columns
    if n_features is None or n_features >= d:
        return np.arange(d)
    if prefilter == "variance":
        return top_variance_features(X, n_features)
    score = normalized_dispersions(X)
    score = np.where(np.isnan(score), -np.inf, score)
    return np.sort(np.argsort(-score, kind="stable")[:n_features])


class GraphOnPCA:
    """The parameters of the graph on principal components, shared by the graph-based
    rankers that scale (Laplacian score, SPEC): mixed into their ``__init__`` and
    ``_parameter_constraints``."""

    _graph_constraints = {
        "graph": [StrOptions(set(GRAPHS))],
        "n_pcs": [IntInterval(1, None, closed="left")],
        "graph_features": [IntInterval(2, PCA_MAX_FEATURES, closed="both"), "array-like",
                           None],
        "graph_prefilter": [StrOptions(set(GRAPH_PREFILTERS))],
        "random_state": ["random_state"],
    }

    def _check_graph(self, X, max_samples=DATA_GRAPH_MAX_SAMPLES):
        """``X`` as the graph needs it: a sparse ``X`` densified for the graph on the data
        when small; a refusal in one line above the ``"data"`` graph's bound."""
        n, d = X.shape
        if self.graph == "data" and sp.issparse(X):
            if n * d > DENSIFY_MAX_ENTRIES:
                raise SizeBoundError(
                    f"{type(self).__name__}: graph='data' builds the graph on the features "
                    f"themselves, on dense data, and this sparse {n:,} x {d:,} input would "
                    f"take {n * d * 8 / 2**30:.1f} GiB dense; pass graph='pca' (a kNN graph on "
                    "principal components, linear in the number of samples).")
            X = X.toarray()
        if self.graph == "data" and n > max_samples:
            raise SizeBoundError(
                f"{type(self).__name__}: graph='data' handles at most {max_samples:,} samples "
                f"(it reads all n^2 pairs of samples) and got {n:,}; pass graph='pca' (a kNN "
                "graph on principal components, linear in the number of samples).")
        return X

    def _pca_graph(self, X, n_neighbors):
        """The kNN graph on ``n_pcs`` principal components of the ``graph_features`` most
        variable features (all when there are at most that many)."""
        features = graph_prefilter_features(X, self.graph_features, self.graph_prefilter)
        return pca_knn_graph(X, n_neighbors=n_neighbors, n_pcs=self.n_pcs, features=features,
                             weight="heat" if self.weight == "heat" else "binary",
                             random_state=self._graph_seed())

    def _pca_graph_dask(self, X, n_neighbors):
        """:meth:`_pca_graph` of a Dask array of CSR row blocks: the same graph
        (:func:`fsclust.counts.chunked.pca_knn_graph`); the features given as column
        indices or all of them (a prefilter by variance or dispersion is refused)."""
        from ..counts import chunked

        d = X.shape[1]
        features = self.graph_features
        if features is None or isinstance(features, (int, np.integer)) and features >= d:
            features = np.arange(d)
        elif isinstance(features, (int, np.integer)):
            raise ValueError(f"{type(self).__name__} on a Dask array takes graph_features as "
                             "column indices (fsclust.pp.rank_genes passes seurat_v3's genes) "
                             f"or None, not a number of {self.graph_prefilter} genes")
        else:
            features = graph_prefilter_features(sp.csr_matrix((2, d)), features)
        return chunked.pca_knn_graph(X, n_neighbors=n_neighbors, n_pcs=self.n_pcs,
                                     features=features,
                                     weight="heat" if self.weight == "heat" else "binary",
                                     random_state=self._graph_seed())

    def _graph_seed(self):
        """``random_state`` as the int seed of the graph's subsample and neighbour search."""
        seed = self.random_state
        seed = 0 if seed is None else seed
        if not isinstance(seed, (int, np.integer)):
            seed = int(np.random.RandomState(seed).randint(2**31 - 1)) if not isinstance(
                seed, np.random.RandomState) else int(seed.randint(2**31 - 1))
        return int(seed)

VARIANTS = ("full", "numerator")

# bytes of the block of centred columns laplacian_score works on (L2-sized)
_BLOCK_BYTES = 2**21


class LaplacianScore(GraphOnPCA, FeatureRanker):
    """Laplacian Score of each feature on a nearest-neighbour graph; smaller is better.

    With the graph ``W``, degrees ``d = W 1``, ``D_g = diag(d)`` and ``L = D_g - W``, each
    feature ``f_r`` is centred with the degree-weighted mean, ``f~ = f_r - (d^T f_r / 1^T d) 1``,
    and scored by the Rayleigh quotient (He et al., eq. (4)):

    ``L_r = f~^T L f~ / f~^T D_g f~ = (1/2) sum_ij W_ij (f_ri - f_rj)^2 / sum_i d_i f~_i^2``.

    All features are scored at once (one sparse product ``W X``), never in a Python loop.

    Parameters
    ----------
    n_features_to_select : int or None, default=None
        Number of top-ranked features kept by ``transform``; None keeps all.
    n_neighbors : int or None, default=5
        ``k`` of the kNN graph (``x_j`` among the ``k`` nearest neighbours of ``x_i`` or vice
        versa, the sample itself excluded). None: the complete graph, ``W_ii = 0``.
    t : float, default=None
        Heat-kernel parameter of ``W_ij = exp(-||x_i - x_j||^2 / t)``. None: ``t_rule``.
    t_rule : {"cai", "zeng2008", "median"}, default="cai"
        ``"cai"``: ``t = 2 (mean pairwise distance)^2``, as in Cai's ``constructW``; see
        :func:`fsclust.graphs.bandwidth`.
    weight : {"heat", "binary", "cosine"}, default="heat"
        Edge weights (``"binary"``: the paper's "simple-minded" 0/1 weights; ``"cosine"``:
        the cosine similarity, with ``metric="cosine"`` only).
    metric : {"euclidean", "cosine"}, default="euclidean"
        Distance that picks the ``k`` neighbours (:func:`fsclust.graphs.knn_graph`).
        ``metric="cosine", weight="cosine", self_loops=True`` is the graph of the usage example
        of Cai's ``LaplacianScore.m`` (``Metric``, ``WeightMode`` ``'Cosine'``, ``k = 5``),
        which Zhang et al. (2012, section 3.2) cite for ``k = 5``.
    symmetrize : {"or", "and"}, default="or"
        kNN symmetrisation; ``"and"`` is the mutual kNN graph.
    self_loops : bool, default=False
        ``W_ii = 1`` as scikit-feature's ``construct_W`` and Cai's ``constructW`` of 2005-2010
        (``bSelfConnected = 1``) do (it changes ``D_g`` and hence the scores). He et al.'s graph
        has none.
    variant : {"full", "numerator"}, default="full"
        ``"full"``: the Laplacian Score above. ``"numerator"``: only
        ``sum_ij W_ij (f_ri - f_rj)^2``, as Zeng & Cheung 2008 describe the method;
        it favours low-variance features and is offered for sensitivity analyses only
        (we assume they actually ran the full score).
    graph : {"data", "pca"}, default="data"
        ``"data"``: the paper's graph, on the features themselves (dense input, at most
        :data:`DATA_GRAPH_MAX_SAMPLES` samples). ``"pca"``: the graph of single-cell analysis
        (:func:`fsclust.graphs.pca_knn_graph`): ``n_neighbors`` nearest on ``n_pcs`` principal
        components of the ``graph_features`` most variable features, binary weights (or heat
        weights with ``t`` the mean squared neighbour distance), memory and time linear in the
        number of samples; takes scipy.sparse input and keeps it sparse. ``t``, ``t_rule``,
        ``metric``, ``symmetrize`` and ``self_loops`` apply to ``"data"`` only.
    n_pcs : int, default=50
        Principal components of the ``"pca"`` graph (scanpy's default).
    graph_features : int, array-like of int or None, default=2000
        The features (largest variance) the ``"pca"`` graph's components are computed from;
        an array: these columns (as chosen elsewhere: :func:`fsclust.pp.rank_genes` passes
        ``seurat_v3``'s genes of the counts); None: all (at most
        :data:`fsclust.graphs.PCA_MAX_FEATURES`). Every feature is scored.
    graph_prefilter : {"variance", "dispersion"}, default="variance"
        How those features are picked: the largest variances, or the largest normalised
        dispersions (scanpy's ``seurat`` flavor, :func:`normalized_dispersions`), the choice
        for log-normalised single-cell counts (the variance follows the mean there: on
        synthetic counts of 10^4 cells, 19 % of the planted markers in the top m with the
        variance, 73 % with the dispersion; docs/measurements.md).
    random_state : int, RandomState or None, default=None
        Seed of the approximate neighbour search of the ``"pca"`` graph above
        :data:`fsclust.graphs.EXACT_NEIGHBORS_MAX_N` samples (None: 0); unused otherwise.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``L_r`` (``"full"``; ``+inf`` for a constant feature) or the numerator
        (``"numerator"``; 0 for a constant feature). Smaller is better.
    ranking_ : ndarray of shape (n_features,), int
        Rank of each feature, 1 = best (the position in ``feature_order_`` + 1).
    feature_order_ : ndarray of shape (n_features,), int
        Feature indices, smallest score first; constant features last.
    constant_mask_ : ndarray of shape (n_features,), bool
    t_ : float or None
        The heat-kernel parameter used (None for binary and cosine weights).
    n_features_in_ : int

    Notes
    -----
    Decisions (the paper is silent on degenerate features):

    - A constant feature, or one with no weighted variance (``f~^T D_g f~ = 0``, possible only
      when it varies on isolated nodes alone), scores ``+inf`` and is ranked last.
      scikit-feature clamps the denominator and gives such features about 1.0 instead.
    - A floor ``den <= 1e-12 max(1, d^T (f o f))`` is not used: with Zeng & Cheung 2008's
      narrow kernel all degrees are ~1e-100 and that absolute floor would declare every
      feature constant. The constant test ``ptp(f) <= 1e-12 max(1, max|f|)`` on the raw
      feature is used instead.
    - The numerator ``f~^T L f~`` is computed as ``f~^T D_g f~ - f~^T W f~`` (``L = D_g - W``);
      round-off below 0 is clipped to 0.

    References
    ----------
    He, Cai & Niyogi (2005), "Laplacian Score for Feature Selection", NIPS 18, section 2,
    eqs. (1)-(4) (score), section 3 (properties).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> groups = np.repeat([0.0, 10.0], 10)
    >>> X = np.column_stack([groups + rng.rand(20), rng.rand(20), np.ones(20)])
    >>> selector = LaplacianScore(n_features_to_select=1, n_neighbors=3).fit(X)
    >>> selector.feature_order_
    array([0, 1, 2])
    >>> bool(selector.scores_[0] < selector.scores_[1]), selector.scores_[2]
    (True, np.float64(inf))
    """

    higher_is_better = False

    _parameter_constraints: dict = {
        **FeatureRanker._parameter_constraints,
        "n_neighbors": [IntInterval(1, None, closed="left"), None],
        "t": [Interval(Real, 0, None, closed="neither"), None],
        "t_rule": [StrOptions(set(BANDWIDTH_RULES))],
        "weight": [StrOptions({"heat", "binary", "cosine"})],
        "symmetrize": [StrOptions({"or", "and"})],
        "self_loops": ["boolean"],
        "variant": [StrOptions(set(VARIANTS))],
        "metric": [StrOptions({"euclidean", "cosine"})],
        **GraphOnPCA._graph_constraints,
    }

    def __init__(
        self, n_features_to_select=None, *, n_neighbors=5, t=None, t_rule="cai",
        weight="heat", symmetrize="or", self_loops=False, variant="full", metric="euclidean",
        graph="data", n_pcs=50, graph_features=2000, graph_prefilter="variance",
        random_state=None,
    ):
        self.n_features_to_select = n_features_to_select
        self.n_neighbors = n_neighbors
        self.t = t
        self.t_rule = t_rule
        self.weight = weight
        self.symmetrize = symmetrize
        self.self_loops = self_loops
        self.variant = variant
        self.metric = metric
        self.graph = graph
        self.n_pcs = n_pcs
        self.graph_features = graph_features
        self.graph_prefilter = graph_prefilter
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.ranker_tags.sparse_input = True
        tags.ranker_tags.dask_input = True  # with graph="pca"
        # MEASURED (speed/singlecell_scale.py, the single-cell preset, from the file to the
        # scores): beyond the counts, 1.00 times them at 10^5 cells and 0.77 at 10^6 (the
        # normalised values, the PCA's blocks, the graph)
        tags.ranker_tags.sparse_memory = 1.0
        return tags

    def _scores_use_random_state(self):
        # only the approximate neighbour search of the PCA graph draws anything
        return self.graph == "pca"

    def _score(self, X, rng):
        X = self._check_graph(X)
        W, self.t_ = self._graph(X)
        return laplacian_score(X, W, variant=self.variant, constant=self.constant_mask_)

    def _score_dask(self, X):
        # graph="pca" only: the graph on the data reads all n^2 pairs of cells
        if self.graph != "pca":
            raise ValueError(f"{type(self).__name__} on a Dask array needs graph='pca' (the "
                             f"kNN graph on principal components), got graph={self.graph!r}")
        if self.weight == "cosine":
            raise ValueError("graph='pca' has binary or heat weights; weight='cosine' is "
                             "for graph='data' with metric='cosine'.")
        from ..counts.chunked import graph_quadratic_forms as chunked_forms

        W = self._pca_graph_dask(X, self.n_neighbors or 15)
        self.t_ = None
        return _laplacian_from_forms(*chunked_forms(X, W), self.variant, self.constant_mask_)

    def _graph(self, X):
        if self.graph == "pca":
            if self.weight == "cosine":
                raise ValueError("graph='pca' has binary or heat weights; weight='cosine' is "
                                 "for graph='data' with metric='cosine'.")
            return self._pca_graph(X, self.n_neighbors or 15), None
        if self.n_neighbors is None:
            if self.metric != "euclidean" or self.weight == "cosine":
                raise ValueError("the complete graph (n_neighbors=None) is Euclidean with heat "
                                 "or binary weights; pass n_neighbors for a cosine kNN graph.")
            if self.weight == "binary":
                W = np.ones((X.shape[0], X.shape[0]))
                if not self.self_loops:
                    np.fill_diagonal(W, 0.0)
                return W, None
            return rbf_affinity(
                X, t=self.t, t_rule=self.t_rule, keep_diagonal=self.self_loops,
                return_bandwidth=True,
            )
        return knn_graph(
            X, n_neighbors=self.n_neighbors, t=self.t, t_rule=self.t_rule, weight=self.weight,
            symmetrize=self.symmetrize, self_loops=self.self_loops, return_bandwidth=True,
            metric=self.metric,
        )


class LaplacianScoreLargestFirst(LaplacianScore):
    """He et al.'s Laplacian score ranked largest first: the worst features first.

    Not a selector to use. Zhang et al. 2012 (Table 2) applied the UFF rule "score above
    mean + sd" to the Laplacian score as if larger were better: their four subset sizes are
    those of the largest scores, the worst genes (:mod:`fsclust.papers.zhang2012`). Registered
    so that the generic evaluate step ranks and clusters that probable error like any method
    (its informative subset is the genes above mean + sd); the scores are
    :class:`LaplacianScore`'s, only their orientation differs.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> groups = np.repeat([0.0, 5.0], 10)
    >>> X = np.column_stack([groups + rng.rand(20), rng.rand(20)])
    >>> LaplacianScoreLargestFirst(n_neighbors=3).fit(X).feature_order_
    array([1, 0])
    """

    higher_is_better = True


def laplacian_score(X, W, variant="full", constant=None):
    """Laplacian Score ``L_r`` of every column of ``X`` on the graph ``W`` (He et al. eq. (4)).

    Parameters
    ----------
    X : array-like of shape (n, D)
    W : ndarray or scipy.sparse matrix of shape (n, n)
        Symmetric non-negative affinity; a diagonal counts in the degrees.
    variant : {"full", "numerator"}, default="full"
        See :class:`LaplacianScore`.
    constant : ndarray of shape (D,) of bool, optional
        :func:`~fsclust.rankers.base.constant_features` of ``X``, when the caller has it.

    Returns
    -------
    scores : ndarray of shape (D,)
        Smaller is better; ``+inf`` for constant features under ``"full"``.

    Examples
    --------
    >>> import numpy as np
    >>> W = np.ones((4, 4)) - np.eye(4)
    >>> laplacian_score(np.array([[0.0], [1.0], [2.0], [5.0]]), W)  # n / (n - 1)
    array([1.33333333])
    """
    if sp.issparse(X):
        return _laplacian_score_sparse(X, W, variant, constant)
    X = np.asarray(X, dtype=np.float64)  # only read: Xc below is the working copy
    n, D = X.shape
    d = np.asarray(W.sum(axis=1), dtype=np.float64).ravel()
    mu = (d @ X) / d.sum()
    den = np.empty(D)
    num = np.empty(D)
    # in blocks of columns that stay in cache: the centred block, its weighted variance, its
    # product with W (a sparse W reads a row of the block per edge) and the quotient's
    # numerator are one pass over X instead of five (TOX-171: 8.3 -> 3.7 ms; the products
    # of a narrower block round differently, by 3e-13 at most on the prepared sets)
    cols = max(64, _BLOCK_BYTES // (8 * n))
    for a in range(0, D, cols):
        b = min(a + cols, D)
        Xc = X[:, a:b] - mu[a:b]
        den[a:b] = d @ (Xc * Xc)  # f~^T D_g f~
        WX = np.asarray(W @ Xc)
        num[a:b] = den[a:b] - np.einsum("ij,ij->j", Xc, WX)  # f~^T L f~
    np.maximum(num, 0.0, out=num)
    if constant is None:
        constant = constant_features(X)
    if variant == "numerator":
        # sum_ij W_ij (f_i - f_j)^2 = 2 f^T L f
        scores = 2.0 * num
        scores[constant] = 0.0
        return scores
    if variant != "full":
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}.")
    degenerate = constant | ~(den > 0)
    scores = np.full(X.shape[1], np.inf)
    scores[~degenerate] = num[~degenerate] / den[~degenerate]
    return scores


def _laplacian_score_sparse(X, W, variant, constant):
    """:func:`laplacian_score` of a sparse ``X``: ``f~^T L f~ = f^T L f`` (``L 1 = 0``) and
    ``f~^T D_g f~ = f^T D_g f - (d^T f)^2 / 1^T d``, from
    :func:`fsclust.graphs.graph_quadratic_forms`; ``X`` is never densified nor centred."""
    if constant is None:
        constant = constant_features(X)
    return _laplacian_from_forms(*graph_quadratic_forms(X, W), variant, constant)


def _laplacian_from_forms(d, dX, fDf, num, variant, constant):
    """The Laplacian score from :func:`fsclust.graphs.graph_quadratic_forms`'s terms."""
    den = fDf - dX**2 / d.sum()
    if variant == "numerator":
        scores = 2.0 * num
        scores[constant] = 0.0
        return scores
    if variant != "full":
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}.")
    # the subtraction above leaves round-off of the order eps f^T D f: a feature whose
    # weighted variance is below that is degenerate (constant on the graph's support)
    degenerate = constant | ~(den > 1e-12 * fDf)
    scores = np.full(den.shape[0], np.inf)
    scores[~degenerate] = num[~degenerate] / den[~degenerate]
    return scores
