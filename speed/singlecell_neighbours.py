"""The neighbour search of the PCA graph at single-cell scale (issue 39): which search, at
which size, from a fresh process (a user's run pays numba's compilation once per process).

    python speed/singlecell_neighbours.py [--cells 100000]

The embedding is the Laplacian score's (:data:`fsclust.pp.SINGLE_CELL_PARAMS`: 50 principal
components of the 2,000 genes of largest normalised dispersion of the log-normalised
synthetic counts of ``speed/singlecell_scale.py``), computed once and cached. Each search runs
in a new interpreter and reports its wall time (import included) and its recall of the exact
15 nearest neighbours (scikit-learn's brute-force search, the reference):

- ``pynndescent``: :func:`fsclust.graphs.kneighbors_at_scale` above its exact bound, as
  scanpy (seeded, one thread);
- ``sklearn-brute``: ``NearestNeighbors(algorithm="brute")`` on float32, both cores;
- ``hnswlib``: HNSW (Malkov & Yashunin 2018), one thread, seeded, when installed.

Writes ``results/speed/singlecell_neighbours.tsv``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
K = 15

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
method, path, out = sys.argv[1:4]
E = np.load(path)
k = %d
if method == "pynndescent":
    from fsclust.graphs import kneighbors_at_scale
    indices, _ = kneighbors_at_scale(E, k, method="pynndescent", random_state=0)
elif method == "sklearn-brute":
    from sklearn.neighbors import NearestNeighbors
    F = E.astype(np.float32)
    indices = NearestNeighbors(n_neighbors=k + 1, algorithm="brute", n_jobs=2).fit(F) \
        .kneighbors(F, return_distance=False)[:, 1:]
elif method == "hnswlib":
    import hnswlib
    F = E.astype(np.float32)
    index = hnswlib.Index(space="l2", dim=F.shape[1])
    index.init_index(max_elements=F.shape[0], ef_construction=200, M=16, random_seed=0)
    index.set_num_threads(1)
    index.add_items(F, np.arange(F.shape[0]))
    index.set_ef(100)
    indices = index.knn_query(F, k=k + 1)[0][:, 1:].astype(np.intp)
np.save(out, indices)
print(json.dumps({"seconds": time.perf_counter() - t0}))
""" % K


def _embedding(n_cells, folder):
    path = Path(folder) / f"embedding_{n_cells}.npy"
    if not path.exists():
        sys.path.insert(0, str(ROOT / "speed"))
        from singlecell_scale import _data

        from fsclust.counts import normalize_log1p, read_counts
        from fsclust.graphs import pca_embedding
        from fsclust.pp import SINGLE_CELL_PARAMS
        from fsclust.rankers.laplacian import graph_prefilter_features

        X = normalize_log1p(read_counts(_data(n_cells, 20_000, folder)).X)
        genes = graph_prefilter_features(X, SINGLE_CELL_PARAMS["graph_features"],
                                         SINGLE_CELL_PARAMS["graph_prefilter"])
        E, _ = pca_embedding(X[:, genes], SINGLE_CELL_PARAMS["n_pcs"], random_state=0)
        np.save(path, E)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=100_000)
    parser.add_argument("--methods", default="sklearn-brute,pynndescent,hnswlib")
    parser.add_argument("--data-dir", default=str(ROOT / "results/speed/singlecell_data"))
    args = parser.parse_args(argv)
    path = _embedding(args.cells, args.data_dir)
    rows, exact = [], None
    for method in args.methods.split(","):
        out = Path(args.data_dir) / f"neighbours_{method}_{args.cells}.npy"
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", CHILD, method, str(path), str(out)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            rows.append(f"{args.cells}\t{method}\tfailed\t\t"
                        f"{(proc.stderr.strip().splitlines() or ['?'])[-1][:120]}")
            print(rows[-1], flush=True)
            continue
        seconds = json.loads(proc.stdout.strip().splitlines()[-1])["seconds"]
        indices = np.load(out)
        if method == "sklearn-brute":
            exact = indices
        recall = "" if exact is None else f"{np.mean([np.isin(a, b).mean() for a, b in zip(indices, exact)]):.4f}"
        rows.append(f"{args.cells}\t{method}\t{seconds:.1f}\t{recall}\t"
                    f"wall {time.perf_counter() - start:.1f} s")
        print(rows[-1], flush=True)
    table = ROOT / "results/speed/singlecell_neighbours.tsv"
    table.parent.mkdir(parents=True, exist_ok=True)
    table.write_text("n_cells\tmethod\tseconds\trecall\tnote\n" + "\n".join(rows) + "\n",
                     encoding="utf-8")


if __name__ == "__main__":
    main()
