"""RUFS's ``beta="auto"``: the fraction of the weight that empties ``W`` (issue 40, item 3).

Usage: python speed/rufs_defaults.py [--planted-seeds 0 1 2] [--fractions 0.03 0.1 0.3]
           [--datasets skfeature-yale skfeature-orl skfeature-isolet skfeature-coil20]
           [--prepared DIR]

For each fraction ``f`` (:data:`fsclust.rankers.rufs.BETA_PER_MAX` set to ``f``) and for the
reference's ``beta = 1``: ``RUFS(n_clusters=K, random_state=seed)`` at its other defaults.
Scored with the labels, which choose nothing here:

* the planted suite (``speed/planted_suite.py``'s 12 cases, each seed): the share of the
  planted features among the top ``p``;
* the papers' image sets (prepared ``.npz``): k-means (``n_init=10``, ``random_state=0``) on
  the top m = 50, 100, 200, 300 features, ACC per m and the mean, as
  ``speed/ndfs_defaults.py`` scores NDFS.

No assertion: prints the tables. The run of 2026-11-29: docs/measurements.md, "RUFS's
weight".
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.cluster import KMeans  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "speed"))

from planted_suite import CASES, draw  # noqa: E402

from fsclust.datasets import load_dataset  # noqa: E402
from fsclust.metrics import clustering_accuracy  # noqa: E402
from fsclust.rankers import rufs  # noqa: E402


def fit(X, c, seed, variant):
    """The feature order of one RUFS fit: ``variant`` a fraction, or ``"beta=1"``."""
    if variant == "beta=1":
        return rufs.RUFS(n_clusters=c, beta=1.0, random_state=seed).fit(X).feature_order_
    default, rufs.BETA_PER_MAX = rufs.BETA_PER_MAX, float(variant)
    try:
        return rufs.RUFS(n_clusters=c, random_state=seed).fit(X).feature_order_
    finally:
        rufs.BETA_PER_MAX = default


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--planted-seeds", type=int, nargs="*", default=[0, 1, 2])
    parser.add_argument("--fractions", nargs="*", default=["0.03", "0.1", "0.3"])
    parser.add_argument("--datasets", nargs="*",
                        default=["skfeature-yale", "skfeature-orl", "skfeature-isolet",
                                 "skfeature-coil20"])
    parser.add_argument("--prepared", type=Path, default=REPO / "data" / "prepared")
    args = parser.parse_args()
    variants = ["beta=1", *args.fractions]

    shares = {v: [] for v in variants}
    if args.planted_seeds:
        print("planted suite: share of the planted features in the top p")
        print("case seed " + " ".join(variants))
    for case in CASES:
        for seed in args.planted_seeds:
            X, _, planted = draw(case, seed)
            p = int(planted.sum())
            for v in variants:
                shares[v].append(planted[fit(X, case.groups, seed, v)[:p]].mean())
            print(case.name, seed, " ".join(f"{shares[v][-1]:.2f}" for v in variants),
                  flush=True)
    if args.planted_seeds:
        print("mean", " ".join(f"{v} {np.mean(shares[v]):.3f}" for v in variants))

    means = {v: [] for v in variants}
    for dataset in args.datasets:
        data = load_dataset(args.prepared / f"{dataset}.npz")
        c = len(np.unique(data.y))
        for v in variants:
            start = time.perf_counter()
            order = fit(data.X, c, 0, v)
            accs = [clustering_accuracy(
                data.y, KMeans(c, n_init=10, random_state=0).fit_predict(data.X[:, order[:m]]))
                for m in (50, 100, 200, 300)]
            means[v].append(np.mean(accs))
            print(f"{dataset} {v}: ACC " + " ".join(f"{a:.3f}" for a in accs)
                  + f" mean {np.mean(accs):.3f} ({time.perf_counter() - start:.0f} s)",
                  flush=True)
    if args.datasets:
        print("mean ACC over the sets", " ".join(f"{v} {np.mean(means[v]):.3f}"
                                                 for v in variants))


if __name__ == "__main__":
    main()
