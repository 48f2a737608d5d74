"""Zhang et al. 2012 on the paper layer: Table 2 from the generic sweep equals the computation
before the port (informative subsets clustered in the paper step), so does Figure 3 from the
sweeps of its consensus experiment (FRCM and the consensus rankers on FRCM's ensemble), and
the paper block's schema."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from fsclust import steps
from fsclust.cluster.consensus import average_link_consensus, cspa_consensus, hbgf_consensus
from fsclust.datasets import load_dataset
from fsclust.datasets.store import Dataset, save_dataset
from fsclust.steps.grids import expand_grids
from fsclust.metrics import evaluate
from fsclust.papers import zhang2012
from fsclust.rankers.pca import pca_projection
from fsclust.rankers.base import mean_plus_std_rule
from fsclust.rankers.frmv import correlation_ratio
from fsclust.ranking import read_ranking
from fsclust.registry import make_clusterer, make_ranker, ranker_class
from fsclust.report.paper import PAPER_VS_OURS_COLUMNS
from fsclust.steps.seeds import derive_seed

ROOT = Path(__file__).resolve().parents[1]
SEEDS = [0, 1]
METRICS = ["nmi", "ari"]
CLUSTERER = {"key": "kmeans", "method": "kmeans", "params": {"init": "random", "n_init": 1}}
METHODS = {
    "laplacian": {"method": "laplacian", "params": {"n_neighbors": 5}},
    "uff": {"method": "uff"},
    "frmv": {"method": "frmv", "params": {"n_partitions": 8, "max_clusters": 5,
                                          "ensemble": {"from": "frcm", "attribute": "ensemble"}}},
    "frcm": {"method": "frcm", "params": {"n_partitions": 8, "max_clusters": 5}},
}
GRID = [1, 2, 4, 8, {"informative": "mean_plus_std"}]


def _tiny_dataset(path, name, n_per_class=14, d=24, seed=0):
    """Three classes in the first four features, noise elsewhere, one constant column."""
    rng = np.random.RandomState(seed)
    y = np.repeat(np.arange(3), n_per_class)
    X = rng.normal(size=(y.size, d))
    X[:, :4] += 2.5 * np.eye(3)[y] @ rng.normal(size=(3, 4))
    X[:, d - 1] = 1.0
    ds = Dataset(X=X, y=y, feature_names=[f"f{j}" for j in range(d)],
                 sample_names=[f"s{i}" for i in range(y.size)], class_names=["a", "b", "c"],
                 provenance={"id": name})
    save_dataset(ds, path)
    return path


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The generic evaluate step on two tiny datasets, one job per method (FRCM first: FRMV
    reads its ensemble), plus the all-features baseline; returns the paths."""
    root = tmp_path_factory.mktemp("zhang2012")
    datasets = {"tiny-a": 0, "tiny-b": 1}
    data, sweeps, rankings = {}, [], {}
    for name, seed in datasets.items():
        data[name] = _tiny_dataset(root / "data" / f"{name}.npz", name, seed=seed)
        for key in ["frcm", "laplacian", "uff", "frmv"]:
            out = root / "rankings" / name / key
            sweep = root / "sweeps" / name / f"{key}.tsv"
            sweep.parent.mkdir(parents=True, exist_ok=True)
            refs = {"frcm": root / "rankings" / name / "frcm"} if key == "frmv" else {}
            steps.evaluate(data[name], sweep, dataset=name, methods={key: METHODS[key]},
                           rankings_dir=out, seeds=SEEDS, clusterers={"kmeans": CLUSTERER},
                           grid_spec=GRID, metrics=METRICS, references=refs)
            rankings[name, key] = out
            sweeps.append(sweep)
        sweep = root / "sweeps" / name / "all-features.tsv"
        steps.evaluate(data[name], sweep, dataset=name, methods={}, rankings_dir=None,
                       seeds=SEEDS, clusterers={"kmeans": CLUSTERER}, grid_spec=GRID,
                       metrics=METRICS, baseline=True)
        sweeps.append(sweep)
    return {"root": root, "data": data, "sweeps": sweeps, "rankings": rankings}


def _kmeans(Z, n_clusters, seed, dataset):
    model = make_clusterer("kmeans", CLUSTERER["params"], n_clusters=n_clusters,
                           random_state=derive_seed(seed, dataset, "kmeans"))
    return model.fit_predict(Z)


def _old_table2(data_paths, rankings, methods, seeds):
    """Table 2 as computed before the port (git 0351cf3, fsclust.report.zhang2012.table2):
    scores read back from the ranking TSVs, the mean + sd rule, k-means on ``X[:, keep]``."""
    rows = []
    for dataset, data_path in data_paths.items():
        ds = load_dataset(data_path)
        X, y, c = ds.X, ds.y, ds.n_classes
        for seed in seeds:
            m_frcm = None
            for key, spec in methods.items():
                higher = ranker_class(spec["method"]).higher_is_better
                table = read_ranking(Path(rankings[dataset, key]) / f"seed{seed}.tsv")
                scores = np.empty(X.shape[1])
                scores[table["index"].to_numpy()] = table["score"].to_numpy()
                const = np.ptp(X, axis=0) <= 1e-12 * np.maximum(1, np.abs(X).max(axis=0))
                keep = mean_plus_std_rule(scores, higher, const)
                m = int(keep.sum())
                if key == "frcm":
                    m_frcm = m
                row = {"dataset": dataset, "method": key, "seed": seed, "n_selected": m}
                if m:
                    row.update(evaluate(y, _kmeans(X[:, keep], c, seed, dataset), METRICS))
                else:
                    row.update(dict.fromkeys(METRICS, np.nan))
                rows.append(row)
            if m_frcm:
                Z = pca_projection(X, m_frcm)
                row = {"dataset": dataset, "method": "pca", "seed": seed,
                       "n_selected": Z.shape[1]}
                row.update(evaluate(y, _kmeans(Z, c, seed, dataset), METRICS))
                rows.append(row)
    runs = pd.DataFrame(rows)
    return runs, zhang2012.table2_summary(runs, METRICS)


@pytest.mark.slow  # the paper's experiment run by the evaluate step
def test_table2_from_the_sweep_equals_the_computation_before_the_port(run):
    sweeps = pd.concat([pd.read_csv(p, sep="\t") for p in run["sweeps"]], ignore_index=True)
    trials = zhang2012.informative_rows(sweeps, list(METHODS), "kmeans", METRICS)
    pca = zhang2012.pca_rows(trials, run["data"], CLUSTERER, "frcm", METRICS)
    trials = zhang2012._order_trials(pd.concat([trials, pca], ignore_index=True), list(METHODS))
    new = zhang2012.table2_summary(trials, METRICS)
    old_runs, old = _old_table2(run["data"], run["rankings"], METHODS, SEEDS)

    # both cases occur: clustered subsets, and UFF's empty subset here (n_selected 0, NaN)
    assert (trials["n_selected"] > 0).any() and (trials["n_selected"] == 0).any()
    assert trials[["dataset", "method", "seed", "n_selected"]].equals(
        old_runs[["dataset", "method", "seed", "n_selected"]])
    # the sweep TSV keeps 10 significant digits
    np.testing.assert_allclose(trials[METRICS], old_runs[METRICS], rtol=1e-9, atol=1e-12,
                               equal_nan=True)
    assert list(new.columns) == list(old.columns)
    assert new[["dataset", "method", "n_trials"]].equals(old[["dataset", "method", "n_trials"]])
    numbers = [c for c in new.columns if c.endswith(("_mean", "_sd"))]
    np.testing.assert_allclose(new[numbers].to_numpy(float), old[numbers].to_numpy(float),
                               rtol=1e-9, atol=1e-12, equal_nan=True)


def test_an_empty_informative_subset_counts_zero_features_and_no_metric():
    """A (method, seed) the sweep did not mark (its subset was empty): n_selected 0, NaN
    metrics, and the mean over trials skips it as before the port."""
    rows = []
    for seed in (0, 1):
        for method, m in (("uff", 3), ("frcm", 5)):
            for n in (1, 2):
                rows.append({"dataset": "d", "method": method, "seed": seed, "clusterer": "kmeans",
                             "n_features": n, "nmi": 0.1 * n, "ari": 0.05 * n, "in_grid": 1,
                             "selected_by": ""})
            if not (method == "uff" and seed == 1):
                rows.append({"dataset": "d", "method": method, "seed": seed,
                             "clusterer": "kmeans", "n_features": m, "nmi": 0.5 + seed,
                             "ari": 0.25, "in_grid": 0, "selected_by": "mean_plus_std"})
    trials = zhang2012.informative_rows(pd.DataFrame(rows), ["uff", "frcm"], "kmeans", METRICS)
    empty = trials[(trials["method"] == "uff") & (trials["seed"] == 1)].iloc[0]
    assert empty["n_selected"] == 0 and np.isnan(empty["nmi"]) and np.isnan(empty["ari"])
    agg = zhang2012.table2_summary(trials, METRICS).set_index("method")
    assert agg.loc["uff", "n_selected_mean"] == 1.5 and agg.loc["uff", "n_trials"] == 2
    assert agg.loc["uff", "nmi_mean"] == 0.5 and np.isnan(agg.loc["uff", "nmi_sd"])
    assert agg.loc["frcm", "nmi_mean"] == 1.0
    with pytest.raises(ValueError, match="no sweep rows of method 'laplacian'"):
        zhang2012.informative_rows(pd.DataFrame(rows), ["laplacian"], "kmeans", METRICS)


@pytest.mark.slow  # the paper's experiment run by the evaluate step
def test_table2_step_writes_the_tables_and_figures(run, tmp_path):
    summary = tmp_path / "summary.tsv"
    steps.aggregate(run["sweeps"], METRICS, {"sweeps": tmp_path / "sweeps.tsv",
                                             "summary": summary, "best": tmp_path / "best.tsv",
                                             "best_md": tmp_path / "best.md"})
    outputs = {k: tmp_path / f"{k}.{ext}" for k, ext in (
        ("table2", "tsv"), ("table2_md", "md"), ("table2_trials", "tsv"), ("vs_paper", "tsv"),
        ("vs_paper_md", "md"), ("fig1", "png"), ("fig2", "png"))}
    datasets = list(run["data"])
    zhang2012.table2_figures12(
        {"sweeps": [str(p) for p in run["sweeps"]], "data": [str(run["data"][d]) for d in datasets],
         "summary": str(summary), "paper": str(ROOT / "config" / "paper-results.tsv")},
        {k: str(v) for k, v in outputs.items()}, datasets=datasets, methods=list(METHODS),
        clusterer=CLUSTERER, metrics=METRICS, uci_datasets=["tiny-a"],
        gene_datasets=["tiny-b"], pca_size_of="frcm")
    table2 = pd.read_csv(outputs["table2"], sep="\t")
    assert list(table2["method"]) == [*METHODS, "pca"] * 2
    # no tiny dataset is in the paper: the comparison has the paper's columns and no rows
    assert list(pd.read_csv(outputs["vs_paper"], sep="\t").columns) == PAPER_VS_OURS_COLUMNS
    assert outputs["fig1"].stat().st_size > 0 and outputs["fig2"].stat().st_size > 0


@pytest.mark.slow  # the paper's experiment run by the evaluate step
def test_frcm_keeps_its_own_ensemble_and_consensus_matrix(run):
    """The arrays FRMV reads are FRCM's own, bit for bit (refitted here only to check that)."""
    dataset = "tiny-a"
    ds = load_dataset(run["data"][dataset])
    npz = Path(run["rankings"][dataset, "frcm"]) / "seed1.npz"
    frcm = make_ranker("frcm", METHODS["frcm"]["params"],
                       random_state=derive_seed(1, dataset, "frcm")).fit(ds.X)
    M = steps.read_artifact(npz, "consensus_matrix")
    assert M.dtype == frcm.consensus_matrix_.dtype and np.array_equal(M, frcm.consensus_matrix_)
    assert np.array_equal(steps.read_artifact(npz, "ensemble"), frcm.ensemble_)
    with np.load(npz) as raw:
        assert raw["consensus_matrix"].dtype == np.uint8  # stored as counts


#: Figure 3's experiment in small: FRCM, and the consensus rankers on its ensemble
CONSENSUS_METHODS = {
    "frcm": {**METHODS["frcm"], "keep": ["ensemble"]},
    "consensus": {"method": "consensus_correlation",
                  "params": {"ensemble": {"from": "frcm", "attribute": "ensemble"}},
                  "grid": {"consensus": ["cspa", "hbgf"], "partitioner": ["metis", "spectral"],
                           "n_clusters": [2, 3]},
                  "name": "{consensus}-{partitioner}-k{n_clusters}"},
    "average-link": {"method": "consensus_correlation",
                     "params": {"consensus": "average_link",
                                "ensemble": {"from": "frcm", "attribute": "ensemble"}},
                     "grid": {"n_clusters": [2, 3]}, "name": "average_link-k{n_clusters}"},
}
FRACTION = 0.25
FIGURE3_ORDER = ["CSPA", "HBGF", "CSPA (spectral)", "HBGF (spectral)", "AL"]


@pytest.fixture(scope="module")
def consensus_run(run):
    """The generic evaluate step of Figure 3's experiment (one job per dataset, as grain
    "dataset"), one sweep point per method: the top FRACTION of the features."""
    methods = expand_grids(CONSENSUS_METHODS)
    sweeps = []
    for name, data in run["data"].items():
        sweep = run["root"] / "consensus" / "sweeps" / f"{name}.tsv"
        sweep.parent.mkdir(parents=True, exist_ok=True)
        steps.evaluate(data, sweep, dataset=name, methods=methods,
                       rankings_dir=run["root"] / "consensus" / "rankings" / name, seeds=SEEDS,
                       clusterers={"kmeans": CLUSTERER}, grid_spec=[{"fraction": FRACTION}],
                       metrics=["nmi"], nested=True)
        sweeps.append(sweep)
    return {"methods": methods, "sweeps": sweeps}


def _old_figure3(X, y, dataset, seed, methods):
    """Figure 3 as computed before the port (git c9e021a, zhang2012.consensus_selection): FRCM's
    top fraction, and the features with the largest eta^2 with each consensus partition of
    FRCM's ensemble, clustered in rank order; the partitioner's seed is now each consensus
    ranker's own stream, derive_seed(seed, dataset, key)."""
    frcm = make_ranker("frcm", METHODS["frcm"]["params"],
                       random_state=derive_seed(seed, dataset, "frcm")).fit(X)
    n_top = max(1, int(round(FRACTION * X.shape[1])))

    def nmi(columns):
        return evaluate(y, _kmeans(X[:, columns], 3, seed, dataset), ["nmi"])["nmi"]

    out = {"frcm": nmi(frcm.feature_order_[:n_top])}
    for key, spec in methods.items():
        if key == "frcm":
            continue
        p = {"partitioner": "metis", **spec["params"]}
        rs = derive_seed(seed, dataset, key)
        part = {"cspa": lambda: cspa_consensus(frcm.consensus_matrix_, p["n_clusters"],
                                               random_state=rs, partitioner=p["partitioner"]),
                "hbgf": lambda: hbgf_consensus(frcm.ensemble_, p["n_clusters"],
                                               random_state=rs, partitioner=p["partitioner"]),
                "average_link": lambda: average_link_consensus(frcm.consensus_matrix_,
                                                               p["n_clusters"])}[p["consensus"]]()
        out[key] = nmi(np.argsort(-correlation_ratio(X, part), kind="stable")[:n_top])
    return out


@pytest.mark.slow  # the paper's experiment run by the evaluate step
def test_figure3_from_the_consensus_sweeps_equals_the_computation_before_the_port(run,
                                                                                  consensus_run):
    sweeps = pd.concat([pd.read_csv(p, sep="\t") for p in consensus_run["sweeps"]],
                       ignore_index=True)
    # one point per method and trial, the top FRACTION of the 24 features (no m = d)
    assert set(sweeps["n_features"]) == {6} and (sweeps["in_grid"] == 1).all()
    rows = zhang2012.consensus_rows(sweeps, consensus_run["methods"])
    for (dataset, seed), trial in rows.groupby(["dataset", "seed"], sort=False):
        ds = load_dataset(run["data"][dataset])
        old = _old_figure3(ds.X, ds.y, dataset, seed, consensus_run["methods"])
        got = trial[trial["method"] == "FRCM"]
        np.testing.assert_allclose(got["nmi"], old["frcm"], rtol=1e-9)
        for key, (name, k) in zhang2012.consensus_variants(consensus_run["methods"]).items():
            got = trial[(trial["method"] == name) & (trial["k"] == k)]["nmi"]
            assert len(got) == 1
            np.testing.assert_allclose(got.iloc[0], old[key], rtol=1e-9)


@pytest.mark.slow  # the paper's experiment run by the evaluate step
def test_figure3_rows_are_frcm_then_each_k_in_the_figures_order(consensus_run):
    sweeps = pd.concat([pd.read_csv(p, sep="\t") for p in consensus_run["sweeps"]],
                       ignore_index=True)
    rows = zhang2012.consensus_rows(sweeps, consensus_run["methods"])
    trial = rows[(rows["dataset"] == "tiny-b") & (rows["seed"] == 1)]
    expected = [("FRCM", 2), ("FRCM", 3)] + [(name, k) for k in (2, 3) for name in FIGURE3_ORDER]
    assert list(zip(trial["method"], trial["k"])) == expected
    assert trial[trial["method"] == "FRCM"]["nmi"].nunique() == 1  # FRCM does not use k
    assert list(dict.fromkeys(rows["dataset"])) == ["tiny-a", "tiny-b"]
    with pytest.raises(ValueError, match="no sweep rows of \\['frcm'\\]"):
        zhang2012.consensus_rows(sweeps[sweeps["method"] != "frcm"], consensus_run["methods"])


@pytest.mark.slow  # the paper's experiment run by the evaluate step
def test_figures34_step_tabulates_the_sweeps_and_rankings(run, consensus_run, tmp_path):
    datasets = list(run["data"])
    rankings = {ds: {seed: str(Path(run["rankings"][ds, "frcm"]) / f"seed{seed}.tsv")
                     for seed in SEEDS} for ds in datasets}
    outputs = {k: str(tmp_path / f"{k}.{ext}") for k, ext in (
        ("fig3", "png"), ("fig3_tsv", "tsv"), ("fig3_trials", "tsv"), ("fig4", "png"),
        ("fig4_tsv", "tsv"), ("fig4_trials", "tsv"))}
    zhang2012.figures34(
        {"consensus_sweeps": [str(p) for p in consensus_run["sweeps"]],
         "data": [str(run["data"][d]) for d in datasets],
         "rankings": [str(run["rankings"][d, "frcm"]) for d in datasets]},
        outputs, datasets=datasets, seeds=SEEDS, frcm_rankings=rankings,
        consensus_methods=consensus_run["methods"], clusterer="kmeans")
    fig3 = pd.read_csv(outputs["fig3_tsv"], sep="\t")
    assert set(fig3["method"]) == {"FRCM", *FIGURE3_ORDER}
    assert (fig3["count"] == len(SEEDS)).all() and len(fig3) == 2 * 6 * 2
    fig4 = pd.read_csv(outputs["fig4_tsv"], sep="\t")
    assert len(fig4) == 2 * 100 and (fig4["count"] == len(SEEDS)).all()
    # with every feature, the mean Borda value is the mean rank, (D + 1) / 2
    last = fig4[fig4["percent"] == 100]["mean"].to_numpy()
    np.testing.assert_allclose(last, (24 + 1) / 2)


def _schema_validate(block):
    from snakemake.utils import validate

    validate(block, schema=str(ROOT / "workflow/schemas/papers/zhang2012.schema.yaml"))


def test_schema_accepts_the_config_blocks_and_rejects_a_wrong_key():
    config = yaml.safe_load((ROOT / "config/experiments/zhang2012.yaml").read_text())
    for name in ("zhang2012", "zhang2012-small"):
        block = dict(config["papers"][name])
        _schema_validate(block)
        assert block["pca_size_of"] == "frcm"
        assert config["papers"][name]["experiments"] == {
            "main": name, "consensus": name.replace("zhang2012", "zhang2012-consensus")}
    bad = dict(config["papers"]["zhang2012"], consensus_fractoin=0.2)
    with pytest.raises(Exception, match="consensus_fractoin"):
        _schema_validate(bad)
    for experiments in ({"toy": "zhang2012"}, {"main": "zhang2012"}):
        bad = dict(config["papers"]["zhang2012"], experiments=experiments)
        with pytest.raises(Exception):
            _schema_validate(bad)


def test_experiment_shares_frcm_ensemble_and_sweeps_the_informative_subset():
    config = yaml.safe_load((ROOT / "config/experiments/zhang2012.yaml").read_text())
    for name in ("zhang2012", "zhang2012-small"):
        exp = config["experiments"][name]
        assert exp["methods"]["frmv"]["params"]["ensemble"] == {"from": "frcm",
                                                                 "attribute": "ensemble"}
        assert {"informative": "mean_plus_std"} in exp["sweep"]["n_features"]
    assert len(config["experiments"]["zhang2012"]["seeds"]) == 40
    assert config["experiments"]["zhang2012-small"]["seeds"] == [0, 1, 2]


def test_figure3_experiment_has_the_main_experiments_frcm_seeds_and_kmeans():
    """Same FRCM (method key, parameters), seeds and k-means as the main experiment: the same
    ensembles, rankings and k-means seeds; every consensus ranker reads FRCM's ensemble."""
    config = yaml.safe_load((ROOT / "config/experiments/zhang2012.yaml").read_text())
    for paper in ("zhang2012", "zhang2012-small"):
        roles = config["papers"][paper]["experiments"]
        main, consensus = (config["experiments"][roles[r]] for r in ("main", "consensus"))
        frcm = consensus["methods"]["frcm"]
        assert {k: frcm[k] for k in ("method", "params")} == main["methods"]["frcm"]
        assert consensus["seeds"] == main["seeds"]
        assert consensus["clusterers"] == main["clusterers"]
        assert set(consensus["datasets"]) <= set(main["datasets"])
        assert consensus["sweep"]["n_features"] == [{"fraction": 0.1}]
        variants = expand_grids(consensus["methods"])
        ranked = {k: v for k, v in variants.items() if k != "frcm"}
        assert all(v["params"]["ensemble"] == {"from": "frcm", "attribute": "ensemble"}
                   for v in ranked.values())
        names = zhang2012.consensus_variants(variants).values()
        assert sorted(set(names)) == sorted((n, k) for n in FIGURE3_ORDER for k in range(2, 11))
