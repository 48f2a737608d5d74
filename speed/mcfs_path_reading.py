"""Which part of MCFS's lasso paths its ranking reads, and what the rest costs.

Usage: python speed/mcfs_path_reading.py [--prepared DIR] [--repeats 5]
                                         [--out TSV]

MCFS stops each eigenvector's lasso-LARS path once ``d + 5`` features are active and reads it
at its last point with ``d`` non-zeros, as Cai's code does
(:func:`fsclust.rankers.mcfs.lasso_coefficients`). For ``MCFS()`` at its defaults (K = 5,
d = min(D, 50), its graph) this writes per data set: the steps of the five paths under each
reading (``steps_*``), and the fit's feature order when each path is read instead

* ``first``: at its first point with ``d`` non-zeros (the path stopped there);
* ``whole``: as MCFS did until 2026-11-29, at its last point with ``d`` non-zeros within
  ``4 d + 50`` steps (the path run on until no later point can have ``d``);

against the order of the current reading: the first rank that differs, and of the top 10, 50
and 100 how many features differ. The time of the paths (one BLAS thread, median of the
repeats) under each reading is in ``s_*``. The sets: warpPIE10P and TOX-171 from the mirror (the
default), or every ``DIR/*.npz`` (``--prepared``). No assertion: the script prints
one line per set and writes ``results/speed/mcfs_path_reading.tsv``.
"""

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.io
from threadpoolctl import threadpool_limits

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from fsclust.datasets import load_dataset  # noqa: E402
from fsclust.rankers import mcfs  # noqa: E402
from fsclust.rankers.base import ranking_from_scores  # noqa: E402

MIRROR = Path(os.environ.get("FSCLUST_MIRROR", REPO.parent / "shared" / "data"))
MIRROR_SETS = {"warpPIE10P": "skfeature/warpPIE10P.mat", "TOX-171": "skfeature/TOX-171.mat"}
TOPS = (10, 50, 100)


class _ReadOtherwise(mcfs._LassoLarsPaths):
    """The paths of :func:`mcfs._lasso_points`, each stopped by ``rule`` instead: ``"first"``
    once it has a point with ``d`` non-zeros, ``"whole"`` not at ``d + 5`` active (only once
    no later point within ``4 d + 50`` steps can have ``d`` non-zeros)."""

    rule = "first"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.rule == "whole":
            self.stop_active = None

    def _begin_step(self, k, position):
        path = self.paths[k]
        d = self.stop_cardinality
        if self.rule == "first":
            reached = (np.count_nonzero(path.coefs[path.n_iter]) == d if self.record
                       else path.hit is not None)
            if reached:
                return False
        return super()._begin_step(k, position)


def _paths(X, Y, d, rule):
    """lasso_coefficients' A and steps, each path read by ``rule`` (None: as MCFS reads it)."""
    original = mcfs._LassoLarsPaths
    if rule is not None:
        _ReadOtherwise.rule = rule
        mcfs._LassoLarsPaths = _ReadOtherwise
    try:
        with threadpool_limits(1):
            A, _, _, steps = mcfs.lasso_coefficients(X, Y, d, return_steps=True)
    finally:
        mcfs._LassoLarsPaths = original
    return A, steps


def _order(A, constant_mask):
    return ranking_from_scores(np.abs(A).max(axis=1), True, constant_mask)


def measure(X, repeats):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = mcfs.MCFS().fit(X)
    d = int(min(X.shape[1], 50))
    # the eigenvectors the fit regressed on, from its own graph
    from fsclust.graphs import capped_n_neighbors, knn_graph
    W = knn_graph(X, n_neighbors=capped_n_neighbors(5, X.shape[0], "MCFS"), t_rule="cai",
                  allow_isolated=True)
    Y = mcfs.spectral_embedding_targets(W, model.n_eigenvectors_)
    row = {"n": X.shape[0], "D": X.shape[1], "d": d,
           "together": mcfs._paths_together(X.shape[0], X.shape[1], d, 4 * d + 50)}
    reference = None
    for rule in (None, "first", "whole"):
        name = rule or "last"
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            A, steps = _paths(X, Y, d, rule)
            times.append(time.perf_counter() - t0)
        row[f"steps_{name}"] = int(steps.sum())
        row[f"s_{name}"] = statistics.median(times)
        order = _order(A, model.constant_mask_)
        if reference is None:
            reference = order
            row["same_as_fit"] = bool(np.array_equal(order, model.feature_order_))
            continue
        first = np.flatnonzero(order != reference)
        row[f"{name}_first_rank_differs"] = int(first[0]) + 1 if first.size else 0
        for m in TOPS:
            row[f"{name}_top{m}_differ"] = len(set(order[:m]) - set(reference[:m]))
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prepared", default=None)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=str(REPO / "results" / "speed" / "mcfs_path_reading.tsv"))
    args = ap.parse_args(argv)
    if args.prepared:
        sets = {p.stem: (lambda p=p: np.asarray(load_dataset(p).X, dtype=np.float64))
                for p in sorted(Path(args.prepared).glob("*.npz"))}
    else:
        sets = {name: (lambda rel=rel: np.ascontiguousarray(
            scipy.io.loadmat(MIRROR / rel)["X"], dtype=np.float64))
            for name, rel in MIRROR_SETS.items()}
    rows = []
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    for name, load in sets.items():
        X = load()
        row = {"dataset": name, **measure(X, args.repeats)}
        rows.append(row)
        print("\t".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                        for k, v in row.items()), flush=True)
        pd.DataFrame(rows).to_csv(out, sep="\t", index=False)


if __name__ == "__main__":
    main()
