"""The shared l2,1 math (fsclust.rankers._sparse_learning): each efficient form against its
literal definition, and the majorisation the reweighting rests on."""

import numpy as np
import pytest

from fsclust.rankers._sparse_learning import (GraphQuadratic, WeightedRidge, initial_weights,
                                              l21_eps, null_space_start,
                                              penalized_smallest_eigenvectors, reweighting,
                                              row_norms_sq, smoothed_l21)


def _laplacian(n, rng):
    """A dense graph Laplacian of random positive weights: symmetric PSD, ``L 1 = 0``."""
    S = rng.rand(n, n)
    S = (S + S.T) / 2
    np.fill_diagonal(S, 0.0)
    return np.diag(S.sum(1)) - S


@pytest.mark.parametrize("seed", range(5))
def test_reweighting_majorises_the_smoothed_l21_norm(seed):
    # Nie et al.'s lemma: with E from W, any W' satisfies
    # sum sqrt(a' + eps) - sum a' / E <= sum sqrt(a + eps) - sum a / E
    rng = np.random.RandomState(seed)
    W, Wn = rng.randn(30, 3), rng.randn(30, 3) * rng.rand(30, 1)
    W[:5] = 0.0  # pruned rows
    eps = l21_eps(W)
    E = reweighting(W, eps)
    lhs = smoothed_l21(Wn, eps) - np.sum(row_norms_sq(Wn) / E)
    rhs = smoothed_l21(W, eps) - np.sum(row_norms_sq(W) / E)
    assert lhs <= rhs + 1e-12 * abs(rhs)


def test_eps_follows_the_scale_of_W_and_keeps_E_positive():
    W = np.zeros((4, 2))
    assert l21_eps(W) == 1e-12
    assert l21_eps(1e3 * np.ones((4, 2))) == pytest.approx(1e-12 * 2e6)
    assert np.all(reweighting(W, l21_eps(W)) > 0)


def test_row_norms_depend_on_W_only_through_W_WT():
    # the scores of UDFS/NDFS/SOGFS: invariant to the eigensolver's sign and basis choice
    rng = np.random.RandomState(0)
    W = rng.randn(20, 3)
    Q = np.linalg.qr(rng.randn(3, 3))[0]
    np.testing.assert_allclose(row_norms_sq(W @ Q), row_norms_sq(W), rtol=1e-12)


@pytest.mark.parametrize("shape", [(40, 15), (15, 40)])
def test_weighted_ridge_equals_the_literal_d_by_d_solve(shape):
    rng = np.random.RandomState(1)
    X, Y = rng.randn(*shape), rng.rand(shape[0], 3)
    E = rng.rand(shape[1]) + 1e-3
    beta = 0.7
    ridge = WeightedRidge(X, E, beta)
    assert ridge.push_through == (shape[1] > shape[0])
    W, R = ridge.solve(Y)
    literal = np.linalg.inv(X.T @ X + beta * np.diag(1.0 / E)) @ X.T @ Y
    np.testing.assert_allclose(W, literal, rtol=1e-10, atol=1e-12 * np.abs(literal).max())
    np.testing.assert_allclose(R, Y - X @ literal, atol=1e-10 * np.abs(Y).max())
    hat = np.eye(shape[0]) - X @ np.linalg.inv(X.T @ X + beta * np.diag(1.0 / E)) @ X.T
    np.testing.assert_allclose(ridge.hat_complement(), hat, atol=1e-10)


def test_weighted_ridge_stays_finite_when_a_weight_vanishes():
    # E_jj = 0 is a pruned feature: its coefficients are 0, where D = E^{-1} would be infinite
    rng = np.random.RandomState(2)
    for shape in [(30, 10), (10, 30)]:
        X, Y = rng.randn(*shape), rng.rand(shape[0], 2)
        E = rng.rand(shape[1])
        E[:3] = 0.0
        W, R = WeightedRidge(X, E, 1.0).solve(Y)
        assert np.all(np.isfinite(W)) and np.all(W[:3] == 0.0)


@pytest.mark.parametrize("shape", [(30, 12), (12, 30)])
def test_graph_quadratic_is_X_T_L_X(shape):
    rng = np.random.RandomState(3)
    X = rng.randn(*shape)
    L = _laplacian(shape[0], rng)
    M = X.T @ L @ X
    Mq = GraphQuadratic(X, L)
    assert Mq.dense == (shape[1] <= shape[0])
    W = rng.randn(shape[1], 2)
    np.testing.assert_allclose(Mq.diagonal(), np.diag(M), rtol=1e-10)
    np.testing.assert_allclose(Mq.matmat(W), M @ W, rtol=1e-10, atol=1e-10 * np.abs(M).max())
    assert Mq.trace_form(W) == pytest.approx(np.trace(W.T @ M @ W), rel=1e-10)
    if not Mq.dense:
        # L 1 = 0: rank(L) <= n - 1, so null(M) has at least d - n + 1 dimensions
        assert Mq.null_dim >= shape[1] - shape[0] + 1


@pytest.mark.parametrize("shape", [(30, 12), (12, 30)])
def test_penalized_eigenvectors_match_the_literal_eigh(shape):
    rng = np.random.RandomState(4)
    X = rng.randn(*shape)
    L = _laplacian(shape[0], rng)
    E = rng.rand(shape[1]) + 0.1
    gamma, c = 0.5, 3
    P = X.T @ L @ X + gamma * np.diag(1.0 / E)
    vals, vecs = np.linalg.eigh(P)
    got_vals, W = penalized_smallest_eigenvectors(GraphQuadratic(X, L), E, gamma, c)
    np.testing.assert_allclose(got_vals, vals[:c], rtol=1e-9)
    np.testing.assert_allclose(W.T @ W, np.eye(c), atol=1e-10)
    # the subspace (the scores use W W^T only), not the basis
    np.testing.assert_allclose(W @ W.T, vecs[:, :c] @ vecs[:, :c].T, atol=1e-8)


def test_diag_M_start_is_the_normalised_local_cost():
    rng = np.random.RandomState(5)
    X = rng.randn(10, 25)
    Mq = GraphQuadratic(X, _laplacian(10, rng))
    m = Mq.diagonal()
    np.testing.assert_allclose(1.0 / initial_weights(Mq, "diag_M"), m / m.mean() + 1e-3)
    assert np.all(initial_weights(Mq, "identity") == 1.0)


def test_null_space_start_minimises_the_degenerate_first_step():
    rng = np.random.RandomState(6)
    X = rng.randn(12, 40)
    L = _laplacian(12, rng)
    Mq = GraphQuadratic(X, L)
    gamma, c = 2.0, 3
    W = null_space_start(Mq, c, np.random.RandomState(0))
    np.testing.assert_allclose(W.T @ W, np.eye(c), atol=1e-12)
    np.testing.assert_allclose(Mq.U.T @ W, 0.0, atol=1e-10 * np.abs(Mq.U).max())
    # tr(W^T (M + gamma I) W) equals the sum of the c smallest eigenvalues: a minimiser
    P = X.T @ L @ X + gamma * np.eye(40)
    optimum = np.linalg.eigvalsh(P)[:c].sum()
    assert np.trace(W.T @ P @ W) == pytest.approx(optimum, rel=1e-10)
