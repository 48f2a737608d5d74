"""Speed and memory of EVSFSC (Jiang & Ren 2011) on the widest mirrored sets.

Run: python speed/bench_evsfsc.py   (prepared data in data/prepared/; prints a table and
writes results/speed/evsfsc.tsv; no assertion: speed is shown here, never by a unit test)

Each case fits ``EVSFSC(n_clusters=c, laplacian=...)`` on all features, 2 BLAS threads, median
of 5 runs, in a fresh process per dataset for the peak memory (``ru_maxrss``). The cost model
(spec methods-seed 4.4): one full symmetric eigendecomposition of the n x n Laplacian (about
9 n^3 flops with eigenvectors, LAPACK syevd), and per scored eigenvector four (n, n) @ (n, d)
products (S X, S (q X), Q^T U, Q E; two more once for S X and S X^2): 2 (4 c + 2) n^2 d flops.
"""
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

CASES = ["skfeature-orlraws10p", "skfeature-pixraw10p", "skfeature-tox-171",
         "skfeature-warppie10p"]
LAPLACIANS = ["unnormalized", "rw", "sym"]
OUT = Path("results/speed/evsfsc.tsv")


def one(dataset):
    """Child process: time every Laplacian on one dataset, report JSON on stdout."""
    from threadpoolctl import threadpool_limits

    from fsclust.datasets import load_dataset
    from fsclust.rankers.evsfsc import EVSFSC

    ds = load_dataset(f"data/prepared/{dataset}.npz")
    n, d = ds.X.shape
    c = ds.n_classes
    rows = []
    with threadpool_limits(2):
        for lap in LAPLACIANS:
            times = []
            for _ in range(5):
                start = time.perf_counter()
                EVSFSC(n_clusters=c, laplacian=lap).fit(ds.X)
                times.append(time.perf_counter() - start)
            rows.append({"dataset": dataset, "n": n, "d": d, "c": c, "laplacian": lap,
                         "median_s": float(np.median(times)), "min_s": min(times),
                         "max_s": max(times)})
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MB on Linux
    for row in rows:
        row["peak_mb_process"] = round(peak, 1)
        row["eigen_gflop"] = 9 * n**3 / 1e9
        row["products_gflop"] = 2 * (4 * c + 2) * n**2 * d / 1e9
    print(json.dumps(rows))


if __name__ == "__main__":
    if len(sys.argv) > 1:
        one(sys.argv[1])
        sys.exit()
    rows = []
    for dataset in CASES:
        if not Path(f"data/prepared/{dataset}.npz").exists():
            print(f"missing data/prepared/{dataset}.npz: snakemake --cores 2 "
                  f"data/prepared/{dataset}.npz --config mirror=../shared/data")
            continue
        out = subprocess.run([sys.executable, __file__, dataset], capture_output=True,
                             text=True, check=True)
        rows.extend(json.loads(out.stdout.strip().splitlines()[-1]))
    header = ["dataset", "n", "d", "c", "laplacian", "median_s", "min_s", "max_s",
              "peak_mb_process", "eigen_gflop", "products_gflop"]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    lines = ["\t".join(header)] + ["\t".join(f"{r[h]:.4g}" if isinstance(r[h], float)
                                             else str(r[h]) for h in header) for r in rows]
    OUT.write_text("\n".join(lines) + "\n")
    print("| data (n x d, c) | Laplacian | s, median [min, max] of 5 | peak MB (process) | "
          "GFLOP: eigen / products | GFLOP/s |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        total = r["eigen_gflop"] + r["products_gflop"]
        print(f"| {r['dataset']} ({r['n']} x {r['d']}, {r['c']}) | {r['laplacian']} | "
              f"{r['median_s']:.3f} [{r['min_s']:.3f}, {r['max_s']:.3f}] | "
              f"{r['peak_mb_process']:.0f} | {r['eigen_gflop']:.3f} / "
              f"{r['products_gflop']:.2f} | {total / r['median_s']:.1f} |")
    print(f"wrote {OUT}")
