"""The peers' own kind of experiment beside ours: k-means ACC/NMI on the top m features,
ours at the defaults (label-free) and ours at the best point of a regularisation grid
(chosen WITH THE LABELS, as the peers' papers report) (issue 40, item 2).

Usage: python speed/peer_paper_experiments.py [--datasets skfeature-orl ...]
           [--methods udfs ndfs jelsr sogfs rufs] [--grid 0.001 0.1 10 1000]
           [--m 50 100 200 300] [--n-init 10] [--seeds 0] [--out TSV]

For each dataset and method, every (setting, m) is a fit of its own (``make_ranker`` with
``n_clusters = c`` classes, ``random_state = 0``, ``n_features_to_select = m``: UDFS, SOGFS
and JELSR size ``W`` from ``m``) unless the fit does not depend on m (NDFS, RUFS, and a
given ``n_components``: one fit with the largest m serves all), then k-means
(``make_clusterer("kmeans", {"n_init": N})``,
one run per seed) on the top m columns, scored by ``fsclust.metrics`` ACC and NMI; and
k-means on all the features, the papers' baseline row.

* ``defaults``: the class defaults, the label-free setting; the row gives ACC at each m and
  the mean over the m (no m is chosen with the labels there).
* ``grid``: the module's ``REFERENCE_SETTINGS`` (the reference code's) with its l2,1 weight
  (UDFS ``gamma``, NDFS ``beta``, JELSR ``alpha``, SOGFS ``gamma``, RUFS ``beta``) on
  ``--grid``, UDFS and SOGFS with ``n_components = c`` (the papers' ``W`` of c columns); the
  reported number is the largest ACC over grid x m, i.e. chosen with the labels; the
  table says which point and m the labels chose.

The paper numbers. The experiment sections of UDFS (Yang et al., IJCAI 2011), NDFS (Li et
al., AAAI 2012), JELSR (Hou et al., IJCAI 2011), SOGFS (Nie et al., AAAI 2016) and RUFS
(Qian & Zhai, IJCAI 2013) could not be read on 2026-11-29: they are not in
../shared/papers, and the stored web copies the search tool finds (UDFS:
https://studylib.net/doc/13902554/ ; SOGFS: https://studylib.net/doc/13893224/ and the
object.cloud.sdsc.edu ml-papers-txt copy; JELSR, NDFS: abstract pages only; RUFS: none)
return only the first part of each page, never the experiments. So ``PAPER_ACC`` is empty:
no paper number, protocol (m values, grid, k-means repeats) or dataset choice here is the
paper's, and the grid is the one of the project's ``peers-grid`` experiment (FSASL's
``10^(-5..5)`` reduced to ``10^{-3,-1,1,3}``, config/experiments/peers.yaml). Where a paper's
table is found, add it to ``PAPER_ACC`` (method, dataset) -> (ACC, NMI, source) and rerun
with that paper's m values and grid.

``--variant NAME JSON`` adds the defaults with some parameters changed (an ablation, in the
TSV only). ``--skip-defaults --grid 1`` gives the reference settings as they are (UDFS, SOGFS
``gamma = 1``; NDFS ``beta = 1``; JELSR ``alpha = 1``; RUFS ``beta = 1``), label-free, in the
TSV only.

The runs of 2026-11-29 and their table: docs/measurements.md, "Peers' own experiments
(issue 40)" (its commands; Yale and ORL with every method about 12 min, Isolet and COIL20
without JELSR about 15 min, on one BLAS thread).

No assertion: prints the table and writes ``results/speed/peer_paper_experiments.tsv``.
"""

import argparse
import csv
import json
import os
import time
from pathlib import Path

import numpy as np

from fsclust.datasets import load_dataset
from fsclust.metrics import clustering_accuracy, normalized_mutual_info
from fsclust.registry import make_clusterer, make_ranker

PREPARED = Path(os.environ.get("FSCLUST_PREPARED", "/work/main/data/prepared"))

#: (method, dataset) -> (ACC, NMI, source): the papers' reported numbers. Empty: their
#: experiment sections could not be read (module docstring).
PAPER_ACC = {}

#: The l2,1 weight each method's grid varies.
GRID_PARAM = {"udfs": "gamma", "ndfs": "beta", "jelsr": "alpha", "sogfs": "gamma",
              "rufs": "beta"}


def reference_settings(method):
    """The module's ``REFERENCE_SETTINGS`` (the reference code's settings)."""
    import importlib
    module = importlib.import_module(f"fsclust.rankers.{method}")
    return dict(getattr(module, "REFERENCE_SETTINGS", {}))


def m_independent(method, params):
    """Whether the fit does not depend on ``n_features_to_select`` (one fit serves every m):
    NDFS and RUFS, and UDFS/SOGFS/JELSR when ``n_components`` is given."""
    return method in ("ndfs", "rufs") or "n_components" in params


def fit_order(X, c, method, params, m):
    """The feature order of ``method`` fitted with ``params`` for the top ``m``."""
    ranker = make_ranker(method, {**params, "n_features_to_select": m}, n_clusters=c,
                         random_state=0).fit(X)
    return np.asarray(ranker.feature_order_)


def evaluate(X, y, c, order, m, seeds, n_init):
    """k-means on the top ``m`` of ``order``: mean ACC and NMI over the seeds."""
    top = order[:m]
    acc, nmi = [], []
    for seed in seeds:
        labels = make_clusterer("kmeans", {"n_init": n_init}, n_clusters=c,
                                random_state=seed).fit_predict(X[:, top])
        acc.append(clustering_accuracy(y, labels))
        nmi.append(normalized_mutual_info(y, labels))
    return float(np.mean(acc)), float(np.mean(nmi))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["skfeature-orl"])
    parser.add_argument("--methods", nargs="+", default=["udfs", "ndfs", "jelsr", "rufs",
                                                          "sogfs"])
    parser.add_argument("--grid", nargs="+", type=float, default=[1e-3, 1e-1, 10.0, 1e3])
    parser.add_argument("--m", nargs="+", type=int, default=[50, 100, 200, 300])
    parser.add_argument("--n-init", type=int, default=10)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0])
    parser.add_argument("--skip-defaults", action="store_true",
                        help="only the grid (e.g. --grid 1: the reference settings as they are)")
    parser.add_argument("--variant", nargs=2, action="append", default=[],
                        metavar=("NAME", "JSON"),
                        help="extra settings, the defaults with JSON's parameters changed "
                             "(an ablation; label-free, outside the grid's best)")
    parser.add_argument("--out", default="results/speed/peer_paper_experiments.tsv")
    args = parser.parse_args(argv)

    rows = []
    for name in args.datasets:
        data = load_dataset(PREPARED / f"{name}.npz")
        X, y = np.asarray(data.X, dtype=float), np.asarray(data.y)
        c = len(np.unique(y))
        # the papers' "all features" baseline: k-means on every column
        acc, nmi = [], []
        for seed in args.seeds:
            labels = make_clusterer("kmeans", {"n_init": args.n_init}, n_clusters=c,
                                    random_state=seed).fit_predict(X)
            acc.append(clustering_accuracy(y, labels))
            nmi.append(normalized_mutual_info(y, labels))
        rows.append({"dataset": name, "method": "all", "setting": "all features",
                     "m": X.shape[1], "acc": float(np.mean(acc)), "nmi": float(np.mean(nmi)),
                     "seconds": 0.0})
        print(f"{name} all features: ACC {rows[-1]['acc']:.4f} NMI {rows[-1]['nmi']:.4f}",
              flush=True)
        for method in args.methods:
            settings = [] if args.skip_defaults else [("defaults", {})]
            ref = reference_settings(method)
            if method in ("udfs", "sogfs"):
                ref["n_components"] = c
            for variant, changes in args.variant:
                settings.append((f"variant:{variant}", json.loads(changes)))
            for value in args.grid:
                settings.append((f"{GRID_PARAM[method]}={value:g}",
                                 {**ref, GRID_PARAM[method]: value}))
            for label, params in settings:
                order = None
                for m in args.m:
                    start = time.perf_counter()
                    if order is None or not m_independent(method, params):
                        order = fit_order(X, c, method, params, max(args.m)
                                          if m_independent(method, params) else m)
                    acc, nmi = evaluate(X, y, c, order, m, args.seeds, args.n_init)
                    seconds = time.perf_counter() - start
                    rows.append({"dataset": name, "method": method, "setting": label,
                                 "m": m, "acc": acc, "nmi": nmi, "seconds": seconds})
                    print(f"{name} {method} {label} m={m}: ACC {acc:.4f} NMI {nmi:.4f} "
                          f"({seconds:.1f} s)", flush=True)

    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), delimiter="\t")
        writer.writeheader()
        writer.writerows(rows)

    print("\n| dataset | method | paper ACC | ours, defaults: ACC at m = "
          + ", ".join(map(str, args.m)) + " (mean) | ours, best over grid x m [labels] "
          "| what the labels chose |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in args.datasets:
        full = next(r for r in rows if r["dataset"] == name and r["method"] == "all")
        print(f"| {name} | all features | | {full['acc']:.3f} | | |")
        for method in args.methods:
            mine = [r for r in rows if r["dataset"] == name and r["method"] == method]
            default = [r for r in mine if r["setting"] == "defaults"]
            grid = [r for r in mine if r["setting"] != "defaults"
                    and not r["setting"].startswith("variant:")]
            if not default or not grid:
                continue
            best = max(grid, key=lambda r: r["acc"])
            paper = PAPER_ACC.get((method, name))
            paper_text = f"{paper[0]:.4f} ({paper[2]})" if paper else "not found"
            defaults_text = ", ".join(f"{r['acc']:.3f}" for r in default)
            mean = np.mean([r["acc"] for r in default])
            print(f"| {name} | {method} | {paper_text} | {defaults_text} ({mean:.3f}) | "
                  f"{best['acc']:.3f} (NMI {best['nmi']:.3f}) | {best['setting']}, "
                  f"m = {best['m']} |")


if __name__ == "__main__":
    main()
