"""``paper_vs_ours.tsv``: each number a paper reports beside ours and the difference."""

from __future__ import annotations

import numpy as np
import pandas as pd

PAPER_VS_OURS_COLUMNS = [
    "paper", "table_or_figure", "dataset", "method", "n_features", "metric",
    "paper_value", "paper_sd", "ours_value", "ours_sd", "diff", "note",
]


def read_paper_results(path):
    """Read the reference numbers (``config/paper-results.tsv``), keeping blanks as empty."""
    return pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)


def _ours(summary, ours):
    """Our (mean, sd, m) for a comparison's ``ours`` block; m may be an int, 'best' or 'all'."""
    sel = summary[
        (summary["dataset"] == ours["dataset"])
        & (summary["method"] == ours["method"])
        & (summary["clusterer"] == ours["clusterer"])
        & (summary["metric"] == ours["metric"])
    ]
    if sel.empty:
        return np.nan, np.nan, ""
    m = ours.get("n_features", "best")
    if m == "best":
        row = sel.loc[sel["mean"].idxmax()]
    elif m == "all":
        row = sel.loc[sel["n_features"].idxmax()]
    else:
        hit = sel[sel["n_features"] == int(m)]
        if hit.empty:
            return np.nan, np.nan, ""
        row = hit.iloc[0]
    return float(row["mean"]), float(row["sd"]), int(row["n_features"])


def paper_vs_ours(paper_results, comparisons, summary):
    """Build the comparison table.

    Parameters
    ----------
    paper_results : DataFrame
        ``config/paper-results.tsv`` (columns paper, table_or_figure, dataset, method,
        n_features, metric, value, sd, notes).
    comparisons : list of dict
        From the experiment config: the keys ``paper``, ``table_or_figure``, ``dataset``,
        ``method``, ``metric`` (and optionally ``n_features``) select a paper row; ``ours`` is
        ``{dataset, method, clusterer, metric, n_features: int | "best" | "all", scale}``;
        ``note`` is free text (e.g. "substitute dataset", "m chosen with the labels").
    summary : DataFrame
        Output of :func:`fsclust.report.tables.summarise`.
    """
    rows = []
    for comp in comparisons:
        sel = paper_results
        for key in ("paper", "table_or_figure", "dataset", "method", "metric", "n_features"):
            if key in comp:
                sel = sel[sel[key] == str(comp[key])]
        notes = [comp.get("note", "")]
        if sel.empty:
            paper_value, paper_sd, paper_m = np.nan, np.nan, comp.get("n_features", "")
            notes.append("no such row in paper-results.tsv")
        else:
            first = sel.iloc[0]
            paper_value = float(first["value"]) if first["value"] else np.nan
            paper_sd = float(first["sd"]) if first["sd"] else np.nan
            paper_m = first["n_features"]
        ours = comp["ours"]
        scale = float(ours.get("scale", 1.0))
        mean, sd, m = _ours(summary, ours)
        if np.isnan(mean):
            notes.append("no result of ours for this row")
        if ours.get("n_features", "best") == "best":
            notes.append(f"ours: best m={m} chosen with the labels")
        rows.append({
            "paper": comp["paper"], "table_or_figure": comp["table_or_figure"],
            "dataset": comp["dataset"], "method": comp["method"],
            "n_features": paper_m if paper_m != "" else m, "metric": comp["metric"],
            "paper_value": paper_value, "paper_sd": paper_sd,
            "ours_value": mean * scale, "ours_sd": sd * scale,
            "diff": mean * scale - paper_value,
            "note": "; ".join(n for n in notes if n),
        })
    return pd.DataFrame(rows, columns=PAPER_VS_OURS_COLUMNS)
