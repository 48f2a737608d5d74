"""Time run_sweep with the squared distances accumulated across m (reuse) against the plain path.

Usage: python speed/bench_sweep_reuse.py [--repeats 3] [--mirror DIR] [--out TSV]

Data: the full PIE C27 Haar features (1428 x 1280, 68 classes) and two gene sets
(monti-st-leukemia 248 x 985, su-2002-multitissue 102 x 5565), prepared from the raw files of
the offline mirror (``$FSCLUST_MIRROR``, else ``../shared/data`` beside the checkout) with the
catalog's recipes. Each set is swept over the zeng2008 grid (values above d dropped, d
appended) along a random ranking with a fixed seed, with Zeng & Cheung's Ncut (t_rule zeng2008,
offset 0) and with kernel k-means (sigma 1, scale zscore-sqrt-d, n_init 10), one clusterer per
run_sweep call.

Reports, with one BLAS thread, the median over the repeats of the whole run_sweep and of its
parts: squared distances (every call of ``squared_distances``, the accumulation's blocks
included), the eigensolver (Ncut) or the kernel k-means iterations, and the rest (kernel
exponentials, bandwidth rule, discretisation, copies, scoring). It also compares the partitions
of the two paths at every m: identical labels, and the same partition up to renumbering
(ARI = 1); and, as a yardstick of round-off sensitivity, the plain path on X perturbed by a
relative noise of 1e-15 against the plain path. Writes ``speed/results/sweep_reuse.tsv``.
"""

import argparse
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

import fsclust.cluster.affinity  # noqa: E402
import fsclust.cluster.kernel_kmeans  # noqa: E402
import fsclust.cluster.ncut  # noqa: E402
import fsclust.cluster.spectral  # noqa: E402
import fsclust.steps.sweep  # noqa: E402
from fsclust.datasets import load_catalog, prepare  # noqa: E402
from fsclust.metrics import adjusted_rand  # noqa: E402
from fsclust.steps.sweep import resolve_grid, run_sweep  # noqa: E402

# the undecorated function, for the untimed perturbation check (Timers wraps the module's)
sweep_labels = fsclust.steps.sweep.sweep_labels

DATASETS = ("pie-c27", "monti-st-leukemia", "su-2002-multitissue")
ZENG2008_GRID = [10, 20, 30, 40, 50, 75, 100, 150, 200, 300, 400, 500, 600, 700, 800, 900,
                 1000, 1250, 1500, 2000, 3000, 4000, 5000]
CLUSTERERS = {
    "ncut": {"method": "ncut", "params": {"t_rule": "zeng2008", "offset": 0.0}},
    "kernel_kmeans": {"method": "kernel_kmeans",
                      "params": {"sigma": 1.0, "scale": "zscore-sqrt-d", "n_init": 10}},
}
RANKING_SEED = 0
CLUSTERER_SEED = 0

# (module, function name, part of the sweep it is counted in)
TIMED = [
    (fsclust.steps.sweep, "squared_distances", "distances"),
    (fsclust.cluster.affinity, "squared_distances", "distances"),
    (fsclust.cluster.kernel_kmeans, "squared_distances", "distances"),
    (fsclust.cluster.ncut, "largest_eigenvectors", "eigensolver"),
    (fsclust.cluster.spectral, "smallest_eigenvectors", "eigensolver"),
    (fsclust.cluster.kernel_kmeans, "kernel_kmeans", "kkm_iterations"),
]


class Timers:
    """Wrap the functions of TIMED so each call adds its wall time to its part."""

    def __init__(self):
        self.seconds = defaultdict(float)
        self.labels = None
        for module, name, part in TIMED:
            setattr(module, name, self._timed(getattr(module, name), part))
        # keep the partitions run_sweep scored, to compare the two paths without refitting
        original = fsclust.steps.sweep.sweep_labels

        def keep(*args, **kwargs):
            self.labels = original(*args, **kwargs)
            return self.labels
        fsclust.steps.sweep.sweep_labels = keep

    def _timed(self, fn, part):
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[part] += time.perf_counter() - start
        return wrapper

    def reset(self):
        self.seconds.clear()
        self.labels = None


def load(dataset, mirror):
    entry = load_catalog(REPO / "config" / "datasets.tsv")[dataset]
    return prepare(entry, [str(mirror / f) for f in entry.files])


def bench(ds, dataset, key, repeats, timers):
    X, y = ds.X, ds.y
    d = X.shape[1]
    grid = resolve_grid(ZENG2008_GRID, d)
    ranking = np.random.default_rng(RANKING_SEED).permutation(d)
    spec = {key: CLUSTERERS[key]}
    rows, labels = [], {}
    for reuse in (False, True):
        runs = []
        for _ in range(repeats):
            timers.reset()
            start = time.perf_counter()
            run_sweep(X, y, ranking, grid, spec, n_clusters=ds.n_classes,
                      random_states={key: CLUSTERER_SEED}, reuse_distances=reuse)
            total = time.perf_counter() - start
            parts = {part: timers.seconds[part]
                     for part in ("distances", "eigensolver", "kkm_iterations")}
            parts["other"] = total - sum(parts.values())
            runs.append({"total": total, **parts})
            labels[reuse] = timers.labels
        med = pd.DataFrame(runs).median()
        rows.append({"dataset": dataset, "n_samples": X.shape[0], "n_features": d,
                     "n_clusters": ds.n_classes, "clusterer": key, "n_points": len(grid),
                     "path": "reuse" if reuse else "plain", "repeats": repeats,
                     **{f"{k}_s": round(float(v), 3) for k, v in med.items()}})
    plain, reuse = labels[False], labels[True]
    differ_labels = [m for m in grid if not np.array_equal(plain[key, m], reuse[key, m])]
    differ_partition = [m for m in grid if adjusted_rand(plain[key, m], reuse[key, m]) < 1.0]
    # How much round-off alone moves the plain path: X perturbed by 1e-15 relative noise.
    noise = np.random.default_rng(1).standard_normal(X.shape)
    perturbed = sweep_labels(X * (1.0 + 1e-15 * noise), ranking, grid, spec,
                             n_clusters=ds.n_classes, random_states={key: CLUSTERER_SEED},
                             reuse_distances=False)
    differ_perturbed = [m for m in grid if adjusted_rand(plain[key, m], perturbed[key, m]) < 1.0]
    for row in rows:
        row["m_partition_differs_perturbed_x"] = len(differ_perturbed)
        row["speedup"] = round(rows[0]["total_s"] / rows[1]["total_s"], 2)
        row["m_labels_differ"] = len(differ_labels)
        row["m_partition_differs"] = len(differ_partition)
        row["m_where_partition_differs"] = ",".join(map(str, differ_partition)) or "-"
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--mirror", type=Path, default=Path(
        os.environ.get("FSCLUST_MIRROR", REPO.parent / "shared" / "data")))
    parser.add_argument("--out", type=Path,
                        default=REPO / "speed" / "results" / "sweep_reuse.tsv")
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    args = parser.parse_args()
    timers = Timers()
    rows = []
    with threadpool_limits(limits=1):
        for dataset in args.datasets:
            ds = load(dataset, args.mirror)
            for key in CLUSTERERS:
                new = bench(ds, dataset, key, args.repeats, timers)
                for row in new:
                    print(f"{dataset} {row['n_samples']}x{row['n_features']} {key:13s} "
                          f"{row['path']:5s} {row['n_points']} points: "
                          f"total {row['total_s']:.2f} s = distances {row['distances_s']:.2f} "
                          f"+ eigensolver "
                          f"{row['eigensolver_s']:.2f} + kernel k-means "
                          f"{row['kkm_iterations_s']:.2f} + other {row['other_s']:.2f}",
                          flush=True)
                print(f"  speedup {new[0]['speedup']:.2f}x; reuse vs plain: m with different "
                      f"labels {new[0]['m_labels_differ']}, with a different partition "
                      f"{new[0]['m_partition_differs']} ({new[0]['m_where_partition_differs']});"
                      f" plain on X * (1 + 1e-15 noise) vs plain: different partition at "
                      f"{new[0]['m_partition_differs_perturbed_x']} m", flush=True)
                rows.extend(new)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(args.out, sep="\t", index=False)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
