"""NDFS's ``beta="auto"`` and intercept: the ablation behind its defaults (issue 40, item 3).

Usage: python speed/ndfs_defaults.py [--planted-seeds 0 1 2]
           [--datasets skfeature-yale skfeature-orl skfeature-isolet skfeature-coil20
                       skfeature-tox-171] [--prepared DIR] [--variants NAME ...]

Each variant is one NDFS fit from the same spectral start (the class's own steps:
:func:`~fsclust.rankers.ndfs.spectral_start`, :func:`~fsclust.rankers.ndfs.fit_ndfs`), with the
regression matrix and the l2,1 weight chosen as the variant says:

* ``reference``: ``X`` as given, ``beta = 1`` (FSASL, scikit-feature; ``REFERENCE_SETTINGS``);
* ``start-0.3``: ``X`` as given, 0.3 of ``2 max_j ||x_j^T F0||`` for the start ``F0`` with unit
  columns (the default from 2026-11-28 to 7de96bf);
* ``scaled-0.3``: ``X`` over the root mean square of its entries, 0.3 of the weight for the
  start's scaled cluster indicator ``G0`` (no intercept);
* ``centred-0.2``, ``centred-0.3``, ``centred-0.5``: the same on ``X`` centred (an intercept),
  with the fraction 0.2, 0.3 or 0.5; ``centred-0.3`` is ``NDFS()`` since 7de96bf, which the
  script checks (the same order as the class's fit, else it stops).

Scored with the labels, which choose nothing here:

* the planted suite (``speed/planted_suite.py``'s 12 cases): the share of the planted features
  among the top ``p`` (and the number of rows of ``W`` within 1e-3 of the largest);
* the papers' image sets and TOX-171 (prepared ``.npz``): k-means (``n_init=10``,
  ``random_state=0``) on the top m = 50, 100, 200, 300 features, ACC per m and the mean, as
  ``speed/peer_paper_experiments.py`` scores the peers.

No assertion but the check above: prints the tables (12 min on one BLAS thread beside two
other jobs). The run of 2026-11-29 and its tables:
docs/measurements.md, "NDFS's weight and intercept".
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
from fsclust.graphs import capped_n_neighbors, knn_graph, laplacian  # noqa: E402
from fsclust.metrics import clustering_accuracy  # noqa: E402
from fsclust.rankers._sparse_learning import l21_weight_max, row_norms_sq  # noqa: E402
from fsclust.rankers.ndfs import NDFS, fit_ndfs, scaled_indicator, spectral_start  # noqa: E402

#: name -> (centre X, scale X by its RMS entry, the reference of the weight, fraction or beta)
VARIANTS = {
    "reference": (False, False, None, 1.0),
    "start-0.3": (False, False, "start", 0.3),
    "scaled-0.3": (False, True, "indicator", 0.3),
    "centred-0.2": (True, True, "indicator", 0.2),
    "centred-0.3": (True, True, "indicator", 0.3),
    "centred-0.5": (True, True, "indicator", 0.5),
}


def fit_variant(X, c, seed, centre, scale, reference, value):
    """``(order, row norms)`` of one NDFS fit at the class's other defaults."""
    X = X[:, X.std(axis=0) > 0]
    rng = np.random.RandomState(seed)
    graph = knn_graph(X, n_neighbors=capped_n_neighbors(5, X.shape[0], "NDFS"))
    L, _ = laplacian(graph, "sym")
    F0 = spectral_start(L, c, rng)
    if centre:
        X = X - X.mean(axis=0)
    if scale:
        X = X / np.sqrt(np.mean(np.square(X)))
    if reference is None:
        beta = value
    elif reference == "start":
        beta = value * l21_weight_max(X, F0 / np.linalg.norm(F0, axis=0))
    else:
        beta = value * l21_weight_max(X, scaled_indicator(F0))
    _, W, _, _ = fit_ndfs(X, L, F0, 1.0, beta, 1e8, "paper", True, 300, 1e-8)
    norms = np.sqrt(row_norms_sq(W))
    return np.argsort(-norms, kind="stable"), norms


def active(norms):
    return int((norms > 1e-3 * norms.max()).sum())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--planted-seeds", type=int, nargs="*", default=[0, 1, 2])
    parser.add_argument("--datasets", nargs="*",
                        default=["skfeature-yale", "skfeature-orl", "skfeature-isolet",
                                 "skfeature-coil20", "skfeature-tox-171"])
    parser.add_argument("--prepared", type=Path, default=REPO / "data" / "prepared")
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS))
    args = parser.parse_args()
    names = args.variants

    shares = {name: [] for name in names}
    if args.planted_seeds:
        print("planted suite: share of the planted features in the top p (active rows)")
        print("case seed " + " ".join(names))
    for case in CASES:
        for seed in args.planted_seeds:
            X, _, planted = draw(case, seed)
            p = int(planted.sum())
            cells = []
            for name in names:
                order, norms = fit_variant(X, case.groups, seed, *VARIANTS[name])
                if name == "centred-0.3":
                    model = NDFS(n_clusters=case.groups, random_state=seed).fit(X)
                    if not np.array_equal(model.feature_order_, order):
                        sys.exit(f"centred-0.3 is not NDFS() on {case.name}, seed {seed}")
                shares[name].append(planted[order[:p]].mean())
                cells.append(f"{shares[name][-1]:.2f} ({active(norms)})")
            print(case.name, seed, " ".join(cells), flush=True)
    if args.planted_seeds:
        print("mean", " ".join(f"{name} {np.mean(shares[name]):.3f}" for name in names))

    means = {name: [] for name in names}
    for dataset in args.datasets:
        data = load_dataset(args.prepared / f"{dataset}.npz")
        c = len(np.unique(data.y))
        for name in names:
            start = time.perf_counter()
            order, norms = fit_variant(data.X, c, 0, *VARIANTS[name])
            accs = [clustering_accuracy(
                data.y, KMeans(c, n_init=10, random_state=0).fit_predict(data.X[:, order[:m]]))
                for m in (50, 100, 200, 300)]
            means[name].append(np.mean(accs))
            print(f"{dataset} {name}: ACC " + " ".join(f"{a:.3f}" for a in accs)
                  + f" mean {np.mean(accs):.3f}; active rows {active(norms)}, largest row norm"
                  f" {norms.max():.2g}, 50th {np.sort(norms)[::-1][49]:.2g}"
                  f" ({time.perf_counter() - start:.0f} s)", flush=True)
    if args.datasets:
        print("mean ACC over the sets", " ".join(f"{name} {np.mean(means[name]):.3f}"
                                                 for name in names))


if __name__ == "__main__":
    main()
