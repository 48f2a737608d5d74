"""RUFS against FSASL's ``fs_unsup_rufs.m`` under GNU Octave: agreement and speed (spec 3.7).

Usage (from the repository root; needs ``octave``, the offline mirror and FSASL's
``fs_unsup_rufs.m``, fetched for comparison only, in ``--refs``)::

    python speed/peers_rufs.py --refs /tmp/h26b/refs [--repeats 7] [--datasets ...]

Both sides get the same start and regulariser: ``G0`` (one-hot k-means, seed 0; ours with
``init="one-hot"``, the reference's start) and
``L = M^T M`` from :func:`fsclust.rankers.rufs.local_learning_matrix`, exported to Octave;
``nu = alpha = beta = 1``, ``MaxIter = 20``, ``epsilon = 1e-2``. Octave lacks ``subplus``:
a one-line shim (``max(x, 0)``) is written beside the data, and one for ``randsample``
(``randperm(n, k)``), which ``litekmeans`` calls. Times: X to scores with one BLAS
thread, medians. Both sides are timed from X: ours includes its k-means start and ``L``;
Octave's includes the same two steps as FSASL's own pipeline (``fs_unsup_rufs_single_func``)
computes them, ``litekmeans(X, c, 'Replicates', 10)`` and ``localLearnMx_KRR`` (``k = 5``,
``rLambda = 0.1``), then the call. Those two results are timed and dropped: the call itself gets
the shared ``G0`` and ``L``, so that the agreement compares the iteration, not two k-means runs.
``--call-only`` times the call alone (the earlier, narrower definition).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.io
import scipy.stats
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_limits

from fsclust.rankers.rufs import RUFS, local_learning_matrix

MIRROR = Path(os.environ.get("FSCLUST_MIRROR", Path(__file__).resolve().parents[2] / "shared" / "data"))
DATASETS = {"warpAR10P": "skfeature/warpAR10P.mat", "TOX-171": "skfeature/TOX-171.mat"}


# FSASL's fs_unsup_rufs_single_func before its call: the k-means start (10 replicates, its
# seed) and the local-learning regulariser, computed from X; timed, then the shared inputs used
PIPELINE = ("rand('twister', 5489); label = litekmeans(X, size(G0, 2), 'Replicates', 10);"
            " Gown = full(sparse(1:size(X, 1), label, 1)); Lown = localLearnMx_KRR(X,"
            " struct('nNeighbors', 5, 'rLambda', 0.1));")


def octave(refs, X, G0, L, workdir, timeout=None, fsasl=None):
    """The reference's scores and seconds, or ``(None, inf)`` past ``timeout`` seconds.

    With ``fsasl`` (the directory of FSASL's ``litekmeans.m``, ``localLearnMx_KRR.m`` and
    ``constructW.m``) the seconds include :data:`PIPELINE`, the start and regulariser the
    reference's own pipeline computes from ``X``; without, the call alone.
    """
    (Path(workdir) / "subplus.m").write_text("function y = subplus(x)\n  y = max(x, 0);\nend\n")
    # litekmeans draws its starts with randsample(n, k), of the statistics package Octave lacks:
    # k distinct indices without replacement, which randperm(n, k) draws
    (Path(workdir) / "randsample.m").write_text(
        "function y = randsample(n, k)\n  y = randperm(n, k);\nend\n")
    data = Path(workdir) / "in.mat"
    scipy.io.savemat(data, {"X": X, "G0": G0, "L": L})
    paths = f"addpath('{workdir}'); addpath('{refs}');"
    if fsasl is not None:
        # after refs: FSASL's copy of fs_unsup_rufs.m is the same file, either one serves
        paths += f" addpath('{fsasl}', '-end');"
    script = (f"{paths} load('{data}'); t = tic; {PIPELINE if fsasl else ''}"
              "o = struct('MaxIter', 20, 'epsilon', 1e-2, 'nu', 1, 'alpha', 1, 'beta', 1,"
              " 'verbose', 0); W = fs_unsup_rufs(X, L, G0, o); s = toc(t);"
              f"w = sqrt(sum(W .^ 2, 2)); save('-mat', '{workdir}/w.mat', 'w', 's');")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    try:
        subprocess.run(["nice", "octave", "--no-gui", "--quiet", "--eval", script], env=env,
                       check=True, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, np.inf
    out = scipy.io.loadmat(Path(workdir) / "w.mat")
    return np.ravel(out["w"]), float(np.ravel(out["s"])[0])


def shared_inputs(X, c):
    """Our model at the reference's start, and the start ``G0`` and regulariser ``L`` both
    sides get."""
    model = RUFS(n_clusters=c, init="one-hot", random_state=0)
    G0, _, _ = model._start(X, check_random_state(0))
    M = local_learning_matrix(X, model.n_neighbors, model.ridge)
    return model, G0, (M.T @ M).toarray()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--refs", required=True)
    parser.add_argument("--fsasl", default=None,
                        help="FSASL's directory (litekmeans, localLearnMx_KRR, constructW): "
                             "times the reference from X; required unless --call-only")
    parser.add_argument("--call-only", action="store_true",
                        help="time the reference's call alone, given G0 and L")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--octave-repeats", type=int, default=None)
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds for one Octave run; past it the reference reports > timeout")
    args = parser.parse_args()
    if args.fsasl is None and not args.call_only:
        parser.error("give --fsasl DIR (the reference timed from X) or --call-only")
    fsasl = None if args.call_only else args.fsasl
    octave_repeats = args.octave_repeats or args.repeats
    print("data\tspearman\ttop100\tours_iter\tours_s\toctave_s\tratio")
    with tempfile.TemporaryDirectory() as workdir:
        for name in args.datasets:
            raw = scipy.io.loadmat(MIRROR / DATASETS[name])
            X = np.asarray(raw["X"], dtype=np.float64)
            X = (X - X.mean(axis=0)) / np.where(X.std(axis=0) > 0, X.std(axis=0), 1.0)
            c = len(np.unique(raw["Y"]))
            model, G0, L = shared_inputs(X, c)
            mine, theirs, reference = [], [], None
            for k in range(max(args.repeats, octave_repeats)):
                if k < args.repeats:
                    with threadpool_limits(1):
                        start = time.perf_counter()
                        model.fit(X)
                        mine.append(time.perf_counter() - start)
                if k < octave_repeats:
                    result, seconds = octave(args.refs, X, G0, L, workdir, args.timeout,
                                             fsasl)
                    if result is not None:
                        reference = result
                    theirs.append(seconds)
            a, b = np.median(mine), np.median(theirs)
            if reference is None:  # every Octave run timed out: a bound, no agreement
                agreement, octave_s = "nan\tnan", f"> {args.timeout:g}"
                ratio = f"> {args.timeout / a:.1f}x"
            else:
                scores = model.scores_
                top = (set(np.argsort(-scores, kind="stable")[:100])
                       & set(np.argsort(-reference, kind="stable")[:100]))
                agreement = (f"{scipy.stats.spearmanr(scores, reference).statistic:.4f}"
                             f"\t{len(top) / 100:.2f}")
                octave_s, ratio = f"{b:.3f}", f"{b / a:.1f}x"
            print(f"{name} {X.shape}\t{agreement}\t{model.n_iter_}\t{a:.3f}\t{octave_s}\t{ratio}",
                  flush=True)


if __name__ == "__main__":
    main()
