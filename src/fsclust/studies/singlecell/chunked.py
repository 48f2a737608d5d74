"""The workflow's job that ranks the genes of a chunked store on a Dask cluster (issue 42; rule
``chunked_genes`` of workflow/rules/chunked.smk, docs/singlecell.md).

The job is the cluster's client: it reads the store lazily
(:func:`fsclust.counts.chunked.read_chunked`: a Dask array of CSR row blocks), ranks its genes
with :func:`fsclust.studies.singlecell.protocol.rank_genes` (the workflow's copy of
``fsclust.pp.rank_genes``, which it may not import: ``tests/test_layering.py``) and holds what
is not chunked (docs/singlecell.md, "What runs where"). The workers are one of

- ``"local"``: a ``LocalCluster`` on the job's node, started and closed by the job;
- an address (``tcp://host:8786``): a scheduler that runs already, for example a dask-jobqueue
  ``SLURMCluster`` a user started; the job connects and leaves it running;
- ``"slurm"``: a dask-jobqueue ``SLURMCluster`` started by the job, scaled to ``jobs`` SLURM
  jobs of one worker each, closed at the end (its workers' jobs end with it).
"""

from __future__ import annotations

import contextlib
import json
import logging
import resource
import time

import numpy as np
import pandas as pd

from fsclust._io import write_table_atomic, write_text_atomic

__all__ = ["SCHEDULERS", "dask_client", "rank_chunked_job", "scheduler_kind"]

#: The schedulers a job may name besides a running scheduler's address.
SCHEDULERS = ("local", "slurm")
#: The address schemes of ``dask.distributed``'s communications.
_SCHEMES = ("tcp://", "tls://", "ucx://", "ws://", "wss://", "inproc://")
_JOBQUEUE = "pip install dask-jobqueue"


def scheduler_kind(scheduler):
    """``"local"``, ``"slurm"`` or ``"address"``; anything else is refused in one line."""
    if scheduler in SCHEDULERS:
        return scheduler
    if isinstance(scheduler, str) and scheduler.startswith(_SCHEMES) and \
            len(scheduler.split("://", 1)[1]) > 0:
        return "address"
    raise ValueError(f"scheduler: {scheduler!r} is not 'local' (a LocalCluster on the job's "
                     "node), 'slurm' (a dask-jobqueue SLURMCluster started by the job) nor a "
                     "running scheduler's address (tcp://host:8786)")


@contextlib.contextmanager
def dask_client(scheduler, *, local=None, slurm=None):
    """A ``dask.distributed`` client on ``scheduler`` (:func:`scheduler_kind`), current within
    the block; yields ``(client, description)``. The cluster the job started (``local``,
    ``slurm``) is closed on leaving; a running scheduler (an address) is left running.

    Parameters
    ----------
    scheduler : str
    local : dict, optional
        ``workers``, ``memory_limit`` (each worker's), ``processes`` (worker processes, or
        threads of the job's process).
    slurm : dict, optional
        ``jobs``, ``cores``, ``memory``, ``walltime``, and optionally ``queue``, ``account``,
        ``job_extra_directives``: dask-jobqueue's ``SLURMCluster`` arguments (one worker a job).
    """
    kind = scheduler_kind(scheduler)
    from distributed import Client

    cluster = None
    if kind == "local":
        from distributed import LocalCluster

        local = dict(local or {})
        cluster = LocalCluster(n_workers=int(local.get("workers", 2)), threads_per_worker=1,
                               memory_limit=local.get("memory_limit", "4GB"),
                               processes=bool(local.get("processes", True)),
                               dashboard_address=":0")
        where = {"workers": int(local.get("workers", 2)),
                 "memory_limit": local.get("memory_limit", "4GB")}
    elif kind == "slurm":
        try:
            from dask_jobqueue import SLURMCluster
        except ImportError:
            raise ImportError(f"scheduler 'slurm' needs dask-jobqueue: {_JOBQUEUE}") from None
        slurm = dict(slurm or {})
        jobs = int(slurm.pop("jobs", 10))
        cluster = SLURMCluster(processes=1, **{k: v for k, v in slurm.items() if v is not None})
        cluster.scale(jobs=jobs)
        where = {"jobs": jobs, **slurm}
    try:
        client = Client(cluster if cluster is not None else scheduler)
        try:
            where = {"kind": kind, "address": client.scheduler.address, **(
                where if cluster is not None else {})}
            yield client, where
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()


def rank_chunked_job(store, table_path, info_path, *, method="laplacian", n_top_genes=2000,
                     block_cells=10_000, layer=None, params=None, min_cells=3, random_state=0,
                     scheduler="local", local=None, slurm=None):
    """Rank the genes of the chunked store ``store`` on a Dask cluster; write the genes' table
    and what was done, each atomically.

    Parameters
    ----------
    store : str or Path
        An ``.h5ad`` file or a zarr store of raw counts, which every worker can read.
    table_path : str or Path
        TSV: ``gene``, ``score`` (the method's, NaN for a gene not ranked), ``rank`` (1 = best),
        ``selected`` (``rank <= n_top_genes``); the columns ``fsclust.pp.select_features``
        writes as ``fsclust_score``, ``fsclust_rank``, ``fsclust_selected``.
    info_path : str or Path
        JSON: the store, its shape and blocks, the scheduler, the ranking's ``info``, the
        seconds of each stage and the job's peak memory.
    method, params, min_cells, random_state
        As :func:`fsclust.studies.singlecell.protocol.rank_genes`.
    n_top_genes : int
    block_cells : int
        Cells a block (:func:`fsclust.counts.chunked.read_chunked`).
    layer : str, optional
        The layer holding the counts; None: ``X``.
    scheduler, local, slurm
        Where the work runs (:func:`dask_client`).
    """
    from fsclust.counts.chunked import read_chunked

    from .protocol import rank_genes

    log = logging.getLogger(__name__)
    kind = scheduler_kind(scheduler)
    start = time.perf_counter()
    adata = read_chunked(store, block_cells=int(block_cells), layer=layer)
    X = adata.X if layer is None else adata.layers[layer]
    n_cells, n_genes = X.shape
    if not 1 <= int(n_top_genes) <= n_genes:
        raise ValueError(f"n_top_genes={n_top_genes}: give between 1 and the {n_genes} genes "
                         f"of {store}")
    n_blocks = len(X.chunks[0])
    read = time.perf_counter()
    log.info("%s: %d cells x %d genes in %d blocks of %d cells; %s on scheduler %s", store,
             n_cells, n_genes, n_blocks, block_cells, method, kind)
    with dask_client(scheduler, local=local, slurm=slurm) as (client, where):
        ready = time.perf_counter()
        log.info("client of %s (%s)", where["address"], client.dashboard_link)
        scores, ranks, info = rank_genes(X, method, params=params, min_cells=min_cells,
                                         random_state=random_state, source=str(store))
        done = time.perf_counter()
    table = pd.DataFrame({"gene": np.asarray(adata.var_names, dtype=str), "score": scores,
                          "rank": ranks, "selected": ranks <= int(n_top_genes)})
    write_table_atomic(table, table_path)
    record = {"store": str(store), "layer": layer, "n_cells": int(n_cells),
              "n_genes": int(n_genes), "block_cells": int(block_cells), "n_blocks": n_blocks,
              "n_top_genes": int(n_top_genes), "scheduler": where, "info": info,
              "seconds": {"read": round(read - start, 3), "cluster": round(ready - read, 3),
                          "rank": round(done - ready, 3),
                          "total": round(time.perf_counter() - start, 3)},
              "job_max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                                      / 1024, 1)}
    write_text_atomic(info_path, json.dumps(record, indent=1, sort_keys=True, default=str))
    log.info("ranked in %.1f s (the cluster's start %.1f s)", done - ready, ready - read)
    return record
