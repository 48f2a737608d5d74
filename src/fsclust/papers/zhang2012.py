"""Zhang, Wong, Shen & Xie 2012 (seed 004, FRCM): Table 2, Figures 1-4 and Table 2 vs paper.

Figures 1-2 are drawn from the generic sweep summary; Table 2, Figure 3 and Figure 4 are
computed here from the experiment's per-seed rankings (one trial per seed). Every k-means of an
evaluation is single-start (``init="random"``, ``n_init=1``, spec methods-seed 5.6) with the
seed ``derive_seed(seed, dataset, clusterer)`` of the generic sweep, so within a trial every
method is clustered from the same initial centres.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from fsclust._io import write_table_atomic, write_text_atomic  # noqa: E402
from fsclust.report.figures import save_figure  # noqa: E402
from fsclust.consensus import (  # noqa: E402
    average_link_consensus,
    cspa_consensus,
    hbgf_consensus,
)
from fsclust.datasets import load_dataset  # noqa: E402
from fsclust.metrics import evaluate  # noqa: E402
from fsclust.projection import pca_projection  # noqa: E402
from fsclust.ranking import read_ranking  # noqa: E402
from fsclust.rankers.base import mean_plus_std_rule  # noqa: E402
from fsclust.rankers.frmv import correlation_ratio  # noqa: E402
from fsclust.registry import make_clusterer, make_ranker, ranker_class  # noqa: E402
from fsclust.report.paper import paper_vs_ours, read_paper_results  # noqa: E402
from fsclust.report.tables import to_markdown  # noqa: E402
from fsclust.seeds import derive_seed  # noqa: E402

PAPER = "004_d0afee71ef931b8d.txt"
# The paper's names of our dataset ids and method keys.
DATASET_NAMES = {
    "uci-dermatology": "Dermatology", "uci-segmentation-test": "Image-Segmentation-test",
    "uci-pendigits-test": "Pendigits-test", "wine": "Wine",
    "desouto-armstrong-2002-v2": "armstrong-2002-v2", "desouto-nutt-2003-v1": "nutt-2003-v1",
    "desouto-tomlins-2006": "tomlins-2006", "desouto-bredel-2005": "bredel-2005",
}
METHOD_NAMES = {"laplacian": "Laplacian", "uff": "UFF", "frmv": "FRMV", "frcm": "FRCM",
                "pca": "PCA"}
CONSENSUS = ("CSPA", "HBGF", "AL")


def _kmeans_labels(Z, clusterer, n_clusters, seed, dataset):
    spec = clusterer
    model = make_clusterer(spec["method"], spec.get("params"), n_clusters=n_clusters,
                           random_state=derive_seed(seed, dataset, spec["key"]))
    return model.fit_predict(Z)


def _ranking_scores(path, n_features):
    """(scores in feature order, ranking) from a ranking TSV."""
    table = read_ranking(path)
    scores = np.empty(n_features)
    scores[table["index"].to_numpy()] = table["score"].to_numpy()
    return scores, table["index"].to_numpy()


def table2(data_paths, ranking_paths, methods, clusterer, seeds, out_tsv, out_md,
           metrics=("nmi", "ari")):
    """Table 2: the ``score > mean + sd`` subset of each method, clustered once per trial.

    Parameters
    ----------
    data_paths : dict
        dataset -> prepared ``.npz``.
    ranking_paths : dict
        (dataset, method key, seed) -> ranking TSV.
    methods : dict
        method key -> ``{method, params}`` (the experiment's ``methods``); the direction of
        each score comes from the registered class. PCA at FRCM's number of features of the
        same trial is added when a method ``frcm`` is present.
    clusterer : dict
        ``{key, method, params}`` of the evaluation clusterer.
    seeds : list of int
        One trial per seed.
    """
    rows = []
    with threadpool_limits(limits=1):
        for dataset, data_path in data_paths.items():
            ds = load_dataset(data_path)
            X, y, c = ds.X, ds.y, ds.n_classes
            for seed in seeds:
                m_frcm = None
                for key, spec in methods.items():
                    higher = ranker_class(spec["method"]).higher_is_better
                    scores, _ = _ranking_scores(ranking_paths[dataset, key, seed], X.shape[1])
                    const = np.ptp(X, axis=0) <= 1e-12 * np.maximum(1, np.abs(X).max(axis=0))
                    keep = mean_plus_std_rule(scores, higher, const)
                    m = int(keep.sum())
                    if key == "frcm":
                        m_frcm = m
                    labels = _kmeans_labels(X[:, keep], clusterer, c, seed, dataset) if m else None
                    row = {"dataset": dataset, "method": key, "seed": seed, "n_selected": m}
                    row.update(evaluate(y, labels, metrics) if m else dict.fromkeys(metrics, np.nan))
                    rows.append(row)
                if m_frcm:
                    Z = pca_projection(X, m_frcm)
                    row = {"dataset": dataset, "method": "pca", "seed": seed,
                           "n_selected": Z.shape[1]}
                    row.update(evaluate(y, _kmeans_labels(Z, clusterer, c, seed, dataset), metrics))
                    rows.append(row)
    runs = pd.DataFrame(rows)
    agg = runs.groupby(["dataset", "method"], sort=False).agg(
        n_selected_mean=("n_selected", "mean"), n_selected_sd=("n_selected", "std"),
        **{f"{m}_{s}": (m, f) for m in metrics for s, f in (("mean", "mean"), ("sd", "std"))},
        n_trials=("seed", "count"),
    ).reset_index()
    write_table_atomic(agg, out_tsv, float_format="%.6g")
    note = ("Informative subsets (score > mean + sd of each method's scores, ddof = 1; "
            "Laplacian score and FRMV negated first), k-means with the true number of classes, "
            "one single-start k-means per trial; mean and sd over trials. PCA: projection on "
            "min(m, n - 1, D) axes with m = FRCM's subset size of the same trial.")
    md = agg.copy()
    md["n_selected"] = [f"{a:.0f} ± {b:.0f}" if b > 0 else f"{a:.0f}"
                        for a, b in zip(md["n_selected_mean"], md["n_selected_sd"].fillna(0))]
    for m in metrics:
        md[m] = [f"{a:.3f} ± {b:.3f}" for a, b in zip(md[f"{m}_mean"], md[f"{m}_sd"])]
    md = md[["dataset", "method", "n_selected", *metrics, "n_trials"]]
    write_text_atomic(out_md, to_markdown(md, title="Table 2 (ours)", note=note) + "\n")
    return agg


def table2_vs_paper(table2_path, paper_results_path, out_tsv, out_md, metrics=("nmi", "ari")):
    """Every number of the paper's Table 2 beside ours, in the columns of ``paper_vs_ours``."""
    agg = pd.read_csv(table2_path, sep="\t")
    # our Table 2 in the shape of a sweep summary, one "n_features" per row (FRCM's mean m)
    long = []
    for r in agg.itertuples(index=False):
        for metric, mean, sd in [("n_selected_features", r.n_selected_mean, r.n_selected_sd),
                                 *[(m.upper(), getattr(r, f"{m}_mean"), getattr(r, f"{m}_sd"))
                                   for m in metrics]]:
            long.append({"dataset": r.dataset, "method": r.method, "clusterer": "kmeans",
                         "n_features": int(round(r.n_selected_mean)), "metric": metric,
                         "mean": mean, "sd": sd, "n_runs": r.n_trials})
    summary = pd.DataFrame(long)
    paper = read_paper_results(paper_results_path)
    paper = paper[(paper["paper"] == PAPER) & (paper["table_or_figure"] == "Table 2")]
    ids = {v: k for k, v in DATASET_NAMES.items()}
    keys = {v: k for k, v in METHOD_NAMES.items()}
    comparisons = []
    for r in paper.itertuples(index=False):
        if r.dataset not in ids or r.method not in keys:
            continue
        note = "ours: mean over trials of the rule's subset size" if r.metric == "n_selected_features" else ""
        if r.method == "PCA":
            note = "ours: PCA on min(m, n - 1, D) axes, m = FRCM's subset size of each trial"
        comparisons.append({
            "paper": PAPER, "table_or_figure": "Table 2", "dataset": r.dataset,
            "method": r.method, "metric": r.metric, "n_features": r.n_features, "note": note,
            "ours": {"dataset": ids[r.dataset], "method": keys[r.method], "clusterer": "kmeans",
                     "metric": r.metric, "n_features": "all"},
        })
    table = paper_vs_ours(paper, comparisons, summary)
    write_table_atomic(table, out_tsv, float_format="%.6g")
    write_text_atomic(out_md, to_markdown(
        table, title="Table 2: paper vs ours",
        note="diff = ours - paper. n_features: the paper's subset size; ours in the "
             "n_selected_features rows.") + "\n")
    return table


def _paper_grid(n_features, d):
    """The paper's grid: every d for UCI sets; 20, 40, ..., D for gene sets."""
    if d <= 100:
        return n_features
    return n_features[(n_features % 20 == 0) | (n_features == d)]


def sweep_figure(summary_path, datasets, metrics, out_path, title, data_dims=None):
    """Figures 1 and 2: mean NMI / ARI vs the number of top features, one panel per dataset."""
    summary = pd.read_csv(summary_path, sep="\t")
    fig, axes = plt.subplots(len(metrics), len(datasets), squeeze=False,
                             figsize=(3.6 * len(datasets), 3.0 * len(metrics)))
    colors = dict(zip(["laplacian", "uff", "frmv", "frcm"], plt.cm.tab10.colors))
    for j, dataset in enumerate(datasets):
        data = summary[summary["dataset"] == dataset]
        d = int(data["n_features"].max()) if not data.empty else 0
        for i, metric in enumerate(metrics):
            ax = axes[i, j]
            sub = data[data["metric"] == metric]
            for method in [m for m in colors if m in set(sub["method"])]:
                g = sub[sub["method"] == method].sort_values("n_features")
                keep = np.isin(g["n_features"], _paper_grid(g["n_features"].to_numpy(), d))
                g = g[keep]
                ax.plot(g["n_features"], g["mean"], marker="o", ms=2.5, lw=1.2,
                        color=colors[method], label=METHOD_NAMES.get(method, method))
            base = sub[sub["method"] == "nofs"]
            if not base.empty:
                ax.axhline(float(base["mean"].iloc[0]), color="k", ls="--", lw=0.8,
                           label="all features")
            ax.set_title(DATASET_NAMES.get(dataset, dataset), fontsize=9)
            ax.set_xlabel("number of selected features")
            ax.set_ylabel(metric.upper())
            ax.grid(alpha=0.3)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False)
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.06, 1, 0.96))
    save_figure(fig, out_path)


def consensus_selection(data_path, dataset, ranking_paths, frcm_spec, clusterer, seeds, out_tsv,
                        n_clusters_range=range(2, 11), fraction=0.10):
    """Figure 3 data: NMI of the top 10 % features of FRCM and of correlation-based selection
    against CSPA, HBGF and average-link consensus partitions (k = 2..10) of FRCM's ensemble.

    The ensemble of each trial is FRCM's own (refitted with the rank job's seed; the ranking is
    checked to equal the rank job's). Correlation-based selection: the features with the
    largest correlation ratio ``eta^2`` with the consensus partition (the squared linear
    correlation for two clusters; its label-order-free extension for more).
    """
    ds = load_dataset(data_path)
    X, y, c = ds.X, ds.y, ds.n_classes
    n_top = max(1, int(round(fraction * X.shape[1])))
    rows = []
    with threadpool_limits(limits=1):
        for seed in seeds:
            path = ranking_paths[seed]
            _, ranking = _ranking_scores(path, X.shape[1])
            frcm = make_ranker(frcm_spec["method"], frcm_spec.get("params"),
                               random_state=derive_seed(seed, dataset, frcm_spec["key"])).fit(X)
            if not np.array_equal(frcm.ranking_, ranking):
                raise RuntimeError(f"{path}: refitted FRCM does not reproduce the ranking")
            labels = _kmeans_labels(X[:, ranking[:n_top]], clusterer, c, seed, dataset)
            nmi = evaluate(y, labels, ("nmi",))["nmi"]
            for k in n_clusters_range:
                rows.append({"dataset": dataset, "seed": seed, "method": "FRCM", "k": k, "nmi": nmi})
            M = frcm.consensus_matrix_
            for k in n_clusters_range:
                rs = derive_seed(seed, dataset, "consensus", k)
                partitions = {"CSPA": cspa_consensus(M, k, random_state=rs),
                              "HBGF": hbgf_consensus(frcm.ensemble_, k, random_state=rs),
                              "AL": average_link_consensus(M, k)}
                for name, part in partitions.items():
                    rel = correlation_ratio(X, part)
                    top = np.argsort(-rel, kind="stable")[:n_top]
                    labels = _kmeans_labels(X[:, top], clusterer, c, seed, dataset)
                    rows.append({"dataset": dataset, "seed": seed, "method": name, "k": k,
                                 "nmi": evaluate(y, labels, ("nmi",))["nmi"]})
    table = pd.DataFrame(rows)
    write_table_atomic(table, out_tsv, float_format="%.6g")
    return table


def borda_curve(data_path, dataset, ranking_paths, seeds, out_tsv, percents=range(1, 101)):
    """Figure 4 data: mean Borda value of the top p % FRCM genes, for p = 1..100.

    The Borda value of a gene comes from its rank by relevance to the true classes (the
    correlation ratio ``eta^2`` with the class labels): the most class-related gene scores D,
    the least 1 (ties: average). The paper does not name the class-relevance measure.
    """
    ds = load_dataset(data_path)
    X, y = ds.X, ds.y
    d = X.shape[1]
    rel = correlation_ratio(X, y)
    from scipy.stats import rankdata

    borda = rankdata(rel, method="average")  # best = D, worst = 1
    rows = []
    for seed in seeds:
        _, ranking = _ranking_scores(ranking_paths[seed], d)
        cum = np.cumsum(borda[ranking])
        for p in percents:
            m = max(1, int(round(p / 100 * d)))
            rows.append({"dataset": dataset, "seed": seed, "percent": p, "n_features": m,
                         "mean_borda": cum[m - 1] / m})
    table = pd.DataFrame(rows)
    write_table_atomic(table, out_tsv, float_format="%.6g")
    return table


def consensus_figure(tsv_paths, out_path, out_summary):
    """Figure 3: mean NMI over trials vs the consensus number of clusters k."""
    data = pd.concat([pd.read_csv(p, sep="\t") for p in tsv_paths], ignore_index=True)
    summary = data.groupby(["dataset", "method", "k"], sort=False)["nmi"].agg(
        ["mean", "std", "count"]).reset_index()
    write_table_atomic(summary, out_summary, float_format="%.6g")
    datasets = list(dict.fromkeys(summary["dataset"]))
    fig, axes = plt.subplots(1, len(datasets), squeeze=False, figsize=(3.6 * len(datasets), 3.2))
    for ax, dataset in zip(axes[0], datasets):
        sub = summary[summary["dataset"] == dataset]
        for method, style in zip(("FRCM", *CONSENSUS), ("-", "--", "-.", ":")):
            g = sub[sub["method"] == method]
            ax.plot(g["k"], g["mean"], ls=style, marker="o", ms=3, label=method)
        ax.set_title(DATASET_NAMES.get(dataset, dataset), fontsize=9)
        ax.set_xlabel("number of clusters of the consensus")
        ax.set_ylabel("NMI")
        ax.grid(alpha=0.3)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, frameon=False)
    fig.suptitle("10 % best features: FRCM vs correlation with consensus partitions")
    fig.tight_layout(rect=(0, 0.1, 1, 0.93))
    save_figure(fig, out_path)


def borda_figure(tsv_paths, out_path, out_summary):
    """Figure 4: mean Borda value (mean over trials) vs the subset size in percent."""
    data = pd.concat([pd.read_csv(p, sep="\t") for p in tsv_paths], ignore_index=True)
    summary = data.groupby(["dataset", "percent"], sort=False)["mean_borda"].agg(
        ["mean", "std", "count"]).reset_index()
    write_table_atomic(summary, out_summary, float_format="%.6g")
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for dataset in dict.fromkeys(summary["dataset"]):
        g = summary[summary["dataset"] == dataset]
        ax.plot(g["percent"], g["mean"], label=DATASET_NAMES.get(dataset, dataset))
    ax.set_xlabel("top FRCM genes (% of all)")
    ax.set_ylabel("mean Borda value (class relevance)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, out_path)
