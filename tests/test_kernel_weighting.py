"""Properties of Zeng & Cheung's kernel feature weighting (spec methods-seed 1.5)."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from fsclust.registry import make_ranker
from fsclust.rankers.kernel_weighting import (
    KernelWeightingClustering,
    feature_bandwidths,
    normalized_feature_kernels,
)


def _blobs(seed=0, n_per=20, c=3, d=40, relevant=5, shift=5.0):
    """c Gaussian clusters that differ only in the first ``relevant`` of ``d`` features."""
    rng = np.random.RandomState(seed)
    y = np.repeat(np.arange(c), n_per)
    X = rng.randn(c * n_per, d)
    X[:, :relevant] += shift * y[:, None]
    return X, y


def _kernels(X):
    """All normalised kernels built independently of the estimator's blocks: (d, n, n)."""
    return normalized_feature_kernels(X, feature_bandwidths(X))


def _centring(n):
    return np.eye(n) - np.ones((n, n)) / n


def _fit(X, c=3, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return KernelWeightingClustering(n_clusters=c, random_state=0, **kw).fit(X)


@pytest.fixture(scope="module")
def data():
    return _blobs()


@pytest.fixture(scope="module")
def model(data):
    return _fit(data[0])


def test_objective_non_decreasing(data):
    X, _ = _blobs(seed=1, relevant=3, shift=3.0)  # a harder set: several iterations
    Q = _fit(X, tol=0.0, max_iter=15).objective_history_
    assert Q.size == 15
    assert np.all(np.diff(Q) >= -1e-12 * np.abs(Q[:-1]))


def test_weights_on_unit_sphere_and_parallel_to_z_of_last_indicator(data, model):
    X, _ = data
    w = model.weights_
    assert np.all(w >= 0)
    assert np.linalg.norm(w) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_array_equal(model.scores_, w)
    # z_p = trace(L^T Pi K_p Pi L) from the reported indicator, computed independently
    PL = _centring(X.shape[0]) @ model.indicator_
    z = np.einsum("ik,pij,jk->p", PL, _kernels(X), PL)
    assert np.all(z >= -1e-12)
    np.testing.assert_allclose(w, z / np.linalg.norm(z), rtol=1e-9, atol=1e-12)
    # Q_t = w^T z = trace(L^T Pi S_w Pi L)
    assert model.objective_history_[-1] == pytest.approx(w @ z, rel=1e-10)


def test_objective_bounded_by_theorem_1(data, model):
    X, _ = data
    Pi = _centring(X.shape[0])
    nu = np.array([np.trace(Pi @ K @ Pi) for K in _kernels(X)])
    assert model.trace_bound_ == pytest.approx(np.linalg.norm(nu), rel=1e-10)
    assert np.all(model.objective_history_ <= np.linalg.norm(nu) * (1 + 1e-12))


@pytest.mark.parametrize("t", [1, 2, 3])
def test_ky_fan_indicator_maximises_the_trace(data, t):
    X, _ = data
    n, c = X.shape[0], 3
    # the weights the t-th L-step saw: w0 for t = 1, else those after t - 1 iterations
    w_prev = (np.full(X.shape[1], X.shape[1] ** -0.5) if t == 1
              else _fit(X, max_iter=t - 1, tol=0.0).weights_)
    L = _fit(X, max_iter=t, tol=0.0).indicator_
    Pi = _centring(n)
    Kt = Pi @ np.tensordot(w_prev, _kernels(X), axes=1) @ Pi
    top = np.sort(np.linalg.eigvalsh(Kt))[-c:]
    np.testing.assert_allclose(L.T @ L, np.eye(c), atol=1e-10)
    assert np.trace(L.T @ Kt @ L) == pytest.approx(top.sum(), rel=1e-9)


def test_blocked_equals_cached(data):
    X, _ = data
    budget = 8 * X.shape[0] ** 2
    cached = _fit(X, block_size=7)
    blocked = _fit(X, block_size=7, memory_limit=budget)  # room for one kernel: no cache
    assert cached.kernels_cached_ and not blocked.kernels_cached_
    # same blocks, same order: bit-identical
    np.testing.assert_array_equal(cached.weights_, blocked.weights_)
    np.testing.assert_array_equal(cached.objective_history_, blocked.objective_history_)
    np.testing.assert_array_equal(cached.labels_, blocked.labels_)
    # other block sizes (one feature per block, the cache-sized default, 13 features) change
    # only the summation order
    for other in (_fit(X, memory_limit=budget), _fit(X), _fit(X, block_size=13)):
        np.testing.assert_allclose(other.weights_, cached.weights_, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(other.objective_history_, cached.objective_history_, rtol=1e-12)
        np.testing.assert_array_equal(other.feature_order_, cached.feature_order_)
        np.testing.assert_array_equal(other.labels_, cached.labels_)


def test_duplicated_feature_gets_equal_weight(data):
    X, _ = data
    X2 = np.column_stack([X, X[:, 2], X[:, 10]])
    w = _fit(X2).weights_
    # identical kernels; BLAS may round the two rows of a product differently by an ulp
    assert w[-2] == pytest.approx(w[2], rel=1e-13)
    assert w[-1] == pytest.approx(w[10], rel=1e-13)


def test_feature_kernels_are_psd_with_inverse_degree_diagonal(data):
    X = data[0][:, [0, 1, 7, 20]]
    t = feature_bandwidths(X)
    K = _kernels(X)
    for p in range(X.shape[1]):
        np.testing.assert_allclose(K[p], K[p].T, rtol=1e-14, atol=0)
        assert np.linalg.eigvalsh(K[p]).min() > -1e-10
        raw = np.exp(-((X[:, p, None] - X[None, :, p]) ** 2) / t[p])
        np.testing.assert_allclose(np.diag(K[p]), 1.0 / raw.sum(axis=1), rtol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_relevant_features_get_the_top_weights(seed):
    X, y = _blobs(seed=seed, n_per=30, d=100, relevant=5, shift=4.0)
    model = _fit(X)
    assert set(model.feature_order_[:5]) == set(range(5))
    # the integrated clustering finds the clusters
    assert sorted(np.bincount(model.labels_)) == [30, 30, 30]


def test_constant_feature_excluded_and_ranked_last(data):
    X, _ = data
    Xc = np.column_stack([X[:, :10], np.full(X.shape[0], 2.5), X[:, 10:]])
    model = _fit(Xc)
    assert model.weights_[10] == 0.0 and model.bandwidths_[10] == 0.0
    assert model.feature_order_[-1] == 10
    np.testing.assert_allclose(np.delete(model.weights_, 10), _fit(X).weights_, rtol=1e-12)


def test_converges_within_paper_bound_and_warns_at_max_iter(data):
    X, _ = data
    model = KernelWeightingClustering(n_clusters=3, random_state=0).fit(X)
    assert 2 <= model.n_iter_ < 10
    with pytest.warns(ConvergenceWarning):
        KernelWeightingClustering(n_clusters=3, max_iter=1, random_state=0).fit(X)


def test_registry_passes_k_and_seed():
    model = make_ranker("kernel_weighting", n_clusters=4, random_state=3)
    assert isinstance(model, KernelWeightingClustering)
    assert (model.n_clusters, model.random_state) == (4, 3)
