"""How often does the label-free choice of m sit at the grid's smallest point on real sets?
(issue 40, item 6)

For each set of a group of the ``selection`` experiment (config/experiments/selection.yaml;
read from the offline mirror and prepared as the workflow does), the selector of
``fsclust select`` at its defaults (the method ``--method``, 30 subsamples of 80 %, the
default grid of m, K from 2 to 10, seed 0) chooses (m, K) without labels. One row per set:
the grid, the one-se m and whether it is the grid's smallest point, the most stable set
(``stable_n_features_``) and its feature-set stability, K. No label is read.

    python speed/selection_grid_minimum.py [--group training] [--method laplacian]
        [--mirror ../shared/data] [--out results/speed/selection_grid_minimum.tsv]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]


def load(entry, mirror, folder):
    """The prepared dataset of a catalog entry, its raw files copied from the mirror."""
    from fsclust.datasets import prepare
    from fsclust.datasets.download import fetch

    if entry.source not in ("url", "local"):
        return prepare(entry)
    paths = []
    for file in entry.files:
        dest = Path(folder) / entry.id / file
        fetch(entry, dest, mirror=mirror, file=file)
        paths.append(dest)
    return prepare(entry, paths if len(paths) > 1 else paths[0])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--group", default="training")
    parser.add_argument("--method", default="laplacian")
    parser.add_argument("--mirror", default=os.environ.get("FSCLUST_MIRROR",
                                                           str(ROOT.parent / "shared/data")))
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", default=str(ROOT / "results/speed/selection_grid_minimum.tsv"))
    args = parser.parse_args(argv)
    from fsclust.datasets.catalog import get_entry, load_catalog
    from fsclust.selection import LabelFreeSelector

    config = yaml.safe_load((ROOT / "config/experiments/selection.yaml").read_text())
    names = config["selection"]["selection"]["groups"][args.group]
    catalog = load_catalog()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            try:
                ds = load(get_entry(catalog, name), args.mirror, folder)
            except Exception as err:  # download-only sets are not in the mirror
                print(f"{name}: skipped ({str(err).splitlines()[0][:120]})", flush=True)
                continue
            start = time.perf_counter()
            selector = LabelFreeSelector(method=args.method, random_state=0,
                                         n_jobs=args.n_jobs).fit(ds.X)
            grid = sorted(int(m) for m in selector.criteria_["n_features"].unique())
            rows.append({"dataset": name, "n": ds.X.shape[0], "d": ds.X.shape[1],
                         "grid": " ".join(map(str, grid)), "k_chosen": selector.n_clusters_,
                         "m_one_se": selector.n_features_,
                         "one_se_at_grid_minimum": selector.n_features_ == grid[0],
                         "m_stable_set": selector.stable_n_features_,
                         "stable_feature_stability": round(
                             selector.stable_feature_stability_, 4),
                         "seconds": round(time.perf_counter() - start, 1)})
            print("\t".join(f"{k}={v}" for k, v in rows[-1].items() if k != "grid"),
                  flush=True)
    table = pd.DataFrame(rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, sep="\t", index=False)
    print(f"one-se m at the grid's smallest point: {int(table['one_se_at_grid_minimum'].sum())}"
          f" of {len(table)} sets ({args.group}, {args.method})")


if __name__ == "__main__":
    main()
