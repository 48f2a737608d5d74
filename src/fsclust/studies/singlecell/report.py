"""The single-cell benchmark's answers (issue 41): does any method beat scanpy's highly
variable genes (``hvg_seurat_v3``), and random genes?

:func:`write_singlecell_report` reads the two tables of :mod:`fsclust.studies.singlecell.tables`
and writes ``summary.md``, ``tables/`` and ``figures/``. The statistics are the bulk
benchmark's (:mod:`fsclust.studies.benchmark.report`, Demšar 2006), called, not copied:

- a *cell* is one (dataset, method, clusterer, m rule, metric): the mean over the clustering
  seeds and, for ``random``, over its draws of those means; a cell without any score (a
  ranking stopped or failed) has *no result*, ranks last, and in the paired tests scores the
  lower of 0 and the lowest value any method reached on that dataset;
- the all-genes control (``all-features``, m rule ``all``) joins the comparison of every m;
- a *setting* is a (clusterer, metric, m); on the real sets (the blocks) the methods are
  ranked per set (1 = best, ties averaged), Friedman's test, Nemenyi's post-hoc test and
  the critical-difference diagram; each method against each control (:data:`CONTROLS`:
  random genes and ``hvg_seurat_v3``) by the two-sided Wilcoxon signed-rank test paired over
  the sets (zero differences dropped), Holm's correction over the methods compared with one
  control in one setting. With N sets the smallest two-sided p of that test is 2 / 2^N, so
  with k methods the smallest Holm-adjusted p is k 2 / 2^N: the summary says so when that
  floor is above alpha, and the wins, ties and losses carry the evidence;
- the synthetic sets are not blocks of those tests (a planted model, not cells): their ARI and
  planted-marker precision are tabulated apart;
- the time and memory ladder: each method's ranking time and peak memory on the synthetic
  sets against their number of cells, log-log, with the least-squares exponent when two sizes
  or more were run.

The same tables in any row order give the same files (sorted rows, one float format, PNG
without timestamps).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from fsclust._io import write_text_atomic
from fsclust.registry import ALL_FEATURES
from fsclust.report.figures import METRIC_LABELS, save_figure
from fsclust.report.tables import to_markdown, write_tables
from fsclust.studies.benchmark.report import (
    critical_difference,
    friedman_test,
    holm,
    nemenyi_test,
    plot_critical_difference,
    rank_methods,
    signed_rank_tests,
)

__all__ = ["RANDOM", "REFERENCE", "CONTROLS", "HEADLINE", "dataset_cells", "statistics",
           "ladder", "write_singlecell_report"]

RANDOM = "random"
#: scanpy's default flavor, the method to beat.
REFERENCE = "hvg_seurat_v3"
CONTROLS = (RANDOM, REFERENCE)
#: The setting the summary answers with: Leiden (the single-cell way), ARI, m = 1,000 (the
#: largest grid m below the 2,000 genes of the pre-selected sets, where every method selects
#: all and ties); every other setting is in the tables.
HEADLINE = {"clusterer": "leiden", "metric": "ari", "m_rule": "1000"}
ALPHA = 0.05
DECIMALS = 10
METRICS = ("ari", "nmi")
_CELL = ["family", "dataset", "clusterer", "m_rule", "method"]
_FLOAT = "%.6g"


def _m_order(rule):
    return (1, 0) if rule == "all" else (0, int(rule))


def dataset_cells(scores, metrics=METRICS):
    """One number per (family, dataset, clusterer, m rule, method, metric) (module docstring):
    columns ``value, status, n_runs``; the all-genes control's cells copied to every m rule.

    Examples
    --------
    >>> s = pd.DataFrame({"family": "real", "dataset": "d", "clusterer": "leiden",
    ...                   "m_rule": "250", "method": "random", "ranker_seed": [0, 0, 1],
    ...                   "seed": [0, 1, 0], "ari": [0.2, 0.4, 0.9], "status": "ok"})
    >>> float(dataset_cells(s, ["ari"])["value"].iloc[0])
    0.6
    """
    data = scores.copy()
    data["m_rule"] = data["m_rule"].astype(str)
    for metric in metrics:
        data[metric] = pd.to_numeric(data[metric], errors="coerce")
    data = data.sort_values([*_CELL, "ranker_seed", "seed"], kind="mergesort")
    long = data.melt(id_vars=[*_CELL, "ranker_seed", "status"], value_vars=list(metrics),
                     var_name="metric")
    keys = [*_CELL, "metric"]
    per_draw = long.groupby([*keys, "ranker_seed"], sort=True)["value"].agg(
        value="mean", n_runs="count").reset_index()
    cells = per_draw.groupby(keys, sort=True).agg(value=("value", "mean"),
                                                  n_runs=("n_runs", "sum")).reset_index()
    cells["value"] = cells["value"].round(DECIMALS)
    bad = long[long["status"] != "ok"].groupby(keys)["status"].first()
    cells = cells.merge(bad.rename("bad").reset_index(), on=keys, how="left")
    cells["status"] = cells.pop("bad").fillna("ok")
    control = cells[cells["method"] == ALL_FEATURES]
    others = cells[cells["method"] != ALL_FEATURES]
    rules = sorted(others["m_rule"].unique(), key=_m_order)
    cells = pd.concat([others, *[control.assign(m_rule=r) for r in rules]], ignore_index=True)
    return cells.sort_values(keys, kind="mergesort").reset_index(drop=True)


def _versus(values, controls):
    """Each method against each control over the datasets (rows) of ``values``."""
    matrix = values.to_numpy(dtype=float)
    floor = np.minimum(0.0, np.min(np.where(np.isnan(matrix), 0.0, matrix), axis=1))
    filled = np.where(np.isnan(matrix), floor[:, None], matrix)
    methods = list(values.columns)
    rows = []
    for control in (c for c in controls if c in methods):
        others = [j for j, m in enumerate(methods) if m != control]
        difference = filled[:, others].T - filled[:, methods.index(control)]
        statistic, p = signed_rank_tests(difference)
        adjusted = holm(p)
        for j, row, w, pv, q in zip(others, difference, statistic, p, adjusted):
            rows.append({"control": control, "method": methods[j], "n_datasets": len(matrix),
                         "wins": int((row > 0).sum()), "ties": int((row == 0).sum()),
                         "losses": int((row < 0).sum()),
                         "median_difference": float(np.median(row)),
                         "mean_difference": float(np.mean(row)), "statistic": float(w),
                         "p_value": float(pv), "p_holm": float(q),
                         "significant": bool(q < ALPHA)})
    return rows


def statistics(cells, controls=CONTROLS):
    """Mean ranks, Friedman, Nemenyi and the paired tests against the controls, per setting
    (clusterer, metric, m rule) on the real sets: a dict of DataFrames ``mean_ranks``,
    ``friedman``, ``nemenyi``, ``vs_controls``."""
    real = cells[cells["family"] == "real"]
    out = {"mean_ranks": [], "friedman": [], "nemenyi": [], "vs_controls": []}
    for (clusterer, metric, m_rule), group in real.groupby(["clusterer", "metric", "m_rule"],
                                                           sort=True):
        setting = {"clusterer": clusterer, "metric": metric, "m_rule": m_rule}
        values = group.pivot(index="dataset", columns="method", values="value")
        n, k = values.shape
        ranks = rank_methods(values)
        statistic, p = friedman_test(ranks)
        out["friedman"].append({**setting, "n_datasets": n, "n_methods": k,
                                "statistic": statistic, "p_value": p,
                                "critical_difference": critical_difference(k, n)
                                if n and k > 1 else np.nan,
                                "holm_floor": min(1.0, (k - 1) * 2.0 / 2.0**n) if n else np.nan})
        for method in values.columns:
            out["mean_ranks"].append({**setting, "method": method,
                                      "mean_rank": float(ranks[method].mean()),
                                      "mean_value": float(values[method].mean()),
                                      "n_datasets": n,
                                      "no_result": int(values[method].isna().sum())})
        if k > 1 and n > 1:
            matrix = nemenyi_test(ranks).to_numpy()
            upper = np.triu_indices(k, 1)
            out["nemenyi"].append(pd.DataFrame({**setting,
                                                "method_a": values.columns[upper[0]],
                                                "method_b": values.columns[upper[1]],
                                                "p_value": matrix[upper]}))
        out["vs_controls"] += [{**setting, **row} for row in _versus(values, controls)]
    keys = ["clusterer", "metric", "m_rule"]
    tables = {
        "mean_ranks": _sorted(pd.DataFrame(out["mean_ranks"]), [*keys, "mean_rank", "method"]),
        "friedman": _sorted(pd.DataFrame(out["friedman"]), keys),
        "nemenyi": _sorted(pd.concat(out["nemenyi"], ignore_index=True) if out["nemenyi"]
                           else pd.DataFrame(columns=[*keys, "method_a", "method_b",
                                                      "p_value"]),
                           [*keys, "method_a", "method_b"]),
        "vs_controls": _sorted(pd.DataFrame(out["vs_controls"]),
                               [*keys, "control", "p_value", "method"]),
    }
    return tables


def _sorted(table, columns):
    if table.empty:
        return table.reset_index(drop=True)
    columns = [c for c in columns if c in table.columns]

    def key(column):
        if column.name == "m_rule":
            return column.map(lambda r: f"{_m_order(r)[0]}{_m_order(r)[1]:09d}")
        return column

    return table.sort_values(columns, key=key, kind="mergesort").reset_index(drop=True)


def ladder(costs):
    """The synthetic sets' ranking costs against their number of cells: per method, the
    median seconds and the largest peak memory at each size, and the log-log least-squares
    exponents of both in the number of cells (NaN below two sizes).

    Returns
    -------
    points : DataFrame
        ``method, n_cells, seconds, max_rss_mb`` (only rankings that ended ``ok``).
    exponents : DataFrame
        ``method, n_sizes, min_cells, max_cells, time_exponent, memory_exponent``.

    Examples
    --------
    >>> c = pd.DataFrame({"family": "synthetic", "method": "m", "n_cells": [100, 1000],
    ...                   "seconds": [1.0, 10.0], "max_rss_mb": [10.0, 100.0], "status": "ok"})
    >>> float(ladder(c)[1]["time_exponent"].iloc[0])
    1.0
    """
    data = costs[(costs["family"] == "synthetic") & (costs["status"] == "ok")].copy()
    for column in ("seconds", "max_rss_mb", "n_cells"):
        data[column] = pd.to_numeric(data[column], errors="coerce")
    points = data.groupby(["method", "n_cells"], sort=True).agg(
        seconds=("seconds", "median"), max_rss_mb=("max_rss_mb", "max")).reset_index()
    rows = []
    for method, part in points.groupby("method", sort=True):
        row = {"method": method, "n_sizes": int(part["n_cells"].nunique()),
               "min_cells": int(part["n_cells"].min()), "max_cells": int(part["n_cells"].max()),
               "time_exponent": np.nan, "memory_exponent": np.nan}
        if row["n_sizes"] >= 2:
            x = np.log(part["n_cells"].to_numpy(dtype=float))
            for column, name in (("seconds", "time_exponent"),
                                 ("max_rss_mb", "memory_exponent")):
                y = part[column].to_numpy(dtype=float)
                ok = np.isfinite(y) & (y > 0)
                if ok.sum() >= 2 and np.unique(x[ok]).size >= 2:
                    row[name] = float(np.round(np.polyfit(x[ok], np.log(y[ok]), 1)[0], 6))
        rows.append(row)
    columns = ["method", "n_sizes", "min_cells", "max_cells", "time_exponent",
               "memory_exponent"]
    return points, pd.DataFrame(rows, columns=columns)


# --------------------------------------------------------------------------- figures

def _style(methods):
    import itertools

    from fsclust.report.figures import LINE_STYLES, MARKERS

    colors = [f"C{i}" for i in range(10)]
    cycle = itertools.cycle(itertools.product(LINE_STYLES, colors))
    return {m: (*next(cycle), MARKERS[i % len(MARKERS)]) for i, m in enumerate(methods)}


def plot_dataset(scores, dataset, path, *, metric="ari", title=None):
    """``metric`` against m on one set, one panel per clusterer: a line per method (mean over
    seeds), random genes as the band of its draws (lowest to highest draw mean) with their
    mean, all genes as a dashed horizontal line."""
    import matplotlib.pyplot as plt

    data = scores[(scores["dataset"] == dataset)].copy()
    data[metric] = pd.to_numeric(data[metric], errors="coerce")
    clusterers = [c for c in ("leiden", "kmeans") if (data["clusterer"] == c).any()]
    fig, axes = plt.subplots(1, max(len(clusterers), 1), figsize=(6.4 * max(len(clusterers), 1),
                                                                  4.6), squeeze=False)
    methods = sorted(set(data["method"]) - {RANDOM, ALL_FEATURES})
    styles = _style(methods)
    for ax, clusterer in zip(axes[0], clusterers):
        part = data[(data["clusterer"] == clusterer) & (data["m_rule"] != "all")]
        per_draw = part.groupby(["method", "ranker_seed", "n_features"], sort=True)[metric].mean()
        for method in methods:
            if method not in per_draw.index.get_level_values(0):
                continue
            curve = per_draw.loc[method].groupby(level="n_features").mean()
            line, color, marker = styles[method]
            ax.plot(curve.index, curve.values, linestyle=line, color=color, marker=marker,
                    markersize=4, label=method, linewidth=2.2 if method == REFERENCE else 1.3)
        if RANDOM in per_draw.index.get_level_values(0):
            draws = per_draw.loc[RANDOM].unstack(level="ranker_seed")
            ax.fill_between(draws.index, draws.min(axis=1), draws.max(axis=1), color="0.6",
                            alpha=0.35, label=f"{RANDOM} ({draws.shape[1]} draws)")
            ax.plot(draws.index, draws.mean(axis=1), color="0.35", linewidth=1.0)
        control = data[(data["clusterer"] == clusterer) & (data["method"] == ALL_FEATURES)]
        if len(control):
            ax.axhline(control[metric].mean(), color="black", linestyle="--", linewidth=1.0,
                       label=f"all {int(control['n_features'].iloc[0]):,} genes")
        ax.set_xscale("log")
        ticks = sorted(part["n_features"].dropna().unique().astype(int))
        ax.set_xticks(ticks, [f"{t:,}" for t in ticks])
        ax.minorticks_off()
        ax.set(xlabel="m (top genes)", ylabel=METRIC_LABELS.get(metric, metric),
               title=f"{clusterer}" + (" (true K)" if clusterer == "kmeans" else
                                       " (resolution 1, K its own)"))
        ax.grid(alpha=0.3)
    if clusterers:
        axes[0][-1].legend(fontsize=7, loc="best")
    fig.suptitle(title or dataset, fontsize=10)
    fig.tight_layout()
    save_figure(fig, path)


def plot_ladder(points, exponents, path):
    """Ranking time and peak memory against the number of cells, log-log, per method."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11.5, 4.6))
    methods = sorted(points["method"].unique())
    styles = _style(methods)
    slopes = exponents.set_index("method") if len(exponents) else None
    for ax, column, what, name in ((axes[0], "seconds", "ranking time (s)", "time_exponent"),
                                   (axes[1], "max_rss_mb", "peak memory above start (MB)",
                                    "memory_exponent")):
        for method in methods:
            part = points[points["method"] == method]
            line, color, marker = styles[method]
            slope = slopes.loc[method, name] if slopes is not None else np.nan
            label = method + (f" ({slope:.2f})" if np.isfinite(slope) else "")
            ax.plot(part["n_cells"], part[column].clip(lower=1e-3), linestyle=line, color=color,
                    marker=marker, label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set(xlabel="cells", ylabel=what)
        ax.grid(alpha=0.3, which="both")
        if methods:
            ax.legend(fontsize=7, title="fitted exponent", title_fontsize=7)
    fig.suptitle("The ranking's cost on the synthetic sets (each fit's own process)", fontsize=10)
    fig.tight_layout()
    save_figure(fig, path)


def diagram_name(clusterer, metric, m_rule):
    return f"cd_{clusterer}_{metric}_m{m_rule}.png"


def _write_diagrams(stats, folder):
    written = []
    for row in stats["friedman"].itertuples(index=False):
        if row.n_methods < 2 or row.n_datasets < 2:
            continue
        where = (stats["mean_ranks"][["clusterer", "metric", "m_rule"]]
                 == (row.clusterer, row.metric, row.m_rule)).all(axis=1)
        ranks = stats["mean_ranks"][where].set_index("method")["mean_rank"]
        pairs = stats["nemenyi"]
        pairs = pairs[(pairs["clusterer"] == row.clusterer) & (pairs["metric"] == row.metric)
                      & (pairs["m_rule"] == row.m_rule)]
        index = {m: i for i, m in enumerate(ranks.index)}
        matrix = np.ones((len(ranks), len(ranks)))
        a, b = pairs["method_a"].map(index).to_numpy(), pairs["method_b"].map(index).to_numpy()
        matrix[a, b] = matrix[b, a] = pairs["p_value"].to_numpy()
        p = pd.DataFrame(matrix, index=ranks.index, columns=ranks.index)
        title = (f"{row.clusterer}, {METRIC_LABELS.get(row.metric, row.metric)}, m = "
                 f"{row.m_rule}: {row.n_datasets} real sets, Friedman {_p_is(row.p_value)}, "
                 f"Nemenyi alpha = {ALPHA}")
        path = folder / diagram_name(row.clusterer, row.metric, row.m_rule)
        plot_critical_difference(ranks, p, row.critical_difference, path, title=title)
        written.append(path)
    return written


# --------------------------------------------------------------------------- summary

def _n(value, digits=3):
    return "n/a" if value is None or pd.isna(value) else f"{value:.{digits}f}"


def _p(value):
    if pd.isna(value):
        return "n/a"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def _p_is(value):
    text = _p(value)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def _select(table, **where):
    mask = np.ones(len(table), dtype=bool)
    for column, value in where.items():
        mask &= (table[column] == value).to_numpy()
    return table[mask]


class _Summary:
    def __init__(self, scores, costs, cells, stats, points, exponents, notes, headline):
        self.scores, self.costs, self.cells, self.stats = scores, costs, cells, stats
        self.points, self.exponents, self.notes = points, exponents, notes
        self.headline = headline
        self.lines = []

    def text(self):
        for section in (self.introduction, self.answer, self.per_m, self.synthetic,
                        self.costs_section, self.failures):
            section()
            self.lines.append("")
        return "\n".join(self.lines).rstrip() + "\n"

    def _words(self, **setting):
        s = {**self.headline, **setting}
        clusterer = ("Leiden (resolution 1.0, its own K)" if s["clusterer"] == "leiden"
                     else "k-means at the true K")
        return (f"{METRIC_LABELS.get(s['metric'], s['metric'])}, m = {s['m_rule']} genes, "
                f"{clusterer}")

    def introduction(self):
        sets = self.scores.drop_duplicates("dataset")[["dataset", "family"]]
        real = sorted(sets.loc[sets["family"] == "real", "dataset"])
        # the synthetic sets ranked here, clustered here or not
        synthetic = sorted(set(sets.loc[sets["family"] == "synthetic", "dataset"])
                           | set(self.costs.loc[self.costs["family"] == "synthetic", "dataset"]))
        methods = sorted(set(self.scores["method"]) - {RANDOM, ALL_FEATURES})
        seeds = sorted(self.scores["seed"].dropna().unique().astype(int))
        draws = self.scores.loc[self.scores["method"] == RANDOM, "ranker_seed"].nunique()
        grid = sorted({r for r in self.scores["m_rule"].astype(str) if r != "all"},
                      key=_m_order)
        self.lines += [
            "# Which genes for single cells? Every method against highly variable genes "
            "and random genes", "",
            f"{len(real)} real labelled sets and {len(synthetic)} synthetic "
            f"({', '.join(synthetic) or 'none'}); {len(methods)} methods "
            f"({', '.join(methods)}), random genes ({draws} draws) and all genes; the top m "
            f"genes for m in {{{', '.join(grid)}}} (all genes where a set has fewer); "
            "per-cell normalisation and log1p, 50 principal components, the 15-nearest-"
            "neighbour graph, Leiden at the fixed resolution 1.0 (scanpy's default: the "
            "number of clusters is found, not given) and k-means at the true K; "
            f"clustering seeds {', '.join(map(str, seeds))}; ARI and NMI against the cell "
            "types. Methods that take a number of clusters get the true K (MCFS), as in the "
            "bulk benchmark.", ""]
        rows = []
        for dataset in real + synthetic:
            part = self.costs[self.costs["dataset"] == dataset]
            n_cells = int(part["n_cells"].iloc[0]) if len(part) else np.nan
            n_genes = int(part["n_genes"].iloc[0]) if len(part) else np.nan
            rows.append({"set": dataset,
                         "cells": f"{n_cells:,}" if np.isfinite(n_cells) else "-",
                         "genes": f"{n_genes:,}" if np.isfinite(n_genes) else "-",
                         "genes are": self.notes.get("genes", {}).get(dataset, "all of the "
                                                                      "source's")})
        self.lines += [to_markdown(pd.DataFrame(rows)), "",
                       "Where the source pre-selected the genes, every method selects within "
                       "them and every result on that set is a result within the source's "
                       "selection.", ""]
        for note in self.notes.get("not_run", []):
            self.lines.append(f"- Not run here: {note}")

    def _ranks(self, **setting):
        s = {**self.headline, **setting}
        return _select(self.stats["mean_ranks"], **s).sort_values(["mean_rank", "method"],
                                                                   kind="mergesort")

    def _friedman(self, **setting):
        rows = _select(self.stats["friedman"], **{**self.headline, **setting})
        return rows.iloc[0] if len(rows) else None

    def answer(self):
        self.lines += ["## The answer", ""]
        friedman = self._friedman()
        ranks = self._ranks()
        if friedman is None or ranks.empty:
            self.lines.append(f"No real set was run for {self._words()}.")
            return
        order = ", ".join(f"{r.method} ({r.mean_rank:.2f}; mean {r.mean_value:.3f})"
                          for r in ranks.itertuples())
        self.lines += [
            f"**{self._words()}**, {friedman['n_datasets']} real sets, mean rank (1 = best; "
            f"mean {METRIC_LABELS.get(self.headline['metric'])}): {order}. Friedman "
            f"chi2 = {_n(friedman['statistic'], 1)}, {_p_is(friedman['p_value'])}; "
            f"Nemenyi's critical difference {_n(friedman['critical_difference'], 2)}.", "",
            f"![Critical-difference diagram, {self._words()}](figures/"
            f"{diagram_name(**self.headline)})", ""]
        versus = _select(self.stats["vs_controls"], **self.headline)
        floor = friedman["holm_floor"]
        if floor >= ALPHA:
            self.lines += [
                f"With {friedman['n_datasets']} sets the smallest two-sided Wilcoxon p is "
                f"2/2^{friedman['n_datasets']} = {2 / 2 ** friedman['n_datasets']:.4f}, and "
                f"Holm's correction over the {friedman['n_methods'] - 1} methods compared "
                f"with a control raises the smallest attainable adjusted p to "
                f"{_n(floor, 3)}: no method can be significant at {ALPHA} against a "
                "control with this many sets; the wins, ties and losses below are the "
                "evidence.", ""]
        for control, name in ((REFERENCE, "scanpy's seurat_v3 highly variable genes"),
                              (RANDOM, "random genes")):
            rows = _select(versus, control=control)
            if rows.empty:
                self.lines.append(f"- {name}: not run.")
                continue
            beat = rows[(rows["wins"] > rows["losses"])].sort_values(
                ["p_holm", "method"], kind="mergesort")
            significant = rows[rows["significant"] & (rows["median_difference"] > 0)]
            listed = "; ".join(
                f"{r.method} (wins/ties/losses {r.wins}/{r.ties}/{r.losses}, median "
                f"difference {r.median_difference:+.3f}, Holm {_p_is(r.p_holm)})"
                for r in beat.itertuples()) or "none"
            self.lines.append(
                f"- Against {name} (`{control}`): more wins than losses: {listed}. "
                f"Significantly better (Holm-adjusted p < {ALPHA}): "
                f"{', '.join(sorted(significant['method'])) or 'none'}.")
        self.lines += ["", to_markdown(self._control_table(versus)), ""]

    def _control_table(self, versus):
        rows = []
        for rank in self._ranks().itertuples():
            row = {"method": rank.method, "mean rank": f"{rank.mean_rank:.2f}",
                   "mean": f"{rank.mean_value:.3f}"}
            for control in (REFERENCE, RANDOM):
                v = _select(versus, control=control, method=rank.method)
                if len(v):
                    v = v.iloc[0]
                    row[f"vs {control} W/T/L"] = f"{v['wins']}/{v['ties']}/{v['losses']}"
                    row[f"Holm p ({control})"] = _p(v["p_holm"]) + ("*" if v["significant"]
                                                                    else "")
                else:
                    row[f"vs {control} W/T/L"] = row[f"Holm p ({control})"] = "-"
            rows.append(row)
        return pd.DataFrame(rows)

    def per_m(self):
        self.lines += ["## Every m and both clusterers", "",
                       "Best mean rank per setting on the real sets (ARI), the reference's "
                       "and random genes' ranks, and the methods with more wins than losses "
                       "against the reference; every setting and NMI: `tables/`.", ""]
        rows = []
        friedman = self.stats["friedman"]
        for f in friedman[friedman["metric"] == "ari"].itertuples():
            ranks = self._ranks(clusterer=f.clusterer, metric="ari", m_rule=f.m_rule)
            if ranks.empty:
                continue
            top = ranks.iloc[0]
            ref = ranks[ranks["method"] == REFERENCE]
            rnd = ranks[ranks["method"] == RANDOM]
            versus = _select(self.stats["vs_controls"], clusterer=f.clusterer, metric="ari",
                             m_rule=f.m_rule, control=REFERENCE)
            better = versus[versus["wins"] > versus["losses"]]
            rows.append({"clusterer": f.clusterer, "m": f.m_rule, "sets": f.n_datasets,
                         "Friedman p": _p(f.p_value),
                         "best (mean rank, mean ARI)": f"{top['method']} "
                         f"({top['mean_rank']:.2f}, {top['mean_value']:.3f})",
                         REFERENCE: f"{ref['mean_rank'].iloc[0]:.2f}" if len(ref) else "-",
                         RANDOM: f"{rnd['mean_rank'].iloc[0]:.2f}" if len(rnd) else "-",
                         f"wins > losses vs {REFERENCE}": ", ".join(sorted(better["method"]))
                         or "none"})
        if rows:
            table = pd.DataFrame(rows)
            table["_m"] = table["m"].map(lambda r: _m_order(r)[1])
            table = table.sort_values(["clusterer", "_m"], kind="mergesort").drop(columns="_m")
            self.lines += [to_markdown(table), ""]
        sets = sorted(self.scores.loc[self.scores["family"] == "real", "dataset"].unique())
        self.lines += ["Per set, ARI against m (random genes as the band of their draws): " +
                       ", ".join(f"[{d}](figures/ari_{d}.png)" for d in sets) + "."]

    def ranking_precision(self):
        """The planted markers among each ranking's top genes (as many as the markers), per
        synthetic set ranked here, from ``costs.tsv`` (the sets clustered or not)."""
        costs = self.costs[(self.costs["family"] == "synthetic")
                           & (self.costs["status"] == "ok")].copy()
        if "marker_precision" not in costs or costs.empty:
            return
        costs["marker_precision"] = pd.to_numeric(costs["marker_precision"], errors="coerce")
        costs = costs.dropna(subset=["marker_precision"])
        if costs.empty:
            return
        costs["n_cells"] = pd.to_numeric(costs["n_cells"])
        wide = costs.pivot_table(index="method", columns="n_cells", values="marker_precision",
                                 aggfunc="mean").sort_index(axis=1)
        wide = wide.sort_values(wide.columns[-1], ascending=False, kind="mergesort")
        wide.columns = [f"{int(c):,} cells" for c in wide.columns]
        self.lines += ["Each ranking's planted markers among its top genes, as many as there "
                       "are markers (the mean of the draws for random genes), per set's number "
                       "of cells; the sets ranked here whether or not they were clustered:", "",
                       to_markdown(wide.round(3).reset_index().fillna("-")), ""]

    def synthetic(self):
        data = self.scores[self.scores["family"] == "synthetic"].copy()
        self.lines += ["## Synthetic counts (planted types and markers)", ""]
        self.ranking_precision()
        if data.empty:
            self.lines.append("No synthetic set was clustered here.")
            return
        for column in ("ari", "marker_precision"):
            data[column] = pd.to_numeric(data[column], errors="coerce")
        self.lines += ["Planted-marker precision of the top m genes, |top m & markers| / "
                       "min(m, markers) (precision up to the number of planted markers, the "
                       "share of them found above it), and the ARI of Leiden and of k-means; "
                       "means over seeds and random draws, methods in order of their "
                       "precision at the smallest m; `tables/synthetic.tsv`.", ""]
        for dataset, part in data.groupby("dataset", sort=True):
            cells = part.groupby(["method", "m_rule", "clusterer"], sort=True)[
                ["ari", "marker_precision"]].mean().reset_index()
            rules = sorted(cells["m_rule"].unique(), key=_m_order)
            columns = {}
            for what, clusterer, column in (("precision", "leiden", "marker_precision"),
                                            ("ARI leiden", "leiden", "ari"),
                                            ("ARI k-means", "kmeans", "ari")):
                wide = cells[cells["clusterer"] == clusterer].pivot(
                    index="method", columns="m_rule", values=column)
                for rule in rules:
                    if rule in wide.columns:
                        columns[f"{what} m={rule}"] = wide[rule]
            table = pd.DataFrame(columns)
            precision = [c for c in table.columns if c.startswith("precision")]
            key = precision[0] if precision else table.columns[0]
            table = table.sort_values([key], ascending=False, kind="mergesort")
            self.lines += [f"**{dataset}**", "", to_markdown(table.round(3).reset_index()
                                                             .fillna("-")), ""]

    def costs_section(self):
        self.lines += ["## Time and memory", "",
                       "Each ranking's wall time and peak memory above its process's start, "
                       "measured by the forked process that fitted it (the counts already "
                       "in memory: the selection's own cost).", ""]
        ok = self.costs[self.costs["status"] == "ok"].copy()
        for column in ("seconds", "max_rss_mb"):
            ok[column] = pd.to_numeric(ok[column], errors="coerce")
        summary = ok.groupby(["family", "method"], sort=True).agg(
            median_seconds=("seconds", "median"), max_seconds=("seconds", "max"),
            max_rss_mb=("max_rss_mb", "max")).reset_index()
        if len(summary):
            self.lines += [to_markdown(summary.round(2)), ""]
        if self.exponents.empty or self.exponents["n_sizes"].max() < 2:
            sizes = sorted(self.points["n_cells"].unique()) if len(self.points) else []
            self.lines.append(
                "The ladder needs two synthetic sizes or more: this run has "
                f"{', '.join(f'{int(s):,}' for s in sizes) or 'none'} cells, so no exponent "
                "is fitted (`figures/ladder.png` shows the points).")
            return
        self.lines += [
            "Fitted exponents (log-log least squares of the ranking's time and peak memory in "
            "the number of cells, synthetic sets of "
            f"{int(self.exponents['min_cells'].min()):,} to "
            f"{int(self.exponents['max_cells'].max()):,} cells): " + "; ".join(
                f"{r.method} time {_n(r.time_exponent, 2)}, memory {_n(r.memory_exponent, 2)}"
                for r in self.exponents.itertuples()) + ".", "",
            "![The time and memory ladder](figures/ladder.png)"]

    def failures(self):
        self.lines += ["## Where methods stop or fail", ""]
        bad = self.costs[self.costs["status"] != "ok"]
        if bad.empty:
            self.lines.append(f"Every ranking ended ok ({len(self.costs)} rankings).")
        else:
            for row in bad.itertuples():
                self.lines.append(f"- {row.method} on {row.dataset} (draw {row.ranker_seed}): "
                                  f"{row.status}: {row.message}")
        failed = self.scores[(self.scores["status"] == "failed")
                             & self.scores["method"].isin(set(self.costs.loc[
                                 self.costs["status"] == "ok", "method"]) | {ALL_FEATURES})]
        if len(failed):
            first = failed.iloc[0]
            self.lines.append(f"- {len(failed)} clusterings failed (first: {first['method']} "
                              f"on {first['dataset']} at m = {first['m_rule']}: "
                              f"{first['message']}).")


TABLES = {
    "dataset_scores.tsv": "each (set, clusterer, m, method)'s ARI and NMI (mean over seeds "
                          "and draws), status and runs",
    "mean_ranks.tsv": "mean rank of every method per (clusterer, metric, m) on the real sets",
    "friedman.tsv": "Friedman's test, the critical difference and the Holm floor per setting",
    "nemenyi.tsv": "Nemenyi's p of every pair per setting",
    "vs_controls.tsv": "every method against random genes and hvg_seurat_v3: wins, ties, "
                       "losses, Wilcoxon p, Holm-adjusted p",
    "synthetic.tsv": "the synthetic sets' marker precision and ARI per method and m",
    "ladder.tsv": "the ranking's time and memory per method and number of cells",
    "exponents.tsv": "the fitted exponents of the ladder",
}


def write_singlecell_report(scores, costs, out_dir, *, notes=None, headline=None):
    """Write ``summary.md``, ``tables/*.tsv`` (:data:`TABLES`) and ``figures/`` (one ARI
    figure per set, the critical-difference diagrams of every (clusterer, metric, m), the
    ladder) under ``out_dir``; returns the paths written.

    Parameters
    ----------
    scores, costs : DataFrame
        :mod:`fsclust.studies.singlecell.tables`' two tables.
    out_dir : str or Path
    notes : dict, optional
        ``genes``: dataset -> what its genes are (pre-selected by the source: said so);
        ``not_run``: sentences naming what this run left out (the larger synthetic sets).
    headline : dict, optional
        The summary's setting (default :data:`HEADLINE`).
    """
    out_dir = Path(out_dir)
    notes = notes or {}
    headline = {**HEADLINE, **(headline or {})}
    scores = scores.copy()
    scores["m_rule"] = scores["m_rule"].astype(str)
    cells = dataset_cells(scores)
    stats = statistics(cells)
    points, exponents = ladder(costs)
    synthetic = scores[scores["family"] == "synthetic"]
    synthetic_table = pd.DataFrame()
    if len(synthetic):
        synthetic_table = synthetic.groupby(["dataset", "method", "m_rule", "clusterer"],
                                            sort=True)[["ari", "nmi", "marker_precision"]]
        synthetic_table = synthetic_table.mean().reset_index()
    tables = {"dataset_scores.tsv": cells, **{f"{k}.tsv": v for k, v in stats.items()},
              "synthetic.tsv": synthetic_table, "ladder.tsv": points,
              "exponents.tsv": exponents}
    written = []
    for name, table in tables.items():
        path = out_dir / "tables" / name
        write_tables(table, path, float_format=_FLOAT)
        written.append(path)
    figures = out_dir / "figures"
    genes = notes.get("genes", {})
    for dataset in sorted(scores["dataset"].unique()):
        path = figures / f"ari_{dataset}.png"
        title = dataset + (f" (genes: {genes[dataset]})" if dataset in genes else "")
        plot_dataset(scores, dataset, path, title=title)
        written.append(path)
    written += _write_diagrams(stats, figures)
    path = figures / "ladder.png"
    plot_ladder(points, exponents, path)
    written.append(path)
    text = _Summary(scores, costs, cells, stats, points, exponents, notes, headline).text()
    write_text_atomic(out_dir / "summary.md", text)
    written.append(out_dir / "summary.md")
    return written
