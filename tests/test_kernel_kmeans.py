"""Kernel k-means: the properties of spec methods-baselines 11.2 / methods-seed 3.6.3."""

import numpy as np
import pytest
from sklearn.cluster import KMeans as SklearnKMeans

from fsclust.cluster.kernel_kmeans import (
    KernelKMeans, centroid_distances, gaussian_kernel, kernel_kmeans,
)
from fsclust.graphs import scale_features
from fsclust.metrics import adjusted_rand, clustering_accuracy


def _blobs(seed=0, n=40, gap=6.0):
    rng = np.random.RandomState(seed)
    centres = np.array([[0.0, 0.0], [gap, 0.0], [0.0, gap]])
    y = np.repeat([0, 1, 2], n)
    return centres[y] + rng.randn(3 * n, 2), y


def test_linear_kernel_is_lloyd_kmeans_from_same_centres():
    rng = np.random.RandomState(3)
    X = rng.randn(90, 4) + np.repeat(rng.randn(3, 4) * 2.0, 30, axis=0)
    centres = np.array([5, 40, 77])
    labels, *_ = kernel_kmeans(X @ X.T, 3, init_centers=centres)
    lloyd = SklearnKMeans(3, init=X[centres], n_init=1, algorithm="lloyd", tol=0.0).fit(X)
    assert adjusted_rand(lloyd.labels_, labels) == pytest.approx(1.0)


def test_energy_non_increasing_and_restarts_keep_lowest():
    X, _ = _blobs(1, gap=2.0)
    K = gaussian_kernel(scale_features(X, "zscore"), 1.0)
    for seed in range(5):
        _, energy, _, history = kernel_kmeans(K, 3, random_state=seed)
        assert np.all(np.diff(history) <= 1e-10 * max(1.0, abs(history[0])))
        assert history[-1] == pytest.approx(energy)
    model = KernelKMeans(3, kernel="precomputed", n_init=5, random_state=0).fit(K)
    single = [kernel_kmeans(K, 3, random_state=np.random.RandomState(0))[1]]
    assert model.energy_ <= min(single) + 1e-12


def test_distances_match_explicit_feature_space_formula():
    X, _ = _blobs(2, n=5)
    labels = np.array([0, 1, 2] * 5)
    dist = centroid_distances(X @ X.T, labels, 3)
    centres = np.array([X[labels == k].mean(axis=0) for k in range(3)])
    explicit = ((X[:, None, :] - centres[None]) ** 2).sum(-1)
    np.testing.assert_allclose(dist, explicit, atol=1e-10)


def test_separated_blobs_recovered_and_seeded():
    X, y = _blobs(4)
    a = KernelKMeans(3, scale="zscore-sqrt-d", random_state=7).fit_predict(X)
    b = KernelKMeans(3, scale="zscore-sqrt-d", random_state=7).fit_predict(X)
    assert clustering_accuracy(y, a) == 1.0
    np.testing.assert_array_equal(a, b)


def test_no_empty_cluster_and_constant_kernel_does_not_cycle():
    labels, _, n_iter, _ = kernel_kmeans(np.ones((12, 12)), 4, random_state=0)
    assert np.bincount(labels, minlength=4).min() >= 1
    assert n_iter <= 2


def test_scaling_gives_mean_squared_distance_two():
    rng = np.random.RandomState(0)
    Xs = scale_features(rng.randn(400, 50) * 7 + 3, "zscore-sqrt-d")
    d2 = ((Xs[:, None] - Xs[None]) ** 2).sum(-1)
    assert d2.mean() == pytest.approx(2.0, rel=1e-9)  # all n^2 pairs, population sd


@pytest.mark.parametrize("scale", ["none", "zscore", "zscore-sqrt-d"])
def test_given_squared_distances_give_the_result_of_the_features(scale):
    from fsclust.cluster.kernel_kmeans import scaled_sq_distances

    X, _ = _blobs(2)
    X = np.hstack([X, np.random.RandomState(2).randn(X.shape[0], 3)])
    plain = KernelKMeans(n_clusters=3, scale=scale, random_state=0).fit(X)
    given = KernelKMeans(n_clusters=3, scale=scale, random_state=0).fit(
        X, sq_distances=scaled_sq_distances(X, scale))
    np.testing.assert_array_equal(given.labels_, plain.labels_)
    assert given.energy_ == plain.energy_ and given.n_features_in_ == X.shape[1]


def test_given_squared_distances_need_the_gaussian_kernel():
    from fsclust.cluster.kernel_kmeans import scaled_sq_distances

    X, _ = _blobs(0)
    D2 = scaled_sq_distances(X, "none")
    with pytest.raises(ValueError, match="kernel='rbf'"):
        KernelKMeans(n_clusters=3, kernel="linear").fit(X, sq_distances=D2)
    with pytest.raises(ValueError, match="shape"):
        KernelKMeans(n_clusters=3).fit(X, sq_distances=D2[:5, :5])
