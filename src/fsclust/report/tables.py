"""Aggregate per-seed sweep files into summary tables (TSV and Markdown)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from fsclust.registry import ALL_FEATURES

KEYS = ["dataset", "method", "clusterer"]


def collect_sweeps(paths):
    """Concatenate sweep TSV files (each row carries its dataset, method, clusterer and seed).

    Rows with ``in_grid == 0`` (a point clustered only because another method chose that m
    for one seed, e.g. Maldonado's n of KP-Kmeans) are kept here; :func:`summarise` leaves
    them out of the curves."""
    frames = [pd.read_csv(p, sep="\t") for p in paths]
    frames = [f for f in frames if len(f)]
    if not frames:
        raise ValueError("no sweep rows to aggregate: the experiment lists no labelled dataset, "
                         "method or clusterer")
    return pd.concat(frames, ignore_index=True)


def summarise(sweeps, metrics):
    """Mean, sample sd (ddof=1) and run count over seeds for each (dataset, method, clusterer, m, metric).

    Examples
    --------
    >>> df = pd.DataFrame({"dataset": "d", "method": "m", "clusterer": "c", "seed": [0, 1],
    ...                    "n_features": 2, "acc": [0.5, 1.0]})
    >>> summarise(df, ["acc"])[["mean", "sd", "n_runs"]].values.tolist()
    [[0.75, 0.3535533905932738, 2.0]]
    """
    if "in_grid" in sweeps:
        sweeps = sweeps[sweeps["in_grid"] == 1]
    long = sweeps.melt(
        id_vars=[*KEYS, "seed", "n_features"], value_vars=list(metrics), var_name="metric"
    )
    grouped = long.groupby([*KEYS, "n_features", "metric"], sort=True)["value"]
    out = grouped.agg(mean="mean", sd="std", n_runs="count").reset_index()
    return out


def best_and_mean(summary, baseline_method=ALL_FEATURES):
    """Per dataset, method, clusterer and metric: the best mean over the sweep and its m, the
    mean over the sweep, and the value with all features (the all-features baseline row).

    The "best" is chosen by looking at the labels (it is an oracle choice of m): tables say so.
    """
    rows = []
    for (dataset, method, clusterer, metric), g in summary.groupby(
        ["dataset", "method", "clusterer", "metric"], sort=True
    ):
        g = g.sort_values("n_features")
        best = g.loc[g["mean"].idxmax()]
        rows.append(
            {
                "dataset": dataset,
                "method": method,
                "clusterer": clusterer,
                "metric": metric,
                "best_mean": best["mean"],
                "best_sd": best["sd"],
                "best_n_features": int(best["n_features"]),
                "sweep_mean": g["mean"].mean(),
                "n_points": len(g),
                "n_runs": int(g["n_runs"].max()),
            }
        )
    out = pd.DataFrame(rows)
    base = out[out["method"] == baseline_method][["dataset", "clusterer", "metric", "best_mean"]]
    base = base.rename(columns={"best_mean": "all_features_mean"})
    out = out.merge(base, on=["dataset", "clusterer", "metric"], how="left")
    return out


def _fmt(value):
    if isinstance(value, (float, np.floating)):
        return "" if np.isnan(value) else f"{value:.3f}"
    return str(value)


def write_tables(df, tsv=None, md=None, *, title=None, note=None, float_format="%.6g",
                 md_frame=None):
    """Write a table as TSV (``tsv``) and as Markdown (``md``, from ``md_frame`` when the
    readable table differs from the data, e.g. "mean ± sd" cells), each atomically; either path
    may be None.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> write_tables(pd.DataFrame({"a": [1]}), folder / "t.tsv", folder / "t.md", title="T")
    >>> print((folder / "t.md").read_text())
    ## T
    <BLANKLINE>
    | a |
    | --- |
    | 1 |
    <BLANKLINE>
    """
    from fsclust._io import write_table_atomic, write_text_atomic

    if tsv is not None:
        write_table_atomic(df, tsv, float_format=float_format)
    if md is not None:
        write_text_atomic(md, to_markdown(df if md_frame is None else md_frame, title=title,
                                          note=note) + "\n")


def to_markdown(df, title=None, note=None):
    """Render a DataFrame as a GitHub Markdown table (no extra dependency).

    Examples
    --------
    >>> print(to_markdown(pd.DataFrame({"a": [1], "b": [0.5]})))
    | a | b |
    | --- | --- |
    | 1 | 0.500 |
    """
    lines = []
    if title:
        lines += [f"## {title}", ""]
    if note:
        lines += [note, ""]
    lines.append("| " + " | ".join(map(str, df.columns)) + " |")
    lines.append("| " + " | ".join("---" for _ in df.columns) + " |")
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_fmt(v) for v in row) + " |")
    return "\n".join(lines)
