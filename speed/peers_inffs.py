"""Inf-FS against its reference code under GNU Octave: agreement and speed (spec methods-peers 5.6).

Usage (from the repository root; needs ``octave`` on PATH, the offline mirror and a checkout of
the references fetched for comparison only, never copied into the package)::

    python speed/peers_inffs.py --refs /tmp/h26b/refs [--repeats 7] [--datasets ...]

``--refs`` is a directory holding ``infFS.m`` (AutoUFSTool's ``UFSs/Inf-FS/infFS.m``, the 2015
code) and ``InfFS_U.m`` (giorgioroffo/Infinite-Feature-Selection, the 2020 code). Octave's
``corr`` has no ``'type', 'Spearman'`` option: a shim ``corr.m`` written to a temporary
directory ranks the columns (``ranks``, average ties) and takes their Pearson correlation.

Prints, per data set and recipe, the Spearman correlation of our scores with the reference's,
the top-100 overlap, the largest relative score difference, and the seconds from X to scores
with one BLAS thread (ours: median of ``--repeats``, alternating with Octave).
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
from threadpoolctl import threadpool_limits

from fsclust.rankers.inffs import InfFS

MIRROR = Path(os.environ.get("FSCLUST_MIRROR", Path(__file__).resolve().parents[2] / "shared" / "data"))
DATASETS = {"warpAR10P": "skfeature/warpAR10P.mat", "TOX-171": "skfeature/TOX-171.mat"}

#: (name, our parameters, Octave call); the references' alpha as each reads it
RECIPES = [
    ("2015 code (alpha on c = 0.5)", {"variant": "2015", "compat": True, "alpha": 0.5},
     "[~, w] = infFS(X, [], 0.5, 0, 0);"),
    ("2020 code", {"variant": "2020", "compat": True, "alpha": 0.5},
     "[~, w] = InfFS_U(X, [], 0.5, 0);"),
]

SPEARMAN_SHIM = """function [r, p] = corr(x, varargin)
  % harness shim: MATLAB's corr(x, 'type', 'Spearman') on Octave (ranks with average ties)
  if numel(varargin) >= 2 && strcmpi(varargin{1}, 'type') && strcmpi(varargin{2}, 'Spearman')
    x = ranks(x);
  end
  x = x - mean(x, 1);
  x = x ./ sqrt(sum(x .^ 2, 1));
  r = x' * x; p = [];
end
"""


def octave(refs, X, call, workdir):
    """Scores and seconds (tic/toc around the call only) of one Octave run, one thread."""
    data = Path(workdir) / "X.mat"
    scipy.io.savemat(data, {"X": X})
    script = (f"addpath('{workdir}'); addpath('{refs}'); load('{data}');"
              f"t = tic; {call} s = toc(t); save('-mat', '{workdir}/w.mat', 'w', 's');")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    subprocess.run(["nice", "octave", "--no-gui", "--quiet", "--eval", script], env=env,
                   check=True, capture_output=True)
    out = scipy.io.loadmat(Path(workdir) / "w.mat")
    return np.ravel(out["w"]), float(np.ravel(out["s"])[0])


def ours(X, params):
    with threadpool_limits(1):
        start = time.perf_counter()
        scores = InfFS(**params).fit(X).scores_
        return scores, time.perf_counter() - start


def agreement(a, b, top=100):
    order_a, order_b = np.argsort(-a, kind="stable"), np.argsort(-b, kind="stable")
    return (scipy.stats.spearmanr(a, b).statistic,
            len(set(order_a[:top]) & set(order_b[:top])) / top,
            float(np.max(np.abs(a - b) / np.abs(b))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--refs", required=True)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--octave-repeats", type=int, default=None)
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    args = parser.parse_args()
    octave_repeats = args.octave_repeats or args.repeats
    with tempfile.TemporaryDirectory() as workdir:
        (Path(workdir) / "corr.m").write_text(SPEARMAN_SHIM)
        print("data\trecipe\tspearman\ttop100\tmax_rel_diff\tours_s\toctave_s\tratio")
        for name in args.datasets:
            X = np.asarray(scipy.io.loadmat(MIRROR / DATASETS[name])["X"], dtype=np.float64)
            for label, params, call in RECIPES:
                mine, theirs = [], []
                for k in range(max(args.repeats, octave_repeats)):
                    if k < args.repeats:
                        scores, seconds = ours(X, params)
                        mine.append(seconds)
                    if k < octave_repeats:
                        reference, seconds = octave(args.refs, X, call, workdir)
                        theirs.append(seconds)
                rho, overlap, diff = agreement(scores, reference)
                a, b = np.median(mine), np.median(theirs)
                print(f"{name} {X.shape}\t{label}\t{rho:.10f}\t{overlap:.2f}\t{diff:.2e}\t"
                      f"{a:.3f}\t{b:.3f}\t{b / a:.1f}x", flush=True)


if __name__ == "__main__":
    main()
