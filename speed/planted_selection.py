"""How many features does the label-free choice keep on planted structure? (issue 40, item 6)

For every case of the planted suite (``speed/planted_suite.py``: ``p`` planted features of
``d``, ``K`` groups), :class:`fsclust.selection.LabelFreeSelector` at its defaults (the
method ``--method``, 30 subsamples, the default grid of m, K from 2 to 10) chooses (m, K)
without labels. One row per case: the one-se choice (the default rule: the sparsest
sufficient set), whether it sits at the grid's smallest point, the most stable set at that K
(``stable_n_features_``, what ``rule="stable-set"`` keeps: the largest sufficient m whose
feature-set stability is at least ``STABLE_SET_PHI``), each m's ratio to the planted
count and its precision (planted features among the m kept), and K against the true one.
Labels and the planted mask score the result only.

    python speed/planted_selection.py [--method laplacian] [--cases NAME ...] [--seed 0]
                                      [--out results/speed/planted_selection.tsv]

Also writes every (m, K) row of every case with the planted features among the top m
(``<out>.criteria.tsv``). 12 cases took about 12 minutes on the shared 2-core machine
(2026-11-28); docs/selection.md has the table.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from planted_suite import CASES, draw  # noqa: E402


def run(case, method, seed):
    from fsclust.rankers.base import selected_features
    from fsclust.selection import LabelFreeSelector

    X, _, planted = draw(case, seed)
    start = time.perf_counter()
    selector = LabelFreeSelector(method=method, random_state=seed).fit(X)
    seconds = time.perf_counter() - start
    grid = sorted(selector.criteria_["n_features"].unique())
    row = {"case": case.name, "n": case.n, "d": case.d, "planted": case.p,
           "groups": case.groups, "method": method, "seed": seed,
           "grid": " ".join(map(str, grid)), "k_chosen": selector.n_clusters_}
    for name, m in (("one_se", selector.n_features_),
                    ("stable_set", selector.stable_n_features_)):
        if m is None:
            row.update({f"m_{name}": np.nan, f"ratio_{name}": np.nan,
                        f"precision_{name}": np.nan})
            continue
        kept = selected_features(selector.ranker_, int(m))
        row.update({f"m_{name}": int(m), f"ratio_{name}": round(m / case.p, 3),
                    f"precision_{name}": round(float(planted[kept].mean()), 3)})
    row["one_se_at_grid_minimum"] = bool(selector.n_features_ == grid[0])
    row["stable_feature_stability"] = round(selector.stable_feature_stability_, 4)
    row["seconds"] = round(seconds, 1)
    order = np.asarray(selector.ranker_.feature_order_)
    criteria = selector.criteria_.assign(
        case=case.name, planted=case.p, d=case.d, k_chosen=selector.n_clusters_,
        planted_in_top=lambda t: [int(planted[order[:m]].sum()) for m in t["n_features"]])
    return row, criteria


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", default="laplacian")
    parser.add_argument("--cases", nargs="*", default=[c.name for c in CASES])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="results/speed/planted_selection.tsv")
    args = parser.parse_args(argv)
    by_name = {c.name: c for c in CASES}
    rows, criteria = [], []
    for name in args.cases:
        row, table = run(by_name[name], args.method, args.seed)
        rows.append(row)
        criteria.append(table)
        print("\t".join(f"{k}={v}" for k, v in row.items() if k != "grid"), flush=True)
    table = pd.DataFrame(rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, sep="\t", index=False)
    # every (m, K) of every case, to read other rules from (the planted count scores them)
    pd.concat(criteria).to_csv(Path(args.out).with_suffix(".criteria.tsv"), sep="\t",
                               index=False)
    within = lambda col: int(((table[col] >= 0.5) & (table[col] <= 2.0)).sum())  # noqa: E731
    print(f"within a factor of 2 of the planted count: one-se {within('ratio_one_se')}, "
          f"stable-set {within('ratio_stable_set')} of {len(table)}; one-se at the grid's "
          f"smallest point: {int(table['one_se_at_grid_minimum'].sum())} of {len(table)}")


if __name__ == "__main__":
    main()
