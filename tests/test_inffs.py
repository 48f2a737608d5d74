"""Inf-FS (Roffo et al. 2015, 2020): the properties of spec methods-peers section 5.5."""

import tracemalloc

import numpy as np
import pytest
import scipy.stats
from sklearn.datasets import load_breast_cancer

from fsclust.rankers import inffs
from fsclust.rankers.inffs import InfFS, inffs_graph


def _data(n=60, d=300, seed=0):
    """Gaussian columns of different spreads: no ties in the ranks, distinct stds."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) * rng.uniform(0.5, 3.0, size=d)


def _literal_graph(X, weight_of_sigma):
    """The references' graph, as ``infFS.m`` / ``InfFS_U.m`` write it."""
    c = 1.0 - np.abs(scipy.stats.spearmanr(X).statistic)
    std = X.std(axis=0, ddof=1)
    sigma = np.maximum(std[:, None], std[None, :])
    sigma = (sigma - sigma.min()) / (sigma - sigma.min()).max()
    return weight_of_sigma * sigma + (1.0 - weight_of_sigma) * c


def _literal_2015(X, alpha_code, factor=0.99):
    """``infFS.m``: ``alpha`` weighs ``c``; ``r`` from a full ``eig``; ``inv(I - rA) - I``."""
    A = _literal_graph(X, 1.0 - alpha_code)
    identity = np.eye(A.shape[0])
    r = factor / np.max(np.linalg.eigvals(A).real)
    return (np.linalg.inv(identity - r * A) - identity).sum(axis=1)


def _literal_2020(X, alpha, paper_r):
    """``InfFS_U.m`` (``paper_r=False``: ``r = (1 - eps) / rho`` on the rescaled ``A``), or the
    paper's reading (``r = 1 - eps``)."""
    d = X.shape[1]
    eps = 5e-6 * d
    A = _literal_graph(X, alpha)
    rho = A.sum(axis=1).max()
    A = A / (rho + eps)
    r = (1.0 - eps) if paper_r else (1.0 - eps) / rho
    return np.linalg.inv(np.eye(d) - r * A).sum(axis=1)


@pytest.mark.parametrize("params, literal", [
    ({"variant": "2015", "compat": True, "alpha": 0.3}, lambda X: _literal_2015(X, 0.3)),
    ({"variant": "2015", "alpha": 0.3}, lambda X: _literal_2015(X, 0.7)),
    ({"variant": "2020", "compat": True, "alpha": 0.3},
     lambda X: _literal_2020(X, 0.3, paper_r=False)),
    ({"variant": "2020", "alpha": 0.3}, lambda X: _literal_2020(X, 0.3, paper_r=True)),
])
def test_scores_equal_the_inverse_based_reference_on_300_features(params, literal):
    X = _data()
    scores = InfFS(**params).fit(X).scores_
    np.testing.assert_allclose(scores, literal(X), rtol=1e-10)


def test_the_graph_equals_the_literal_one_and_is_symmetric_non_negative():
    X = _data(d=40)
    A, row_sums = inffs_graph(X, 0.4)
    np.testing.assert_allclose(A, _literal_graph(X, 0.4), atol=1e-12)
    np.testing.assert_allclose(A, A.T, atol=1e-14)
    assert A.min() >= 0.0
    np.testing.assert_allclose(row_sums, A.sum(axis=1), rtol=1e-14)


def test_scores_are_the_sum_of_the_path_series():
    X = _data(d=50)
    model = InfFS(variant="2015").fit(X)
    A, _ = inffs_graph(X, 0.5)
    B = model.r_ * A
    f = model.spectral_radius_bound_
    np.testing.assert_allclose(f, model.r_ * np.linalg.eigvalsh(A).max(), rtol=1e-12)
    term, partial = np.ones(A.shape[0]), np.zeros(A.shape[0])
    for length in range(1, 2001):
        term = B @ term
        partial += term
        if length in (10, 100, 1000, 2000):
            # ||sum_{l > L} B^l 1|| <= f^(L+1) / (1 - f) ||1||: the geometric tail
            tail = f ** (length + 1) / (1.0 - f) * np.sqrt(A.shape[0])
            assert np.linalg.norm(model.scores_ - partial) <= tail * (1 + 1e-9) + 1e-9
    np.testing.assert_allclose(partial, model.scores_, rtol=1e-8)


def test_small_factor_ranks_by_degree_and_factor_near_one_by_perron_vector():
    X = _data(d=30)
    A, row_sums = inffs_graph(X, 0.5)
    short = InfFS(variant="2015", factor=1e-6).fit(X)
    np.testing.assert_array_equal(short.feature_order_, np.argsort(-row_sums, kind="stable"))
    long = InfFS(variant="2015", factor=1.0 - 1e-10).fit(X)
    perron = np.abs(np.linalg.eigh(A)[1][:, -1])
    np.testing.assert_array_equal(long.feature_order_, np.argsort(-perron, kind="stable"))


def test_2020_code_reading_ranks_by_degree_on_real_data():
    """The deviation the spec documents: ``InfFS_U.m``'s double normalisation leaves the
    series at the row sums of ``A`` plus ``O(1 / rho^2)``."""
    X = load_breast_cancer().data
    model = InfFS(variant="2020", compat=True).fit(X)
    _, row_sums = inffs_graph(X, 0.5)
    assert model.spectral_radius_bound_ < 1.5 / row_sums.max()
    assert scipy.stats.spearmanr(model.scores_, row_sums).statistic > 0.999


def test_sample_permutation_invariance_and_feature_permutation_equivariance():
    X = _data(d=80)
    rng = np.random.default_rng(1)
    rows, cols = rng.permutation(X.shape[0]), rng.permutation(X.shape[1])
    for variant in ("2015", "2020"):
        base = InfFS(variant=variant).fit(X).scores_
        np.testing.assert_allclose(InfFS(variant=variant).fit(X[rows]).scores_, base,
                                   rtol=1e-12)
        np.testing.assert_allclose(InfFS(variant=variant).fit(X[:, cols]).scores_, base[cols],
                                   rtol=1e-12)


def test_monotone_map_of_one_feature_keeps_c_and_common_scale_keeps_a():
    X = _data(d=20)
    Y = X.copy()
    Y[:, 3] = np.exp(Y[:, 3])  # strictly increasing: same ranks, so the same c
    np.testing.assert_allclose(inffs_graph(Y, 0.0)[0], inffs_graph(X, 0.0)[0], atol=1e-14)
    np.testing.assert_allclose(inffs_graph(7.5 * X, 0.5)[0], inffs_graph(X, 0.5)[0],
                               atol=1e-14)
    np.testing.assert_allclose(InfFS().fit(7.5 * X).scores_, InfFS().fit(X).scores_,
                               rtol=1e-12)


def test_constant_features_are_left_out_of_the_graph_and_ranked_last():
    X = _data(d=12)
    with_constant = np.column_stack([X[:, :5], np.full(X.shape[0], 2.0), X[:, 5:]])
    model = InfFS().fit(with_constant)
    assert model.feature_order_[-1] == 5 and model.scores_[5] == -np.inf
    np.testing.assert_allclose(np.delete(model.scores_, 5), InfFS().fit(X).scores_,
                               rtol=1e-12)


def test_subset_size_counts_bins_above_the_mean_bin():
    model = InfFS().fit(_data(d=41))
    assert 1 <= model.subset_size_ <= 41 // 2


def test_wide_data_store_no_float64_d_by_d_matrix(monkeypatch):
    """Above the float64 bound ``A`` is float32 and the products accumulate in float64 by row
    blocks: the peak stays below one float64 ``d x d`` array, and the scores keep the float64
    path's order wherever its scores differ by more than float32 rounding can move them."""
    X = _data(n=40, d=1500)
    d = X.shape[1]
    exact = InfFS(variant="2015").fit(X).scores_
    monkeypatch.setattr(inffs, "_FLOAT64_MAX_BYTES", 8 * 1000**2)
    monkeypatch.setattr(inffs, "_BLOCK_BYTES", 8 * 100 * d)
    tracemalloc.start()
    try:
        rounded = InfFS(variant="2015").fit(X).scores_
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * d * d * 0.75  # float32 A (0.5) + blocks and O(n d) work arrays
    np.testing.assert_allclose(rounded, exact, rtol=1e-5)


def test_features_sharing_a_structure_rank_below_independent_ones_on_equal_spreads():
    """The formulation, not the code (issue 40): with equal standard deviations ``sigma`` is 0
    and ``A = (1 - alpha)(1 - |rho|)``, so a feature correlated with others has the smaller
    degree and path energy. Ten features that share one two-group structure (z-scored) rank
    below ten independent noise features, in both versions. Their standard deviations are 1
    to round-off, which must not enter as ``sigma`` (the same order as ``alpha = 0``)."""
    rng = np.random.default_rng(7)
    groups = np.repeat([0.0, 1.0], 50)
    shared = groups[:, None] * rng.choice([-2.0, 2.0], size=10) + rng.normal(size=(100, 10))
    X = np.hstack([shared, rng.normal(size=(100, 10))])
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    for variant in ("2015", "2020"):
        order = InfFS(variant=variant).fit(X).feature_order_
        assert set(order[10:].tolist()) == set(range(10))
        np.testing.assert_array_equal(order,
                                      InfFS(variant=variant, alpha=0.0).fit(X).feature_order_)
