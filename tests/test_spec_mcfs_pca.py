"""SPEC, MCFS, PCA loading and GHA: identities and properties (spec methods-baselines 3-6)."""

import numpy as np
import pytest

from fsclust.graphs import knn_graph, rbf_affinity
from fsclust.rankers.gha import GHA
from fsclust.rankers.laplacian import laplacian_score
from fsclust.rankers.mcfs import MCFS, spectral_embedding_targets
from fsclust.rankers.pca import PCARanking, first_principal_axis, pca_projection
from fsclust.rankers.spec import SPEC, spec_scores


def _data(seed=0, n=60):
    rng = np.random.RandomState(seed)
    groups = np.repeat([0.0, 1.0], n // 2)
    X = np.column_stack([groups * 4 + 0.3 * rng.randn(n), rng.randn(n), rng.randn(n) * 3,
                         rng.randn(n) + 0.5 * groups])
    return X, groups


def test_spec_phi2_equals_laplacian_score_on_same_graph():
    X, _ = _data()
    for W in (rbf_affinity(X, keep_diagonal=True), knn_graph(X, 5).toarray()):
        np.testing.assert_allclose(spec_scores(X, W, "phi2"), laplacian_score(X, W), rtol=1e-10)


def test_spec_perfect_indicator_ranks_first_under_all_styles():
    n = 40
    indicator = np.repeat([0.0, 1.0], n // 2)
    rng = np.random.RandomState(1)
    alternating = np.tile([1.0, -1.0], n // 2)
    X = np.column_stack([rng.randn(n), alternating, indicator])
    W = np.kron(np.eye(2), np.ones((n // 2, n // 2))) + 1e-3  # weak links between blocks
    for style in ("phi1", "phi2", "phi3"):
        model = SPEC(style=style, n_clusters=2, t=1.0)
        scores = spec_scores(X, W, style, n_clusters=2)
        oriented = scores if style == "phi3" else -scores
        assert np.argmax(oriented) == 2
        assert model.higher_is_better == (style == "phi3")
    # the estimator with its own Gaussian graph also puts the indicator first
    X2 = np.column_stack([0.3 * rng.randn(n), 5.0 * indicator])
    assert SPEC(style="phi2").fit(X2).ranking_[0] == 1


def test_spec_gamma_power_matches_eigen_form_and_constants_last():
    X, _ = _data(2, n=30)
    W = rbf_affinity(X, keep_diagonal=True)
    d = W.sum(1)
    Lsym = np.eye(30) - W / np.sqrt(np.outer(d, d))
    lam, Xi = np.linalg.eigh(Lsym)
    Fh = np.sqrt(d)[:, None] * X
    Fh /= np.linalg.norm(Fh, axis=0)
    alpha = Xi.T @ Fh
    np.testing.assert_allclose(spec_scores(X, W, "phi1", power=2), (lam[:, None] ** 2 * alpha**2).sum(0),
                               atol=1e-10)
    Xc = np.column_stack([X, np.full(30, 2.0)])
    assert SPEC(style="phi1", power=2).fit(Xc).ranking_[-1] == 4


def test_mcfs_scores_are_max_abs_coefficients_and_sign_invariant():
    X, _ = _data(3)
    model = MCFS(n_clusters=2, n_eigenvectors=3, n_nonzero_coefs=2).fit(X)
    np.testing.assert_allclose(model.scores_, np.abs(model.coef_).max(axis=1))
    assert np.all(np.count_nonzero(model.coef_, axis=0) <= 2)
    flipped = X.copy()
    flipped[:, 1] *= -1
    np.testing.assert_allclose(MCFS(n_clusters=2, n_eigenvectors=3, n_nonzero_coefs=2).fit(flipped).scores_,
                               model.scores_, atol=1e-10)


def test_mcfs_embedding_is_d_orthonormal_and_non_trivial():
    X, _ = _data(4)
    W = knn_graph(X, 5)
    Y = spectral_embedding_targets(W, 3)
    d = np.asarray(W.sum(1)).ravel()
    np.testing.assert_allclose(Y.T @ (d[:, None] * Y), np.eye(3), atol=1e-8)
    np.testing.assert_allclose(Y.T @ d, 0, atol=1e-8)


def test_pca_loadings_unit_norm_sign_invariant_and_equal_eigh():
    X, _ = _data(5)
    scores = PCARanking().fit(X).scores_
    assert np.sum(scores**2) == pytest.approx(1.0)
    np.testing.assert_allclose(PCARanking().fit(-X).scores_, scores)
    Xs = (X - X.mean(0)) / X.std(0)
    _, vecs = np.linalg.eigh(np.cov(Xs.T))
    np.testing.assert_allclose(scores, np.abs(vecs[:, -1]), atol=1e-8)
    assert pca_projection(X, 2).shape == (60, 2)


def test_gha_converges_to_first_principal_axis():
    rng = np.random.RandomState(0)
    f = rng.randn(300)
    X = np.column_stack([f + 0.3 * rng.randn(300) for _ in range(5)] + [rng.randn(300) for _ in range(15)])
    model = GHA(random_state=0).fit(X)
    w = model.components_[0]
    axis = first_principal_axis(X)
    assert abs(w @ axis) / np.linalg.norm(w) > 0.99
    np.testing.assert_array_equal(GHA(random_state=0).fit(X).scores_, model.scores_)
