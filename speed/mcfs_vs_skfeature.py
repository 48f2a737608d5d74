"""MCFS against scikit-feature at both sides' defaults: this checkout's fit, a past commit's,
and scikit-feature's ``mcfs``, alternating in one process.

Usage: python speed/mcfs_vs_skfeature.py [--before COMMIT] [--repeats 7] [--components]
                                         [--datasets warpPIE10P TOX-171] [--out TSV]

Each repeat times, one after the other on the same ``X`` (the mirror's ``skfeature/<name>.mat``,
``$FSCLUST_MIRROR`` or ``../shared/data``, float64, C order), from ``X`` to scores:

* ``after``: ``MCFS()`` of this checkout (K = 5 eigenvectors, d = min(D, 50) non-zeros, the
  5-NN heat-kernel graph with Cai's bandwidth, Cai's lasso with the ridge);
* ``before``: the same call on ``src/fsclust/rankers/mcfs.py`` as it was at ``--before``
  (``git show``, loaded as a module of this checkout's package), when given;
* ``skf``: scikit-feature's ``mcfs(X, n_selected_features=50)`` at its defaults (its 5-NN
  cosine graph with 0/1 weights, ``n_clusters=5``, LAR stopped at 50 steps, ``mode="rank"``,
  whose conversion of the order to ranks is a quadratic Python loop over the features);
* ``skf-index``: the same with ``mode="index"`` (the order, without that loop);
* ``same-graph``: ours and theirs on one graph (its ``construct_W`` heat kernel with our
  bandwidth, ``n_clusters=5``, ``mode="index"``, against ``MCFS(n_eigenvectors=5,
  n_nonzero_coefs=50, t=2 t_sk^2, self_loops=True)``), to separate the graphs from the
  regressions.

With ``--components``, also what bounds the ratio: ``after`` without its lasso paths (a stub
returns zero coefficients: the graph, the embedding, the validation, the ranking), the paths
alone (``lasso_coefficients`` on the fit's eigenvectors), and within the paths the time of
their products with the Gram entries (the Gram matrix ``X^T X`` and each step's ``w^T G_A``,
or each step's ``[u_1 .. u_K]^T X`` on ``X``: timers around them, ``products s``); and
scikit-feature's graph alone (``construct_W``), its eigenvectors and LAR paths on that graph
(``mode="raw"``). The rest of ``after``'s paths is the per-step bookkeeping in Python.

One BLAS thread (``threadpoolctl``); the first call of each is a warm-up; times are the median
[min, max] of the repeats; ratios are scikit-feature's median over ours. ``before`` and
``after`` are also compared: feature order equal, largest score difference, LARS steps.
No assertion: the script prints the table and writes ``results/speed/mcfs_vs_skfeature.tsv``.
"""

import argparse
import importlib.util
import os
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
import scipy.io
from threadpoolctl import threadpool_limits

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from fsclust.graphs import knn_graph  # noqa: E402
from fsclust.rankers import mcfs  # noqa: E402

MIRROR = Path(os.environ.get("FSCLUST_MIRROR", REPO.parent / "shared" / "data"))
DATASETS = {"warpPIE10P": "skfeature/warpPIE10P.mat", "TOX-171": "skfeature/TOX-171.mat"}
D_SELECT = 50


def module_at(commit):
    """``fsclust.rankers.mcfs`` as it was at ``commit``, as a module of this package."""
    source = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{commit}:src/fsclust/rankers/mcfs.py"],
        check=True, capture_output=True, text=True).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(source)
    name = "fsclust.rankers._mcfs_before"
    spec = importlib.util.spec_from_file_location(name, handle.name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    os.unlink(handle.name)
    return module


def load(rel):
    return np.ascontiguousarray(scipy.io.loadmat(MIRROR / rel)["X"], dtype=np.float64)


def cases(X, before):
    from skfeature.function.sparse_learning_based import MCFS as sk_mcfs
    from skfeature.utility.construct_W import construct_W

    _, t = knn_graph(X, 5, return_bandwidth=True)
    t_sk = float(np.sqrt(t / 2.0))
    same = dict(n_eigenvectors=5, n_nonzero_coefs=D_SELECT, n_neighbors=5, t=2 * t_sk**2,
                self_loops=True)
    # scikit-feature's construct_W normalises the rows of its input in place (the cosine
    # graph): each of its calls gets a fresh copy, made before the clock starts
    out = {"after": lambda Z: mcfs.MCFS().fit(Z),
           "skf": lambda Z: sk_mcfs.mcfs(Z, n_selected_features=D_SELECT),
           "skf-index": lambda Z: sk_mcfs.mcfs(Z, n_selected_features=D_SELECT, mode="index"),
           "same-graph after": lambda Z: mcfs.MCFS(**same).fit(Z),
           "same-graph skf": lambda Z: sk_mcfs.mcfs(
               Z, n_selected_features=D_SELECT, mode="index", n_clusters=5,
               W=construct_W(Z, metric="euclidean", neighbor_mode="knn",
                             weight_mode="heat_kernel", k=5, t=t_sk))}
    if before is not None:
        out["before"] = lambda Z: before.MCFS().fit(Z)
        out["same-graph before"] = lambda Z: before.MCFS(**same).fit(Z)
    return out


def _no_paths(X, Y, n_nonzero, ridge=1e-3, return_steps=False, max_iter=None):
    K = Y.shape[1]
    return np.zeros((X.shape[1], K)), np.full(K, n_nonzero), ridge, np.zeros(K, dtype=int)


def component_cases(X):
    """The parts of both fits (see the module docstring)."""
    from skfeature.function.sparse_learning_based import MCFS as sk_mcfs
    from skfeature.utility.construct_W import construct_W

    model = mcfs.MCFS().fit(X)
    W = knn_graph(X, n_neighbors=5, t_rule="cai", allow_isolated=True)
    Y = mcfs.spectral_embedding_targets(W, model.n_eigenvectors_)
    d = int(min(X.shape[1], D_SELECT))
    W_sk = construct_W(X.copy())

    def without_paths(Z):
        with mock.patch.object(mcfs, "lasso_coefficients", _no_paths):
            return mcfs.MCFS().fit(Z)

    return {"after without paths": without_paths,
            "after paths": lambda Z: mcfs.lasso_coefficients(Z, Y, d),
            "skf graph": lambda Z: construct_W(Z),
            "skf eigen + LAR": lambda Z: sk_mcfs.mcfs(Z, n_selected_features=D_SELECT, W=W_sk,
                                                      mode="raw")}


def products_time(X, repeats):
    """Median seconds of the paths' products with the Gram entries (module docstring): the
    directions of every step (timers around ``_directions_on_rows`` and the function
    ``_directions_on`` makes: the products and their reading at the inactive positions), plus
    ``X^T X`` where the paths form it, timed alone."""
    model = mcfs.MCFS().fit(X)
    Y = mcfs.spectral_embedding_targets(
        knn_graph(X, n_neighbors=5, t_rule="cai", allow_isolated=True), model.n_eigenvectors_)
    n, D = X.shape
    d = int(min(D, D_SELECT))
    spent = [0.0]

    def timed(f):
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return f(*args, **kwargs)
            finally:
                spent[0] += time.perf_counter() - t0
        return wrapper

    on_x = mcfs._directions_on
    times = []
    with mock.patch.object(mcfs, "_directions_on_rows", timed(mcfs._directions_on_rows)), \
            mock.patch.object(mcfs, "_directions_on", lambda Z: timed(on_x(Z))):
        for _ in range(repeats):
            spent[0] = 0.0
            mcfs.lasso_coefficients(X, Y, d)
            if (mcfs._paths_together(n, D, d, 4 * d + 50) and mcfs._on_whole_gram(D)
                    and mcfs._gram_is_cheaper(n, D, Y.shape[1], d)):
                t0 = time.perf_counter()
                X.T @ X
                spent[0] += time.perf_counter() - t0
            times.append(spent[0])
    return statistics.median(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", default=None, help="a commit: its mcfs.py is timed as 'before'")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    ap.add_argument("--components", action="store_true")
    ap.add_argument("--out", default=str(REPO / "results" / "speed" / "mcfs_vs_skfeature.tsv"))
    args = ap.parse_args(argv)
    before = module_at(args.before) if args.before else None
    rows = []
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in args.datasets:
            X = load(DATASETS[name])
            fns = cases(X, before)
            if args.components:
                fns.update(component_cases(X))
            results = {key: fn(X.copy()) for key, fn in fns.items()}  # warm-up
            times = {key: [] for key in fns}
            for _ in range(args.repeats):
                for key, fn in fns.items():
                    Z = X.copy()
                    t0 = time.perf_counter()
                    fn(Z)
                    times[key].append(time.perf_counter() - t0)
            med = {key: statistics.median(v) for key, v in times.items()}
            row = {"dataset": name, "n": X.shape[0], "D": X.shape[1], "repeats": args.repeats,
                   "load_avg_1min": round(os.getloadavg()[0], 2)}
            for key, v in times.items():
                row[f"{key} s"] = med[key]
                row[f"{key} range"] = f"[{min(v):.3f}, {max(v):.3f}]"
            for ours in ("after", "before"):
                if ours in med:
                    row[f"skf / {ours}"] = med["skf"] / med[ours]
                    row[f"skf-index / {ours}"] = med["skf-index"] / med[ours]
                    row[f"same-graph skf / {ours}"] = (med["same-graph skf"]
                                                       / med[f"same-graph {ours}"])
                    row[f"{ours} steps"] = int(results[ours].path_steps_.sum())
            if args.components:
                row["after products s"] = products_time(X, args.repeats)
            if before is not None:
                for prefix in ("", "same-graph "):
                    a, b = results[prefix + "after"], results[prefix + "before"]
                    row[f"{prefix}same order"] = bool(np.array_equal(a.feature_order_,
                                                                     b.feature_order_))
                    row[f"{prefix}max score diff"] = float(np.abs(a.scores_ - b.scores_).max())
            rows.append(row)
            for key, value in row.items():
                print(f"{key:28s} {value:.4g}" if isinstance(value, float)
                      else f"{key:28s} {value}", flush=True)
            print(flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(out, sep="\t", index=False)


if __name__ == "__main__":
    main()
