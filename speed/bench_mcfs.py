"""Time and peak memory of MCFS's lasso step on wide data: four ways to run the K paths.

Usage: python speed/bench_mcfs.py [--repeats 3] [--augmented-repeats 1] [--datasets ID ...]
                                       [--variants V ...] [--out TSV]

Each case fits ``MCFS(n_clusters=10, n_nonzero_coefs=d)`` (d = None, the class default
``min(D, 50)``, and d = 100) on the prepared data (``data/prepared/<id>.npz``; a missing file is
reported with the command that makes it) in its own process, one BLAS thread
(``threadpoolctl``), and reports the wall time of the whole ``fit`` as median [min, max] over
the repeats (3; 1 for ``augmented``, 2-3 minutes a fit on orlraws10P) and the process's peak
resident memory (``ru_maxrss``, what ``/usr/bin/time -v`` calls "Maximum resident set size").
The lasso step is swapped per variant:

* ``per-eigenvector``: the step before the Gram matrix was shared: ``X^T X + ridge I`` formed
  for every eigenvector, copied again by ``lars_path_gram`` (three D x D matrices alive);
* ``shared``: ``fsclust.rankers.mcfs.lasso_coefficients``: up to D = 4096 the Gram matrix
  formed once per fit and only read (``gram_lasso_path``, one D x D matrix alive), above the
  Gram-free ``ridge_lasso_path``;
* ``no-ridge``: the same function with ``ridge=0``: ``lars_path`` on ``X`` itself;
* ``augmented``: Cai's ``D >= 10000`` form, ``lars_path`` on ``[X; sqrt(ridge) I_D]`` and
  ``[y; 0]`` (``copy_X=False``, rebuilt per eigenvector): the same objective as the Gram path
  (scaled so that it stops where the Gram path stops, see ``augmented``).

``max |coef - coef_shared|`` compares each variant's normalised coefficients with the shared
path's (same graph, same eigenvectors). No assertion: the script prints a table and writes
``results/speed/mcfs.tsv``.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
from sklearn.linear_model import lars_path, lars_path_gram
from threadpoolctl import threadpool_limits

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from fsclust.datasets import load_dataset  # noqa: E402
from fsclust.rankers import mcfs  # noqa: E402

DATASETS = ["skfeature-orlraws10p", "skfeature-warppie10p"]
CARDINALITIES = [None, 100]
VARIANTS = ["per-eigenvector", "shared", "no-ridge", "augmented"]


def per_eigenvector(X, Y, n_nonzero, ridge=1e-3):
    """The lasso step before the shared Gram matrix (commit e93e6ba)."""
    D = X.shape[1]
    A = np.zeros((D, Y.shape[1]))
    cardinality = np.zeros(Y.shape[1], dtype=int)
    for k, y in enumerate(Y.T):
        gram = X.T @ X
        gram[np.diag_indices(D)] += ridge
        _, _, coefs = lars_path_gram(Xy=X.T @ y, Gram=gram, n_samples=X.shape[0],
                                     method="lasso", max_iter=4 * int(n_nonzero) + 50)
        A[:, k], cardinality[k] = mcfs._path_point(coefs, n_nonzero)
    return A, cardinality, ridge


def augmented(X, Y, n_nonzero, ridge=1e-3):
    """Cai's augmented regression: ``||[y; 0] - [X; sqrt(ridge) I] a||^2`` by lars_path.

    Both sides are scaled by ``s = sqrt((n + D) / n)``, which leaves the coefficient path as it
    is: lars_path divides the correlations by its number of rows, ``n + D``, and stops once
    that ``alpha`` is within float32 eps of 0; unscaled it stops earlier than the Gram path
    (``n_samples = n``), and at d = 100 on orlraws10P the last point with d non-zeros differs.
    """
    n, D = X.shape
    scale = np.sqrt((n + D) / n)
    A = np.zeros((D, Y.shape[1]))
    cardinality = np.zeros(Y.shape[1], dtype=int)
    for k, y in enumerate(Y.T):
        Xa = np.zeros((n + D, D), order="F")
        Xa[:n] = scale * X
        Xa[n + np.arange(D), np.arange(D)] = scale * np.sqrt(ridge)
        _, _, coefs = lars_path(Xa, np.r_[scale * y, np.zeros(D)], Gram=None, copy_X=False,
                                method="lasso", max_iter=4 * int(n_nonzero) + 50)
        del Xa
        A[:, k], cardinality[k] = mcfs._path_point(coefs, n_nonzero)
    return A, cardinality, ridge


SHARED = mcfs.lasso_coefficients  # the module's function, before any patch


def no_ridge(X, Y, n_nonzero, ridge=1e-3):
    return SHARED(X, Y, n_nonzero, ridge=0.0)


STEPS = {"per-eigenvector": per_eigenvector, "shared": SHARED,
         "no-ridge": no_ridge, "augmented": augmented}


def child(dataset, d, variant, repeats, coef_path):
    """One case in this process: fit ``repeats`` times, save coef_, print JSON."""
    X = load_dataset(REPO / "data" / "prepared" / f"{dataset}.npz").X
    times = []
    with threadpool_limits(1, user_api="blas"), \
            mock.patch.object(mcfs, "lasso_coefficients", STEPS[variant]), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(repeats):
            t = time.perf_counter()
            model = mcfs.MCFS(n_clusters=10, n_nonzero_coefs=d).fit(X)
            times.append(time.perf_counter() - t)
    np.save(coef_path, model.coef_)
    print(json.dumps({
        "times": times,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "n": X.shape[0], "D": X.shape[1],
        "warnings": sorted({f"{w.category.__name__}: {str(w.message)[:70]}" for w in caught}),
    }))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--augmented-repeats", type=int, default=1)
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--variants", nargs="+", default=VARIANTS, choices=VARIANTS)
    parser.add_argument("--out", default=str(REPO / "results" / "speed" / "mcfs.tsv"))
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        dataset, d, variant, coef_path = args.child
        child(dataset, None if d == "None" else int(d), variant, args.repeats, coef_path)
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for dataset in args.datasets:
            if not (REPO / "data" / "prepared" / f"{dataset}.npz").exists():
                print(f"skip {dataset}: run snakemake --cores 1 data/prepared/{dataset}.npz "
                      "--config mirror=../shared/data", file=sys.stderr)
                continue
            for d in CARDINALITIES:
                coefs = {}
                # the shared path first: every other variant is compared with it
                for variant in sorted(args.variants, key=lambda v: v != "shared"):
                    coef_path = Path(tmp) / f"{dataset}-{d}-{variant}.npy"
                    repeats = args.augmented_repeats if variant == "augmented" else args.repeats
                    out = subprocess.run(
                        [sys.executable, __file__, "--repeats", str(repeats), "--child",
                         dataset, str(d), variant, str(coef_path)],
                        check=True, capture_output=True, text=True).stdout
                    res = json.loads(out.strip().splitlines()[-1])
                    coefs[variant] = np.load(coef_path)
                    diff = (float(np.abs(coefs[variant] - coefs["shared"]).max())
                            if "shared" in coefs else np.nan)
                    rows.append({
                        "dataset": dataset, "n": res["n"], "D": res["D"], "repeats": repeats,
                        "d": "None (50)" if d is None else d, "variant": variant,
                        "median_s": statistics.median(res["times"]),
                        "min_s": min(res["times"]), "max_s": max(res["times"]),
                        "peak_mb": round(res["peak_mb"]), "max_coef_diff": diff,
                        "warnings": "; ".join(res["warnings"]),
                        "load_avg_1min": round(os.getloadavg()[0], 2),
                    })
                    print("\t".join(str(v) for v in rows[-1].values()), flush=True)
    table = pd.DataFrame(rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, sep="\t", index=False)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
