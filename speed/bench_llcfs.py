"""Speed of LLC-fs (Zeng & Cheung 2009) at 50 iterations, k = 30, against FSASL under Octave.

Usage: python speed/bench_llcfs.py [--repeats 3] [--datasets ID ...] [--out TSV]

Reference (our issue): FSASL's ``fs_unsup_llcfs`` under GNU Octave, 2-core machine, 50
iterations, k = 30: 4.4 s on a 40 x 1203 gene set, 18.2 s on SRBCT (83 x 2308), 615 s on USPS
4 vs 9 (1673 x 256). Targets (10 times faster): USPS 4 vs 9 under 60 s and SRBCT under 2 s on 2
cores; the 40 x 1203 set (here a synthetic N(0, 1) matrix, seed 0, standing in for the gene set
FSASL ships) under 0.44 s.

Each case fits ``LLCFS(n_clusters=c, n_neighbors=30, lam=1.0, neighborhood="mutual",
max_iter=50, tol=None, random_state=0)`` on the prepared data (``data/prepared/<id>.npz``):
``tol=None`` is FSASL's fixed-iteration rule, so 50 iterations run unless the degenerate-trace stop
fires (``n_iter`` is reported either way, with the last trace and the number of graph
components). Two BLAS threads (``threadpoolctl``), plus a one-thread row for USPS 4 vs 9; each
fit is repeated (default 3) and the wall time of the whole ``fit`` (including the final k-means
discretisation) is reported as median [min, max].

Per iteration, the stages the model records in ``timings_`` (mean over the iterations, of the
repeat with the median wall time; the median over the iterations too): ``neighbours`` (Gram
product ``X diag(tau) X^T``, distances, mutual kNN), ``local_solves`` (batched inverses of the
neighbourhood blocks), ``eigenproblem`` (``T`` and the dense ``eigh`` subset) and
``tau_step``; their share of the wall time; and a flop count per stage from n, d, c and the
actual neighbourhood sizes ``s_i`` (recorded per iteration):

* neighbours: the Gram product, ``2 n^2 d`` (distances and kNN are O(n^2) without flops that
  BLAS could run);
* local_solves: ``numpy.linalg.inv`` of each ``s x s`` block is an LU plus ``s`` right-hand
  sides, ``(8/3) s^3``, summed over the samples (bound ``(8/3) n k^3``);
* eigenproblem: LAPACK ``syevr`` on a subset, dominated by the tridiagonal reduction,
  ``(4/3) n^3``;
* tau_step: ``c`` sparse products ``Bc X``, ``2 c d sum_i s_i`` (bound ``2 c n k d``).

The achieved GFLOP/s of every stage is printed; the dominant stage is the one with the most
time. A separate micro-measurement at uniform tau (min of 3, outside the model) splits the
neighbours stage into the Gram product and the O(n^2) distance/kNN work.

Each case also records the 1-minute load average and how many cores other processes kept busy
meanwhile (``/proc/stat`` minus this process's CPU time): with 2 BLAS threads on 2 cores, one
core busy elsewhere stalls every multithreaded BLAS/LAPACK call (measured on USPS 4 vs 9: eigh
0.15 s quiet, 0.8-2.9 s per iteration loaded), so read the 2-thread rows with that column. No
assertion: the script prints a table and writes ``results/speed/llcfs.tsv``.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_info, threadpool_limits

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

import fsclust.rankers.llcfs as llcfs_module  # noqa: E402
from fsclust.cluster.llc import gram_distances, neighborhoods  # noqa: E402
from fsclust.datasets import load_dataset  # noqa: E402
from fsclust.rankers.llcfs import STAGES, LLCFS  # noqa: E402

K = 30
LAM = 1.0
MAX_ITER = 50
SYNTHETIC = "synthetic-40x1203"
# (dataset id, BLAS threads); the data sets of the issue first
CASES = [
    (SYNTHETIC, 2),
    ("srbct-khan", 2),
    ("usps-4v9", 2),
    ("usps-4v9", 1),
    ("colon-alon", 2),
    ("usps-0v8", 2),
]
# FSASL fs_unsup_llcfs under GNU Octave, 2 cores, 50 iterations, k = 30 (our issue)
FSASL_SECONDS = {SYNTHETIC: 4.4, "srbct-khan": 18.2, "usps-4v9": 615.0}
# targets on 2 cores: the two, and ten times faster than FSASL for the 40 x 1203 set
TARGET_SECONDS = {SYNTHETIC: 0.44, "srbct-khan": 2.0, "usps-4v9": 60.0}
MAKE = "snakemake --cores 2 data/prepared/{id}.npz --config mirror=../shared/data"


class SizeRecorder:
    """Wrap ``neighborhoods`` as the LLC-fs module sees it: keep each iteration's sizes."""

    def __init__(self):
        self.sizes = []
        self._original = llcfs_module.neighborhoods

        def recorded(*args, **kwargs):
            N = self._original(*args, **kwargs)
            self.sizes.append(np.diff(N.indptr))
            return N
        llcfs_module.neighborhoods = recorded

    def reset(self):
        self.sizes = []


def cpu_seconds():
    """``(busy seconds of the whole machine, CPU seconds of this process)``; the machine's from
    ``/proc/stat`` (NaN where there is none), to see how much other jobs ran meanwhile."""
    own = sum(os.times()[:2])
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return float("nan"), own
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK"), own


def load(dataset):
    """``(X, c)`` of a case, or None (with the command that makes it) if the file is missing."""
    if dataset == SYNTHETIC:
        return np.random.default_rng(0).standard_normal((40, 1203)), 2
    path = REPO / "data" / "prepared" / f"{dataset}.npz"
    if not path.exists():
        print(f"{dataset}: {path.relative_to(REPO)} is missing; make it with\n"
              f"  {MAKE.format(id=dataset)}", flush=True)
        return None
    ds = load_dataset(path)
    return ds.X, ds.n_classes


def stage_flops(n, d, c, sizes):
    """Flops of one iteration per stage, from the neighbourhood sizes of that iteration."""
    s = sizes.astype(np.float64)
    return {
        "neighbours": 2.0 * n * n * d,
        "local_solves": 8.0 / 3.0 * float(np.sum(s**3)),
        "eigenproblem": 4.0 / 3.0 * n**3,
        "tau_step": 2.0 * c * d * float(np.sum(s)),
    }


def neighbours_split(X, repeats=3):
    """Min seconds of the Gram product and of the distance + mutual-kNN part at uniform tau."""
    tau = np.full(X.shape[1], 1.0 / X.shape[1])
    gram_s, knn_s = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        gram = (X * tau) @ X.T
        t1 = time.perf_counter()
        gram = (gram + gram.T) / 2.0
        neighborhoods(gram_distances(gram), K, "mutual")
        t2 = time.perf_counter()
        gram_s.append(t1 - t0)
        knn_s.append(t2 - t1)
    return min(gram_s), min(knn_s)


def bench(dataset, X, c, threads, repeats, recorder):
    n, d = X.shape
    load_before = os.getloadavg()[0]
    busy0, own0, t0 = *cpu_seconds(), time.perf_counter()
    walls, per_stage, per_stage_med, n_iters, flops_runs, sizes_runs = [], [], [], [], [], []
    with threadpool_limits(limits=threads):
        for _ in range(repeats):
            recorder.reset()
            model = LLCFS(n_clusters=c, n_neighbors=K, lam=LAM, neighborhood="mutual",
                          max_iter=MAX_ITER, tol=None, random_state=0)
            start = time.perf_counter()
            model.fit(X)
            walls.append(time.perf_counter() - start)
            n_iters.append(model.n_iter_)
            per_stage.append({st: float(np.mean(model.timings_[st])) for st in STAGES})
            per_stage_med.append({st: float(np.median(model.timings_[st])) for st in STAGES})
            its = [stage_flops(n, d, c, s) for s in recorder.sizes]
            flops_runs.append({st: float(np.mean([f[st] for f in its])) for st in STAGES})
            sizes_runs.append(float(np.mean([s.mean() for s in recorder.sizes])))
            isolated_last = model.isolated_history_[-1]
            components_last = model.components_history_[-1]
            trace_last = model.objective_history_[-1]
        gram_s, knn_s = neighbours_split(X)
    busy1, own1, t1 = *cpu_seconds(), time.perf_counter()
    # cores (on average) that other processes kept busy while this case ran
    others_cores = max(0.0, (busy1 - busy0) - (own1 - own0)) / (t1 - t0)
    wall = statistics.median(walls)
    # the stage split of the repeat with the median wall time, so the shares add up
    mid = sorted(range(repeats), key=walls.__getitem__)[(repeats - 1) // 2]
    n_iter = n_iters[mid]
    stage_s, stage_med = per_stage[mid], per_stage_med[mid]
    flops = flops_runs[0]  # deterministic: the same in every repeat
    row = {
        "dataset": dataset, "n": n, "d": d, "c": c, "k": K, "lam": LAM, "threads": threads,
        "repeats": repeats, "n_iter": n_iter, "n_iter_all_50": all(i == MAX_ITER for i in n_iters),
        "wall_median_s": wall, "wall_min_s": min(walls), "wall_max_s": max(walls),
        "mean_neighbourhood_size": sizes_runs[0], "isolated_last_iter": isolated_last,
        "components_last_iter": components_last, "trace_last_iter": trace_last,
        "load_avg_1min_before": load_before, "load_avg_1min_after": os.getloadavg()[0],
        "other_jobs_cores": others_cores,
    }
    for st in STAGES:
        row[f"{st}_s_per_iter"] = stage_s[st]
    for st in STAGES:
        # the median over the iterations: a stage hit by another job's time slice stands out
        row[f"{st}_s_per_iter_median"] = stage_med[st]
    for st in STAGES:
        row[f"{st}_share"] = stage_s[st] * n_iter / wall
    row["other_share"] = 1.0 - sum(row[f"{st}_share"] for st in STAGES)
    for st in STAGES:
        row[f"{st}_gflop_per_iter"] = flops[st] / 1e9
        row[f"{st}_gflops"] = flops[st] / stage_s[st] / 1e9 if stage_s[st] > 0 else float("nan")
    dominant = max(STAGES, key=stage_s.get)
    row["dominant_stage"] = dominant
    row["dominant_gflops"] = row[f"{dominant}_gflops"]
    row["gram_product_s"] = gram_s
    row["dist_mutual_knn_s"] = knn_s
    fsasl = FSASL_SECONDS.get(dataset)
    row["fsasl_octave_s"] = fsasl if fsasl is not None else float("nan")
    row["speedup_vs_fsasl"] = fsasl / wall if fsasl is not None else float("nan")
    target = TARGET_SECONDS.get(dataset) if threads == 2 else None
    row["target_s"] = target if target is not None else float("nan")
    row["target_met"] = ("yes" if wall < target else "NO") if target is not None else "-"
    return row


def report(row):
    stages = " + ".join(f"{st} {row[f'{st}_s_per_iter'] * 1e3:.1f} ms "
                        f"({100 * row[f'{st}_share']:.0f}%, {row[f'{st}_gflops']:.1f} GFLOP/s)"
                        for st in STAGES)
    print(f"{row['dataset']} {row['n']}x{row['d']} c={row['c']} threads={row['threads']}: "
          f"{row['n_iter']} iterations (all repeats 50: {row['n_iter_all_50']}), wall "
          f"{row['wall_median_s']:.2f} s [{row['wall_min_s']:.2f}, {row['wall_max_s']:.2f}]; "
          f"load average {row['load_avg_1min_before']:.2f} -> {row['load_avg_1min_after']:.2f}, "
          f"other jobs busy {row['other_jobs_cores']:.2f} cores",
          flush=True)
    print(f"  per iteration: {stages}; other {100 * row['other_share']:.0f}%", flush=True)
    medians = ", ".join(f"{st} {row[f'{st}_s_per_iter_median'] * 1e3:.1f}" for st in STAGES)
    print(f"  median over the iterations, ms: {medians}", flush=True)
    print(f"  mean |N_i| {row['mean_neighbourhood_size']:.1f}; at the last iteration "
          f"{row['isolated_last_iter']} isolated, {row['components_last_iter']} components, "
          f"trace {row['trace_last_iter']:.3g}; neighbours at uniform tau: Gram product "
          f"{row['gram_product_s'] * 1e3:.1f} ms, distances + mutual kNN "
          f"{row['dist_mutual_knn_s'] * 1e3:.1f} ms", flush=True)
    dom = row["dominant_stage"]
    print(f"  dominant: {dom}, {row[f'{dom}_gflop_per_iter']:.3g} GFLOP per iteration, "
          f"{row['dominant_gflops']:.1f} GFLOP/s", flush=True)
    if not np.isnan(row["fsasl_octave_s"]):
        target = (f"target {row['target_s']:.2f} s: {row['target_met']}"
                  if row["target_met"] != "-" else "no target at this thread count")
        print(f"  FSASL/Octave {row['fsasl_octave_s']:.1f} s: {row['speedup_vs_fsasl']:.0f}x "
              f"faster; {target}", flush=True)


def markdown(rows):
    head = ("| data (n x d, c) | threads | iters | wall s, median [min, max] | s/iter: "
            "neighbours / local solves / eigen / tau | shares % | dominant: GFLOP/iter, "
            "GFLOP/s | FSASL s (ratio) | target | other jobs, cores |")
    lines = [head, "|" + "---|" * 10]
    for r in rows:
        per = " / ".join(f"{r[f'{st}_s_per_iter']:.4f}" for st in STAGES)
        share = " / ".join(f"{100 * r[f'{st}_share']:.0f}" for st in STAGES)
        dom = r["dominant_stage"]
        fsasl = ("-" if np.isnan(r["fsasl_octave_s"])
                 else f"{r['fsasl_octave_s']:g} ({r['speedup_vs_fsasl']:.0f}x)")
        target = "-" if r["target_met"] == "-" else f"< {r['target_s']:g} s: {r['target_met']}"
        lines.append(
            f"| {r['dataset']} {r['n']} x {r['d']}, {r['c']} | {r['threads']} | {r['n_iter']} | "
            f"{r['wall_median_s']:.2f} [{r['wall_min_s']:.2f}, {r['wall_max_s']:.2f}] | {per} | "
            f"{share} (+{100 * r['other_share']:.0f}) | {dom}: {r[f'{dom}_gflop_per_iter']:.3g}, "
            f"{r['dominant_gflops']:.1f} | {fsasl} | {target} | {r['other_jobs_cores']:.2f} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--datasets", nargs="+", default=None,
                        help="subset of: " + ", ".join(dict.fromkeys(c for c, _ in CASES)))
    parser.add_argument("--out", type=Path,
                        default=REPO / "results" / "speed" / "llcfs.tsv")
    args = parser.parse_args()
    blas = sorted({f"{i['internal_api']} {i.get('version')} ({i.get('architecture')})"
                   for i in threadpool_info() if i["user_api"] == "blas"})
    print(f"BLAS: {', '.join(blas)}; LLC-fs k={K}, lam={LAM}, max_iter={MAX_ITER}, tol=None, "
          f"{args.repeats} repeats", flush=True)
    recorder = SizeRecorder()
    # warm-up (imports, first BLAS/LAPACK calls, k-means), not timed
    LLCFS(n_clusters=2, n_neighbors=5, max_iter=2, random_state=0).fit(
        np.random.default_rng(1).standard_normal((30, 8)))
    rows, data = [], {}
    for dataset, threads in CASES:
        if args.datasets is not None and dataset not in args.datasets:
            continue
        if dataset not in data:
            data[dataset] = load(dataset)
        if data[dataset] is None:
            continue
        X, c = data[dataset]
        row = bench(dataset, X, c, threads, args.repeats, recorder)
        report(row)
        rows.append(row)
    if not rows:
        return
    print()
    print(markdown(rows))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(args.out, sep="\t", index=False, float_format="%.6g")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
