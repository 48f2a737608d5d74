"""A real single-cell set through fsclust: C. elegans neurons (Cao et al. 2017, 4,186 cells x
13,488 genes, 10 types; the mirror's ``singlecell/sc-cao2017-worm-neuron``, issue 39).

    python speed/singlecell_worm.py [--mirror ../shared/data] [--methods laplacian,...]

(a method may carry parameters: ``--methods "laplacian@n_neighbors=50"``, separated by ``;``
when there are several)

Writes ``results/speed/worm/worm.h5ad`` (the scDCC HDF5 file's raw counts as a sparse
``.h5ad``, the types in ``obs["type"]``), then for each method ranks every gene with
:func:`fsclust.pp.select_features` (the single-cell preset), keeps the top 2,000 and scores
k-means (K = 10, the number of types, 3 seeds) on 50 principal components of their
log-normalised counts by the adjusted Rand index with the types: the protocol of issue 39's
measurement (there: today's dense Laplacian score 0.325, scanpy ``seurat`` 0.299,
``seurat_v3`` 0.246, all genes 0.235, 2,000 random genes 0.091). The labels score the
selections, never choose them. Table: ``results/speed/worm/ari.tsv``. The same file runs
through the command line as

    fsclust select --input results/speed/worm/worm.h5ad --method laplacian --n-features 2000 \\
        --label-column type --output-dir results/speed/worm/select
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
METHODS = ("laplacian", "spec", "mcfs", "deviance", "hvg_seurat_v3", "hvg_seurat",
           "hvg_cell_ranger", "hvg_pearson_residuals", "variance", "random")


def write_h5ad(mirror, path):
    """The scDCC file (``X`` cells x genes raw counts, ``Y`` the types) as a sparse h5ad."""
    import anndata
    import h5py
    import pandas as pd
    import scipy.sparse as sp

    source = Path(mirror) / "singlecell/sc-cao2017-worm-neuron/worm_neuron_cell.h5"
    with h5py.File(source, "r") as handle:
        X = sp.csr_matrix(handle["X"][:].astype(np.float32))
        types = handle["Y"][:].astype(int).astype(str)
    adata = anndata.AnnData(
        X, obs=pd.DataFrame({"type": types}, index=[f"cell{i}" for i in range(X.shape[0])]),
        var=pd.DataFrame(index=[f"gene{j}" for j in range(X.shape[1])]))
    path.parent.mkdir(parents=True, exist_ok=True)
    adata.write_h5ad(path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", default=os.environ.get("FSCLUST_MIRROR",
                                                           str(ROOT.parent / "shared/data")))
    parser.add_argument("--methods", default=",".join(METHODS))
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    import pandas as pd
    from sklearn.cluster import KMeans
    from sklearn.metrics import adjusted_rand_score

    from fsclust import pp
    from fsclust.counts import normalize_log1p, read_counts
    from fsclust.graphs import pca_embedding

    out = ROOT / "results/speed/worm"
    path = out / "worm.h5ad"
    if not path.exists():
        write_h5ad(args.mirror, path)
    adata = read_counts(path)
    types = adata.obs["type"].to_numpy()
    logged = normalize_log1p(adata.X)
    rows = []
    methods = args.methods.split(";" if "@" in args.methods else ",")
    for method in [*methods, "all-genes"]:
        start = time.perf_counter()
        if method == "all-genes":
            selected = np.arange(adata.n_vars)
            embedding_of = logged
        else:
            # "name@key=value,...": the method with those parameters on top of its preset
            name, _, settings = method.partition("@")
            params = {key: int(value) if value.isdigit() else value for key, value in
                      (item.split("=", 1) for item in settings.split(",") if item)}
            frame = pp.select_features(adata, name, n_top_genes=2000, inplace=False,
                                       method_params=params or None)
            selected = np.flatnonzero(frame["fsclust_selected"].to_numpy())
            embedding_of = logged[:, selected]
        seconds = time.perf_counter() - start
        if selected.size <= 8192:
            E, _ = pca_embedding(embedding_of, 50)
        else:  # all 13,488 genes: beyond pca_embedding's covariance bound, scikit-learn's
            # sparse PCA (ARPACK with implicit centring)
            from sklearn.decomposition import PCA

            E = PCA(50, svd_solver="arpack", random_state=0).fit_transform(embedding_of)
        aris = [adjusted_rand_score(types, KMeans(10, n_init=10, random_state=seed)
                                    .fit_predict(E)) for seed in range(3)]
        rows.append({"method": method, "rank_s": round(seconds, 1),
                     "ari_mean": round(float(np.mean(aris)), 3),
                     "ari_seeds": " ".join(f"{a:.3f}" for a in aris)})
        print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    table.to_csv(out / "ari.tsv", sep="\t", index=False)
    print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
