"""The graph at scale and the sparse paths of the rankers that scale (issue 39, items 3-4):
the PCA embedding, the neighbours, the graph's quadratic forms, the Laplacian score and SPEC
on sparse input, equal to their dense forms; determinism; the one-line refusals."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.decomposition import PCA
from sklearn.neighbors import NearestNeighbors

from fsclust import graphs
from fsclust.graphs import (canonical_sign_flip, graph_quadratic_forms, kneighbors_at_scale,
                            knn_graph, pca_embedding, pca_knn_graph)
from fsclust.rankers import SPEC, LaplacianScore
from fsclust.rankers.base import SizeBoundError
from fsclust.rankers.laplacian import (graph_prefilter_features, laplacian_score,
                                       normalized_dispersions, top_variance_features)
from fsclust.rankers.spec import spec_scores


def _counts(n=400, d=60, seed=0):
    """Poisson counts with two groups of cells and five marker genes, as CSR and log1p."""
    rng = np.random.RandomState(seed)
    X = rng.poisson(0.3, (n, d)).astype(float)
    X[: n // 2, :5] += rng.poisson(2.0, (n // 2, 5))
    return np.log1p(X)


def test_pca_embedding_is_scikit_learns_pca_with_the_canonical_sign():
    X = _counts()
    ours, variance = pca_embedding(X, n_components=5)
    reference = PCA(5, svd_solver="full").fit(X)
    # the sign of each component is the canonical one of its loadings
    loadings = canonical_sign_flip(reference.components_.T)
    np.testing.assert_allclose(ours, (X - reference.mean_) @ loadings, atol=1e-9)
    np.testing.assert_allclose(variance, reference.explained_variance_, rtol=1e-9)


def test_pca_embedding_of_sparse_and_dense_input_and_of_a_column_subset_agree():
    X = _counts()
    columns = np.array([0, 3, 7, 11, 20, 40])
    dense, _ = pca_embedding(X, n_components=3, features=columns)
    sparse, _ = pca_embedding(sp.csr_matrix(X), n_components=3, features=columns)
    alone, _ = pca_embedding(X[:, columns], n_components=3)
    np.testing.assert_allclose(sparse, dense, atol=1e-10)
    np.testing.assert_allclose(alone, dense, atol=1e-10)


def test_pca_fitted_on_a_seeded_subsample_projects_every_sample_the_same_way_each_time():
    X = _counts(n=500)
    first, _ = pca_embedding(X, n_components=3, max_fit_samples=200, random_state=1)
    again, _ = pca_embedding(X, n_components=3, max_fit_samples=200, random_state=1)
    full, _ = pca_embedding(X, n_components=3)
    assert first.shape == (500, 3) and np.array_equal(first, again)
    # the subsample's leading component is the full one's, to sampling error
    cosine = abs(first[:, 0] @ full[:, 0]) / np.linalg.norm(first[:, 0]) / np.linalg.norm(
        full[:, 0])
    assert cosine > 0.99


def test_pca_refuses_more_features_than_its_covariance_bound(monkeypatch):
    monkeypatch.setattr(graphs, "PCA_MAX_FEATURES", 10)
    with pytest.raises(ValueError, match=r"^a PCA embedding of 60 features .* prefilter to at "
                                         r"most 10 features") as caught:
        pca_embedding(_counts(), 2)
    assert "\n" not in str(caught.value)


def test_exact_neighbours_are_scikit_learns():
    E = pca_embedding(_counts(), 10)[0]
    indices, distances = kneighbors_at_scale(E, 7, method="exact")
    ref_d, ref_i = NearestNeighbors(n_neighbors=7).fit(E).kneighbors()
    assert np.array_equal(indices, ref_i)
    np.testing.assert_allclose(distances, ref_d, atol=1e-9)


@pytest.mark.slow  # pynndescent's numba compilation: 30-90 s in a fresh process
@pytest.mark.xdist_group("pynndescent")  # with test_chunked's 3 x 10^4 cells: compiled once
def test_approximate_neighbours_recall_the_exact_ones_and_repeat_with_the_seed():
    pytest.importorskip("pynndescent")
    E = pca_embedding(_counts(n=1500), 10)[0]
    exact, _ = kneighbors_at_scale(E, 10, method="exact")
    approx, distances = kneighbors_at_scale(E, 10, method="pynndescent", random_state=3)
    again, _ = kneighbors_at_scale(E, 10, method="pynndescent", random_state=3)
    assert np.array_equal(approx, again)
    assert not (approx == np.arange(1500)[:, None]).any()  # no sample its own neighbour
    recall = np.mean([np.intersect1d(a, b).size / 10 for a, b in zip(approx, exact)])
    assert recall > 0.95
    assert np.all(np.diff(distances, axis=1) >= 0.0)
    # the distances of the pairs found are the embedding's own
    np.testing.assert_allclose(distances, np.linalg.norm(E[:, None, :] - E[approx], axis=2),
                               rtol=1e-12)


def test_distances_on_the_integer_grid_are_exact_in_float32_in_any_summation_order():
    # what makes the approximate search take the same steps on every CPU: summed in any order
    # (numba's fastmath, another SIMD width), a float32 distance on the grid is the exact one
    rng = np.random.RandomState(0)
    E = rng.standard_normal((400, 64)) * np.geomspace(30.0, 0.5, 64)
    G = graphs.integer_grid(E)
    assert np.abs(G).max() == graphs.GRID_HALF_WIDTH and np.array_equal(G, np.rint(G))
    i, j = rng.randint(0, 400, (2, 5000))
    exact = ((G[i].astype(np.float64) - G[j]) ** 2).sum(axis=1)
    squares = (G[i] - G[j]) ** 2  # float32
    forward = np.zeros(5000, dtype=np.float32)
    for column in range(64):
        forward += squares[:, column]
    backward = np.zeros(5000, dtype=np.float32)
    for column in reversed(range(64)):
        backward += squares[:, column]
    for total in (forward, backward, squares.sum(axis=1), np.einsum("ij,ij->i", G[i] - G[j],
                                                                      G[i] - G[j])):
        assert np.array_equal(total.astype(np.float64), exact)
    # the raw float32 embedding has no such property: the orders disagree somewhere
    raw = ((E[i] - E[j]) ** 2).astype(np.float32)
    assert not np.array_equal(raw.sum(axis=1), np.cumsum(raw[:, ::-1], axis=1)[:, -1])
    with pytest.raises(ValueError, match="at most 64"):
        graphs.integer_grid(np.ones((3, 65)))


def test_pca_knn_graph_is_symmetric_binary_without_loops_and_separates_the_groups():
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(50, 8), rng.randn(50, 8) + 6.0])
    W = pca_knn_graph(sp.csr_matrix(X), n_neighbors=5, n_pcs=3)
    assert (W != W.T).nnz == 0 and W.diagonal().sum() == 0
    assert set(np.unique(W.data)) == {1.0}
    assert W[:50, 50:].nnz == 0
    assert (np.asarray(W.sum(axis=1)).ravel() >= 5).all()
    heat = pca_knn_graph(X, n_neighbors=5, n_pcs=3, weight="heat")
    assert (heat.data > 0).all() and (heat.data <= 1).all()
    assert np.array_equal(heat.indices, W.indices)


def test_graph_quadratic_forms_are_the_literal_sums_over_pairs():
    X = _counts(n=60, d=8)
    W = knn_graph(X, 4, weight="heat")
    W = sp.csr_matrix(W + 0.5 * sp.identity(60))  # a diagonal counts in the degrees only
    d, dX, fDf, fLf = graph_quadratic_forms(sp.csr_matrix(X), W)
    Wd = W.toarray()
    for j in range(X.shape[1]):
        f = X[:, j]
        literal = 0.5 * sum(Wd[a, b] * (f[a] - f[b]) ** 2 for a in range(60) for b in range(60))
        assert fLf[j] == pytest.approx(literal, rel=1e-10)
        assert fDf[j] == pytest.approx(np.sum(Wd.sum(axis=1) * f**2), rel=1e-12)
        assert dX[j] == pytest.approx(Wd.sum(axis=1) @ f, rel=1e-12)


def test_compiled_and_scipy_cross_products_agree_whatever_the_thread_count():
    numba = pytest.importorskip("numba")
    X = sp.csr_matrix(_counts(n=300, d=40))
    W = pca_knn_graph(X, n_neighbors=8, n_pcs=5)
    scipy_path = graphs._cross_products(X, W, use_numba=False)
    threshold = graphs._NUMBA_MIN_WORK
    try:
        graphs._NUMBA_MIN_WORK = 0
        results = []
        for threads in (1, 2):
            numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
            results.append(graphs._cross_products(X, W))
    finally:
        graphs._NUMBA_MIN_WORK = threshold
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert results[0].tobytes() == results[1].tobytes()  # fixed chunks, summed in order
    np.testing.assert_allclose(results[0], scipy_path, rtol=1e-12)


def test_compiled_and_scipy_pair_products_agree():
    # the chunked path's kernel (graphs.cross_products_between on two row blocks), compiled,
    # against scipy's edge sums: the Dask pairs' tasks stay below _NUMBA_MIN_WORK at the sizes
    # the chunked tests run, so only this test reaches the compiled loop
    pytest.importorskip("numba")
    X = sp.csr_matrix(_counts(n=300, d=40))
    W = sp.triu(pca_knn_graph(X, n_neighbors=8, n_pcs=5), k=1, format="csr") * 2.0
    A, B, E = X[:120], X[120:], W[:120, 120:]
    scipy_path = graphs._edge_sums_scipy(sp.csr_matrix(A), sp.csr_matrix(B), sp.csr_matrix(E))
    threshold = graphs._NUMBA_MIN_WORK
    try:
        graphs._NUMBA_MIN_WORK = 0
        compiled = graphs.cross_products_between(A, B, E)
    finally:
        graphs._NUMBA_MIN_WORK = threshold
    assert graphs._pair_kernel  # the compiled loop ran
    assert E.nnz > 0 and np.any(compiled != 0)
    np.testing.assert_allclose(compiled, scipy_path, rtol=1e-12)


def test_laplacian_score_of_sparse_input_is_the_dense_score():
    X = _counts()
    W = knn_graph(X, 5)
    dense = laplacian_score(X, W)
    sparse = laplacian_score(sp.csr_matrix(X), W)
    np.testing.assert_allclose(sparse, dense, rtol=1e-10)
    np.testing.assert_allclose(laplacian_score(sp.csr_matrix(X), W, variant="numerator"),
                               laplacian_score(X, W, variant="numerator"), rtol=1e-10)


@pytest.mark.parametrize("style", ["phi1", "phi2", "phi3"])
def test_spec_of_sparse_input_is_the_dense_spec(style):
    X = _counts()
    W = knn_graph(X, 5, self_loops=True)
    dense = spec_scores(X, W.toarray(), style, n_clusters=3)
    sparse = spec_scores(sp.csr_matrix(X), W, style, n_clusters=3)
    np.testing.assert_allclose(sparse, dense, rtol=1e-9)


def test_spec_refuses_a_power_it_cannot_apply_to_sparse_input():
    X = sp.csr_matrix(_counts())
    with pytest.raises(ValueError, match="with sparse input use power=1"):
        SPEC(graph="pca", power=2).fit(X)


@pytest.mark.parametrize("ranker", [LaplacianScore, SPEC])
def test_the_pca_graph_keeps_sparse_input_sparse_and_finds_the_markers(ranker, monkeypatch):
    X = sp.csr_matrix(_counts())
    toarray = sp.csr_matrix.toarray

    def no_full_copy(self, *args, **kwargs):
        # the PCA reads dense blocks of its prefiltered columns, never all columns
        if self.shape[1] == X.shape[1]:
            pytest.fail(f"densified {self.shape}")
        return toarray(self, *args, **kwargs)

    monkeypatch.setattr(sp.csr_matrix, "toarray", no_full_copy)
    fitted = ranker(graph="pca", n_neighbors=10, n_pcs=5, graph_features=20).fit(X)
    assert set(fitted.feature_order_[:5]) == set(range(5))


def test_the_pca_graph_gives_the_same_scores_on_sparse_and_dense_input():
    X = _counts()
    dense = LaplacianScore(graph="pca", n_neighbors=10, n_pcs=5).fit(X)
    sparse = LaplacianScore(graph="pca", n_neighbors=10, n_pcs=5).fit(sp.csr_matrix(X))
    np.testing.assert_allclose(sparse.scores_, dense.scores_, rtol=1e-10)
    assert np.array_equal(sparse.feature_order_, dense.feature_order_)


def test_the_graph_on_the_data_refuses_beyond_its_bound_before_allocating():
    big = sp.csr_matrix((30_000, 3))  # no stored values: costs nothing
    with pytest.raises(SizeBoundError) as caught:
        LaplacianScore().fit(big)
    message = str(caught.value)
    assert "\n" not in message and "at most 20,000 samples" in message
    assert "graph='pca'" in message
    with pytest.raises(SizeBoundError, match="at most 10,000 samples"):
        SPEC().fit(sp.csr_matrix((12_000, 3)))


def test_small_sparse_input_to_the_graph_on_the_data_is_densified_with_the_same_scores():
    X = _counts()
    np.testing.assert_array_equal(LaplacianScore().fit(sp.csr_matrix(X)).scores_,
                                  LaplacianScore().fit(X).scores_)


def test_normalized_dispersions_are_scanpys_seurat_flavor():
    sc = pytest.importorskip("scanpy")
    anndata = pytest.importorskip("anndata")
    rng = np.random.RandomState(0)
    counts = rng.poisson(rng.gamma(0.5, 2.0, 200), (500, 200)).astype(np.float64)
    X = np.log1p(counts)
    adata = anndata.AnnData(sp.csr_matrix(X))
    sc.pp.highly_variable_genes(adata, flavor="seurat", n_top_genes=50)
    expected = adata.var["dispersions_norm"].to_numpy(dtype=float)
    ours = normalized_dispersions(sp.csr_matrix(X))
    assert np.array_equal(np.isnan(ours), np.isnan(expected))
    ok = ~np.isnan(expected)
    np.testing.assert_allclose(ours[ok], expected[ok], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(normalized_dispersions(X), ours, rtol=1e-12)


def test_prefilters_pick_the_largest_variances_or_dispersions():
    X = _counts()
    variance = np.var(X, axis=0)
    assert set(top_variance_features(sp.csr_matrix(X), 5)) == set(np.argsort(-variance)[:5])
    chosen = graph_prefilter_features(X, 5, "dispersion")
    assert chosen.size == 5 and np.all(np.diff(chosen) > 0)
    assert np.array_equal(graph_prefilter_features(X, None), np.arange(X.shape[1]))
