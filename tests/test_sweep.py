import numpy as np
import pytest
from sklearn.datasets import make_blobs

from fsclust.sweep import resolve_grid, run_sweep


def test_grid_is_sorted_unique_clipped_and_ends_with_all_features():
    assert resolve_grid([8, 2, 2, 100], 10) == [2, 8, 10]
    assert resolve_grid("all", 4) == [1, 2, 3, 4]
    assert resolve_grid({"start": 5, "step": 5}, 12) == [5, 10, 12]


def test_grid_rejects_bad_specs():
    with pytest.raises(ValueError, match="'every'"):
        resolve_grid("every", 4)
    with pytest.raises(ValueError, match=">= 1"):
        resolve_grid([0, 2], 4)


def _blobs_with_noise(seed=0):
    X, y = make_blobs(n_samples=90, centers=3, n_features=2, cluster_std=0.3,
                      center_box=(-10, 10), random_state=seed)
    noise = np.random.default_rng(seed).normal(size=(90, 6)) * 3
    return np.hstack([X, noise]), y


def test_sweep_on_relevant_features_first_recovers_the_clusters():
    X, y = _blobs_with_noise()
    out = run_sweep(X, y, np.arange(8), [1, 2, 8], {"c": {"method": "kmeans"}}, n_clusters=3,
                    random_states={"c": 0})
    assert out["n_features"].tolist() == [1, 2, 8]
    assert out.loc[out["n_features"] == 2, "acc"].item() == 1.0
    assert set(out.columns) == {"clusterer", "n_features", "acc", "nmi", "ari"}
    assert ((out[["acc", "nmi"]] >= 0) & (out[["acc", "nmi"]] <= 1)).all().all()


def test_sweep_uses_the_ranking_order():
    # The irrelevant features ranked first: with 2 of them the clusters are not found.
    X, y = _blobs_with_noise()
    order = np.r_[2:8, 0, 1]
    out = run_sweep(X, y, order, [2], {"c": {"method": "kmeans"}}, n_clusters=3,
                    random_states={"c": 0})
    assert out["acc"].item() < 0.8


def test_sweep_is_deterministic_for_a_seed():
    X, y = _blobs_with_noise()
    a = run_sweep(X, y, np.arange(8), [2, 5], {"c": {"method": "ncut"}}, n_clusters=3,
                    random_states={"c": 3})
    b = run_sweep(X, y, np.arange(8), [2, 5], {"c": {"method": "ncut"}}, n_clusters=3,
                    random_states={"c": 3})
    assert a.equals(b)


@pytest.mark.parametrize("clusterer", ["kmeans", "ncut"])
def test_all_features_of_any_ranking_give_the_all_features_partition(clusterer):
    # top-d of a ranking is the feature set of the nofs baseline: same result, bit for bit
    X, y = _blobs_with_noise(1)
    reversed_ranking = np.arange(8)[::-1]
    a = run_sweep(X, y, reversed_ranking, [8], {"c": {"method": clusterer}}, n_clusters=3,
                    random_states={"c": 5})
    b = run_sweep(X, y, np.arange(8), [8], {"c": {"method": clusterer}}, n_clusters=3,
                    random_states={"c": 5})
    assert a.equals(b)
