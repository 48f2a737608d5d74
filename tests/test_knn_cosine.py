"""The cosine kNN graph of Cai's LaplacianScore.m usage example (knn_graph(metric="cosine",
weight="cosine")) and the Laplacian score on it (Zhang et al. 2012's Laplacian score)."""

import numpy as np
import pytest

from fsclust.graphs import knn_graph
from fsclust.rankers import LaplacianScore, laplacian_score


def _cai_construct_w(X, k):
    """Cai's constructW (Metric 'Cosine', NeighborMode 'KNN', WeightMode 'Cosine',
    bSelfConnected 1), written out by brute force: each row's k + 1 largest cosines (itself
    first) weigh the edges, then W = max(W, W')."""
    F = X / np.linalg.norm(X, axis=1, keepdims=True)
    S = F @ F.T
    n = len(X)
    W = np.zeros((n, n))
    for i in range(n):
        order = np.argsort(-S[i], kind="stable")[: k + 1]
        W[i, order] = S[i, order]
    return np.maximum(W, W.T)


@pytest.mark.parametrize("seed", range(4))
def test_cosine_knn_graph_is_cai_construct_w(seed):
    X = np.random.RandomState(seed).randn(30, 8)
    W = knn_graph(X, 5, metric="cosine", weight="cosine", self_loops=True).toarray()
    np.testing.assert_allclose(W, _cai_construct_w(X, 5), atol=1e-12)


def test_cosine_graph_ignores_each_sample_length_and_no_centring():
    rng = np.random.RandomState(1)
    X = rng.rand(25, 6) + 1.0  # all positive: centring would change every cosine
    scaled = X * rng.uniform(0.1, 10.0, (25, 1))
    W = knn_graph(X, 4, metric="cosine", weight="cosine").toarray()
    np.testing.assert_allclose(W, knn_graph(scaled, 4, metric="cosine", weight="cosine").toarray(),
                               atol=1e-12)
    F = X / np.linalg.norm(X, axis=1, keepdims=True)
    edges = W > 0
    np.testing.assert_allclose(W[edges], (F @ F.T)[edges], atol=1e-12)
    assert np.all(np.diag(W) == 0)


def test_cosine_graph_mutual_keeps_pairs_both_ends_list():
    X = np.random.RandomState(2).randn(20, 5)
    W_or = knn_graph(X, 3, metric="cosine", weight="cosine", allow_isolated=True).toarray()
    W_and = knn_graph(X, 3, metric="cosine", weight="cosine", symmetrize="and",
                      allow_isolated=True).toarray()
    binary_and = knn_graph(X, 3, metric="cosine", weight="binary", symmetrize="and",
                           allow_isolated=True).toarray()
    np.testing.assert_array_equal(W_and != 0, binary_and != 0)
    np.testing.assert_allclose(W_and[W_and != 0], W_or[W_and != 0])


def test_heat_weights_need_the_euclidean_metric():
    X = np.random.RandomState(0).rand(10, 3)
    with pytest.raises(ValueError, match="metric"):
        knn_graph(X, 3, metric="cosine", weight="heat")
    with pytest.raises(ValueError, match="metric"):
        knn_graph(X, 3, weight="cosine")
    with pytest.raises(ValueError, match="metric must be"):
        knn_graph(X, 3, metric="manhattan")
    with pytest.raises(ValueError, match="n_neighbors"):
        LaplacianScore(n_neighbors=None, metric="cosine", weight="cosine").fit(X)


def test_euclidean_default_is_unchanged():
    X = np.random.RandomState(3).rand(30, 4)
    np.testing.assert_array_equal(knn_graph(X, 5).toarray(),
                                  knn_graph(X, 5, metric="euclidean").toarray())
    np.testing.assert_array_equal(LaplacianScore().fit(X).scores_,
                                  LaplacianScore(metric="euclidean").fit(X).scores_)


@pytest.mark.parametrize("seed", range(3))
def test_laplacian_score_on_the_cosine_graph_is_one_minus_cai_score(seed):
    """Cai's LaplacianScore.m returns Y = f~' W f~ / f~' D f~ (larger is better); He et al.'s
    score is L = f~' (D - W) f~ / f~' D f~ = 1 - Y (smaller is better): the same ranking,
    opposite directions, so "score > mean + sd" keeps opposite ends of it."""
    rng = np.random.RandomState(seed)
    X = rng.randn(40, 12)
    ranker = LaplacianScore(n_neighbors=5, metric="cosine", weight="cosine",
                            self_loops=True).fit(X)
    W = _cai_construct_w(X, 5)
    d = W.sum(axis=1)
    t = d @ X
    d_prime = ((X.T * d) * X.T).sum(axis=1) - t * t / d.sum()
    l_prime = ((X.T @ W) * X.T).sum(axis=1) - t * t / d.sum()
    cai_y = l_prime / d_prime
    np.testing.assert_allclose(ranker.scores_, 1.0 - cai_y, atol=1e-10)
    np.testing.assert_allclose(ranker.scores_, laplacian_score(X, W), atol=1e-12)
    assert ranker.t_ is None
