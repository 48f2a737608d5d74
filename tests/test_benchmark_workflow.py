"""Issue 27's cross-dataset benchmark: its config covers the registry, a method that is too slow,
fails or ties every score is recorded instead of failing its job, and `benchmark-small` runs end
to end into the tables of the report (byte-identical whatever --cores)."""

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.datasets import make_blobs

from fsclust import registry, steps
from fsclust.datasets import Dataset, save_dataset
from fsclust.rankers.base import FeatureRanker

from _workflow import REPO, copy_workflow

CONFIG = REPO / "config/experiments/benchmark.yaml"
CLUSTERERS = {"kmeans": {"method": "kmeans", "params": {"n_init": 2}}}
GRID = [{"fraction": 0.25}, {"fraction": 0.5}]


def _benchmark():
    return yaml.safe_load(CONFIG.read_text())["experiments"]["benchmark"]


def test_config_names_every_registered_method_at_its_defaults():
    exp = _benchmark()
    excluded = exp["excluded_methods"]
    named = {spec["method"] for spec in exp["methods"].values()}
    assert named | set(excluded) >= set(registry.method_names_by_role("method"))
    assert not named & set(excluded)
    assert all(reason.strip() for reason in excluded.values())
    # no hyper-parameter chosen with the labels: every method at its class's defaults
    assert all(not spec.get("params") for spec in exp["methods"].values())
    assert "random" in named and exp["all_features"] is True


def test_config_sweeps_fractions_of_d_and_records_the_families():
    exp = _benchmark()
    assert [point["fraction"] for point in exp["sweep"]["n_features"]] == [
        0.01, 0.02, 0.05, 0.1, 0.2, 0.5]
    assert set(exp["families"]) == {"expression", "image"}
    family_sets = [set(v) for v in exp["families"].values()]
    assert set.union(*family_sets) == set(exp["datasets"])
    assert not set.intersection(*family_sets)
    assert len(exp["seeds"]) == 10 and exp["time_limit_s"] > 0


# --- the time limit: a tiny test-only ranker that sleeps, raises or ties ------------------

class _TestRanker(FeatureRanker):
    """Scores the column index (ascending: a ranking decided by nothing random); ``behaviour``
    "sleep" sleeps first, "raise" raises, "tie" scores every feature 1."""

    def __init__(self, behaviour="ok", n_clusters=None, n_features_to_select=None):
        self.behaviour = behaviour
        self.n_clusters = n_clusters
        self.n_features_to_select = n_features_to_select

    def _score(self, X, rng):
        if self.behaviour == "sleep":
            time.sleep(30)
        if self.behaviour == "raise":
            raise FloatingPointError("the test ranker's deliberate failure")
        if self.behaviour == "tie":
            return np.ones(X.shape[1])
        return np.arange(X.shape[1], 0, -1, dtype=float)


@pytest.fixture
def test_ranker(monkeypatch):
    # the forked child of a fit under a time limit inherits the patched registry
    monkeypatch.setitem(registry.RANKERS, "test_ranker",
                        registry.Entry(f"{__name__}:_TestRanker"))
    return "test_ranker"


@pytest.fixture
def blobs(tmp_path):
    X, y = make_blobs(n_samples=40, centers=2, n_features=4, random_state=0)
    path = tmp_path / "blobs.npz"
    save_dataset(Dataset(X=X, y=y, feature_names=[f"f{j}" for j in range(4)],
                         sample_names=[f"s{i}" for i in range(40)], class_names=["a", "b"]),
                 path)
    return path


def _evaluate(data, out, methods, time_limit_s):
    steps.evaluate(str(data), str(out / "sweep.tsv"), dataset="blobs", methods=methods,
                   rankings_dir=str(out / "rankings"), seeds=[0, 1], clusterers=CLUSTERERS,
                   grid_spec=GRID, metrics=["acc", "nmi"], nested=True,
                   time_limit_s=time_limit_s)
    return pd.read_csv(out / "sweep.tsv", sep="\t")


def test_slow_failing_and_tied_fits_are_recorded_and_the_job_succeeds(blobs, tmp_path,
                                                                     test_ranker):
    methods = {behaviour: {"method": test_ranker, "params": {"behaviour": behaviour}}
               for behaviour in ("ok", "sleep", "raise", "tie")}
    start = time.perf_counter()
    sweep = _evaluate(blobs, tmp_path, methods, time_limit_s=2)
    # the 30 s sleep was stopped at the limit, and not tried again at the second seed
    assert time.perf_counter() - start < 20
    status = sweep.groupby("method")["status"].unique().map(list).to_dict()
    assert status == {"ok": ["ok"], "sleep": ["timeout"], "raise": ["failed"],
                      "tie": ["degenerate"]}
    # every method has its rows (both seeds, both fractions), the failures with no metrics
    assert (sweep.groupby("method").size() == 4).all()
    failed = sweep["status"] != "ok"
    assert sweep.loc[failed, ["acc", "nmi"]].isna().all().all()
    assert sweep.loc[~failed, ["acc", "nmi"]].notna().all().all()
    sidecars = {m: json.loads((tmp_path / "rankings" / m / "seed1.json").read_text())
                for m in methods}
    assert {m: info["status"] for m, info in sidecars.items()} == {
        "ok": "ok", "sleep": "timeout", "raise": "failed", "tie": "degenerate"}
    assert "deliberate failure" in sidecars["raise"]["message"]
    assert "time limit" in sidecars["sleep"]["message"]


def test_a_fit_under_the_limit_gives_the_same_sweep_as_in_process(blobs, tmp_path):
    methods = {"laplacian": {"method": "laplacian"}, "random": {"method": "random"}}
    within = _evaluate(blobs, tmp_path / "within", methods, time_limit_s=60)
    plain = _evaluate(blobs, tmp_path / "plain", methods, time_limit_s=None)
    assert "status" not in plain and (within["status"] == "ok").all()
    pd.testing.assert_frame_equal(within.drop(columns="status"), plain)
    for method in methods:
        for seed in (0, 1):
            name = f"{method}/seed{seed}.tsv"
            assert ((tmp_path / "within/rankings" / name).read_bytes()
                    == (tmp_path / "plain/rankings" / name).read_bytes())
