"""RUFS (Qian & Zhai 2013): the properties of spec methods-peers sections 0.5 and 3.5."""


import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.kernel_ridge import KernelRidge

from fsclust.graphs import knn_graph
from fsclust.rankers.rufs import (REFERENCE_SETTINGS, RUFS, _Objective, local_learning_matrix,
                                  projected_lbfgs)


def _synthetic(n_noise=45, seed=0):
    """Spec 0.5.5: four blobs in 5 informative columns plus N(0, 1) columns, z-scored."""
    informative, _ = make_blobs(n_samples=200, centers=4, n_features=5, cluster_std=1.0,
                                random_state=0)
    X = np.hstack([informative, np.random.RandomState(seed).randn(200, n_noise)])
    return (X - X.mean(axis=0)) / X.std(axis=0)


def _problem(n=30, d=8, c=3, seed=0, zeta=10.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    objective = _Objective(X, local_learning_matrix(X, 5, 0.1), nu=0.7, alpha=1.3, beta=0.4,
                           mu=0.1, gamma_F=1e-2, zeta=zeta)
    G = rng.uniform(0.1, 1.0, size=(n, c))
    F = rng.uniform(0.1, 1.0, size=(c, d))
    W = rng.normal(size=(d, c))
    return X, objective, G, F, W


def _finite_difference(fun, x, h=1e-6):
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = h
        grad[index] = (fun(x + step)[0] - fun(x - step)[0]) / (2 * h)
    return grad


@pytest.mark.parametrize("block", ["W", "G", "F"])
def test_block_gradients_equal_their_finite_differences(block):
    X, objective, G, F, W = _problem()
    fun, x = {"W": (objective.W_block(G), W), "G": (objective.G_block(F, W), G),
              "F": (objective.F_block(G), F)}[block]
    np.testing.assert_allclose(fun(x)[1], _finite_difference(fun, x), rtol=1e-6, atol=1e-7)


def test_the_blocks_are_the_full_objective_up_to_terms_constant_in_the_block():
    X, objective, G, F, W = _problem()
    rng = np.random.default_rng(1)
    for name, move in (("W", lambda: (G, F, W + rng.normal(size=W.shape))),
                       ("G", lambda: (G + rng.uniform(size=G.shape), F, W)),
                       ("F", lambda: (G, F + rng.uniform(size=F.shape), W))):
        G2, F2, W2 = move()
        fun = {"W": lambda g, f: objective.W_block(g), "G": lambda g, f: objective.G_block(f, W2),
               "F": lambda g, f: objective.F_block(g)}[name](G2, F2)
        before = {"W": W, "G": G, "F": F}[name]
        after = {"W": W2, "G": G2, "F": F2}[name]
        np.testing.assert_allclose(objective.value(G2, F2, W2) - objective.value(G, F, W),
                                   fun(after)[0] - fun(before)[0], rtol=1e-10)


@pytest.mark.parametrize("block, nonnegative", [("W", False), ("G", True), ("F", True)])
def test_each_block_solve_does_not_increase_its_objective_and_keeps_the_constraint(block,
                                                                                  nonnegative):
    X, objective, G, F, W = _problem(zeta=1e3)
    fun, x = {"W": (objective.W_block(G), W), "G": (objective.G_block(F, W), G),
              "F": (objective.F_block(G), F)}[block]
    new, _ = projected_lbfgs(fun, x, nonnegative=nonnegative, tol_f=1e-10, tol_grad=0.0)
    assert fun(new)[0] <= fun(x)[0]
    if nonnegative:
        assert new.min() >= 0.0


@pytest.mark.parametrize("init", ["orthonormal", "one-hot"])
def test_objective_never_increases_across_outer_iterations(init):
    X = _synthetic()
    model = RUFS(n_clusters=4, max_iter=10, tol=0.0, init=init, random_state=0).fit(X)
    history = np.array(model.objective_history_)
    assert len(history) == model.n_iter_ + 1 >= 2
    assert np.all(np.diff(history) <= 1e-10 * np.abs(history[:-1]))


@pytest.mark.parametrize("init", ["orthonormal", "one-hot"])
def test_the_fixed_point_stop_loses_nothing(init):
    """Cycles beyond the one that left W, G and F unchanged give the same fit."""
    X = _synthetic(n_noise=10)
    model = RUFS(n_clusters=4, tol=0.0, init=init, random_state=0).fit(X)
    assert model.converged_ and model.n_iter_ < model.max_iter

    def fit(max_iter):
        fitted = RUFS(n_clusters=4, tol=0.0, init=init, max_iter=max_iter, random_state=0).fit(X)
        return [getattr(fitted, name) for name in ("W_", "G_", "F_")]

    final = [model.W_, model.G_, model.F_]
    # the last cycle changed nothing, so later ones would not either; the one before it moved
    for other in (fit(model.n_iter_ - 1), fit(model.n_iter_ + 5)):
        for a, b in zip(other, final):
            np.testing.assert_array_equal(a, b)
    assert not all(np.array_equal(a, b) for a, b in zip(fit(model.n_iter_ - 2), final))


def test_the_graph_kernel_is_fsasls_per_sample_literal_form_and_l_is_psd():
    X = np.random.default_rng(2).normal(size=(40, 6))
    M = local_learning_matrix(X, n_neighbors=5, ridge=0.1, kernel="graph")
    K = knn_graph(X, n_neighbors=5).toarray()
    A = np.zeros_like(K)
    for i in range(K.shape[0]):  # localLearnMx_KRR, one sample at a time
        nbrs = np.flatnonzero(K[i] > 0)
        A[i, nbrs] = K[i, nbrs] @ np.linalg.inv(K[np.ix_(nbrs, nbrs)] + 0.1 * np.eye(nbrs.size))
    identity = np.eye(K.shape[0])
    L = (identity - A).T @ (identity - A)
    np.testing.assert_allclose((M.T @ M).toarray(), L, atol=1e-12)
    assert np.linalg.eigvalsh(L).min() >= -1e-12


def test_each_row_of_a_is_the_kernel_ridge_prediction_from_the_neighbours():
    """``(A g)_i`` is what kernel ridge regression on the neighbours ``N_i`` (the heat kernel of
    the graph's bandwidth, ``ridge`` its penalty) predicts at ``x_i``, for any values ``g``."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 6))
    g = rng.normal(size=40)
    K, t = knn_graph(X, n_neighbors=5, return_bandwidth=True)
    K = K.toarray()
    Ag = g - local_learning_matrix(X, n_neighbors=5, ridge=0.1) @ g
    for i in range(40):
        nbrs = np.flatnonzero(K[i] > 0)
        model = KernelRidge(alpha=0.1, kernel="rbf", gamma=1.0 / t).fit(X[nbrs], g[nbrs])
        np.testing.assert_allclose(Ag[i], model.predict(X[i:i + 1])[0], rtol=1e-10,
                                   atol=1e-12)


def test_the_local_learning_penalty_prefers_the_clusters_with_the_gram_kernel_only():
    """``tr(G^T L G)`` of the cluster indicator is below that of a shuffled one with the
    kernel's Gram matrix; FSASL's graph block, with its zero diagonal, ranks them the other
    way round (four tight blobs of 200 samples)."""
    informative, labels = make_blobs(n_samples=200, centers=4, n_features=5, random_state=0)
    G = np.eye(4)[labels] / np.sqrt(50.0)
    shuffled = G[np.random.default_rng(6).permutation(200)]

    def penalty(kernel, H):
        MH = local_learning_matrix(informative, 5, 0.1, kernel) @ H
        return np.sum(MH * MH)
    assert penalty("gram", G) < 0.1 * penalty("gram", shuffled)
    assert penalty("graph", G) > penalty("graph", shuffled)
    assert REFERENCE_SETTINGS == {"local_kernel": "graph", "beta": 1.0}


@pytest.mark.parametrize("n, d", [(40, 15), (20, 60)])
def test_the_push_through_start_equals_the_d_by_d_ridge_solve(n, d):
    X = np.random.default_rng(3).normal(size=(n, d))
    model = RUFS(n_clusters=3, beta=0.7, alpha=2.0)
    G, _, W = model._start(X, np.random.RandomState(0))
    literal = np.linalg.solve(X.T @ X + (0.7 / 2.0) * np.eye(d), X.T @ G)
    np.testing.assert_allclose(W, literal, rtol=1e-8, atol=1e-10)


def test_start_is_one_hot_or_orthonormal_with_the_same_product_and_positive_centres():
    X = _synthetic()
    G, F, _ = RUFS(n_clusters=4, init="one-hot")._start(X, np.random.RandomState(0))
    np.testing.assert_array_equal(G.sum(axis=1), 1.0)
    assert set(np.unique(G)) == {0.0, 1.0} and F.min() > 0.0
    Q, F_q, _ = RUFS(n_clusters=4)._start(X, np.random.RandomState(0))
    # the constraint G^T G = I holds at the start, so the orthogonality penalty is 0 there
    np.testing.assert_allclose(Q.T @ Q, np.eye(4), atol=1e-14)
    np.testing.assert_array_equal(Q > 0, G > 0)
    # the same positive part of the cluster means in G0 F0 (z-scored data: some centre entries
    # are negative, so the smallest entry of F0 is the added shift)
    np.testing.assert_allclose(Q @ (F_q - F_q.min()), G @ (F - F.min()), atol=1e-12)


def test_permutations_of_features_and_samples():
    """Well-separated blobs: k-means gives the same partition in any order, so the whole
    iteration is permuted with the data."""
    X = _synthetic(n_noise=10)
    rng = np.random.default_rng(4)
    rows, cols = rng.permutation(X.shape[0]), rng.permutation(X.shape[1])
    base = RUFS(n_clusters=4, random_state=0).fit(X).scores_
    np.testing.assert_allclose(RUFS(n_clusters=4, random_state=0).fit(X[:, cols]).scores_,
                               base[cols], rtol=1e-6)
    np.testing.assert_allclose(RUFS(n_clusters=4, random_state=0).fit(X[rows]).scores_, base,
                               rtol=1e-6)


def test_recovers_the_informative_features():
    model = RUFS(n_clusters=4, random_state=0).fit(_synthetic())
    assert len(set(model.feature_order_[:5].tolist()) & set(range(5))) >= 4


def test_runs_on_2000_features():
    """Spec 0.5.5's wide variant (RUFS has no degenerate start to report; its time, 9 s
    measured, is the benchmark suite's, not a unit test's). Measured: none of the 5
    informative features in the top 10 there, seed 0, at either init (the fit stops at its
    fixed point after 2 cycles)."""
    model = RUFS(n_clusters=4, random_state=0).fit(_synthetic(n_noise=1995))
    assert np.all(np.isfinite(model.scores_)) and model.W_.shape == (2000, 4)


@pytest.mark.xfail(strict=True, reason=(
    "measured: 1 of 5 informative features in the top 5 and in the top 10, at either init and "
    "also with inner_tol=1e-3 (so not the early stop): the k-means start puts 3 outliers in "
    "clusters of their own and the 190 inliers in one cluster, so G0 carries nothing of the "
    "four blobs and RUFS stays in the local minimum near it"))
def test_outlier_samples_leave_the_informative_features_on_top():
    X = _synthetic()
    rng = np.random.RandomState(5)
    outliers = rng.choice(X.shape[0], size=X.shape[0] // 20, replace=False)
    X[outliers] = 100.0 * rng.randn(outliers.size, X.shape[1])
    model = RUFS(n_clusters=4, random_state=0).fit(X)
    assert len(set(model.feature_order_[:5].tolist()) & set(range(5))) >= 4


def test_duplicated_samples_give_finite_scores():
    """A residual row exactly 0 (the reference divides by its norm: NaN)."""
    X = _synthetic(n_noise=5)
    X = np.vstack([X, X[:20]])
    assert np.all(np.isfinite(RUFS(n_clusters=4, random_state=0).fit(X).scores_))


def test_the_auto_weight_is_where_W_0_starts_to_minimise_the_robust_regression():
    # beta_max = alpha max_j ||x_j^T H0||: W = 0 minimises alpha ||X W - G0||_{2,1} +
    # beta ||W||_{2,1} for beta >= beta_max (no direction descends from it) and not below
    from fsclust.rankers import rufs

    rng = np.random.RandomState(0)
    X, labels, alpha = rng.randn(30, 8), np.arange(30) % 3, 1.7
    G0 = np.eye(3)[labels] / np.sqrt(10.0)
    weight = rufs.resolve_beta("auto", alpha, X, labels, 3) / rufs.BETA_PER_MAX

    def objective(W, beta):
        return (alpha * np.linalg.norm(X @ W - G0, axis=1).sum()
                + beta * np.linalg.norm(W, axis=1).sum())

    directions = rng.randn(200, 8, 3)
    for beta in (1.01 * weight, 1.5 * weight):
        assert all(objective(1e-6 * E, beta) >= objective(0 * E, beta) for E in directions)
    # below it, the row of the largest ||x_j^T H0|| descends along its gradient
    H0 = np.eye(3)[labels]
    j = np.argmax(np.linalg.norm(X.T @ H0, axis=1))
    E = np.zeros((8, 3))
    E[j] = X[:, j] @ H0
    assert objective(1e-6 * E, 0.99 * weight) < objective(0 * E, 0.99 * weight)


def test_the_default_weight_keeps_the_planted_features_first_where_n_equals_d():
    # issue 40: beta = 1 is small beside X's scale at n = d, where the ridge start interpolates
    # G0 with the noise features; beta="auto" scales it (tests/_embedded.planted_problem,
    # 10 planted of 80 features, 80 samples, 4 groups: 0.8 at the default, 0.4 at beta = 1)
    from _embedded import planted_problem

    X, planted = planted_problem(80, 80, 10)
    model = RUFS(n_clusters=4, random_state=0).fit(X)
    assert planted[model.feature_order_[:10]].mean() >= 0.8
    reference = RUFS(n_clusters=4, random_state=0, beta=1.0).fit(X)
    assert planted[reference.feature_order_[:10]].mean() <= 0.5
    # the weight scales with X: the same k-means start, beta_ times 1000
    scaled = RUFS(n_clusters=4, random_state=0).fit(1000.0 * X)
    np.testing.assert_allclose(scaled.beta_, 1000.0 * model.beta_, rtol=1e-10)
