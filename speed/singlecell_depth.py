"""Does sequencing depth steer the single-cell graph? (issue 39, precision at 10^6 cells)

At 10^6 synthetic cells the Laplacian score on the preset's graph (15-NN on 50 principal
components of the 2,000 ``seurat_v3`` genes) put 41 noise genes in its top 500, each among the
most expressed noise genes (mean count 0.11-0.37 against a median of 0.03), and missed 41
markers of the lowest expression (0.003-0.008), while ``seurat_v3`` ranks those noise genes
near the bottom. A noise gene's log-normalised values still follow its cell's depth (a
shallow cell has more zeros): if the graph joins cells of like depth, such a gene varies
smoothly on it and scores as structure. This script measures, on one ``.h5ad`` of
``speed/singlecell_scale.py``:

- how much of each principal component the cell's log number of detected genes explains
  (R^2, the largest and the sum over components);
- the depth agreement of the graph (the correlation of a cell's log detected genes with its
  neighbours' mean);
- the Laplacian score's marker precision (top m, m = the planted markers) and the mean count
  of its false positives, on the preset's graph and on the graph of the same components with
  the log detected genes regressed out of each (``"regress"``).

    python speed/singlecell_depth.py results/speed/singlecell_data/synthetic_10000x20000.h5ad \
        [preset,regress,pcs20] [n_neighbors]

Prints one JSON line per (graph, score): ``plain`` is the Laplacian score, ``adjusted`` that of
each gene's residual after its D-weighted regression on the log number of detected genes
(every term a sparse product). Graphs: ``preset``, ``regress`` and ``pcsN`` (the first N
components only).

Measured 2026-11-28 (seed 0; precision of the top 500, noise genes in it and how many of them
are graph genes; the correlation of a cell's log detected genes with its neighbours' mean):

| cells | graph, score | precision | false positives (graph genes) | depth corr. |
|---|---|---|---|---|
| 10^4 | preset, plain | 0.766 | 117 (64) | 0.27 |
| 10^4 | preset, adjusted | 0.762 | | 0.27 |
| 10^4 | regress, plain | 0.766 | | 0.06 |
| 10^4 | pcs20 / pcs10, plain | 0.748 / 0.642 | 126 (29) / 179 (22) | |
| 10^5 | preset, plain / adjusted | 0.942 / 0.948 | 29 (25) / 26 (22) | 0.38 |
| 10^5 | regress, plain | 0.942 | 29 (25) | 0.27 |
| 10^6 | preset, plain / adjusted | 0.920 / 0.924 | 40 (40) / 38 (38) | 0.55 |

Depth is not what bounds the precision: the graph follows it more with more cells, but
taking it out of the graph or of the scores moves the precision by at most 0.006. What
bounds it at 10^5 and 10^6 is the graph's own genes: every noise gene in the top 500 at 10^6
is one of the 2,000 the graph was built from (they shape the components, so the graph is
smooth in them); ``speed/singlecell_crossfit.py`` scores them on graphs they did not shape.
"""

import json
import sys
import time
import warnings

import numpy as np


def load(path):
    """``(X, is_marker, columns, counts_mean)`` of a synthetic ``.h5ad``: the log of the
    normalised counts of the genes seen in 3 cells or more, which of them are planted markers,
    the preset's graph genes (:func:`fsclust.counts.graph_genes`) and each gene's mean count.
    As :func:`fsclust.pp.rank_genes` does it, one copy of the counts at a time (10^6 cells:
    7.5 GB)."""
    from fsclust.counts import cells_per_gene, graph_genes, normalize_log1p, read_counts
    from fsclust.pp import SINGLE_CELL_PARAMS

    adata = read_counts(path)
    markers = np.flatnonzero(adata.var["marker_of"].astype(str).to_numpy() != "none")
    counts = adata.X
    del adata
    kept = np.flatnonzero(cells_per_gene(counts, positive=True) >= 3)
    if kept.size < counts.shape[1]:
        counts = counts[:, kept]
    counts_mean = np.asarray(counts.sum(axis=0)).ravel() / counts.shape[0]
    params, _, _ = graph_genes(counts, dict(SINGLE_CELL_PARAMS), random_state=0)
    X = normalize_log1p(counts)
    return X, np.isin(kept, markers), np.asarray(params["graph_features"]), counts_mean


def main(path, graphs=("preset", "regress"), n_neighbors=15):
    warnings.simplefilter("ignore")
    import scipy.sparse as sp

    from fsclust.graphs import graph_quadratic_forms, kneighbors_at_scale, pca_embedding

    X, is_marker, columns, counts_mean = load(path)
    markers = np.flatnonzero(is_marker)  # only their number is used below
    detected = np.log(np.diff(X.indptr).astype(float))
    E, _ = pca_embedding(X, n_components=50, features=columns, random_state=0)
    z = detected - detected.mean()
    for name in graphs:
        start = time.perf_counter()
        if name == "regress":
            # least squares of each component on [1, log detected]; E's columns are centred
            G = E - np.outer(z, z @ E) / (z @ z)
        elif name.startswith("pcs"):
            G = E[:, :int(name[3:])]  # the first components only
        else:
            G = E
        r2 = (z @ G) ** 2 / ((z @ z) * np.einsum("ij,ij->j", G, G))
        indices, _ = kneighbors_at_scale(G, n_neighbors, random_state=0)
        n, k = indices.shape
        A = sp.csr_matrix((np.ones(n * k), indices.ravel(), np.arange(0, n * k + 1, k)),
                          shape=(n, n))
        W = sp.csr_matrix(A.maximum(A.T))
        W.setdiag(0.0)
        W.eliminate_zeros()
        neighbour_depth = np.asarray(W @ detected).ravel() / np.asarray(W.sum(1)).ravel()
        d, dX, fDf, fLf = graph_quadratic_forms(X, W)
        plain = fLf / (fDf - dX**2 / d.sum())
        # the score of each gene's residual after its D-weighted least squares on
        # [1, log detected genes]: r = f - mean - b z~ with z~ the D-centred covariate,
        # r^T L r = f^T L f - 2 b f^T L z~ + b^2 z~^T L z~, r^T D r = f^T D f - (d^T f)^2 /
        # 1^T d - b^2 z~^T D z~, b = f^T D z~ / z~^T D z~: a sparse product per term
        zt = detected - (d @ detected) / d.sum()
        Lz = d * zt - np.asarray(W @ zt).ravel()
        zDz, zLz = float(zt @ (d * zt)), float(zt @ Lz)
        b = np.asarray(X.T @ (d * zt)).ravel() / zDz
        fLz = np.asarray(X.T @ Lz).ravel()
        adjusted = ((fLf - 2 * b * fLz + b**2 * zLz)
                    / (fDf - dX**2 / d.sum() - b**2 * zDz))
        for score_name, scores in (("plain", plain), ("adjusted", adjusted)):
            scores = np.where(np.isfinite(scores), scores, np.inf)
            order = np.argsort(scores, kind="stable")
            top = order[:markers.size]
            false = top[~is_marker[top]]
            print(json.dumps({
                "false_positives_among_graph_genes": int(np.isin(false, columns).sum()),
                "false_positives": int(false.size),
                "graph": name, "score": score_name, "n_cells": n,
                "precision": float(is_marker[top].mean()),
                "pc_r2_max": round(float(r2.max()), 4), "pc_r2_sum": round(float(r2.sum()), 4),
                "depth_neighbour_corr": round(float(np.corrcoef(detected,
                                                                neighbour_depth)[0, 1]), 4),
                "false_positive_mean_count_median": (
                    round(float(np.median(counts_mean[false])), 4) if false.size else None),
                "noise_mean_count_median": round(float(np.median(counts_mean[~is_marker])),
                                                 4),
                "seconds": round(time.perf_counter() - start, 1)}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], *(sys.argv[2].split(","),) if len(sys.argv) > 2 else (),
         *map(int, sys.argv[3:4]))
