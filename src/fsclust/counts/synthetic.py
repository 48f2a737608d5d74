"""Synthetic single-cell counts with planted cell types and marker genes, generated sparse.

The model (a hurdle negative binomial: where a count is non-zero is drawn apart from its
level, as in single-cell data most zeros are genes not detected in a cell):

- cell ``i`` has a type ``t_i``, uniform over ``n_types``, and a size factor
  ``a_i = exp(0.3 z_i)``, ``z_i ~ N(0, 1)`` (sequencing depth);
- gene ``j`` has a base rate ``w_j = exp(z_j)``, ``z_j ~ N(0, 1)``; ``markers_per_type``
  genes per type, drawn without replacement, are that type's markers, so
  ``lambda_tj = c w_j F`` when ``j`` marks ``t`` (``F = 4``) and ``c w_j`` otherwise. The
  scale ``c`` is solved so that the expected fraction of non-zeros is ``density``;
- the count ``X_ij`` is non-zero with probability ``1 - exp(-a_i lambda_tj)``, and then
  ``X_ij = 1 + Y_ij``, ``Y_ij`` negative binomial with mean ``a_i lambda_tj`` and size 2
  (variance ``m + m**2 / 2``). A marker's detection rate and its level are both raised in
  its type, so its mean there is higher than in the other types.

The non-zero positions are drawn as the points of a Poisson process of intensity
``a_i lambda_tj`` (a cell draws ``Poisson(a_i sum_j lambda_tj)`` points, each on gene ``j``
with probability ``lambda_tj / sum_j lambda_tj``): a (cell, gene) pair receives at least one
point with probability exactly ``1 - exp(-a_i lambda_tj)``. The work and the memory are thus
proportional to the number of non-zeros, never to ``n_cells * n_genes``: the cells are
generated in chunks of :data:`CHUNK_CELLS`, each from its own random stream (derived from
``random_state`` and the chunk's index), so the bytes depend on ``random_state`` only.
"""

from __future__ import annotations

from numbers import Integral, Real
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.optimize import brentq
from sklearn.utils._param_validation import Interval, validate_parameter_constraints

__all__ = ["CHUNK_CELLS", "synthetic_counts", "write_synthetic_h5ad"]

#: Cells drawn from one random stream; with 2 x 10^4 genes at 7 % a chunk's temporaries hold
#: about 7 x 10^5 non-zeros (tens of MB). Part of the model: changing it changes the bytes.
CHUNK_CELLS = 512

_SIZE_FACTOR_SD = 0.3  # sd of log a_i
_GENE_RATE_SD = 1.0  # sd of log w_j
_MARKER_FOLD = 4.0  # F
_NB_SIZE = 2.0  # size (shape) of the negative binomial level

_CONSTRAINTS = {
    "n_cells": [Interval(Integral, 1, None, closed="left")],
    "n_genes": [Interval(Integral, 1, None, closed="left")],
    "n_types": [Interval(Integral, 1, None, closed="left")],
    "markers_per_type": [Interval(Integral, 0, None, closed="left")],
    "density": [Interval(Real, 0, 1, closed="neither")],
    "random_state": [Interval(Integral, 0, None, closed="left"), None],
    "dtype": "no_validation",
}


def synthetic_counts(n_cells, n_genes, *, n_types=10, markers_per_type=50, density=0.07,
                     random_state=0, dtype=np.float32):
    """Draw a sparse cells x genes count matrix with planted cell types and marker genes.

    The model is described in :mod:`fsclust.counts.synthetic`; memory and time are
    proportional to the number of non-zeros (about ``density * n_cells * n_genes``).

    Parameters
    ----------
    n_cells, n_genes : int
    n_types : int
        Number of cell types, each cell's drawn uniformly.
    markers_per_type : int
        Marker genes of each type (disjoint sets): ``n_types * markers_per_type`` must not
        exceed ``n_genes``.
    density : float in (0, 1)
        Expected fraction of non-zero counts (realised within a few per cent of it).
    random_state : int or None
        Seed; the same seed gives the same bytes. None draws fresh entropy.
    dtype : numpy dtype
        Of the values (integers in any case).

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_cells, n_genes)
        Counts, sorted indices, no stored zeros.
    cell_types : ndarray of int of shape (n_cells,)
        The type of each cell, ``0 .. n_types - 1``.
    marker_genes : ndarray of int of shape (n_genes,)
        The type each gene marks, ``-1`` for a gene that marks none.

    Examples
    --------
    >>> X, cell_types, marker_genes = synthetic_counts(300, 200, n_types=3, markers_per_type=5)
    >>> X.shape, X.dtype, X.format
    ((300, 200), dtype('float32'), 'csr')
    >>> bool(0.05 <= X.nnz / (300 * 200) <= 0.09)
    True
    >>> sorted(np.unique(cell_types).tolist()), int((marker_genes == 1).sum())
    ([0, 1, 2], 5)
    """
    validate_parameter_constraints(
        _CONSTRAINTS, {"n_cells": n_cells, "n_genes": n_genes, "n_types": n_types,
                       "markers_per_type": markers_per_type, "density": density,
                       "random_state": random_state, "dtype": dtype},
        caller_name="synthetic_counts")
    if n_types * markers_per_type > n_genes:
        raise ValueError(f"n_types * markers_per_type = {n_types * markers_per_type} marker "
                         f"genes do not fit in n_genes={n_genes}; lower markers_per_type or "
                         "raise n_genes")
    root = np.random.SeedSequence(random_state)
    genes_rng = np.random.default_rng(np.random.SeedSequence(root.entropy, spawn_key=(0,)))
    rate = np.exp(_GENE_RATE_SD * genes_rng.standard_normal(n_genes))
    marker_genes = np.full(n_genes, -1, dtype=np.int64)
    chosen = genes_rng.permutation(n_genes)[:n_types * markers_per_type]
    marker_genes[chosen] = np.repeat(np.arange(n_types), markers_per_type)
    lam = np.tile(rate, (n_types, 1))  # lambda_tj before the scale c
    lam[marker_genes[chosen], chosen] *= _MARKER_FOLD
    lam *= _rate_scale(rate, marker_genes, n_types, density)

    # a point of a type-t cell at u * total[t] along its type's cumulative rates falls on
    # gene j with probability lambda_tj / total[t]
    cumulative = np.cumsum(lam, axis=1)
    total = cumulative[:, -1].copy()

    data, indices, row_counts, types = [], [], [], []
    for k, first in enumerate(range(0, n_cells, CHUNK_CELLS)):
        rng = np.random.default_rng(np.random.SeedSequence(root.entropy, spawn_key=(1, k)))
        chunk = _draw_chunk(rng, min(CHUNK_CELLS, n_cells - first), lam, cumulative, total,
                            dtype)
        for out, part in zip((data, indices, row_counts, types), chunk):
            out.append(part)
    indptr = np.zeros(n_cells + 1, dtype=np.int64)
    np.cumsum(np.concatenate(row_counts), out=indptr[1:])
    index_dtype = np.int32 if indptr[-1] < 2**31 else np.int64
    # concatenated one at a time, each list freed before the next: peak about 1.5x the result
    data = _concatenate(data, dtype)
    indices = _concatenate(indices, index_dtype)
    X = sp.csr_matrix((data, indices, indptr.astype(index_dtype, copy=False)),
                      shape=(n_cells, n_genes))
    X.has_sorted_indices = True  # each chunk sorted its (cell, gene) keys
    return X, np.concatenate(types), marker_genes


def _concatenate(parts, dtype):
    out = np.empty(sum(p.size for p in parts), dtype=dtype)
    at = 0
    while parts:
        part = parts.pop(0)
        out[at:at + part.size] = part
        at += part.size
    return out


def _rate_scale(rate, marker_genes, n_types, density):
    """The scale ``c`` that makes the expected fraction of non-zeros ``density``.

    The expectation is over the types (uniform), the genes and the size factor (8-point
    Gauss-Hermite quadrature of the log-normal ``a``).
    """
    nodes, weights = np.polynomial.hermite_e.hermegauss(8)
    weights = weights / weights.sum()
    a = np.exp(_SIZE_FACTOR_SD * nodes)[:, None]
    marker_rate = rate[marker_genes >= 0]

    def excess(log_c):
        c = np.exp(log_c)
        detected = np.sum(-np.expm1(-a * c * rate), axis=1)
        # a type's own markers: F times the rate, in 1 / n_types of the cells
        detected += np.sum(np.expm1(-a * c * marker_rate)
                           - np.expm1(-a * c * _MARKER_FOLD * marker_rate), axis=1) / n_types
        return float(weights @ detected) / rate.size - density

    return np.exp(brentq(excess, -40.0, 40.0, xtol=1e-6))


def _draw_chunk(rng, n, lam, cumulative, total, dtype):
    """One chunk of ``n`` cells: its values, column indices, non-zeros per row and types."""
    n_types, n_genes = lam.shape
    types = rng.integers(n_types, size=n)
    size = np.exp(_SIZE_FACTOR_SD * rng.standard_normal(n))
    points = rng.poisson(size * total[types])
    # the cells' points grouped by type, so that each type searches its own row of the table
    by_type = np.argsort(types, kind="stable")
    cell = np.repeat(by_type, points[by_type])
    gene = np.empty(cell.size, dtype=np.int64)
    ends = np.cumsum(np.bincount(types, weights=points, minlength=n_types).astype(np.int64))
    for t, (begin, end) in enumerate(zip(np.concatenate(([0], ends[:-1])), ends)):
        where = rng.random(end - begin) * total[t]
        gene[begin:end] = np.searchsorted(cumulative[t], where, side="right")
    np.minimum(gene, n_genes - 1, out=gene)  # u * total rounding onto the last edge
    keys = cell * n_genes + gene
    del cell, gene
    # sorted, then deduplicated (np.unique's hash path is several times slower here): the
    # row-major order is the CSR order
    keys.sort()
    keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]
    row, col = np.divmod(keys, n_genes)
    del keys
    mean = size[row] * lam[types[row], col]
    level = rng.negative_binomial(_NB_SIZE, _NB_SIZE / (_NB_SIZE + mean))
    values = (level + 1).astype(dtype)
    return values, col.astype(np.int32 if n_genes < 2**31 else np.int64), \
        np.bincount(row, minlength=n), types


def write_synthetic_h5ad(path, n_cells, n_genes, **kwargs):
    """Write :func:`synthetic_counts` as a sparse ``.h5ad``.

    ``X`` holds the counts (CSR), ``obs["cell_type"]`` each cell's type (categories
    ``"type0"``, ``"type1"``, ...) and ``var["marker_of"]`` the type each gene marks
    (``"none"`` for the others); cells are named ``cell0, cell1, ...``, genes
    ``gene0, gene1, ...``. Needs anndata.

    Parameters
    ----------
    path : str or Path
    n_cells, n_genes : int
    **kwargs
        The keyword arguments of :func:`synthetic_counts`.

    Returns
    -------
    Path
        ``path``.

    Examples
    --------
    >>> import tempfile, pathlib, anndata
    >>> p = write_synthetic_h5ad(pathlib.Path(tempfile.mkdtemp()) / "s.h5ad", 50, 40,
    ...                          n_types=2, markers_per_type=3)
    >>> adata = anndata.read_h5ad(p)
    >>> adata.shape, adata.X.format, list(adata.obs["cell_type"].cat.categories)
    ((50, 40), 'csr', ['type0', 'type1'])
    >>> int((adata.var["marker_of"] == "type1").sum())
    3
    """
    import anndata
    import pandas as pd

    X, cell_types, marker_genes = synthetic_counts(n_cells, n_genes, **kwargs)
    n_types = kwargs.get("n_types", synthetic_counts.__kwdefaults__["n_types"])
    names = [f"type{t}" for t in range(n_types)]
    obs = pd.DataFrame({"cell_type": pd.Categorical.from_codes(cell_types, names)},
                       index=pd.Index([f"cell{i}" for i in range(n_cells)]))
    var = pd.DataFrame({"marker_of": pd.Categorical.from_codes(
        np.where(marker_genes >= 0, marker_genes, n_types), [*names, "none"])},
        index=pd.Index([f"gene{j}" for j in range(n_genes)]))
    path = Path(path)
    anndata.AnnData(X=X, obs=obs, var=var).write_h5ad(path)
    return path
