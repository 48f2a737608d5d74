"""Tables 1, 3, 4, Figure 2 and ``paper_vs_ours.tsv`` of Maldonado, Carrizosa & Weber (2015).

Everything here reads files the workflow already wrote (rankings, rank sidecars, the kernel
k-means results at the n KP-Kmeans selects, the sweep summary) and only tabulates; no
clustering or ranking is run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from fsclust._io import write_table_atomic, write_text_atomic
from fsclust.report.figures import save_figure  # noqa: E402
from fsclust.report.paper import PAPER_VS_OURS_COLUMNS, read_paper_results
from fsclust.report.tables import to_markdown

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


def selected_count(sidecar_path):
    """The number of features KP-Kmeans kept (``n_features_selected`` of its rank sidecar)."""
    return int(_read_json(sidecar_path)["n_features_selected"])


def _read_json(path):
    return json.loads(Path(path).read_text())


def _ranking(path):
    table = pd.read_csv(path, sep="\t")
    return table.sort_values("rank", kind="stable")["index"].to_numpy()


def _toy_name(dataset):
    """``zp-toy1-10u`` -> ``toy1 10u`` (the paper's row name)."""
    match = re.fullmatch(r"zp-(toy\d)-(\d+[uc])", dataset)
    return f"{match.group(1)} {match.group(2)}" if match else dataset


def _mean_sd(values):
    values = np.asarray(values, dtype=float)
    sd = float(np.std(values, ddof=1)) if values.size > 1 else np.nan
    return float(np.mean(values)), sd


def table1_runs(results, toy_datasets, seeds, toy_methods):
    """One row per toy set, seed and method: n and the number of relevant features in the top n."""
    rows = []
    for ds in toy_datasets:
        for seed in seeds:
            kp = _read_json(f"{results}/toy/{ds}/kpkmeans/seed{seed}.json")
            n = int(kp["n_features_selected"])
            for method in [*toy_methods, "mcfs"]:
                n_method = n
                if method == "kpkmeans" or _is_kpkmeans(toy_methods, method):
                    # a KP-Kmeans reading: its own selection, its own n
                    own = kp if method == "kpkmeans" else _read_json(
                        f"{results}/toy/{ds}/{method}/seed{seed}.json")
                    top = np.asarray(own["selected_features"], dtype=int)
                    n_method = int(own["n_features_selected"])
                else:
                    path = (f"{results}/mcfs_at_n/{ds}/seed{seed}.tsv" if method == "mcfs"
                            else f"{results}/toy/{ds}/{method}/seed{seed}.tsv")
                    top = _ranking(path)[:n]
                rows.append({"dataset": ds, "seed": seed, "method": method, "n": n_method,
                             "relevant": int(np.isin(RELEVANT, top).sum())})
    return pd.DataFrame(rows)


def _is_kpkmeans(toy_methods, method):
    return (toy_methods.get(method) or {}).get("method") == "kpkmeans"


def _kp_reading_note(toy_methods):
    init = ((toy_methods.get("kpkmeans") or {}).get("params") or {}).get("init_features")
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


def table3_runs(results, datasets, seeds):
    """One row per benchmark set, seed and method: n and ACC (fraction) at n."""
    rows = []
    for ds in datasets:
        for seed in seeds:
            kp = _read_json(f"{results}/rankings/{ds}/kpkmeans/seed{seed}.json")
            n = int(kp["n_features_selected"])
            rows.append({"dataset": ds, "seed": seed, "method": "kpkmeans", "n": n,
                         "acc": kp["labels_metrics"]["acc"]})
            for method in FILTERS:
                at_n = pd.read_csv(f"{results}/at_n/{ds}/{method}/seed{seed}.tsv", sep="\t")
                rows.append({"dataset": ds, "seed": seed, "method": method,
                             "n": int(at_n["n_features"].iloc[0]), "acc": float(at_n["acc"].iloc[0])})
    return pd.DataFrame(rows)


def table4_runs(results, runs, seeds):
    """One row per (lambda exponent, gamma exponent, seed): n and ACC of KP-Kmeans."""
    rows = []
    for lam, gamma in runs:
        for seed in seeds:
            kp = _read_json(f"{results}/table4/lam{lam}_gamma{gamma}/seed{seed}.json")
            rows.append({"lam_exp": lam, "gamma_exp": gamma, "seed": seed,
                         "n": int(kp["n_features_selected"]), "acc": kp["labels_metrics"]["acc"],
                         "seconds": kp["seconds"]})
    return pd.DataFrame(rows)


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


def _substitutes(sheet):
    from fsclust.datasets import load_catalog

    return {k for k, entry in load_catalog(sheet).items() if entry.substitute}


def build_tables(results, *, paper, seeds, datasets, runs4, paper_results_path, sheet,
                 kp_params, out):
    """Write Tables 1, 3 and 4 (TSV + Markdown) and ``paper_vs_ours.tsv``/``.md``.

    Parameters
    ----------
    results : str
        ``results/<experiment>``.
    paper : dict
        The experiment's ``paper`` block (toy sets and methods, Table 4 settings).
    seeds, datasets : list
        Seeds and the benchmark sets that could be had.
    runs4 : list of (int, int)
        Exponents ``(a, b)`` of ``lambda = 2^a``, ``gamma = 2^b``.
    paper_results_path, sheet : str
        ``config/paper-results.tsv`` and the dataset sheet (substitute marks).
    kp_params : dict
        KP-Kmeans' parameters on the benchmark sets (``max_samples`` is reported).
    out : dict
        Output paths (keys ``table1``, ``table1_tsv``, ``table3``, ``table3_tsv``, ``table4``,
        ``table4_tsv``, ``paper_vs_ours``, ``paper_vs_ours_md``).
    """
    paper_results = read_paper_results(paper_results_path)
    paper_id = paper["paper_id"]
    substitutes = _substitutes(sheet)
    seeds = list(seeds)
    compare = []

    # Table 1 -------------------------------------------------------------------------------
    t1 = table1_runs(results, paper["toy_datasets"], seeds, paper["toy_methods"])
    t1s = _summary(t1, ["dataset", "method"], "relevant")
    t1n = _summary(t1[t1["method"] == "kpkmeans"], ["dataset"], "n")
    write_table_atomic(t1.merge(t1s, on=["dataset", "method"]), out["table1_tsv"],
                       float_format="%.4g")
    wide = []
    paper_t1 = _paper_rows(paper_results, paper_id, "Table 1")
    for ds in paper["toy_datasets"]:
        name = _toy_name(ds)
        nrow = t1n[t1n["dataset"] == ds].iloc[0]
        row = {"dataset": name, "n (ours)": f"{nrow['n_mean']:.1f}"}
        pn = paper_t1[(paper_t1["dataset"] == name) & (paper_t1["metric"] == "n_selected_features")]
        row["n (paper)"] = pn["value"].iloc[0] if not pn.empty else ""
        if not pn.empty:
            compare.append(_row(pn.iloc[0], nrow["n_mean"], nrow["n_sd"], "ours: mean over seeds"))
        variants = {m: _variant_label(spec) for m, spec in paper["toy_methods"].items()
                    if m != "kpkmeans" and _is_kpkmeans(paper["toy_methods"], m)}
        for method, label in {**METHODS, **variants}.items():
            s = t1s[(t1s["dataset"] == ds) & (t1s["method"] == method)].iloc[0]
            if method in variants:
                sub = t1[(t1["dataset"] == ds) & (t1["method"] == method)]
                row[label] = ("".join(MARKS[v] for v in sub["relevant"])
                              + f" (n={sub['n'].mean():.1f})")
                pr = paper_t1[(paper_t1["dataset"] == name) & (paper_t1["method"] == "KP-Kmeans")
                              & (paper_t1["metric"] == "relevant_vars_in_selection")]
                if not pr.empty:
                    extra = _row(pr.iloc[0], s["relevant_mean"], s["relevant_sd"],
                                 f"our other reading ({label}): relevant features among the n it "
                                 "keeps; mean over seeds")
                    extra["method"] = label
                    compare.append(extra)
                continue
            seeds_marks = "".join(MARKS[v] for v in t1[(t1["dataset"] == ds)
                                                       & (t1["method"] == method)]["relevant"])
            pr = paper_t1[(paper_t1["dataset"] == name) & (paper_t1["method"] == label)
                          & (paper_t1["metric"] == "relevant_vars_in_selection")]
            paper_mark = MARKS.get(int(pr["value"].iloc[0]), "?") if not pr.empty else ""
            row[label] = f"{seeds_marks} ({paper_mark})"
            if not pr.empty:
                note = ("relevant features among the n KP-Kmeans keeps" if method == "kpkmeans"
                        else "relevant features among the method's top n (n of KP-Kmeans, same seed)")
                compare.append(_row(pr.iloc[0], s["relevant_mean"], s["relevant_sd"],
                                    f"{note}; mean over seeds (2 = both, 1 = one, 0 = none)"))
        wide.append(row)
    write_text_atomic(out["table1"], to_markdown(
        pd.DataFrame(wide), title="Table 1: relevant features found on the toy sets",
        note=("Per seed: ✓ both relevant features among the top n, ① one, X none; the paper's "
              "mark in brackets. n = features kept by KP-Kmeans (mean over seeds); the filters "
              "are cut at the same seed's n; MCFS is refitted with lasso cardinality n. "
              f"KP-Kmeans on the toys: {_kp_settings(paper['toy_methods']['kpkmeans'].get('params') or {})}. "
              + _kp_reading_note(paper["toy_methods"])),
    ) + "\n")

    # Table 3 -------------------------------------------------------------------------------
    t3 = table3_runs(results, datasets, seeds)
    t3s = _summary(t3, ["dataset", "method"], "acc").merge(
        _summary(t3, ["dataset", "method"], "n").drop(columns="n_runs"), on=["dataset", "method"])
    write_table_atomic(t3.merge(t3s, on=["dataset", "method"]), out["table3_tsv"],
                       float_format="%.6g")
    paper_t3 = _paper_rows(paper_results, paper_id, "Table 3")
    max_samples = kp_params.get("max_samples")
    wide = []
    for ds in datasets:
        name = TABLE3_NAMES.get(ds, ds)
        marks = []
        if ds in substitutes:
            marks.append("substitute")
        n_samples = _read_json(f"{results}/rankings/{ds}/kpkmeans/seed{seeds[0]}.json")["n_samples"]
        if max_samples and n_samples > max_samples:
            marks.append(f"KP-Kmeans fitted on {max_samples} of {n_samples} samples")
        kp = t3s[(t3s["dataset"] == ds) & (t3s["method"] == "kpkmeans")].iloc[0]
        pn = paper_t3[(paper_t3["dataset"] == name) & (paper_t3["metric"] == "n_selected_features")]
        row = {"dataset": name + (" *" if marks else ""),
               "n ours": f"{kp['n_mean']:.1f}",
               "n paper": pn["value"].iloc[0] if not pn.empty else ""}
        if not pn.empty:
            compare.append(_row(pn.iloc[0], kp["n_mean"], kp["n_sd"],
                                "; ".join(["ours: mean over seeds", *marks])))
        for method, label in METHODS.items():
            s = t3s[(t3s["dataset"] == ds) & (t3s["method"] == method)].iloc[0]
            pr = paper_t3[(paper_t3["dataset"] == name) & (paper_t3["method"] == label)
                          & (paper_t3["metric"] == "ACC_percent")]
            sd = "" if np.isnan(s["acc_sd"]) else f" ± {100 * s['acc_sd']:.1f}"
            row[label] = (f"{100 * s['acc_mean']:.1f}{sd}"
                          + (f" ({pr['value'].iloc[0]})" if not pr.empty else ""))
            if not pr.empty:
                how = ("its own final partition" if method == "kpkmeans" else
                       "kernel k-means sigma=1 on its top n (n of KP-Kmeans, same seed, at least 1)")
                compare.append(_row(pr.iloc[0], 100 * s["acc_mean"], 100 * s["acc_sd"],
                                    "; ".join([f"ACC of {how}", *marks])))
        row["notes"] = "; ".join(marks)
        wide.append(row)
    write_text_atomic(out["table3"], to_markdown(
        pd.DataFrame(wide), title="Table 3: ACC (%) at the n KP-Kmeans selects",
        note=(f"Mean ± sd over seeds {seeds}; the paper's number in brackets. * see notes. "
              f"KP-Kmeans: {_kp_settings(kp_params)}; filters: kernel k-means, Gaussian sigma = 1 "
              "on the z-scored top-n features divided by sqrt(n), 10 restarts."),
    ) + "\n")

    # Table 4 -------------------------------------------------------------------------------
    t4_cfg = paper["table4"]
    if t4_cfg["dataset"] in datasets:
        t4 = table4_runs(results, runs4, seeds)
        t4s = _summary(t4, ["lam_exp", "gamma_exp"], "acc").merge(
            _summary(t4, ["lam_exp", "gamma_exp"], "n").drop(columns="n_runs"),
            on=["lam_exp", "gamma_exp"])
        write_table_atomic(t4.merge(t4s, on=["lam_exp", "gamma_exp"]), out["table4_tsv"],
                           float_format="%.6g")
        paper_t4 = _paper_rows(paper_results, paper_id, "Table 4")
        wide = []
        for a in t4_cfg["exponents"]:
            row = {"exponent": f"2^{a}"}
            for which, key in (("lambda", (a, t4_cfg["gamma_fixed"])),
                               ("gamma", (t4_cfg["lambda_fixed"], a))):
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
                           f"{'substitute MLL; ' if t4_cfg['dataset'] in substitutes else ''}"
                           "mean over seeds")
                if not pacc.empty:
                    compare.append(_row(pacc.iloc[0], 100 * s["acc_mean"], 100 * s["acc_sd"], setting))
                if not pn.empty:
                    compare.append(_row(pn.iloc[0], s["n_mean"], s["n_sd"], setting))
            wide.append(row)
        grid = t4_cfg.get("grid", "sweeps")
        write_text_atomic(out["table4"], to_markdown(
            pd.DataFrame(wide), title="Table 4: KP-Kmeans on MLL over lambda and gamma",
            note=(f"ACC (%) and n, mean over seeds {seeds}; the paper's numbers in brackets. "
                  f"lambda column: gamma = 2^{t4_cfg['gamma_fixed']}; gamma column: lambda = "
                  f"2^{t4_cfg['lambda_fixed']} (grid '{grid}'; the full 11 x 11 grid, if run, "
                  f"is in {Path(out['table4_tsv']).name}). Fixed step v <- v - gamma grad "
                  "(the table is about gamma), so the lambda = 2^-1, gamma = 1 row need not "
                  "equal Table 3 when Table 3 uses the normalised step."),
        ) + "\n")
    else:
        write_table_atomic(pd.DataFrame(), out["table4_tsv"])
        write_text_atomic(out["table4"], f"Table 4: dataset {t4_cfg['dataset']} unavailable\n")

    table = pd.DataFrame(compare, columns=PAPER_VS_OURS_COLUMNS)
    write_table_atomic(table, out["paper_vs_ours"], float_format="%.6g")
    write_text_atomic(out["paper_vs_ours_md"], to_markdown(
        table, title="Paper vs ours: Maldonado et al. 2015, Tables 1, 3, 4",
        note="diff = ours - paper; differing numbers are shown, never tuned away.") + "\n")


def figure2(summary_path, sidecar_paths, dataset, out_path):
    """Fig. 2: ACC against the number of features on Lung.

    The filters' curves are the sweep's mean over seeds (kernel k-means on their top m);
    KP-Kmeans' curve is its own partition after each elimination round, one line per seed.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = pd.read_csv(summary_path, sep="\t")
    sub = summary[(summary["dataset"] == dataset) & (summary["metric"] == "acc")]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    colors = dict(zip(METHODS, plt.cm.tab10.colors))
    for method in FILTERS:
        g = sub[sub["method"] == method].sort_values("n_features")
        if not g.empty:
            ax.plot(g["n_features"], 100 * g["mean"], marker="o", ms=3, color=colors[method],
                    label=f"{METHODS[method]} (top m)")
    base = sub[sub["method"] == "nofs"]
    if not base.empty:
        ax.axhline(100 * float(base["mean"].iloc[0]), color="k", ls="--", lw=1,
                   label="all features")
    for i, path in enumerate(sidecar_paths):
        info = _read_json(path)
        x = np.maximum(np.asarray(info["n_features_path"]), 0.8)  # n = 0 drawn at the axis
        y = [100 * m["acc"] for m in info["path_metrics"]]
        ax.plot(x, y, drawstyle="steps-post", color=colors["kpkmeans"], alpha=0.8, lw=1.2,
                label="KP-Kmeans (elimination path)" if i == 0 else None)
    ax.set_xscale("log")
    ax.set_xlabel("number of features")
    ax.set_ylabel("ACC (%)")
    ax.set_title(f"Fig. 2: {dataset}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, out_path)
