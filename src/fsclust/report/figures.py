"""Figures: a metric, or a selector's criterion, against the number of selected features."""

from __future__ import annotations

import itertools

# no backend is chosen here: importing fsclust must leave a notebook's backend alone. Without
# a display matplotlib falls back to Agg by itself; the workflow's scripts ask for Agg
# (scripts/_srcpath.py)
import matplotlib
import matplotlib.pyplot as plt
import numpy as np

from fsclust._io import atomic_path
from fsclust.registry import ALL_FEATURES

METRIC_LABELS = {"acc": "ACC", "nmi": "NMI", "nmi_arithmetic": "NMI (arithmetic)",
                 "nmi_max": "NMI (max)", "ari": "ARI"}


#: Line styles and markers cycled with the colours, so overlapping curves stay visible (and
#: distinguishable in grey print).
LINE_STYLES = ["-", "--", "-.", ":"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
#: Fixed y-range of each metric, the same in every panel (ARI can be negative).
METRIC_LIMITS = {"acc": (0.0, 1.02), "nmi": (0.0, 1.02), "nmi_arithmetic": (0.0, 1.02),
                 "nmi_max": (0.0, 1.02), "ari": (-0.1, 1.02)}


#: ``savefig`` options of each format a figure is written in: no date, software or id
#: metadata, so reruns are byte-identical.
SAVE_OPTIONS = {"png": {"dpi": 110, "metadata": {"Software": None}},
                "svg": {"metadata": {"Date": None, "Creator": None}}}


def save_figure(fig, path, vector=False, *, formats=None):
    """Write a matplotlib figure as PNG atomically (no timestamp metadata) and close it; with
    ``vector``, an SVG beside it (same name, ``.svg``; no date or id metadata, so reruns are
    byte-identical). ``formats``: the formats of :data:`SAVE_OPTIONS` to write instead (the
    PNG at ``path``, the others beside it with their own suffix)."""
    from pathlib import Path

    formats = formats or (("png", "svg") if vector else ("png",))
    unknown = sorted(set(formats) - set(SAVE_OPTIONS))
    if unknown:
        raise ValueError(f"cannot write figures as {unknown}: formats are {sorted(SAVE_OPTIONS)}")
    for fmt in formats:
        target = path if fmt == "png" else Path(path).with_suffix(f".{fmt}")
        # the salt fixes the SVG's ids; set only while saving, the caller's rcParams untouched
        with atomic_path(target, suffix=f".{fmt}") as tmp, \
                matplotlib.rc_context({"svg.hashsalt": "fsclust"}):
            fig.savefig(tmp, format=fmt, **SAVE_OPTIONS[fmt])
    plt.close(fig)


def plot_sweeps(summary, dataset, metrics, path, *, baseline_method=ALL_FEATURES, title=None):
    """Plot mean +- sd over seeds of each metric vs the number of selected features.

    One row of panels per clusterer, one column per metric; the all-features baseline is a
    dashed horizontal line with its own band. Each metric has one y-range in every panel;
    the x axis is logarithmic when the sweep spans more than a factor 30, with plain integer
    ticks; each method has its own colour, line style and marker; the number of seeds is in
    the title. Written atomically to ``path`` (PNG) with an SVG beside it.
    """
    from matplotlib.ticker import MaxNLocator, ScalarFormatter

    data = summary[summary["dataset"] == dataset]
    if data.empty:
        raise ValueError(f"no results for dataset {dataset!r} to plot")
    clusterers = sorted(data["clusterer"].unique())
    methods = [m for m in sorted(data["method"].unique()) if m != baseline_method]
    # more methods than colours (zhang2012-consensus has 46): colours repeat, line styles
    # and markers tell them apart
    colors = dict(zip(methods, itertools.cycle(plt.cm.tab10.colors)))
    styles = {m: (LINE_STYLES[k % len(LINE_STYLES)], MARKERS[k % len(MARKERS)])
              for k, m in enumerate(methods)}
    n_seeds = int(data["n_runs"].max()) if "n_runs" in data else None
    fig, axes = plt.subplots(len(clusterers), len(metrics), squeeze=False,
                             figsize=(4.2 * len(metrics), 3.2 * len(clusterers)))
    for i, clusterer in enumerate(clusterers):
        for j, metric in enumerate(metrics):
            ax = axes[i, j]
            sub = data[(data["clusterer"] == clusterer) & (data["metric"] == metric)]
            for method in methods:
                g = sub[sub["method"] == method].sort_values("n_features")
                if g.empty:
                    continue
                x, mean, sd = g["n_features"].to_numpy(), g["mean"].to_numpy(), g["sd"].fillna(0).to_numpy()
                ls, marker = styles[method]
                ax.plot(x, mean, ls=ls, marker=marker, ms=4, mfc="none", label=method,
                        color=colors[method])
                ax.fill_between(x, mean - sd, mean + sd, alpha=0.2, color=colors[method])
            base = sub[sub["method"] == baseline_method]
            if not base.empty:
                mean, sd = float(base["mean"].iloc[0]), float(np.nan_to_num(base["sd"].iloc[0]))
                ax.axhline(mean, color="k", ls="--", lw=1, label="all features")
                ax.axhspan(mean - sd, mean + sd, color="k", alpha=0.08)
            xmax = sub["n_features"].max()
            if xmax and sub["n_features"].min() and xmax / sub["n_features"].min() > 30:
                ax.set_xscale("log")
                ax.xaxis.set_major_formatter(ScalarFormatter())
            else:
                ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            if metric in METRIC_LIMITS:
                ax.set_ylim(*METRIC_LIMITS[metric])
            ax.set_xlabel("number of selected features")
            ax.set_ylabel(METRIC_LABELS.get(metric, metric))
            ax.set_title(f"{clusterer}", fontsize=9)
            ax.grid(alpha=0.3)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 6), frameon=False)
    runs = f" (mean +- sd over {n_seeds} seeds)" if n_seeds else ""
    fig.suptitle(f"{title or dataset}{runs}")
    fig.tight_layout(rect=(0, 0.06, 1, 0.97))
    save_figure(fig, path, vector=True)


def plot_criterion_curve(ax, criteria, criterion, m, k, *, along="n_features"):
    """Draw ``criterion`` against m at K = ``k`` (band: +- its standard error) on ``ax``, the
    chosen ``m`` marked; with ``along="n_clusters"``, against K at m = ``m``, ``k`` marked
    (when m was given and only K searched)."""
    other, at, chosen = ("n_clusters", k, m) if along == "n_features" else ("n_features", m, k)
    symbol = {"n_features": "m", "n_clusters": "K"}
    curve = criteria[criteria[other] == at].sort_values(along)
    x, value = curve[along].to_numpy(), curve[criterion].to_numpy(dtype=float)
    se = np.nan_to_num(curve[f"{criterion}_se"].to_numpy(dtype=float))
    ax.plot(x, value, marker="o", ms=4, mfc="none")
    ax.fill_between(x, value - se, value + se, alpha=0.25)
    ax.axvline(chosen, color="k", ls="--", lw=1, label=f"chosen {symbol[along]} = {chosen}")
    ax.set(xscale="log" if x.max() > 30 * x.min() else "linear", xlabel=symbol[along],
           title=f"{criterion} at {symbol[other]} = {at}")
    ax.legend(fontsize=8)
