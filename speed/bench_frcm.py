"""Time FRCM (T = 100, K_v = 20) on the prepared de Souto tomlins-2006 set (104 x 2315).

Usage: python speed/bench_frcm.py [dataset ...]   (default: desouto-tomlins-2006)

Reports the wall time of the whole fit and of its three stages (ensemble of T single-start
k-means, consensus matrix, blocked ARImm of all features), the median of 3 repeats, with one
BLAS/OpenMP thread. Needs data/prepared/<dataset>.npz (snakemake --cores 2 datasets).
"""

import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from fsclust.cluster.consensus import consensus_matrix, random_subspace_ensemble  # noqa: E402
from fsclust.datasets import load_dataset  # noqa: E402
from fsclust.rankers.frcm import FRCM, feature_arimm  # noqa: E402


def _timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def bench(dataset, repeats=3):
    X = load_dataset(REPO / "data" / "prepared" / f"{dataset}.npz").X
    rows = {"fit": [], "ensemble": [], "consensus": [], "arimm": []}
    for r in range(repeats):
        _, t = _timed(lambda: FRCM(n_partitions=100, max_clusters=20, random_state=r).fit(X))
        rows["fit"].append(t)
        (labels, _), t = _timed(lambda: random_subspace_ensemble(X, 100, random_state=r))
        rows["ensemble"].append(t)
        M, t = _timed(lambda: consensus_matrix(labels))
        rows["consensus"].append(t)
        _, t = _timed(lambda: feature_arimm(X, M))
        rows["arimm"].append(t)
    n, d = X.shape
    print(f"{dataset}: n={n} D={d}, T=100, K_v=20, median of {repeats} (s): "
          + ", ".join(f"{k} {np.median(v):.2f}" for k, v in rows.items()))


if __name__ == "__main__":
    with threadpool_limits(limits=1):
        for name in sys.argv[1:] or ["desouto-tomlins-2006"]:
            bench(name)
