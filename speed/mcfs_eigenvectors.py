"""MCFS with K = c eigenvectors (Cai et al.'s, the default) against K = c - 1, on the papers'
image sets (issue 40, item 3).

Usage: python speed/mcfs_eigenvectors.py [--prepared DIR] [DATASET ...]

On the planted suite K = c - 1 is better (c groups span c - 1 non-trivial eigenvectors; the
c-th is noise whose active features enter the maximum; docs/measurements.md). This asks
whether that holds on the data Cai et al. used (COIL20, ORL, Isolet; Yale and TOX-171 too):
``MCFS(n_clusters=c, n_eigenvectors=K, n_nonzero_coefs=50, random_state=0)`` (the
experiments' call) for K = c and c - 1, then k-means (10 starts, seeds 0, 1, 2) on the top
m = 50, 100, 200, 300 features, ACC averaged over the seeds, per m and the mean over m. The
labels only score. One BLAS thread; about a minute. No assertion: prints the table. The run
of 2026-11-29: docs/measurements.md, "MCFS's number of eigenvectors".
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.cluster import KMeans  # noqa: E402

from fsclust.datasets import load_dataset  # noqa: E402
from fsclust.metrics import clustering_accuracy  # noqa: E402
from fsclust.rankers.mcfs import MCFS  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("datasets", nargs="*",
                        default=["skfeature-yale", "skfeature-orl", "skfeature-isolet",
                                 "skfeature-coil20", "skfeature-tox-171"])
    parser.add_argument("--prepared", type=Path, default=REPO / "data" / "prepared")
    args = parser.parse_args()
    for dataset in args.datasets:
        data = load_dataset(args.prepared / f"{dataset}.npz")
        c = len(np.unique(data.y))
        for K in (c, c - 1):
            start = time.perf_counter()
            order = MCFS(n_clusters=c, n_eigenvectors=K, n_nonzero_coefs=50,
                         random_state=0).fit(data.X).feature_order_
            accs = [np.mean([clustering_accuracy(data.y, KMeans(c, n_init=10, random_state=s)
                                                 .fit_predict(data.X[:, order[:m]]))
                             for s in (0, 1, 2)]) for m in (50, 100, 200, 300)]
            print(f"{dataset} K = {K}: ACC " + " ".join(f"{a:.3f}" for a in accs)
                  + f" mean {np.mean(accs):.3f} ({time.perf_counter() - start:.0f} s)",
                  flush=True)


if __name__ == "__main__":
    main()
