"""The single-cell benchmark's two long tables, gathered from its jobs (per set and method,
:func:`fsclust.studies.singlecell.protocol.cluster_job` and ``rank_job``):

``scores.tsv``
    one row per (dataset, method, ranker seed, m rule, clusterer, seed): ``dataset, family,
    method, ranker_seed, m_rule, n_features, clusterer, seed, n_clusters, ari, nmi,
    marker_precision, status, message``; ``family`` is ``real`` or ``synthetic``; the m rule
    is the grid's m (``"250"`` ...; its ``n_features`` min(m, d)) or ``"all"`` for the
    all-genes control.
``costs.tsv``
    one row per ranking (dataset, method, ranker seed): ``dataset, family, method,
    ranker_seed, n_cells, n_genes, nnz, seconds, max_rss_mb, marker_precision, status,
    message``: the ranking's wall time and its peak memory above its process's start,
    measured by the forked child that fitted it; also of the sets only ranked here (their
    clusterings left for a cluster), which have no scores. ``marker_precision``, on the
    synthetic sets: the planted markers among the ranking's top genes, as many as there are
    markers (read from the ranking's ``.npz`` beside its costs and the set's
    ``var["marker_of"]``); empty on the real sets.

Rows are sorted and floats written with one format, so the tables are the same bytes
whatever ``--cores`` (but for the measured seconds and memory).
"""

from __future__ import annotations

import json

import pandas as pd

from fsclust._io import write_table_atomic
from fsclust.studies.singlecell.protocol import SCORE_COLUMNS

__all__ = ["SCORES", "COSTS", "gather_tables"]

SCORES = ["dataset", "family", *SCORE_COLUMNS[1:]]
COSTS = ["dataset", "family", "method", "ranker_seed", "n_cells", "n_genes", "nnz", "seconds",
         "max_rss_mb", "marker_precision", "status", "message"]
_KEYS = ["dataset", "method", "ranker_seed", "m_rule", "clusterer", "seed"]


def _planted(path):
    """A synthetic set's planted markers (gene indices) from its ``var["marker_of"]``, read
    without its counts."""
    import anndata
    import numpy as np

    var = anndata.read_h5ad(path, backed="r").var
    return np.flatnonzero(var["marker_of"].astype(str).to_numpy() != "none")


def _ranking_precisions(ranking_path, planted):
    """Each draw's share of ``planted`` among its top ``len(planted)`` genes (NaN where the
    ranking failed)."""
    import numpy as np

    with np.load(ranking_path) as z:
        ranks, status = z["ranks"], z["status"]
    top = ranks <= planted.size
    hits = top[:, planted].sum(axis=1) / planted.size
    return [float(h) if s == "ok" else float("nan") for h, s in zip(hits, status)]


def gather_tables(score_paths, cost_paths, scores_out, costs_out, *, families,
                  synthetic_data=None):
    """Write ``scores.tsv`` and ``costs.tsv`` from the jobs' tables and cost records.

    Parameters
    ----------
    score_paths, cost_paths : sequences of paths
        Every job's scores TSV and costs JSON.
    scores_out, costs_out : paths
    families : dict
        dataset -> ``"real"`` or ``"synthetic"``.
    synthetic_data : dict, optional
        synthetic dataset -> its ``.h5ad``: the planted markers the rankings are scored on
        (each ranking's ``.npz`` is its costs JSON's path with the suffix ``.npz``).
    """
    from pathlib import Path

    frames = [pd.read_csv(p, sep="\t", dtype={"m_rule": str}, keep_default_na=True)
              for p in score_paths]
    scores = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=SCORE_COLUMNS)
    scores["family"] = scores["dataset"].map(families)
    scores["message"] = scores["message"].fillna("")
    scores = scores.sort_values(_KEYS, kind="mergesort")[SCORES]
    records = []
    planted = {name: _planted(path) for name, path in (synthetic_data or {}).items()}
    for path in cost_paths:
        job = json.loads(open(path).read())
        precisions = ([float("nan")] * len(job["rankings"]) if job["dataset"] not in planted
                      else _ranking_precisions(Path(path).with_suffix(".npz"),
                                               planted[job["dataset"]]))
        for ranking, precision in zip(job["rankings"], precisions):
            records.append({**{k: ranking.get(k) for k in COSTS if k != "family"},
                            "family": families[job["dataset"]],
                            "marker_precision": precision})
    costs = pd.DataFrame(records, columns=COSTS)
    costs = costs.sort_values(["dataset", "method", "ranker_seed"], kind="mergesort")
    write_table_atomic(scores, scores_out, float_format="%.6g")
    write_table_atomic(costs, costs_out, float_format="%.6g")
    return scores, costs
