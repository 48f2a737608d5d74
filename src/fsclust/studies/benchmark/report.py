"""The benchmark's answers (issue 27): mean ranks, Friedman and Nemenyi tests, the methods
against random features and all features, quality against cost, and ``summary.md``.

:func:`write_benchmark_report` reads two long tables the ``benchmark`` workflow writes:

``scores``
    one row per (dataset, method, ranker seed, clusterer, clustering seed, m rule, K rule):
    ``dataset, family, method, ranker_seed, clusterer, seed, m_rule, n_features, k_rule,
    n_clusters, acc, nmi, ari, status``. ``family`` is "expression" or "image"; the method
    "all-features" is the all-features control (m rule "100%"), "random" the random control
    (several ranker seeds); ``m_rule`` is a fixed fraction ("1%" ... "50%") or "label-free";
    ``k_rule`` "true" or "label-free"; ``status`` "ok", "timeout", "failed" (the fit, or the
    clusterer on the method's selection, raised) or "degenerate".
``costs``
    one row per (dataset, method): ``dataset, family, method, seconds, max_rss_mb, status,
    note``: the mean wall time of the method's fits and the largest peak memory of a fit
    above the job's, both measured in the fit's own child process and read from its sidecar
    (0 for all features, which fits nothing), and the worst status of its fits.

The statistics follow Demšar (2006), "Statistical comparisons of classifiers over multiple
data sets", JMLR 7: a dataset is a block, methods are ranked within it, and the ranks are
compared over the datasets. One *setting* is a (clusterer, metric, m rule, K rule, family)
with family "expression", "image" or "all" (both together).

Decisions, stated once here (the summary and the captions repeat them):

- A (dataset, method) *cell* is the mean over the clustering seeds and, for ``random``, the
  mean over its ranker seeds of those means. Rows without metrics (timeout, a failed fit or
  clustering, or a degenerate ranking that was not clustered) are skipped; a cell with no
  metric at all has *no result* and is ranked last on its dataset (several such methods share
  the last places, ties averaged). A degenerate ranking that was clustered is scored like any other.
- The all-features control has one m rule ("100%"); it joins the comparison of every m rule.
- A dataset enters a setting when some method other than the all-features control has a row
  there; a method with rows on fewer than half of those datasets is left out of the setting
  (not run, e.g. the label-free part not run here), then the datasets missing any remaining
  method are left out: every setting is a complete block design, and the tables list what was
  left out.
- Against a control, a method *beats* it on a dataset when its cell is strictly higher; ties
  are counted apart. The paired Wilcoxon signed-rank test over the datasets is two-sided with
  scipy's ``zero_method="wilcox"`` (zero differences are dropped before ranking; when every
  difference is zero the p-value is 1). There, and in the wins, a cell without result scores
  the lower of 0 and the lowest value any method reached on that dataset: no better than no
  clustering (0 is chance level or below for ACC, NMI and ARI), never above a method that
  ran. Holm's correction runs over the methods compared with one control in one setting.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from fsclust._io import write_text_atomic
from fsclust.registry import ALL_FEATURES
from fsclust.report.figures import METRIC_LABELS, save_figure
from fsclust.report.tables import to_markdown, write_tables

#: The two controls: a random ranking (several ranker seeds) and every feature.
RANDOM = "random"
CONTROLS = (RANDOM, ALL_FEATURES)
#: The fixed fractions of d, in their order; the label-free rule; the all-features control's.
FIXED_FRACTIONS = ("1%", "2%", "5%", "10%", "20%", "50%")
LABEL_FREE = "label-free"
#: costs.tsv names a label-free selector fit's cost ``{method}+label-free``, beside the
#: ranking's ``{method}`` (written by fsclust.studies.benchmark.label_free, whose COST_SUFFIX a test
#: keeps equal: the report may not import the steps)
SELECTOR_COST_SUFFIX = f"+{LABEL_FREE}"
ALL_FEATURES_RULE = "100%"
M_RULES = (*FIXED_FRACTIONS, LABEL_FREE)
K_RULES = ("true", LABEL_FREE)
FAMILIES = ("expression", "image", "all")
#: Statuses from best to worst: a cell's status is the worst of its rows'.
STATUSES = ("ok", "degenerate", "failed", "timeout")
#: The setting the summary answers with and the cost figure draws (the other settings are in
#: the tables); a clusterer missing from the scores falls back to the first one present.
HEADLINE = {"clusterer": "kmeans", "metric": "acc", "m_rule": "10%", "k_rule": "true"}
#: The critical-difference diagrams drawn: every clusterer, metric, m rule and family at these
#: K rules (the label-free K is the second table, as the issue asks).
DIAGRAM_K_RULES = ("true",)
#: Significance level of the Nemenyi test, the Holm-corrected Wilcoxon tests and the summary.
ALPHA = 0.05
#: Cells are rounded to this many decimals, so that equal results compare equal whatever the
#: order in which their seeds were summed (a method identical to random ties with it).
DECIMALS = 10
#: The shortest time the log-scaled cost axis shows (the all-features control ranks nothing).
MIN_SECONDS = 1e-3

SETTING = ["clusterer", "metric", "m_rule", "k_rule", "family"]
_CELL = ["family", "dataset", "clusterer", "m_rule", "k_rule", "method"]
_FLOAT_FORMAT = "%.6g"


# --------------------------------------------------------------------------- cells


def dataset_scores(scores, metrics=("acc", "nmi", "ari")):
    """One number per (dataset, method, clusterer, m rule, K rule, metric): the cells.

    Parameters
    ----------
    scores : DataFrame
        The scores table (module docstring).
    metrics : sequence of str

    Returns
    -------
    DataFrame
        Columns ``family, dataset, clusterer, m_rule, k_rule, method, metric, value, status,
        n_runs``: ``value`` the mean over clustering seeds, then over ranker seeds (NaN when
        no row has the metric), ``status`` the worst status of the cell's rows, ``n_runs`` the
        rows with a value. Sorted by the key columns.

    Examples
    --------
    >>> s = pd.DataFrame({"dataset": "d", "family": "image", "method": "random",
    ...                   "ranker_seed": [0, 0, 1], "clusterer": "kmeans", "seed": [0, 1, 0],
    ...                   "m_rule": "1%", "k_rule": "true", "acc": [0.2, 0.4, 0.9],
    ...                   "status": "ok"})
    >>> cell = dataset_scores(s, ["acc"]).iloc[0]
    >>> float(cell["value"]), int(cell["n_runs"])
    (0.6, 3)
    """
    metrics = list(metrics)
    data = scores.copy()
    data["ranker_seed"] = data["ranker_seed"].fillna(0)
    # pandas.read_csv reads a column of "true" as booleans (True); the rules are strings
    data["k_rule"] = data["k_rule"].astype(str).str.lower()
    for metric in metrics:
        data[metric] = pd.to_numeric(data[metric], errors="coerce")
    # one summation order whatever the input's row order: byte-identical tables
    data = data.sort_values([*_CELL, "ranker_seed", "seed"], kind="mergesort")
    long = data.melt(id_vars=[*_CELL, "ranker_seed", "status"], value_vars=metrics,
                     var_name="metric")
    keys = [*_CELL, "metric"]
    per_seed = long.groupby([*keys, "ranker_seed"], sort=True, dropna=False)["value"]
    per_seed = per_seed.agg(value="mean", n_runs="count").reset_index()
    cells = per_seed.groupby(keys, sort=True, dropna=False).agg(
        value=("value", "mean"), n_runs=("n_runs", "sum")).reset_index()
    cells["value"] = cells["value"].round(DECIMALS)
    cells["n_runs"] = cells["n_runs"].astype(int)
    severity = long["status"].map({s: i for i, s in enumerate(STATUSES)}).fillna(len(STATUSES))
    worst = severity.groupby([long[k] for k in keys], sort=True, dropna=False).max()
    worst = worst.rename("severity").reset_index()
    cells = cells.merge(worst, on=keys, how="left")
    cells["status"] = [STATUSES[int(i)] if i < len(STATUSES) else "unknown"
                       for i in cells.pop("severity")]
    return cells[[*keys, "value", "status", "n_runs"]]


def _with_all_features_everywhere(cells):
    """The cells with the all-features control's copied to every other m rule present."""
    control = cells[cells["method"] == ALL_FEATURES]
    others = cells[cells["method"] != ALL_FEATURES]
    copies = [control.assign(m_rule=rule) for rule in sorted(others["m_rule"].unique())]
    return pd.concat([others, *copies], ignore_index=True)


def _family_subsets(cells):
    """(family, its cells) for each family present, and "all" when both are."""
    present = [f for f in FAMILIES[:-1] if (cells["family"] == f).any()]
    subsets = [(f, cells[cells["family"] == f]) for f in present]
    if len(present) > 1:
        subsets.append(("all", cells))
    return subsets


def _complete_block(cells):
    """A setting's cells as a complete block design: (values, left_out_methods,
    left_out_datasets). ``values`` is datasets x methods, NaN where a method has no result."""
    values = cells.pivot(index="dataset", columns="method", values="value")
    present = cells.pivot(index="dataset", columns="method", values="n_runs").notna()
    run = present.drop(columns=[ALL_FEATURES], errors="ignore").any(axis=1)
    values, present = values[run], present[run]
    enough = present.sum(axis=0) * 2 >= len(present)
    left_out_methods = sorted(present.columns[~enough])
    complete = present.loc[:, enough].all(axis=1)
    left_out_datasets = sorted(present.index[~complete])
    return values.loc[complete, enough], left_out_methods, left_out_datasets


# --------------------------------------------------------------------------- statistics


def rank_methods(values):
    """Rank the methods on each dataset: 1 = best (highest value), ties averaged; a method
    without result (NaN) ranks last, several such share the last places.

    Examples
    --------
    >>> v = pd.DataFrame({"a": [0.9, 0.5], "b": [0.4, 0.5], "c": [np.nan, 0.1]})
    >>> rank_methods(v).values.tolist()
    [[1.0, 2.0, 3.0], [1.5, 1.5, 3.0]]
    """
    return values.fillna(-np.inf).rank(axis=1, ascending=False, method="average")


def friedman_test(ranks):
    """Friedman's chi-square test on a datasets x methods rank matrix (scipy's, tie-corrected):
    (statistic, p-value), NaN with fewer than three methods or two datasets or when every
    dataset ties every method."""
    from scipy.stats import friedmanchisquare

    n, k = ranks.shape
    if k < 3 or n < 2:
        return np.nan, np.nan
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        result = friedmanchisquare(*ranks.to_numpy().T)
    return float(result.statistic), float(result.pvalue)


def nemenyi_test(ranks):
    """Nemenyi's post-hoc p-values after Friedman (scikit-posthocs), methods x methods."""
    import scikit_posthocs

    # it ranks each row again (ascending): ranks of ranks are the ranks, and its p-values
    # depend only on the distance between mean ranks, not on the direction
    p = scikit_posthocs.posthoc_nemenyi_friedman(ranks.to_numpy())
    p.index = p.columns = ranks.columns
    return p


def critical_difference(n_methods, n_datasets, alpha=ALPHA):
    """Nemenyi's critical difference of mean ranks, q_alpha sqrt(k (k + 1) / (6 N)) with
    q_alpha the studentised range quantile over sqrt 2 (Demšar 2006, section 3.2.2).

    Examples
    --------
    >>> round(critical_difference(5, 30), 3)  # Demšar's table 5: q_0.05 = 2.728 for k = 5
    1.114
    """
    from scipy.stats import studentized_range

    q = studentized_range.ppf(1 - alpha, n_methods, np.inf) / np.sqrt(2)
    return float(q * np.sqrt(n_methods * (n_methods + 1) / (6 * n_datasets)))


def holm(p_values):
    """Holm's step-down adjusted p-values, in the input's order (NaN stays NaN, uncounted).

    The i-th smallest of n p-values becomes max over j <= i of min(1, (n - j + 1) p_(j)).

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=float)
    adjusted = np.full_like(p, np.nan)
    finite = np.flatnonzero(~np.isnan(p))
    order = finite[np.argsort(p[finite], kind="stable")]
    n = order.size
    steps = (n - np.arange(n)) * p[order]
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(steps))
    return adjusted


def signed_rank_tests(differences):
    """The two-sided Wilcoxon signed-rank test of each row of ``differences`` (paired
    differences, one row per comparison): arrays (statistic, p-value).

    scipy's ``zero_method="wilcox"`` drops zero differences; a row of zeros only gets p = 1
    (nothing left to test). Rows are tested together for speed, in two batches that scipy
    treats alike: rows without zero or tied differences (exact distribution, n <= 50) and rows
    with some (exhaustive permutations up to 13 pairs, the normal approximation above), so each
    row's result is the one a call on that row alone gives.
    """
    from scipy.stats import wilcoxon

    d = np.atleast_2d(np.asarray(differences, dtype=float))
    statistic, p = np.full(len(d), np.nan), np.ones(len(d))
    nonzero = d != 0
    magnitudes = np.sort(np.where(nonzero, np.abs(d), np.nan), axis=1)
    tied = (np.diff(magnitudes, axis=1) == 0).any(axis=1)
    plain = nonzero.all(axis=1) & ~tied
    for rows in (np.flatnonzero(plain), np.flatnonzero(~plain & nonzero.any(axis=1))):
        if rows.size:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # normal approximation with ties
                result = wilcoxon(d[rows], zero_method="wilcox", alternative="two-sided", axis=1)
            statistic[rows], p[rows] = result.statistic, result.pvalue
    return statistic, p


def versus_controls(values):
    """Each method against each control on one setting's complete block.

    Returns one row per (control, method): ``n_datasets, wins, ties, losses, no_result``
    (datasets where the method has none), ``median_difference`` (method minus control),
    ``statistic, p_value`` of the Wilcoxon test (:func:`signed_rank_tests`), ``p_holm`` and
    ``significant`` (``p_holm < ALPHA``). A cell without result scores min(0, the
    dataset's lowest value) (module docstring)."""
    matrix = values.to_numpy(dtype=float)
    floor = np.minimum(0.0, np.min(np.where(np.isnan(matrix), 0.0, matrix), axis=1))
    filled = np.where(np.isnan(matrix), floor[:, None], matrix)
    methods = list(values.columns)
    rows = []
    for control in (c for c in CONTROLS if c in methods):
        others = [j for j, m in enumerate(methods) if m != control]
        difference = filled[:, others].T - filled[:, methods.index(control)]
        statistic, p = signed_rank_tests(difference)
        adjusted = holm(p)
        rows += [{"control": control, "method": methods[j], "n_datasets": len(matrix),
                  "wins": int((row > 0).sum()), "ties": int((row == 0).sum()),
                  "losses": int((row < 0).sum()), "no_result": int(np.isnan(matrix[:, j]).sum()),
                  "median_difference": float(np.median(row)), "statistic": float(w),
                  "p_value": float(pv), "p_holm": float(q), "significant": bool(q < ALPHA)}
                 for j, row, w, pv, q in zip(others, difference, statistic, p, adjusted)]
    return rows


def benchmark_statistics(cells):
    """Every setting's mean ranks, Friedman test, Nemenyi p-values and tests against the
    controls.

    Returns
    -------
    dict of DataFrame
        ``mean_ranks`` (setting, method, mean_rank, mean_value over the datasets with a
        result, n_datasets, no_result), ``friedman`` (setting, n_datasets, n_methods,
        statistic, p_value, critical_difference, left_out_methods, left_out_datasets),
        ``nemenyi`` (setting, method_a < method_b, p_value) and ``vs_controls`` (setting and
        the columns of :func:`versus_controls`), each sorted.
    """
    mean_ranks, friedman, nemenyi, controls = [], [], [], []
    cells = _with_all_features_everywhere(cells)
    for (clusterer, metric, m_rule, k_rule), group in cells.groupby(
            ["clusterer", "metric", "m_rule", "k_rule"], sort=True):
        for family, subset in _family_subsets(group):
            setting = dict(clusterer=clusterer, metric=metric, m_rule=m_rule, k_rule=k_rule,
                           family=family)
            values, left_methods, left_datasets = _complete_block(subset)
            n, k = values.shape
            statistic, p = friedman_test(rank_methods(values)) if n else (np.nan, np.nan)
            friedman.append({**setting, "n_datasets": n, "n_methods": k, "statistic": statistic,
                             "p_value": p,
                             "critical_difference": critical_difference(k, n) if n and k > 1
                             else np.nan,
                             "left_out_methods": " ".join(left_methods),
                             "left_out_datasets": " ".join(left_datasets)})
            if not n:
                continue
            ranks = rank_methods(values)
            for method in values.columns:
                mean_ranks.append({**setting, "method": method,
                                   "mean_rank": float(ranks[method].mean()),
                                   "mean_value": float(values[method].mean()),
                                   "n_datasets": n,
                                   "no_result": int(values[method].isna().sum())})
            if k > 1:
                p_matrix = nemenyi_test(ranks)
                upper = np.triu_indices(k, 1)
                nemenyi.append(pd.DataFrame({**setting, "method_a": values.columns[upper[0]],
                                             "method_b": values.columns[upper[1]],
                                             "p_value": p_matrix.to_numpy()[upper]}))
            controls += [{**setting, **row} for row in versus_controls(values)]
    nemenyi_columns = [*SETTING, "method_a", "method_b", "p_value"]
    return {
        "mean_ranks": _sorted(pd.DataFrame(mean_ranks), ["mean_rank", "method"]),
        "friedman": _sorted(pd.DataFrame(friedman), []),
        "nemenyi": _sorted(pd.concat(nemenyi, ignore_index=True) if nemenyi
                           else pd.DataFrame(columns=nemenyi_columns), ["method_a", "method_b"]),
        "vs_controls": _sorted(pd.DataFrame(controls), ["control", "p_value", "method"]),
    }


def versus_random_by_method(vs_controls):
    """Each method's record against random features over the fixed fractions at the true K.

    Parameters
    ----------
    vs_controls : DataFrame
        The ``vs_controls`` table of :func:`benchmark_statistics`.

    Returns
    -------
    DataFrame
        One row per (family, method): ``settings`` (clusterers x metrics x fixed fractions the
        method was tested in), ``better`` and ``worse`` (settings where the Holm-adjusted
        Wilcoxon test against random features is significant, the median difference above
        zero, or not), ``m_better`` and ``m_worse`` (the fractions of d at which some setting
        is, in :data:`FIXED_FRACTIONS` order, space-separated; "-" for none),
        ``n_datasets`` (the largest complete block it was tested on), ``no_result`` (the most
        datasets of a setting where it has no result: a time-out, a failure or a degenerate
        ranking, scored below every result) and ``m_no_result`` (the fractions where some
        setting has no result on more than half of its datasets, "-" for none: there the
        record is of its cost, not of its features). This is what
        ``fsclust methods`` shows (issue 40, item 4), packaged by :func:`package_versus_random`.
    """
    columns = ["family", "method", "settings", "better", "worse", "m_better", "m_worse",
               "n_datasets", "no_result", "m_no_result"]
    rows = vs_controls[(vs_controls["control"] == RANDOM) & (vs_controls["k_rule"] == "true")
                       & vs_controls["m_rule"].isin(FIXED_FRACTIONS)]
    out = []
    for (family, method), group in rows.groupby(["family", "method"], sort=True):
        better = group["significant"].astype(bool) & (group["median_difference"] > 0)
        worse = group["significant"].astype(bool) & ~(group["median_difference"] > 0)

        def fractions(mask):
            present = set(group.loc[mask, "m_rule"])
            return " ".join(m for m in FIXED_FRACTIONS if m in present) or "-"

        out.append({"family": family, "method": method, "settings": len(group),
                    "better": int(better.sum()), "worse": int(worse.sum()),
                    "m_better": fractions(better), "m_worse": fractions(worse),
                    "n_datasets": int(group["n_datasets"].max()),
                    "no_result": int(group["no_result"].max()),
                    "m_no_result": fractions(group["no_result"] * 2 > group["n_datasets"])})
    table = pd.DataFrame(out, columns=columns)
    order = {family: i for i, family in enumerate(FAMILIES)}
    return table.sort_values(["family", "method"], key=lambda c: c.map(order)
                             if c.name == "family" else c).reset_index(drop=True)


def package_versus_random(tables_dir, path, *, source):
    """Write a run's record against random features to ``path``, computed by
    :func:`versus_random_by_method` from its ``vs_controls.tsv`` (under ``tables_dir``), the table
    :func:`fsclust.registry.benchmark_versus_random` reads, under a first line naming
    ``source`` (the run: its date, commit and command), so that ``fsclust methods`` and
    ``docs/methods.md`` show the benchmark's numbers from its tables, never written by hand.

    ``python -m fsclust.studies.benchmark.report --package results/benchmark
    src/fsclust/data/benchmark_vs_random.tsv --source "..."`` runs it.
    """
    controls = pd.read_csv(Path(tables_dir) / "vs_controls.tsv", sep="\t",
                           dtype={"m_rule": str, "k_rule": str})
    text = versus_random_by_method(controls).to_csv(sep="\t", index=False)
    header = (f"# {source}; per family and method, the settings (2 clusterers x 3 metrics x 6 "
              "fixed fractions of d, true K) where the Holm-adjusted Wilcoxon test over the "
              "datasets finds the method better or worse than random features\n")
    write_text_atomic(Path(path), header + text)
    return Path(path)


def _sorted(table, within):
    """Rows in the order of the setting, then ``within`` (see :func:`_natural_sort`)."""
    return _natural_sort(table, [*SETTING, *within])


#: Columns sorted in their natural order rather than alphabetically.
_NATURAL_ORDER = {"m_rule": M_RULES, "family": FAMILIES, "k_rule": K_RULES}


def _natural_sort(table, columns):
    """``table`` sorted by ``columns``, m rules, families and K rules in their natural order
    (unknown values after the known ones, alphabetically), stable."""
    if table.empty:
        return table.reset_index(drop=True)

    def key(column):
        known = _NATURAL_ORDER.get(column.name)
        if known is None:
            return column
        rank = {v: i for i, v in enumerate(known)}
        return column.map(lambda v: f"{rank.get(v, len(known)):02d} {v}")

    return table.sort_values(columns, key=key, kind="mergesort").reset_index(drop=True)


def _with_all_family(table):
    """``table`` and, when both families are in it, its copy as family "all"."""
    if table["family"].nunique() < 2:
        return table
    return pd.concat([table, table.assign(family="all")], ignore_index=True)


def label_free_loss(cells):
    """How much the label-free m loses against the best fixed fraction, per method.

    On each dataset where a method has both a label-free cell and fixed-fraction cells, the
    loss is the best fixed fraction's value (chosen with the labels: an oracle) minus the
    label-free value. Returns, per (clusterer, metric, K rule, family, method),
    ``n_datasets, median_loss, mean_loss, no_result`` (datasets where the label-free m has no
    result, left out of the loss). Empty when there are no label-free m rows.

    Examples
    --------
    >>> c = pd.DataFrame({"family": "image", "dataset": ["d", "d", "d", "e", "e"],
    ...                   "clusterer": "kmeans", "m_rule": ["1%", "5%", "label-free", "1%",
    ...                   "label-free"], "k_rule": "true", "method": "lap", "metric": "acc",
    ...                   "value": [0.5, 0.8, 0.6, 0.7, 0.7]})
    >>> loss = label_free_loss(c).iloc[0]
    >>> int(loss["n_datasets"]), round(float(loss["median_loss"]), 12)
    (2, 0.1)
    """
    keys = ["clusterer", "metric", "k_rule", "family", "dataset", "method"]
    fixed = cells[cells["m_rule"].isin(FIXED_FRACTIONS)]
    best = fixed.groupby(keys, sort=True)["value"].max().rename("best")
    free = cells[cells["m_rule"] == LABEL_FREE].set_index(keys)["value"].rename("label_free")
    both = pd.concat([best, free], axis=1, join="inner").dropna(subset=["best"]).reset_index()
    columns = [*SETTING, "method", "n_datasets", "median_loss", "mean_loss", "no_result"]
    if both.empty:
        return pd.DataFrame(columns=columns)
    both["loss"] = both["best"] - both["label_free"]
    both = _with_all_family(both)
    out = both.groupby(["clusterer", "metric", "k_rule", "family", "method"], sort=True).agg(
        n_datasets=("loss", "count"), median_loss=("loss", "median"),
        mean_loss=("loss", "mean"), no_result=("loss", lambda s: int(s.isna().sum())))
    out = out.reset_index().assign(m_rule=LABEL_FREE)
    return _sorted(out[columns], ["method"])


def cost_summary(costs):
    """Per family (and "all") and method: the median and largest ranking time, the largest
    peak memory and how many datasets ended with each status."""
    data = costs.copy()
    for column in ("seconds", "max_rss_mb"):
        data[column] = pd.to_numeric(data[column], errors="coerce")
    data = _with_all_family(data)
    grouped = data.groupby(["family", "method"], sort=True)
    out = grouped.agg(n_datasets=("dataset", "count"), median_seconds=("seconds", "median"),
                      max_seconds=("seconds", "max"), max_rss_mb=("max_rss_mb", "max"))
    counts = pd.crosstab([data["family"], data["method"]], data["status"])
    for status in STATUSES:
        out[f"n_{status}"] = counts[status] if status in counts else 0
    return _natural_sort(out.reset_index(), ["family", "method"])


# --------------------------------------------------------------------------- figures


def _slug(rule):
    """A rule as it reads in a file name ("10%" -> "10pct")."""
    return str(rule).replace("%", "pct")


def diagram_name(family, clusterer, metric, m_rule, k_rule):
    """The file name of one critical-difference diagram (under ``figures/``)."""
    return f"cd_{family}_{clusterer}_{metric}_{_slug(m_rule)}_{_slug(k_rule)}-k.png"


def _setting_words(metric, m_rule, k_rule, clusterer):
    k = "true K" if k_rule == "true" else f"{k_rule} K"
    return f"{METRIC_LABELS.get(metric, metric)}, m = {m_rule}, {k}, {clusterer}"


def plot_critical_difference(mean_ranks, p_values, cd, path, *, title):
    """Draw the critical-difference diagram of one setting (scikit-posthocs') and write it.

    Parameters
    ----------
    mean_ranks : Series
        Mean rank per method.
    p_values : DataFrame
        Nemenyi p-values, methods x methods; methods joined by a bar do not differ at ALPHA.
    cd : float
        The critical difference, drawn above the axis.
    path : str or Path
    title : str
    """
    import matplotlib.pyplot as plt
    import scikit_posthocs

    order = sorted(mean_ranks.index, key=lambda m: (mean_ranks[m], m))
    ranks = mean_ranks[order]
    colors = {m: "tab:red" if m in CONTROLS else "tab:blue" for m in order}
    fig, ax = plt.subplots(figsize=(8.0, 1.8 + 0.32 * len(order)))
    drawn = scikit_posthocs.critical_difference_diagram(
        ranks, p_values.loc[order, order], cd=cd, alpha=ALPHA, ax=ax, color_palette=colors,
        label_fmt_left="{label} ({rank:.2f})", label_fmt_right="({rank:.2f}) {label}")
    # a crossbar is drawn through its methods in the order of a set of names, which changes
    # with PYTHONHASHSEED: redraw each from left to right so the pixels do not
    for line in (line for bar in drawn["crossbars"] for line in bar):
        line.set_xdata(sorted(line.get_xdata()))
    ax.set_title(title, fontsize=9, pad=28)
    fig.tight_layout()
    save_figure(fig, path)


def plot_quality_against_cost(mean_ranks, costs, path, *, setting):
    """Mean rank (lower is better, at the top) against the median ranking time (log scale) of
    every method, one panel per family; the controls in red squares.

    Parameters
    ----------
    mean_ranks : DataFrame
        :func:`benchmark_statistics`' ``mean_ranks``.
    costs : DataFrame
        :func:`cost_summary`'s table.
    setting : dict
        ``clusterer``, ``metric``, ``m_rule``, ``k_rule`` of the ranks drawn.
    path : str or Path
    """
    import matplotlib.pyplot as plt

    ranks = mean_ranks[(mean_ranks[list(setting)] == pd.Series(setting)).all(axis=1)]
    families = [f for f in FAMILIES if (ranks["family"] == f).any()]
    fig, axes = plt.subplots(1, max(len(families), 1), figsize=(5.8 * max(len(families), 1),
                                                                5.0), squeeze=False)
    for ax, family in zip(axes[0], families):
        data = ranks[ranks["family"] == family].merge(
            costs[costs["family"] == family][["method", "median_seconds"]], on="method",
            how="left").sort_values("method")
        data["x"] = data["median_seconds"].fillna(0.0).clip(lower=MIN_SECONDS)
        for is_control, style in ((False, dict(marker="o", color="tab:blue")),
                                  (True, dict(marker="s", color="tab:red"))):
            part = data[data["method"].isin(CONTROLS) == is_control]
            ax.scatter(part["x"], part["mean_rank"], s=28, **style)
        for row in data.itertuples(index=False):
            ax.annotate(row.method, (row.x, row.mean_rank), fontsize=7,
                        xytext=(3, 3), textcoords="offset points")
        ax.set_xscale("log")
        ax.invert_yaxis()
        ax.set(xlabel="median ranking time per dataset (s)", ylabel="mean rank (1 = best)",
               title=f"{family} ({int(data['n_datasets'].max())} datasets)")
        ax.grid(alpha=0.3)
    fig.suptitle(f"Quality against cost: mean rank of {_setting_words(**setting)}; controls "
                 f"in red (all features rank nothing: drawn at {MIN_SECONDS:g} s)", fontsize=10)
    fig.tight_layout()
    save_figure(fig, path)


# --------------------------------------------------------------------------- summary


def _number(value, digits=3):
    """A number as the summary prints it ("n/a" for NaN)."""
    return "n/a" if value is None or pd.isna(value) else f"{value:.{digits}f}"


def _p(value):
    """A p-value as a table cell of the summary shows it."""
    if pd.isna(value):
        return "n/a"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def _p_is(value):
    """A p-value as a sentence of the summary says it ("p = 0.012", "p < 0.001")."""
    text = _p(value)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def _select(table, **where):
    mask = np.ones(len(table), dtype=bool)
    for column, value in where.items():
        mask &= (table[column] == value).to_numpy()
    return table[mask]


def _headline(cells):
    """The summary's setting: :data:`HEADLINE`, each part falling back to the first value
    present (in natural order) when the scores lack it; and the notes saying so."""
    chosen, notes = {}, []
    for column, wanted in HEADLINE.items():
        present = list(_natural_sort(cells[[column]].drop_duplicates(), [column])[column])
        if column == "m_rule":
            present = [r for r in present if r != ALL_FEATURES_RULE] or present
        chosen[column] = wanted if wanted in present else present[0]
        if chosen[column] != wanted:
            notes.append(f"the scores have no {column} {wanted!r}: the summary uses "
                         f"{chosen[column]!r}")
    return chosen, notes


class _Summary:
    """summary.md, built section by section from the tables."""

    def __init__(self, cells, stats, loss, costs_table, costs, headline, notes):
        self.cells, self.stats, self.loss = cells, stats, loss
        self.costs_table, self.costs = costs_table, costs
        self.headline, self.notes = headline, notes
        self.families = [f for f in FAMILIES[:-1] if (cells["family"] == f).any()]
        self.lines = []

    def text(self):
        for section in (self.introduction, self.which_method, self.diagram_order,
                        self.against_controls, self.label_free, self.quality_and_cost,
                        self.failures):
            section()
            self.lines.append("")
        return "\n".join(self.lines).rstrip() + "\n"

    def _ranks(self, family, **setting):
        ranks = _select(self.stats["mean_ranks"], family=family, **{**self.headline, **setting})
        return ranks.sort_values(["mean_rank", "method"], kind="mergesort")

    def _friedman(self, family):
        rows = _select(self.stats["friedman"], family=family, **self.headline)
        return rows.iloc[0] if len(rows) else None

    def _controls(self, family, **setting):
        return _select(self.stats["vs_controls"], family=family, **{**self.headline, **setting})

    def introduction(self):
        cells = self.cells
        words = _setting_words(**self.headline)
        per_family = ", ".join(f"{cells.loc[cells['family'] == f, 'dataset'].nunique()} "
                               f"{f}" for f in self.families)
        methods = sorted(set(cells["method"]) - set(CONTROLS))
        self.lines += [
            "# Which method? The unsupervised feature selection benchmark", "",
            f"{cells['dataset'].nunique()} datasets ({per_family}), {len(methods)} methods "
            f"and the controls `{RANDOM}` (random features) and `{ALL_FEATURES}`; clusterers "
            f"{', '.join(sorted(cells['clusterer'].unique()))}; m rules "
            f"{', '.join(r for r in M_RULES if (cells['m_rule'] == r).any())}; K rules "
            f"{', '.join(r for r in K_RULES if (cells['k_rule'] == r).any())}. "
            f"The answers below are for **{words}**; every other setting is in `tables/`.", "",
            "How to read the numbers: a method's value on a dataset is its mean over the "
            "clustering seeds (and, for `random`, over its ranker seeds); methods are ranked on "
            "each dataset (1 = best, ties averaged), and a method with no result there "
            "(timeout, failure, or a degenerate ranking that was not clustered) takes the last "
            "rank; mean ranks are over the datasets. Friedman's test asks whether the methods "
            f"differ at all; Nemenyi's post-hoc test (alpha = {ALPHA}) which pairs do. Against "
            "a control, the Wilcoxon signed-rank test is paired over the datasets, two-sided, "
            "zero differences dropped, Holm-corrected over the methods of one setting; a "
            "method without result on a dataset scores there the lower of 0 and the lowest "
            "value any method reached (it never beats a method that ran)."]
        missing = [f for f in FAMILIES[:-1] if f not in self.families]
        notes = list(self.notes)
        notes += [f"no {f} datasets in the scores: no answer for that family" for f in missing]
        if not (cells["m_rule"] == LABEL_FREE).any():
            notes.append("no label-free m rows: the label-free m's loss is not measured")
        if not (cells["k_rule"] == LABEL_FREE).any():
            notes.append("no label-free K rows: there is no second (label-free K) table")
        if notes:
            self.lines += ["", "Missing: " + "; ".join(notes) + "."]

    def which_method(self):
        self.lines += ["## Which method to use", ""]
        names = {"expression": "Expression data", "image": "Images"}
        for family in self.families:
            ranks = self._ranks(family)
            friedman = self._friedman(family)
            methods = ranks[~ranks["method"].isin(CONTROLS)]
            if methods.empty:
                self.lines.append(f"- **{names[family]}**: no method besides the controls.")
                continue
            best = methods.iloc[0]
            text = (f"- **{names[family]}** ({int(best['n_datasets'])} datasets): "
                    f"**{best['method']}**, mean rank {_number(best['mean_rank'], 2)} of "
                    f"{len(ranks)} (Friedman {_p_is(friedman['p_value'])}).")
            versus = _select(self._controls(family), control=RANDOM, method=best["method"])
            if len(versus):
                row = versus.iloc[0]
                verdict = ("significantly better than" if row["significant"]
                           and row["median_difference"] > 0 else
                           "significantly worse than" if row["significant"]
                           else "not significantly different from")
                text += (f" It is {verdict} random features: it beats them on "
                         f"{row['wins']} of {row['n_datasets']} datasets ({row['ties']} ties), "
                         f"Holm-adjusted Wilcoxon {_p_is(row['p_holm'])}.")
            top = ranks.iloc[0]
            if top["method"] in CONTROLS:
                text += (f" The best-ranked entry is the control `{top['method']}` (mean rank "
                         f"{_number(top['mean_rank'], 2)}).")
            self.lines.append(text)

    def diagram_order(self):
        self.lines += ["## Critical-difference order", ""]
        for family in [*self.families, *(["all"] if len(self.families) > 1 else [])]:
            ranks = self._ranks(family)
            friedman = self._friedman(family)
            if ranks.empty or friedman is None:
                continue
            order = ", ".join(f"{r.method} ({r.mean_rank:.2f})" for r in ranks.itertuples())
            nemenyi = _select(self.stats["nemenyi"], family=family, **self.headline)
            best = ranks.iloc[0]["method"]
            pairs = nemenyi[(nemenyi["method_a"] == best) | (nemenyi["method_b"] == best)]
            same = sorted(set(pairs.loc[pairs["p_value"] >= ALPHA, ["method_a", "method_b"]]
                              .to_numpy().ravel()) - {best})
            figure = diagram_name(family, **self.headline)
            self.lines += [
                f"**{family}** ({friedman['n_datasets']} datasets, {friedman['n_methods']} "
                f"methods; Friedman chi2 = {_number(friedman['statistic'], 1)}, "
                f"{_p_is(friedman['p_value'])}; critical difference "
                f"{_number(friedman['critical_difference'], 2)}): {order}. Not significantly "
                f"different from {best} (Nemenyi): {', '.join(same) or 'none'}.", "",
                f"![Critical-difference diagram, {family}, {_setting_words(**self.headline)}]"
                f"(figures/{figure})", ""]
            left = [f"{what} left out: {friedman[column]}" for what, column in
                    (("methods", "left_out_methods"), ("datasets", "left_out_datasets"))
                    if friedman[column]]
            if left:
                self.lines += ["; ".join(left) + " (not run on every dataset).", ""]

    def against_controls(self):
        self.lines += ["## Against random features and all features", "",
                       "Wins/ties/losses over the datasets; p: Wilcoxon signed-rank, "
                       "Holm-adjusted; * significant at "
                       f"{ALPHA}. Every setting: `tables/vs_controls.tsv`.", ""]
        for family in self.families:
            ranks = self._ranks(family)
            controls = self._controls(family)
            rows = []
            for rank in ranks.itertuples():
                row = {"method": rank.method, "mean rank": f"{rank.mean_rank:.2f}"}
                for control in CONTROLS:
                    versus = _select(controls, control=control, method=rank.method)
                    if len(versus):
                        v = versus.iloc[0]
                        row[f"vs {control}"] = f"{v['wins']}/{v['ties']}/{v['losses']}"
                        row[f"p ({control})"] = _p(v["p_holm"]) + ("*" if v["significant"]
                                                                   else "")
                    else:
                        row[f"vs {control}"] = row[f"p ({control})"] = "-"
                rows.append(row)
            self.lines += [to_markdown(pd.DataFrame(rows), title=None,
                                       note=f"**{family}**, {_setting_words(**self.headline)}"),
                           ""]
        self.lines += ["Against random features, per m rule "
                       f"({_setting_words(**{**self.headline, 'm_rule': 'each'})}):", ""]
        versus = _select(self.stats["vs_controls"], control=RANDOM,
                         **{k: v for k, v in self.headline.items() if k != "m_rule"})
        for family in self.families:
            for m_rule in M_RULES:
                rows = _select(versus, family=family, m_rule=m_rule)
                if rows.empty:
                    continue
                better = rows[rows["significant"] & (rows["median_difference"] > 0)]
                worse = rows[rows["significant"] & ~(rows["median_difference"] > 0)]
                neither = rows[~rows["significant"]]
                named = [", ".join(sorted(part["method"])) or "none"
                         for part in (better, worse, neither)]
                self.lines.append(f"- {family}, m = {m_rule}: better: {named[0]}; worse: "
                                  f"{named[1]}; not significant: {named[2]}.")

    def label_free(self):
        self.lines += ["## The label-free m against the best fixed fraction", ""]
        where = {k: v for k, v in self.headline.items() if k != "m_rule"}
        loss = _select(self.loss, **where) if len(self.loss) else self.loss
        if loss.empty:
            self.lines.append("Not measured: the scores have no label-free m rows for "
                              f"{_setting_words(**self.headline)} (see `tables/`).")
            return
        self.lines.append(
            "Loss = the best fixed fraction's value on a dataset (chosen with the labels, an "
            "oracle) minus the label-free m's; median over the datasets with both (their "
            f"number in brackets), {_setting_words(**{**self.headline, 'm_rule': 'label-free'})}"
            "; `tables/label_free_loss.tsv` has the mean and the other settings.")
        cell = loss.assign(text=[f"{m:.3f} ({n})" for m, n in
                                 zip(loss["median_loss"], loss["n_datasets"])])
        table = cell.pivot(index="method", columns="family", values="text").fillna("-")
        table = table[[f for f in FAMILIES if f in table.columns]].reset_index()
        self.lines += ["", to_markdown(table)]
        cells = _select(self.cells, **where)
        with_fixed = set(cells.loc[cells["m_rule"].isin(FIXED_FRACTIONS), "method"])
        without = sorted(with_fixed - set(loss["method"]) - {ALL_FEATURES})
        if without:
            self.lines += ["", f"No label-free m rows (not run here): {', '.join(without)}."]

    def quality_and_cost(self):
        self.lines += ["## Quality against cost", "",
                       "![Mean rank against median ranking time](figures/quality_vs_cost.png)",
                       ""]
        for family in [*self.families, *(["all"] if len(self.families) > 1 else [])]:
            table = self.costs_table[self.costs_table["family"] == family].dropna(
                subset=["median_seconds"])
            # a ranking's cost and a label-free selector's ({method}+label-free) apart: the
            # selector refits the ranking on every subsample
            selector = table["method"].str.endswith(SELECTOR_COST_SUFFIX)
            for part, what in ((table[~selector], "method"),
                               (table[selector], "label-free selector")):
                if part.empty:
                    continue
                slowest = part.sort_values(["median_seconds", "method"],
                                           ascending=[False, True], kind="mergesort").iloc[0]
                # a fit stopped at the limit counts its time there: a lower bound
                stopped = int(slowest["n_timeout"])
                bound = (f"; {stopped} of {int(slowest['n_datasets'])} datasets stopped at the "
                         f"time limit, their time a lower bound" if stopped else "")
                # stopped on most datasets, a method's median is the limit's: not an order
                most = part[(2 * part["n_timeout"] > part["n_datasets"])
                            & (part["method"] != slowest["method"])]
                if 2 * stopped > slowest["n_datasets"] and not most.empty:
                    bound += "; also stopped on most: " + ", ".join(
                        f"{r.method} ({int(r.n_timeout)} of {int(r.n_datasets)})"
                        for r in most.itertuples())
                self.lines.append(
                    f"- {family}: slowest {what} {slowest['method']}, median "
                    f"{_number(slowest['median_seconds'], 1)} s per dataset (longest "
                    f"{_number(slowest['max_seconds'], 1)} s{bound}).")

    def failures(self):
        self.lines += ["## Where methods fail", ""]
        costs = self.costs
        bad = costs[costs["status"] != "ok"]
        if bad.empty:
            self.lines.append(f"Every ranking finished (`ok` on all {len(costs)} "
                              "dataset-method pairs of `costs.tsv`).")
        else:
            counts = pd.crosstab(bad["method"], bad["status"])
            for method, row in counts.iterrows():
                parts = ", ".join(f"{int(row[s])} {s}" for s in STATUSES if s in row and row[s])
                datasets = ", ".join(sorted(bad.loc[bad["method"] == method, "dataset"]))
                self.lines.append(f"- {method}: {parts} ({datasets}).")
        memory = pd.to_numeric(costs["max_rss_mb"], errors="coerce")
        if memory.notna().any():
            top = costs.loc[memory.sort_values(ascending=False, kind="mergesort").index[0]]
            self.lines.append(f"- Largest peak memory: {top['method']} on {top['dataset']}, "
                              f"{_number(float(top['max_rss_mb']), 0)} MB.")
        cells = _select(self.cells, **{k: v for k, v in self.headline.items()
                                       if k != "m_rule"})
        empty = cells[cells["value"].isna() & (cells["metric"] == self.headline["metric"])]
        per_method = empty["method"].value_counts().sort_index()
        detail = (" (" + ", ".join(f"{m}: {n}" for m, n in per_method.items()) + ")"
                  if len(empty) else "")
        self.lines.append(
            f"- Cells without result ({_setting_words(**{**self.headline, 'm_rule': 'any'})}, "
            f"ranked last): {len(empty)}{detail}.")


# --------------------------------------------------------------------------- the report


#: The tables written under ``tables/`` and what each holds (the docs list them from here).
TABLES = {
    "dataset_scores.tsv": "one row per (family, dataset, clusterer, m rule, K rule, method): "
                          "each metric's cell (mean over seeds), its status, its runs",
    "mean_ranks.tsv": "mean rank of every method per setting",
    "friedman.tsv": "Friedman's test and the critical difference per setting, with what was "
                    "left out",
    "nemenyi.tsv": "Nemenyi's p-value of every pair of methods per setting",
    "vs_controls.tsv": "every method against random features and all features per setting: "
                       "wins, ties, losses, Wilcoxon p, Holm-adjusted p",
    "vs_random_by_method.tsv": "per family and method, the settings at the true K where it is "
                               "significantly better or worse than random features, and at "
                               "which fractions of d (what `fsclust methods` shows)",
    "label_free_loss.tsv": "the label-free m's loss against the best fixed fraction",
    "costs_summary.tsv": "median and largest time, largest memory, statuses per method",
    "failures.tsv": "every ranking that did not end ok, with its note",
}


def write_benchmark_report(scores, costs, out_dir, *, metrics=("acc", "nmi", "ari"),
                           diagrams="all"):
    """Write the benchmark's tables, figures and ``summary.md`` under ``out_dir``.

    Parameters
    ----------
    scores, costs : DataFrame
        The two tables of the module docstring.
    out_dir : str or Path
    metrics : sequence of str
        The metric columns of ``scores`` to analyse.
    diagrams : {"all", "headline"}, default="all"
        The critical-difference diagrams drawn: one per setting, or those of the headline
        setting alone (one per family; a small run's, about 0.25 s each saved 120 times).

    Returns
    -------
    list of Path
        The files written: ``summary.md``, ``tables/*.tsv`` (:data:`TABLES`),
        ``figures/cd_*.png`` (one critical-difference diagram per clusterer, metric, m rule
        and family at the K rules of :data:`DIAGRAM_K_RULES`, named by
        :func:`diagram_name`) and ``figures/quality_vs_cost.png``. The same input (in any row
        order) gives byte-identical files.
    """
    out_dir = Path(out_dir)
    cells = dataset_scores(scores, metrics)
    stats = benchmark_statistics(cells)
    loss = label_free_loss(cells)
    costs = _natural_sort(costs.copy(), ["family", "dataset", "method"])
    costs_table = cost_summary(costs)
    headline, notes = _headline(cells)
    wide = cells.pivot(index=_CELL, columns="metric", values="value").reset_index()
    status = cells.drop_duplicates(_CELL)[[*_CELL, "status", "n_runs"]]
    wide = _natural_sort(wide.merge(status, on=_CELL, how="left")[
        [*_CELL, *metrics, "status", "n_runs"]], _CELL)
    tables = {"dataset_scores.tsv": wide, **{f"{k}.tsv": v for k, v in stats.items()},
              "vs_random_by_method.tsv": versus_random_by_method(stats["vs_controls"]),
              "label_free_loss.tsv": loss, "costs_summary.tsv": costs_table,
              "failures.tsv": costs[costs["status"] != "ok"]}
    written = []
    for name, table in tables.items():
        path = out_dir / "tables" / name
        write_tables(table, path, float_format=_FLOAT_FORMAT)
        written.append(path)
    if diagrams not in ("all", "headline"):
        raise ValueError(f"diagrams must be 'all' or 'headline', got {diagrams!r}")
    written += _write_diagrams(stats, out_dir / "figures",
                               only=headline if diagrams == "headline" else None)
    path = out_dir / "figures" / "quality_vs_cost.png"
    plot_quality_against_cost(stats["mean_ranks"], costs_table, path,
                              setting={k: headline[k] for k in ("clusterer", "metric", "m_rule",
                                                                "k_rule")})
    written.append(path)
    summary = _Summary(cells, stats, loss, costs_table, costs, headline, notes).text()
    write_text_atomic(out_dir / "summary.md", summary)
    written.append(out_dir / "summary.md")
    return written


def _write_diagrams(stats, folder, only=None):
    """One critical-difference diagram per setting at :data:`DIAGRAM_K_RULES`; ``only``: the
    settings that match it (a dict of setting columns: the headline's, in every family)."""
    written = []
    friedman = stats["friedman"]
    for row in friedman[friedman["k_rule"].isin(DIAGRAM_K_RULES)].itertuples(index=False):
        setting = {c: getattr(row, c) for c in SETTING}
        if only is not None and any(setting[k] != v for k, v in only.items() if k in setting):
            continue
        if row.n_methods < 2 or row.n_datasets < 1:
            continue
        ranks = _select(stats["mean_ranks"], **setting).set_index("method")["mean_rank"]
        pairs = _select(stats["nemenyi"], **setting)
        where = {m: i for i, m in enumerate(ranks.index)}
        matrix = np.ones((len(ranks), len(ranks)))
        a, b = pairs["method_a"].map(where).to_numpy(), pairs["method_b"].map(where).to_numpy()
        matrix[a, b] = matrix[b, a] = pairs["p_value"].to_numpy()
        p = pd.DataFrame(matrix, index=ranks.index, columns=ranks.index)
        words = _setting_words(setting["metric"], setting["m_rule"], setting["k_rule"],
                               setting["clusterer"])
        title = (f"{setting['family']}: {words}\n{row.n_datasets} datasets, Friedman "
                 f"{_p_is(row.p_value)}, Nemenyi alpha = {ALPHA}")
        path = folder / diagram_name(**setting)
        plot_critical_difference(ranks, p, row.critical_difference, path, title=title)
        written.append(path)
    return written


def main(argv=None):
    """``python -m fsclust.studies.benchmark.report --package RESULTS TSV --source TEXT``."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--package", nargs=2, metavar=("RESULTS", "TSV"), required=True,
                        help="a benchmark run's results folder (its tables/) and the packaged "
                             "table to write (src/fsclust/data/benchmark_vs_random.tsv)")
    parser.add_argument("--source", required=True,
                        help="the run, in words: its date, commit and command")
    args = parser.parse_args(argv)
    results, path = args.package
    print(f"wrote {package_versus_random(Path(results) / 'tables', path, source=args.source)}")


if __name__ == "__main__":
    main()
