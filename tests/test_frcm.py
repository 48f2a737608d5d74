"""FRCM (Zhang, Wong, Shen & Xie 2012): spec methods-seed 5.5."""

import numpy as np
import pytest

from fsclust.cluster.consensus import arimm, coassociation_matrix, consensus_matrix
from fsclust.rankers.frcm import FRCM, feature_affinity, feature_arimm


def _data_with_duplicates(seed=0, n=25, d=6):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    X[3] = X[7]  # duplicate samples: eq. 7 is 0/0 there
    X[10, :2] = X[11, :2]  # equal on some features only
    return X


@pytest.mark.parametrize("duplicates", ["one", "drop"])
@pytest.mark.parametrize("block_size", [1, 50, 2**22])
def test_blocked_scores_equal_direct_per_feature_formula(duplicates, block_size):
    X = _data_with_duplicates()
    rng = np.random.RandomState(1)
    M = consensus_matrix(rng.randint(0, 3, (9, X.shape[0])))
    z = feature_arimm(X, M, duplicates=duplicates, block_size=block_size)
    keep = ~np.eye(X.shape[0], dtype=bool)
    if duplicates == "drop":
        keep &= ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2) > 0
    for j in range(X.shape[1]):
        A = feature_affinity(X, j)
        if duplicates == "one":
            direct = arimm(M, A)
        else:  # the same sums over the kept pairs i < l only
            iu = np.triu_indices_from(M, k=1)
            kp = keep[iu]
            m, a = M[iu][kp], A[iu][kp]
            P = kp.sum()
            s0, s1, s2 = m @ a, m.sum(), a.sum()
            s3 = s1 * s2 / P
            direct = (s0 - s3) / (0.5 * (s1 + s2) - s3)
        assert z[j] == pytest.approx(direct, abs=1e-12)


def test_naive_loop_over_pairs_and_features():
    """The paper's O(n^2 D^2) formulation, written as loops, on tiny data."""
    X = _data_with_duplicates(n=12, d=4)
    M = consensus_matrix(np.random.RandomState(2).randint(0, 3, (5, 12)))
    z = feature_arimm(X, M)
    n, d = X.shape
    for j in range(d):
        s0 = s1 = s2 = 0.0
        for i in range(n):
            for l in range(i + 1, n):
                dist = sum((X[i, k] - X[l, k]) ** 2 for k in range(d))
                a = 1.0 if dist == 0 else np.sqrt(max(0.0, 1 - (X[i, j] - X[l, j]) ** 2 / dist))
                s0 += M[i, l] * a
                s1 += M[i, l]
                s2 += a
        P = n * (n - 1) / 2
        s3 = s1 * s2 / P
        assert z[j] == pytest.approx((s0 - s3) / (0.5 * (s1 + s2) - s3), abs=1e-12)


def test_affinity_shares_sum_to_one():
    """sum_j A_j^2 = D - 1 for every pair at a positive distance; A in [0, 1]."""
    X = _data_with_duplicates()
    A = np.stack([feature_affinity(X, j) for j in range(X.shape[1])])
    R = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    assert A.min() >= 0 and A.max() <= 1
    assert np.allclose((A**2).sum(axis=0)[R > 0], X.shape[1] - 1)
    assert np.all(A[:, R == 0] == 1.0)


def test_constant_feature_scores_zero_and_ranks_last():
    rng = np.random.RandomState(0)
    X = np.column_stack([rng.randn(30, 3), np.full(30, 2.0)])
    frcm = FRCM(n_partitions=10, random_state=0).fit(X)
    assert frcm.scores_[3] == pytest.approx(0.0, abs=1e-12)
    assert frcm.feature_order_[-1] == 3


def test_consensus_and_scores_are_reproducible_and_seed_dependent():
    X = np.random.RandomState(0).randn(40, 8)
    a = FRCM(n_partitions=15, random_state=5).fit(X)
    b = FRCM(n_partitions=15, random_state=5).fit(X)
    c = FRCM(n_partitions=15, random_state=6).fit(X)
    assert np.array_equal(a.feature_order_, b.feature_order_) and np.array_equal(a.scores_, b.scores_)
    assert not np.array_equal(a.ensemble_, c.ensemble_)
    M = a.consensus_matrix_
    assert np.array_equal(M, M.T) and np.all(np.diag(M) == 1)
    assert np.allclose(M * 15, np.round(M * 15))
    assert a.max_clusters_ == 6 and a.ensemble_n_clusters_.max() <= 6


def test_scores_equal_arimm_against_fitted_consensus():
    X = np.random.RandomState(3).randn(20, 5)
    frcm = FRCM(n_partitions=8, random_state=0).fit(X)
    for j in range(5):
        assert frcm.scores_[j] == pytest.approx(
            arimm(frcm.consensus_matrix_, feature_affinity(X, j)), abs=1e-12)


def test_planted_cluster_feature_ranks_at_the_top():
    rng = np.random.RandomState(0)
    groups = np.repeat([-4.0, 0.0, 4.0], 30)
    X = np.column_stack([groups + rng.randn(90), rng.randn(90, 39)])
    frcm = FRCM(n_partitions=50, random_state=0).fit(X)
    assert 0 in frcm.feature_order_[:2]  # top 5 % of 40 features


def test_arimm_of_perfect_affinity_is_one():
    """A feature whose affinity equals a partition's co-association gives ARImm 1."""
    p = np.repeat([0, 1], 4)
    assert arimm(coassociation_matrix(p), coassociation_matrix(p)) == 1.0
