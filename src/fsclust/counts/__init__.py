"""Single-cell count matrices, kept sparse (CSR) from the file to the ranker's input.

- :func:`read_counts` reads a ``.h5ad``, a 10x folder or ``.h5``, or a Matrix Market file
  into an AnnData whose ``X`` is a float32 CSR matrix of counts, and refuses bad input in one
  line naming the fix (:func:`check_counts` is its check of the values);
- :func:`preprocess_counts` filters genes, normalises each cell's total, takes ``log1p`` and
  optionally keeps scanpy's ``seurat_v3`` highly variable genes (:func:`filter_genes`,
  :func:`normalize_total`, :func:`log1p`, :func:`normalize_log1p`, named after scanpy's);
- :func:`synthetic_counts` and :func:`write_synthetic_h5ad` draw counts with planted cell
  types and marker genes, in memory proportional to the non-zeros;
- :func:`read_chunked` reads a chunked store lazily, a Dask array of CSR row blocks, which
  :mod:`fsclust.counts.chunked` ranks past one machine's memory (dask is imported only there).

No function builds a dense cells x genes array. scanpy (``pip install 'fsclust[singlecell]'``)
is imported only by the functions that need it; importing this package imports none of its
modules (the names are imported on first use, :mod:`fsclust._lazy`).
"""

from fsclust._lazy import lazy_exports

# public name -> the module that defines it
_EXPORTS = {
    "cells_per_gene": "preprocess",
    "check_counts": "read",
    "read_chunked": "chunked",
    "read_counts": "read",
    "filter_genes": "preprocess",
    "graph_genes": "preprocess",
    "log1p": "preprocess",
    "normalize_log1p": "preprocess",
    "normalize_total": "preprocess",
    "preprocess_counts": "preprocess",
    "synthetic_counts": "synthetic",
    "write_synthetic_h5ad": "synthetic",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)
