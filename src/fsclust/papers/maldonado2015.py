"""Tables 1, 3, 4, Figure 2 and the comparison table of Maldonado, Carrizosa & Weber (2015).

Everything here reads files the generic evaluate step already wrote, at the explicit paths the
rule gives (ranking TSVs and their JSON sidecars, the benchmark sweep TSVs and summary), and
only tabulates and plots; no clustering or ranking is run.

- Table 1 (toy sets): for each ranking, how many of the two relevant features are among its
  top n, with n the number of features KP-Kmeans keeps for the same toy set and seed (a
  KP-Kmeans reading: among the features it keeps itself).
- Table 3 (benchmark sets): ACC of KP-Kmeans' own partition (its sidecar) and of the
  clusterer on each filter's top n (the sweep rows marked ``selected_by`` KP-Kmeans).
- Table 4 (MLL): n and ACC of KP-Kmeans for each (lambda, gamma) run.
- Figure 2 (Lung): the filters' sweep curves and KP-Kmeans' elimination path.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from fsclust._io import write_text_atomic
from fsclust.registry import ALL_FEATURES
from fsclust.report.paper import PAPER_VS_OURS_COLUMNS, read_paper_results
from fsclust.report.tables import write_tables

#: The method key whose number of selected features n fixes the cut of every other method.
REFERENCE = "kpkmeans"
#: Our method keys and the paper's column names.
METHODS = {"kpkmeans": "KP-Kmeans", "pca": "PCA", "gha": "GHA", "spec": "SPEC", "mcfs": "MCFS"}
FILTERS = ("pca", "gha", "spec", "mcfs")
#: Our dataset ids and the paper's Table 3 row names.
TABLE3_NAMES = {
    "iris": "Iris", "wine": "Wine", "uci-glass": "Glass", "uci-segmentation": "Segment",
    "uci-waveform": "Waveform", "srbct-khan": "SRBCT", "maldonado-lung-substitute": "Lung",
    "skfeature-glioma": "Glioma", "maldonado-mll-substitute": "MLL",
}
#: The toy sets' relevant features (the two Zelnik-Manor & Perona coordinates).
RELEVANT = (0, 1)
MARKS = {2: "✓", 1: "①", 0: "X"}


def _read_json(path):
    return json.loads(Path(path).read_text())


def _ranking(path):
    table = pd.read_csv(path, sep="\t")
    return table.sort_values("rank", kind="stable")["index"].to_numpy()


def _toy_name(dataset):
    """``zp-toy1-10u`` -> ``toy1 10u`` (the paper's row name)."""
    match = re.fullmatch(r"zp-(toy\d)-(\d+[uc])", dataset)
    return f"{match.group(1)} {match.group(2)}" if match else dataset


def _unique(values):
    return list(dict.fromkeys(values))


def _exponent(value):
    """``a`` with ``value = 2^a`` (Table 4's rows are powers of two)."""
    a = math.log2(float(value))
    if a != round(a):
        raise ValueError(f"Table 4 runs use powers of two; {value} is not one")
    return int(round(a))


# Table 1 -------------------------------------------------------------------------------------

def _is_kpkmeans(methods, method):
    return (methods.get(method) or {}).get("method") == "kpkmeans"


def table1_runs(rankings, methods):
    """One row per toy set, seed and method: n and the number of relevant features in the top n.

    Parameters
    ----------
    rankings : list of dict
        ``{dataset, method, seed, ranking, sidecar}``: the paths of one ranking TSV and its
        sidecar JSON, for every toy set, method and seed.
    methods : dict
        The toy experiment's ``{key: spec}``, in column order; :data:`REFERENCE` among them.
        A KP-Kmeans reading counts the features it keeps itself (its own n); any other method
        its top n, with n that of :data:`REFERENCE` for the same set and seed.
    """
    files = {(r["dataset"], r["method"], int(r["seed"])): r for r in rankings}
    rows = []
    for ds in _unique(r["dataset"] for r in rankings):
        for seed in _unique(int(r["seed"]) for r in rankings if r["dataset"] == ds):
            kp = _read_json(files[ds, REFERENCE, seed]["sidecar"])
            n = int(kp["n_features_selected"])
            for method in methods:
                n_method = n
                if _is_kpkmeans(methods, method):
                    # a KP-Kmeans reading: its own selection, its own n
                    own = kp if method == REFERENCE else _read_json(
                        files[ds, method, seed]["sidecar"])
                    top = np.asarray(own["selected_features"], dtype=int)
                    n_method = int(own["n_features_selected"])
                else:
                    top = _ranking(files[ds, method, seed]["ranking"])[:n]
                rows.append({"dataset": ds, "seed": seed, "method": method, "n": n_method,
                             "relevant": int(np.isin(RELEVANT, top).sum())})
    return pd.DataFrame(rows)


def _kp_reading_note(methods):
    init = ((methods.get(REFERENCE) or {}).get("params") or {}).get("init_features")
    if init is None:
        return "KP-Kmeans preserves C = kernel k-means on all features."
    return (f"KP-Kmeans preserves C = kernel k-means on the {init} features (our reading of "
            "'the relevant features used to construct the initial clusters', Sec. 4.1): side "
            "information the filters do not get, chosen from the toys' design, not from labels. "
            "Other readings are extra columns with their own n.")


def _kp_settings(params):
    """``lambda = 2^-1, normalised step (at most 0.05 per factor)`` from KP-Kmeans' params."""
    lam = float(params.get("lam", 0.5))
    text = f"lambda = 2^{np.log2(lam):g}"
    if params.get("step", "fixed") == "normalized":
        return text + f", normalised step (at most {params.get('max_step', 0.05):g} per factor)"
    return text + f", gamma = {float(params.get('gamma', 1.0)):g}"


def _variant_label(spec):
    """Column name of an extra KP-Kmeans reading on the toy sets."""
    init = (spec.get("params") or {}).get("init_features")
    return "KP-Kmeans, C on all features" if init is None else f"KP-Kmeans, C on {init}"


# Table 3 -------------------------------------------------------------------------------------

def read_sweeps(paths):
    """The rows of the benchmark sweep TSVs (``selected_by`` blank, never NaN)."""
    sweeps = pd.concat([pd.read_csv(p, sep="\t") for p in paths], ignore_index=True)
    sweeps["selected_by"] = sweeps["selected_by"].fillna("").astype(str)
    return sweeps


def table3_runs(kp_sidecars, sweeps, filters, clusterer):
    """One row per benchmark set, seed and method: n and ACC (fraction) at n.

    Parameters
    ----------
    kp_sidecars : list of dict
        ``{dataset, seed, sidecar}``: KP-Kmeans' sidecar JSON (its n and its own ACC).
    sweeps : DataFrame
        Rows of the benchmark sweep TSVs (:func:`read_sweeps`).
    filters : dict
        The paper's filter column (``pca``, ``gha``, ``spec``, ``mcfs``) -> the method whose
        sweep rows at KP-Kmeans' n (``selected_by`` holds :data:`REFERENCE`) fill it.
    clusterer : str
        The clusterer key of those rows.
    """
    at_n = sweeps[(sweeps["clusterer"] == clusterer)
                  & sweeps["selected_by"].map(lambda s: REFERENCE in s.split(","))]
    rows = []
    for rec in kp_sidecars:
        ds, seed = rec["dataset"], int(rec["seed"])
        kp = _read_json(rec["sidecar"])
        rows.append({"dataset": ds, "seed": seed, "method": REFERENCE,
                     "n": int(kp["n_features_selected"]), "acc": kp["labels_metrics"]["acc"]})
        for method in FILTERS:
            if method not in filters:
                continue
            hit = at_n[(at_n["dataset"] == ds) & (at_n["method"] == filters[method])
                       & (at_n["seed"] == seed)]
            if len(hit) != 1:
                raise ValueError(
                    f"Table 3: expected one {clusterer} row of method {filters[method]!r} on "
                    f"{ds}, seed {seed}, at the n of {REFERENCE} (selected_by); found "
                    f"{len(hit)}: is {{selected_by: {REFERENCE}}} in that method's sweep grid?")
            rows.append({"dataset": ds, "seed": seed, "method": method,
                         "n": int(hit["n_features"].iloc[0]), "acc": float(hit["acc"].iloc[0])})
    return pd.DataFrame(rows)


# Table 4 -------------------------------------------------------------------------------------

def table4_runs(runs):
    """One row per (lambda exponent, gamma exponent, seed): n and ACC of KP-Kmeans.

    ``runs``: ``{method, lam, gamma, seed, sidecar}`` records (lambda and gamma powers of two),
    optionally ``gradient`` (``"correct"`` when absent; ``"printed"``: the paper-as-printed
    variant, eq. (24), reported as ``variant:`` rows).
    """
    rows = []
    for rec in runs:
        kp = _read_json(rec["sidecar"])
        rows.append({"lam_exp": _exponent(rec["lam"]), "gamma_exp": _exponent(rec["gamma"]),
                     "gradient": rec.get("gradient", "correct"),
                     "seed": int(rec["seed"]), "n": int(kp["n_features_selected"]),
                     "acc": kp["labels_metrics"]["acc"], "seconds": kp["seconds"]})
    return pd.DataFrame(rows, columns=["lam_exp", "gamma_exp", "gradient", "seed", "n", "acc",
                                       "seconds"])


# Comparison rows -----------------------------------------------------------------------------

def _summary(runs, keys, value):
    agg = runs.groupby(keys, sort=False)[value].agg(["mean", "std", "count"]).reset_index()
    return agg.rename(columns={"mean": f"{value}_mean", "std": f"{value}_sd", "count": "n_runs"})


def _paper_rows(paper_results, paper_id, table):
    sel = paper_results[(paper_results["paper"] == paper_id)
                        & (paper_results["table_or_figure"] == table)]
    return sel.reset_index(drop=True)


def _row(paper_row, ours, ours_sd, note):
    paper_value = float(paper_row["value"]) if paper_row["value"] not in ("", "NA") else np.nan
    return {
        "paper": paper_row["paper"], "table_or_figure": paper_row["table_or_figure"],
        "dataset": paper_row["dataset"], "method": paper_row["method"],
        "n_features": paper_row["n_features"], "metric": paper_row["metric"],
        "paper_value": paper_value, "paper_sd": np.nan, "ours_value": ours, "ours_sd": ours_sd,
        "diff": ours - paper_value, "note": note,
    }


def _table1(paper_results, paper_id, toy_methods, toy_rankings, outputs, compare):
    t1 = table1_runs(toy_rankings, toy_methods)
    t1s = _summary(t1, ["dataset", "method"], "relevant")
    t1n = _summary(t1[t1["method"] == REFERENCE], ["dataset"], "n")
    paper_t1 = _paper_rows(paper_results, paper_id, "Table 1")
    variants = {m: _variant_label(spec) for m, spec in toy_methods.items()
                if m != REFERENCE and _is_kpkmeans(toy_methods, m)}
    labels = {m: label for m, label in METHODS.items() if m in toy_methods}
    wide = []
    for ds in _unique(t1["dataset"]):
        name = _toy_name(ds)
        nrow = t1n[t1n["dataset"] == ds].iloc[0]
        row = {"dataset": name, "n (ours)": f"{nrow['n_mean']:.1f}"}
        pn = paper_t1[(paper_t1["dataset"] == name) & (paper_t1["metric"] == "n_selected_features")]
        row["n (paper)"] = pn["value"].iloc[0] if not pn.empty else ""
        if not pn.empty:
            compare.append(_row(pn.iloc[0], nrow["n_mean"], nrow["n_sd"], "ours: mean over seeds"))
        for method, label in {**labels, **variants}.items():
            s = t1s[(t1s["dataset"] == ds) & (t1s["method"] == method)].iloc[0]
            sub = t1[(t1["dataset"] == ds) & (t1["method"] == method)]
            if method in variants:
                row[label] = ("".join(MARKS[v] for v in sub["relevant"])
                              + f" (n={sub['n'].mean():.1f})")
                pr = paper_t1[(paper_t1["dataset"] == name) & (paper_t1["method"] == "KP-Kmeans")
                              & (paper_t1["metric"] == "relevant_vars_in_selection")]
                if not pr.empty:
                    extra = _row(pr.iloc[0], s["relevant_mean"], s["relevant_sd"],
                                 f"variant: our other reading ({label}): relevant features among "
                                 "the n it keeps; mean over seeds")
                    extra["method"] = label
                    compare.append(extra)
                continue
            seeds_marks = "".join(MARKS[v] for v in sub["relevant"])
            pr = paper_t1[(paper_t1["dataset"] == name) & (paper_t1["method"] == label)
                          & (paper_t1["metric"] == "relevant_vars_in_selection")]
            paper_mark = MARKS.get(int(pr["value"].iloc[0]), "?") if not pr.empty else ""
            row[label] = f"{seeds_marks} ({paper_mark})"
            if not pr.empty:
                note = ("relevant features among the n KP-Kmeans keeps" if method == REFERENCE
                        else "relevant features among the method's top n "
                             "(n of KP-Kmeans, same seed)")
                compare.append(_row(pr.iloc[0], s["relevant_mean"], s["relevant_sd"],
                                    f"{note}; mean over seeds (2 = both, 1 = one, 0 = none)"))
        wide.append(row)
    kp_params = toy_methods[REFERENCE].get("params") or {}
    write_tables(
        t1.merge(t1s, on=["dataset", "method"]), outputs["table1_tsv"], outputs["table1"],
        float_format="%.4g", md_frame=pd.DataFrame(wide),
        title="Table 1: relevant features found on the toy sets",
        note=("Per seed: ✓ both relevant features among the top n, ① one, X none; the paper's "
              "mark in brackets. n = features kept by KP-Kmeans (mean over seeds); the filters "
              "are cut at the same seed's n; MCFS is refitted with lasso cardinality n. "
              f"KP-Kmeans on the toys: {_kp_settings(kp_params)}. "
              + _kp_reading_note(toy_methods)))


def _table3(paper_results, paper_id, kp_sidecars, sweeps, table3, kp_params, substitutes,
            outputs, compare):
    t3 = table3_runs(kp_sidecars, sweeps, table3["filters"], table3["clusterer"])
    t3s = _summary(t3, ["dataset", "method"], "acc").merge(
        _summary(t3, ["dataset", "method"], "n").drop(columns="n_runs"), on=["dataset", "method"])
    paper_t3 = _paper_rows(paper_results, paper_id, "Table 3")
    max_samples = kp_params.get("max_samples")
    seeds = _unique(int(r["seed"]) for r in kp_sidecars)
    first = {}
    for rec in kp_sidecars:
        first.setdefault(rec["dataset"], rec["sidecar"])
    wide = []
    for ds in first:
        name = TABLE3_NAMES.get(ds, ds)
        marks = []
        if ds in substitutes:
            marks.append("substitute")
        n_samples = _read_json(first[ds])["n_samples"]
        if max_samples and n_samples > max_samples:
            marks.append(f"KP-Kmeans fitted on {max_samples} of {n_samples} samples")
        kp = t3s[(t3s["dataset"] == ds) & (t3s["method"] == REFERENCE)].iloc[0]
        pn = paper_t3[(paper_t3["dataset"] == name) & (paper_t3["metric"] == "n_selected_features")]
        row = {"dataset": name + (" *" if marks else ""),
               "n ours": f"{kp['n_mean']:.1f}",
               "n paper": pn["value"].iloc[0] if not pn.empty else ""}
        if not pn.empty:
            compare.append(_row(pn.iloc[0], kp["n_mean"], kp["n_sd"],
                                "; ".join(["ours: mean over seeds", *marks])))
        for method, label in METHODS.items():
            hit = t3s[(t3s["dataset"] == ds) & (t3s["method"] == method)]
            if hit.empty:
                continue
            s = hit.iloc[0]
            pr = paper_t3[(paper_t3["dataset"] == name) & (paper_t3["method"] == label)
                          & (paper_t3["metric"] == "ACC_percent")]
            sd = "" if np.isnan(s["acc_sd"]) else f" ± {100 * s['acc_sd']:.1f}"
            row[label] = (f"{100 * s['acc_mean']:.1f}{sd}"
                          + (f" ({pr['value'].iloc[0]})" if not pr.empty else ""))
            if not pr.empty:
                how = ("its own final partition" if method == REFERENCE else
                       "kernel k-means sigma=1 on its top n "
                       "(n of KP-Kmeans, same seed, at least 1)")
                compare.append(_row(pr.iloc[0], 100 * s["acc_mean"], 100 * s["acc_sd"],
                                    "; ".join([f"ACC of {how}", *marks])))
        if not pn.empty:
            compare.extend(_at_paper_n_rows(paper_t3, sweeps, table3, ds, name,
                                            int(float(pn["value"].iloc[0])), marks))
        row["notes"] = "; ".join(marks)
        wide.append(row)
    write_tables(
        t3.merge(t3s, on=["dataset", "method"]), outputs["table3_tsv"], outputs["table3"],
        md_frame=pd.DataFrame(wide), title="Table 3: ACC (%) at the n KP-Kmeans selects",
        note=(f"Mean ± sd over seeds {seeds}; the paper's number in brackets. * see notes. "
              f"KP-Kmeans: {_kp_settings(kp_params)}; filters: kernel k-means, Gaussian sigma = 1 "
              "on the z-scored top-n features divided by sqrt(n) (restarts: the bench "
              "clusterer's n_init)."))


def _at_paper_n_rows(paper_t3, sweeps, table3, ds, name, n, marks):
    """``variant:`` rows: each filter clustered at the paper's n instead of our KP-Kmeans' n.

    Table 3 cuts the filters at the n KP-Kmeans keeps; ours keeps far fewer features on the
    microarray sets (SRBCT 301 -> about 5), so its filter columns compare other subsets than
    the paper's. These rows read the filters' sweep at the paper's n (on the sweep grid) to
    separate the filters' own differences from KP-Kmeans'.
    """
    methods = table3.get("filters_at_paper_n") or {}
    rows = []
    for method, bench_method in methods.items():
        pr = paper_t3[(paper_t3["dataset"] == name) & (paper_t3["method"] == METHODS[method])
                      & (paper_t3["metric"] == "ACC_percent")]
        hit = sweeps[(sweeps["clusterer"] == table3["clusterer"]) & (sweeps["dataset"] == ds)
                     & (sweeps["method"] == bench_method) & (sweeps["n_features"] == n)]
        if pr.empty or hit.empty:
            continue
        acc = 100 * hit.drop_duplicates("seed")["acc"]
        rows.append(_row(pr.iloc[0], float(acc.mean()),
                         float(acc.std()) if len(acc) > 1 else np.nan,
                         "; ".join([f"variant: {bench_method} at the paper's n = {n} (not our "
                                    f"KP-Kmeans' n), ACC of {table3['clusterer']} on its top "
                                    f"{n}; mean over seeds", *marks])))
    return rows


def _table4(paper_results, paper_id, table4, dataset, runs, substitutes, outputs, compare):
    if not runs:
        write_tables(pd.DataFrame(), outputs["table4_tsv"])
        write_text_atomic(outputs["table4"], f"Table 4: dataset {dataset} unavailable\n")
        return
    t4_all = table4_runs(runs)
    printed = t4_all[t4_all["gradient"] != "correct"]
    t4 = t4_all[t4_all["gradient"] == "correct"]
    t4s = _summary(t4, ["lam_exp", "gamma_exp"], "acc").merge(
        _summary(t4, ["lam_exp", "gamma_exp"], "n").drop(columns="n_runs"),
        on=["lam_exp", "gamma_exp"])
    paper_t4 = _paper_rows(paper_results, paper_id, "Table 4")
    _printed_variant_rows(paper_results, paper_id, table4, paper_t4, printed, dataset,
                          substitutes, compare)
    wide = []
    for a in table4["exponents"]:
        row = {"exponent": f"2^{a}"}
        for which, key in (("lambda", (a, table4["gamma_fixed"])),
                           ("gamma", (table4["lambda_fixed"], a))):
            hit = t4s[(t4s["lam_exp"] == key[0]) & (t4s["gamma_exp"] == key[1])]
            if hit.empty:
                continue
            s = hit.iloc[0]
            pattern = (rf"^lambda=2\^{a}(;|$)" if which == "lambda"
                       else rf"^gamma=2\^{a}(;|$)")
            pr = paper_t4[paper_t4["notes"].str.contains(pattern, regex=True)]
            pacc = pr[pr["metric"] == "ACC_percent"]
            pn = pr[pr["metric"] == "n_selected_features"]
            row[f"{which}: ACC"] = (f"{100 * s['acc_mean']:.1f}"
                                    + (f" ({pacc['value'].iloc[0]})" if not pacc.empty else ""))
            row[f"{which}: n"] = (f"{s['n_mean']:.1f}"
                                  + (f" ({pn['value'].iloc[0]})" if not pn.empty else ""))
            setting = (f"lambda=2^{key[0]}, gamma=2^{key[1]}; "
                       f"{'substitute MLL; ' if dataset in substitutes else ''}"
                       "mean over seeds")
            if not pacc.empty:
                compare.append(_row(pacc.iloc[0], 100 * s["acc_mean"], 100 * s["acc_sd"], setting))
            if not pn.empty:
                compare.append(_row(pn.iloc[0], s["n_mean"], s["n_sd"], setting))
        wide.append(row)
    seeds = _unique(int(r["seed"]) for r in runs)
    name = TABLE3_NAMES.get(dataset, dataset)
    write_tables(
        t4_all, outputs["table4_tsv"], outputs["table4"], md_frame=pd.DataFrame(wide),
        title=f"Table 4: KP-Kmeans on {name} over lambda and gamma",
        note=(f"ACC (%) and n, mean over seeds {seeds}; the paper's numbers in brackets. "
              f"lambda column: gamma = 2^{table4['gamma_fixed']}; gamma column: lambda = "
              f"2^{table4['lambda_fixed']} (every run, also any beyond the two sweeps, is in "
              f"{Path(outputs['table4_tsv']).name}). Fixed step v <- v - gamma grad "
              "(the table is about gamma), so the lambda = 2^-1, gamma = 1 row need not "
              "equal Table 3 when Table 3 uses the normalised step."))


def _printed_variant_rows(paper_results, paper_id, table4, paper_t4, printed, dataset,
                          substitutes, compare):
    """``variant:`` rows of the runs with the gradient as printed in eq. (24): the paper as
    printed, next to every Table 4 cell of the same (lambda, gamma) and, for the fixed pair
    (lambda = 2^-1, gamma = 2^0: the paper's MLL setting), next to Table 3's row of the
    dataset."""
    if printed.empty:
        return
    name = TABLE3_NAMES.get(dataset, dataset)
    paper_t3 = _paper_rows(paper_results, paper_id, "Table 3")
    for (a, b), runs in printed.groupby(["lam_exp", "gamma_exp"], sort=True):
        acc, n = 100 * runs["acc"], runs["n"]
        note = (f"variant: the gradient as printed in eq. (24) (-v_j times the correct one), "
                f"lambda=2^{a}, gamma=2^{b}; "
                f"{'substitute MLL; ' if dataset in substitutes else ''}mean over seeds "
                f"{_unique(int(x) for x in runs['seed'])}")
        lam_row = paper_t4["notes"].str.contains(rf"^lambda=2\^{a}(;|$)", regex=True)
        gamma_row = paper_t4["notes"].str.contains(rf"^gamma=2\^{b}(;|$)", regex=True)
        lf, gf = table4["lambda_fixed"], table4["gamma_fixed"]
        cells = paper_t4[(lam_row & (b == gf)) | (gamma_row & (a == lf))]
        if (a, b) == (lf, gf):
            cells = pd.concat([cells, paper_t3[(paper_t3["dataset"] == name)
                                               & (paper_t3["method"] == METHODS[REFERENCE])]])
        for _, pr in cells.iterrows():
            ours = acc if pr["metric"] == "ACC_percent" else n
            if pr["metric"] not in ("ACC_percent", "n_selected_features"):
                continue
            sd = float(ours.std()) if len(ours) > 1 else np.nan
            compare.append(_row(pr, float(ours.mean()), sd, note))


def tables(inputs, outputs, *, paper_id, figure2_dataset, table3, table4, toy_methods,
           toy_rankings, kp_params, kp_sidecars, table4_dataset, table4_runs, substitutes):
    """Rule ``maldonado2015_tables``: Tables 1, 3, 4 (TSV + Markdown), Figure 2 and the
    comparison table (every number of the three tables, in the columns of paper_vs_ours.tsv).

    Parameters
    ----------
    inputs : dict
        ``paper`` (config/paper-results.tsv), ``sweeps`` (the benchmark experiment's sweep
        TSVs) and ``summary`` (its per-m summary, for Figure 2); the ranking directories the
        records below point into are inputs too.
    outputs : dict
        ``table1``, ``table1_tsv``, ``table3``, ``table3_tsv``, ``table4``, ``table4_tsv``,
        ``figure2``, ``paper_vs_ours``, ``paper_vs_ours_md``.
    paper_id, figure2_dataset, table3, table4 :
        The paper block's settings (workflow/schemas/papers/maldonado2015.schema.yaml).
    toy_methods : dict
        The toy experiment's methods (``{key: spec}``), in the table's column order.
    toy_rankings : list of dict
        ``{dataset, method, seed, ranking, sidecar}`` of every toy ranking.
    kp_params : dict
        KP-Kmeans' parameters on the benchmark sets (``max_samples`` is reported).
    kp_sidecars : list of dict
        ``{dataset, seed, sidecar}`` of KP-Kmeans on every available benchmark set.
    table4_dataset : str
        The Table 4 set (MLL).
    table4_runs : list of dict
        ``{method, lam, gamma, seed, sidecar}`` of every Table 4 run (empty: unavailable).
    substitutes : list of str
        Datasets that are substitutes of the paper's (marked in the tables).
    """
    paper_results = read_paper_results(inputs["paper"])
    substitutes = set(substitutes)
    compare = []
    _table1(paper_results, paper_id, toy_methods, toy_rankings, outputs, compare)
    _table3(paper_results, paper_id, kp_sidecars, read_sweeps(_as_list(inputs["sweeps"])),
            table3, kp_params, substitutes, outputs, compare)
    _table4(paper_results, paper_id, table4, table4_dataset, table4_runs, substitutes, outputs,
            compare)
    table = pd.DataFrame(compare, columns=PAPER_VS_OURS_COLUMNS)
    write_tables(table, outputs["paper_vs_ours"], outputs["paper_vs_ours_md"],
                 title="Paper vs ours: Maldonado et al. 2015, Tables 1, 3, 4",
                 note="diff = ours - paper; differing numbers are shown, never tuned away.")
    figure2(inputs["summary"],
            [r["sidecar"] for r in kp_sidecars if r["dataset"] == figure2_dataset],
            figure2_dataset, outputs["figure2"])


def _as_list(value):
    return [value] if isinstance(value, (str, Path)) else list(value)


def figure2(summary_path, sidecar_paths, dataset, out_path):
    """Fig. 2: ACC against the number of features on Lung.

    The filters' curves are the sweep's mean over seeds (kernel k-means on their top m);
    KP-Kmeans' curve is its own partition after each elimination round, one line per seed.
    """
    import matplotlib.pyplot as plt

    from fsclust.report.figures import save_figure

    summary = pd.read_csv(summary_path, sep="\t")
    sub = summary[(summary["dataset"] == dataset) & (summary["metric"] == "acc")]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    if sub.empty and not sidecar_paths:
        ax.text(0.5, 0.5, f"{dataset}: unavailable here", ha="center", va="center")
        ax.set_axis_off()
        save_figure(fig, out_path)
        return
    colors = dict(zip(METHODS, plt.cm.tab10.colors))
    for method in FILTERS:
        g = sub[sub["method"] == method].sort_values("n_features")
        if not g.empty:
            ax.plot(g["n_features"], 100 * g["mean"], marker="o", ms=3, color=colors[method],
                    label=f"{METHODS[method]} (top m)")
    base = sub[sub["method"] == ALL_FEATURES]
    if not base.empty:
        ax.axhline(100 * float(base["mean"].iloc[0]), color="k", ls="--", lw=1,
                   label="all features")
    for i, path in enumerate(sidecar_paths):
        info = _read_json(path)
        x = np.maximum(np.asarray(info["n_features_path"]), 0.8)  # n = 0 drawn at the axis
        y = [100 * m["acc"] for m in info["path_metrics"]]
        ax.plot(x, y, drawstyle="steps-post", color=colors[REFERENCE], alpha=0.8, lw=1.2,
                label="KP-Kmeans (elimination path)" if i == 0 else None)
    ax.set_xscale("log")
    ax.set_xlabel("number of features")
    ax.set_ylabel("ACC (%)")
    ax.set_title(f"Fig. 2: {dataset}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, out_path)
