"""Zeng & Cheung 2009 (LLC-fs): the (k, lambda) grids, Table 2, Figures 1-3 and the
paper's claims checked on our numbers.

The workflow's paper step is :func:`report` (rule ``zeng2009_report``); it only reads what the
generic evaluate step wrote. That step has ranked every dataset with LLC-fs (k = 30, lambda =
1) and Q-alpha, scored their own clusterings of every run (rank sidecars,
``labels_metrics``) and run k-means on all features (method ``nofs`` of the sweep table); in
the grid experiments, it has ranked with LLC-fs at every (k, lambda) of the grid (method specs
with a ``grid:``), and in the LLC grid experiments clustered all features with LLC at the same
points (a clusterer spec with a ``grid:``; LLC's objective, isolated samples and components
are columns of those sweep rows).

Table 2 of the paper (ACC, mean and sd over 10 runs) did not survive in its text, so the
comparison with the paper is its text claims, each checked on our numbers. LLC's row is the
best (k, lambda) of the grid by mean ACC: a choice made with the labels, as the paper's
"LLC-bestk lambda", and marked so.

LLC-fs's stopping rule (issue 25) is stated in the note of every claim of LLC-fs, from the
experiment's parameters and LLCFS's defaults. The optional stopping experiment (LLC-fs under
several rules, one method each) gives the same claims under each rule, side by side
(:func:`claims_by_rule`); the grids of Fig. 3 ran under one rule, so their claims stand under
that rule alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from fsclust.registry import ALL_FEATURES  # noqa: E402
from fsclust.report.figures import save_figure  # noqa: E402
from fsclust.report.paper import PAPER_VS_OURS_COLUMNS  # noqa: E402
from fsclust.report.tables import write_tables  # noqa: E402

PAPER = "001_2940e72ff8876979.txt"
#: Our dataset ids -> the names used in the paper's text.
DATASET_NAMES = {
    "usps-4v9": "USPS 4 vs 9",
    "usps-0v8": "USPS 0 vs 8",
    "colon-alon": "colon cancer",
    "srbct-khan": "SRBCT",
    "breast-west-2001": "breast cancer (West 2001)",
    "breast-sorlie-2001": "breast cancer (Sorlie 2001)",
    "digits-4v9": "8x8 digits 4 vs 9 (USPS stand-in)",
    "digits-0v8": "8x8 digits 0 vs 8 (USPS stand-in)",
}
#: Table 2's rows, in the paper's order.
TABLE2_METHODS = ["k-means", "Q-alpha", "LLC-bestk lambda", "LLC-fs"]
GRID_METHODS = ("llc", "llcfs")
#: Our thresholds for the paper's qualitative claims (stated in each row's note).
SPARSE_FRACTION = 0.10   # tau is "sparse": exp(entropy(tau)) <= 10% of d
FLAT_RANGE = 0.05        # ACC "does not vary much": max - min of the mean ACC <= 0.05
DISCRIMINATIVE_POOL = 50  # Fig. 1: top pixels among the 50 of largest class-mean difference
COVER_SHARE = 2 / 3
#: LLCFS's parameters that make its stopping rule (issue 25).
RULE_PARAMS = ("tol", "max_iter", "min_neighborhood_size")


def _name(dataset, candidates=()):
    name = DATASET_NAMES.get(dataset, dataset)
    return f"{name}, candidate" if dataset in candidates else name


# --------------------------------------------------------------------------- stopping rules
def rule_params(params):
    """The stopping rule of LLC-fs fitted with ``params``: its ``tol``, ``max_iter`` and
    ``min_neighborhood_size``, LLCFS's defaults for those ``params`` does not set."""
    from fsclust.rankers.llcfs import LLCFS

    merged = {**LLCFS().get_params(), **params}
    return {p: merged[p] for p in RULE_PARAMS}


def rule_text(params):
    """The stopping rule of LLC-fs fitted with ``params``, in words.

    Examples
    --------
    >>> rule_text({"tol": 1e-2, "min_neighborhood_size": 1})
    'relative trace change below 0.01 (at most 50 iterations), local models from 1 neighbour'
    """
    rule = rule_params(params)
    stop = (f"{rule['max_iter']} fixed iterations" if rule["tol"] is None else
            f"relative trace change below {rule['tol']:g} (at most {rule['max_iter']} "
            f"iterations)")
    size = rule["min_neighborhood_size"]
    text = f"{stop}, local models from {size} neighbour{'' if size == 1 else 's'}"
    return text + " (LLCFS default)" if rule == rule_params({}) else text


def _grid_rule(params):
    """The one stopping rule of the LLC-fs grid points fitted with ``params`` (a list)."""
    rules = [rule_params(p) for p in params]
    if any(rule != rules[0] for rule in rules):
        # Fig. 3's claims compare grid points: they must differ in k and lambda only
        raise ValueError(f"the LLC-fs grid points ran under different stopping rules: {rules}")
    return rules[0] if rules else None


# --------------------------------------------------------------------------- the grids
def llc_grid_runs(sweeps, points, metrics):
    """LLC at every (k, lambda), one row per run, from the sweep rows of the LLC grid
    experiments (all features, one clusterer key per grid point).

    ``points`` maps each clusterer key to its ``{"n_neighbors", "lam"}``. LLC is configured as
    LLC-fs is (Zeng & Cheung 2009 say both use mutual neighbours): linear kernel with a
    constant feature, mutual neighbours, row-normalised k-means; each point was fitted once
    and relabelled with every run's stream (its tag ``relabels``). The columns are those of
    :func:`llcfs_grid_runs`: LLC has one "iteration" and uses all features.
    """
    return pd.DataFrame({
        "dataset": sweeps["dataset"], "method": "llc",
        "n_neighbors": sweeps["clusterer"].map(lambda key: points[key]["n_neighbors"]),
        "lam": sweeps["clusterer"].map(lambda key: points[key]["lam"]),
        "seed": sweeps["seed"], **{m: sweeps[m] for m in metrics},
        "trace": sweeps["objective"], "n_iter": 1, "n_isolated": sweeps["n_isolated"],
        "n_components": sweeps["n_components"],
        "effective_features": sweeps["n_features"].astype(float),
    })


def llcfs_grid_runs(variants, metrics):
    """LLC-fs at every (k, lambda), one row per run, from what the evaluate step wrote.

    ``variants`` is ``{dataset: {key: {"n_neighbors", "lam", "ranking", "sidecars"}}}``: each
    grid point's ranking TSV (its scores are tau, fitted once for every run) and the rank
    sidecar of every run (``{seed: JSON}``: the run's own clustering scored, the trace
    objective, iterations, isolated samples and components of each iteration); one row per
    run: the metrics, the trace objective, iterations, isolated samples and components of
    the graph, and effective_features, ``exp(entropy(tau))`` of the final tau.
    """
    from fsclust.rankers.llcfs import effective_number_of_features

    rows = []
    for dataset, points in variants.items():
        for point in points.values():
            tau = _read_tau(point["ranking"])
            for seed, path in point["sidecars"].items():
                info = json.loads(Path(path).read_text())
                rows.append({"dataset": dataset, "method": "llcfs",
                             "n_neighbors": point["n_neighbors"], "lam": point["lam"],
                             "seed": int(seed),
                             **{m: info["labels_metrics"][m] for m in metrics},
                             "trace": info["objective_history"][-1], "n_iter": info["n_iter"],
                             "n_isolated": info["isolated_history"][-1],
                             "n_components": info["components_history"][-1],
                             "effective_features": effective_number_of_features(tau)})
    return pd.DataFrame(rows)


def grid_runs(llc_runs, llcfs_runs, datasets):
    """Both grids, per dataset of ``datasets`` in increasing k and lambda, LLC then LLC-fs at
    each point (the order of the grid table's rows)."""
    runs = pd.concat([llc_runs, llcfs_runs], ignore_index=True)
    position = {ds: i for i, ds in enumerate(datasets)}
    order = pd.DataFrame({"d": runs["dataset"].map(position), "k": runs["n_neighbors"],
                          "l": runs["lam"], "m": runs["method"].map(GRID_METHODS.index),
                          "s": runs["seed"]})
    keys = order.sort_values(["d", "k", "l", "m", "s"], kind="stable").index
    return runs.loc[keys].reset_index(drop=True)


# --------------------------------------------------------------------------- collect
def grid_summary(runs):
    """Mean and sd over the runs of every (dataset, method, k, lambda) of the grid."""
    keys = ["dataset", "method", "n_neighbors", "lam"]
    metrics = [m for m in ("acc", "nmi", "ari") if m in runs.columns]
    agg = runs.groupby(keys, sort=False).agg(
        runs=("seed", "size"),
        **{f"{m}_{s}": (m, s) for m in metrics for s in ("mean", "std")},
        trace=("trace", "first"), n_iter=("n_iter", "first"),
        n_isolated=("n_isolated", "first"), n_components=("n_components", "first"),
        effective_features=("effective_features", "first"),
    ).reset_index()
    return agg.rename(columns={f"{m}_std": f"{m}_sd" for m in metrics})


def _sidecar_runs(sidecars, metric_names):
    """Per-run metrics of a method's own clustering from its rank sidecars."""
    rows = []
    for dataset, by_seed in sidecars.items():
        for seed, path in by_seed.items():
            info = json.loads(Path(path).read_text())
            rows.append({"dataset": dataset, "seed": int(seed),
                         **{m: info["labels_metrics"][m] for m in metric_names},
                         "n_iter": info.get("n_iter")})
    return pd.DataFrame(rows)


def _stats(values):
    values = np.asarray(values, dtype=float)
    # identical runs have sd 0, not the round-off of the mean
    sd = (0.0 if np.ptp(values) == 0 else float(np.std(values, ddof=1))) if values.size > 1 \
        else np.nan
    return float(np.mean(values)), sd


def table2(sweeps, llcfs_runs, qalpha_runs, summary, datasets, *, kmeans="kmeans",
           default=None, candidates=(), variants=None):
    """Table 2: ACC and NMI (mean, sd over the runs) of k-means on all features, Q-alpha,
    LLC at its best (k, lambda) (chosen with the labels) and LLC-fs at the paper's setting;
    then ``variants`` (``{label: per-run frame}``), methods that are not the paper's."""
    rows = []
    for ds in datasets:
        name = _name(ds, candidates)
        km = sweeps[(sweeps["dataset"] == ds) & (sweeps["method"] == ALL_FEATURES)
                    & (sweeps["clusterer"] == kmeans)]
        llc = summary[(summary["dataset"] == ds) & (summary["method"] == "llc")]
        best = llc.loc[llc["acc_mean"].idxmax()] if not llc.empty else None
        sources = {
            "k-means": (km, "", "", "k-means++ with 10 restarts on all features"),
            "Q-alpha": (qalpha_runs[qalpha_runs["dataset"] == ds], "", "",
                        "its own clustering (k-means on the rows of Q), uniform start"),
            "LLC-fs": (llcfs_runs[llcfs_runs["dataset"] == ds],
                       (default or {}).get("n_neighbors", ""), (default or {}).get("lam", ""),
                       "its own clustering; the paper's k and lambda"),
        }
        for method in TABLE2_METHODS:
            if method == "LLC-bestk lambda":
                if best is None:
                    continue
                rows.append({"dataset": ds, "name": name, "method": method,
                             "k": int(best["n_neighbors"]), "lambda": float(best["lam"]),
                             "acc_mean": best["acc_mean"], "acc_sd": best["acc_sd"],
                             "nmi_mean": best.get("nmi_mean", np.nan),
                             "nmi_sd": best.get("nmi_sd", np.nan), "runs": int(best["runs"]),
                             "note": f"(k, lambda) chosen with the labels: best mean ACC of "
                                     f"{len(llc)} grid points (oracle, as the paper's)"})
                continue
            frame, k, lam, note = sources[method]
            if frame.empty:
                continue
            rows.append(_table2_row(ds, name, method, k, lam, frame, note))
        for label, frame in (variants or {}).items():
            frame = frame[frame["dataset"] == ds]
            if not frame.empty:
                rows.append(_table2_row(ds, name, label, "", "", frame,
                                        "variant, not in the paper"))
    return pd.DataFrame(rows, columns=["dataset", "name", "method", "k", "lambda", "acc_mean",
                                       "acc_sd", "nmi_mean", "nmi_sd", "runs", "note"])


def _table2_row(ds, name, method, k, lam, frame, note):
    acc = _stats(frame["acc"])
    nmi = _stats(frame["nmi"]) if "nmi" in frame else (np.nan, np.nan)
    return {"dataset": ds, "name": name, "method": method, "k": k, "lambda": lam,
            "acc_mean": acc[0], "acc_sd": acc[1], "nmi_mean": nmi[0], "nmi_sd": nmi[1],
            "runs": len(frame), "note": note}


# --------------------------------------------------------------------------- figures
def _read_tau(path, d=None):
    table = pd.read_csv(path, sep="\t")
    tau = np.zeros(int(table["index"].max()) + 1 if d is None else d)
    tau[table["index"].to_numpy()] = table["score"].to_numpy()
    return tau


def plot_figure1(taus, images, top_pixels, path):
    """Fig. 1: sorted tau per digit pair and the top pixels over each digit's mean image."""
    pairs = list(taus)
    fig, axes = plt.subplots(len(pairs), 3, figsize=(9.5, 3.0 * len(pairs)), squeeze=False)
    for row, ds in enumerate(pairs):
        tau = taus[ds]
        d = tau.size
        side = int(round(np.sqrt(d)))
        ax = axes[row, 0]
        # linear axis, as the paper's: the multiplicative update drives most weights towards
        # 0 without reaching it, and a log axis would dwell on that tail
        sorted_tau = np.sort(tau)[::-1]
        ax.plot(np.arange(1, d + 1), sorted_tau, "o-", ms=2, color="tab:blue")
        ax.axhline(1.0 / d, color="k", ls="--", lw=1, label="uniform 1/d")
        ax.set_title(f"({'ab'[row % 2] if len(pairs) <= 2 else row}) {_name(ds)}: sorted tau",
                     fontsize=9)
        ax.set_xlabel("rank")
        ax.set_ylabel("tau")
        ax.legend(fontsize=7)
        top = np.argsort(-tau, kind="stable")[:top_pixels]
        for col, (digit, image) in enumerate(images[ds].items(), start=1):
            ax = axes[row, col]
            ax.imshow(image.reshape(side, side), cmap="gray_r")
            r, c = np.divmod(top, side)
            ax.scatter(c, r, s=40, marker="s", facecolors="none", edgecolors="tab:red", lw=1.5)
            ax.set_title(f"mean '{digit}', top {top_pixels} pixels", fontsize=9)
            ax.set_xticks([])
            ax.set_yticks([])
    fig.suptitle("Zeng & Cheung 2009, Fig. 1: LLC-fs feature weights on the digit pairs "
                 "(k = 30, lambda = 1)", fontsize=10)
    fig.tight_layout()
    save_figure(fig, path)


def plot_figure2(taus, path, candidates=()):
    """Fig. 2: tau by gene index and sorted, one column per gene set."""
    names = list(taus)
    fig, axes = plt.subplots(2, max(len(names), 1), figsize=(3.4 * max(len(names), 1), 5.6),
                             squeeze=False)
    for col, ds in enumerate(names):
        tau = taus[ds]
        ax = axes[0, col]
        ax.plot(np.arange(1, tau.size + 1), tau, lw=0.6, color="tab:blue")
        ax.set_title(_name(ds, candidates), fontsize=9)
        ax.set_xlabel("gene index")
        ax.set_ylabel("tau")
        ax = axes[1, col]
        ax.plot(np.arange(1, tau.size + 1), np.sort(tau)[::-1], color="tab:blue")
        ax.axhline(1.0 / tau.size, color="k", ls="--", lw=1, label="uniform 1/d")
        ax.set_xlabel("rank")
        ax.set_ylabel("tau (sorted)")
        ax.legend(fontsize=7)
    fig.suptitle("Zeng & Cheung 2009, Fig. 2: LLC-fs feature weights on the gene sets "
                 "(k = 30, lambda = 1)", fontsize=10)
    fig.tight_layout()
    save_figure(fig, path)


def sensitivity(summary, datasets, default, vary):
    """Fig. 3 data: LLC-fs mean and sd of ACC as ``vary`` ("n_neighbors" or "lam") changes,
    the other parameter held at ``default`` (or the nearest grid value)."""
    fixed = "lam" if vary == "n_neighbors" else "n_neighbors"
    out = []
    for ds in datasets:
        part = summary[(summary["dataset"] == ds) & (summary["method"] == "llcfs")]
        if part.empty:
            continue
        values = np.unique(part[fixed].to_numpy(dtype=float))
        at = values[np.argmin(np.abs(values - float(default[fixed])))]
        line = part[np.isclose(part[fixed].astype(float), at)].sort_values(vary)
        out.append((ds, at, line))
    return out


def plot_figure3(summary, digits, genes, default, path, candidates=()):
    """Fig. 3: LLC-fs ACC as k and lambda vary, (a, b) digit pairs, (c, d) gene sets."""
    fig, axes = plt.subplots(2, 2, figsize=(9, 7))
    markers = "osD^v<>ph"
    panels = [(digits, "n_neighbors", "(a)"), (digits, "lam", "(b)"),
              (genes, "n_neighbors", "(c)"), (genes, "lam", "(d)")]
    for ax, (datasets, vary, tag) in zip(axes.ravel(), panels):
        for i, (ds, at, line) in enumerate(sensitivity(summary, datasets, default, vary)):
            fixed = "lambda" if vary == "n_neighbors" else "k"
            ax.errorbar(line[vary], line["acc_mean"], yerr=line["acc_sd"].fillna(0),
                        marker=markers[i % len(markers)], ms=4, capsize=2,
                        label=f"{_name(ds, candidates)} ({fixed} = {at:g})")
        if vary == "lam":
            ax.set_xscale("log")
        ax.set_xlabel("k" if vary == "n_neighbors" else "lambda")
        ax.set_ylabel("ACC")
        ax.set_ylim(0.3, 1.02)
        ax.set_title(f"{tag} {'digit pairs' if datasets is digits else 'gene sets'}: ACC vs "
                     f"{'k' if vary == 'n_neighbors' else 'lambda'}", fontsize=9)
        ax.legend(fontsize=6.5)
    fig.suptitle("Zeng & Cheung 2009, Fig. 3: parameter sensitivity of LLC-fs "
                 "(mean +- sd over the runs)", fontsize=10)
    fig.tight_layout()
    save_figure(fig, path)


# --------------------------------------------------------------------------- claims
def _row(dataset, figure, method, metric, ours, ours_sd, note, holds, n_features=""):
    return {"paper": PAPER, "table_or_figure": figure, "dataset": dataset, "method": method,
            "n_features": n_features, "metric": metric, "paper_value": np.nan,
            "paper_sd": np.nan, "ours_value": ours, "ours_sd": ours_sd, "diff": np.nan,
            "note": f"holds: {'yes' if holds else 'no'}; {note}"}


def _tie_at(tau, top):
    """Whether the top-``top`` set of ``tau`` is decided by a tie (rank ``top`` = rank top+1)."""
    ordered = np.sort(tau)[::-1]
    return top < ordered.size and ordered[top - 1] == ordered[top]


def discriminative_cover(tau, X, y, top, pool=DISCRIMINATIVE_POOL):
    """Share of the ``top`` tau-ranked pixels among the ``pool`` pixels whose two class means
    differ most (labels used to judge the claim only)."""
    diff = np.abs(X[y == 0].mean(axis=0) - X[y == 1].mean(axis=0))
    best = set(np.argsort(-diff, kind="stable")[:pool].tolist())
    chosen = np.argsort(-tau, kind="stable")[:top]
    return float(np.mean([j in best for j in chosen]))


def claims_table(table, summary, taus, *, digits, genes, default, candidates=(), covers=None,
                 top_pixels=15, rule=None, grid_rule=None):
    """The paper's claims, each a row checked on our numbers (``holds: yes/no`` in the note).

    Sec. 4: LLC-fs beats k-means, Q-alpha and LLC-bestk lambda on every data set (Table 2);
    Q-alpha is below k-means on 4 vs 9; tau is sparse on every data set (Figs. 1, 2); the 15
    top-ranked pixels cover the discriminative regions (Fig. 1); on USPS the accuracy varies
    little for k in 30-60 and lambda in [0.1, 10] (Fig. 3a, b); on the gene sets k should be
    neither small nor large (Fig. 3c) and a larger lambda is generally better (Fig. 3d).
    Where a claim is qualitative, the threshold that makes it a yes/no is ours and stated.
    The note of every claim of LLC-fs ends with the stopping rule it ran under: ``rule`` (words,
    :func:`rule_text`) for Table 2 and Figs. 1-2, ``grid_rule`` for Fig. 3 (the grids'), if
    given.
    """
    def ran(note, under=rule):
        return f"{note}; rule: {under}" if under else note

    rows = []
    for ds in digits + genes:
        name = _name(ds, candidates)
        t = table[table["dataset"] == ds].set_index("method")
        if "LLC-fs" not in t.index:
            continue
        fs, fs_sd = t.loc["LLC-fs", "acc_mean"], t.loc["LLC-fs", "acc_sd"]
        for other in ("k-means", "Q-alpha", "LLC-bestk lambda"):
            if other not in t.index:
                continue
            o, o_sd = t.loc[other, "acc_mean"], t.loc[other, "acc_sd"]
            extra = " (LLC's (k, lambda) chosen with the labels)" if other.startswith("LLC") else ""
            rows.append(_row(name, "Table 2", f"LLC-fs vs {other}", "ACC", fs, fs_sd,
                             ran(f"claim: LLC-fs beats {other} on every data set; ours: "
                                 f"LLC-fs {fs:.3f} +- {fs_sd:.3f} vs {other} {o:.3f} +- "
                                 f"{o_sd:.3f} (margin {fs - o:+.3f}){extra}"), fs > o))
    for ds in digits:
        if "4v9" not in ds:
            continue
        t = table[table["dataset"] == ds].set_index("method")
        if {"Q-alpha", "k-means"} <= set(t.index):
            q, km = t.loc["Q-alpha", "acc_mean"], t.loc["k-means", "acc_mean"]
            rows.append(_row(_name(ds), "Table 2", "Q-alpha vs k-means", "ACC", q,
                             t.loc["Q-alpha", "acc_sd"],
                             f"claim: Q-alpha performs worse than k-means on 4 vs 9; ours: "
                             f"Q-alpha {q:.3f} vs k-means {km:.3f} (margin {q - km:+.3f})",
                             q < km))
    for ds in digits + genes:
        if ds not in taus:
            continue
        tau = taus[ds]
        d = tau.size
        eff = float(np.exp(-np.sum(tau[tau > 0] * np.log(tau[tau > 0]))))
        top15 = float(np.sort(tau)[::-1][:15].sum())
        fig = "Fig. 1" if ds in digits else "Fig. 2"
        rows.append(_row(_name(ds, candidates), fig, "LLC-fs tau sparsity",
                         "effective_features_fraction", eff / d, np.nan,
                         ran(f"claim: tau is sparse, few weights above a clear threshold; "
                             f"ours: exp(entropy(tau)) = {eff:.1f} of {d} features, "
                             f"{int(np.sum(tau > 1 / d))} above 1/d, the top 15 hold "
                             f"{top15:.0%} of the mass; yes if <= {SPARSE_FRACTION:.0%} of d "
                             f"(our threshold)"), eff <= SPARSE_FRACTION * d, n_features=d))
    for ds, share in (covers or {}).items():
        claim = (f"claim: the {top_pixels} top-ranked pixels cover the discriminative regions; "
                 f"ours: ")
        if ds in taus and _tie_at(taus[ds], top_pixels):
            # e.g. tau never left the uniform start (a degenerate first graph, no tau signal): the
            # top pixels are decided by index order, not by tau
            rows.append(_row(_name(ds), "Fig. 1", f"top {top_pixels} pixels",
                             "discriminative_share", np.nan, np.nan,
                             ran(claim + f"no top {top_pixels}: tau ties across rank "
                                 f"{top_pixels} ({int(np.sum(taus[ds] == taus[ds].max()))} "
                                 f"features share the largest weight)"), False,
                             n_features=top_pixels))
            continue
        rows.append(_row(_name(ds), "Fig. 1", f"top {top_pixels} pixels", "discriminative_share",
                         share, np.nan,
                         ran(claim + f"{share:.0%} of them are among the "
                             f"{DISCRIMINATIVE_POOL} pixels whose class means differ most "
                             f"(labels used to judge only); yes if >= {COVER_SHARE:.0%} (our "
                             f"threshold)"),
                         share >= COVER_SHARE, n_features=top_pixels))
    for vary, fig in (("n_neighbors", "Fig. 3a"), ("lam", "Fig. 3b")):
        for ds, at, line in sensitivity(summary, digits, default, vary):
            spread = float(line["acc_mean"].max() - line["acc_mean"].min())
            what = "k" if vary == "n_neighbors" else "lambda"
            rows.append(_row(_name(ds), fig, f"LLC-fs ACC range over {what}", "ACC_range",
                             spread, np.nan,
                             ran(f"claim: on USPS the accuracy does not vary much as {what} "
                                 f"varies; ours: mean ACC from {line['acc_mean'].min():.3f} to "
                                 f"{line['acc_mean'].max():.3f} over {what} = "
                                 f"{', '.join(f'{v:g}' for v in line[vary])}; yes if the range "
                                 f"<= {FLAT_RANGE} (our threshold)", grid_rule),
                             spread <= FLAT_RANGE))
    for ds, at, line in sensitivity(summary, genes, default, "n_neighbors"):
        ks = line["n_neighbors"].to_numpy()
        best_k = int(ks[int(np.argmax(line["acc_mean"].to_numpy()))])
        rows.append(_row(_name(ds, candidates), "Fig. 3c", "LLC-fs best k", "k", best_k, np.nan,
                         ran(f"claim: k should be neither too small nor too large; ours: best "
                             f"mean ACC at k = {best_k} of {', '.join(str(int(k)) for k in ks)}; "
                             f"yes if not at an end of the grid", grid_rule),
                         ks.min() < best_k < ks.max()))
    for ds, at, line in sensitivity(summary, genes, default, "lam"):
        lo, hi = line.iloc[0], line.iloc[-1]
        rows.append(_row(_name(ds, candidates), "Fig. 3d", "LLC-fs large vs small lambda", "ACC",
                         float(hi["acc_mean"]), float(hi["acc_sd"]),
                         ran(f"claim: a larger lambda is generally better on the gene sets; "
                             f"ours: ACC {hi['acc_mean']:.3f} at lambda = {hi['lam']:g} vs "
                             f"{lo['acc_mean']:.3f} at lambda = {lo['lam']:g}", grid_rule),
                         hi["acc_mean"] > lo["acc_mean"]))
    return pd.DataFrame(rows, columns=PAPER_VS_OURS_COLUMNS)


def _holds(claims):
    """Whether each claim holds, as its note says (:func:`claims_table`)."""
    return claims["note"].str.startswith("holds: yes")


#: What names one claim in every rule's claims table.
CLAIM_KEY = ["table_or_figure", "dataset", "method", "metric"]


def claims_by_rule(claims):
    """The claims under several stopping rules of LLC-fs, one row per claim.

    ``claims`` is ``{rule: claims table}`` (:func:`claims_table` under each rule). A claim is
    its figure or table, dataset, method and metric; its row has the claim's text, then, for
    each rule, ``{rule}_holds`` (yes or no) and ``{rule}_value`` (ours). A rule without the
    claim (Fig. 3's are the grids', under one rule) has empty cells.
    """
    frames = {rule: frame.set_index(CLAIM_KEY) for rule, frame in claims.items()}
    index = pd.MultiIndex.from_tuples(
        list(dict.fromkeys(key for frame in frames.values() for key in frame.index)),
        names=CLAIM_KEY)
    out = pd.DataFrame(index=index)
    out["claim"] = ""
    for rule, frame in frames.items():
        frame = frame.reindex(index)
        known = frame["note"].notna()
        text = frame["note"].str.split("; claim: ", n=1).str[1].str.split("; ours: ", n=1).str[0]
        out["claim"] = out["claim"].mask((out["claim"] == "") & known, text)
        out[f"{rule}_holds"] = _holds(frame.fillna({"note": ""})).map(
            {True: "yes", False: "no"}).where(known, "")
        out[f"{rule}_value"] = frame["ours_value"]
    return out.reset_index()


# --------------------------------------------------------------------------- the paper step
def _taus_and_covers(tau_files, digit_data, top_pixels):
    """tau of LLC-fs on every dataset (``{dataset: ranking TSV}``: its scores; one per pixel on
    the digit pairs, ``{dataset: Dataset}``) and, on the two-class pairs, the share of its top
    pixels among the discriminative ones (Fig. 1)."""
    taus = {ds: _read_tau(path, digit_data[ds].X.shape[1] if ds in digit_data else None)
            for ds, path in tau_files.items()}
    covers = {ds: discriminative_cover(taus[ds], data.X, data.y, top_pixels)
              for ds, data in digit_data.items() if data.n_classes == 2}
    return taus, covers


def report(inputs, outputs, *, llcfs, llcfs_params, llcfs_sidecars, qalpha_sidecars, tau_files,
           data_files, digits, genes, candidates, kmeans, default, top_pixels, llcfs_grid,
           llcfs_grid_params, llc_grid, rules=None, variant_sidecars=None):
    """Table 2, the grid table, Figures 1-3, the claims, and the claims under each stopping
    rule (rule ``zeng2009_report``).

    Parameters
    ----------
    inputs : dict
        ``llc_sweeps`` (the sweep rows of the LLC grid experiments), ``sweeps`` (the
        experiment's all sweep rows: k-means on all features is method ``nofs``);
        ``rankings``, ``grid_rankings`` and ``data`` only so that the rule waits for them.
    outputs : dict
        ``table2``, ``table2_md``, ``grid``, ``fig1``, ``fig2``, ``fig3``, ``claims``,
        ``claims_md``, ``claims_by_rule``, ``claims_by_rule_md``.
    llcfs, llcfs_params : str, dict
        The method key and parameters of LLC-fs in the experiment.
    llcfs_sidecars, qalpha_sidecars : dict
        ``{dataset: {seed: rank sidecar JSON}}``: each run's own clustering, scored.
    variant_sidecars : dict
        ``{label: {dataset: {seed: JSON}}}`` of methods shown under Table 2, not the paper's.
    tau_files : dict
        ``{dataset: ranking TSV}`` of LLC-fs (its scores are tau).
    llcfs_grid : dict
        LLC-fs at every grid point, the files of the grid experiments (:func:`llcfs_grid_runs`).
    llcfs_grid_params : list of dict
        The parameters of every grid point (one stopping rule).
    llc_grid : dict
        LLC's clusterer keys -> their ``{"n_neighbors", "lam"}`` (:func:`llc_grid_runs`).
    data_files : dict
        ``{dataset: prepared npz}`` of the digit pairs (mean images, Fig. 1).
    rules : dict
        LLC-fs under each stopping rule, ``{method key: {"params", "sidecars", "tau_files"}}``
        (the stopping experiment's); empty or None: the experiment's LLC-fs alone.
    """
    from fsclust.datasets import load_dataset

    paths = inputs["llc_sweeps"]
    llc_sweeps = pd.concat([pd.read_csv(p, sep="\t") for p in
                            ([paths] if isinstance(paths, str) else paths)], ignore_index=True)
    metric_names = [m for m in ("acc", "nmi", "ari") if m in llc_sweeps.columns]
    runs = grid_runs(llc_grid_runs(llc_sweeps, llc_grid, metric_names),
                     llcfs_grid_runs(llcfs_grid, metric_names), digits + genes)
    summary = grid_summary(runs)
    write_tables(summary, outputs["grid"])
    sweeps = pd.read_csv(inputs["sweeps"], sep="\t")
    llcfs_runs = _sidecar_runs(llcfs_sidecars, metric_names)
    qalpha_runs = _sidecar_runs(qalpha_sidecars, metric_names)
    table = table2(sweeps, llcfs_runs, qalpha_runs, summary, digits + genes, kmeans=kmeans,
                   default=default, candidates=candidates,
                   variants={label: _sidecar_runs(files, metric_names)
                             for label, files in (variant_sidecars or {}).items()})
    write_tables(table, outputs["table2"], outputs["table2_md"],
                 title="Zeng & Cheung 2009, Table 2: ACC (mean, sd over the runs)",
                 note="The paper's Table 2 numbers did not survive in its text (their claims "
                      "are checked in paper_vs_ours.tsv). LLC-bestk lambda: (k, lambda) chosen "
                      "with the labels.")
    digit_data = {ds: load_dataset(data_files[ds]) for ds in digits}
    taus, covers = _taus_and_covers(tau_files, digit_data, top_pixels)
    images = {ds: {name: data.X[data.y == k].mean(axis=0)
                   for k, name in enumerate(data.class_names)}
              for ds, data in digit_data.items()}
    plot_figure1({ds: taus[ds] for ds in digits}, images, top_pixels, outputs["fig1"])
    plot_figure2({ds: taus[ds] for ds in genes}, outputs["fig2"], candidates)
    plot_figure3(summary, digits, genes, default, outputs["fig3"], candidates)
    grid_rule = _grid_rule(llcfs_grid_params)
    settings = dict(digits=digits, genes=genes, default=default, candidates=candidates,
                    top_pixels=top_pixels,
                    grid_rule=rule_text(grid_rule) if grid_rule else None)
    claims = claims_table(table, summary, taus, covers=covers, rule=rule_text(llcfs_params),
                          **settings)
    held = _holds(claims)
    write_tables(claims, outputs["claims"], outputs["claims_md"],
                 title="Zeng & Cheung 2009: paper claims vs ours",
                 note=f"The paper's numbers are lost: each row is one of its claims checked on "
                      f"our numbers ({int(held.sum())} of {len(claims)} hold).")
    # the same claims under each stopping rule: only LLC-fs's own runs and tau change; Fig. 3's
    # grids ran under one rule, so their claims stand under that rule alone
    rules = rules or {llcfs: {"params": llcfs_params, "sidecars": llcfs_sidecars,
                              "tau_files": tau_files}}
    by_rule = {}
    for key, rule in rules.items():
        rule_table = table2(sweeps, _sidecar_runs(rule["sidecars"], metric_names), qalpha_runs,
                            summary, digits + genes, kmeans=kmeans, default=default,
                            candidates=candidates)
        rule_taus, rule_covers = _taus_and_covers(rule["tau_files"], digit_data, top_pixels)
        grids = summary if rule_params(rule["params"]) == grid_rule else summary.iloc[:0]
        by_rule[key] = claims_table(rule_table, grids, rule_taus, covers=rule_covers,
                                    rule=rule_text(rule["params"]), **settings)
    write_tables(claims_by_rule(by_rule), outputs["claims_by_rule"],
                 outputs["claims_by_rule_md"],
                 title="Zeng & Cheung 2009: paper claims under each stopping rule of LLC-fs",
                 note=_rules_note(rules, by_rule, grid_rule))


def _rules_note(rules, by_rule, grid_rule):
    """The by-rule table's header: each rule's parameters and how many claims hold under it."""
    lines = ["Each rule's columns: whether the claim holds and our value, with LLC-fs's own "
             "runs and tau under that rule; k-means, Q-alpha and LLC-bestk lambda are the main "
             "and LLC grid experiments' under every rule. The rules:", ""]
    for key, rule in rules.items():
        params = ", ".join(f"{p} = {v}" for p, v in rule_params(rule["params"]).items())
        held = _holds(by_rule[key])
        lines.append(f"- {key}: {rule_text(rule['params'])}; {params}; {int(held.sum())} of "
                     f"{len(held)} claims hold")
    under = [key for key, rule in rules.items() if rule_params(rule["params"]) == grid_rule]
    lines += ["", f"Fig. 3's claims are the (k, lambda) grid experiments', run under one rule "
                  f"({rule_text(grid_rule) if grid_rule else 'none'}): they appear under "
                  f"{', '.join(under) or 'no rule of this table'} only."]
    return "\n".join(lines)
