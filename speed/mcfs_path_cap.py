"""Whether any MCFS lasso path reaches its ``4 d + 50``-step cap before Cai's stop.

Usage: python speed/mcfs_path_cap.py [--prepared DIR]

MCFS stops each path once ``d + 5`` features are active (Cai's stop,
:data:`fsclust.rankers.mcfs.CAI_EXTRA_ACTIVE`); ``4 d + 50`` steps are a cap for paths whose
lasso drops variables often. For every ``DIR/*.npz`` (default ``data/prepared``) this fits
``MCFS()`` and ``MCFS(n_clusters=c, n_nonzero_coefs=d)`` for d = 50 and 300 (c the number of
classes, else 2; d capped at D), one BLAS thread, and prints each fit whose longest path
reached the cap, then the count. No assertion.
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from fsclust.datasets import load_dataset  # noqa: E402
from fsclust.rankers.mcfs import MCFS  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prepared", default=str(REPO / "data" / "prepared"))
    args = ap.parse_args(argv)
    fits = at_cap = 0
    for path in sorted(Path(args.prepared).glob("*.npz")):
        ds = load_dataset(path)
        X = np.asarray(ds.X, dtype=np.float64)
        y = getattr(ds, "y", None)
        c = len(np.unique(y)) if y is not None and len(y) else 2
        D = X.shape[1]
        calls = {"defaults": {}}
        for d in (50, 300):
            calls[f"c={c}, d={min(d, D)}"] = dict(n_clusters=c, n_nonzero_coefs=min(d, D))
        for label, params in calls.items():
            with warnings.catch_warnings(), threadpool_limits(limits=1):
                warnings.simplefilter("ignore")
                model = MCFS(**params).fit(X)
            cap = 4 * params.get("n_nonzero_coefs", min(50, D)) + 50
            fits += 1
            if model.path_steps_.max() >= cap:
                at_cap += 1
                print(f"{path.stem}\t{label}\t{int(model.path_steps_.max())} steps\tcap {cap}",
                      flush=True)
    print(f"{fits} fits, {at_cap} with a path at the cap")


if __name__ == "__main__":
    main()
