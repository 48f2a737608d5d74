"""Maldonado et al. 2015 (fsclust.papers.maldonado2015): Tables 1, 3, 4 from the files the
generic evaluate step writes (no method is run here), and the paper block's schema."""

import json
from pathlib import Path

import jsonschema
import pandas as pd
import pytest
import yaml

from fsclust.papers.maldonado2015 import _kp_settings, table1_runs, table3_runs, table4_runs

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow" / "schemas" / "papers" / "maldonado2015.schema.yaml"
CONFIG = REPO / "config" / "experiments" / "maldonado2015.yaml"

TOY_METHODS = {
    "kpkmeans": {"method": "kpkmeans", "params": {"init_features": "relevant"}},
    "kpkmeans_c_all": {"method": "kpkmeans", "params": {}},
    "pca": {"method": "pca"},
    "mcfs": {"method": "mcfs", "params": {"n_nonzero_coefs": {"selected_by": "kpkmeans"}}},
}


def _sidecar(path, selected, **extra):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"n_features_selected": len(selected),
                                "selected_features": selected, **extra}))
    return str(path)


def _ranking(path, order):
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"rank": range(1, len(order) + 1), "index": order}).to_csv(
        path, sep="\t", index=False)
    return str(path)


def test_table1_counts_relevant_features_at_the_n_of_kpkmeans(tmp_path):
    toy = tmp_path / "zp-toy1-10u"

    def rec(method, **paths):
        return {"dataset": "zp-toy1-10u", "method": method, "seed": 0, **paths}

    rankings = [
        rec("kpkmeans", sidecar=_sidecar(toy / "kpkmeans" / "seed0.json", [1, 0, 7])),  # n = 3
        rec("kpkmeans_c_all", sidecar=_sidecar(toy / "kpkmeans_c_all" / "seed0.json", [5])),
        rec("pca", ranking=_ranking(toy / "pca" / "seed0.tsv", [4, 0, 9, 1, 2])),  # feature 0
        rec("mcfs", ranking=_ranking(toy / "mcfs" / "seed0.tsv", [3, 4, 5, 0, 1])),  # none
    ]
    runs = table1_runs(rankings, TOY_METHODS)
    assert runs["method"].tolist() == list(TOY_METHODS)  # the experiment's column order
    runs = runs.set_index("method")
    assert runs.loc["kpkmeans", ["n", "relevant"]].tolist() == [3, 2]
    assert runs.loc["kpkmeans_c_all", ["n", "relevant"]].tolist() == [1, 0]  # its own n
    assert runs.loc["pca", ["n", "relevant"]].tolist() == [3, 1]
    assert runs.loc["mcfs", ["n", "relevant"]].tolist() == [3, 0]


def test_table3_reads_the_filters_at_the_n_kpkmeans_selected(tmp_path):
    kp = [{"dataset": "iris", "seed": 0,
           "sidecar": _sidecar(tmp_path / "seed0.json", [2, 3], labels_metrics={"acc": 0.9})}]
    sweeps = pd.DataFrame({
        "dataset": "iris", "seed": 0, "clusterer": "kernel_kmeans",
        "method": ["pca", "pca", "pca", "mcfs", "mcfs_at_n"],
        "n_features": [1, 2, 4, 2, 2],
        "acc": [0.5, 0.8, 0.7, 0.1, 0.6],
        "selected_by": ["", "kpkmeans", "", "", "kpkmeans"],
    })
    runs = table3_runs(kp, sweeps, {"pca": "pca", "mcfs": "mcfs_at_n"}, "kernel_kmeans")
    assert runs[["method", "n", "acc"]].values.tolist() == [
        ["kpkmeans", 2, 0.9], ["pca", 2, 0.8], ["mcfs", 2, 0.6]]
    with pytest.raises(ValueError, match="selected_by"):
        table3_runs(kp, sweeps, {"gha": "gha"}, "kernel_kmeans")


def test_table4_reads_the_exponents_from_lambda_and_gamma(tmp_path):
    runs = [{"method": "lam-5_gamma0", "lam": 0.03125, "gamma": 1.0, "seed": 0,
             "sidecar": _sidecar(tmp_path / "seed0.json", [1], labels_metrics={"acc": 0.5},
                                 seconds=1.0)}]
    table = table4_runs(runs)
    assert table[["lam_exp", "gamma_exp", "n"]].values.tolist() == [[-5, 0, 1]]
    with pytest.raises(ValueError, match="powers of two"):
        table4_runs([{**runs[0], "lam": 0.3}])


@pytest.mark.parametrize(("params", "text"), [
    ({"lam": 0.5, "gamma": 1.0}, "lambda = 2^-1, gamma = 1"),
    ({"lam": 0.25, "step": "normalized", "max_step": 0.05},
     "lambda = 2^-2, normalised step (at most 0.05 per factor)"),
])
def test_kp_settings_describe_the_step_actually_used(params, text):
    assert _kp_settings(params) == text


def _paper_blocks():
    return yaml.safe_load(CONFIG.read_text())["papers"]


def test_paper_blocks_of_the_config_pass_the_schema():
    schema = yaml.safe_load(SCHEMA.read_text())
    blocks = _paper_blocks()
    assert {"maldonado2015", "maldonado2015-small"} <= set(blocks)
    for block in blocks.values():
        jsonschema.validate(block, schema)


@pytest.mark.parametrize("change", [
    lambda b: b.update(toy_datasets=["zp-toy1-10u"]),  # a key of the old free-form block
    lambda b: b["table4"].update(grid="sweeps"),
    lambda b: b["table3"]["filters"].update(lasso="mcfs"),
    lambda b: b["experiments"].pop("table4"),
])
def test_paper_schema_rejects_a_wrong_key(change):
    schema = yaml.safe_load(SCHEMA.read_text())
    block = _paper_blocks()["maldonado2015"]
    change(block)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(block, schema)
