"""Table 1 of Maldonado et al. 2015 from rank files (no method is run here)."""

import json

import pandas as pd
import pytest

from fsclust.report.maldonado2015 import _kp_settings, table1_runs

TOY_METHODS = {
    "kpkmeans": {"method": "kpkmeans", "params": {"init_features": "relevant"}},
    "kpkmeans_c_all": {"method": "kpkmeans", "params": {}},
    "pca": {"method": "pca"},
}


def _sidecar(path, selected):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"n_features_selected": len(selected),
                                "selected_features": selected}))


def _ranking(path, order):
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"rank": range(1, len(order) + 1), "index": order}).to_csv(
        path, sep="\t", index=False)


def test_table1_counts_relevant_features_at_the_n_of_kpkmeans(tmp_path):
    toy = tmp_path / "toy" / "zp-toy1-10u"
    _sidecar(toy / "kpkmeans" / "seed0.json", [1, 0, 7])          # both relevant, n = 3
    _sidecar(toy / "kpkmeans_c_all" / "seed0.json", [5])          # none, its own n = 1
    _ranking(toy / "pca" / "seed0.tsv", [4, 0, 9, 1, 2])          # top 3 holds feature 0 only
    _ranking(tmp_path / "mcfs_at_n" / "zp-toy1-10u" / "seed0.tsv", [3, 4, 5, 0, 1])
    runs = table1_runs(str(tmp_path), ["zp-toy1-10u"], [0], TOY_METHODS).set_index("method")
    assert runs.loc["kpkmeans", ["n", "relevant"]].tolist() == [3, 2]
    assert runs.loc["kpkmeans_c_all", ["n", "relevant"]].tolist() == [1, 0]
    assert runs.loc["pca", ["n", "relevant"]].tolist() == [3, 1]
    assert runs.loc["mcfs", ["n", "relevant"]].tolist() == [3, 0]


@pytest.mark.parametrize(("params", "text"), [
    ({"lam": 0.5, "gamma": 1.0}, "lambda = 2^-1, gamma = 1"),
    ({"lam": 0.25, "step": "normalized", "max_step": 0.05},
     "lambda = 2^-2, normalised step (at most 0.05 per factor)"),
])
def test_kp_settings_describe_the_step_actually_used(params, text):
    assert _kp_settings(params) == text
