"""Which genes should the single-cell graph's components come from? (issue 39, precision)

The Laplacian score of every gene (log1p of per-cell normalised counts) on a 15-NN graph of 50
principal components of 2,000 genes picked by: the dispersion of the log values (scanpy's
``seurat``, the preset before 2026-11-28), ``seurat_v3`` on the counts
(:func:`fsclust.counts.graph_genes`, the preset now), the variance, or the planted markers
themselves (an oracle: the labels choose its genes, a bound on what a better graph gives,
never a method). Prints one JSON line per choice: the planted markers among the top genes,
as many as the markers, and the seconds.

    python speed/singlecell_graph_genes.py results/speed/singlecell_data/synthetic_10000x20000.h5ad \
        dispersion,seurat_v3,markers [n_neighbors]

(the ``.h5ad`` files are written by ``speed/singlecell_scale.py``).
"""

import json
import sys
import time
import warnings

import numpy as np


def main(path, choices, n_neighbors=15):
    warnings.simplefilter("ignore")
    from fsclust.counts import read_counts
    from fsclust.counts.preprocess import _seurat_v3, preprocess_counts
    from fsclust.pp import SINGLE_CELL_PARAMS
    from fsclust.rankers.laplacian import graph_prefilter_features
    from fsclust.registry import make_ranker

    adata = read_counts(path)
    markers = np.flatnonzero(adata.var["marker_of"].astype(str).to_numpy() != "none")
    pre = preprocess_counts(adata, min_cells=3)
    kept = np.flatnonzero(pre.gene_mask)
    for choice in choices:
        start = time.perf_counter()
        if choice == "seurat_v3":
            columns = np.flatnonzero(_seurat_v3(adata.X[:, kept].tocsr(), 2000, 3))
        elif choice == "markers":
            columns = np.flatnonzero(np.isin(kept, markers))
        else:
            columns = graph_prefilter_features(pre.X, 2000, choice)
        params = dict(SINGLE_CELL_PARAMS, n_neighbors=n_neighbors, graph_features=columns,
                      graph_prefilter="dispersion")
        ranker = make_ranker("laplacian", params, random_state=0).fit(pre.X)
        order = kept[ranker.feature_order_]
        print(json.dumps({"graph_genes": choice, "n_neighbors": n_neighbors,
                          "n_cells": pre.X.shape[0],
                          "precision": float(np.isin(order[:markers.size], markers).mean()),
                          "seconds": round(time.perf_counter() - start, 1)}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2].split(","), *map(int, sys.argv[3:4]))
