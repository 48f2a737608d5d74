"""Time and peak memory of the kernel feature weighting, cached versus blocked kernels.

Usage: python speed/bench_kernel_weighting.py [--repeats 3]

Shapes are those of Zeng & Cheung's data sets (PIE C27 5 subjects 105 x 1280, ST.LEUKEMIA
248 x 985, the MULTITISSUE substitute 102 x 5565) on random data with 4 planted clusters. Peak
memory is numpy's allocations as seen by tracemalloc.
"""

import argparse
import time
import tracemalloc

import numpy as np

from fsclust.rankers.kernel_weighting import KernelWeightingClustering

SHAPES = {"PIEC27_5p": (105, 1280), "ST.LEUKEMIA": (248, 985), "MULTITISSUE-sub": (102, 5565)}


def data(n, d, c=4, seed=0):
    rng = np.random.RandomState(seed)
    y = rng.randint(c, size=n)
    X = rng.randn(n, d)
    X[:, : d // 20] += 2.0 * y[:, None]
    return X


def run(X, memory_limit, repeats):
    times = []
    for _ in range(repeats):
        tracemalloc.start()
        start = time.perf_counter()
        model = KernelWeightingClustering(n_clusters=4, memory_limit=memory_limit,
                                          random_state=0).fit(X)
        times.append(time.perf_counter() - start)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return min(times), peak, model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print("shape\tmode\tmemory_limit_MB\tkernels_MB\tseconds\tpeak_MB\tn_iter\tmax_abs_dw")
    for name, (n, d) in SHAPES.items():
        X = data(n, d)
        kernels_mb = 8 * n * n * d / 2**20
        ref = None
        for mode, limit in (("cached", 2**31), ("blocked", 64 * 2**20), ("blocked", 16 * 2**20)):
            seconds, peak, model = run(X, limit, args.repeats)
            ref = model.weights_ if ref is None else ref
            print(f"{name} {n}x{d}\t{mode}\t{limit / 2**20:.0f}\t{kernels_mb:.0f}\t{seconds:.2f}\t"
                  f"{peak / 2**20:.0f}\t{model.n_iter_}\t{np.abs(model.weights_ - ref).max():.1e}")


if __name__ == "__main__":
    main()
