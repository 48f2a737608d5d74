"""Preprocessing of sparse counts, as scanpy's: filter genes, normalise totals, log1p, HVG.

Every function takes a CSR matrix (cells x genes; ``scipy.sparse.csr_matrix`` or
``csr_array``) and returns one of the same class; a dense array is refused, never made. The
functions never modify their input. The per-entry work is done in blocks of
:data:`CHUNK_ENTRIES` stored values, so the temporaries stay small beside the matrix:
:func:`normalize_total`, :func:`log1p` and :func:`normalize_log1p` allocate one new array of
values and share ``indices`` and ``indptr`` with their input (their sparsity pattern is the
input's), :func:`filter_genes` allocates the filtered matrix.

:func:`preprocess_counts` chains them in scanpy's order for a ranker: ``filter_genes``, then
(optionally) ``highly_variable_genes(flavor="seurat_v3")`` on the counts, then
``normalize_total`` and ``log1p`` of the genes kept.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, validate_parameter_constraints

__all__ = ["CHUNK_ENTRIES", "PreprocessedCounts", "cells_per_gene", "filter_genes", "log1p",
           "normalize_log1p", "normalize_total", "preprocess_counts", "graph_genes"]

#: Stored values processed at once (4 M: a 32 MiB float64 temporary at most).
CHUNK_ENTRIES = 2**22

_INSTALL = "pip install 'fsclust[singlecell]'"
_MIN_CELLS = [Interval(Integral, 0, None, closed="left")]
_TARGET_SUM = [Interval(Real, 0, None, closed="neither"), None]


class PreprocessedCounts(NamedTuple):
    """What :func:`preprocess_counts` returns: what a ranker needs, and what was done."""

    #: scipy.sparse CSR of shape (n_cells, gene_mask.sum()): the log-normalised counts
    X: object
    #: ndarray of bool of shape (n_genes,): the genes kept, in the input's order
    gene_mask: np.ndarray
    #: dict: the steps, their parameters and counts, for reporting
    info: dict


def filter_genes(data, min_cells=3):
    """Drop the genes detected in fewer than ``min_cells`` cells.

    As ``scanpy.pp.filter_genes(data, min_cells=min_cells)``: a gene is detected in a cell
    when its count there is > 0.

    Parameters
    ----------
    data : scipy.sparse CSR matrix of shape (n_cells, n_genes), or anndata.AnnData
        An AnnData's ``X`` must be CSR.
    min_cells : int

    Returns
    -------
    filtered : CSR matrix or AnnData
        The kept genes (columns), a new object of the input's class; an AnnData is subset
        with its ``var``, layers and the rest (``data[:, gene_mask].copy()``).
    gene_mask : ndarray of bool of shape (n_genes,)
        The genes kept; ``(~gene_mask).sum()`` were dropped.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[1, 0, 2], [3, 0, 0], [1, 0, 5]])
    >>> filtered, kept = filter_genes(X, min_cells=2)
    >>> kept.tolist(), filtered.toarray().tolist()
    ([True, False, True], [[1, 2], [3, 0], [1, 5]])
    """
    validate_parameter_constraints({"min_cells": _MIN_CELLS}, {"min_cells": min_cells},
                                   caller_name="filter_genes")
    is_anndata = hasattr(data, "obs") and hasattr(data, "var")
    X = _csr(data.X if is_anndata else data, "filter_genes")
    gene_mask = cells_per_gene(X, positive=True) >= min_cells
    if is_anndata:
        return data[:, gene_mask].copy(), gene_mask
    return _columns(X, gene_mask), gene_mask


def normalize_total(X, target_sum=None):
    """Scale each cell's counts so that they sum to ``target_sum``.

    As ``scanpy.pp.normalize_total(adata, target_sum=target_sum)``: cell ``i``'s values are
    multiplied by ``target_sum / total_i``. A cell with no counts stays zero.

    Parameters
    ----------
    X : scipy.sparse CSR matrix of shape (n_cells, n_genes)
    target_sum : float > 0 or None
        None: the median of the cells' totals, over the cells with a non-zero total (scanpy's
        rule for dense data; scanpy 1.11 takes the median over all cells for CSR input: the
        two agree when no cell is empty, as after :func:`fsclust.counts.read_counts`).

    Returns
    -------
    CSR matrix
        Of ``X``'s float dtype (float32 for integer input), sharing ``indices`` and
        ``indptr`` with ``X``.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix(np.array([[1.0, 3.0], [0.0, 6.0], [4.0, 4.0]], dtype=np.float32))
    >>> normalize_total(X).toarray().tolist()
    [[1.5, 4.5], [0.0, 6.0], [3.0, 3.0]]
    >>> normalize_total(X, target_sum=1.0).sum(axis=1).A1.tolist()
    [1.0, 1.0, 1.0]
    """
    validate_parameter_constraints({"target_sum": _TARGET_SUM}, {"target_sum": target_sum},
                                   caller_name="normalize_total")
    X = _csr(X, "normalize_total")
    totals = _cell_totals(X)
    return _scaled(X, totals, _target(totals, target_sum), log=False)


def log1p(X):
    """The natural logarithm of 1 + each value, as ``scanpy.pp.log1p`` (base e).

    Zeros stay zero, so only the stored values are transformed: one new array of values.

    Parameters
    ----------
    X : scipy.sparse CSR matrix

    Returns
    -------
    CSR matrix
        Of ``X``'s float dtype (float32 for integer input), sharing ``indices`` and
        ``indptr`` with ``X``.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> Y = log1p(sp.csr_matrix([[0.0, np.e - 1]]))
    >>> Y.toarray().round(12).tolist(), Y.nnz
    ([[0.0, 1.0]], 1)
    """
    X = _csr(X, "log1p")
    data = X.data.astype(_float_dtype(X.dtype), copy=True)
    for start in range(0, data.size, CHUNK_ENTRIES):
        part = data[start:start + CHUNK_ENTRIES]
        np.log1p(part, out=part)
    return _with_data(X, data)


def normalize_log1p(X, target_sum=None):
    """:func:`normalize_total` then :func:`log1p`, with one new array of values.

    As ``scanpy.pp.normalize_total(adata, target_sum=target_sum)`` followed by
    ``scanpy.pp.log1p(adata)``.

    Parameters
    ----------
    X : scipy.sparse CSR matrix of shape (n_cells, n_genes)
    target_sum : float > 0 or None
        As in :func:`normalize_total`.

    Returns
    -------
    CSR matrix
        Of ``X``'s float dtype (float32 for integer input), sharing ``indices`` and
        ``indptr`` with ``X``.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix(np.array([[1.0, 3.0], [2.0, 2.0]]))
    >>> Y = normalize_log1p(X, target_sum=4.0)
    >>> np.allclose(Y.toarray(), np.log1p([[1.0, 3.0], [2.0, 2.0]]))
    True
    """
    validate_parameter_constraints({"target_sum": _TARGET_SUM}, {"target_sum": target_sum},
                                   caller_name="normalize_log1p")
    X = _csr(X, "normalize_log1p")
    totals = _cell_totals(X)
    return _scaled(X, totals, _target(totals, target_sum), log=True)


def preprocess_counts(adata, *, min_cells=3, target_sum=None, log1p=True, hvg_prefilter=None):
    """Counts to what a ranker takes: filtered genes, normalised totals, log1p.

    In scanpy's order: ``scanpy.pp.filter_genes(min_cells=min_cells)``; with
    ``hvg_prefilter``, ``scanpy.pp.highly_variable_genes(flavor="seurat_v3",
    n_top_genes=hvg_prefilter)`` on the counts of the genes kept (Stuart et al. 2019, Cell
    177:1888, the variance of each gene standardised by a loess fit of variance on mean);
    then ``normalize_total`` over the genes kept by ``min_cells`` (each cell's total counts
    them all, as when scanpy normalises before subsetting to the highly variable genes) and
    ``log1p``, on the genes kept.

    Parameters
    ----------
    adata : anndata.AnnData or scipy.sparse CSR matrix
        Raw counts, cells x genes (an AnnData's ``X``), as :func:`fsclust.counts.read_counts`
        gives them.
    min_cells : int
        Drop the genes detected in fewer cells. seurat_v3's loess fails on genes detected in
        one or two cells; keep it at 3 or more with ``hvg_prefilter``.
    target_sum : float > 0 or None
        As in :func:`normalize_total`.
    log1p : bool
        Take ``log1p`` after the normalisation.
    hvg_prefilter : int or None
        Keep this many highly variable genes (scanpy's ``seurat_v3``; needs scanpy and
        scikit-misc, ``pip install 'fsclust[singlecell]'``; scanpy copies the counts once).
        None keeps every gene; a number at least the genes left by ``min_cells`` keeps them
        all (said in ``info``).

    Returns
    -------
    PreprocessedCounts
        ``(X, gene_mask, info)``: the log-normalised CSR of the kept genes (new values; when
        every gene is kept it shares ``indices`` and ``indptr`` with the input), the kept
        genes as a mask over the input's genes, and a dict of what was done
        (``steps``, ``n_cells``, ``n_genes``, ``genes_below_min_cells``, ``n_genes_kept``,
        ``target_sum`` used, ...).

    Raises
    ------
    ValueError
        One line: no gene detected in ``min_cells`` cells, a missing package, or
        seurat_v3's loess failing (naming ``min_cells``).

    Examples
    --------
    >>> from fsclust.counts import synthetic_counts
    >>> counts, _, _ = synthetic_counts(200, 300, n_types=2, markers_per_type=10)
    >>> X, kept, info = preprocess_counts(counts, min_cells=3)
    >>> X.shape == (200, int(kept.sum())), info["steps"][0]
    (True, 'filter_genes(min_cells=3)')
    """
    validate_parameter_constraints(
        {"min_cells": _MIN_CELLS, "target_sum": _TARGET_SUM, "log1p": ["boolean"],
         "hvg_prefilter": [Interval(Integral, 1, None, closed="left"), None]},
        {"min_cells": min_cells, "target_sum": target_sum, "log1p": log1p,
         "hvg_prefilter": hvg_prefilter}, caller_name="preprocess_counts")
    is_anndata = hasattr(adata, "obs") and hasattr(adata, "var")
    X = _csr(adata.X if is_anndata else adata, "preprocess_counts")
    n_cells, n_genes = X.shape
    gene_mask = cells_per_gene(X, positive=True) >= min_cells
    info = {"n_cells": int(n_cells), "n_genes": int(n_genes), "min_cells": int(min_cells),
            "genes_below_min_cells": int(n_genes - gene_mask.sum()),
            "steps": [f"filter_genes(min_cells={min_cells})"]}
    if not gene_mask.any():
        raise ValueError(f"preprocess_counts: no gene is detected in min_cells={min_cells} "
                         f"cells or more (of {n_cells} cells); lower min_cells")
    # a subset of the columns is a new matrix, scaled in place below; with every gene kept,
    # only the values are copied (the result shares the input's indices and indptr)
    own = not gene_mask.all()
    if own:
        X = _columns(X, gene_mask)
    totals = _cell_totals(X)
    if hvg_prefilter is not None:
        info["hvg_prefilter"] = int(hvg_prefilter)
        if hvg_prefilter >= X.shape[1]:
            info["steps"].append(f"hvg_prefilter={hvg_prefilter}: all {X.shape[1]} genes "
                                 "kept (no more than asked)")
        else:
            variable = _seurat_v3(X, hvg_prefilter, min_cells)
            gene_mask[np.flatnonzero(gene_mask)[~variable]] = False
            X, own = _columns(X, variable), True
            info["steps"].append(
                f"highly_variable_genes(flavor='seurat_v3', n_top_genes={hvg_prefilter})")
    target = _target(totals, target_sum)
    X = _scaled(X, totals, target, log=log1p, inplace=own)
    info["target_sum"] = float(target)
    info["steps"].append(f"normalize_total(target_sum={target:g})")
    if log1p:
        info["steps"].append("log1p")
    info["n_genes_kept"] = int(gene_mask.sum())
    return PreprocessedCounts(X, gene_mask, info)


#: How the single-cell preset picks the genes its graph's components come from: the
#: ``seurat_v3`` genes of the counts. MEASURED on synthetic counts (10 types, 50 planted
#: markers each, 2 x 10^4 genes; the tuning set, not the benchmark's real sets), planted
#: markers among the Laplacian score's top 500 on a 15-NN graph of 50 components of 2,000
#: genes picked by: the dispersion of the log-normalised values (scanpy's ``seurat``) 0.732 at
#: 10^4 cells and 0.856 at 10^5; ``seurat_v3`` on the counts 0.760 and 0.946; the planted
#: markers themselves (an oracle, labels used: the bound of a better graph) 0.804 and 0.962;
#: ``seurat_v3``'s own top 500, 0.550 and 0.876 (docs/singlecell.md).
GRAPH_GENES = "seurat_v3"
#: ``seurat_v3``'s genes for the graph come from at most this many cells (a seeded uniform
#: subsample above it, as the graph's components come from 20,000,
#: :data:`fsclust.graphs.PCA_MAX_FIT_SAMPLES`): scanpy's ``seurat_v3`` copies the matrix it
#: is given (its per-batch row selection), which at 10^6 cells would double the counts' memory.
GRAPH_GENES_MAX_CELLS = 100_000


def graph_genes(counts, params, *, min_cells=3, normalize=True, random_state=0):
    """The ranker's parameters with the preset's ``graph_prefilter="seurat_v3"`` resolved.

    ``seurat_v3`` (Stuart et al. 2019) needs the counts, which the ranker does not see (it
    ranks their ``log1p``): its ``graph_features`` genes of the counts are computed here and
    passed as column indices. Anything else passes through unchanged. Where ``seurat_v3``
    cannot run (``normalize=False``: no counts; its loess fit failing), the graph falls back to
    the dispersion of the values, and the returned note says so.

    Parameters
    ----------
    counts : scipy.sparse CSR matrix or Dask array of CSR row blocks (cells x genes)
        The counts of the genes that will be ranked (the ranker's columns). Of a Dask array
        only the cells ``seurat_v3`` reads (at most :data:`GRAPH_GENES_MAX_CELLS`) are
        gathered, into memory (:func:`fsclust.counts.chunked.gather_rows`).
    params : dict
        The ranker's parameters, the preset's included.
    min_cells, normalize
        As :func:`fsclust.pp.rank_genes`'s.
    random_state : int, default=0
        Seed of the cells' subsample above :data:`GRAPH_GENES_MAX_CELLS`.

    Returns
    -------
    params : dict
        Ready for the ranker (``graph_prefilter`` a value the ranker takes).
    note : str or None
        What was done, for the run's record (None when nothing was).
    fallback : bool
        Whether ``seurat_v3`` was asked for and could not run (the caller warns).
    """
    if params.get("graph_prefilter") != GRAPH_GENES:
        return params, None, False
    params = dict(params, graph_prefilter="dispersion")
    n_top = params.get("graph_features")
    if n_top is None or not isinstance(n_top, (int, np.integer)) or n_top >= counts.shape[1]:
        return params, None, False  # the graph is on every gene: nothing to pick
    if not normalize:
        return params, ("graph genes: the input is not counts (normalize=False), so the "
                        "dispersion of its values, not seurat_v3"), True
    n_cells = counts.shape[0]
    rows = graph_gene_cells(n_cells, random_state)
    from .chunked import gather_rows, is_dask_array

    if is_dask_array(counts):
        counts = gather_rows(counts, np.arange(n_cells) if rows is None else rows)
    elif rows is not None:
        counts = counts[rows]
    try:
        mask = _seurat_v3(counts, int(n_top), min_cells)
    except ValueError as err:
        return params, f"graph genes: seurat_v3 failed ({err}); the dispersion instead", True
    params["graph_features"] = np.flatnonzero(mask)
    where = (f" of {GRAPH_GENES_MAX_CELLS:,} cells drawn with random_state={random_state}"
             if n_cells > GRAPH_GENES_MAX_CELLS else "")
    return params, f"graph genes: seurat_v3's {int(mask.sum())} of the counts{where}", False


def graph_gene_cells(n_cells, random_state=0):
    """The sorted cells :func:`graph_genes` takes ``seurat_v3``'s genes from (None: all)."""
    if n_cells > GRAPH_GENES_MAX_CELLS:
        return np.sort(np.random.RandomState(random_state).choice(
            n_cells, GRAPH_GENES_MAX_CELLS, replace=False))
    return None


def _seurat_v3(X, n_top_genes, min_cells):
    """scanpy's seurat_v3 highly variable genes of the counts ``X``: a mask."""
    try:
        import anndata
        import scanpy as sc
    except ImportError:
        raise ValueError(f"hvg_prefilter needs scanpy; install it: {_INSTALL}") from None
    try:
        table = sc.pp.highly_variable_genes(anndata.AnnData(X), flavor="seurat_v3",
                                            n_top_genes=n_top_genes, inplace=False)
    except ImportError:  # scanpy imports scikit-misc's loess here
        raise ValueError("hvg_prefilter needs scikit-misc (seurat_v3's loess); install it: "
                         f"{_INSTALL}") from None
    except ValueError as err:
        if not _raised_by_loess(err):
            raise
        reason = err.args[0].decode() if isinstance(err.args[0], bytes) else str(err)
        fix = (f"pass min_cells=3 or more (got {min_cells})" if min_cells < 3 else
               f"raise min_cells (got {min_cells}) or pass hvg_prefilter=None")
        raise ValueError(f"hvg_prefilter: seurat_v3's loess fit of variance on mean failed "
                         f"({reason.strip()}), as it does when genes are detected in very few "
                         f"cells; {fix}") from None
    return table["highly_variable"].to_numpy(dtype=bool)


def _raised_by_loess(err):
    """Whether ``err`` came out of scikit-misc's loess (its messages vary: "reciprocal
    condition number", "svddc failed in l2fit", "near singularities")."""
    tb = err.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    return str(tb.tb_frame.f_globals.get("__name__", "")).startswith("skmisc")


# --- the sparse bricks (also used by fsclust.counts.read) ----------------------------------


def _csr(X, caller):
    """``X`` if it is CSR, else a one-line refusal naming the conversion."""
    if sp.issparse(X) and X.format == "csr":
        return X
    if sp.issparse(X):
        fix = "X.tocsr()"
    else:
        fix = "scipy.sparse.csr_matrix(X) (counts are never made dense here)"
    raise ValueError(f"{caller}: X must be a scipy.sparse CSR matrix (cells x genes), got "
                     f"{type(X).__name__}{'' if not sp.issparse(X) else ' ' + X.format}; "
                     f"pass {fix}")


def _float_dtype(dtype):
    return dtype if np.issubdtype(dtype, np.floating) else np.dtype(np.float32)


def _with_data(X, data):
    """A CSR of ``X``'s class with ``data`` and ``X``'s ``indices`` and ``indptr`` (shared)."""
    return type(X)((data, X.indices, X.indptr), shape=X.shape, copy=False)


def _row_blocks(indptr, size=None):
    """``(first_row, end_row)`` blocks of consecutive rows with about ``size`` stored values
    (a row with more is a block of its own)."""
    size = CHUNK_ENTRIES if size is None else size
    n = indptr.size - 1
    first = 0
    while first < n:
        end = int(np.searchsorted(indptr, indptr[first] + size, side="right")) - 1
        end = min(max(end, first + 1), n)
        yield first, end
        first = end


def _cell_totals(X):
    """The sum of each row, in float64."""
    totals = np.zeros(X.shape[0], dtype=np.float64)
    indptr = X.indptr
    for first, end in _row_blocks(indptr):
        begin, stop = indptr[first], indptr[end]
        rows = np.flatnonzero(np.diff(indptr[first:end + 1]))  # reduceat needs non-empty rows
        if rows.size:
            totals[first + rows] = np.add.reduceat(X.data[begin:stop],
                                                   indptr[first + rows] - begin,
                                                   dtype=np.float64)
    return totals


def cells_per_gene(X, *, positive=True):
    """The number of cells where each gene is seen: the stored values of each column of a CSR
    ``X`` (``positive``: of values > 0), counted in blocks of stored values (no array of
    ``nnz`` is made).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> cells_per_gene(sp.csr_matrix(np.array([[1.0, 0.0, 2.0], [3.0, 0.0, 0.0]])))
    array([2, 0, 1])
    """
    counts = np.zeros(X.shape[1], dtype=np.int64)
    for start in range(0, X.nnz, CHUNK_ENTRIES):
        columns = X.indices[start:start + CHUNK_ENTRIES]
        if positive:
            columns = columns[X.data[start:start + CHUNK_ENTRIES] > 0]
        counts += np.bincount(columns, minlength=X.shape[1])
    return counts


def _columns(X, mask):
    """The columns of ``X`` where ``mask`` is True: a new CSR of ``X``'s class."""
    return X[:, np.flatnonzero(mask)]


def _target(totals, target_sum):
    if target_sum is not None:
        return float(target_sum)
    positive = totals[totals > 0]
    return float(np.median(positive)) if positive.size else 1.0


def _scaled(X, totals, target_sum, *, log, inplace=False):
    """Each row times ``target_sum / total``, then log1p when ``log``."""
    dtype = _float_dtype(X.dtype)
    data = X.data if inplace and X.dtype == dtype else X.data.astype(dtype, copy=True)
    with np.errstate(divide="ignore"):
        scale = np.where(totals > 0, target_sum / totals, 0.0)
    indptr = X.indptr
    for first, end in _row_blocks(indptr):
        part = data[indptr[first]:indptr[end]]
        # float64 factors: a float32 value is scaled, then rounded once
        np.multiply(part, np.repeat(scale[first:end], np.diff(indptr[first:end + 1])),
                    out=part, casting="same_kind")
        if log:
            np.log1p(part, out=part)
    if inplace and data is X.data:
        return X
    return _with_data(X, data)

