"""No ranking of a shipped experiment is decided by ties: the top-m set at a sweep point must
not depend on round-off or on index order (scores within 1e-12 across the cut)."""

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from fsclust import steps
from fsclust.datasets import get_entry, load_catalog, prepare
from fsclust.rankers.base import all_scores_tied, constant_features, tied_cuts, tied_features
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


def test_tied_features_groups_chains_of_close_scores():
    tied, group = tied_features([1.0, 2.0, 1.0 + 1e-14, np.nan, np.nan, 3.0])
    assert tied.tolist() == [True, False, True, True, True, False]
    assert group[0] == group[2] and group[3] == group[4] and len(set(group)) == 4


@pytest.mark.parametrize("scores, constant, tied", [
    ([0.5, 0.5 + 1e-15, 0.5], None, True),
    ([0.5, 0.4, 0.5], None, False),
    ([0.5, 0.4, 0.5], [False, True, False], True),  # the constant feature is not ranked
    ([np.nan, np.nan, np.nan], None, True),  # NaN orders nothing
    ([0.0, 0.0], None, True),
    ([3.0], None, False),  # one ranked feature: nothing to order
])
def test_one_rule_says_every_score_is_tied_for_the_ranker_the_api_and_the_workflow(
        scores, constant, tied):
    """The ranker's warning, fsclust.select's warning and the workflow's "degenerate" status
    ask the same rule, so they never disagree about a ranking."""
    from types import SimpleNamespace

    import pandas as pd

    from fsclust import api
    from fsclust.steps.evaluation import degenerate_reason

    scores = np.asarray(scores, dtype=float)
    mask = np.zeros(scores.size, bool) if constant is None else np.asarray(constant)
    assert all_scores_tied(scores, mask) is tied
    ranker = SimpleNamespace(scores_=scores, constant_mask_=mask)
    assert (degenerate_reason("m", ranker) is not None) is tied
    ranked = scores[~mask]
    table = pd.DataFrame({"feature": [f"f{j}" for j in range(ranked.size)], "score": ranked,
                          "rank": np.arange(1, ranked.size + 1),
                          "selected": True})  # no tie crosses the top-m boundary
    _, degenerate = api.tie_warnings("m", table, np.zeros(ranked.size, bool))
    assert degenerate is tied


def test_one_constant_feature_rule_for_the_rankers_and_the_api():
    """A column whose range is round-off (1e-14 on values near 1) is constant to the rankers and
    to fsclust.select alike: ranked last, not scored."""
    from fsclust import api
    from fsclust.userdata import as_user_matrix

    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 4))
    X[:, 1] = 1.0 + 1e-14 * rng.random(12)
    X[:, 3] = 5.0
    expected = [False, True, False, True]
    assert constant_features(X).tolist() == expected
    assert api.constant_features(as_user_matrix(X)).tolist() == expected


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
