"""No ranking of a shipped experiment is decided by ties: the top-m set at a sweep point must
not depend on round-off or on index order (scores within 1e-12 across the cut)."""

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from fsclust import steps
from fsclust.datasets import get_entry, load_catalog, prepare
from fsclust.rankers.base import tied_cuts
from fsclust.ranking import rank_features
from fsclust.steps.sweep import resolve_grid

ROOT = Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((ROOT / "config/config.yaml").read_text())
QUICK = CONFIG["experiments"]["quick"]


def test_tied_cuts_finds_cuts_inside_a_tie_and_ignores_constants():
    scores = np.array([5.0, 3.0, 3.0 + 1e-15, 1.0, 7.0])
    ranking = np.array([4, 0, 2, 1, 3])
    assert tied_cuts(scores, ranking, [1, 2, 3, 4, 5]) == [3]
    constant = np.array([False, False, False, True, True])
    assert tied_cuts([2.0, 1.0, 0.5, 0.0, 0.0], [0, 1, 2, 3, 4], [4], constant) == []


@pytest.mark.parametrize("dataset", QUICK["datasets"])
@pytest.mark.parametrize("method", sorted(QUICK["methods"]))
def test_no_ranking_of_the_quick_experiment_is_decided_by_a_tie(dataset, method):
    ds = prepare(get_entry(load_catalog(ROOT / "config/datasets.tsv"), dataset))
    spec = QUICK["methods"][method]
    ranker = rank_features(ds.X, spec["method"], spec.get("params"), n_clusters=ds.n_classes)
    grid = resolve_grid(QUICK["sweep"]["n_features"], ds.X.shape[1])
    assert tied_cuts(ranker.scores_, ranker.feature_order_, grid, ranker.constant_mask_) == []


def test_evaluate_records_tie_decided_cuts(tmp_path):
    """The variance of z-scored data (the old quick experiment) is the case in point."""
    from fsclust.datasets import save_dataset

    ds = prepare(get_entry(load_catalog(ROOT / "config/datasets.tsv"), "wine"))
    save_dataset(ds, tmp_path / "wine.npz")
    steps.evaluate(str(tmp_path / "wine.npz"), str(tmp_path / "sweep.tsv"), dataset="wine",
                   methods={"variance": {"method": "variance"}},
                   rankings_dir=str(tmp_path / "rankings"), seeds=[0],
                   clusterers={"kmeans": {"method": "kmeans", "params": {"n_init": 1}}},
                   grid_spec=[1, 2, 4], metrics=["acc"])
    info = json.loads((tmp_path / "rankings" / "seed0.json").read_text())
    assert info["tied_cuts"] == [1, 2, 4]
