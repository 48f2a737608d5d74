"""Rank features with a registered method and read/write ranking tables.

A ranking table is a TSV sorted by rank with columns ``feature``, ``score``, ``rank`` (1 = best)
and, in the workflow's files, ``index`` (0-based column of the feature in the prepared data,
because gene identifiers are not always unique).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fsclust._io import write_table_atomic
from fsclust.registry import make_ranker

RANKING_COLUMNS = ["feature", "score", "rank"]


def rank_features(X, method, params=None, *, n_clusters=None, random_state=None):
    """Fit ranker ``method`` on ``X`` and return the fitted estimator."""
    ranker = make_ranker(method, params, n_clusters=n_clusters, random_state=random_state)
    return ranker.fit(np.asarray(X, dtype=float))


def ranking_table(ranker, feature_names, *, with_index=False):
    """Return the ranking of a fitted ranker as a DataFrame sorted by rank.

    Examples
    --------
    >>> from fsclust.rankers import VarianceScore
    >>> X = np.array([[0.0, 1.0, 5.0], [0.0, 2.0, 7.0], [0.0, 3.0, 1.0]])
    >>> ranking_table(VarianceScore().fit(X), ["a", "b", "c"])["feature"].tolist()
    ['c', 'b', 'a']
    """
    order = np.asarray(ranker.feature_order_)
    names = np.asarray(feature_names, dtype=object)
    if names.shape[0] != order.shape[0]:
        raise ValueError(f"{names.shape[0]} feature names for {order.shape[0]} ranked features")
    table = pd.DataFrame(
        {
            "feature": names[order],
            "score": np.asarray(ranker.scores_, dtype=float)[order],
            "rank": np.arange(1, order.shape[0] + 1),
        }
    )
    if with_index:
        table["index"] = order
    return table


def write_ranking(table, path):
    """Write a ranking table atomically, scores with full float precision."""
    write_table_atomic(table, path, float_format="%.17g")


def read_ranking(path):
    """Read a ranking table; return it sorted by rank."""
    table = pd.read_csv(path, sep="\t")
    missing = [c for c in RANKING_COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(f"{path}: not a ranking table, missing column(s) {', '.join(missing)}")
    return table.sort_values("rank", kind="stable").reset_index(drop=True)
