"""UFF (SVD entropy), FRMV (reconstructed), the mean + std rule and the PCA projection."""

import numpy as np
import pytest

from fsclust.rankers.pca import pca_projection
from fsclust.rankers.base import mean_plus_std_rule
from fsclust.rankers.frcm import FRCM
from fsclust.rankers.frmv import FRMV, correlation_ratio
from fsclust.rankers.uff import UFF, svd_entropy, svd_entropy_contributions


def test_svd_entropy_identity_and_rank_one():
    assert svd_entropy(np.linalg.svd(np.eye(5), compute_uv=False) ** 2) == pytest.approx(1.0)
    u = np.random.RandomState(0).rand(6, 1)
    s = np.linalg.svd(u @ u.T, compute_uv=False)
    assert svd_entropy(s**2) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("shape", [(6, 15), (15, 6), (7, 7)])
def test_batched_contributions_equal_per_column_svd(shape):
    X = np.random.RandomState(1).randn(*shape)
    e, reduced = svd_entropy_contributions(X, batch_size=4)
    assert e == pytest.approx(svd_entropy(np.linalg.svd(X, compute_uv=False) ** 2), abs=1e-10)
    for j in range(shape[1]):
        s = np.linalg.svd(np.delete(X, j, axis=1), compute_uv=False)
        assert reduced[j] == pytest.approx(svd_entropy(s**2), abs=1e-10)


def test_uff_invariant_to_global_scaling_and_sample_permutation():
    X = np.random.RandomState(2).randn(10, 30)
    a = UFF().fit(X).scores_
    assert np.allclose(UFF().fit(3.0 * X).scores_, a, atol=1e-10)
    assert np.allclose(UFF().fit(X[::-1]).scores_, a, atol=1e-10)


def test_uff_zero_column_contributes_nothing_when_d_exceeds_n():
    X = np.random.RandomState(3).randn(8, 20)
    X[:, 5] = 0.0
    uff = UFF().fit(X)
    assert uff.scores_[5] == pytest.approx(0.0, abs=1e-12)
    assert uff.feature_order_[-1] == 5
    assert 5 not in uff.selected_features_


def test_uff_selection_is_the_mean_plus_std_rule():
    X = np.random.RandomState(4).randn(12, 40)
    uff = UFF().fit(X)
    keep = mean_plus_std_rule(uff.scores_, True, uff.constant_mask_)
    assert set(uff.selected_features_) == set(np.flatnonzero(keep))
    assert uff.n_features_selected_ == keep.sum() > 0
    # best first
    assert np.all(np.diff(uff.scores_[uff.selected_features_]) <= 0)


def test_mean_plus_std_rule_invariant_to_positive_affine_maps():
    s = np.random.RandomState(5).randn(200)
    base = mean_plus_std_rule(s, True)
    assert np.array_equal(mean_plus_std_rule(3.0 * s + 7.0, True), base)
    # the smaller-is-better direction is the mirror image
    assert np.array_equal(mean_plus_std_rule(-2.0 * s + 1.0, False), base)
    assert np.array_equal(mean_plus_std_rule(1.0 - s, False), base)


def test_mean_plus_std_rule_ignores_constant_and_non_finite_scores():
    s = np.array([0.0, 0.0, 0.0, 1.0, 50.0, np.inf, np.nan])
    constant = np.array([False, False, False, False, True, False, False])
    keep = mean_plus_std_rule(s, True, constant)
    assert keep.tolist() == [False, False, False, True, False, False, False]


def test_correlation_ratio_two_clusters_is_squared_pearson():
    rng = np.random.RandomState(6)
    labels = rng.randint(0, 2, 50)
    X = rng.randn(50, 4) + labels[:, None] * np.array([0, 1, 2, 3])
    r = np.array([np.corrcoef(X[:, j], labels)[0, 1] for j in range(4)])
    assert np.allclose(correlation_ratio(X, labels), r**2)
    assert np.allclose(correlation_ratio(X, 1 - labels), r**2)  # label names do not matter


def test_frmv_scores_in_range_and_constant_last():
    rng = np.random.RandomState(7)
    X = np.column_stack([rng.randn(30, 5), np.ones(30)])
    frmv = FRMV(n_partitions=8, random_state=0).fit(X)
    assert frmv.scores_.min() >= 1 and frmv.scores_.max() <= 6
    assert frmv.feature_order_[-1] == 5
    assert frmv.rank_matrix_.shape == (8, 6)


@pytest.mark.parametrize("relevance", ["eta", "su"])
def test_frmv_indicator_feature_ranks_first(relevance):
    rng = np.random.RandomState(8)
    groups = np.repeat([0.0, 1.0], 50)
    X = np.column_stack([10 * groups + 0.1 * rng.randn(100), 10 * groups + rng.randn(100),
                         rng.randn(100, 18)])
    # every view sees all features, so every view finds the two groups
    frmv = FRMV(n_partitions=10, relevance=relevance, k_mode="fixed", n_clusters=2,
                subspace_frac=1.0, random_state=0).fit(X)
    assert frmv.feature_order_[0] in (0, 1)


def test_frmv_shares_a_precomputed_ensemble_exactly():
    X = np.random.RandomState(9).randn(30, 10)
    frcm = FRCM(n_partitions=12, random_state=1).fit(X)
    a = FRMV(ensemble=frcm.ensemble_, random_state=0).fit(X)
    b = FRMV(ensemble=frcm.ensemble_, random_state=99).fit(X)
    assert np.array_equal(a.ensemble_, frcm.ensemble_)
    assert np.array_equal(a.scores_, b.scores_)
    c = FRMV(n_partitions=12, random_state=1).fit(X)  # the same draws as FRCM's ensemble
    assert np.array_equal(c.ensemble_, frcm.ensemble_)


def test_pca_projection_caps_components_and_keeps_distances():
    X = np.random.RandomState(10).randn(8, 30)
    Z = pca_projection(X, 100)
    assert Z.shape == (8, 7)
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    DZ = ((Z[:, None] - Z[None]) ** 2).sum(-1)
    assert np.allclose(D, DZ)
    assert pca_projection(X, 3).shape == (8, 3)


def _downdated_entropies_by_eigvalsh(X):
    """The leave-one-out entropies as UFF computed them before the secular equation: one
    ``eigvalsh`` of ``X X^T - x_j x_j^T`` per feature. The reference."""
    n, d = X.shape
    G = X @ X.T
    n_values = min(n, d - 1)
    lam = np.linalg.eigvalsh(G[None] - np.einsum("ib,jb->bij", X, X))
    return svd_entropy(lam[:, n - n_values:], n_values)


@pytest.mark.parametrize("case", ["gaussian", "centred-duplicate-zero", "scales", "dominant",
                                  "square"])
def test_downdated_entropies_equal_eigvalsh_per_feature(case):
    rng = np.random.RandomState(11)
    X = rng.randn(30, 200)
    if case == "centred-duplicate-zero":
        # centred: X X^T singular; a zero column (z = 0, deflated) and two equal columns
        X -= X.mean(axis=0)
        X[:, 3] = 0.0
        X[:, 5] = X[:, 6]
    elif case == "scales":
        X *= np.logspace(-3, 3, 200)
    elif case == "dominant":
        X = np.abs(X)
        X[:, :10] *= 1e4
    elif case == "square":
        X = X[:, :30]
    _, reduced = svd_entropy_contributions(X, batch_size=16)
    np.testing.assert_allclose(reduced, _downdated_entropies_by_eigvalsh(X), rtol=0, atol=1e-10)


def test_downdated_entropies_without_eigenvalues_match_eigvalsh():
    from fsclust.rankers.uff import downdated_entropies

    rng = np.random.RandomState(12)
    lam = np.sort(rng.rand(40) * 10.0)
    lam[10] = lam[11]  # a repeated eigenvalue
    lam[0] = 0.0  # a singular G
    # z = diag(sqrt(lam)) v with ||v|| < 1: diag(lam) - z z^T is PSD (leverage ||v||^2), as
    # for a column of X; z_0 = 0 (x in the range of the singular G)
    V = rng.randn(25, 40)
    V *= rng.uniform(0.1, 0.99, size=(25, 1)) / np.linalg.norm(V, axis=1, keepdims=True)
    Z = np.sqrt(lam) * V
    Z[3, 7] = 0.0
    entropy, pole = downdated_entropies(lam, Z, 40)
    assert not pole.any()
    reference = [svd_entropy(np.linalg.eigvalsh(np.diag(lam) - np.outer(z, z))) for z in Z]
    np.testing.assert_allclose(entropy, reference, rtol=0, atol=1e-12)


def test_a_column_outside_the_others_span_falls_back_to_its_spectrum():
    # feature 0 alone carries sample 0: removing it lowers the rank (leverage 1, a pole of
    # the integrand at t = 0); its entropy comes from the eigenvalues, as the square case's
    rng = np.random.RandomState(13)
    X = rng.randn(12, 40)
    X[0, 1:] = 0.0
    from fsclust.rankers.uff import downdated_entropies

    lam, U = np.linalg.eigh(X @ X.T)
    _, pole = downdated_entropies(lam, (U.T @ X).T, 12)
    assert pole[0] and not pole[1:].any()
    _, reduced = svd_entropy_contributions(X)
    np.testing.assert_allclose(reduced, _downdated_entropies_by_eigvalsh(X), rtol=0, atol=1e-10)
