"""The measurements behind the rankers' size bounds (docs/measurements.md, "Size bounds of the
rankers"): for every ranker with a square array, the peak memory of a fit (tracemalloc, which
sees numpy's allocations) and its time at two sizes, in a fresh process each.

The peak is given as a number of float64 square arrays of the growing side (``peak / (8 s^2)``,
``s`` = n, d or min(n, d)) at ``n = d = s``; the time exponent is ``log2(t(2s) / t(s))``.
The bound each module declares is the largest round number at which that many arrays fit in
4 GiB (:func:`fsclust.rankers._bounds.round_down`), lower where the time extrapolated with the
exponent passes about 10 minutes.

Usage::

    python speed/size_bounds.py [--sizes 1000 2000] [--out results/speed/size_bounds.tsv]
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

#: name -> the side that grows (as tests/test_size_bounds.py's TABLE)
SIDES = {
    "frcm": "n", "consensus_correlation": "n", "kernel_weighting": "n", "kpkmeans": "n",
    "llcfs": "n", "evsfsc": "n", "rufs": "n", "udfs": "n", "ndfs": "n", "jelsr": "n",
    "sogfs": "n", "fsfs": "d", "inffs": "d", "pca": "min", "qalpha": "min", "uff": "min",
}

CHILD = r"""
import json, sys, time, tracemalloc
import numpy as np
from fsclust.registry import RANKERS, ranker_class
name, s = sys.argv[1], int(sys.argv[2])
rng = np.random.RandomState(0)
centres = 2.0 * rng.randn(4, s)
X = centres[rng.randint(0, 4, s)] + rng.randn(s, s)
ranker = ranker_class(name)(**RANKERS[name].defaults)
tracemalloc.start()
start = time.perf_counter()
ranker.fit(X)
seconds = time.perf_counter() - start
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
print(json.dumps({"seconds": seconds, "peak": peak}))
"""


def measure(name, size, timeout):
    try:
        out = subprocess.run([sys.executable, "-c", CHILD, name, str(size)], check=True,
                             capture_output=True, text=True, timeout=timeout).stdout
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=(1000, 2000))
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--out", type=Path, default=Path("results/speed/size_bounds.tsv"))
    parser.add_argument("names", nargs="*", default=list(SIDES))
    args = parser.parse_args(argv)
    small, large = args.sizes
    rows = ["method\tside\tsize_small\tsize_large\tseconds_small\tseconds_large\t"
            "time_exponent\tarrays_small\tarrays_large"]
    for name in args.names:
        a, b = measure(name, small, args.timeout), measure(name, large, args.timeout)
        if a is None or b is None:
            rows.append(f"{name}\t{SIDES[name]}\t{small}\t{large}\ttimeout\t\t\t\t")
            continue
        exponent = math.log(b["seconds"] / a["seconds"]) / math.log(large / small)
        arrays = [r["peak"] / (8.0 * s * s) for r, s in ((a, small), (b, large))]
        rows.append(f"{name}\t{SIDES[name]}\t{small}\t{large}\t{a['seconds']:.2f}\t"
                    f"{b['seconds']:.2f}\t{exponent:.2f}\t{arrays[0]:.2f}\t{arrays[1]:.2f}")
        print(rows[-1], flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(rows) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
