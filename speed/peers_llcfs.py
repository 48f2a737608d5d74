"""LLC-fs (Zeng & Cheung 2009): our stopping rules side by side, and ours against FSASL's.

Usage:
    python speed/peers_llcfs.py stopping [--datasets ID ...] [--out TSV]
    python speed/peers_llcfs.py fsasl --fsasl DIR [--datasets ID ...] [--out TSV]

``stopping`` fits ``LLCFS(n_neighbors=30, lam=1)`` under three rules: the paper's relative
trace change below 1e-2 (our default), 1e-6, and FSASL's fixed 50 iterations (``tol=None``).
Everything it reports is label-free: the iterations, how the fit ended (``status_``), the
first and last trace, the last relative change, whether the trace ever rose, the effective
number of features ``exp(entropy(tau))`` and the count of non-zero weights of the final tau,
and how far each rule's tau is from the 50-iteration one (Spearman correlation, top-50
overlap). A tolerance run is the first iterations of the fixed run (the same computation),
so the table also shows the path of the effective features along the fixed run.

``fsasl`` runs ``fs_unsup_llcfs`` of the public FSASL repository (Liang Du; fetched by the
user, only called, never copied) under GNU Octave, and ours under the same neighbourhood and
iteration rule: FSASL's k counts the sample itself (``SimGraph_NearestNeighbors`` keeps the
k nearest including the point, then drops the zero self-distance), so its ``k = 31`` is our
``n_neighbors = 30``; it builds a local model only where ``n_i > 1``
(``min_neighborhood_size=2``); ``beta = 1 / lam``; 50 iterations without a tolerance
(``tol=None``). Reported: the rank agreement of the two tau (Spearman over all features,
top-50 overlap) and the k-means ACC on the top 50 features of each (mean over 10 seeds; the
labels judge only). The paper's one-neighbour models (``min_neighborhood_size=1``) are a second row.

Data: the prepared sets ``data/prepared/<id>.npz`` of a checkout that made them (``--data``).
No assertion: the script prints a table and writes it as TSV.
"""

import argparse
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.io import savemat
from scipy.stats import spearmanr

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from fsclust.cluster.kmeans import KMeans  # noqa: E402
from fsclust.datasets import load_dataset  # noqa: E402
from fsclust.metrics import clustering_accuracy  # noqa: E402
from fsclust.rankers.llcfs import LLCFS, effective_number_of_features  # noqa: E402

DATASETS = ["colon-alon", "usps-4v9", "srbct-khan", "breast-west-2001"]
K, LAM, MAX_ITER, TOP = 30, 1.0, 50, 50
#: name -> tol of the three rules (None: FSASL's fixed number of iterations)
RULES = {"tol 1e-2": 1e-2, "tol 1e-6": 1e-6, "fixed 50": None}
#: iterations at which the fixed run's effective number of features is shown
PATH_AT = (1, 2, 5, 10, 20, 50)


def load(data, dataset):
    ds = load_dataset(Path(data) / f"{dataset}.npz")
    return np.asarray(ds.X, dtype=float), ds.y, ds.n_classes


def agreement(tau, reference):
    """Spearman correlation of two weight vectors and the overlap of their top-50 features."""
    top = len(np.intersect1d(np.argsort(-tau, kind="stable")[:TOP],
                             np.argsort(-reference, kind="stable")[:TOP]))
    return float(spearmanr(tau, reference).statistic), top / TOP


def fit(X, c, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an equal-score warning: in status_
        start = time.perf_counter()
        model = LLCFS(n_clusters=c, n_neighbors=K, lam=LAM, max_iter=MAX_ITER,
                      random_state=0, **params).fit(X)
    return model, time.perf_counter() - start


def stopping(args):
    rows = []
    for dataset in args.datasets:
        X, _, c = load(args.data, dataset)
        models = {rule: fit(X, c, tol=tol) for rule, tol in RULES.items()}
        reference = models["fixed 50"][0].scores_
        for rule, (model, seconds) in models.items():
            h = np.asarray(model.objective_history_)
            tau = model.scores_
            rho, top = agreement(tau, reference)
            rows.append({
                "dataset": dataset, "rule": rule, "status": model.status_,
                "n_iter": model.n_iter_, "seconds": round(seconds, 1),
                "trace_first": h[0], "trace_last": h[-1],
                "last_rel_change": abs(h[-1] - h[-2]) / abs(h[-2]) if h.size > 1 else np.nan,
                "trace_rises": int(np.sum(np.diff(h) > 0)),
                "effective_features": round(effective_number_of_features(tau), 1),
                "nonzero_tau": int(np.sum(tau > 0)), "spearman_vs_fixed": round(rho, 3),
                "top50_vs_fixed": top,
            })
        path = models["fixed 50"][0].effective_features_history_
        print(f"{dataset}: effective features before iteration "
              + ", ".join(f"{i}: {path[i - 1]:.0f}" for i in PATH_AT if i <= len(path)))
    return pd.DataFrame(rows)


def kmeans_acc(X, y, order, c):
    """Mean k-means ACC over 10 seeds on the top-50 features (the labels judge only)."""
    Z = X[:, order[:TOP]]
    return float(np.mean([clustering_accuracy(y, KMeans(n_clusters=c, n_init=10,
                                                        random_state=s).fit(Z).labels_)
                          for s in range(10)]))


def run_fsasl(fsasl, X, c):
    """tau of FSASL's ``fs_unsup_llcfs`` under Octave, and its wall time."""
    with tempfile.TemporaryDirectory() as tmp:
        savemat(f"{tmp}/in.mat", {"X": X, "c": float(c)})
        script = (f"addpath('{Path(fsasl).resolve()}'); load('{tmp}/in.mat'); "
                  f"p = struct('nClusters', c, 'k', {K + 1}, 'beta', {1 / LAM}, "
                  f"'maxiter', {MAX_ITER}); tic; [~, tau] = fs_unsup_llcfs(X, p); t = toc; "
                  f"save('-ascii', '-double', '{tmp}/tau.txt', 'tau'); "
                  f"save('-ascii', '-double', '{tmp}/t.txt', 't');")
        subprocess.run(["octave", "--no-gui", "--quiet", "--eval", script], check=True,
                       stdout=subprocess.DEVNULL)
        return np.loadtxt(f"{tmp}/tau.txt").ravel(), float(np.loadtxt(f"{tmp}/t.txt"))


def fsasl(args):
    rows = []
    for dataset in args.datasets:
        X, y, c = load(args.data, dataset)
        tau_fsasl, fsasl_seconds = run_fsasl(args.fsasl, X, c)
        order_fsasl = np.argsort(-tau_fsasl, kind="stable")
        acc_fsasl = kmeans_acc(X, y, order_fsasl, c)
        for label, size in (("same rule (min_neighborhood_size=2)", 2),
                            ("ours, one-neighbour models", 1)):
            model, seconds = fit(X, c, tol=None, min_neighborhood_size=size)
            rho, top = agreement(model.scores_, tau_fsasl)
            rows.append({
                "dataset": dataset, "ours": label, "status": model.status_,
                "n_iter": model.n_iter_, "spearman": round(rho, 3), "top50_overlap": top,
                "acc_ours": round(kmeans_acc(X, y, model.feature_order_, c), 3),
                "acc_fsasl": round(acc_fsasl, 3),
                "eff_ours": round(effective_number_of_features(model.scores_), 1),
                "eff_fsasl": round(effective_number_of_features(tau_fsasl), 1),
                "seconds_ours": round(seconds, 1), "seconds_fsasl": round(fsasl_seconds, 1),
            })
        print(pd.DataFrame(rows[-2:]).to_string(index=False), flush=True)
    return pd.DataFrame(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("stopping", "fsasl"))
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--data", default=REPO / "data" / "prepared",
                        help="folder of the prepared <id>.npz")
    parser.add_argument("--fsasl", help="a checkout of csliangdu/FSASL (mode fsasl)")
    parser.add_argument("--out", default=None, help="TSV (default results/speed/"
                                                    "llcfs_<mode>.tsv)")
    args = parser.parse_args()
    if args.mode == "fsasl" and not args.fsasl:
        parser.error("fsasl needs --fsasl DIR")
    table = (stopping if args.mode == "stopping" else fsasl)(args)
    with pd.option_context("display.width", 200, "display.max_columns", None):
        print(table.to_string(index=False))
    out = Path(args.out or REPO / "results" / "speed" / f"llcfs_{args.mode}.tsv")
    out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(out, sep="\t", index=False)


if __name__ == "__main__":
    main()
