"""Single-cell count matrices, kept sparse (CSR).

- :func:`synthetic_counts` and :func:`write_synthetic_h5ad` draw counts with planted cell
  types and marker genes, in memory proportional to the non-zeros.

No function builds a dense cells x genes array. Importing this package imports none of its
modules (the names are imported on first use, :mod:`fsclust._lazy`).
"""

from fsclust._lazy import lazy_exports

# public name -> the module that defines it
_EXPORTS = {
    "synthetic_counts": "synthetic",
    "write_synthetic_h5ad": "synthetic",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)
