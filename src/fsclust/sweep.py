"""Cluster on the top-m ranked features for every m of a sweep and score the partitions."""

from __future__ import annotations

import numpy as np
import pandas as pd

from fsclust.metrics import evaluate
from fsclust.registry import make_clusterer


def resolve_grid(spec, n_features):
    """Turn a sweep specification into a sorted list of feature counts within 1..n_features.

    ``spec`` is a list of ints (values above ``n_features`` are dropped), the string ``"all"``
    (every m from 1 to d), or a mapping ``{start, stop, step}`` (``stop`` inclusive, clipped to
    d). ``n_features`` itself is always included, so every sweep ends with all features.

    Examples
    --------
    >>> resolve_grid([1, 2, 4, 8, 16], 10)
    [1, 2, 4, 8, 10]
    >>> resolve_grid("all", 3)
    [1, 2, 3]
    >>> resolve_grid({"start": 20, "stop": 100, "step": 20}, 50)
    [20, 40, 50]
    """
    d = int(n_features)
    if isinstance(spec, str):
        if spec != "all":
            raise ValueError(f"sweep n_features: unknown keyword {spec!r}; use 'all', a list or a range")
        grid = range(1, d + 1)
    elif isinstance(spec, dict):
        start, stop, step = int(spec["start"]), int(spec.get("stop", d)), int(spec.get("step", 1))
        grid = range(start, min(stop, d) + 1, step)
    else:
        grid = [int(m) for m in spec]
    if any(m < 1 for m in grid):
        raise ValueError("sweep n_features: every number of features must be >= 1")
    return sorted({m for m in grid if m <= d} | {d})


def run_sweep(X, y, ranking, grid, clusterers, *, n_clusters, random_states,
              metrics=("acc", "nmi", "ari")):
    """Cluster ``X[:, ranking[:m]]`` with every clusterer for every m in ``grid``; evaluate.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        The classes the partitions are scored against.
    ranking : ndarray of int
        Feature indices, best first.
    grid : list of int
        Numbers of top features to cluster on.
    clusterers : dict
        ``{key: {"method": name, "params": {...}}}``, the experiment's clusterers.
    n_clusters : int
    random_states : dict
        ``{key: int}``: each clusterer's seed, the same for every m and every ranking, so the
        curves of different methods are paired.
    metrics : tuple of str

    Each clusterer is rebuilt from scratch for each m, and any bandwidth rule is recomputed on
    the m selected features (spec methods-seed 0.6).

    Returns
    -------
    DataFrame with one row per clusterer and m: ``clusterer``, ``n_features`` and one column
    per metric. Timings are left to Snakemake's benchmark files so that results are
    byte-identical across runs.
    """
    X = np.asarray(X, dtype=float)
    ranking = np.asarray(ranking, dtype=int)
    rows = []
    for key, spec in clusterers.items():
        for m in grid:
            model = make_clusterer(spec["method"], spec.get("params"), n_clusters=n_clusters,
                                   random_state=random_states[key])
            # The selected set, in the data's column order: clusterers are invariant to column
            # order in exact arithmetic but not in floating point (distance sums run in a
            # different order), and on seed 000's nearly disconnected Ncut graphs that
            # round-off changed the partition. Sorting makes "top-d of any ranking" identical
            # to "all features".
            labels = model.fit_predict(X[:, np.sort(ranking[:m])])
            row = {"clusterer": key, "n_features": int(m)}
            row.update(evaluate(y, labels, metrics))
            rows.append(row)
    return pd.DataFrame(rows, columns=["clusterer", "n_features", *metrics])
