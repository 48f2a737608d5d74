"""MATLAB's k-means online phase (KMeans(online_phase=True), fsclust.cluster.kmeans.online_phase):
single-sample moves that lower the SSE, the k-means Zhang et al. 2012 ran."""

import itertools

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from fsclust.cluster import KMeans
from fsclust.cluster.kmeans import online_phase


def _sse(X, labels, k):
    return sum(((X[labels == j] - X[labels == j].mean(axis=0)) ** 2).sum()
               for j in range(k) if np.any(labels == j))


def _best_single_move(X, labels, k):
    """Brute force: the lowest SSE reachable by moving one sample (never emptying a cluster)."""
    best = _sse(X, labels, k)
    for i, j in itertools.product(range(len(X)), range(k)):
        if j == labels[i] or np.sum(labels == labels[i]) == 1:
            continue
        moved = labels.copy()
        moved[i] = j
        best = min(best, _sse(X, moved, k))
    return best


@pytest.mark.parametrize("seed", range(8))
def test_online_phase_lowers_the_sse_to_a_point_no_single_move_improves(seed):
    rng = np.random.RandomState(seed)
    X = rng.rand(14, 2)
    k = 3
    start = rng.randint(0, k, 14)
    start[:k] = np.arange(k)  # no empty cluster
    labels, centers, sse, _ = online_phase(X, start, k)
    assert sse <= _sse(X, start, k) + 1e-12
    assert sse == pytest.approx(_sse(X, labels, k), rel=1e-12)
    np.testing.assert_allclose(centers, [X[labels == j].mean(axis=0) for j in range(k)])
    # a local minimum for single moves: brute force finds nothing lower
    assert _best_single_move(X, labels, k) >= sse - 1e-10


@pytest.mark.parametrize("seed", range(8))
def test_online_phase_never_raises_the_batch_sse(seed):
    X, _ = make_blobs(60, centers=4, cluster_std=2.5, random_state=seed)
    batch = KMeans(4, init="random", n_init=1, random_state=seed).fit(X)
    online = KMeans(4, init="random", n_init=1, random_state=seed, online_phase=True).fit(X)
    assert online.inertia_ <= batch.inertia_ * (1 + 1e-12)
    assert online.inertia_ == pytest.approx(_sse(X, online.labels_, 4), rel=1e-10)
    assert _best_single_move(X, online.labels_, 4) >= online.inertia_ - 1e-9


def test_online_phase_equals_batch_kmeans_when_no_move_helps():
    # well separated blobs: Lloyd's fixed point is already a local minimum for single moves
    X, _ = make_blobs(40, centers=3, cluster_std=0.3, random_state=1)
    for seed in range(5):
        batch = KMeans(3, init="random", n_init=1, random_state=seed).fit(X)
        online = KMeans(3, init="random", n_init=1, random_state=seed, online_phase=True).fit(X)
        assert online.n_moves_ == 0
        assert np.array_equal(online.labels_, batch.labels_)
        assert online.inertia_ == pytest.approx(batch.inertia_, rel=1e-9)
        np.testing.assert_allclose(online.cluster_centers_, batch.cluster_centers_, atol=1e-9)


def test_online_phase_moves_out_of_a_lloyd_fixed_point():
    X = np.array([[0.0], [3.0], [3.0], [5.0], [11.0]])
    start = np.array([0, 1, 1, 1, 1])  # 3 is nearer 5.5 than 0: Lloyd stops here, SSE 43
    assert _sse(X, start, 2) == pytest.approx(43.0)
    labels, _, sse, moves = online_phase(X, start, 2)
    assert moves > 0 and sse == pytest.approx(12.75)
    assert _best_single_move(X, labels, 2) >= sse - 1e-12


def test_singletons_never_move():
    # moving either sample would empty its cluster, however much nearer the other centre
    labels, _, _, moves = online_phase(np.array([[0.0], [10.0], [10.5]]), np.array([0, 1, 1]), 2)
    assert moves == 0 and labels.tolist() == [0, 1, 1]
    X = np.random.RandomState(0).rand(12, 2)
    labels, _, _, _ = online_phase(X, np.r_[0, 1, np.full(10, 2)], 3)
    assert np.bincount(labels, minlength=3).min() >= 1


def test_online_kmeans_is_deterministic_and_keeps_the_best_restart():
    from sklearn.cluster import KMeans as SklearnKMeans
    from sklearn.utils import check_random_state

    from fsclust.cluster.affinity import sklearn_seed

    X, _ = make_blobs(80, centers=3, cluster_std=3.0, random_state=5)
    a = KMeans(3, init="random", n_init=3, random_state=2, online_phase=True).fit(X)
    b = KMeans(3, init="random", n_init=3, random_state=2, online_phase=True).fit(X)
    assert np.array_equal(a.labels_, b.labels_)
    # at a single-move local minimum every sample is nearest its own centre
    assert np.array_equal(a.predict(X), a.labels_)
    # each restart: one seeded Lloyd run, then its online phase; the lowest SSE is kept
    rng = check_random_state(2)
    sses = []
    for _ in range(3):
        batch = SklearnKMeans(3, init="random", n_init=1, algorithm="lloyd",
                              random_state=sklearn_seed(rng)).fit(X)
        sses.append(online_phase(X, batch.labels_, 3)[2])
    assert a.inertia_ == pytest.approx(min(sses), rel=1e-12)
