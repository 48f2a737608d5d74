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


#: Joins registered methods into one ranking: ``"laplacian+hvg_seurat_v3"`` (single-cell genes,
#: :func:`fsclust.pp.rank_genes`).
JOIN = "+"


def joined_methods(method):
    """The registered methods of ``method`` joined by :data:`JOIN` (two or more, different),
    refused in one line otherwise; a name without :data:`JOIN` is one method, returned alone.

    Examples
    --------
    >>> joined_methods("laplacian+hvg_seurat_v3")
    ['laplacian', 'hvg_seurat_v3']
    """
    from fsclust.registry import method_names

    if JOIN not in method:
        return [method]
    parts = method.split(JOIN)
    unknown = [part for part in parts if part not in set(method_names())]
    if len(parts) < 2 or unknown or len(set(parts)) < len(parts):
        raise ValueError(f"method={method!r}: join two or more different registered methods "
                         f"with {JOIN!r} (unknown: {', '.join(map(repr, unknown)) or 'none'}; "
                         "`fsclust methods` lists them)")
    return parts


def combined_ranks(ranks):
    """The mean of several rankings' ranks of the same genes (Borda's count) and the ranks it
    gives: 1 = the smallest mean, ties by the first ranking's rank, then the gene's index.

    Parameters
    ----------
    ranks : sequence of ndarray of shape (n_genes,)
        Each ranking's ranks, 1 = best.

    Returns
    -------
    mean : ndarray of shape (n_genes,)
    ranks : ndarray of shape (n_genes,), int

    Examples
    --------
    >>> mean, ranks = combined_ranks([np.array([1, 2, 3, 4]), np.array([4, 1, 2, 3])])
    >>> mean.tolist(), ranks.tolist()
    ([2.5, 1.5, 2.5, 3.5], [2, 1, 3, 4])
    """
    stacked = np.vstack([np.asarray(r, dtype=float) for r in ranks])
    mean = stacked.mean(axis=0)
    order = np.lexsort((np.arange(mean.size), stacked[0], mean))
    final = np.empty(mean.size, dtype=np.intp)
    final[order] = np.arange(1, mean.size + 1)
    return mean, final


def rank_joined(method, rank_one, params=None):
    """Rank with each method of ``method`` (:func:`joined_methods`) on its own and combine
    them (:func:`combine_joined`): the loop :func:`fsclust.pp.rank_genes` and the single-cell
    study's copy of it share.

    Parameters
    ----------
    method : str
        Methods joined by :data:`JOIN`.
    rank_one : callable
        ``rank_one(name, params) -> (scores, ranks, info)`` for one method.
    params : dict, optional
        Each method's parameters by its name.

    Returns
    -------
    scores, ranks, info
        As :func:`combine_joined`; ``info`` also has the first method's ``n_genes_ranked``,
        ``min_cells`` and ``random_state``.
    first : dict
        The first method's info.
    """
    parts = joined_methods(method)
    ranks, infos = [], {}
    for part in parts:
        _, part_ranks, infos[part] = rank_one(part, (params or {}).get(part))
        ranks.append(part_ranks)
    first = infos[parts[0]]
    scores, final, info = combine_joined(parts, ranks, infos, first["n_genes_ranked"])
    info.update({key: first[key] for key in ("n_genes_ranked", "min_cells", "random_state")})
    return scores, final, info, first


def combine_joined(parts, ranks, infos, n_genes_ranked):
    """Scores, ranks and info of methods ranked apart (:func:`joined_methods`): the mean of
    their ranks (NaN for the genes none ranked, last in each), :func:`combined_ranks`, and
    each method's parameters and input under its name."""
    mean, final = combined_ranks(ranks)
    scores = np.where(final > n_genes_ranked, np.nan, mean)
    info = {"method": JOIN.join(parts), "higher_is_better": False,
            "combined": f"mean of the ranks (Borda's count), ties by {parts[0]}'s rank",
            "params": {part: infos[part]["params"] for part in parts},
            "inputs": {part: infos[part]["input"] for part in parts}}
    for part in parts:
        if "graph_genes" in infos[part]:
            info["graph_genes"] = infos[part]["graph_genes"]
    return scores, final, info
