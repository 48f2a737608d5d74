"""Properties of Wolf & Shashua's Q-alpha (spec methods-baselines section 10)."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

import fsclust.rankers.qalpha as qalpha
from fsclust.metrics import clustering_accuracy
from fsclust.rankers.qalpha import QAlpha, g_matrix, g_matvec, normalized_feature_rows


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """The matrices here are tiny: BLAS threads only add contention on a busy machine."""
    with threadpool_limits(limits=1):
        yield


def _fit(X, **kw):
    kw.setdefault("random_state", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return QAlpha(**kw).fit(X)


def _clusters(seed=0, n_per=30, n_relevant=10, n_noise=200, shift=3.0):
    """Three Gaussian clusters that differ in the first ``n_relevant`` features only."""
    rng = np.random.RandomState(seed)
    y = np.repeat(np.arange(3), n_per)
    X = rng.randn(3 * n_per, n_relevant + n_noise)
    X[:, :n_relevant] += shift * rng.randn(3, n_relevant)[y]
    return X, y


def _orthonormal(n, k, rng):
    return np.linalg.qr(rng.randn(n, k))[0]


def _explicit_G(M, Q):
    """G = (M M^T) o (M Q Q^T M^T), written out independently of the module."""
    return (M @ M.T) * (M @ Q @ Q.T @ M.T)


def _top_eigenvectors(S, k):
    vals, vecs = np.linalg.eigh(S)
    return vals[::-1][:k], vecs[:, ::-1][:, :k]


# Shapes that take the dense path (D^2 <= 128 n k) and the matrix-free path.
DENSE, MATRIX_FREE = (60, 20, 2), (20, 300, 2)


def test_feature_rows_centred_unit_norm_constants_zero():
    rng = np.random.RandomState(0)
    X = rng.randn(15, 6) * rng.uniform(0.1, 10, 6) + rng.randn(6)
    X[:, 2] = 4.0
    M = normalized_feature_rows(X)
    live = np.arange(6) != 2
    np.testing.assert_allclose(M[live].sum(axis=1), 0.0, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(M[live], axis=1), 1.0, rtol=1e-12)
    assert np.all(M[2] == 0.0)


@pytest.mark.parametrize("n, D, k", [(30, 12, 3), (10, 200, 4)])
def test_matrix_free_product_equals_explicit_G(n, D, k):
    rng = np.random.RandomState(1)
    M = normalized_feature_rows(rng.randn(n, D))
    Q = _orthonormal(n, k, rng)
    G = _explicit_G(M, Q)
    np.testing.assert_allclose(g_matrix(M, M @ Q), G, rtol=1e-10, atol=1e-12)
    for _ in range(3):
        v = rng.randn(D)
        np.testing.assert_allclose(g_matvec(M, M @ Q, v), G @ v, rtol=1e-10, atol=1e-10)


def test_G_is_positive_semidefinite():
    rng = np.random.RandomState(2)
    M = normalized_feature_rows(rng.randn(12, 40))
    G = _explicit_G(M, _orthonormal(12, 3, rng))
    assert np.linalg.eigvalsh(G).min() >= -1e-10 * np.linalg.eigvalsh(G).max()


def test_quadratic_form_equals_trace_of_squared_affinity():
    rng = np.random.RandomState(3)
    n, D, k = 25, 15, 3
    M = normalized_feature_rows(rng.randn(n, D))
    Q = _orthonormal(n, k, rng)
    alpha = rng.randn(D)
    alpha /= np.linalg.norm(alpha)
    A = M.T @ np.diag(alpha) @ M  # A_alpha = sum_j alpha_j m_j m_j^T
    assert alpha @ _explicit_G(M, Q) @ alpha == pytest.approx(np.trace(Q.T @ A @ A @ Q),
                                                               rel=1e-12)


@pytest.mark.parametrize("shape", [DENSE, MATRIX_FREE], ids=["dense", "matrix-free"])
def test_fitted_objective_is_the_trace_and_first_step_is_the_top_eigenvector(shape):
    n, D, k = shape
    X = np.random.RandomState(4).randn(n, D)
    model = _fit(X, n_clusters=k, max_iter=8, tol=0.0)
    M = normalized_feature_rows(X)
    # iteration 1 from the uniform start: Q0 = top-k eigenvectors of A_alpha0 (prop. to M^T M),
    # and alpha^(1) maximises alpha^T G(Q0) alpha on the sphere
    Q0 = _top_eigenvectors(M.T @ M, k)[1]
    lam_max = np.linalg.eigvalsh(_explicit_G(M, Q0))[-1]
    assert model.objective_history_[0] == pytest.approx(lam_max, rel=1e-10)
    # the final alpha and Q: the quadratic form is trace(Q^T A_alpha^2 Q), and the last QR step
    # did not lower the objective
    alpha, Q = model.scores_, model.Q_
    A = M.T @ (alpha[:, None] * M)
    value = alpha @ _explicit_G(M, Q) @ alpha
    assert value == pytest.approx(np.trace(Q.T @ A @ A @ Q), rel=1e-10)
    assert value >= model.objective_history_[-1] * (1 - 1e-10)
    np.testing.assert_allclose(Q.T @ Q, np.eye(k), atol=1e-12)


@pytest.mark.parametrize("init", ["uniform", "random"])
@pytest.mark.parametrize("shape", [DENSE, MATRIX_FREE], ids=["dense", "matrix-free"])
def test_objective_non_decreasing(init, shape):
    n, D, k = shape
    X = np.random.RandomState(5).randn(n, D)
    history = np.asarray(_fit(X, n_clusters=k, init=init, max_iter=25, tol=0.0)
                         .objective_history_)
    assert history.size == 25
    assert np.all(np.diff(history) >= -1e-8 * np.abs(history[:-1]))


@pytest.mark.parametrize("shape", [DENSE, MATRIX_FREE], ids=["dense", "matrix-free"])
def test_alpha_unit_norm_nonnegative_sum(shape):
    n, D, k = shape
    model = _fit(np.random.RandomState(6).randn(n, D), n_clusters=k)
    assert np.linalg.norm(model.scores_) == pytest.approx(1.0, abs=1e-12)
    assert model.scores_.sum() >= 0
    np.testing.assert_array_equal(model.feature_order_, np.argsort(-model.scores_, kind="stable"))


def test_dense_and_matrix_free_paths_agree(monkeypatch):
    X, _ = _clusters(n_per=10, n_noise=30)
    dense = _fit(X, n_clusters=3, max_iter=15, tol=0.0)
    monkeypatch.setattr(qalpha, "_DENSE_G_RATIO", 0)
    matrix_free = _fit(X, n_clusters=3, max_iter=15, tol=0.0)
    np.testing.assert_allclose(matrix_free.scores_, dense.scores_, atol=1e-8)
    np.testing.assert_allclose(matrix_free.objective_history_, dense.objective_history_,
                               rtol=1e-10)


def test_relevant_block_carries_most_of_alpha():
    X, y = _clusters()  # 90 samples, 10 relevant + 200 noise features: matrix-free path
    model = _fit(X, n_clusters=3)
    alpha2 = model.scores_ ** 2
    assert alpha2[:10].sum() > 0.9 * alpha2.sum()
    assert clustering_accuracy(y, model.labels_) > 0.95


def test_invariant_to_affine_feature_maps_and_sample_order():
    rng = np.random.RandomState(7)
    X, _ = _clusters(seed=1, n_per=12, n_noise=20)
    ref = _fit(X, n_clusters=3, max_iter=10, tol=0.0).scores_
    # any non-zero per-feature scale (negative too: G and A_alpha only see m_j m_j^T) and shift
    scale = rng.uniform(0.1, 10, X.shape[1]) * rng.choice([-1.0, 1.0], X.shape[1])
    mapped = _fit(X * scale + rng.randn(X.shape[1]), n_clusters=3, max_iter=10, tol=0.0)
    np.testing.assert_allclose(mapped.scores_, ref, atol=1e-8)
    perm = rng.permutation(X.shape[0])
    shuffled = _fit(X[perm], n_clusters=3, max_iter=10, tol=0.0)
    np.testing.assert_allclose(shuffled.scores_, ref, atol=1e-8)
    cols = rng.permutation(X.shape[1])
    np.testing.assert_allclose(_fit(X[:, cols], n_clusters=3, max_iter=10, tol=0.0).scores_,
                               ref[cols], atol=1e-8)


def test_constant_features_get_zero_weight_and_rank_last():
    X, _ = _clusters(n_per=10, n_noise=10)
    X[:, [3, 12]] = 2.5
    model = _fit(X, n_clusters=3)
    assert model.scores_[3] == 0.0 and model.scores_[12] == 0.0
    assert set(model.feature_order_[-2:].tolist()) == {3, 12}
    assert np.linalg.norm(model.scores_) == pytest.approx(1.0, abs=1e-12)


def test_all_constant_features_warn_and_give_one_cluster():
    with pytest.warns(UserWarning, match="constant"):
        model = QAlpha(n_clusters=2).fit(np.ones((6, 3)))
    assert np.all(model.scores_ == 0.0)
    assert np.all(model.labels_ == 0)
    assert np.all(model.relabel(1) == 0)


def test_hitting_max_iter_warns():
    X = np.random.RandomState(8).randn(20, 10)
    with pytest.warns(ConvergenceWarning):
        QAlpha(max_iter=2, tol=0.0).fit(X)


@pytest.mark.parametrize("init", ["uniform", "random"])
def test_fixed_seed_gives_identical_output(init):
    X = np.random.RandomState(9).randn(30, 40)
    a = _fit(X, n_clusters=3, init=init, random_state=11)
    b = _fit(X, n_clusters=3, init=init, random_state=11)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    np.testing.assert_array_equal(a.Q_, b.Q_)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.objective_history_ == b.objective_history_


def test_relabel_equals_a_fit_with_that_seed():
    X = np.random.RandomState(3).randn(40, 25)  # no structure: k-means with 1 start varies
    model = _fit(X, n_clusters=4, n_init=1)
    assert not model._scores_use_random_state()
    labels = []
    for seed in range(4):
        other = _fit(X, n_clusters=4, n_init=1, random_state=seed)
        np.testing.assert_array_equal(other.scores_, model.scores_)  # only k-means is random
        np.testing.assert_array_equal(model.relabel(seed), other.labels_)
        labels.append(tuple(other.labels_))
    assert len(set(labels)) > 1  # otherwise the check above would be vacuous
    fitted = _fit(X, n_clusters=4, n_init=1, random_state=np.random.RandomState(5)).labels_
    np.testing.assert_array_equal(model.relabel(np.random.RandomState(5)), fitted)


def test_random_init_cannot_relabel():
    model = _fit(np.random.RandomState(0).randn(10, 5), init="random")
    assert model._scores_use_random_state()
    with pytest.raises(NotImplementedError):
        model.relabel(0)


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"init": "pca"}, ValueError, r"'init' parameter of QAlpha must be a str among .*'random'"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"max_iter": 2.5}, TypeError, "max_iter"),
        ({"tol": -1e-3}, ValueError, "tol"),
        ({"tol": "small"}, TypeError, "tol"),
        ({"n_init": 0}, ValueError, "n_init"),
        ({"n_clusters": 0}, ValueError, "n_clusters"),
        ({"n_clusters": 11}, ValueError, "n_clusters"),
        ({"n_clusters": 2.0}, TypeError, "n_clusters"),
    ],
)
def test_bad_parameters_fail_in_fit(params, error, match):
    model = QAlpha(**params)  # __init__ only stores
    with pytest.raises(error, match=match):
        model.fit(np.random.RandomState(0).randn(10, 4))
