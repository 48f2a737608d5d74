"""Counts past one machine's memory: a Dask array of CSR row blocks, the in-memory numbers.

A chunked store (``.h5ad`` or zarr) is read lazily by blocks of cells (:func:`read_chunked`,
anndata's ``read_elem_lazy``): ``X`` is a Dask array whose blocks are scipy CSR matrices of
consecutive cells with every gene. :func:`fsclust.pp.select_features` and
:func:`fsclust.pp.rank_genes` take it, and so does ``fit`` of the rankers whose
:class:`~fsclust.rankers.base.RankerTags` say ``dask_input`` (the Laplacian score with
``graph="pca"``, the variance, the deviance): the work runs on Dask's scheduler, a
``dask.distributed`` cluster when a ``Client`` is active (fsclust has no scheduler of its own).

The same numbers as in memory. Every quantity is the in-memory path's, computed block by
block with the same functions: the cells per gene, each cell's total, the normalisation and
``log1p`` (element by element: bit for bit), the column extremes, the per-gene sums; the
``seurat_v3`` genes of the graph and the covariance of its principal components come from the
same seeded subsample of cells (at most :data:`~fsclust.counts.preprocess.GRAPH_GENES_MAX_CELLS`
and :data:`~fsclust.graphs.PCA_MAX_FIT_SAMPLES` rows), gathered into memory and given to the
same functions; every cell is projected in its own block (bit for bit). A sum over blocks is
added in block order (:func:`sum_over_blocks`): the result does not depend on the scheduling,
and differs from the in-memory sum by round-off only (tests/test_chunked.py: relative 1e-10
on the scores and the same order).

Memory. Each task holds one row block, or two for the graph's products: the quadratic forms
``f^T W f = sum_ij W_ij f_i f_j`` are summed over pairs of row blocks ``(a, b)``, ``a <= b``,
each pair's edges in one task (:func:`graph_quadratic_forms`). A task computes its blocks
itself from the store (:func:`map_blocks_in_order`): no block is kept for another task, so a
worker's peak is set by the block size, not by the number of cells, at the price of reading
each block about ``n_blocks / 2`` times for the graph (:data:`PAIRS_PER_TASK`). The process
that calls holds what is not chunked: the per-cell vectors (totals, ``8 n`` bytes), the gathered
subsamples (at most 100,000 cells of counts of the kept genes for ``seurat_v3``, 20,000 cells
of the graph's genes for the covariance), the embedding (``n x n_pcs`` float64: 400 bytes a
cell, 4 GB at 10^7 cells), the kNN search on it (pynndescent, one node) and the graph
(``O(n k)``, about 260 bytes a cell at 15 neighbours).
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import scipy.sparse as sp

from ..graphs import (
    PCA_MAX_FEATURES,
    PCA_MAX_FIT_SAMPLES,
    cross_products_between,
    degree_forms,
    embedding_knn_graph,
    pca_components,
    pca_fit_rows,
    pca_project,
)

__all__ = [
    "cell_totals",
    "cells_per_gene",
    "checked_counts",
    "column_extremes",
    "gather_rows",
    "graph_quadratic_forms",
    "is_dask_array",
    "map_blocks_in_order",
    "normalize_log1p",
    "pca_knn_graph",
    "read_chunked",
    "sum_over_blocks",
    "take_genes",
]

_INSTALL = "pip install 'fsclust[dask]'"


def is_dask_array(X):
    """Whether ``X`` is a Dask array (without importing dask: none is one before it is)."""
    module = sys.modules.get("dask.array")
    return module is not None and isinstance(X, module.Array)


def read_chunked(path, block_cells=10_000, *, layer=None):
    """An ``.h5ad`` file or a zarr store as an AnnData whose counts are a lazy Dask array.

    ``X`` (or ``layers[layer]``) is read by anndata's ``read_elem_lazy`` in blocks of
    ``block_cells`` cells with every gene: each block is a scipy CSR matrix read from the store
    by the task that needs it (an ``.h5ad`` is reopened by path in each task, so the blocks
    can be read on other machines that see the same file); ``obs`` and ``var`` are read into
    memory.

    Parameters
    ----------
    path : str or Path
        An ``.h5ad`` file, or a directory or ``.zarr`` store written by anndata.
    block_cells : int, default=10,000
        Cells per block: what sets each task's memory (the values and indices of a block,
        about ``12 block_cells nnz/n`` bytes, a few times over while it is transformed).
    layer : str, optional
        The layer holding the counts; None: ``X``.

    Returns
    -------
    anndata.AnnData
        Its ``X`` a ``dask.array.Array`` of CSR blocks (the counts asked for).
    """
    from pathlib import Path

    try:
        import anndata
        from anndata.experimental import read_elem_lazy
        from anndata.io import read_elem
    except ImportError:
        raise ImportError(f"reading a chunked store needs anndata and dask: {_INSTALL}") from None
    path = Path(path)
    name = "X" if layer is None else f"layers/{layer}"
    chunks = (int(block_cells), -1)
    if path.is_dir():
        import zarr

        group = zarr.open_group(str(path), mode="r")
        if name not in group:
            raise ValueError(f"{path}: no {name} in the store")
        X = read_elem_lazy(group[name], chunks=chunks)
        obs, var = read_elem(group["obs"]), read_elem(group["var"])
    else:
        import h5py

        with h5py.File(path, "r") as handle:
            if name not in handle:
                raise ValueError(f"{path}: no {name} in the file")
            # the Dask array keeps the path, not the handle: each task opens the file
            X = read_elem_lazy(handle[name], chunks=chunks)
            obs, var = read_elem(handle["obs"]), read_elem(handle["var"])
    if layer is None:
        return anndata.AnnData(X=X, obs=obs, var=var)
    return anndata.AnnData(obs=obs, var=var, layers={layer: X})


# --- the tasks: each computes its blocks itself -------------------------------------------


class _Block:
    """One row block of a Dask array, computed in the task that receives it (Dask does not
    look inside this object, so the block is not a shared key that the scheduler would keep
    in memory until its last reader has run). Its graph is culled to the block's own keys."""

    def __init__(self, array):
        self.array = array

    def load(self):
        import dask

        (block,) = dask.compute(self.array, scheduler="sync")
        if not sp.issparse(block):  # a dense block (a Dask array of numpy chunks)
            block = sp.csr_matrix(np.asarray(block))
        return sp.csr_matrix(block)


def _blocks(X):
    """The :class:`_Block` of every row block of ``X``, in order."""
    import dask

    if X.ndim != 2 or len(X.chunks[1]) != 1:
        raise ValueError(f"a Dask array of row blocks with every column in each block, got "
                         f"chunks {X.chunks!r:.80}; rechunk it with X.rechunk({{1: -1}})")
    return [_Block(dask.optimize(X.blocks[k])[0]) for k in range(len(X.chunks[0]))]


def _offsets(X):
    """The first row of every block, and ``n``."""
    return np.concatenate([[0], np.cumsum(X.chunks[0])]).astype(np.int64)


def _run(func, block, *args):
    return func(block.load(), *args)


def map_blocks_in_order(func, X, *, per_block=(), shared=()):
    """``[func(block_k, *per_block_k, *shared) for every row block k]``, each call a task that
    computes its block itself; the results in block order (they travel to the caller: small
    ones, or bounded ones).

    Parameters
    ----------
    func : callable
        Takes a CSR block (cells x genes) and the arguments.
    X : dask.array.Array of CSR row blocks
    per_block : tuple of sequences
        Arguments with one item per block (a slice of a per-cell vector).
    shared : tuple
        Arguments given to every call (sent once: one key).
    """
    import dask

    shared = [dask.delayed(value, pure=True) if isinstance(value, np.ndarray) else value
              for value in shared]
    tasks = [dask.delayed(_run, pure=False)(func, block, *[items[k] for items in per_block],
                                            *shared)
             for k, block in enumerate(_blocks(X))]
    return _compute(tasks)


def _compute(tasks):
    """The results of ``tasks`` in their order. On a ``dask.distributed`` cluster each is
    fetched as soon as it is done and released: the workers do not hold every block's result
    until the last is done (the embedding's ``n x n_pcs`` would grow with ``n`` there)."""
    import dask

    try:
        from distributed import as_completed, default_client

        client = default_client()
    except (ImportError, ValueError):  # no distributed, or no client: Dask's own scheduler
        return list(dask.compute(*tasks))
    futures = client.compute(tasks)
    where = {future.key: i for i, future in enumerate(futures)}
    results = [None] * len(futures)
    for future in as_completed(futures):
        results[where[future.key]] = future.result()
        future.release()
    return results


def _add_in_order(parts):
    """The sum of ``parts`` (arrays, or tuples of arrays) in their order."""
    total = parts[0]
    for part in parts[1:]:
        total = (tuple(a + b for a, b in zip(total, part)) if isinstance(total, tuple)
                 else total + part)
    return total


def sum_over_blocks(func, X, *, per_block=(), shared=()):
    """The sum over the row blocks of ``func(block, ...)`` (an array or a tuple of arrays),
    added in block order: the same numbers whatever the scheduling
    (:func:`map_blocks_in_order`)."""
    return _add_in_order(map_blocks_in_order(func, X, per_block=per_block, shared=shared))


# --- counts ----------------------------------------------------------------------------------


def _check_block(block, source, block_info=None):
    from .read import EXACT_FLOAT32, check_counts

    start, stop = block_info[0]["array-location"][0] if block_info else (0, block.shape[0])
    checked = check_counts(block, source=f"{source} (cells {start}-{stop - 1})")
    if checked.dtype != np.float32:
        raise ValueError(f"{source}: a count above {EXACT_FLOAT32:,} in cells {start}-"
                         f"{stop - 1}; a Dask array takes counts exact in float32 (compute "
                         "it into memory, where they are kept as float64)")
    return checked


def checked_counts(X, source="the matrix"):
    """``X`` with each block checked and converted as :func:`~fsclust.counts.check_counts`
    does (float32 CSR counts; a refusal names the block's cells). Lazy: the check runs in
    each task that reads a block."""
    return X.map_blocks(_check_block, source, dtype=np.float32,
                        meta=sp.csr_matrix((0, 0), dtype=np.float32))


def _take(block, columns):
    return sp.csr_matrix(block)[:, columns]


def take_genes(X, columns):
    """The columns ``columns`` of every block (lazy)."""
    columns = np.asarray(columns, dtype=np.intp)
    return X.map_blocks(_take, columns, chunks=(X.chunks[0], (columns.size,)), dtype=X.dtype,
                        meta=sp.csr_matrix((0, 0), dtype=X.dtype))


def cells_per_gene(X, *, positive=True):
    """:func:`~fsclust.counts.cells_per_gene` of a Dask array: its sum over the blocks."""
    return sum_over_blocks(_positive_cells, X, shared=(bool(positive),))


def _positive_cells(block, positive):
    from .preprocess import cells_per_gene as in_memory

    return in_memory(block, positive=positive)


def cell_totals(X):
    """Each cell's total, in float64 (the in-memory function on each block: bit for bit)."""
    from .preprocess import _cell_totals

    return np.concatenate(map_blocks_in_order(_cell_totals, X))


def _normalized(block, totals, target_sum):
    from .preprocess import _scaled

    return _scaled(sp.csr_matrix(block), np.asarray(totals).ravel(), target_sum, log=True)


def normalize_log1p(X, totals, target_sum):
    """:func:`~fsclust.counts.normalize_log1p` of every block (lazy), with the cells' totals
    and the target computed over all cells (:func:`cell_totals`; the target is
    :func:`~fsclust.counts.preprocess._target` of them): the in-memory values, bit for bit.
    Each block's totals travel with its own tasks only."""
    import dask.array as da

    offsets = _offsets(X)
    # one small array per block: a block's culled graph holds its own cells' totals only
    column = da.concatenate([da.from_array(totals[a:b, None], chunks=-1)
                             for a, b in zip(offsets, offsets[1:])])
    dtype = np.float32 if X.dtype == np.float32 else np.float64
    return da.map_blocks(_normalized, X, column, float(target_sum), dtype=dtype,
                         chunks=X.chunks, meta=sp.csr_matrix((0, 0), dtype=dtype))


def _rows_of(block, rows, columns):
    block = block[rows]
    return block if columns is None else block[:, columns]


def gather_rows(X, rows, columns=None):
    """The rows ``rows`` (sorted indices) of a Dask array of CSR blocks, restricted to
    ``columns``, gathered into one CSR matrix in memory (a bounded subsample: its size is
    the caller's)."""
    rows = np.asarray(rows, dtype=np.int64)
    offsets = _offsets(X)
    where = np.searchsorted(rows, offsets)
    local = [rows[where[k]:where[k + 1]] - offsets[k] for k in range(offsets.size - 1)]
    parts = map_blocks_in_order(_rows_of, X, per_block=(local,), shared=(columns,))
    return sp.csr_matrix(sp.vstack(parts, format="csr"))


def _extremes(block):
    n, d = block.shape
    hi = np.full(d, -np.inf)
    lo = np.full(d, np.inf)
    csc = block.tocsc()
    counts = np.diff(csc.indptr)
    has = counts > 0
    if has.any():
        starts = csc.indptr[:-1][has]
        hi[has] = np.maximum.reduceat(csc.data, starts)
        lo[has] = np.minimum.reduceat(csc.data, starts)
    zero = counts < n  # the block's implicit zeros
    hi[zero] = np.maximum(hi[zero], 0.0)
    lo[zero] = np.minimum(lo[zero], 0.0)
    return hi, lo


def column_extremes(X):
    """``(max, min)`` of every column, implicit zeros included (exact in any order)."""
    parts = map_blocks_in_order(_extremes, X)
    return (np.max([part[0] for part in parts], axis=0),
            np.min([part[1] for part in parts], axis=0))


# --- the graph on principal components and its quadratic forms ----------------------------


def pca_knn_graph(X, n_neighbors=15, *, n_pcs=50, features=None, weight="binary",
                  random_state=0):
    """:func:`fsclust.graphs.pca_knn_graph` of a Dask array of CSR row blocks: the same graph.

    The covariance of the ``features`` comes from the same seeded subsample of at most
    :data:`~fsclust.graphs.PCA_MAX_FIT_SAMPLES` cells (:func:`fsclust.graphs.pca_fit_rows`),
    gathered into memory (:func:`gather_rows`) and given to the same function; every block is
    projected in its own task; the embedding (``n x n_pcs`` float64) is gathered and the
    neighbours searched on it in this process (:func:`fsclust.graphs.embedding_knn_graph`).
    """
    n, d = X.shape
    columns = np.arange(d) if features is None else np.asarray(features, dtype=np.intp)
    if columns.size > PCA_MAX_FEATURES:
        raise ValueError(f"a PCA embedding of {columns.size:,} features needs a "
                         f"{columns.size:,} x {columns.size:,} covariance; prefilter to at "
                         f"most {PCA_MAX_FEATURES:,} features (for example the most variable "
                         "ones).")
    chosen = pca_fit_rows(n, PCA_MAX_FIT_SAMPLES, random_state)
    fit = gather_rows(X, np.arange(n) if chosen is None else chosen, columns)
    vectors, _, offset = pca_components(fit, n, n_pcs, None)
    del fit
    E = np.vstack(map_blocks_in_order(pca_project, X, shared=(columns, vectors, offset)))
    return embedding_knn_graph(E, n_neighbors, weight=weight, random_state=random_state)


#: Pairs of row blocks ``(a, b)`` one task of :func:`graph_quadratic_forms` sums, block
#: ``a`` read once for them and each ``b`` in turn (two blocks in memory at a time): each block
#: is read about ``1 + n_blocks / 2 + n_blocks / PAIRS_PER_TASK`` times instead of
#: ``n_blocks + 1``, with tasks enough for the workers.
PAIRS_PER_TASK = 4


def _run_pairs(block_a, blocks_b, edges):
    """``sum_b cross_products_between(A, B_b, E_ab)`` in the order given (``None``: ``a``)."""
    A = block_a.load()
    total = None
    for block_b, E in zip(blocks_b, edges):
        part = cross_products_between(A, A if block_b is None else block_b.load(), E)
        total = part if total is None else total + part
    return total


def graph_quadratic_forms(X, W):
    """:func:`fsclust.graphs.graph_quadratic_forms` of a Dask array of CSR row blocks.

    ``d = W 1`` in this process; ``d^T f`` and ``f^T D f`` summed over the blocks (each with
    its cells' degrees); ``f^T W f`` over the pairs of blocks ``(a, b)``, ``a <= b``, that
    share an edge: the task of a pair computes both blocks and sums ``2 W_ij f_i f_j`` over
    its edges ``i < j`` (``i`` in ``a``, ``j`` in ``b``;
    :func:`fsclust.graphs.cross_products_between`), at most two blocks in memory (a task
    takes up to :data:`PAIRS_PER_TASK` pairs of the same ``a``). The pairs' sums are added
    in the order of ``(a, b)`` whatever the scheduling.
    """
    import dask

    W = sp.csr_matrix(W)
    offsets = _offsets(X)
    d = np.asarray(W.sum(axis=1), dtype=np.float64).ravel()
    dX, fDf = sum_over_blocks(degree_forms, X,
                              per_block=([d[a:b] for a, b in zip(offsets, offsets[1:])],))
    upper = sp.triu(W, k=1, format="csr")
    upper.data *= 2.0  # each pair of cells once, i < j: W_ij f_i f_j + W_ji f_j f_i
    blocks = _blocks(X)
    per_a = []
    for a in range(len(blocks)):
        rows = upper[offsets[a]:offsets[a + 1]]
        pairs = []
        for b in range(a, len(blocks)):
            edges = sp.csr_matrix(rows[:, offsets[b]:offsets[b + 1]])
            if edges.nnz:
                pairs.append((None if b == a else blocks[b], edges))
        tasks = [dask.delayed(_run_pairs, pure=False)(
                     blocks[a], [pair[0] for pair in group], [pair[1] for pair in group])
                 for group in (pairs[i:i + PAIRS_PER_TASK]
                               for i in range(0, len(pairs), PAIRS_PER_TASK))]
        if tasks:
            per_a.append(dask.delayed(_add_in_order, pure=False)(tasks))
    with warnings.catch_warnings():
        # the edges travel in the graph (12 bytes an edge: 18 MiB at 10^5 cells), as they must
        warnings.filterwarnings("ignore", "Sending large graph", UserWarning)
        parts = _compute(per_a)
    cross = _add_in_order(parts) if parts else np.zeros(X.shape[1])
    return d, dX, fDf, np.maximum(fDf - cross, 0.0)
