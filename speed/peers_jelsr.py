"""JELSR side by side with FSASL's two implementations: agreement, a reference bug, speed.

Usage: python speed/peers_jelsr.py --fsasl DIR [--repeats 7] [--peer-repeats 7]
                                        [--hou-repeats 1] [--out TSV]

FSASL (``csliangdu/FSASL``, fetched for comparison only, never copied into this repository)
runs under GNU Octave (``octave-cli``) from ``--fsasl DIR``. Run the script with
``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`` so that Octave, which inherits the environment,
uses one BLAS thread too.

1. Agreement of scores (Spearman correlation, overlap of the top 100, largest relative
   difference on the scale of the largest score), alpha = beta = 1, k = 5, m = the number of
   classes, 20 iterations:

   * ``liang``: ``fs_unsup_jelsr_liang`` (its own LLE graph from ``computeLocalStructure``)
     against ``JELSR(center=False, max_iter=20, tol=0)``, on warpAR10P's first 100 columns
     (``d < n``: its ``d x d`` branch) and on the whole of warpAR10P and TOX-171 (``d > n``:
     its push-through branch). The guards differ (``2 sqrt(||w||^2 + 1e-12)`` against
     ``2 (||w|| + 2.2e-16)``), which moves only the pruned features; the row ``its guard``
     runs our shared math with the reference's guard, to show that nothing else differs;
   * ``hou``: ``fs_unsup_jelsr`` fed our LLE weights (see 2.) against
     ``JELSR(compat="hou", max_iter=20)``, on warpAR10P's first 100 columns.

2. A bug the spec does not name: ``computeLocalStructure('lle')``'s second output, the weight
   matrix ``fs_unsup_jelsr`` is fed by FSASL's own driver, is built as
   ``sparse(repmat(1:n, k, 1), neighborhood(:), W(:))``: the rows run sample by sample
   (``k`` entries each) while ``neighborhood(:)`` runs neighbour rank by rank (``n`` entries
   each), so row ``i`` gets its own weights on the columns of other samples' neighbours.
   Shown on warpAR10P: the fraction of rows whose support is the sample's own neighbours.

3. Time from X to scores, one BLAS thread, both sides at their defaults (ours ``JELSR()``:
   centred, at most 100 iterations, relative stop 1e-8; theirs ``fs_unsup_jelsr_liang``: 20
   iterations, its time measured inside Octave with ``tic``/``toc``, graph included), on
   warpAR10P and TOX-171 (z-scored), alternating, median [min, max]; ``fs_unsup_jelsr``
   (``d x d`` solves) with ``--hou-repeats`` runs; our peak traced memory
   (``tracemalloc``) on TOX-171 and on a 200 x 20000 N(0, 1) matrix.

No assertion: the script prints the tables and writes ``results/speed/peers_jelsr.tsv``.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.io
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers_udfs import (DATASETS, MIRROR, REPO, agreement, load, peak_mb,  # noqa: E402
                        run_octave, summary)

from fsclust.graphs import smallest_eigenvectors  # noqa: E402
from fsclust.rankers._sparse_learning import WeightedRidge, row_norms_sq  # noqa: E402
from fsclust.rankers.jelsr import (REFERENCE_SETTINGS, JELSR, lle_laplacian,  # noqa: E402
                                   lle_weights)

K, ALPHA, BETA = 5, 1.0, 1.0
LIANG = ("tic; p = struct('nClusters', c, 'k', {k}, 'alpha', {alpha}, 'beta', {beta}, "
         "'weightMode', 'lle', 't', 1); m = fs_unsup_jelsr_liang(X', p); "
         "seconds = toc; scores = m.z;")
HOU = ("tic; W = fs_unsup_jelsr(X, S, c, {alpha}, {beta}); seconds = toc; "
       "scores = sqrt(sum(W .^ 2, 2));")


def n_classes(name):
    return len(np.unique(scipy.io.loadmat(MIRROR / DATASETS[name])["Y"]))


def liang(fsasl, X, c):
    out = run_octave(fsasl, LIANG.format(k=K, alpha=ALPHA, beta=BETA), {"X": X, "c": float(c)})
    return out["scores"].ravel(), float(out["seconds"].ravel()[0])


def hou(fsasl, X, c, S):
    out = run_octave(fsasl, HOU.format(alpha=ALPHA, beta=BETA),
                     {"X": X, "c": float(c), "S": S})
    return out["scores"].ravel(), float(out["seconds"].ravel()[0])


def liang_recipe(X, c, n_iter=20):
    """Our shared math (LLE Laplacian, push-through ridge, n x n eigen-step) with FSASL's
    guard ``U = 0.5 / (||w|| + 2.2e-16)``, uncentred: what separates it from the reference."""
    L = lle_laplacian(lle_weights(X, K)).toarray()
    E = np.ones(X.shape[1])
    for _ in range(n_iter):
        ridge = WeightedRidge(X, E, ALPHA)
        _, Y = smallest_eigenvectors(L + BETA * ridge.hat_complement(), c)
        W, _ = ridge.solve(Y)
        E = 2.0 * (np.sqrt(row_norms_sq(W)) + np.finfo(float).eps)
    return np.sqrt(row_norms_sq(W))


def recipes(fsasl):
    rows = []
    c = n_classes("warpAR10P")
    for name, X in (("warpAR10P[:, :100]", load("warpAR10P")[:, :100]),
                    ("warpAR10P", load("warpAR10P")), ("TOX-171", load("TOX-171"))):
        cc = n_classes(name.split("[")[0])
        theirs, _ = liang(fsasl, X, cc)
        ours = JELSR(n_clusters=cc, center=False, max_iter=20, tol=0.0,
                     **REFERENCE_SETTINGS).fit(X).scores_
        rows.append({"recipe": "fsasl liang (Octave)", "data": name, **agreement(ours, theirs)})
        rows.append({"recipe": "fsasl liang, its guard", "data": name,
                     **agreement(liang_recipe(X, cc), theirs)})
    X = load("warpAR10P")[:, :100]
    theirs, _ = hou(fsasl, X, c, lle_weights(X, K))
    ours = JELSR(n_clusters=c, compat="hou", max_iter=20, **REFERENCE_SETTINGS).fit(X).scores_
    rows.append({"recipe": "fsasl hou (Octave, our S)", "data": "warpAR10P[:, :100]",
                 **agreement(ours, theirs)})
    return rows


def scrambled_weights(fsasl, name="warpAR10P"):
    """Section 2: the rows of computeLocalStructure's S whose support is the right one."""
    X = load(name)
    out = run_octave(fsasl, f"[~, S] = computeLocalStructure(X, 'lle', {K}, 1); S = full(S);",
                     {"X": X}, outputs=("S",))
    theirs, ours = out["S"], lle_weights(X, K).toarray()
    same = np.mean([np.array_equal(np.flatnonzero(a), np.flatnonzero(b))
                    for a, b in zip(theirs, ours)])
    sums = np.abs(theirs.sum(axis=1) - 1.0).max()
    return {"data": name, "rows_with_own_neighbours": float(same),
            "max_row_sum_error": float(sums),
            "max_abs_diff_to_lle": float(np.abs(theirs - ours).max())}


def timing(fsasl, repeats, peer_repeats, hou_repeats):
    rows = []
    for name in DATASETS:
        X, c = load(name), n_classes(name)
        model = JELSR(n_clusters=c, **REFERENCE_SETTINGS)
        mine, theirs, houtimes = [], [], []
        for r in range(max(repeats, peer_repeats)):
            if r < repeats:
                with threadpool_limits(1):
                    t0 = time.perf_counter()
                    model.fit(X)
                    mine.append(time.perf_counter() - t0)
            if r < peer_repeats:  # Octave inherits OMP_NUM_THREADS=1 (see the docstring)
                theirs.append(liang(fsasl, X, c)[1])
        for _ in range(hou_repeats):
            houtimes.append(hou(fsasl, X - X.mean(0), c, lle_weights(X, K))[1])
        row = {"data": f"{name} {X.shape}", "ours_s": summary(mine),
               "ours_iter": model.n_iter_, "liang_s": summary(theirs),
               "liang_ratio": float(np.median(theirs) / np.median(mine))}
        if houtimes:
            row.update(hou_s=summary(houtimes),
                       hou_ratio=float(np.median(houtimes) / np.median(mine)))
        rows.append(row)
    X = load("TOX-171")
    rows.append({"data": "peak MB, TOX-171",
                 "ours_s": f"{peak_mb(lambda: JELSR(n_clusters=4, **REFERENCE_SETTINGS).fit(X)):.0f}"})
    wide = np.random.RandomState(0).randn(200, 20000)
    rows.append({"data": "peak MB, 200 x 20000",
                 "ours_s": f"{peak_mb(lambda: JELSR(**REFERENCE_SETTINGS).fit(wide)):.0f}"})
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fsasl", required=True)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--peer-repeats", type=int, default=7)
    parser.add_argument("--hou-repeats", type=int, default=1)
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--out", default=str(REPO / "results" / "speed" / "peers_jelsr.tsv"))
    args = parser.parse_args(argv)
    agreement_rows = recipes(args.fsasl)
    print(pd.DataFrame(agreement_rows).to_string(index=False), flush=True)
    print(pd.DataFrame([scrambled_weights(args.fsasl)]).to_string(index=False), flush=True)
    rows = agreement_rows
    if not args.no_timing:
        timing_rows = timing(args.fsasl, args.repeats, args.peer_repeats, args.hou_repeats)
        print(pd.DataFrame(timing_rows).to_string(index=False), flush=True)
        rows = rows + timing_rows
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(args.out, sep="\t", index=False)


if __name__ == "__main__":
    main()
