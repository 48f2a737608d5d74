"""The two jobs of the single-cell benchmark per set and method: the method's ranking of the
set's genes (:func:`rank_job`), then the single-cell clustering of its top m genes for every m
(:func:`cluster_job`); apart, so that a large set can be ranked (its costs measured) with
its clusterings left for a cluster.

The protocol (issue 41), its decisions stated once here:

1. **Ranking** (:func:`rank_genes`): what :func:`fsclust.pp.rank_genes` does, with the same
   bricks (the workflow may not import the front door, ``tests/test_layering.py``; a test
   checks that both give the same ranks): genes seen in fewer than ``min_cells`` = 3 cells
   are not ranked (last); the methods that model counts (``RankerTags.counts_input``:
   scanpy's flavors, the deviance) get the counts, every other method the ``log1p`` of the
   per-cell normalised counts of the ranked genes; the graph methods that scale get the
   single-cell preset (:data:`SINGLE_CELL_PARAMS`, equal to ``fsclust.pp``'s). A method
   that takes a number of clusters gets the true K, as the bulk benchmark passes it (MCFS).
   The fit runs in a forked child under the time limit
   (:func:`fsclust.steps.within_time_limit`): its wall time and its peak memory above the
   child's start are the selection's cost. ``random`` draws ``n_draws`` rankings (ranker
   seeds 0, 1, ...), each its own fit.
2. **Clustering**, for each m (:func:`cluster_top_genes`): the counts normalised per cell to
   the median total and ``log1p`` (all genes, once per job, as scanpy's ``normalize_total``
   and ``log1p`` before the highly variable genes are subset); the top m genes, or every
   gene when m >= d (then every method selects the same genes); 50 principal components
   (scikit-learn's ``PCA(svd_solver="arpack")`` of the sparse matrix, implicitly centred, as
   scanpy's ``pp.pca`` of sparse data: equal to :func:`fsclust.graphs.pca_embedding`'s
   exact covariance to 1e-12, measured, and 3 to 5 times faster at m = 2,000, whose d x d
   covariance would also refuse more than 8,192 genes); the kNN graph of the
   components (15 neighbours, binary, symmetrised: :func:`fsclust.graphs.pca_knn_graph`,
   exact up to 20,000 cells, pynndescent above); **Leiden** at the fixed resolution 1.0
   (scanpy's default for ``tl.leiden``; the number of clusters is the partition's, chosen
   without labels; a fixed default rather than a criterion: stability across subsamples
   favours the coarsest partitions, and a criterion would be a second method under test);
   **k-means** (10 restarts, the lowest inertia kept) on the components at the true K.
   Each clustering seed seeds Leiden and k-means; the embedding and the graph do not
   depend on it (their own fixed seed, ``embedding_seed``).
3. **Scores**: ARI and NMI against the cell types; on a synthetic set the planted-marker
   precision of the top m genes, ``|top m & markers| / min(m, |markers|)`` (precision up
   to the number of planted markers, the share of them found above it).

A failed or stopped ranking gives rows with empty scores and its status (``timeout``,
``failed``), which the report ranks last; a clustering that raises gives a ``failed`` row
with its message.
"""

from __future__ import annotations

import json
import resource
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp

from fsclust._io import atomic_path, write_table_atomic, write_text_atomic
from fsclust.registry import ALL_FEATURES

__all__ = ["SINGLE_CELL_PARAMS", "RANDOM", "SCORE_COLUMNS", "rank_genes", "embedding",
           "cluster_top_genes", "marker_precision", "rank_job", "cluster_job"]

#: The single-cell preset of the graph methods that scale (``fsclust.pp.SINGLE_CELL_PARAMS``;
#: the study may not import the front door, a test keeps the two equal).
SINGLE_CELL_PARAMS = {"graph": "pca", "n_neighbors": 15, "n_pcs": 50, "graph_features": 2000,
                      "graph_prefilter": "seurat_v3"}
#: The random-genes control's method name.
RANDOM = "random"
#: Columns of a job's scores table.
SCORE_COLUMNS = ["dataset", "method", "ranker_seed", "m_rule", "n_features", "clusterer",
                 "seed", "n_clusters", "ari", "nmi", "marker_precision", "status", "message"]
#: The embedding's own seed (PCA's subsample above 20,000 cells, pynndescent's trees).
EMBEDDING_SEED = 0


class Ranking(NamedTuple):
    """A ranking and its cost, as the child process of :func:`_timed_rank` sends it."""

    scores: np.ndarray
    ranks: np.ndarray
    info: dict
    seconds: float
    max_rss_mb: float | None = None


def rank_genes(X, method, *, params=None, n_clusters=None, min_cells=3, random_state=0,
               source="the counts"):
    """Scores and ranks (1 = best) of every gene of the counts ``X`` (cells x genes), as
    :func:`fsclust.pp.rank_genes` gives them with ``method_params`` = ``params`` (and
    ``n_clusters`` when the method takes one). ``X`` may be a Dask array of CSR row blocks
    (:func:`fsclust.counts.chunked.read_chunked`), ranked block by block on the current
    ``dask.distributed`` client by the methods whose ``RankerTags.dask_input`` is set, as
    ``fsclust.pp.rank_genes`` ranks it (:mod:`fsclust.studies.singlecell.chunked`).

    Returns
    -------
    scores : ndarray (NaN for a gene not ranked)
    ranks : ndarray of int
    info : dict
        The parameters, the input the method saw, the genes ranked.
    """
    from sklearn.utils import get_tags

    from fsclust.counts import (
        cells_per_gene,
        check_counts,
        chunked,
        graph_genes,
        normalize_log1p,
    )
    from fsclust.ranking import JOIN, rank_joined
    from fsclust.registry import make_ranker, ranker_class

    if JOIN in method:
        # methods joined by "+": each ranks on its own, then the mean of their ranks (as
        # fsclust.pp.rank_genes); ``params`` holds each one's parameters by its name
        return rank_joined(method, lambda part, given: rank_genes(
            X, part, params=given, n_clusters=n_clusters, min_cells=min_cells,
            random_state=random_state, source=source), params)[:3]
    takes = ranker_class(method)().get_params()
    chosen = {key: value for key, value in SINGLE_CELL_PARAMS.items() if key in takes}
    if n_clusters is not None and "n_clusters" in takes:
        chosen["n_clusters"] = int(n_clusters)
    chosen.update(params or {})
    valid = dict(chosen, graph_prefilter="dispersion") if "graph_prefilter" in chosen else chosen
    ranker = make_ranker(method, valid, random_state=random_state)
    tags = get_tags(ranker).ranker_tags
    counts_input = tags.counts_input
    # a Dask array: the branches of fsclust.pp.rank_genes (the same bricks, block by block)
    dask = chunked.is_dask_array(X)
    if dask and not tags.dask_input:
        from fsclust.rankers.base import _dask_methods

        raise ValueError(f"{method} does not take a Dask array; the methods that do: "
                         f"{', '.join(_dask_methods())}")
    X = (chunked.checked_counts(X, source) if dask
         else check_counts(sp.csr_matrix(X), source=source, expect_counts=True))
    n_genes = X.shape[1]
    seen = (chunked.cells_per_gene if dask else cells_per_gene)(X, positive=True)
    kept = np.flatnonzero(seen >= int(min_cells))
    if kept.size < 2:
        raise ValueError(f"{source}: only {kept.size} gene(s) seen in at least "
                         f"min_cells={min_cells} cells")
    Xk = X if kept.size == n_genes else chunked.take_genes(X, kept) if dask else X[:, kept]
    # the preset's graph genes (seurat_v3's of the counts), as fsclust.pp.rank_genes
    fitted, graph_note, _ = graph_genes(Xk, chosen, min_cells=min_cells,
                                        random_state=int(random_state))
    if "graph_prefilter" in chosen:
        ranker.set_params(graph_prefilter=fitted["graph_prefilter"],
                          graph_features=fitted["graph_features"])
    if not counts_input:
        if dask:  # the totals and their median over all cells, then each block (lazy)
            from fsclust.counts.preprocess import _target

            totals = chunked.cell_totals(Xk)
            Xk = chunked.normalize_log1p(Xk, totals, _target(totals, None))
        else:
            Xk = normalize_log1p(Xk)
    ranker.fit(Xk)
    scores = np.full(n_genes, np.nan)
    scores[kept] = ranker.scores_
    order = np.concatenate([kept[ranker.feature_order_],
                            np.setdiff1d(np.arange(n_genes), kept)])
    ranks = np.empty(n_genes, dtype=np.intp)
    ranks[order] = np.arange(1, n_genes + 1)
    info = {"method": method, "params": {k: _plain(v) for k, v in chosen.items()},
            "input": "counts" if counts_input else "log1p of per-cell normalised counts",
            "n_genes_ranked": int(kept.size), "min_cells": int(min_cells),
            "random_state": int(random_state)}
    if graph_note is not None:
        info["graph_genes"] = graph_note
    return scores, ranks, info


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    return value if isinstance(value, (bool, int, float, str)) or value is None else str(value)


def _rank_in_child(X, method, kwargs):
    start = time.perf_counter()
    scores, ranks, info = rank_genes(X, method, **kwargs)
    return Ranking(scores, ranks, info, time.perf_counter() - start)


def _import_for(method):
    """Import, in the job's own process, what a fit of ``method`` imports on its first call
    (the counts' checks, the ranker's module, scanpy for the flavors, pynndescent, numba and
    scanpy's seurat_v3 for the graph methods), so that the forked fit's time and memory are the method's and
    not the imports' (measured: a random ranking of 600 cells took 4 s in a child that
    imported them, 0.03 s after). Nothing of theirs runs here (numba's parallel code must not
    run before a fork, :func:`_timed_rank`)."""
    import importlib

    from sklearn.utils import get_tags

    from fsclust.ranking import joined_methods
    from fsclust.registry import ranker_class

    importlib.import_module("fsclust.counts.preprocess")
    importlib.import_module("fsclust.counts.read")
    modules = []
    for part in joined_methods(method):
        ranker = ranker_class(part)()
        if get_tags(ranker).ranker_tags.counts_input:
            modules += ["anndata", "scanpy"]
        if "graph" in ranker.get_params():
            # scanpy and scikit-misc for the graph genes (seurat_v3's, graph_genes)
            modules += ["numba", "pynndescent", "anndata", "scanpy", "skmisc.loess"]
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:  # the fit names what to install
            pass


def _timed_rank(X, method, time_limit_s, **kwargs):
    """:func:`rank_genes` in a forked child under the time limit: a :class:`Ranking` or a
    :class:`fsclust.steps.FitFailure`, each with the fit's own time and peak memory; without
    a limit (None), in this process (no memory measured).

    The job forks before it runs any parallel numba code itself (the clusterings come after
    the rankings): numba's OpenMP layer kills a forked child that starts parallel work after
    its parent did (a test process that ranked in-process must pass None)."""
    from fsclust.steps import within_time_limit

    if time_limit_s is None:
        return _rank_in_child(X, method, kwargs)
    return within_time_limit(time_limit_s, _rank_in_child, X, method, kwargs)


def embedding(Xlog, genes, *, n_pcs=50, random_state=EMBEDDING_SEED):
    """The first ``n_pcs`` principal component scores of the cells on the columns ``genes``
    of the log-normalised ``Xlog`` (module docstring, step 2)."""
    from sklearn.decomposition import PCA

    genes = np.asarray(genes, dtype=np.intp)
    n_components = int(min(n_pcs, Xlog.shape[0] - 1, genes.size - 1))
    pca = PCA(n_components=n_components, svd_solver="arpack", random_state=random_state)
    return pca.fit_transform(sp.csr_matrix(Xlog[:, genes], dtype=np.float64))


def marker_precision(genes, markers):
    """``|genes & planted markers| / min(len(genes), number of planted markers)``.

    Examples
    --------
    >>> marker_precision([0, 1, 2, 3], np.array([0, -1, 1, -1, 2, 2]))
    0.5
    """
    planted = np.flatnonzero(np.asarray(markers) >= 0)
    if planted.size == 0:
        return float("nan")
    hits = np.intersect1d(np.asarray(genes), planted).size
    return hits / min(len(genes), planted.size)


def cluster_top_genes(Xlog, genes, y, *, seeds, n_pcs=50, n_neighbors=15, resolution=1.0,
                      n_init=10, random_state=EMBEDDING_SEED):
    """Leiden and k-means (true K) on the principal components of the columns ``genes``:
    one dict per (clusterer, seed) with ``clusterer, seed, n_clusters, ari, nmi``."""
    from fsclust.cluster.kmeans import KMeans
    from fsclust.cluster.leiden import leiden_labels
    from fsclust.graphs import pca_knn_graph
    from fsclust.metrics import adjusted_rand, normalized_mutual_info

    E = embedding(Xlog, genes, n_pcs=n_pcs, random_state=random_state)
    # the graph of the components: pca_knn_graph's own PCA of E keeps all its components, a
    # rotation that leaves every distance as it was
    W = pca_knn_graph(E, n_neighbors=n_neighbors, n_pcs=E.shape[1], random_state=random_state)
    k = int(np.unique(y).size)
    rows = []
    for seed in seeds:
        labels = {"leiden": leiden_labels(W, resolution=resolution, random_state=int(seed)),
                  "kmeans": KMeans(n_clusters=k, n_init=n_init, random_state=int(seed))
                  .fit(E).labels_}
        for clusterer, found in labels.items():
            rows.append({"clusterer": clusterer, "seed": int(seed),
                         "n_clusters": int(np.unique(found).size),
                         "ari": adjusted_rand(y, found), "nmi": normalized_mutual_info(y, found)})
    return rows


def m_rules(m_grid, n_genes):
    """(m rule, number of genes) of each grid point: ``min(m, d)`` (every gene when m >= d)."""
    return [(str(int(m)), int(min(int(m), n_genes))) for m in m_grid]


def _load(data_path, settings):
    from fsclust.studies.singlecell.data import load_counts

    return load_counts(data_path, max_cells=settings.get("max_cells"),
                       seed=settings.get("subsample_seed", 0))


def rank_job(data_path, ranking_path, costs_path, *, dataset, method, settings):
    """Rank ``dataset``'s genes with ``method`` (``n_draws`` rankings for the random
    control), each fit in a forked child under the time limit; write the rankings
    (``.npz``: ``genes``, ``ranks`` and ``scores`` (draws x genes), ``ranker_seeds``,
    ``status``, ``message``) and their costs (JSON: one record per ranking).

    Parameters
    ----------
    data_path : str or Path
        A ``.h5ad`` of :mod:`fsclust.studies.singlecell.data`.
    ranking_path, costs_path : str or Path
    dataset, method : str
        ``method`` is the experiment's key.
    settings : dict
        ``ranker`` (registry name), ``params``, ``n_draws``, ``time_limit_s`` (None: rank in
        this process, the memory not measured), ``min_cells``, ``max_cells`` (a subsample, or
        None), ``subsample_seed``.
    """
    log = _logger()
    counts = _load(data_path, settings)
    X = counts.X
    n_cells, n_genes = X.shape
    log.info("%s: %d cells x %d genes, %d types; ranking by %s", dataset, n_cells, n_genes,
             counts.n_classes, method)
    draws = list(range(int(settings.get("n_draws", 1)))) if settings["ranker"] == RANDOM \
        else [0]
    ranks = np.zeros((len(draws), n_genes), dtype=np.intp)
    scores = np.full((len(draws), n_genes), np.nan)
    records = []
    _import_for(settings["ranker"])
    # every fit forks before this process runs any parallel numba code (_timed_rank)
    for row, ranker_seed in enumerate(draws):
        outcome = _timed_rank(X, settings["ranker"], settings.get("time_limit_s"),
                              params=settings.get("params"), n_clusters=counts.n_classes,
                              min_cells=settings.get("min_cells", 3),
                              random_state=int(ranker_seed), source=str(data_path))
        ok = isinstance(outcome, Ranking)
        if ok:
            ranks[row], scores[row] = outcome.ranks, outcome.scores
        records.append({"dataset": dataset, "method": method, "ranker_seed": int(ranker_seed),
                        "n_cells": n_cells, "n_genes": n_genes, "nnz": int(X.nnz),
                        "seconds": round(float(outcome.seconds), 4),
                        "max_rss_mb": outcome.max_rss_mb,
                        "status": "ok" if ok else outcome.status,
                        "message": "" if ok else outcome.message,
                        **({"info": outcome.info} if ok else {})})
        log.info("ranking %d: %s in %.1f s, %s MB above the fit's start", ranker_seed,
                 records[-1]["status"], outcome.seconds, outcome.max_rss_mb)
    with atomic_path(ranking_path, suffix=".npz") as tmp:
        np.savez_compressed(tmp, genes=np.array(counts.gene_names, dtype=str), ranks=ranks,
                            scores=scores, ranker_seeds=np.array(draws, dtype=np.int64),
                            status=np.array([r["status"] for r in records], dtype=str),
                            message=np.array([r["message"] for r in records], dtype=str))
    record = {"dataset": dataset, "method": method, "n_cells": n_cells, "n_genes": n_genes,
              "nnz": int(X.nnz), "n_classes": counts.n_classes, "rankings": records,
              "job_max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                                      / 1024, 1),
              "provenance": counts.provenance}
    write_text_atomic(costs_path, json.dumps(record, indent=1, sort_keys=True, default=str))
    return records


def cluster_job(data_path, ranking_path, scores_path, *, dataset, method, settings):
    """Cluster the top m genes of each ranking of ``ranking_path`` (None: the all-genes
    control) for every m of the grid, at every seed; write the scores (TSV,
    :data:`SCORE_COLUMNS`).

    Parameters
    ----------
    data_path : str or Path
    ranking_path : str or Path or None
        :func:`rank_job`'s rankings; a ranking that did not finish gives rows without
        scores and its status.
    scores_path : str or Path
    dataset, method : str
    settings : dict
        ``m_grid``, ``seeds``, ``n_pcs``, ``n_neighbors``, ``resolution``,
        ``kmeans_n_init``, ``max_cells``, ``subsample_seed`` (the same cells as the ranking's).
    """
    from fsclust.counts import normalize_log1p

    log = _logger()
    counts = _load(data_path, settings)
    X, y = counts.X, counts.y
    n_genes = X.shape[1]
    if ranking_path is None:
        selections = [("all", n_genes, 0, np.arange(n_genes), "ok", "")]
    else:
        stored = np.load(ranking_path)
        if list(stored["genes"]) != list(counts.gene_names):
            raise ValueError(f"{ranking_path}: its genes are not those of {data_path}")
        selections = [(rule, m, int(seed), np.argsort(ranks, kind="stable")[:m], status,
                       message)
                      for seed, ranks, status, message in zip(
                          stored["ranker_seeds"], stored["ranks"], stored["status"],
                          stored["message"])
                      for rule, m in m_rules(settings["m_grid"], n_genes)]
    Xlog = normalize_log1p(X)
    rows, done = [], {}
    seeds = [int(s) for s in settings["seeds"]]
    for rule, m, ranker_seed, genes, status, message in selections:
        base = {"dataset": dataset, "method": method, "ranker_seed": ranker_seed,
                "m_rule": rule, "n_features": m}
        if status != "ok":  # the ranking did not finish: rows without scores
            rows += [{**base, "clusterer": c, "seed": s, "status": str(status),
                      "message": str(message)} for c in ("leiden", "kmeans") for s in seeds]
            continue
        precision = (marker_precision(genes, counts.markers) if counts.markers is not None
                     else np.nan)
        key = tuple(np.sort(genes))  # m >= d: the same genes at several m, clustered once
        if key not in done:
            tick = time.perf_counter()
            try:
                done[key] = (cluster_top_genes(
                    Xlog, genes, y, seeds=seeds, n_pcs=settings.get("n_pcs", 50),
                    n_neighbors=settings.get("n_neighbors", 15),
                    resolution=settings.get("resolution", 1.0),
                    n_init=settings.get("kmeans_n_init", 10)), "")
            except Exception as error:  # noqa: BLE001 (recorded, the job goes on)
                done[key] = (None, f"{type(error).__name__}: {error}")
                log.exception("clustering %s m=%s failed", method, rule)
            log.info("%s draw %d m=%s: clustered in %.1f s", method, ranker_seed, rule,
                     time.perf_counter() - tick)
        found, failure = done[key]
        if found is None:
            rows += [{**base, "clusterer": c, "seed": s, "status": "failed",
                      "message": failure} for c in ("leiden", "kmeans") for s in seeds]
        else:
            rows += [{**base, **row, "marker_precision": precision, "status": "ok",
                      "message": ""} for row in found]
    table = pd.DataFrame(rows).reindex(columns=SCORE_COLUMNS)
    write_table_atomic(table, scores_path, float_format="%.6g")
    return table


def _logger():
    import logging

    return logging.getLogger("fsclust")
