"""Highly variable genes: scanpy's four gene selectors of single-cell analysis, as one ranker.

scanpy itself computes the scores (``scanpy.pp.highly_variable_genes`` and
``scanpy.experimental.pp.highly_variable_genes``); this module only hands it the counts, in
scanpy's own recipe for each flavor, and ranks the genes by the score scanpy selects by.
scanpy is an optional dependency (``pip install 'fsclust[singlecell]'``), imported by ``fit``.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from .base import FeatureRanker, IntInterval

__all__ = ["FLAVORS", "HighlyVariableGenes", "LOESS_MIN_NEIGHBOURS", "MIN_CELLS",
           "SCORE_COLUMNS", "check_count_values"]

#: scanpy's flavors: ``seurat_v3`` and ``pearson_residuals`` model the counts themselves,
#: ``seurat`` and ``cell_ranger`` their ``normalize_total`` + ``log1p`` transform.
FLAVORS = ("seurat_v3", "seurat", "cell_ranger", "pearson_residuals")

#: The flavors that take scanpy's ``normalize_total`` and ``log1p`` of the counts.
_LOG_FLAVORS = ("seurat", "cell_ranger")

#: The column of scanpy's table each flavor selects its ``n_top_genes`` by (larger first).
#: The memory a fit takes beyond its sparse counts, as a multiple of them (RankerTags
#: ``sparse_memory``): MEASURED with speed/singlecell_scale.py (the peak above the interpreter,
#: 0.45 GB, and the counts; 7 % non-zero at 10^5 cells, 5 % at 10^6): seurat_v3 0.95 and 1.02,
#: cell_ranger 0.96 and 1.01, seurat 2.45 at 10^5 (at 10^6 the out-of-memory killer stopped
#: it at 21 GB on a 24 GB machine: scanpy's copies of the values), Pearson residuals 2.95 at
#: 10^5 (its dense residuals in chunks of genes)
SPARSE_MEMORY = {"seurat_v3": 1.1, "cell_ranger": 1.1, "seurat": 2.5, "pearson_residuals": 3.0}

SCORE_COLUMNS = {"seurat_v3": "variances_norm", "seurat": "dispersions_norm",
                 "cell_ranger": "dispersions_norm", "pearson_residuals": "residual_variances"}

#: scanpy's usual gene filter before seurat_v3 (``scanpy.pp.filter_genes(min_cells=3)``,
#: :func:`fsclust.counts.preprocess.filter_genes`): its loess fails on genes seen in fewer cells.
MIN_CELLS = 3

#: The fewest neighbours seurat_v3's loess takes for each local quadratic,
#: ``floor(span x genes)``: with 3 the quadratic interpolates them and scikit-misc's fit fails
#: ("Chernobyl! trL>n"), with 0 it crashes the interpreter.
LOESS_MIN_NEIGHBOURS = 4

_INSTALL = "pip install 'fsclust[singlecell]'"

# stored values checked at once (a 32 MiB float64 temporary at most)
_CHUNK = 2**22


def check_count_values(X, caller, *, integers=True):
    """Refuse, in one line, values that are not counts: negative, or (``integers``) not whole.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n_cells, n_genes)
        Finite values (``fit``'s validation has refused NaN and infinity).
    caller : str
        Who asks, as the message names it.
    integers : bool, default=True
        Refuse non-integer values too; False accepts any value >= 0.

    Raises
    ------
    ValueError
        Naming the first offending value, its cell and gene, and the fix. The message of a
        negative value starts as scikit-learn's ("Negative values in data passed to").

    Examples
    --------
    >>> check_count_values(np.array([[0.0, 2.0], [1.0, 3.0]]), "f")
    >>> check_count_values(np.array([[0.0, 0.69], [1.1, 3.0]]), "f")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: f expects raw counts and X holds non-integer values: 2 of 4, the first 0.69 ...
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        values, n_values = X.data, X.shape[0] * X.shape[1]
    else:
        values = np.asarray(X).reshape(-1)
        n_values = values.size
    checks = [(lambda v: v < 0, "Negative values in data passed to {caller}: {count} of "
               "{n_values}, the first {value:g} (cell {cell}, gene {gene}); raw counts are >= 0")]
    if integers:
        checks.append((lambda v: v != np.floor(v),
                       "{caller} expects raw counts and X holds non-integer values: {count} of "
                       "{n_values}, the first {value:g} (cell {cell}, gene {gene}); pass the "
                       "raw counts, not normalised or log-transformed data, or check_values="
                       "False for non-integer counts (e.g. ambient-corrected)"))
    for bad, message in checks:
        count, first = 0, None
        for start in range(0, values.size, _CHUNK):
            hits = np.flatnonzero(bad(values[start:start + _CHUNK]))
            if hits.size and first is None:
                first = start + int(hits[0])
            count += hits.size
        if count:
            if sp.issparse(X):
                cell = int(np.searchsorted(X.indptr, first, side="right") - 1)
                gene = int(X.indices[first])
            else:
                cell, gene = divmod(first, X.shape[1])
            raise ValueError(message.format(caller=caller, count=count, n_values=n_values,
                                            value=values[first], cell=cell, gene=gene))


def _scanpy(caller):
    """scanpy and anndata, or a one-line refusal naming the extra that installs them."""
    try:
        import anndata
        import scanpy
    except ImportError:
        raise ImportError(f"{caller} needs scanpy; install it: {_INSTALL}") from None
    return scanpy, anndata


def _unwritable(X):
    """A new matrix object on ``X``'s own arrays, made read-only: scanpy may replace the
    arrays of the matrix it is given (``normalize_total`` assigns a new ``data``), and must
    never write into the caller's."""
    if sp.issparse(X):
        arrays = [X.data.view(), X.indices.view(), X.indptr.view()]
        for a in arrays:
            a.flags.writeable = False
        return sp.csr_matrix(tuple(arrays), shape=X.shape, copy=False)
    view = X.view()
    view.flags.writeable = False
    return view


def _genes_below(X, min_cells):
    """The number of genes detected (count > 0) in fewer than ``min_cells`` cells."""
    if sp.issparse(X):
        detected = np.bincount(X.indices[X.data > 0], minlength=X.shape[1])
    else:
        detected = np.count_nonzero(X > 0, axis=0)
    return int(np.count_nonzero(detected < min_cells))


class HighlyVariableGenes(FeatureRanker):
    """Rank genes by scanpy's highly-variable-gene score of one flavor; larger is better.

    The counts go to scanpy in its own recipe for each flavor, and the genes are ranked by
    the score the flavor selects its ``n_top_genes`` by (scanpy's column in brackets):

    - ``"seurat_v3"`` (Stuart et al. 2019), on the counts: the variance of each gene after
      standardising it by the standard deviation its mean predicts, from a loess fit of
      ``log10 variance`` on ``log10 mean`` of span ``span``, values clipped at
      ``mean + sqrt(n) sd`` (``variances_norm``). Without batches scanpy's
      ``highly_variable_rank`` is the rank of this score.
    - ``"seurat"`` (Satija et al. 2015) and ``"cell_ranger"`` (Zheng et al. 2017), on
      ``scanpy.pp.normalize_total`` then ``scanpy.pp.log1p`` of the counts: the dispersion
      (variance / mean of the un-logged values; seurat: its log) normalised within bins of
      mean expression, by the bin's mean and standard deviation over ``n_bins`` equal-width
      bins (seurat) or its median and MAD over the 5% percentile bins (cell_ranger)
      (``dispersions_norm``).
    - ``"pearson_residuals"`` (Lause, Berens & Kobak 2021), on the counts: the variance of
      the analytic Pearson residuals ``(y_ij - mu_ij) / sqrt(mu_ij + mu_ij^2 / theta)`` of a
      negative binomial with ``mu_ij = n_i p_j``, clipped to ``[-clip, clip]``
      (``residual_variances``; ``scanpy.experimental.pp.highly_variable_genes``).

    So ``feature_order_[:m]`` is the set scanpy marks ``highly_variable`` for
    ``n_top_genes=m`` (without a batch key), except where a tie decides scanpy's cut.

    Parameters
    ----------
    n_features_to_select : int or None, default=None
        Number of top-ranked genes kept by ``transform``; None keeps all.
    flavor : {"seurat_v3", "seurat", "cell_ranger", "pearson_residuals"}, default="seurat_v3"
        scanpy's flavor.
    n_bins : int, default=20
        Number of bins of mean expression (``"seurat"`` only, as scanpy's ``n_bins``; the
        cell_ranger flavor's bins are percentiles).
    span : float in (0, 1], default=0.3
        Fraction of the genes in each local fit of the loess (``"seurat_v3"`` only).
    theta : float > 0, default=100
        Negative binomial overdispersion (``"pearson_residuals"`` only).
    clip : float >= 0 or None, default=None
        Residuals clipped to ``[-clip, clip]``; None: ``sqrt(n_cells)``
        (``"pearson_residuals"`` only).
    check_values : bool, default=True
        Refuse non-integer values (True). False takes any values >= 0, as counts (scanpy's
        ``check_values=False``): e.g. ambient-corrected counts, which are not whole.

    Attributes
    ----------
    scores_ : ndarray of shape (n_genes,)
        scanpy's score of the flavor (above); NaN where scanpy gives none (a dispersion of an
        unexpressed gene).
    ranking_ : ndarray of shape (n_genes,), int
        Rank of each gene, 1 = best.
    feature_order_ : ndarray of shape (n_genes,), int
        Gene indices, best first; NaN scores and constant genes last.
    constant_mask_ : ndarray of shape (n_genes,), bool
    n_features_in_ : int

    Notes
    -----
    ``fit`` takes the raw counts (cells x genes), CSR kept sparse or dense, and refuses
    negative values and (``check_values``) non-integer ones in one line.
    ``seurat``/``cell_ranger`` normalise and log a copy of the stored values only (the
    sparsity pattern is shared); the other flavors read the counts as given. scanpy's
    ``batch_key`` has no counterpart: ``fit`` sees no batches.

    Decisions:

    - Genes seen in very few cells make seurat_v3's loess fail (scikit-misc: "reciprocal
      condition number", "There are other near singularities", "svddc failed in l2fit").
      ``fit`` fails then, in one line that names the fix: filter the genes detected in fewer
      than :data:`MIN_CELLS` cells first (:func:`fsclust.counts.preprocess.filter_genes`, as
      scanpy's tutorials do with ``scanpy.pp.filter_genes``). It does not filter them itself:
      the ranking would then no longer be scanpy's on the data given, and a gene filtered
      away would still need a rank.
    - A tie at the cut: scanpy's ``seurat``/``cell_ranger`` keep every gene whose score
      reaches the ``n_top_genes``-th (possibly more genes), seurat_v3 and Pearson residuals
      break ties by NumPy's unstable sort; here ties go to the lower gene index.

    References
    ----------
    Wolf, Angerer & Theis (2018), "SCANPY: large-scale single-cell gene expression data
    analysis", Genome Biology 19, 15: ``scanpy.pp.highly_variable_genes`` (seurat_v3, seurat,
    cell_ranger) and ``scanpy.experimental.pp.highly_variable_genes`` (pearson_residuals),
    scanpy 1.11, which compute the scores.

    Stuart, Butler, Hoffman, Hafemeister, Papalexi, Mauck, Hao, Stoeckius, Smibert & Satija
    (2019), "Comprehensive integration of single-cell data", Cell 177(7), 1888-1902,
    "Identification of highly variable features (feature selection)": seurat_v3 (the vst
    method).

    Satija, Farrell, Gennert, Schier & Regev (2015), "Spatial reconstruction of single-cell
    gene expression data", Nature Biotechnology 33, 495-502: seurat.

    Zheng, Terry, Belgrader et al. (2017), "Massively parallel digital transcriptional
    profiling of single cells", Nature Communications 8, 14049: cell_ranger.

    Lause, Berens & Kobak (2021), "Analytic Pearson residuals for normalization of
    single-cell RNA-seq UMI data", Genome Biology 22, 258: pearson_residuals.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> counts = rng.poisson(2.0, size=(60, 40)).astype(float)
    >>> counts[:, 3] = np.r_[rng.poisson(4.0, size=30), np.zeros(30)]  # a marker of half
    >>> [int(HighlyVariableGenes(flavor=flavor).fit(counts).feature_order_[0])
    ...  for flavor in ("seurat_v3", "pearson_residuals")]
    [3, 3]
    """

    higher_is_better = True

    _parameter_constraints: dict = {
        **FeatureRanker._parameter_constraints,
        "flavor": [StrOptions(set(FLAVORS))],
        "n_bins": [IntInterval(1, None, closed="left")],
        "span": [Interval(Real, 0, 1, closed="right")],
        "theta": [Interval(Real, 0, None, closed="neither")],
        "clip": [Interval(Real, 0, None, closed="left"), None],
        "check_values": ["boolean"],
    }

    def __init__(self, n_features_to_select=None, *, flavor="seurat_v3", n_bins=20, span=0.3,
                 theta=100, clip=None, check_values=True):
        self.n_features_to_select = n_features_to_select
        self.flavor = flavor
        self.n_bins = n_bins
        self.span = span
        self.theta = theta
        self.clip = clip
        self.check_values = check_values

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        tags.ranker_tags.sparse_input = True
        tags.ranker_tags.counts_input = True
        tags.ranker_tags.sparse_memory = SPARSE_MEMORY.get(self.flavor)
        return tags

    def _score(self, X, rng):
        name = f"{type(self).__name__}(flavor={self.flavor!r})"
        check_count_values(X, name, integers=self.check_values)
        sc, anndata = _scanpy(name)
        if self.flavor in _LOG_FLAVORS and not sp.issparse(X):
            counts = X.copy()  # scanpy normalises a dense array in place (dense input is small)
        else:
            counts = _unwritable(X)  # a sparse matrix gets new values, X's are never written
        adata = anndata.AnnData(counts)
        if self.flavor == "seurat_v3":
            table = self._seurat_v3(sc, adata, X, name)
        elif self.flavor == "pearson_residuals":
            table = sc.experimental.pp.highly_variable_genes(
                adata, flavor="pearson_residuals", theta=self.theta, clip=self.clip,
                n_top_genes=X.shape[1], check_values=False, inplace=False)
        else:
            # scanpy's recipe: the dispersion flavors expect log-normalised data
            sc.pp.normalize_total(adata)
            sc.pp.log1p(adata)
            try:
                table = sc.pp.highly_variable_genes(adata, flavor=self.flavor,
                                                    n_bins=self.n_bins, inplace=False)
            except ValueError as err:
                if "Bin edges must be unique" not in str(err):
                    raise
                # cell_ranger's bins are percentiles of the genes' means: they coincide when
                # many genes share one mean, as unexpressed genes do, and pandas refuses them
                raise ValueError(
                    f"{name}: scanpy's bins of mean expression (the 10th to 100th percentiles "
                    "of the genes' means, by 5) coincide, as when many genes (about 5% or "
                    f"more) share one mean ({_genes_below(X, 1)} of the {X.shape[1]} genes "
                    f"have no counts here); drop the genes detected in fewer than "
                    f"{MIN_CELLS} cells first: fsclust.counts.preprocess.filter_genes(X, "
                    f"min_cells={MIN_CELLS})"
                ) from None
        return table[SCORE_COLUMNS[self.flavor]].to_numpy(dtype=np.float64)

    def _seurat_v3(self, sc, adata, X, name):
        # scanpy's loess sees the genes of non-zero variance; scikit-misc takes the
        # floor(span * genes) nearest as each local quadratic's neighbours and crashes the
        # interpreter (a segmentation fault) when that is 0: refused here, before the call
        genes = int(np.count_nonzero(~self.constant_mask_))
        if int(np.floor(self.span * genes)) < LOESS_MIN_NEIGHBOURS:
            raise ValueError(
                f"{name}: the loess of span={self.span} fits each gene on floor(span x "
                f"{genes} non-constant genes) = {int(np.floor(self.span * genes))} neighbours, "
                f"and its local quadratic needs at least {LOESS_MIN_NEIGHBOURS}; give at least "
                f"{int(np.ceil(LOESS_MIN_NEIGHBOURS / self.span))} non-constant genes or a "
                "larger span")
        try:
            # n_top_genes changes the selection only, not variances_norm
            return sc.pp.highly_variable_genes(adata, flavor="seurat_v3", span=self.span,
                                               n_top_genes=X.shape[1], check_values=False,
                                               inplace=False)
        except ImportError:  # scanpy imports scikit-misc's loess here
            raise ImportError(f"{name} needs scikit-misc (the loess); install it: "
                              f"{_INSTALL}") from None
        except ValueError as err:
            from ..counts.preprocess import _raised_by_loess

            if not _raised_by_loess(err):
                raise
            reason = err.args[0].decode() if isinstance(err.args[0], bytes) else str(err)
            few = _genes_below(X, MIN_CELLS)
            if few:
                cause = (f"{few} of the {X.shape[1]} genes are detected in fewer than "
                         f"{MIN_CELLS} cells; drop them first: fsclust.counts.preprocess."
                         f"filter_genes(X, min_cells={MIN_CELLS})")
            else:
                cause = (f"every gene is detected in {MIN_CELLS} cells or more, so the "
                         f"{X.shape[1]} genes are too few for a loess of span={self.span}; "
                         "use more genes or a larger span")
            raise ValueError(f"{name}: the loess fit of log variance on log mean failed "
                             f"({reason.strip()}); {cause}") from None
