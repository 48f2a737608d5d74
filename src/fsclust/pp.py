"""The scanpy way: fsclust's rankers on an AnnData of single-cell counts.

    >>> import fsclust.pp
    >>> fsclust.pp.select_features(adata, method="laplacian", n_top_genes=2000)  # doctest: +SKIP
    >>> adata.var[["fsclust_score", "fsclust_rank", "fsclust_selected"]]  # doctest: +SKIP

:func:`select_features` follows scanpy's conventions (``pp.highly_variable_genes``): it reads
the counts from ``X`` or a ``layer``, writes ``adata.var["{key_added}_score"]``,
``["{key_added}_rank"]`` (1 = best), ``["{key_added}_selected"]`` and the parameters in
``adata.uns[key_added]`` (``inplace=True``), or returns that table (``inplace=False``);
``subset=True`` keeps the selected genes only. The counts stay sparse from the file to the
scores: the methods that model counts (:class:`~fsclust.rankers.base.RankerTags`
``counts_input``: scanpy's ``seurat_v3`` and Pearson residuals, the binomial deviance) get
them as they are, every other method their per-cell normalisation and ``log1p``
(:func:`fsclust.counts.normalize_log1p`), one copy of the values. The graph-based methods
that scale (Laplacian score, SPEC, MCFS) run on the graph of single-cell analysis
(:data:`SINGLE_CELL_PARAMS`): a kNN graph on principal components.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import scipy.sparse as sp

from fsclust.ranking import combined_ranks

__all__ = ["select_features", "rank_genes", "combined_ranks", "SINGLE_CELL_PARAMS"]

#: Parameters every graph-based ranker that scales gets on single-cell counts, where its class
#: takes them (a user's ``method_params`` win): the graph of scanpy's ``pp.pca`` and
#: ``pp.neighbors`` (15 neighbours, 50 components) on the 2,000 ``seurat_v3`` genes of the
#: counts (:func:`fsclust.counts.graph_genes`; ``"dispersion"``, scanpy's ``seurat`` flavor
#: on the log-normalised values, was the preset until 2026-11-28: 0.856 of the planted markers
#: at 10^5 cells against 0.946, :data:`fsclust.counts.preprocess.GRAPH_GENES`).
SINGLE_CELL_PARAMS = {"graph": "pca", "n_neighbors": 15, "n_pcs": 50, "graph_features": 2000,
                      "graph_prefilter": "seurat_v3"}


def _ranker(method, method_params, random_state):
    """The registered ranker with the single-cell preset where it applies (its graph genes
    are set by :func:`fsclust.counts.graph_genes` once the counts are at hand)."""
    from fsclust.registry import make_ranker, ranker_class

    takes = ranker_class(method)().get_params()
    params = {key: value for key, value in SINGLE_CELL_PARAMS.items() if key in takes}
    params.update(method_params or {})
    valid = dict(params, graph_prefilter="dispersion") if "graph_prefilter" in params else params
    return make_ranker(method, valid, random_state=random_state), params


def _counts_matrix(adata, layer):
    """``adata.X`` or ``adata.layers[layer]``, refused in one line when absent."""
    if layer is None:
        X = adata.X
        if X is None:
            layers = list(adata.layers.keys())
            raise ValueError(f"adata.X is empty; pass layer= one of {layers}" if layers
                             else "adata.X is empty and adata has no layers: no counts to rank")
        return X
    if layer not in adata.layers:
        raise ValueError(f"layer={layer!r} is not in adata.layers "
                         f"({', '.join(map(repr, adata.layers.keys())) or 'none'})")
    return adata.layers[layer]


def rank_genes(X, method="laplacian", *, normalize=True, min_cells=3, target_sum=None,
               method_params=None, random_state=0, source="the matrix"):
    """Scores and ranks of every gene of a cells x genes matrix (the core of
    :func:`select_features`, for a matrix without AnnData).

    Parameters
    ----------
    X : scipy.sparse matrix, ndarray or Dask array of shape (n_cells, n_genes)
        Raw counts (``normalize=True``) or log-normalised values (``normalize=False``). A
        Dask array of CSR row blocks (a chunked store read lazily,
        :func:`fsclust.counts.chunked.read_chunked`) is ranked block by block on Dask's
        scheduler (a ``dask.distributed`` cluster when a ``Client`` is active), with the
        scores of the matrix in memory, by the methods that take one (the Laplacian score
        with its graph on principal components, the variance, the deviance); the others
        refuse it in one line (:mod:`fsclust.counts.chunked`: what runs where, and the
        memory of each part).
    method : str, default="laplacian"
        A registered method (``fsclust methods``), or several joined by ``+`` (for example
        ``"laplacian+hvg_seurat_v3"``): each ranks the genes on its own and the genes are
        ordered by the mean of their ranks (Borda's count; ties by the first method's rank),
        :func:`combined_ranks`.
    normalize : bool, default=True
        The input is raw counts: checked to be non-negative integers, normalised per cell and
        ``log1p``-transformed for the methods that do not model counts. False: the input is
        already log-normalised and is ranked as it is; a method that models counts refuses it.
    min_cells : int, default=3
        Genes seen in fewer cells are not ranked (score NaN, ranked last, never selected),
        as scanpy's ``pp.filter_genes``.
    target_sum : float or None, default=None
        Each cell's total after normalisation; None: the median total (scanpy's default).
    method_params : dict, optional
        The method's parameters, over :data:`SINGLE_CELL_PARAMS`; for methods joined by
        ``+``, a dict of each one's parameters by its name.
    random_state : int, default=0
        Seed of the method (and of the graph's approximate neighbour search).
    source : str
        How messages name the matrix.

    Returns
    -------
    scores : ndarray of shape (n_genes,)
        The method's raw scores (NaN for a gene not ranked); for methods joined by ``+``, the
        mean of their ranks (smaller is better).
    ranks : ndarray of shape (n_genes,), int
        1 = best.
    info : dict
        What was done: the genes ranked, the parameters, the normalisation, the direction.
    """
    from fsclust.counts import cells_per_gene, check_counts, graph_genes, normalize_log1p
    from sklearn.utils import get_tags as sk_tags

    from fsclust.counts import chunked

    if "+" in method:
        return _rank_genes_combined(X, method, normalize=normalize, min_cells=min_cells,
                                    target_sum=target_sum, method_params=method_params,
                                    random_state=random_state, source=source)
    ranker, params = _ranker(method, method_params, random_state)
    tags = sk_tags(ranker).ranker_tags
    dask = chunked.is_dask_array(X)
    if dask and not tags.dask_input:
        from fsclust.rankers.base import _dask_methods

        raise ValueError(f"{method} does not take a Dask array; the methods that do: "
                         f"{', '.join(_dask_methods())} (or compute X into memory first: "
                         "X.compute())")
    if not dask:
        X = sp.csr_matrix(X if sp.issparse(X) else np.asarray(X))
    n_cells, n_genes = X.shape
    if normalize:
        X = (chunked.checked_counts(X, source) if dask
             else check_counts(X, source=source, expect_counts=True))
    elif tags.counts_input:
        raise ValueError(f"{method} models raw counts and normalize=False says {source} is "
                         "already normalised; pass the raw counts (a layer such as "
                         "layer='counts') with normalize=True")
    # in blocks of stored values: a mask of all of them would be a transient of 0.6 times X
    seen = (chunked.cells_per_gene if dask else cells_per_gene)(X, positive=True)
    kept = np.flatnonzero(seen >= int(min_cells))
    if kept.size < 2:
        raise ValueError(f"{source}: only {kept.size} gene(s) seen in at least min_cells="
                         f"{min_cells} cells; lower min_cells or check the matrix")
    Xk = X if kept.size == n_genes else chunked.take_genes(X, kept) if dask else X[:, kept]
    fitted, graph_note, fallback = graph_genes(Xk, params, min_cells=min_cells,
                                               normalize=normalize,
                                               random_state=_seed(random_state))
    if "graph_prefilter" in params:
        ranker.set_params(graph_prefilter=fitted["graph_prefilter"],
                          graph_features=fitted["graph_features"])
    if fallback:
        warnings.warn(graph_note, stacklevel=2)
    if normalize and not tags.counts_input:
        if dask:  # the totals and their median over all cells, then each block (lazy)
            from fsclust.counts.preprocess import _target

            totals = chunked.cell_totals(Xk)
            Xk = chunked.normalize_log1p(Xk, totals, _target(totals, target_sum))
        else:
            Xk = normalize_log1p(Xk, target_sum=target_sum)
    ranker.fit(Xk)
    scores = np.full(n_genes, np.nan)
    scores[kept] = ranker.scores_
    order = np.concatenate([kept[ranker.feature_order_], np.setdiff1d(np.arange(n_genes), kept)])
    ranks = np.empty(n_genes, dtype=np.intp)
    ranks[order] = np.arange(1, n_genes + 1)
    info = {"method": method, "params": {k: _plain(v) for k, v in params.items()},
            "higher_is_better": bool(ranker.higher_is_better),
            "input": "counts" if tags.counts_input else (
                "log1p of per-cell normalised counts" if normalize else "as given"),
            "n_cells": int(n_cells), "n_genes": int(n_genes), "n_genes_ranked": int(kept.size),
            "min_cells": int(min_cells), "random_state": random_state}
    if graph_note is not None:
        info["graph_genes"] = graph_note
    return scores, ranks, info


def _rank_genes_combined(X, method, *, method_params, **kwargs):
    """:func:`rank_genes` for methods joined by ``+``: each ranks on its own (its own input,
    counts or their log, and its own preset), then :func:`combined_ranks`.

    Measured on synthetic counts (``speed/singlecell_fusion.py``, the tuning set):
    ``laplacian+hvg_seurat_v3`` puts 0.694, 0.926 and 0.986 of the planted markers in its top
    500 at 10^4, 10^5 and 10^6 cells, against ``hvg_seurat_v3``'s 0.550, 0.876, 0.964 and the
    Laplacian score's 0.760, 0.946, 0.918; judged once on the single-cell benchmark's real sets
    (docs/singlecell.md), where it leads with k-means from 1,000 genes and is not the default."""
    from fsclust.ranking import joined_methods, rank_joined

    parts = joined_methods(method)
    method_params = dict(method_params or {})
    stray = sorted(set(method_params) - set(parts))
    if stray:
        raise ValueError(f"method_params for {method!r} is a dict of each method's parameters "
                         f"by its name ({', '.join(parts)}); got keys {stray}")
    scores, final, info, first = rank_joined(
        method, lambda part, params: rank_genes(X, part, method_params=params, **kwargs),
        method_params)
    info.update({key: first[key] for key in ("n_cells", "n_genes")})
    return scores, final, info


def _seed(random_state):
    """An int seed from ``random_state`` (None: 0), for the graph genes' cell subsample."""
    if random_state is None:
        return 0
    if isinstance(random_state, (int, np.integer)):
        return int(random_state)
    import copy

    # a copy: the ranker draws from the same RandomState after this
    return int(copy.deepcopy(random_state).randint(2**31 - 1))


def _plain(value):
    """A parameter as JSON/HDF5 can store it."""
    if isinstance(value, np.generic):
        return value.item()
    return value if isinstance(value, (bool, int, float, str)) or value is None else str(value)


def _combine_batches(per_batch, n_top_genes):
    """scanpy's combination of per-batch selections (``seurat_v3``): genes ordered by the
    number of batches that select them (most first), then by their median rank."""
    ranks = np.vstack(per_batch)  # (batches, genes)
    n_batches = (ranks <= n_top_genes).sum(axis=0)
    median = np.median(ranks, axis=0)
    order = np.lexsort((np.arange(ranks.shape[1]), median, -n_batches))
    final = np.empty(ranks.shape[1], dtype=np.intp)
    final[order] = np.arange(1, ranks.shape[1] + 1)
    return final, n_batches, median


def select_features(adata, method="laplacian", n_top_genes=2000, *, layer=None, batch_key=None,
                    inplace=True, subset=False, key_added="fsclust", normalize=True,
                    min_cells=3, target_sum=None, method_params=None, random_state=0):
    """Rank the genes of single-cell counts with an fsclust method and select the top ones.

    The counterpart of scanpy's ``pp.highly_variable_genes`` for every registered method
    (``fsclust methods``), with the same conventions.

    Parameters
    ----------
    adata : anndata.AnnData
        Cells in rows; raw counts in ``X`` or in ``layers[layer]``, sparse or dense, or a
        Dask array of CSR row blocks (:func:`rank_genes`).
    method : str, default="laplacian"
        A registered method, or several joined by ``+`` and ordered by the mean of their
        ranks (:func:`rank_genes`).
    n_top_genes : int, default=2000
        Genes selected.
    layer : str, optional
        The layer holding the counts (for example ``"counts"``); None: ``X``.
    batch_key : str, optional
        A column of ``adata.obs``: each batch is ranked on its own (the graph built within
        the batch) and the ranks are combined as scanpy's ``seurat_v3`` does: by the number
        of batches that select a gene (``{key_added}_n_batches``), then by the median rank.
    inplace : bool, default=True
        Write the results into ``adata.var`` and ``adata.uns[key_added]``; False: return them.
    subset : bool, default=False
        Keep only the selected genes (in place).
    key_added : str, default="fsclust"
        Prefix of the ``var`` columns and key of ``uns``.
    normalize, min_cells, target_sum, method_params, random_state
        See :func:`rank_genes`.

    Returns
    -------
    None or pandas.DataFrame
        With ``inplace=False``, a DataFrame indexed by ``adata.var_names`` with columns
        ``{key_added}_score``, ``_rank``, ``_selected`` (and ``_n_batches``).

    Examples
    --------
    >>> import anndata
    >>> from fsclust.counts import synthetic_counts
    >>> X, cell_types, markers = synthetic_counts(600, 300, n_types=3, markers_per_type=10)
    >>> adata = anndata.AnnData(X)
    >>> select_features(adata, n_top_genes=30)
    >>> int(adata.var["fsclust_selected"].sum()), int(adata.var["fsclust_rank"].min())
    (30, 1)
    >>> adata.uns["fsclust"]["method"]
    'laplacian'
    """
    n_top_genes = int(n_top_genes)
    if n_top_genes < 1 or n_top_genes > adata.n_vars:
        raise ValueError(f"n_top_genes={n_top_genes}: give between 1 and the {adata.n_vars} "
                         "genes")
    if subset and not inplace:
        raise ValueError("subset=True works in place; pass inplace=True (or subset the "
                         "returned table's selected genes yourself)")
    X = _counts_matrix(adata, layer)
    source = f"adata.layers[{layer!r}]" if layer else "adata.X"
    frame = pd.DataFrame(index=adata.var_names.copy())
    uns = {"n_top_genes": n_top_genes, "layer": layer, "batch_key": batch_key}
    if batch_key is None:
        scores, ranks, info = rank_genes(X, method, normalize=normalize, min_cells=min_cells,
                                         target_sum=target_sum, method_params=method_params,
                                         random_state=random_state, source=source)
        frame[f"{key_added}_score"] = scores
        frame[f"{key_added}_rank"] = ranks
    else:
        if batch_key not in adata.obs:
            raise ValueError(f"batch_key={batch_key!r} is not a column of adata.obs "
                             f"({', '.join(map(repr, adata.obs.columns[:10]))})")
        batches = pd.Categorical(adata.obs[batch_key])
        per_batch, per_scores, sizes = [], [], {}
        for code, name in enumerate(batches.categories):
            rows = np.flatnonzero(batches.codes == code)
            if rows.size < 3:
                raise ValueError(f"batch {name!r} of {batch_key!r} has {rows.size} cell(s); "
                                 "each batch needs at least 3")
            scores, ranks, info = rank_genes(X[rows], method, normalize=normalize,
                                             min_cells=min_cells, target_sum=target_sum,
                                             method_params=method_params,
                                             random_state=random_state,
                                             source=f"{source}, batch {name!r}")
            per_batch.append(ranks)
            per_scores.append(scores)
            sizes[str(name)] = int(rows.size)
        final, n_batches, median = _combine_batches(per_batch, n_top_genes)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN genes
            frame[f"{key_added}_score"] = np.nanmedian(np.vstack(per_scores), axis=0)
        frame[f"{key_added}_rank"] = final
        frame[f"{key_added}_n_batches"] = n_batches
        frame[f"{key_added}_median_rank"] = median
        uns["batches"] = sizes
    frame[f"{key_added}_selected"] = frame[f"{key_added}_rank"].to_numpy() <= n_top_genes
    info.pop("n_cells", None)
    uns.update(info)
    uns["n_cells"] = int(adata.n_obs)
    if not inplace:
        return frame
    for column in frame.columns:
        adata.var[column] = frame[column].to_numpy()
    adata.uns[key_added] = uns
    if subset:
        adata._inplace_subset_var(frame[f"{key_added}_selected"].to_numpy())
    return None
