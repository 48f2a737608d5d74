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
    ranker_seed, n_cells, n_genes, nnz, seconds, max_rss_mb, status, message``: the
    ranking's wall time and its peak memory above its process's start, measured by the
    forked child that fitted it; also of the sets only ranked here (their clusterings left
    for a cluster), which have no scores.

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
         "max_rss_mb", "status", "message"]
_KEYS = ["dataset", "method", "ranker_seed", "m_rule", "clusterer", "seed"]


def gather_tables(score_paths, cost_paths, scores_out, costs_out, *, families):
    """Write ``scores.tsv`` and ``costs.tsv`` from the jobs' tables and cost records.

    Parameters
    ----------
    score_paths, cost_paths : sequences of paths
        Every job's scores TSV and costs JSON.
    scores_out, costs_out : paths
    families : dict
        dataset -> ``"real"`` or ``"synthetic"``.
    """
    frames = [pd.read_csv(p, sep="\t", dtype={"m_rule": str}, keep_default_na=True)
              for p in score_paths]
    scores = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=SCORE_COLUMNS)
    scores["family"] = scores["dataset"].map(families)
    scores["message"] = scores["message"].fillna("")
    scores = scores.sort_values(_KEYS, kind="mergesort")[SCORES]
    records = []
    for path in cost_paths:
        job = json.loads(open(path).read())
        for ranking in job["rankings"]:
            records.append({**{k: ranking.get(k) for k in COSTS if k != "family"},
                            "family": families[job["dataset"]]})
    costs = pd.DataFrame(records, columns=COSTS)
    costs = costs.sort_values(["dataset", "method", "ranker_seed"], kind="mergesort")
    write_table_atomic(scores, scores_out, float_format="%.6g")
    write_table_atomic(costs, costs_out, float_format="%.6g")
    return scores, costs
