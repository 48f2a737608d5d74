"""Zhang, Wong, Shen & Xie 2012 (FRCM): Table 2, its comparison, Figures 1-4.

The generic evaluate step does the ranking and the clustering: one trial per seed, each
method's ranking (FRMV on FRCM's ensemble of the same trial), the single-start k-means sweep
(``init="random"``, ``n_init=1``: decision, the 40 trials average over initialisations; seed
``derive_seed(seed, dataset, clusterer)``) and, for every method and trial, the k-means of its
informative subset (score > mean + sd; the sweep rows marked ``selected_by = mean_plus_std``),
the paper-as-run Laplacian subset included (method ``laplacian-as-run``, the paper's probable
error, below). Figure 3's experiment (``zhang2012-consensus``) is generic too: FRCM and the
registered consensus rankers (:class:`~fsclust.rankers.consensus_correlation.ConsensusCorrelation`:
``eta^2`` with the CSPA, HBGF or average-link consensus partition of FRCM's ensemble of the
trial, a grid over the consensus function, its partitioner and k), each clustered at one
sweep point, the top 10 % of the genes. This module tabulates and plots what they wrote, from
the paths the rules give it (``step(inputs, outputs, **settings)``, called by
``scripts/paper.py``). It never refits a ranker; one small computation stays here, Table 2's
PCA row (a projection at FRCM's subset size of the trial, then the same single-start k-means,
in :func:`table2_figures12`): PCA ranks no feature, so it is no sweep of a ranking, and its
number of axes is another method's informative-subset size of the same trial, which the
generic steps give a ranking's sweep (``{informative: mean_plus_std}``) but no clusterer. The
class-relevance Borda values of Figure 4 score FRCM's ranking against the classes, a
tabulation like the metrics.

The Laplacian score of Table 2 (Zhang et al. 2012, section 3.2 and Table 2). The paper applies
the UFF rule "CE > c + sigma" (score above mean + sd) to every method and cites Cai's
``LaplacianScore.m`` for ``k = 5``. What was tried on the four gene sets (z-scored genes; sizes
of the subset, then mean NMI over the 40 trials with the paper's k-means, below):

* heat-kernel 5-NN graph (He et al.; Cai's ``t`` rule), best genes (``L < mean - sd``):
  349 / 232 / 381 / 287 genes against the paper's 335 / 247 / 389 / 270; NMI .62 / .42 / .42 /
  .38 against .056 / .474 / .124 / .049 (batch k-means);
* the cosine 5-NN graph of Cai's usage example (cosine weights, self-loops), best genes:
  356 / 214 / 393 / 296; NMI .62 / .45 / .46 / .35 (online k-means);
* the same graph, the genes whose Laplacian score is *above* mean + sd, i.e. the largest
  scores, the worst genes: 335 / 247 / 389 / 270, the paper's four sizes exactly, and NMI .060 /
  .49 / .117 / .051 (ARI .003 / .336 / .039 / .016) against the paper's .056 / .474 / .124 / .049
  (ARI .006 / .328 / .044 / .002). Cai's ``LaplacianScore.m`` returns ``1 - L`` (larger is
  better; "score > mean + sd" on it keeps the best genes, 356 / 214 / 393 / 296), so the paper
  must have applied the rule to He et al.'s smaller-is-better ``L`` itself.

We keep the correct reading (the paper's graph, the best genes: the experiment's ``laplacian``
method) as Table 2's Laplacian row, and add the paper-as-run subset beside it as a variant row
(method ``laplacian-as-run``), marked as the paper's probable error.

The evaluation k-means is MATLAB's of that time (``init="random"``: random samples as starting
centres, batch passes, then the online phase of single-sample moves,
:func:`fsclust.cluster.kmeans.online_phase`). Without the online phase (batch only) UFF's rows
were .075 / .234 / .137 / .061 NMI against the paper's .143 / .450 / .246 / .062; with it .128 /
.462 / .229 / .058, and the paper-as-run Laplacian NMI of nutt .24 became .49 (paper .474).
The PCA rows (``n - 1`` axes on every gene set: k-means on a rotation of the data) went from
NMI .477 / .499 / .343 / .230 (batch) to .578 / .54 / .45 / .339 (online), the paper's .593 /
.533 / .443 / .346.
"""

from __future__ import annotations

import inspect

import matplotlib.pyplot as plt
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from fsclust.cluster.consensus import PARTITIONERS  # noqa: E402
from fsclust.datasets import load_dataset  # noqa: E402
from fsclust.metrics import evaluate  # noqa: E402
from fsclust.rankers.pca import pca_projection  # noqa: E402
from fsclust.ranking import read_ranking  # noqa: E402
from fsclust.rankers.frmv import correlation_ratio  # noqa: E402
from fsclust.registry import ALL_FEATURES, make_clusterer, ranker_class  # noqa: E402
from fsclust.report.figures import save_figure  # noqa: E402
from fsclust.report.paper import paper_vs_ours, read_paper_results  # noqa: E402
from fsclust.report.tables import write_tables  # noqa: E402
from fsclust.steps.seeds import derive_seed  # noqa: E402

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
#: Table 2's extra rows: the Laplacian subset as the paper ran it (its probable error)
AS_RUN = "laplacian-as-run"
AS_RUN_NOTE = ("variant: the paper as run (its probable error): the genes whose Laplacian "
               "score (cosine 5-NN graph of Cai's LaplacianScore.m example, self-loops) is "
               "above mean + sd, i.e. the largest scores, the worst genes")
#: The registered ranker of Figure 3's consensus methods (experiment zhang2012-consensus)
CONSENSUS_RANKER = "consensus_correlation"
#: Figure 3's names of its consensus functions, in the order of its lines
CONSENSUS_NAMES = {"cspa": "CSPA", "hbgf": "HBGF", "average_link": "AL"}
CONSENSUS = tuple(CONSENSUS_NAMES.values())
#: The sweep mark of Table 2's point (grid entry ``{informative: mean_plus_std}``).
INFORMATIVE = "mean_plus_std"


def _kmeans_labels(Z, clusterer, n_clusters, seed, dataset):
    """The evaluation clusterer with the sweep's seed ``derive_seed(seed, dataset, key)``."""
    model = make_clusterer(clusterer["method"], clusterer.get("params"), n_clusters=n_clusters,
                           random_state=derive_seed(seed, dataset, clusterer["key"]))
    return model.fit_predict(Z)


def _ranking(path):
    """Feature indices, best first, from a ranking TSV."""
    return read_ranking(path)["index"].to_numpy()


# ---------------------------------------------------------------------------------------------
# Table 2 and its comparison, Figures 1-2


def informative_rows(sweeps, methods, clusterer="kmeans", metrics=("nmi", "ari")):
    """One row per (dataset, method, seed): the informative subset's size and metrics.

    ``sweeps`` holds the sweep rows of the methods (the generic evaluate step's TSVs; other
    methods, e.g. the all-features baseline, and other clusterers are ignored). The subset's
    clustering is the row marked ``mean_plus_std``; a (method, seed) without one had an empty
    subset (nothing clustered): ``n_selected`` 0 and NaN metrics, as before the port.
    Datasets in their order of appearance, methods in the order of ``methods``.
    """
    sweeps = sweeps[sweeps["clusterer"] == clusterer]
    marked = sweeps["selected_by"].fillna("").astype(str).str.split(",").apply(
        lambda names: INFORMATIVE in names)
    hits = sweeps[marked & sweeps["method"].isin(methods)]
    rows = []
    # every dataset and seed of the sweeps (the baseline's too): each method must have run
    for dataset in dict.fromkeys(sweeps["dataset"]):
        data = sweeps[sweeps["dataset"] == dataset]
        for seed in sorted(set(data["seed"])):
            for key in methods:
                ran = data[(data["method"] == key) & (data["seed"] == seed)]
                if ran.empty:
                    raise ValueError(f"no sweep rows of method {key!r} for {dataset} seed {seed}")
                hit = hits[(hits["dataset"] == dataset) & (hits["method"] == key)
                           & (hits["seed"] == seed)]
                if len(hit) > 1:
                    raise ValueError(f"{dataset} / {key} seed {seed}: {len(hit)} rows marked "
                                     f"{INFORMATIVE}, one expected")
                row = {"dataset": dataset, "method": key, "seed": int(seed)}
                if hit.empty:
                    row["n_selected"] = 0
                    row.update(dict.fromkeys(metrics, np.nan))
                else:
                    row["n_selected"] = int(hit["n_features"].iloc[0])
                    row.update({m: float(hit[m].iloc[0]) for m in metrics})
                rows.append(row)
    return pd.DataFrame(rows, columns=["dataset", "method", "seed", "n_selected", *metrics])


def pca_rows(trials, data_paths, clusterer, size_of="frcm", metrics=("nmi", "ari")):
    """Table 2's PCA rows: the data projected on as many axes as ``size_of``'s informative
    subset of the same trial (``min(m, n - 1, D)``, :func:`fsclust.rankers.pca.pca_projection`),
    clustered by the evaluation clusterer with the sweep's seed. No row for a trial whose
    subset is empty. (A small computation kept in the paper step: PCA ranks no feature.)"""
    rows = []
    with threadpool_limits(limits=1):
        for dataset, data_path in data_paths.items():
            sizes = trials[(trials["dataset"] == dataset) & (trials["method"] == size_of)]
            if sizes.empty:
                continue
            ds = load_dataset(data_path)
            for seed, m in zip(sizes["seed"], sizes["n_selected"]):
                if not m:
                    continue
                Z = pca_projection(ds.X, int(m))
                labels = _kmeans_labels(Z, clusterer, ds.n_classes, int(seed), dataset)
                rows.append({"dataset": dataset, "method": "pca", "seed": int(seed),
                             "n_selected": Z.shape[1], **evaluate(ds.y, labels, metrics)})
    return pd.DataFrame(rows, columns=["dataset", "method", "seed", "n_selected", *metrics])


def laplacian_as_run_rows(sweeps, key, datasets, clusterer="kmeans", metrics=("nmi", "ari")):
    """Table 2's "Laplacian, paper as run" rows: the paper's probable error, for comparison.

    The informative subset of method ``key``: the Laplacian score ranked largest first
    (:class:`~fsclust.rankers.laplacian.LaplacianScoreLargestFirst`, the experiment's graph),
    so that the UFF rule keeps the genes whose score is above mean + sd (ddof 1), the
    *largest* Laplacian scores, the worst genes by He et al.'s definition. The generic evaluate
    step clustered it in every trial (its sweep rows marked ``mean_plus_std``); the rows of
    ``datasets`` are read here, as method :data:`AS_RUN`. No row for a trial whose subset is
    empty (nothing clustered)."""
    ran = sweeps[(sweeps["method"] == key) & sweeps["dataset"].isin(datasets)]
    rows = informative_rows(ran, [key], clusterer, metrics)
    return rows[rows["n_selected"] > 0].assign(method=AS_RUN).reset_index(drop=True)


def table2_summary(trials, metrics=("nmi", "ari")):
    """Mean and sd (ddof 1) over trials of each dataset and method (rows in the order of
    ``trials``: each dataset's methods, then PCA)."""
    agg = trials.groupby(["dataset", "method"], sort=False).agg(
        n_selected_mean=("n_selected", "mean"), n_selected_sd=("n_selected", "std"),
        **{f"{m}_{s}": (m, f) for m in metrics for s, f in (("mean", "mean"), ("sd", "std"))},
        n_trials=("seed", "count"),
    ).reset_index()
    return agg


def _order_trials(trials, methods):
    """Each dataset's trials: per seed the methods in order, PCA last (the rows' order before
    the port, which fixes the order of the summary's rows)."""
    order = {key: i for i, key in enumerate([*methods, AS_RUN, "pca"])}
    datasets = {ds: i for i, ds in enumerate(dict.fromkeys(trials["dataset"]))}
    keys = pd.DataFrame({"d": trials["dataset"].map(datasets), "s": trials["seed"],
                         "m": trials["method"].map(order)})
    return trials.loc[keys.sort_values(["d", "s", "m"], kind="stable").index].reset_index(
        drop=True)


def table2_vs_paper(agg, paper_results, metrics=("nmi", "ari")):
    """Every number of the paper's Table 2 beside ours, in the columns of ``paper_vs_ours``."""
    # our Table 2 in the shape of a sweep summary, one "n_features" per row (the mean m)
    long = []
    for r in agg.itertuples(index=False):
        for metric, mean, sd in [("n_selected_features", r.n_selected_mean, r.n_selected_sd),
                                 *[(m.upper(), getattr(r, f"{m}_mean"), getattr(r, f"{m}_sd"))
                                   for m in metrics]]:
            long.append({"dataset": r.dataset, "method": r.method, "clusterer": "kmeans",
                         "n_features": int(round(r.n_selected_mean)), "metric": metric,
                         "mean": mean, "sd": sd, "n_runs": r.n_trials})
    summary = pd.DataFrame(long)
    paper = paper_results[(paper_results["paper"] == PAPER)
                          & (paper_results["table_or_figure"] == "Table 2")]
    ids = {v: k for k, v in DATASET_NAMES.items()}
    keys = {v: k for k, v in METHOD_NAMES.items()}
    comparisons = []
    for r in paper.itertuples(index=False):
        if r.dataset not in ids or r.method not in keys:
            continue
        note = ("ours: mean over trials of the rule's subset size"
                if r.metric == "n_selected_features" else "")
        if r.method == "PCA":
            note = "ours: PCA on min(m, n - 1, D) axes, m = FRCM's subset size of each trial"
        comparisons.append({
            "paper": PAPER, "table_or_figure": "Table 2", "dataset": r.dataset,
            "method": r.method, "metric": r.metric, "n_features": r.n_features, "note": note,
            "ours": {"dataset": ids[r.dataset], "method": keys[r.method], "clusterer": "kmeans",
                     "metric": r.metric, "n_features": "all"},
        })
        if r.method == "Laplacian" and ((agg["dataset"] == ids[r.dataset])
                                        & (agg["method"] == AS_RUN)).any():
            # the paper-as-run subset beside the correct one (a variant row, not counted)
            comparisons.append({**comparisons[-1], "note": AS_RUN_NOTE,
                                "ours": {**comparisons[-1]["ours"], "method": AS_RUN}})
    return paper_vs_ours(paper, comparisons, summary)


def _paper_grid(n_features, d):
    """The paper's grid: every d for UCI sets; 20, 40, ..., D for gene sets."""
    if d <= 100:
        return n_features
    return n_features[(n_features % 20 == 0) | (n_features == d)]


def sweep_figure(summary, datasets, metrics, out_path, title):
    """Figures 1 and 2: mean NMI / ARI vs the number of top features, one panel per dataset
    (the plain grid's rows of the experiment's ``summary.tsv``)."""
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
            base = sub[sub["method"] == ALL_FEATURES]
            if not base.empty:
                ax.axhline(float(base["mean"].iloc[0]), color="k", ls="--", lw=0.8,
                           label="all features")
            ax.set_title(DATASET_NAMES.get(dataset, dataset), fontsize=9)
            ax.set_xlabel("number of selected features")
            ax.set_ylabel(metric.upper())
            ax.grid(alpha=0.3)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=max(1, len(labels)), frameon=False)
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.06, 1, 0.96))
    save_figure(fig, out_path)


TABLE2_NOTE = ("Informative subsets (score > mean + sd of each method's scores, ddof = 1; "
               "Laplacian score and FRMV negated first), k-means with the true number of "
               "classes, one single-start k-means per trial; mean and sd over trials. PCA: "
               "projection on min(m, n - 1, D) axes with m = FRCM's subset size of the same "
               "trial. laplacian-as-run: the paper's probable error, the genes whose Laplacian "
               "score is above mean + sd (the worst).")


def table2_figures12(inputs, outputs, *, datasets, methods, clusterer, metrics, uci_datasets,
                     gene_datasets, pca_size_of="frcm", laplacian_as_run=None):
    """Table 2, Table 2 vs the paper and Figures 1-2 of one experiment.

    Parameters
    ----------
    inputs : dict
        ``sweeps``: the evaluate step's sweep TSVs of ``methods`` (every dataset);
        ``data``: the prepared ``.npz`` of each of ``datasets``, in that order (for PCA);
        ``summary``: the experiment's ``tables/summary.tsv`` (Figures 1-2);
        ``paper``: ``config/paper-results.tsv``.
    outputs : dict
        ``table2`` (TSV), ``table2_md``, ``table2_trials`` (one row per trial),
        ``vs_paper`` (TSV in the columns of ``paper_vs_ours.tsv``), ``vs_paper_md``,
        ``fig1``, ``fig2`` (PNG).
    datasets : list of str
        The experiment's datasets (those it could get), in its order.
    methods : list of str
        The experiment's method keys, in its order (Table 2's rows).
    clusterer : dict
        ``{key, method, params}`` of the evaluation clusterer (PCA's k-means).
    metrics : list of str
    uci_datasets, gene_datasets : list of str
        The panels of Figures 1 and 2.
    pca_size_of : str
        The method whose informative-subset size of a trial sets PCA's number of axes.
    laplacian_as_run : str or None
        The method key of the paper-as-run rows (:func:`laplacian_as_run_rows`, on
        ``gene_datasets``); None: no such rows.

    Table 2's rows of the methods and the paper-as-run rows are read from the sweep TSVs
    (rows marked ``mean_plus_std``); only the PCA rows are computed here (:func:`pca_rows`).
    """
    sweeps = pd.concat([pd.read_csv(p, sep="\t") for p in _as_list(inputs["sweeps"])],
                       ignore_index=True)
    table_methods = [key for key in methods if key != laplacian_as_run]
    trials = informative_rows(sweeps, table_methods, clusterer["key"], metrics)
    data_paths = dict(zip(datasets, _as_list(inputs["data"])))
    pca = pca_rows(trials, data_paths, clusterer, pca_size_of, metrics)
    extra = [pca]
    if laplacian_as_run is not None:
        extra.append(laplacian_as_run_rows(sweeps, laplacian_as_run, gene_datasets,
                                           clusterer["key"], metrics))
    trials = _order_trials(pd.concat([trials, *extra], ignore_index=True), table_methods)
    agg = table2_summary(trials, metrics)
    write_tables(trials, outputs["table2_trials"], float_format="%.10g")
    md = agg.copy()
    md["n_selected"] = [f"{a:.0f} ± {b:.0f}" if b > 0 else f"{a:.0f}"
                        for a, b in zip(md["n_selected_mean"], md["n_selected_sd"].fillna(0))]
    for m in metrics:
        md[m] = [f"{a:.3f} ± {b:.3f}" for a, b in zip(md[f"{m}_mean"], md[f"{m}_sd"])]
    md = md[["dataset", "method", "n_selected", *metrics, "n_trials"]]
    write_tables(agg, outputs["table2"], outputs["table2_md"], md_frame=md,
                 title="Table 2 (ours)", note=TABLE2_NOTE)

    # compared as written (6 significant digits), as before the port: diff = shown ours - paper
    agg = pd.read_csv(outputs["table2"], sep="\t")
    table = table2_vs_paper(agg, read_paper_results(inputs["paper"]), metrics)
    write_tables(table, outputs["vs_paper"], outputs["vs_paper_md"],
                 title="Table 2: paper vs ours",
                 note="diff = ours - paper. n_features: the paper's subset size; ours in the "
                      "n_selected_features rows.")

    summary = pd.read_csv(inputs["summary"], sep="\t")
    sweep_figure(summary, [d for d in uci_datasets if d in datasets], metrics, outputs["fig1"],
                 "Fig. 1: UCI data sets")
    sweep_figure(summary, [d for d in gene_datasets if d in datasets], metrics,
                 outputs["fig2"], "Fig. 2: gene sets")


def _as_list(value):
    return [value] if isinstance(value, str) else list(value)


# ---------------------------------------------------------------------------------------------
# Figures 3-4


def _ranker_params(spec):
    """A method spec's parameters over its class's defaults (read from the signature: no
    estimator is built here)."""
    signature = inspect.signature(ranker_class(spec["method"]))
    return {**{name: p.default for name, p in signature.parameters.items()},
            **(spec.get("params") or {})}


def consensus_variants(methods):
    """``{key: (name, k)}`` of the consensus rankers among ``methods`` (an experiment's
    ``{key: spec}``, grids expanded), in Figure 3's order of rows: by ``k``, then CSPA and HBGF
    cut by METIS (names ``CSPA``, ``HBGF``), by another partitioner (``CSPA (spectral)``, ...),
    then average link (``AL``)."""
    found = []
    for key, spec in methods.items():
        if spec["method"] != CONSENSUS_RANKER:
            continue
        params = _ranker_params(spec)
        consensus, k = params["consensus"], int(params["n_clusters"])
        name, graph = CONSENSUS_NAMES[consensus], consensus != "average_link"
        if graph and params["partitioner"] != "metis":
            name += f" ({params['partitioner']})"
        order = (k, not graph, PARTITIONERS.index(params["partitioner"]) if graph else 0,
                 list(CONSENSUS_NAMES).index(consensus))
        found.append((order, key, name, k))
    return {key: (name, k) for _, key, name, k in sorted(found)}


def consensus_rows(sweeps, methods, frcm="frcm", clusterer="kmeans"):
    """Figure 3 data, one row per trial, method and k: NMI of the k-means on the top 10 % of
    the genes of FRCM (method ``frcm``, the same NMI for every k) and of each consensus ranker
    (:class:`~fsclust.rankers.consensus_correlation.ConsensusCorrelation`, method
    :func:`consensus_variants`' name, its k).

    ``sweeps`` holds the sweep rows of the consensus experiment (the generic evaluate step's
    TSVs, one point per method and trial: ``{fraction: 0.1}``); datasets in their order of
    appearance, seeds in increasing order."""
    variants = consensus_variants(methods)
    ks = sorted({k for _, k in variants.values()})
    sweeps = sweeps[sweeps["clusterer"] == clusterer]
    rows = []
    for dataset in dict.fromkeys(sweeps["dataset"]):
        data = sweeps[sweeps["dataset"] == dataset]
        for seed in sorted(set(data["seed"])):
            trial = data[data["seed"] == seed]
            if trial["method"].duplicated().any():
                raise ValueError(f"{dataset} seed {seed}: several sweep points of one method; "
                                 "Figure 3 reads one point ({fraction: 0.1}) per method")
            nmi = dict(zip(trial["method"], trial["nmi"]))
            missing = sorted({frcm, *variants} - set(nmi))
            if missing:
                raise ValueError(f"{dataset} seed {seed}: no sweep rows of {missing}")
            rows += [{"dataset": dataset, "seed": int(seed), "method": "FRCM", "k": k,
                      "nmi": nmi[frcm]} for k in ks]
            rows += [{"dataset": dataset, "seed": int(seed), "method": name, "k": k,
                      "nmi": nmi[key]} for key, (name, k) in variants.items()]
    return pd.DataFrame(rows, columns=["dataset", "seed", "method", "k", "nmi"])


def borda_rows(X, y, dataset, seed, ranking, percents=range(1, 101)):
    """Figure 4 data of one trial: mean Borda value of the top p % FRCM genes, p = 1..100.

    The Borda value of a gene comes from its rank by relevance to the true classes (the
    correlation ratio ``eta^2`` with the class labels): the most class-related gene scores D,
    the least 1 (ties: average). The paper does not name the class-relevance measure.
    """
    from scipy.stats import rankdata

    d = X.shape[1]
    borda = rankdata(correlation_ratio(X, y), method="average")  # best = D, worst = 1
    cum = np.cumsum(borda[ranking])
    rows = []
    for p in percents:
        m = max(1, int(round(p / 100 * d)))
        rows.append({"dataset": dataset, "seed": seed, "percent": p, "n_features": m,
                     "mean_borda": cum[m - 1] / m})
    return rows


def consensus_figure(data, out_path):
    """Figure 3: mean NMI over trials vs the consensus number of clusters k; returns the
    summary (mean, sd, count per dataset, method and k)."""
    summary = data.groupby(["dataset", "method", "k"], sort=False)["nmi"].agg(
        ["mean", "std", "count"]).reset_index()
    datasets = list(dict.fromkeys(summary["dataset"]))
    fig, axes = plt.subplots(1, len(datasets), squeeze=False,
                             figsize=(3.6 * len(datasets), 3.2))
    for ax, dataset in zip(axes[0], datasets):
        sub = summary[summary["dataset"] == dataset]
        for method, style in zip(("FRCM", *CONSENSUS), ("-", "--", "-.", ":")):
            g = sub[sub["method"] == method]
            line = ax.plot(g["k"], g["mean"], ls=style, marker="o", ms=3, label=method)
            for other in sorted(set(sub["method"])):
                if other.startswith(f"{method} ("):  # another partitioner: same colour, faint
                    g = sub[sub["method"] == other]
                    ax.plot(g["k"], g["mean"], ls=style, marker="x", ms=3, lw=0.8, alpha=0.5,
                            color=line[0].get_color(), label=other)
        ax.set_title(DATASET_NAMES.get(dataset, dataset), fontsize=9)
        ax.set_xlabel("number of clusters of the consensus")
        ax.set_ylabel("NMI")
        ax.grid(alpha=0.3)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 6), frameon=False)
    fig.suptitle("10 % best features: FRCM vs correlation with consensus partitions")
    fig.tight_layout(rect=(0, 0.1, 1, 0.93))
    save_figure(fig, out_path)
    return summary


def borda_figure(data, out_path):
    """Figure 4: mean Borda value (mean over trials) vs the subset size in percent; returns
    the summary (mean, sd, count per dataset and percent)."""
    summary = data.groupby(["dataset", "percent"], sort=False)["mean_borda"].agg(
        ["mean", "std", "count"]).reset_index()
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
    return summary


def figures34(inputs, outputs, *, datasets, seeds, frcm_rankings, consensus_methods,
              clusterer, frcm="frcm"):
    """Figure 3 from the consensus experiment's sweeps, Figure 4 (gene sets) from FRCM's
    rankings of every trial.

    Parameters
    ----------
    inputs : dict
        ``consensus_sweeps``: the sweep TSVs of the consensus experiment (Figure 3);
        ``data``: the prepared ``.npz`` of each of ``datasets``, in that order; ``rankings``:
        FRCM's rankings directories (the job outputs; the files read are ``frcm_rankings``).
    outputs : dict
        ``fig3`` (PNG), ``fig3_tsv`` (its summary), ``fig3_trials`` (one row per trial, k and
        method), ``fig4``, ``fig4_tsv``, ``fig4_trials``.
    datasets : list of str
        Figure 4's lines.
    seeds : list of int
        Figure 4's trials, one per seed.
    frcm_rankings : dict
        ``{dataset: {seed: path}}``: FRCM's ranking TSV of every trial (Figure 4).
    consensus_methods : dict
        ``{key: spec}`` of the consensus experiment's methods (:func:`consensus_rows`).
    clusterer : str
        The key of the consensus experiment's clusterer.
    frcm : str
        The method key of FRCM in the consensus experiment.
    """
    sweeps = pd.concat([pd.read_csv(p, sep="\t") for p in _as_list(inputs["consensus_sweeps"])],
                       ignore_index=True)
    fig3 = consensus_rows(sweeps, consensus_methods, frcm, clusterer)
    fig4 = []
    with threadpool_limits(limits=1):
        for dataset, data_path in zip(datasets, _as_list(inputs["data"])):
            ds = load_dataset(data_path)
            for seed in seeds:
                fig4 += borda_rows(ds.X, ds.y, dataset, seed,
                                   _ranking(frcm_rankings[dataset][seed]))
    fig4 = pd.DataFrame(fig4, columns=["dataset", "seed", "percent", "n_features",
                                       "mean_borda"])
    # the figures and their summaries are made from the per-trial tables as written (6
    # significant digits), as they were before the port
    write_tables(fig3, outputs["fig3_trials"])
    write_tables(fig4, outputs["fig4_trials"])
    summary = consensus_figure(pd.read_csv(outputs["fig3_trials"], sep="\t"), outputs["fig3"])
    write_tables(summary, outputs["fig3_tsv"])
    summary = borda_figure(pd.read_csv(outputs["fig4_trials"], sep="\t"), outputs["fig4"])
    write_tables(summary, outputs["fig4_tsv"])
