"""SOGFS side by side with AutoUFSTool's ``SOGFS.m``: agreement, the degenerate start, speed.

Usage: python speed/peers_sogfs.py --auto DIR [--repeats 7] [--timeout 300] [--out TSV]

``DIR`` holds AutoUFSTool's ``UFSs/SOGFS`` files (``farhadabedinzadeh/AutoUFSTool``, fetched
for comparison only, never copied into this repository); they run under GNU Octave
(``octave-cli``). The reference returns only a ranking: a copy in a temporary directory,
renamed ``SOGFS_scores``, also returns its ``sum(W.^2, 2)``. Run the script with
``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`` so that Octave, which inherits the environment,
uses one BLAS thread too.

1. Agreement of scores (Spearman, overlap of the top 100, largest relative difference on the
   scale of the largest score) under the spec's recipe, ``SOGFS(compat="auto")`` at the
   reference's defaults (``gamma = 100``, ``m = 4``, ``c = 3``, ``k = 5``), on warpAR10P's
   first 100 columns (``d < n - 1``; the reference's ``d x d`` ``eig`` in every inner step
   makes larger ``d`` slow).

2. The degenerate start (spec 0.4, 6.4): on a 30 x 60 N(0, 1) matrix (``d >= n``) every
   W-step's first eigenproblem has a null space of dimension ``>= d - n + 1 > m``; its basis
   is the solver's choice. Shown by the agreement of the reference with ours, and of ours
   with ``random_state`` 0 and 1 (which draw the first W of every W-step).

3. Time from X to scores, one BLAS thread, both sides at their defaults with ``c`` = the
   number of classes (ours ``SOGFS(n_clusters=c)``; theirs ``SOGFS(X, 100, 4, c, 5)``), on
   warpAR10P and TOX-171 (z-scored): ours median [min, max] of the repeats, theirs one run
   stopped after ``--timeout`` seconds (then a lower bound); our peak traced memory on
   TOX-171 and, for three outer iterations, on a 200 x 20000 N(0, 1) matrix.

No assertion: the script prints the tables and writes ``results/speed/peers_sogfs.tsv``.
"""

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.io
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers_udfs import DATASETS, MIRROR, REPO, agreement, load, peak_mb, summary  # noqa: E402

from fsclust.rankers.sogfs import REFERENCE_SETTINGS, SOGFS  # noqa: E402

#: the references' settings, with the gamma each comparison gives
REFERENCE = {key: value for key, value in REFERENCE_SETTINGS.items() if key != "gamma"}

GAMMA, M, C, K = 100.0, 4, 3, 5  # the reference's defaults


def n_classes(name):
    return len(np.unique(scipy.io.loadmat(MIRROR / DATASETS[name])["Y"]))


def reference(auto, X, gamma=GAMMA, m=M, c=C, k=K, timeout=None):
    """The reference's ``sum(W.^2, 2)`` and seconds (``tic``/``toc``), or ``(None, inf)``."""
    with tempfile.TemporaryDirectory() as tmp:
        for path in Path(auto).glob("*.m"):
            shutil.copy(path, tmp)
        source = (Path(tmp) / "SOGFS.m").read_text()
        (Path(tmp) / "SOGFS_scores.m").write_text(source.replace(
            "function [ranking] = SOGFS(", "function [ranking, sumW] = SOGFS_scores(", 1))
        scipy.io.savemat(Path(tmp) / "in.mat", {"X": X})
        code = (f"addpath('{tmp}'); load('{tmp}/in.mat'); tic; "
                f"[~, s] = SOGFS_scores(X, {gamma}, {m}, {c}, {k}); seconds = toc; "
                f"save('-v7', '{tmp}/out.mat', 's', 'seconds');")
        try:
            subprocess.run(["nice", "octave-cli", "--no-gui", "--eval", code], check=True,
                           capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, np.inf
        out = scipy.io.loadmat(Path(tmp) / "out.mat")
    return np.sqrt(out["s"].ravel()), float(out["seconds"].ravel()[0])


def recipes(auto):
    rows = []
    X = load("warpAR10P")[:, :100]
    theirs, _ = reference(auto, X)
    ours = SOGFS(n_clusters=C, n_components=M, gamma=GAMMA, compat="auto", **REFERENCE).fit(X)
    rows.append({"recipe": "auto (Octave)", "data": "warpAR10P[:, :100]",
                 **agreement(ours.scores_, theirs), "ours_outer_iter": ours.n_iter_})
    wide = np.random.RandomState(0).randn(30, 60)
    theirs, _ = reference(auto, wide)
    params = dict(n_clusters=C, n_components=M, gamma=GAMMA, compat="auto", **REFERENCE)
    a = SOGFS(**params, random_state=0).fit(wide)
    b = SOGFS(**params, random_state=1).fit(wide)
    rows.append({"recipe": "auto (Octave), d >= n", "data": "N(0,1) 30 x 60",
                 **agreement(a.scores_, theirs), "degenerate": a.degenerate_start_})
    rows.append({"recipe": "ours seed 0 vs seed 1, d >= n", "data": "N(0,1) 30 x 60",
                 **agreement(a.scores_, b.scores_), "degenerate": a.degenerate_start_})
    return rows


def timing(auto, repeats, timeout):
    rows = []
    for name in DATASETS:
        X, c = load(name), n_classes(name)
        model = SOGFS(n_clusters=c, random_state=0, **REFERENCE_SETTINGS)
        mine = []
        with threadpool_limits(1):
            for _ in range(repeats):
                t0 = time.perf_counter()
                model.fit(X)
                mine.append(time.perf_counter() - t0)
        _, theirs = reference(auto, X, c=c, timeout=timeout)
        ratio = theirs / np.median(mine)
        rows.append({"data": f"{name} {X.shape}", "ours_s": summary(mine),
                     "ours_outer_iter": model.n_iter_,
                     "reference_s": f"> {timeout:g}" if np.isinf(theirs) else f"{theirs:.3g}",
                     "ratio": (f"> {timeout / np.median(mine):.1f}" if np.isinf(ratio)
                               else f"{ratio:.1f}")})
    X = load("TOX-171")
    rows.append({"data": "peak MB, TOX-171",
                 "ours_s": f"{peak_mb(lambda: SOGFS(n_clusters=4, random_state=0, **REFERENCE_SETTINGS).fit(X)):.0f}"})
    wide = np.random.RandomState(0).randn(200, 20000)
    rows.append({"data": "peak MB, 200 x 20000 (3 outer iterations)",
                 "ours_s": f"{peak_mb(lambda: SOGFS(max_iter=3, random_state=0, **REFERENCE_SETTINGS).fit(wide)):.0f}"})
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--auto", required=True, help="directory of AutoUFSTool's UFSs/SOGFS")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--out", default=str(REPO / "results" / "speed" / "peers_sogfs.tsv"))
    args = parser.parse_args(argv)
    rows = recipes(args.auto)
    print(pd.DataFrame(rows).to_string(index=False), flush=True)
    if not args.no_timing:
        timing_rows = timing(args.auto, args.repeats, args.timeout)
        print(pd.DataFrame(timing_rows).to_string(index=False), flush=True)
        rows = rows + timing_rows
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(args.out, sep="\t", index=False)


if __name__ == "__main__":
    main()
