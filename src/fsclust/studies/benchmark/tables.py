"""The benchmark's long tables: every evaluate job of a cross-dataset benchmark gathered into
results/{experiment}/tables/scores.tsv and costs.tsv (issue 27), the report's input.

scores.tsv: one row per (dataset, method, ranker seed, clusterer, seed, m rule, K rule); costs.tsv:
one row per (dataset, method): the mean seconds of its fits (a lower bound when one was
stopped at the time limit; the seeds not fitted after a timeout left out) and the largest
peak memory of a fit above the job's (both measured by the fit's own process under the time
limit, in its sidecar), and the worst status of its fits. A method none of whose fits stopped
but whose slowest took over half its limit is noted so: per-seed times vary about twofold and
with the machine's load, so on a slower or busier machine it may stop at the limit
(docs/benchmark.md). Rows are sorted and floats written with one format, so the tables are the
same bytes whatever --cores (but for those measurements and the note they make).

The label-free jobs (fsclust.studies.benchmark.label_free), those the run built: their rows join
scores.tsv (m rule "label-free" at the true K and at the label-free K), their selector fits
costs.tsv (method "{method}+label-free"), and tables/label_free.tsv lists every planned job's
choices, the ones not run here marked so.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from fsclust._io import write_table_atomic
from fsclust.registry import ALL_FEATURES
from fsclust.steps.evaluation import NOT_FITTED
from fsclust.studies.benchmark import label_free

SCORES = ["dataset", "family", "method", "ranker_seed", "clusterer", "seed", "m_rule",
          "n_features", "k_rule", "n_clusters"]
COSTS = ["dataset", "family", "method", "seconds", "max_rss_mb", "status", "note"]
#: Worst first: the status a (dataset, method) gets from its fits.
WORST_FIRST = ("timeout", "failed", "degenerate", "ok")


def with_label_free(scores, choices, job_rows, fractions):
    """scores.tsv with each label-free job's rows, in the table's order (the K rule, then
    the m rule of the fixed fractions, all features, label-free)."""
    frames = [scores]
    for choice, rows in zip(choices, job_rows):
        mine = scores[(scores["dataset"] == choice["dataset"])
                      & (scores["method"] == choice["method"])]
        frames.append(label_free.label_free_scores(mine, choice, rows))
    table = pd.concat(frames, ignore_index=True)
    rule_order = {r: i for i, r in enumerate([*map(fraction_rule, fractions), "100%",
                                              label_free.LABEL_FREE])}
    k_order = {"true": 0, label_free.LABEL_FREE: 1}
    table = table.assign(_rule=table["m_rule"].map(rule_order), _k=table["k_rule"].map(k_order))
    table = table.sort_values(["dataset", "method", "ranker_seed", "clusterer", "seed", "_k",
                               "_rule"], kind="mergesort")
    return table.drop(columns=["_rule", "_k"]).reset_index(drop=True)


def fraction_rule(fraction):
    return f"{fraction * 100:g}%"


def scores_table(sweeps, sidecars, families, n_classes, fractions, metrics):
    """Each sweep row once per m rule whose m it is (two fractions share an m on a narrow
    set), the all-features rows as m rule "100%"."""
    shared = {(s["dataset"], s["method"]) for s in sidecars if s.get("shared_by_seeds")}
    frames = []
    for (dataset, method), rows in sweeps.groupby(["dataset", "method"], sort=True):
        d = int(sweeps.loc[(sweeps["dataset"] == dataset)
                           & (sweeps["method"] == ALL_FEATURES), "n_features"].iloc[0])
        if method == ALL_FEATURES:
            rules = {"100%": d}
        else:
            # the m of fsclust.steps.sweep_grid's {fraction: f}
            rules = {fraction_rule(f): max(1, int(round(f * d))) for f in fractions}
        for rule, m in rules.items():
            part = rows[rows["n_features"] == m].copy()
            part["m_rule"] = rule
            part["ranker_seed"] = 0 if (dataset, method) in shared else part["seed"]
            frames.append(part)
    table = pd.concat(frames, ignore_index=True)
    table["family"] = table["dataset"].map(families)
    table["k_rule"] = "true"
    table["n_clusters"] = table["dataset"].map(n_classes)
    if "status" not in table:
        table["status"] = "ok"
    rule_order = {fraction_rule(f): i for i, f in enumerate(fractions)} | {"100%": len(fractions)}
    table = table.assign(_rule=table["m_rule"].map(rule_order))
    table = table.sort_values(["dataset", "method", "ranker_seed", "clusterer", "seed", "_rule",
                               "k_rule"], kind="mergesort")
    return table[[*SCORES, *metrics, "status"]].reset_index(drop=True)


def costs_table(sidecars, families, datasets, methods, limits):
    """costs.tsv (the module docstring); ``limits`` maps each method to its time limit in
    seconds (None: no limit)."""
    rows = []
    for dataset in datasets:
        for method in methods:
            if method == ALL_FEATURES:
                rows.append((dataset, ALL_FEATURES, 0.0, 0.0, "ok",
                             "no ranking: the clusterers on all features"))
                continue
            fits = [s for s in sidecars if s["dataset"] == dataset and s["method"] == method]
            if any(s.get("shared_by_seeds") for s in fits):
                fits = fits[:1]  # one fit served every seed
            # a seed not fitted after a timeout at an earlier one ran nothing: its 0 s would
            # pull the mean under the limit the method reached
            fits = [s for s in fits if not s.get("message", "").startswith(NOT_FITTED)]
            # empty when no fit was measured (killed at the limit as it ended, or not tried)
            rss = max((s["max_rss_mb"] for s in fits if s.get("max_rss_mb") is not None),
                      default=np.nan)
            statuses = [s.get("status", "ok") for s in fits]
            status = next(w for w in WORST_FIRST if w in statuses)
            note = next((s.get("message", "") for s in fits if s.get("status", "ok") == status),
                        "")
            if len(fits) > 1:
                note = "; ".join(filter(None, [note, f"mean of {len(fits)} fits"]))
            if status == "timeout":
                # a fit stopped at the limit would have taken longer
                note = "; ".join(filter(None, [note, "a lower bound"]))
            elif limits.get(method) and fits:
                slowest = max(s["seconds"] for s in fits)
                if slowest > limits[method] / 2:
                    note = "; ".join(filter(None, [note, (
                        f"slowest fit {slowest:.1f} s, over half the {limits[method]:g} s "
                        "limit: may stop at the limit on a slower or busier machine")]))
            seconds = float(np.mean([s["seconds"] for s in fits]))
            rows.append((dataset, method, seconds, rss, status, note))
    table = pd.DataFrame(rows, columns=["dataset", "method", "seconds", "max_rss_mb", "status",
                                        "note"])
    table.insert(1, "family", table["dataset"].map(families))
    return table.sort_values(["dataset", "method"], kind="mergesort")[COSTS]


def read_sidecars(rankings_dirs):
    """Every sidecar, seed{S}.json, of the rankings directories (one method's, or a
    "dataset" grain job's with one folder per method)."""
    return [json.loads(path.read_text())
            for folder in sorted(rankings_dirs) for path in sorted(Path(folder).rglob("*.json"))]


def write_benchmark_tables(sweep_paths, rankings_dirs, label_free_paths, out, *, families,
                           n_classes, fractions, time_limits, label_free_planned):
    """Write ``out["scores"]``, ``out["costs"]`` and ``out["label_free"]`` (the module
    docstring) from the experiment's sweep TSVs, rankings folders and the label-free jobs'
    choices (``{dataset}/{method}.json``, their rows beside them as ``.tsv``).

    ``families`` and ``n_classes`` map each dataset to its family and number of classes,
    ``fractions`` are the experiment's fixed fractions of d, ``time_limits`` each method's
    limit in seconds (None: none), ``label_free_planned`` every planned label-free job
    ``(dataset, method)``, to mark those this run did not build.
    """
    sweeps = pd.concat([pd.read_csv(f, sep="\t") for f in sweep_paths], ignore_index=True)
    metrics = [m for m in ("acc", "nmi", "ari") if m in sweeps]
    sidecars = read_sidecars(rankings_dirs)
    scores = scores_table(sweeps, sidecars, families, n_classes, fractions, metrics)
    costs = costs_table(sidecars, families, sorted(set(sweeps["dataset"])),
                        sorted(set(sweeps["method"])), time_limits)
    choices = [json.loads(Path(path).read_text()) for path in label_free_paths]
    job_rows = [pd.read_csv(Path(path).with_suffix(".tsv"), sep="\t")
                for path in label_free_paths]
    scores = with_label_free(scores, choices, job_rows, fractions)
    costs = pd.concat([costs, label_free.label_free_costs(choices, families)],
                      ignore_index=True).sort_values(["dataset", "method"], kind="mergesort")
    built = {(c["dataset"], c["method"]) for c in choices}
    not_run = [job for job in label_free_planned if tuple(job) not in built]
    write_table_atomic(scores, out["scores"], float_format="%.10g")
    write_table_atomic(costs, out["costs"], float_format="%.10g")
    write_table_atomic(label_free.choices_table(choices, not_run, families), out["label_free"],
                       float_format="%.10g")
