"""Jiang & Ren 2011 on the paper layer: the claims are judged on the curves they name, a
skipped dataset is said, and the paper block's schema."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from fsclust.papers import jiang2011
from fsclust.report.paper import PAPER_VS_OURS_COLUMNS
from _workflow import copy_workflow, snakemake_in_process  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIGURES = {"fig2": {"laplacian": "L", "clusterer": "spectral-l", "evsfsc": "evsfsc-l"},
           "fig4": {"laplacian": "L_sym", "clusterer": "spectral-sym", "evsfsc": "evsfsc-sym"}}
BASELINES = ["fsfs", "laplacian", "spec", "mcfs"]


def _summary(levels, dataset="skfeature-tox-171", d=3000, grid=(100, 200, 300, 1500)):
    """A summary whose curve of each (method, clusterer) is flat at ``levels[method]``, except
    EVSFSC, which peaks at m = 200."""
    rows = []
    for clusterer, ev in (("spectral-l", "evsfsc-l"), ("spectral-sym", "evsfsc-sym")):
        for method, level in {**levels, ev: levels["evsfsc"]}.items():
            if method == "evsfsc":
                continue
            for m in grid:
                bump = 0.05 if (method == ev and m == 200) else 0.0
                rows.append({"dataset": dataset, "method": method, "clusterer": clusterer,
                             "n_features": m, "metric": "acc", "mean": level + bump,
                             "sd": 0.01, "n_runs": 10})
        rows.append({"dataset": dataset, "method": "all-features", "clusterer": clusterer,
                     "n_features": d, "metric": "acc", "mean": 0.5, "sd": 0.0, "n_runs": 10})
    return pd.DataFrame(rows)


def test_evsfsc_best_holds_only_when_its_mean_over_the_sweep_is_highest():
    good = _summary({"fsfs": 0.5, "laplacian": 0.55, "spec": 0.4, "mcfs": 0.6, "evsfsc": 0.7})
    table = jiang2011.claims_table(good, FIGURES, ["skfeature-tox-171"], BASELINES)
    assert list(table.columns) == PAPER_VS_OURS_COLUMNS
    notes = dict(zip(table["method"], table["note"]))
    assert notes["EVSFSC (L) best"].startswith("holds: yes")
    assert notes["EVSFSC (L_sym) best"].startswith("holds: yes")
    # TOX with L: mean over m < 1000 of (0.7, 0.75, 0.7) > 0.6
    under = table[table["method"] == "EVSFSC (L) under 1000 features"].iloc[0]
    assert under["note"].startswith("holds: yes")
    assert under["ours_value"] == pytest.approx((0.7 + 0.75 + 0.7) / 3)
    bad = _summary({"fsfs": 0.5, "laplacian": 0.55, "spec": 0.4, "mcfs": 0.8, "evsfsc": 0.58})
    notes = dict(zip(*jiang2011.claims_table(bad, FIGURES, ["skfeature-tox-171"],
                                             BASELINES)[["method", "note"]].T.values))
    assert notes["EVSFSC (L) best"].startswith("holds: no")
    assert notes["EVSFSC (L) under 1000 features"].startswith("holds: no")


def test_orl_and_pix_with_lsym_check_the_catch_up_and_a_few_hundred_features_elsewhere():
    summary = _summary({"fsfs": 0.5, "laplacian": 0.55, "spec": 0.4, "mcfs": 0.8,
                        "evsfsc": 0.7}, dataset="skfeature-orlraws10p")
    table = jiang2011.claims_table(summary, FIGURES, ["skfeature-orlraws10p"], BASELINES)
    notes = dict(zip(table["method"], table["note"]))
    assert "EVSFSC (L_sym) best" not in notes
    assert notes["FSFS/MCFS catch up with EVSFSC (L_sym)"].startswith("holds: yes")
    ar = _summary({"fsfs": 0.5, "laplacian": 0.55, "spec": 0.4, "mcfs": 0.6, "evsfsc": 0.7},
                  dataset="skfeature-warpar10p")
    table = jiang2011.claims_table(ar, FIGURES, ["skfeature-warpar10p"], BASELINES)
    row = table[table["method"] == "EVSFSC (L) best with a few hundred features"].iloc[0]
    assert row["ours_value"] == 200 and row["note"].startswith("holds: yes")


def test_a_skipped_dataset_is_a_row_that_says_so():
    summary = _summary({"fsfs": 0.5, "laplacian": 0.55, "spec": 0.4, "mcfs": 0.6,
                        "evsfsc": 0.7})
    table = jiang2011.claims_table(summary, FIGURES, ["skfeature-tox-171"], BASELINES,
                                   skipped={"skfeature-cll-sub-111": "download-only"})
    last = table.iloc[-1]
    assert last["dataset"] == "CLL-SUB-111" and "skipped" in last["note"]
    assert np.isnan(last["ours_value"])


def test_schema_accepts_the_config_blocks_and_the_experiment_matches_them():
    from snakemake.utils import validate

    config = yaml.safe_load((ROOT / "config/experiments/jiang2011.yaml").read_text())
    schema = str(ROOT / "workflow/schemas/papers/jiang2011.schema.yaml")
    for name in ("jiang2011", "jiang2011-small"):
        block = config["papers"][name]
        validate(dict(block), schema=schema)
        exp = config["experiments"][block["experiments"]["main"]]
        for spec in block["figures"].values():
            method = exp["methods"][spec["evsfsc"]]
            assert method["method"] == "evsfsc"
            assert method["clusterers"] == [spec["clusterer"]]
        assert set(block["baselines"]) <= set(exp["methods"])
        assert set(block["datasets"]) <= set(exp["datasets"])
    laplacians = {spec["evsfsc"]: config["experiments"]["jiang2011"]["methods"][spec["evsfsc"]]
                  ["params"]["laplacian"] for spec in config["papers"]["jiang2011"]["figures"]
                  .values()}
    assert laplacians == {"evsfsc-l": "unnormalized", "evsfsc-rw": "rw", "evsfsc-sym": "sym"}
    with pytest.raises(Exception):
        validate(dict(config["papers"]["jiang2011"], figure={}), schema=schema)


@pytest.mark.workflow
def test_paper_target_runs_end_to_end(tmp_path, mirror):
    """`snakemake jiang2011-small` (warpAR10P, TOX-171 from the mirror): the three figures,
    claims appended to paper_vs_ours.tsv, EVSFSC evaluated only by its own clustering, FSFS
    clustered on subsets of exactly m features."""
    import json

    work = tmp_path / "wf"
    work.mkdir()
    copy_workflow(work)
    # in this process (its jobs are processes of their own; a subprocess: ~2 s of CPU more)
    proc = snakemake_in_process(work, "--cores", "2", "jiang2011-small", "--config",
                                f"mirror={mirror}")
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = work / "results/jiang2011-small"
    for name in ("fig2_L.png", "fig3_Lrw.png", "fig4_Lsym.png"):
        assert (results / "paper" / name).stat().st_size > 0
    sweeps = pd.read_csv(results / "tables/sweeps.tsv", sep="\t")
    for method, clusterer in (("evsfsc-l", "spectral-l"), ("evsfsc-rw", "spectral-rw"),
                              ("evsfsc-sym", "spectral-sym")):
        assert set(sweeps.loc[sweeps["method"] == method, "clusterer"]) == {clusterer}
    assert set(sweeps.loc[sweeps["method"] == "fsfs", "clusterer"]) == {
        "spectral-l", "spectral-rw", "spectral-sym"}
    info = json.loads((results / "rankings/skfeature-tox-171/fsfs/seed0.json").read_text())
    for m in (100, 200, 400):
        assert len(set(info["subsets"][str(m)])) == m
    claims = pd.read_csv(results / "paper/claims.tsv", sep="\t")
    combined = pd.read_csv(results / "paper_vs_ours.tsv", sep="\t")
    assert combined["note"].tolist()[-len(claims):] == claims["note"].tolist()


@pytest.mark.parametrize(("dataset", "best_acc"), [("skfeature-orlraws10p", 0.45),
                                                   ("skfeature-tox-171", 0.30)])
@pytest.mark.slow  # the paper's data
def test_unnormalized_spectral_clustering_isolates_samples_at_every_bandwidth(dataset, best_acc):
    """Why the paper's Fig. 2 (USC, L) cannot be reproduced: on all features, for every
    bandwidth from 1/16 to 64 times the experiment's t = 2 median(d)^2, USC puts most samples
    in one cluster and several alone (von Luxburg 2007, Sec. 8.5: the smallest eigenvectors of
    L localise on low-degree samples), so its ACC stays far below the paper's "generally above
    0.6"; NSC-rw on the same graph splits the data (ORL: ACC 0.78)."""
    from _mirror import HAS_MIRROR, MIRROR, SKIP_REASON
    from fsclust.datasets import get_entry, load_catalog, prepare
    from fsclust.graphs import bandwidth, squared_distances
    from fsclust.metrics import clustering_accuracy
    from fsclust.registry import make_clusterer

    if not HAS_MIRROR:
        pytest.skip(SKIP_REASON)
    entry = get_entry(load_catalog(ROOT / "config" / "datasets.tsv"), dataset)
    ds = prepare(entry, [MIRROR / f for f in entry.files])
    k = len(np.unique(ds.y))
    t0 = bandwidth(squared_distances(ds.X), "jiang2011")
    for scale in (1 / 16, 1 / 4, 1, 4, 16, 64):
        usc = make_clusterer("spectral-unnormalized", {"t": t0 * scale}, n_clusters=k,
                             random_state=0).fit(ds.X)
        sizes = np.bincount(usc.labels_, minlength=k)
        assert sizes.max() >= 0.5 * len(ds.y) and (sizes == 1).sum() >= 1, (scale, sizes)
        assert clustering_accuracy(ds.y, usc.labels_) < best_acc < 0.6
    rw = make_clusterer("spectral-rw", {"t": t0}, n_clusters=k, random_state=0).fit(ds.X)
    assert np.bincount(rw.labels_).max() < 0.5 * len(ds.y)
