"""MCFS of this checkout against a past commit's on every prepared set: the same feature order?

Usage: python speed/mcfs_same_ranking.py --before COMMIT [--prepared DIR]
                                         [--cardinalities 50 300] [--out TSV]

For every ``DIR/*.npz`` (``data/prepared`` by default; the workflow's prepare rule, or
:func:`fsclust.datasets.prepare` on the mirror's files, writes them) this fits, with this
checkout's ``src/fsclust/rankers/mcfs.py`` and with the file as it was at ``--before`` (``git
show``, loaded as a module of this package), ``MCFS()`` at its defaults (K = 5, d = min(D, 50))
and ``MCFS(n_clusters=c, n_nonzero_coefs=d)`` for each ``d`` (the experiments' call: c the
number of classes, else 2), one BLAS thread, and writes per set and call: whether the
feature orders are equal, the first rank where they differ, the largest score and coefficient
differences, the LARS steps and the CPU seconds of each side. No assertion: the script prints
one line per fit and writes ``results/speed/mcfs_same_ranking.tsv``.
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "speed"))

from fsclust.datasets import load_dataset  # noqa: E402
from fsclust.rankers import mcfs  # noqa: E402
from mcfs_vs_skfeature import module_at  # noqa: E402


def _fit(module, X, params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.process_time()
        model = module.MCFS(**params).fit(X)
        return model, time.process_time() - t0


def compare(before, X, params):
    old, s_old = _fit(before, X, params)
    new, s_new = _fit(mcfs, X, params)
    first = np.flatnonzero(old.feature_order_ != new.feature_order_)
    return {"same_order": not first.size,
            "first_rank_differs": int(first[0]) + 1 if first.size else 0,
            "max_score_diff": float(np.abs(old.scores_ - new.scores_).max()),
            "max_coef_diff": float(np.abs(old.coef_ - new.coef_).max()),
            "steps_before": int(old.path_steps_.sum()), "steps_after": int(new.path_steps_.sum()),
            "cpu_s_before": s_old, "cpu_s_after": s_new}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", required=True)
    ap.add_argument("--prepared", default=str(REPO / "data" / "prepared"))
    ap.add_argument("--cardinalities", type=int, nargs="*", default=[50, 300])
    ap.add_argument("--out", default=str(REPO / "results" / "speed" / "mcfs_same_ranking.tsv"))
    args = ap.parse_args(argv)
    before = module_at(args.before)
    rows = []
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with threadpool_limits(1):
        for path in sorted(Path(args.prepared).glob("*.npz")):
            ds = load_dataset(path)
            X = np.asarray(ds.X, dtype=np.float64)
            c = len(np.unique(ds.y)) if ds.y is not None else 2
            calls = [("defaults", {})] + [
                (f"c={c}, d={min(d, X.shape[1])}",
                 {"n_clusters": c, "n_nonzero_coefs": min(d, X.shape[1])})
                for d in sorted({min(d, X.shape[1]) for d in args.cardinalities})]
            for name, params in calls:
                row = {"dataset": path.stem, "n": X.shape[0], "D": X.shape[1], "call": name,
                       **compare(before, X, params)}
                rows.append(row)
                print("\t".join(f"{v:.3g}" if isinstance(v, float) else str(v)
                                for v in row.values()), flush=True)
            pd.DataFrame(rows).to_csv(out, sep="\t", index=False)


if __name__ == "__main__":
    main()
