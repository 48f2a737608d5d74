"""UDFS side by side with its reference implementations: agreement, a reference bug, speed.

Usage: python speed/peers_udfs.py [--repeats 7] [--peer-repeats 7] [--fsasl DIR]
                                       [--no-timing] [--datasets NAME ...] [--out TSV]

1. Agreement of scores (Spearman correlation, overlap of the top 100, largest relative
   difference) under each reproduction recipe, on data with ``d < n - 1`` (the first 100
   columns of warpAR10P, z-scored; at ``d >= n`` the first step is degenerate and no two
   solvers need agree):

   * ``skfeature``: scikit-feature's ``udfs`` (pip ``skfeature-chappers``) against our
     shared math (:mod:`fsclust.rankers._sparse_learning`) run on scikit-feature's own ``L``
     (its selector bug and ``lambda = gamma``), its guard ``max(||w||, 1e-16)`` and its stop
     ``|dJ| < 1e-3``: what this shows is that the bug, and nothing else, separates the two.
     Its ``L`` has rank ``<= k + 1``, which makes the first step degenerate on any data with
     ``d > k + 1 + c``: this row uses the first ``k + 1 = 6`` columns and ``c = 2``;
   * ``fsasl``: FSASL's ``LocalDisAna`` + ``fs_unsup_udfs`` under GNU Octave (its repository
     copied to a temporary directory by ``--fsasl DIR``, never into ours) against our ``L``
     (:func:`~fsclust.rankers.udfs.local_discriminative_laplacian`) and the same eigen-step,
     with its 20 iterations and guard ``sqrt(||w||^2 + 2.2e-16)``;
   * ``defaults``: ``UDFS()`` against ``udfs()`` at both sides' defaults on warpAR10P and
     TOX-171 (with the timing, 3.; expected to disagree: the bug, and the degenerate start).

2. The bug, on warpAR10P's first 100 columns: scikit-feature's ``construct_M`` fills its
   selector ``S_i`` from rows ``0..k`` of the neighbour table for every ``i``, so its ``L`` has
   rank ``<= k + 1`` and non-zero rows only for the samples in those ``k + 1``
   neighbourhoods; the paper's ``L`` has rank ``n - 1``.

3. Time from X to scores, one BLAS thread, both sides at their defaults (ours
   ``UDFS(n_clusters=5)``, theirs ``udfs(X, n_clusters=5)``: ``gamma = 0.1``, ``k = 5``),
   alternating in one process, median [min, max] of the repeats, on warpAR10P and TOX-171
   (z-scored), and our peak traced memory (``tracemalloc``) there and on a 200 x 20000
   N(0, 1) matrix.

No assertion: the script prints the tables and writes ``results/speed/peers_udfs.tsv``.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.io
from scipy.stats import spearmanr
from sklearn.metrics import pairwise_distances
from threadpoolctl import threadpool_limits

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from fsclust.rankers._sparse_learning import (GraphQuadratic,  # noqa: E402
                                              penalized_smallest_eigenvectors, row_norms_sq)
from fsclust.rankers.udfs import (REFERENCE_SETTINGS, UDFS,  # noqa: E402
                                  local_discriminative_laplacian)

#: the references' settings, with the gamma each comparison gives
REFERENCE = {key: value for key, value in REFERENCE_SETTINGS.items() if key != "gamma"}

MIRROR = Path(os.environ.get("FSCLUST_MIRROR", REPO.parent / "shared" / "data"))
DATASETS = {"warpAR10P": "skfeature/warpAR10P.mat", "TOX-171": "skfeature/TOX-171.mat"}
TOP = 100
#: FSASL's UDFS from X (samples in rows) to scores, timed inside Octave: its local
#: discriminative L, ``A = X^T L X`` and ``fs_unsup_udfs`` (20 eigen-steps of ``d x d``)
FSASL_UDFS = ("tic; L = LocalDisAna(X', struct('k', {k}, 'lamda', {lam})); A = X'*L*X; "
              "W = fs_unsup_udfs(A, {c}, {gamma}); scores = sqrt(sum(W.*W, 2)); seconds = toc;")


def load(name):
    """A scikit-feature set from the mirror, z-scored."""
    return zscore(np.asarray(scipy.io.loadmat(MIRROR / DATASETS[name])["X"], dtype=np.float64))


def zscore(X):
    """Columns centred and scaled to unit variance (constant columns left at 0)."""
    sd = X.std(0)
    return (X - X.mean(0)) / np.where(sd > 0, sd, 1.0)


def agreement(ours, theirs, top=TOP):
    """Spearman correlation, top-``top`` overlap (fraction) and largest relative difference
    (on the scale of the largest score) of two score vectors, higher = better both."""
    ours, theirs = np.asarray(ours, float), np.asarray(theirs, float)
    top = min(top, ours.size)
    overlap = len(set(np.argsort(-ours, kind="stable")[:top])
                  & set(np.argsort(-theirs, kind="stable")[:top])) / top
    diff = np.max(np.abs(ours - theirs)) / max(np.max(np.abs(theirs)), 1e-300)
    return {"spearman": float(spearmanr(ours, theirs)[0]), f"top{TOP}_overlap": overlap,
            "max_rel_diff": float(diff)}


def alternate(ours, theirs, repeats, peer_repeats):
    """Run ``ours`` and ``theirs`` alternately under one BLAS thread; their times."""
    times = {"ours": [], "theirs": []}
    with threadpool_limits(1):
        for r in range(max(repeats, peer_repeats)):
            for side, fn, n in (("ours", ours, repeats), ("theirs", theirs, peer_repeats)):
                if r < n:
                    t0 = time.perf_counter()
                    fn()
                    times[side].append(time.perf_counter() - t0)
    return times


def summary(times):
    return f"{statistics.median(times):.3g} [{min(times):.3g}, {max(times):.3g}] (x{len(times)})"


def peak_mb(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def skfeature_laplacian(X, k, gamma):
    """scikit-feature's ``Mi`` from ``construct_M``, its selector bug included: the
    selector of every sample is built from the neighbour lists of samples ``0..k`` (column
    ``q`` holds the whole list of sample ``q``), and its local ridge is ``gamma``."""
    n = X.shape[0]
    idx = np.argsort(pairwise_distances(X), axis=1)[:, :k + 1]
    H = np.eye(k + 1) - 1.0 / (k + 1)
    S = np.zeros((n, k + 1))
    for q in range(k + 1):
        S[idx[q], q] = 1.0
    L = np.zeros((n, n))
    for i in range(n):
        Xt = H @ X[idx[i]]
        B = np.linalg.inv(Xt @ Xt.T + gamma * np.eye(k + 1))
        L += S @ H @ B @ H @ S.T
    return L


def reweighted_eigen_iteration(quadratic, c, gamma, guard, n_iter, stop=None):
    """The UDFS iteration on our eigen-step, with a reference's guard (``E`` from the row
    norms) and stop rule (``stop(J_prev, J)``); the row norms of the last ``W``."""
    E = np.ones(quadratic.n_features)
    history = []
    for _ in range(n_iter):
        _, W = penalized_smallest_eigenvectors(quadratic, E, gamma, c)
        norms, E = guard(W)
        history.append(quadratic.trace_form(W) + gamma * norms.sum())
        if stop is not None and len(history) > 1 and stop(history[-2], history[-1]):
            break
    return np.sqrt(row_norms_sq(W))


def skfeature_guard(W):
    norms = np.maximum(np.sqrt(row_norms_sq(W)), 1e-16)
    return norms, 2.0 * norms


def fsasl_guard(W):
    # MATLAB's eps inside the root; the objective uses the same guarded norm
    norms = np.sqrt(row_norms_sq(W) + np.finfo(float).eps)
    return norms, 2.0 * norms


def run_octave(fsasl, script, inputs, outputs=("scores", "seconds"), path=()):
    """Run ``script`` under ``octave-cli`` with FSASL (then ``path``, searched first) on
    the path and ``inputs`` loaded; returns the variables named in ``outputs``."""
    with tempfile.TemporaryDirectory() as tmp:
        scipy.io.savemat(Path(tmp) / "in.mat", inputs)
        names = ", ".join(f"'{name}'" for name in outputs)
        dirs = "".join(f"addpath('{d}'); " for d in (fsasl, *path))
        code = (f"{dirs}load('{tmp}/in.mat'); {script} "
                f"save('-v7', '{tmp}/out.mat', {names});")
        subprocess.run(["nice", "octave-cli", "--no-gui", "--eval", code], check=True,
                       capture_output=True, text=True)
        return scipy.io.loadmat(Path(tmp) / "out.mat")


def recipes(fsasl, k=5, c=5):
    """Section 1 of the docstring: the rows of the agreement table."""
    from skfeature.function.sparse_learning_based.UDFS import udfs

    rows = []
    # scikit-feature's L has rank <= k + 1 (4 here), so its M + gamma I has a null space of
    # dimension >= d - k - 1 at the first step, and the first W is unique only when that
    # dimension is at most c: d = k + 1 = 6, c = 2 (at d = 8 it is 3)
    c_skf = 2
    X = load("warpAR10P")[:, :k + 1]
    gamma_skf = 0.1
    theirs = np.sqrt(row_norms_sq(udfs(X, gamma=gamma_skf, k=k, n_clusters=c_skf, mode="raw")))
    ours = reweighted_eigen_iteration(
        GraphQuadratic(X, skfeature_laplacian(X, k, gamma_skf)), c_skf, gamma_skf,
        skfeature_guard, 1000, stop=lambda a, b: abs(a - b) < 1e-3)
    data = f"warpAR10P[:, :{X.shape[1]}], c = {c_skf}"
    rows.append({"recipe": "skfeature", "data": data, **agreement(ours, theirs)})
    correct = UDFS(n_clusters=c_skf, n_neighbors=k, lam=gamma_skf, gamma=gamma_skf, **REFERENCE).fit(X)
    rows.append({"recipe": "skfeature vs the paper's L", "data": data,
                 **agreement(correct.scores_, theirs)})
    X = load("warpAR10P")[:, :100]
    if fsasl:
        lam, gamma = 1000.0, 1.0
        out = run_octave(fsasl, FSASL_UDFS.format(k=k, lam=lam, c=c, gamma=gamma), {"X": X})
        ours = reweighted_eigen_iteration(
            GraphQuadratic(X, local_discriminative_laplacian(X, k, lam)), c, gamma,
            fsasl_guard, 20)
        rows.append({"recipe": "fsasl (Octave)", "data": "warpAR10P[:, :100]",
                     **agreement(ours, out["scores"].ravel())})
    return pd.DataFrame(rows)


def selector_bug(k=5, gamma=0.1):
    """Section 2: rank and support of scikit-feature's ``L`` against the paper's."""
    X = load("warpAR10P")[:, :100]
    n = X.shape[0]
    rows = []
    for label, L in (("scikit-feature", skfeature_laplacian(X, k, gamma)),
                     ("paper", local_discriminative_laplacian(X, k, gamma).toarray())):
        vals = np.linalg.eigvalsh(L)
        rank = int(np.sum(vals > 1e-10 * vals.max()))
        support = int(np.sum(np.abs(L).sum(1) > 0))
        rows.append({"L": label, "n": n, "rank": rank, "samples_with_nonzero_rows": support})
    return pd.DataFrame(rows)


def timing(repeats, peer_repeats, datasets=(*DATASETS, "wide"), c=5):
    """Section 3: X -> scores at both sides' defaults and our peak memory, with the
    ``defaults`` rows of the agreement table (from the last runs)."""
    from skfeature.function.sparse_learning_based.UDFS import udfs

    rows, agree = [], []
    for name in [name for name in datasets if name in DATASETS]:
        X = load(name)
        result = {}

        def ours():
            result["ours"] = UDFS(n_clusters=c, random_state=0,
                                  **REFERENCE_SETTINGS).fit(X).scores_

        def theirs():
            result["theirs"] = np.sqrt(row_norms_sq(udfs(X, n_clusters=c, mode="raw")))

        times = alternate(ours, theirs, repeats, peer_repeats)
        agree.append({"recipe": "defaults", "data": name,
                      **agreement(result["ours"], result["theirs"])})
        ratio = statistics.median(times["theirs"]) / statistics.median(times["ours"])
        with threadpool_limits(1):
            mb = peak_mb(ours)
        rows.append({"data": name, "n x d": f"{X.shape[0]} x {X.shape[1]}",
                     "ours_s": summary(times["ours"]), "skfeature_s": summary(times["theirs"]),
                     "speedup": round(ratio, 1), "ours_peak_MB": round(mb, 1)})
    if "wide" not in datasets:
        return pd.DataFrame(rows), pd.DataFrame(agree)
    X = np.random.RandomState(0).randn(200, 20000)
    with threadpool_limits(1):
        t0 = time.perf_counter()
        mb = peak_mb(lambda: UDFS(n_clusters=c, random_state=0, **REFERENCE_SETTINGS).fit(X))
        seconds = time.perf_counter() - t0
    rows.append({"data": "N(0,1)", "n x d": "200 x 20000", "ours_s": f"{seconds:.3g} (x1, traced)",
                 "skfeature_s": "not run (d x d eigh, 3.2 GB)", "speedup": None,
                 "ours_peak_MB": round(mb, 1)})
    return pd.DataFrame(rows), pd.DataFrame(agree)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--peer-repeats", type=int, default=7,
                        help="scikit-feature's runs (TOX-171: minutes each)")
    parser.add_argument("--fsasl", default=None,
                        help="a directory holding FSASL's .m files (none: no Octave row)")
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--datasets", nargs="+", default=[*DATASETS, "wide"],
                        choices=[*DATASETS, "wide"],
                        help="the timed sets; wide: our time and memory on 200 x 20000")
    parser.add_argument("--out", default=str(REPO / "results" / "speed" / "peers_udfs.tsv"))
    args = parser.parse_args(argv)
    pd.set_option("display.width", 200)
    tables = {"agreement": recipes(args.fsasl), "selector bug": selector_bug()}
    if not args.no_timing:
        tables["timing"], defaults = timing(args.repeats, args.peer_repeats, args.datasets)
        tables["agreement"] = pd.concat([tables["agreement"], defaults], ignore_index=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w") as fh:
        for title, table in tables.items():
            print(f"\n## {title}\n{table.to_string(index=False)}")
            fh.write(f"# {title}\n")
            table.to_csv(fh, sep="\t", index=False)
    print(f"\nwritten {out}")


if __name__ == "__main__":
    main()
