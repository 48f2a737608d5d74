"""The single-cell benchmark's data: every set as a sparse ``.h5ad`` of raw counts.

- :func:`prepare_counts`: a catalog set (its files fetched and verified by the download step)
  read sparse by :func:`fsclust.datasets.singlecell.read_cell_counts`;
- :func:`make_synthetic`: negative-binomial counts with planted cell types and marker genes
  (:func:`fsclust.counts.write_synthetic_h5ad`), drawn by the workflow;
- :func:`load_counts`: either back as (counts, cell types, planted markers), optionally a
  seeded uniform subsample of the cells (the CI's small runs).

The files hold ``X`` (CSR, float32 counts), ``obs["cell_type"]`` and, for the synthetic sets,
``var["marker_of"]`` (``"none"`` for a gene that marks no type); ``uns["provenance"]`` says
where they came from as JSON text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from fsclust._io import atomic_path

__all__ = ["Counts", "prepare_counts", "make_synthetic", "load_counts"]


class Counts(NamedTuple):
    """A set as the protocol reads it: ``X`` (cells x genes CSR counts), ``y`` (each cell's
    type, 0..K-1), ``class_names``, ``gene_names``, ``markers`` (for each gene the index of
    the type it marks among the file's types, before any subsample; -1 for none; None for a
    real set) and ``provenance``."""

    X: sp.csr_matrix
    y: np.ndarray
    class_names: list
    gene_names: list
    markers: np.ndarray | None
    provenance: dict

    @property
    def n_classes(self):
        return len(self.class_names)


def _write_h5ad(X, cell_types, class_names, gene_names, cell_names, path, provenance,
                marker_of=None):
    import anndata
    import pandas as pd

    obs = pd.DataFrame({"cell_type": pd.Categorical.from_codes(np.asarray(cell_types),
                                                              list(class_names))},
                       index=pd.Index(list(cell_names), dtype=str))
    var = pd.DataFrame(index=pd.Index(list(gene_names), dtype=str))
    if marker_of is not None:
        var["marker_of"] = marker_of
    adata = anndata.AnnData(X=sp.csr_matrix(X), obs=obs, var=var)
    adata.uns["provenance"] = json.dumps(provenance, sort_keys=True, default=str)
    with atomic_path(path) as tmp:
        adata.write_h5ad(tmp)
    return Path(path)


def prepare_counts(entry, raw_paths, out_path):
    """Write catalog set ``entry``'s counts (read from its fetched ``raw_paths``) as a sparse
    ``.h5ad`` at ``out_path``; returns the path."""
    from fsclust.datasets.singlecell import read_cell_counts

    counts = read_cell_counts(entry, raw_paths)
    provenance = {**counts.provenance, "catalog_description": entry.description,
                  "url": entry.url, "checksum": entry.checksum}
    return _write_h5ad(counts.X, counts.y, counts.class_names, counts.gene_names,
                       counts.cell_names, out_path, provenance)


def make_synthetic(out_path, *, n_cells, n_genes, n_types, markers_per_type, density, seed):
    """Draw :func:`fsclust.counts.synthetic_counts` and write it as ``out_path``."""
    from fsclust.counts import synthetic_counts

    X, cell_types, marker_genes = synthetic_counts(
        int(n_cells), int(n_genes), n_types=int(n_types),
        markers_per_type=int(markers_per_type), density=float(density),
        random_state=int(seed))
    names = [f"type{t}" for t in range(int(n_types))]
    marker_of = np.array([names[t] if t >= 0 else "none" for t in marker_genes], dtype=object)
    provenance = {"synthetic": "fsclust.counts.synthetic_counts", "n_cells": int(n_cells),
                  "n_genes": int(n_genes), "n_types": int(n_types),
                  "markers_per_type": int(markers_per_type), "density": float(density),
                  "seed": int(seed)}
    return _write_h5ad(X, cell_types, names, [f"gene{j}" for j in range(int(n_genes))],
                       [f"cell{i}" for i in range(int(n_cells))], out_path, provenance,
                       marker_of=marker_of)


def load_counts(path, *, max_cells=None, seed=0):
    """Read a set written by :func:`prepare_counts` or :func:`make_synthetic`.

    Parameters
    ----------
    path : str or Path
    max_cells : int, optional
        Keep a uniform random subsample of this many cells (sorted, drawn with ``seed``,
        without looking at the types) when the set has more; cell types left without a cell
        are dropped from ``class_names``.
    seed : int

    Returns
    -------
    Counts
    """
    import anndata

    adata = anndata.read_h5ad(path)
    X = sp.csr_matrix(adata.X)
    types = adata.obs["cell_type"].cat
    y = np.asarray(types.codes, dtype=np.int64)
    class_names = [str(c) for c in types.categories]
    provenance = json.loads(adata.uns.get("provenance", "{}"))
    if max_cells is not None and X.shape[0] > int(max_cells):
        rows = np.sort(np.random.default_rng(seed).choice(X.shape[0], int(max_cells),
                                                          replace=False))
        X, y = X[rows], y[rows]
        present = np.unique(y)
        lookup = np.full(len(class_names), -1)
        lookup[present] = np.arange(present.size)
        y, class_names = lookup[y], [class_names[k] for k in present]
        provenance["subsample"] = {"n_cells": int(max_cells), "seed": int(seed),
                                   "of": int(adata.n_obs)}
    markers = None
    if "marker_of" in adata.var:
        lookup = {name: k for k, name in enumerate(types.categories)}
        markers = np.array([lookup.get(str(v), -1) for v in adata.var["marker_of"]],
                           dtype=np.int64)
    return Counts(X, y, class_names, [str(g) for g in adata.var_names], markers, provenance)
