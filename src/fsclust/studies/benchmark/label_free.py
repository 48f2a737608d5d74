"""The label-free part of the cross-dataset benchmark (issue 27): m and K chosen without labels.

One job per (dataset, method) fits a :class:`~fsclust.selection.LabelFreeSelector` on the
dataset *without its labels* (:func:`fit_selector`, in a child process under the time limit
of :func:`fsclust.steps.within_time_limit`), with the method at its defaults, the candidate m
the experiment's fixed fractions of d (:func:`fraction_counts`), the candidate K the
configured label-free range, the selector's own criterion and rule, ``n_resamples``
subsamples and a random state derived from the configured seed. From its ``criteria_``:

- m rule "label-free", K rule "true": m-hat is :func:`~fsclust.selection.choose` on the rows
  at the true K. A true K outside the label-free range is added to the K the selector scores
  but is never a candidate for K-hat (:class:`_RangeSelector`); every K's criterion is
  computed on its own clusterings, so the extra K leaves the other rows as they were (MCFS,
  whose rankings at every K come from one fit at the largest, to round-off). m-hat is one of
  the fixed fractions' m, so these rows are the fixed-fraction sweep's rows at m-hat: the
  same ranking (the method at its defaults, fitted with the true K), the same clusterings
  (:func:`label_free_scores`).
- m rule "label-free", K rule "label-free": the whole pipeline without labels: (m-hat,
  K-hat) chosen jointly in the label-free range, the selector's own ``ranker_`` (fitted on
  all samples at K-hat when the method takes a number of clusters), its top m-hat features
  clustered by each of the experiment's clusterers into K-hat groups at every seed
  (:func:`run`). Only then are the labels read, to score.

The controls: ``random`` gets one selector fit (its random state from the configured seed),
whose m-hat serves every ranker seed of the fixed part; all features gets K-hat from a
selector with n_features = d (its rows have m rule "100%", K rule "label-free").
"""

from __future__ import annotations

import json
import logging
import math
import time
from typing import NamedTuple

import numpy as np
import pandas as pd

from fsclust.registry import ALL_FEATURES
from fsclust.selection import LabelFreeSelector, choose

log = logging.getLogger("fsclust")

#: The rule name of a label-free m or K in the benchmark's tables.
LABEL_FREE = "label-free"
#: The ranker of the all-features control's selector: with n_features = d every ranking
#: selects every feature, so the cheapest one.
ALL_FEATURES_RANKER = "random"
#: costs.tsv names the cost of a method's selector fit ``{method}{COST_SUFFIX}``, beside the
#: row of its ranking's cost (``{method}``).
COST_SUFFIX = "+label-free"
#: Columns of a job's label-free K rows (``{method}.tsv``); the metrics go before status.
ROW_KEYS = ("clusterer", "seed", "n_features", "n_clusters")
#: Which label-free jobs a run builds (config key ``label_free_jobs``): all of them (a
#: cluster), those declared to run on this machine (``label_free: here``), or none.
SCOPES = ("all", "here", "none")
#: Minutes a job needs beside its selector fit: loading, the label-free K's clusterings at
#: every seed, writing (measured: under 2 min on the largest set, Isolet).
MARGIN_MIN = 10


def fraction_counts(fractions, n_features):
    """The m of each fixed fraction f of d, ``max(1, round(f d))`` (the sweep's
    ``{fraction: f}``, :func:`fsclust.steps.sweep_grid`), each once.

    Examples
    --------
    >>> fraction_counts([0.01, 0.02, 0.05, 0.5], 64)
    [1, 3, 32]
    """
    return sorted({max(1, int(round(f * n_features))) for f in fractions})


class _RangeSelector(LabelFreeSelector):
    """A :class:`~fsclust.selection.LabelFreeSelector` whose K-hat is chosen among
    ``candidate_clusters`` only; the other K of ``n_clusters_range`` (the true K) are scored
    in ``criteria_`` and never chosen. Set ``candidate_clusters`` before ``fit``; None: all."""

    candidate_clusters = None

    def _choose(self, table):
        if self.candidate_clusters is not None:
            table = table[table["n_clusters"].isin(self.candidate_clusters)]
        return super()._choose(table)


class SelectorFit(NamedTuple):
    """What a label-free job keeps of its selector fit: the ``criteria_`` table, m-hat at
    the true K (None: no true K), the joint (m-hat, K-hat), the eigengap's K (reported), the
    selection of ``ranker_`` (its feature order, or ``{m-hat: subset}`` for a method whose
    subsets are not nested), why that ranking is degenerate (None: it is not), the fit's
    wall time and, from :func:`fsclust.steps.within_time_limit`, its peak memory above the
    job's (MB)."""

    criteria: pd.DataFrame
    n_features_true_k: int | None
    n_features: int
    n_clusters: int
    eigengap_n_clusters: int
    selection: object
    degenerate: str | None
    seconds: float
    max_rss_mb: float | None = None


def fit_selector(X, *, method, n_features_grid, n_clusters_range, true_n_clusters=None,
                 n_resamples=30, random_state=None, method_params=None):
    """Fit the label-free selector on ``X`` (no labels) and read its choices.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    method : str or None
        A registered ranker at its defaults (with ``method_params``); None: the all-features
        control (``n_features_grid`` must be ``[d]``).
    n_features_grid : list of int
        The candidate m.
    n_clusters_range : list of int
        The candidate K of the label-free choice.
    true_n_clusters : int, optional
        Also scored, for m-hat at the true K, and never a candidate for K-hat.
    n_resamples : int
    random_state : int

    Returns
    -------
    SelectorFit
    """
    from fsclust.rankers.base import nested_selection, selected_features
    from fsclust.steps import degenerate_reason

    start = time.perf_counter()
    ks = sorted({*map(int, n_clusters_range), *([int(true_n_clusters)]
                                                   if true_n_clusters else [])})
    selector = _RangeSelector(method or ALL_FEATURES_RANKER, method_params,
                              n_features_grid=n_features_grid, n_clusters_range=ks,
                              n_resamples=n_resamples, n_jobs=1, random_state=random_state)
    selector.candidate_clusters = [int(k) for k in n_clusters_range]
    selector.fit(X)  # no y: the choice is label-free
    criteria = selector.criteria_
    m_true = None
    if true_n_clusters:
        at_true = criteria[criteria["n_clusters"] == int(true_n_clusters)]
        m_true = choose(at_true, selector.criterion, selector.rule,
                        n_features_in=X.shape[1])[0]
    ranker, m = selector.ranker_, selector.n_features_
    if method is None:
        selection, degenerate = np.arange(X.shape[1]), None
    else:
        selection = (np.asarray(ranker.feature_order_) if nested_selection(ranker)
                     else {m: np.sort(selected_features(ranker, m))})
        degenerate = degenerate_reason(method, ranker)
    return SelectorFit(criteria, m_true, m, selector.n_clusters_,
                       selector.eigengap_n_clusters_, selection, degenerate,
                       time.perf_counter() - start)


def settings_of(experiment):
    """The experiment's ``label_free`` block with its defaults."""
    block = dict(experiment.get("label_free") or {})
    block.setdefault("n_clusters_range", list(range(2, 11)))
    block.setdefault("n_resamples", 30)
    block.setdefault("seed", 0)
    block.setdefault("mem_mb", 4000)
    return block


def job_methods(experiment):
    """The method keys of the label-free jobs: every method, and the all-features control
    when the experiment has it."""
    return [*experiment["methods"], *([ALL_FEATURES] if experiment.get("all_features", True)
                                       else [])]


def planned_jobs(experiment, datasets, scope="all"):
    """The (dataset, method) label-free jobs a run builds: all, those of ``label_free: here``
    (a list of ``{datasets: [...], methods: [...]}`` blocks, each meaning every pair; a block
    without ``datasets`` means every dataset), or none (``scope``, :data:`SCOPES`). In the
    experiment's dataset and method order.

    Examples
    --------
    >>> exp = {"methods": {"pca": {}, "udfs": {}}, "label_free": {"here": [
    ...        {"methods": ["pca", "all-features"]}, {"datasets": ["b"], "methods": ["udfs"]}]}}
    >>> planned_jobs(exp, ["a", "b"], "here")
    [('a', 'pca'), ('a', 'all-features'), ('b', 'pca'), ('b', 'udfs'), ('b', 'all-features')]
    """
    if scope not in SCOPES:
        raise ValueError(f"label_free_jobs must be one of {SCOPES}, got {scope!r}")
    if "label_free" not in experiment:
        return []
    every = [(ds, m) for ds in datasets for m in job_methods(experiment)]
    if scope == "all":
        return every
    if scope == "none":
        return []
    here = settings_of(experiment).get("here", [])
    wanted = {(ds, m) for block in here for ds in block.get("datasets", datasets)
              for m in block["methods"]}
    return [job for job in every if job in wanted]


def job_paths(name, experiment, datasets, scope, suffix):
    """``results/{name}/label_free/{dataset}/{method}{suffix}`` of every job of
    :func:`planned_jobs` (a rule's input list)."""
    return [f"results/{name}/label_free/{dataset}/{method}{suffix}"
            for dataset, method in planned_jobs(experiment, datasets, scope)]


def job_settings(experiment, method):
    """What a label-free job of ``method`` reads of its experiment (its parameters: a change
    elsewhere in the experiment does not rerun it)."""
    methods = {} if method == ALL_FEATURES else {method: experiment["methods"][method]}
    return {"methods": methods, "label_free": settings_of(experiment),
            **{key: experiment[key] for key in ("seeds", "clusterers", "metrics", "sweep")}}


def runtime_minutes(experiment, method=None):
    """The SLURM runtime of a label-free job: its time limit (the method's own, else the
    block's) plus :data:`MARGIN_MIN`, in whole minutes."""
    limit = time_limit(experiment, method)
    return int(math.ceil(limit / 60)) + MARGIN_MIN


def time_limit(experiment, method=None):
    """Seconds a selector fit may take: the method's own ``time_limit_s`` (it limits every
    fit of that method), else ``label_free.time_limit_s``."""
    from fsclust.steps import method_time_limit

    spec = experiment["methods"].get(method, {}) if method else {}
    return method_time_limit(spec, settings_of(experiment)["time_limit_s"])


def _failure_rows(status, clusterers, seeds, n_clusters, metrics):
    """The rows of a job whose selector or ranking gave nothing to cluster: empty metrics."""
    rows = pd.DataFrame([(k, s) for k in clusterers for s in seeds], columns=["clusterer",
                                                                              "seed"])
    rows["n_features"] = np.nan
    rows["n_clusters"] = n_clusters
    rows[list(metrics)] = np.nan
    rows["status"] = status
    return rows


def _cluster(X, y, selection, m, k, *, dataset, seeds, clusterers, metrics):
    """Each clusterer on the top m of ``selection`` into k groups at every seed, each
    clusterer drawing the seed's stream of the fixed part (:func:`fsclust.steps.evaluation._sweep_run`),
    so the rows pair with it; a clusterer that raises gives a "failed" row."""
    from fsclust.steps.seeds import derive_seed
    from fsclust.steps.sweep import run_sweep

    fitted = {}  # one selection for every seed: NJW fitted once and relabelled
    frames = []
    for seed in seeds:
        states = {key: derive_seed(seed, dataset, spec.get("seed_key", key))
                  for key, spec in clusterers.items()}
        result = run_sweep(X, y, selection, [m], clusterers, n_clusters=k,
                           random_states=states, metrics=metrics, fitted=fitted,
                           record_failures=True)
        failed = result[result["status"] == "failed"] if "status" in result else result[:0]
        for row in failed.itertuples():
            log.warning("%s seed %d: %s on the label-free top %d failed: %s", dataset, seed,
                        row.clusterer, m, row.message)
        result.insert(1, "seed", seed)
        result["n_clusters"] = k
        frames.append(result)
    table = pd.concat(frames, ignore_index=True)
    table["status"] = table["status"].fillna("ok") if "status" in table else "ok"
    return table


def run(data_path, rows_path, choice_path, criteria_path, *, dataset, method, experiment):
    """Rule ``benchmark_label_free``: one (dataset, method)'s selector fit under the time
    limit, its choices (``choice_path``, JSON: m-hat at the true K, (m-hat, K-hat), status,
    seconds, peak memory), its ``criteria_`` (``criteria_path``) and its label-free K rows
    (``rows_path``: :data:`ROW_KEYS`, the metrics, status). A selector that times out,
    fails, or whose ranking is degenerate gives rows with empty metrics, never a failed job.
    """
    from fsclust._io import write_table_atomic, write_text_atomic
    from fsclust.datasets import load_dataset
    from fsclust.steps.seeds import derive_seed
    from fsclust.steps import FitFailure, within_time_limit

    settings = settings_of(experiment)
    metrics, seeds = list(experiment["metrics"]), list(experiment["seeds"])
    clusterers = experiment["clusterers"]
    ds = load_dataset(data_path)
    X, y, true_k = ds.X, ds.y, int(ds.n_classes)
    d = X.shape[1]
    control = method == ALL_FEATURES
    spec = {} if control else experiment["methods"][method]
    fractions = [point["fraction"] for point in experiment["sweep"]["n_features"]]
    grid = [d] if control else fraction_counts(fractions, d)
    limit = time_limit(experiment, None if control else method)
    random_state = derive_seed(settings["seed"], dataset, method, LABEL_FREE)
    outcome = within_time_limit(
        limit, fit_selector, X, method=None if control else spec["method"],
        method_params=spec.get("params"), n_features_grid=grid,
        n_clusters_range=settings["n_clusters_range"],
        true_n_clusters=None if control else true_k, n_resamples=settings["n_resamples"],
        random_state=random_state)
    choice = {"dataset": dataset, "method": method, "n_samples": int(X.shape[0]),
              "n_features_total": d, "true_n_clusters": true_k,
              "n_features_grid": grid, "n_clusters_range": settings["n_clusters_range"],
              "n_resamples": settings["n_resamples"], "random_state": random_state,
              "time_limit_s": limit, "seconds": round(outcome.seconds, 3)}
    if outcome.max_rss_mb is not None:
        choice["max_rss_mb"] = outcome.max_rss_mb
    if isinstance(outcome, FitFailure):
        log.warning("%s on %s: label-free selector %s: %s", method, dataset, outcome.status,
                    outcome.message)
        choice.update(status=outcome.status, message=outcome.message)
        rows = _failure_rows(outcome.status, clusterers, seeds, np.nan, metrics)
        criteria = pd.DataFrame(columns=["n_features", "n_clusters"])
    else:
        choice.update(n_features_true_k=outcome.n_features_true_k,
                      n_features=outcome.n_features, n_clusters=outcome.n_clusters,
                      eigengap_n_clusters=outcome.eigengap_n_clusters,
                      status="degenerate" if outcome.degenerate else "ok")
        log.info("%s on %s: m-hat %s at the true K = %d; (m-hat, K-hat) = (%d, %d); %.1f s",
                 method, dataset, outcome.n_features_true_k, true_k, outcome.n_features,
                 outcome.n_clusters, outcome.seconds)
        criteria = outcome.criteria
        if outcome.degenerate:
            # as the fixed part: a degenerate ranking is recorded, not clustered
            choice["message"] = outcome.degenerate
            rows = _failure_rows("degenerate", clusterers, seeds, outcome.n_clusters,
                                 metrics)
            rows["n_features"] = outcome.n_features
        else:
            rows = _cluster(X, y, outcome.selection, outcome.n_features, outcome.n_clusters,
                            dataset=dataset, seeds=seeds, clusterers=clusterers,
                            metrics=metrics)
    rows = rows[[*ROW_KEYS, *metrics, "status"]]
    write_table_atomic(criteria, criteria_path, float_format="%.10g")
    write_table_atomic(rows, rows_path, float_format="%.10g")
    write_text_atomic(choice_path, json.dumps(choice, indent=1) + "\n")


# --------------------------------------------------------------------------- the tables


def label_free_scores(sweep_rows, choice, job_rows):
    """The scores.tsv rows of one (dataset, method)'s label-free job.

    ``sweep_rows``: the method's fixed-fraction rows of scores.tsv on the dataset (all
    columns, m rule and ranker seed set); ``choice``: the job's JSON; ``job_rows``: its
    label-free K rows. The K rule "true" rows are the fixed rows at m-hat (those of the first
    fraction with empty metrics and the selector's status when it gave no m-hat); the K rule
    "label-free" rows the job's, ranker seed 0 (one selector fit)."""
    frames = []
    method = choice["method"]
    if method != ALL_FEATURES:
        m = choice.get("n_features_true_k")
        first = sweep_rows[sweep_rows["m_rule"] == sweep_rows["m_rule"].iloc[0]]
        if m is None:
            true_k = first.copy()
            true_k[["n_features", *_metrics(sweep_rows)]] = np.nan
            true_k["status"] = choice["status"]
        else:
            true_k = sweep_rows[sweep_rows["n_features"] == m].drop_duplicates(
                ["ranker_seed", "clusterer", "seed"])
        frames.append(true_k.assign(m_rule=LABEL_FREE))
    free = job_rows.copy()
    template = sweep_rows.iloc[0]
    for column in ("dataset", "family", "method"):
        free[column] = template[column]
    free["ranker_seed"] = 0
    free["m_rule"] = "100%" if method == ALL_FEATURES else LABEL_FREE
    free["k_rule"] = LABEL_FREE
    frames.append(free)
    return pd.concat(frames, ignore_index=True)[list(sweep_rows.columns)]


def _metrics(table):
    return [m for m in ("acc", "nmi", "ari") if m in table]


def label_free_costs(choices, families):
    """costs.tsv rows of the selector fits: method ``{method}+label-free`` (:data:`COST_SUFFIX`),
    the fit's own wall time and peak memory, its status and message."""
    rows = [(c["dataset"], families[c["dataset"]], c["method"] + COST_SUFFIX, c["seconds"],
             c.get("max_rss_mb", np.nan), c["status"],
             "; ".join(filter(None, [c.get("message", ""),
                                     f"label-free selector, {c['n_resamples']} subsamples"])))
            for c in choices]
    return pd.DataFrame(rows, columns=["dataset", "family", "method", "seconds", "max_rss_mb",
                                       "status", "note"])


#: Columns of tables/label_free.tsv: every planned (dataset, method), run here or not.
CHOICE_COLUMNS = ["dataset", "family", "method", "status", "n_features_total",
                  "true_n_clusters", "n_features_true_k", "n_features", "n_clusters",
                  "k_hat_is_true_k", "eigengap_n_clusters", "seconds", "max_rss_mb"]


def choices_table(choices, not_run, families):
    """tables/label_free.tsv: per (dataset, method) the label-free choices, K-hat against the
    true K, the selector's cost and status; the jobs of ``not_run`` with status "not run
    here" (planned for a cluster: ``snakemake --profile workflow/profiles/slurm``)."""
    rows = [{**c, "family": families[c["dataset"]],
             "k_hat_is_true_k": (c["n_clusters"] == c["true_n_clusters"]
                                 if "n_clusters" in c else np.nan)} for c in choices]
    rows += [{"dataset": ds, "method": m, "family": families[ds], "status": "not run here"}
             for ds, m in not_run]
    table = pd.DataFrame(rows).reindex(columns=CHOICE_COLUMNS)
    return table.sort_values(["dataset", "method"], kind="mergesort").reset_index(drop=True)
