"""MCFS at single-cell scale (issue 39, item 4): the graph on principal components, its
embedding by Lanczos, the screened regressions on centred sparse features; equal to the dense
forms, deterministic whatever the thread count, and the one-line refusals."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from fsclust.counts.preprocess import normalize_log1p
from fsclust.counts.synthetic import synthetic_counts
from fsclust.graphs import knn_graph, pca_knn_graph
from fsclust.rankers import MCFS, mcfs
from fsclust.rankers.base import SizeBoundError, sparse_input
from fsclust.rankers.mcfs import (MCFS_DATA_GRAPH_MAX_SAMPLES, correlation_screens,
                                  lanczos_embedding_targets, lasso_coefficients,
                                  screened_lasso_coefficients, spectral_embedding_targets)


def _counts(n=300, d=60, seed=0):
    """Log-normalised synthetic counts with three planted cell types (5 markers each)."""
    X, _, markers = synthetic_counts(n, d, n_types=3, markers_per_type=5, random_state=seed)
    return normalize_log1p(X), markers


def test_lanczos_embedding_is_the_dense_embedding():
    # the same deflated problem by Lanczos on the sparse graph and by a dense eigh: the same
    # eigenvectors (canonical signs), D-orthonormal and orthogonal to the degrees
    X, _ = _counts()
    W = pca_knn_graph(X, n_neighbors=10, n_pcs=5, weight="heat")
    lanczos = lanczos_embedding_targets(W, 4)
    dense = spectral_embedding_targets(W, 4)
    np.testing.assert_allclose(lanczos, dense, atol=1e-9)
    d = np.asarray(W.sum(axis=1)).ravel()
    np.testing.assert_allclose(lanczos.T @ (d[:, None] * lanczos), np.eye(4), atol=1e-10)
    np.testing.assert_allclose(lanczos.T @ d, 0.0, atol=1e-9)


def test_unscreened_regression_of_sparse_input_is_the_current_lasso_of_the_centred_data():
    # regression_features=None on a given graph: the current (dense) lasso-LARS of MCFS on
    # the explicitly centred features, to round-off; the path reads an implicitly centred Gram
    # matrix of the CSR input
    rng = np.random.RandomState(0)
    X = np.abs(rng.randn(200, 40)) + 3.0
    X[:100, :4] += 1.5
    Y = spectral_embedding_targets(knn_graph(X, 5), 3)
    reference = lasso_coefficients(X - X.mean(axis=0), Y, 8)[0]
    ours, cardinality, screens, _ = screened_lasso_coefficients(sp.csr_matrix(X), Y, 8)
    np.testing.assert_allclose(ours, reference, rtol=0, atol=1e-10)
    assert np.all(cardinality == 8) and screens.shape == (3, 40)
    dense = screened_lasso_coefficients(X, Y, 8)[0]
    np.testing.assert_allclose(dense, ours, rtol=0, atol=1e-12)


def test_the_pca_path_without_screen_scores_as_the_current_lasso_on_its_graph():
    X, _ = _counts()
    model = MCFS(graph="pca", n_neighbors=10, n_pcs=5, n_clusters=3, n_nonzero_coefs=6,
                 regression_features=None).fit(X)
    W = model._pca_graph(X, 10)  # deterministic: the fit's own graph
    Y = lanczos_embedding_targets(W, 3)
    dense = X.toarray().astype(np.float64)
    reference = lasso_coefficients(dense - dense.mean(axis=0), Y, 6)[0]
    np.testing.assert_allclose(model.scores_, np.abs(reference).max(axis=1), rtol=0,
                               atol=1e-10)


def test_a_screen_is_each_eigenvectors_most_correlated_features_and_nothing_else():
    # each regression is the unscreened one on its screened columns: the screen restricts
    # the features, it changes nothing else
    rng = np.random.RandomState(1)
    X = rng.rand(150, 30)
    X[:75, :3] += 1.0
    Y = spectral_embedding_targets(knn_graph(X, 5), 2)
    Xc = X - X.mean(axis=0)
    ours, _, screens, _ = screened_lasso_coefficients(X, Y, 4, n_screen=10)
    for k, S in enumerate(screens):
        correlation = np.abs(Xc.T @ Y[:, k])
        assert set(S) == set(np.argsort(-correlation)[:10])
        np.testing.assert_allclose(ours[S, k], lasso_coefficients(Xc[:, S], Y[:, [k]], 4)[0][:, 0],
                                   rtol=0, atol=1e-12)
        assert not np.any(np.delete(ours[:, k], S))
    assert [list(s) for s in correlation_screens(Xc.T @ Y, None)] == [list(range(30))] * 2


def test_sparse_and_dense_input_give_the_same_scores_and_order():
    X, _ = _counts()
    params = {"graph": "pca", "n_neighbors": 10, "n_pcs": 5, "n_clusters": 3,
              "n_nonzero_coefs": 6, "regression_features": 15}
    sparse = MCFS(**params).fit(X)
    dense = MCFS(**params).fit(X.toarray())
    np.testing.assert_allclose(sparse.scores_, dense.scores_, rtol=1e-10, atol=1e-12)
    assert np.array_equal(sparse.feature_order_, dense.feature_order_)


def test_the_pca_path_scores_do_not_change_when_a_feature_is_shifted():
    # centred features (an intercept): adding a constant to a feature changes nothing, neither
    # the graph (the PCA centres) nor the regressions
    X, _ = _counts()
    X = X.toarray().astype(np.float64)
    shifted = X + np.random.RandomState(0).uniform(0.0, 5.0, X.shape[1])
    params = {"graph": "pca", "n_neighbors": 10, "n_pcs": 5, "n_clusters": 3,
              "n_nonzero_coefs": 6, "regression_features": 15}
    ours, moved = MCFS(**params).fit(X), MCFS(**params).fit(shifted)
    np.testing.assert_allclose(moved.scores_, ours.scores_, rtol=1e-8, atol=1e-10)
    assert np.array_equal(moved.feature_order_, ours.feature_order_)


def test_the_pca_path_keeps_sparse_input_sparse(monkeypatch):
    X, _ = _counts()
    toarray = sp.csr_matrix.toarray

    def no_full_copy(self, *args, **kwargs):
        # the PCA and the Gram matrices read dense blocks of their columns, never all columns
        if self.shape[1] == X.shape[1]:
            pytest.fail(f"densified {self.shape}")
        return toarray(self, *args, **kwargs)

    monkeypatch.setattr(sp.csr_matrix, "toarray", no_full_copy)
    MCFS(graph="pca", n_neighbors=10, n_pcs=5, graph_features=20, n_clusters=3,
         n_nonzero_coefs=6, regression_features=15).fit(X)
    assert sparse_input(MCFS()) and sparse_input(MCFS(graph="pca"))


def test_the_pca_path_finds_the_planted_markers():
    # 1,000 cells x 300 genes, 4 types x 5 markers (m = 20; a random ranking puts 7 % of them
    # in its top 20). Measured with these parameters (2026-11-28): precision 0.70, 0.90, 0.75,
    # 0.75, 0.70 for the seeds 0-4 of the counts; the Laplacian score on the same graph
    # 0.90-0.95. The bound leaves a margin of 0.2 below the lowest
    X, _, markers = synthetic_counts(1000, 300, n_types=4, markers_per_type=5, density=0.5,
                                     random_state=0)
    X = normalize_log1p(X)
    m = int((markers >= 0).sum())
    model = MCFS(graph="pca", n_neighbors=15, n_pcs=10, n_clusters=4, n_features_to_select=m,
                 regression_features=2 * m, graph_prefilter="dispersion").fit(X)
    assert np.unique(model.screened_features_).size < X.shape[1]  # the screen is in use
    precision = np.mean(markers[model.feature_order_[:m]] >= 0)
    assert precision >= 0.5


def test_features_no_regression_saw_rank_after_the_screened_ones():
    X, _ = _counts()
    model = MCFS(graph="pca", n_neighbors=10, n_pcs=5, n_clusters=2, n_nonzero_coefs=3,
                 regression_features=6).fit(X)
    seen = np.unique(model.screened_features_)
    assert seen.size < X.shape[1]
    head = model.feature_order_[:seen.size]
    assert set(head) == set(seen)
    assert np.all(model.scores_[np.setdiff1d(np.arange(X.shape[1]), seen)] == 0)
    assert np.all(np.diff(model.scores_[head]) <= 0)  # the screened ones by score


def test_scores_for_a_smaller_k_equal_a_fit_with_that_k_on_the_pca_graph():
    # each eigenvector's screen depends on that eigenvector alone, so the selector's reading
    # of a smaller K from one fit still holds
    X, _ = _counts()
    params = {"graph": "pca", "n_neighbors": 10, "n_pcs": 5, "n_nonzero_coefs": 5,
              "regression_features": 12}
    big = MCFS(n_clusters=4, **params).fit(X)
    for k in (1, 2, 3):
        own = MCFS(n_clusters=k, **params).fit(X)
        np.testing.assert_allclose(big.scores_for_n_clusters(k), own.scores_, rtol=1e-7,
                                   atol=1e-9)


def test_the_pca_path_is_deterministic_whatever_the_thread_count():
    X, _ = _counts()
    params = {"graph": "pca", "n_neighbors": 10, "n_pcs": 5, "n_clusters": 3,
              "n_nonzero_coefs": 6, "regression_features": 15, "random_state": 3}
    fits = []
    for threads in (1, 2, 2):
        with threadpool_limits(limits=threads):
            fits.append(MCFS(**params).fit(X))
    for other in fits[1:]:
        assert other.scores_.tobytes() == fits[0].scores_.tobytes()
        assert np.array_equal(other.feature_order_, fits[0].feature_order_)


def test_the_graph_on_the_data_refuses_beyond_its_bound_in_one_line():
    big = sp.csr_matrix((MCFS_DATA_GRAPH_MAX_SAMPLES + 1, 3))  # no stored values: costs nothing
    with pytest.raises(SizeBoundError) as caught:
        MCFS().fit(big)
    message = str(caught.value)
    assert "\n" not in message
    assert f"at most {MCFS_DATA_GRAPH_MAX_SAMPLES:,} samples" in message
    assert "graph='pca'" in message


def test_the_unscreened_pca_path_refuses_a_gram_matrix_beyond_its_bound(monkeypatch):
    monkeypatch.setattr(mcfs, "_GRAM_MAX_BYTES", 8 * 50**2)
    X, _ = _counts()
    with pytest.raises(SizeBoundError) as caught:
        MCFS(graph="pca", n_neighbors=10, n_pcs=5, regression_features=None).fit(X)
    message = str(caught.value)
    assert "\n" not in message and "60 x 60 Gram matrix" in message
    assert "pass regression_features" in message
    with pytest.raises(ValueError, match="graph='pca' takes solver='cai'"):
        MCFS(graph="pca", solver="skfeature").fit(X)


def test_a_path_short_of_the_cardinality_warns_once_on_the_pca_graph():
    # without the ridge, 20 centred samples have rank 19: no path reaches 25 non-zeros
    X, _ = _counts(n=20, d=60)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = MCFS(graph="pca", n_neighbors=5, n_pcs=5, n_clusters=1, n_nonzero_coefs=25,
                     ridge=0.0).fit(X)
    ours = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(ours) == 1 and "never reached 25 non-zero coefficients" in str(ours[0].message)
    assert np.count_nonzero(model.coef_) <= 19
