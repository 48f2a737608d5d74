import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_blobs

from fsclust.graphs import squared_distances
from fsclust.metrics import adjusted_rand
from fsclust.steps.sweep import accumulated_sq_distances, resolve_grid, run_sweep, sweep_labels


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


# --- reuse of the squared distances along the ranking ------------------------------------------


def test_accumulated_squared_distances_equal_the_direct_ones_to_round_off():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(70, 45)) * rng.uniform(0.1, 10.0, size=45) + rng.normal(size=45) * 5
    ranking = rng.permutation(45)
    grid = [1, 2, 5, 11, 20, 33, 45]
    seen = []
    for m, D2 in accumulated_sq_distances(X, ranking, grid):
        direct = squared_distances(X[:, np.sort(ranking[:m])])
        np.testing.assert_allclose(D2, direct, rtol=0, atol=1e-12 * direct.max())
        np.testing.assert_array_equal(D2, D2.T)
        assert not D2.diagonal().any()
        seen.append(m)
    assert seen == grid


def _separated_blobs(seed=0, n_features=12):
    # every feature separates the clusters: no feature subset leaves a tie to round-off
    X, y = make_blobs(n_samples=90, centers=3, n_features=n_features, cluster_std=0.4,
                      center_box=(-10, 10), random_state=seed)
    return X, y


REUSED = {
    "ncut": {"method": "ncut", "params": {"t_rule": "zeng2008", "offset": 0.0}},
    "njw": {"method": "njw"},
    "spectral-rw": {"method": "spectral-rw", "params": {"t_rule": "cai"}},
    "kernel_kmeans": {"method": "kernel_kmeans",
                      "params": {"sigma": 1.0, "scale": "zscore-sqrt-d", "n_init": 5}},
}


@pytest.mark.parametrize("key", sorted(REUSED))
def test_reuse_gives_the_partitions_of_the_plain_path(key):
    X, y = _separated_blobs()
    ranking = np.random.default_rng(3).permutation(X.shape[1])
    grid = [2, 3, 5, 8, 12]
    kwargs = dict(n_clusters=3, random_states={key: 4})
    reuse = sweep_labels(X, ranking, grid, {key: REUSED[key]}, **kwargs)
    plain = sweep_labels(X, ranking, grid, {key: REUSED[key]}, reuse_distances=False, **kwargs)
    assert sorted(reuse) == sorted(plain) == [(key, m) for m in grid]
    for point in plain:
        assert adjusted_rand(plain[point], reuse[point]) == 1.0
    a = run_sweep(X, y, ranking, grid, {key: REUSED[key]}, **kwargs)
    b = run_sweep(X, y, ranking, grid, {key: REUSED[key]}, reuse_distances=False, **kwargs)
    pd.testing.assert_frame_equal(a, b)
    # and the sweep found the blobs once a few features are in
    assert (a.loc[a["n_features"] >= 5, "ari"] == 1.0).all()


def test_reuse_hands_the_distances_to_rbf_clusterers_only(monkeypatch):
    from fsclust.cluster.kmeans import KMeans
    from fsclust.cluster.ncut import NormalizedCut

    calls = []
    for cls in (NormalizedCut, KMeans):
        def spy(self, X, y=None, _fit=cls.fit, **kwargs):
            given = kwargs.get("sq_distances")
            if given is not None:
                # what the sweep hands over: the squared distances of the columns fitted on
                np.testing.assert_allclose(given, squared_distances(X), rtol=0,
                                           atol=1e-12 * given.max())
            calls.append((type(self).__name__, getattr(self, "affinity", None), X.shape[1],
                          given is not None))
            return _fit(self, X, y, **kwargs)
        monkeypatch.setattr(cls, "fit", spy)
    X, y = _blobs_with_noise()
    clusterers = {"rbf": {"method": "ncut"},
                  "knn": {"method": "ncut", "params": {"affinity": "knn"}},
                  "km": {"method": "kmeans"}}
    run_sweep(X, y, np.arange(8)[::-1], [2, 5, 8], clusterers, n_clusters=3,
              random_states={"rbf": 0, "knn": 0, "km": 0})
    given = {(name, affinity, m): flag for name, affinity, m, flag in calls}
    assert len(given) == len(calls) == 9
    assert all(flag == (affinity == "rbf") for (_, affinity, _), flag in given.items())


@pytest.mark.parametrize("key", ["njw", "kernel_kmeans"])
def test_all_features_point_is_the_plain_path_bit_for_bit(key):
    # the m = d point is computed from all columns, not accumulated: reuse or not, any ranking,
    # the all-features partition is the nofs one, bit for bit
    X, y = _blobs_with_noise(1)
    kwargs = dict(n_clusters=3, random_states={key: 5})
    nofs = sweep_labels(X, np.arange(8), [8], {key: REUSED[key]}, reuse_distances=False,
                        **kwargs)[key, 8]
    for ranking in (np.arange(8), np.arange(8)[::-1], np.random.default_rng(0).permutation(8)):
        labels = sweep_labels(X, ranking, [1, 3, 8], {key: REUSED[key]}, **kwargs)
        np.testing.assert_array_equal(labels[key, 8], nofs)


def test_subsets_that_are_not_nested_are_clustered_as_given():
    """A method with one subset per size (FSFS) passes {m: indices}: each m clusters exactly
    its subset, the same as a ranking whose top m is that subset."""
    from fsclust.steps.sweep import run_sweep

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 6))
    X[:20, 3] += 4.0
    y = np.repeat([0, 1], 20)
    clusterers = {"kmeans": {"method": "kmeans", "params": {"n_init": 2}},
                  "njw": {"method": "njw"}}
    subsets = {1: [3], 2: [0, 5], 6: list(range(6))}
    got = run_sweep(X, y, subsets, [1, 2, 6], clusterers, n_clusters=2,
                    random_states={"kmeans": 1, "njw": 2})
    for m, subset in subsets.items():
        ranking = np.r_[subset, [j for j in range(6) if j not in subset]]
        alone = run_sweep(X, y, ranking, [m], clusterers, n_clusters=2,
                          random_states={"kmeans": 1, "njw": 2}, reuse_distances=False)
        pd.testing.assert_frame_equal(got[got["n_features"] == m].reset_index(drop=True),
                                      alone)
    with pytest.raises(ValueError, match="exactly m"):
        run_sweep(X, y, {2: [1]}, [2], clusterers, n_clusters=2,
                  random_states={"kmeans": 1, "njw": 2})
