"""The Zeng & Cheung 2008 report: claims are checked on the numbers given, tables and figures."""

import json

import numpy as np
import pandas as pd
import pytest

from fsclust.papers import zeng2008


def _summary(integrated, nofs, wrank, laprank, dataset="monti-lung-substitute", d=100):
    rows = []
    for metric in ("acc", "nmi"):
        rows += [dict(dataset=dataset, method="integrated", clusterer="kmeans-on-L",
                      n_features=d, metric=metric, mean=integrated, sd=0.01, n_runs=10),
                 dict(dataset=dataset, method="all-features", clusterer="ncut", n_features=d,
                      metric=metric, mean=nofs, sd=0.02, n_runs=10)]
        for m, (w, lap) in zip((10, 50, d), zip(wrank, laprank)):
            rows += [dict(dataset=dataset, method="wrank", clusterer="ncut", n_features=m,
                          metric=metric, mean=w, sd=0.0, n_runs=10),
                     dict(dataset=dataset, method="laprank", clusterer="ncut", n_features=m,
                          metric=metric, mean=lap, sd=0.0, n_runs=10)]
    return pd.DataFrame(rows)


def _runs(n_iter, dataset="monti-lung-substitute"):
    return pd.DataFrame({"dataset": dataset, "seed": range(len(n_iter)), "n_iter": n_iter,
                         "seconds": 1.0, "n_features": 100})


def _holds(table, method, metric="ACC"):
    row = table[(table["method"] == method) & (table["metric"] == metric)]
    assert len(row) == 1
    return row["note"].iloc[0].split(";")[0] == "holds: yes"


def test_claims_follow_the_numbers():
    # nofs at d equals wrank/laprank at d: the sweep mean excludes m = d
    table = zeng2008.claims_table(_summary(0.7, 0.6, (0.9, 0.8, 0.6), (0.5, 0.55, 0.6)),
                                  _runs([3, 4, 4, 5]))
    assert list(table.columns) == zeng2008.PAPER_VS_OURS_COLUMNS
    assert _holds(table, "integrated vs nofs+Ncut")
    assert _holds(table, "wrank+Ncut vs laprank+Ncut")
    assert _holds(table, "laprank+Ncut vs nofs+Ncut")
    assert _holds(table, "best wrank+Ncut vs integrated")
    assert _holds(table, "integrated", "iterations_upper_bound")
    assert _holds(table, "integrated", "iterations_typical")  # median 4
    wr = table[(table["method"] == "wrank+Ncut vs laprank+Ncut") & (table["metric"] == "ACC")]
    assert wr["ours_value"].iloc[0] == np.mean([0.9, 0.8])

    table = zeng2008.claims_table(_summary(0.5, 0.6, (0.4, 0.45, 0.6), (0.7, 0.7, 0.6)),
                                  _runs([12, 6, 6]))
    for method in ("integrated vs nofs+Ncut", "wrank+Ncut vs laprank+Ncut",
                   "laprank+Ncut vs nofs+Ncut"):
        assert not _holds(table, method)
    assert not _holds(table, "integrated", "iterations_upper_bound")
    assert not _holds(table, "integrated", "iterations_typical")


def test_collect_tables_and_figures(tmp_path):
    summary = _summary(0.7, 0.6, (0.9, 0.8, 0.6), (0.5, 0.55, 0.6)).query("method != 'integrated'")
    summary.to_csv(tmp_path / "s.tsv", sep="\t", index=False)
    sidecars = []
    for seed, acc in enumerate((0.6, 0.8)):
        path = tmp_path / f"seed{seed}.json"
        path.write_text(json.dumps({
            "dataset": "monti-lung-substitute", "seed": seed, "n_samples": 20, "n_features": 100,
            "n_iter": 3 + seed, "objective_history": [1.0, 1.1], "seconds": 0.5,
            "labels_metrics": {"acc": acc, "nmi": acc / 2, "ari": 0.1}}))
        sidecars.append(path)
    out = {k: tmp_path / f"{k}.tsv" for k in ("summary", "runs", "best", "iter")}
    zeng2008.collect([tmp_path / "s.tsv"], sidecars, ["acc", "nmi", "ari"], out["summary"],
                     out["runs"])
    merged = pd.read_csv(out["summary"], sep="\t")
    integ = merged[(merged["method"] == "integrated") & (merged["metric"] == "acc")]
    assert integ["mean"].iloc[0] == 0.7 and integ["n_runs"].iloc[0] == 2
    zeng2008.tables(out["summary"], out["runs"], out["best"], tmp_path / "b.md", out["iter"],
                    tmp_path / "i.md")
    iters = pd.read_csv(out["iter"], sep="\t")
    assert (iters["min"].iloc[0], iters["max"].iloc[0]) == (3, 4)
    zeng2008.figures(out["summary"], tmp_path / "f2.png", tmp_path / "f3.png")
    assert (tmp_path / "f3.png").stat().st_size > 0


def test_variant_rows_are_marked_and_table1_rows_compare_sizes():
    summary = pd.concat([_summary(0.7, 0.6, (0.9, 0.8, 0.6), (0.5, 0.55, 0.6), dataset=ds,
                                  d=1280) for ds in ("pie-c27-dataset-norm", "pie-c27")])
    runs = pd.concat([_runs([3, 4], dataset=ds) for ds in ("pie-c27-dataset-norm", "pie-c27")])
    runs["n_samples"], runs["n_features"], runs["n_classes"] = 105, 1280, 5
    table = zeng2008.claims_table(summary, runs, variants={"pie-c27": "per-image normaliser"})
    variant = table["note"].str.startswith("variant: per-image normaliser; ")
    # every row of the variant dataset is marked, none of the primary one
    assert variant.sum() == (~variant).sum() > 0
    assert table.loc[variant, "note"].str.contains("holds: yes|dataset summary").all()
    t1 = table[(table["table_or_figure"] == "Table 1") & ~variant]
    assert t1.set_index("metric")["paper_value"].to_dict() == {
        "n_instances": 105, "n_features": 1280, "n_classes": 5}
    assert (t1["diff"] == 0).all()
    # a substitute says so and shows its difference in size from the paper's Table 1
    lung = _runs([4, 4])
    lung["n_samples"], lung["n_features"], lung["n_classes"] = 197, 1543, 4
    rows = zeng2008.table1_rows(lung)
    feats = [r for r in rows if r["metric"] == "n_features"][0]
    assert feats["diff"] == 543 and feats["note"].startswith("substitute dataset; ")


def _config():
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parents[1]
    return yaml.safe_load((root / "config/experiments/zeng2008.yaml").read_text())


def _two_far_groups(seed=0):
    """Two tight, far apart groups in 300 dimensions: at t = 0.0025 max d^2 no affinity
    reaches 1e-6; the groups are still two components of the graph (eigen-gap after c = 2)."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(0, 1, (10, 300)), rng.normal(3, 1, (10, 300))])
    return X, np.repeat([0, 1], 10)


def test_ncut_diagnostics_describe_the_graph_and_change_no_partition():
    """``compute_diagnostics`` adds the graph's spectrum and the cluster sizes beside the cut
    (reported through the tag only then); the partition is the one without them."""
    from fsclust.cluster import NormalizedCut
    from fsclust.cluster.ncut import ncut_spectrum
    from fsclust.cluster.tags import reported_attributes
    from fsclust.graphs import heat_affinity, squared_distances

    X, _ = _two_far_groups()
    W, t = heat_affinity(squared_distances(X), t_rule="zeng2008", return_bandwidth=True)
    np.fill_diagonal(W, 0.0)
    for params in ({}, {"discretization": "ncutW", "offset": 0.5, "min_affinity": 1e-6}):
        plain = NormalizedCut(2, t_rule="zeng2008", random_state=0, **params).fit(X)
        model = NormalizedCut(2, t_rule="zeng2008", random_state=0, compute_diagnostics=True,
                              **params).fit(X)
        assert np.array_equal(model.labels_, plain.labels_)
        assert reported_attributes(plain) == () and "spectrum_" in reported_attributes(model)
        assert not hasattr(plain, "spectrum_")
        # the graph before the toolbox's sparsification, whatever the reading
        assert model.t_ == t and model.max_affinity_ == W.max() < 1e-6
        assert model.n_samples_without_affinity_ == 20
        assert np.array_equal(model.spectrum_, ncut_spectrum(W, 3))
        assert model.cluster_sizes_.sum() == 20
        assert list(model.cluster_sizes_) == sorted(model.cluster_sizes_, reverse=True)


def test_ncut_graph_table_shows_a_disconnected_graph(tmp_path):
    """The table from the evaluate step's rows, with the experiment's declared readings."""
    from fsclust import steps
    from fsclust.datasets.store import Dataset, save_dataset

    X, y = _two_far_groups()
    path = tmp_path / "monti-leukemia.npz"
    save_dataset(Dataset(X=X, y=y, feature_names=[f"g{j}" for j in range(300)],
                         sample_names=[f"s{i}" for i in range(20)]), path)
    config = _config()
    block = config["papers"]["zeng2008"]
    experiment = config["experiments"][block["experiments"]["ncut_graph"]]
    steps.evaluate(path, tmp_path / "sweep.tsv", dataset="monti-leukemia", methods={},
                   rankings_dir=None, seeds=experiment["seeds"],
                   clusterers=experiment["clusterers"], grid_spec="all",
                   metrics=experiment["metrics"], baseline=True)
    readings = block["ncut_readings"]
    table = zeng2008.ncut_graph_table(pd.read_csv(tmp_path / "sweep.tsv", sep="\t"), readings)
    assert list(table["ncut"]) == list(readings.values())
    assert (table["samples_without_affinity_1e-6"] == 20).all()
    assert (table["dataset"] == "LEUKEMIA").all()
    assert (table["n_samples"] == 20).all() and (table["n_classes"] == 2).all()
    shi = table[table["ncut"].str.startswith("Shi ncutW")].iloc[0]
    # Shi's code sees an empty graph: one cluster holds (almost) every sample
    assert shi["cluster_sizes"] in ("20", "19 + 1") and shi["largest_cluster_share"] >= 0.95
    one_minus = np.array([float(v) for v in table["one_minus_eigenvalues"].iloc[0].split(",")])
    assert len(one_minus) == 3 and np.allclose(one_minus[:2], 0, atol=1e-6)
    assert table["eigen_gap"].iloc[0] == pytest.approx(one_minus[2] - one_minus[1], abs=1e-3)
    # our Ncut cuts the tiny weights; Shi's code, having dropped them, cannot
    ours = table[table["ncut"].str.startswith("ours")].iloc[0]
    assert ours["acc"] == 1.0 and ours["cluster_sizes"] == "10 + 10"
    assert shi["acc"] < 1.0


def test_the_ncut_readings_are_the_curves_clusterer_and_shis_toolbox():
    config = _config()
    for name in ("zeng2008", "zeng2008-small"):
        block = config["papers"][name]
        graph = config["experiments"][block["experiments"]["ncut_graph"]]
        genes = config["experiments"][block["experiments"]["genes"]]
        assert graph["datasets"] == genes["datasets"] and graph["methods"] == {}
        assert list(graph["clusterers"]) == list(block["ncut_readings"])
        # our reading is the curves' clusterer, with the diagnostics and the table's one seed
        ours = graph["clusterers"]["ncut"]["params"]
        assert {k: v for k, v in ours.items() if k not in ("random_state", "compute_diagnostics")
                } == genes["clusterers"]["ncut"]["params"]
        assert all(c["params"]["compute_diagnostics"] for c in graph["clusterers"].values())


def test_schema_accepts_the_config_blocks_and_rejects_a_wrong_key():
    from pathlib import Path

    import yaml
    from snakemake.utils import validate

    root = Path(__file__).resolve().parents[1]
    schema = str(root / "workflow/schemas/papers/zeng2008.schema.yaml")
    config = yaml.safe_load((root / "config/experiments/zeng2008.yaml").read_text())
    for name in ("zeng2008", "zeng2008-small"):
        block = dict(config["papers"][name])
        validate(block, schema=schema)
        pie = config["experiments"][block["experiments"]["pie"]]
        # both readings of the wavelet normalisation run, the variant is one of them
        assert {"pie-c27", "pie-c27-dataset-norm"} <= set(pie["datasets"])
        assert set(block["variants"]) == {"pie-c27"}
    with pytest.raises(Exception):
        validate(dict(config["papers"]["zeng2008"], variants=["pie-c27"]), schema=schema)


@pytest.mark.workflow
def test_paper_target_runs_end_to_end(tmp_path, mirror):
    """`snakemake zeng2008-small` (both PIE readings, LEUKEMIA, 2 seeds) and the reproduction
    summary: figures, tables, the Ncut graph table and the paper-vs-ours rows, the per-image
    PIE rows marked as variants."""
    from _workflow import copy_workflow, snakemake_in_process

    work = tmp_path / "wf"
    work.mkdir()
    copy_workflow(work)
    # in this process (its jobs are processes of their own; a subprocess: ~2 s of CPU more)
    proc = snakemake_in_process(work, "--cores", "2", "zeng2008-small", "reproduction",
                                "--config", f"mirror={mirror}",
                                "reproduction={papers: [zeng2008-small], "
                                "target_papers: [zeng2008-small]}")
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = work / "results/zeng2008-small"
    for name in ("fig2_pie.png", "fig3_genes.png", "tables/best_mean.md",
                 "tables/iterations.md", "tables/ncut_graph.md"):
        assert (out / name).stat().st_size > 0
    table = pd.read_csv(out / "paper_vs_ours.tsv", sep="\t")
    assert list(table.columns) == zeng2008.PAPER_VS_OURS_COLUMNS
    variant = table["note"].str.startswith("variant: per-image")
    assert variant.any() and (table.loc[variant, "dataset"] == "PIEC27_5p").all()
    primary_pie = table[(table["dataset"] == "PIEC27_5p") & ~variant]
    assert {"Table 1", "Fig. 2"} <= set(primary_pie["table_or_figure"])
    ncut = pd.read_csv(out / "tables/ncut_graph.tsv", sep="\t")
    readings = _config()["papers"]["zeng2008-small"]["ncut_readings"]
    assert set(ncut["dataset"]) == {"LEUKEMIA"} and list(ncut["ncut"]) == list(readings.values())
    summary = pd.read_csv(work / "results/reproduction.tsv", sep="\t")
    mine = summary[summary["paper_key"] == "zeng2008-small"]
    assert len(mine) == len(table.drop_duplicates())
    marked = mine["note"].str.startswith("variant:")
    assert marked.sum() == variant.sum() > 0
    assert (mine.loc[marked, "status"] == "variant").all()
    assert (mine.loc[~marked, "status"] != "variant").all()
