"""Properties of the shared graph math (spec methods-baselines 1)."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from fsclust.graphs import (
    SIGN_TIE_RTOL,
    bandwidth,
    canonical_sign_flip,
    knn_graph,
    laplacian,
    largest_eigenvectors,
    rbf_affinity,
    smallest_eigenvectors,
    squared_distances,
    subspace_basis,
)


@pytest.fixture
def X():
    return np.random.RandomState(0).normal(size=(40, 3))


def _two_blocks(rng, sizes=(6, 9)):
    """A random symmetric affinity with no edge between the blocks."""
    blocks = []
    for m in sizes:
        B = rng.uniform(0.1, 1.0, size=(m, m))
        B = B + B.T
        np.fill_diagonal(B, 0.0)
        blocks.append(B)
    return sp.block_diag(blocks).toarray()


# --- distances and bandwidths -----------------------------------------------------------------


def test_squared_distances_match_definition_and_are_exact_on_the_diagonal(X):
    D2 = squared_distances(X)
    expected = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(D2, expected, rtol=1e-12, atol=1e-12)
    assert np.all(np.diag(D2) == 0)
    assert np.array_equal(D2, D2.T)
    assert np.all(D2 >= 0)


def test_squared_distances_survive_a_large_offset():
    # centring first: a shift of 1e8 must not destroy distances of order 1
    rng = np.random.RandomState(1)
    X = rng.normal(size=(10, 2))
    np.testing.assert_allclose(squared_distances(X + 1e8), squared_distances(X), atol=1e-6)


def test_squared_distances_between_two_sets(X):
    Y = X[:5] + 1.0
    expected = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(squared_distances(X, Y), expected, rtol=1e-12, atol=1e-12)


def test_inputs_are_never_modified(X):
    before = X.copy()
    squared_distances(X)
    rbf_affinity(X)
    knn_graph(X)
    W = rbf_affinity(X)
    W_before = W.copy()
    laplacian(W, "sym")
    smallest_eigenvectors(W, 2)
    assert np.array_equal(X, before)
    assert np.array_equal(W, W_before)


def test_bandwidth_rules_follow_their_definitions(X):
    D2 = squared_distances(X)
    n = X.shape[0]
    assert bandwidth(D2, "zeng2008") == pytest.approx(0.0025 * D2.max())
    assert bandwidth(D2, "median") == pytest.approx(np.median(D2[np.triu_indices(n, 1)]))
    # Cai: exp(-d^2 / (2 t_c^2)) with t_c the mean of all n^2 distances, so t = 2 t_c^2
    assert bandwidth(D2, "cai") == pytest.approx(2 * np.sqrt(D2).mean() ** 2)
    with pytest.raises(ValueError, match="valid rules"):
        bandwidth(D2, "nope")


@pytest.mark.parametrize("rule", ["cai", "zeng2008", "median"])
def test_blockwise_bandwidth_equals_the_full_matrix_rule(X, rule):
    # knn_graph computes t block by block to avoid the n-by-n matrix on large data
    from fsclust.graphs import _bandwidth_from_data

    expected = bandwidth(squared_distances(X), rule)
    assert _bandwidth_from_data(X, rule, block_rows=7) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("old, new", [("seed000", "zeng2008"), ("seed003", "jiang2011")])
def test_old_bandwidth_rule_names_still_work_and_warn(X, old, new):
    # the project's old numbering of the papers (seed 000 = Zeng & Cheung 2008, seed 003 =
    # Jiang & Ren 2011) reached user configuration; it keeps working through the deprecation
    from fsclust.graphs import BANDWIDTH_RULES, DEPRECATED_BANDWIDTH_RULES, _bandwidth_from_data

    assert DEPRECATED_BANDWIDTH_RULES[old] == new
    assert {old, new} <= set(BANDWIDTH_RULES)  # a parameter declared with these choices
    D2 = squared_distances(X)
    with pytest.warns(FutureWarning, match=new):
        assert bandwidth(D2, old) == bandwidth(D2, new)
    with pytest.warns(FutureWarning, match=new):
        assert _bandwidth_from_data(X, old, block_rows=7) == _bandwidth_from_data(X, new, 7)
    with pytest.warns(FutureWarning, match=new):
        W_old = knn_graph(X, n_neighbors=5, t_rule=old)
    assert (W_old != knn_graph(X, n_neighbors=5, t_rule=new)).nnz == 0


@pytest.mark.parametrize("kind, name, old, new", [
    ("method", "laplacian", "seed000", "zeng2008"),
    ("method", "evsfsc", "seed003", "jiang2011"),
    ("clusterer", "ncut", "seed000", "zeng2008"),
    ("clusterer", "njw", "seed003", "jiang2011"),
])
def test_configurations_with_old_rule_names_give_the_same_results(X, kind, name, old, new):
    # a user's experiment written with an old name keeps its results, and is told the new name
    from fsclust.registry import make_clusterer, make_ranker

    make = make_ranker if kind == "method" else make_clusterer

    def fit(rule):
        return make(name, {"t_rule": rule}, n_clusters=3, random_state=0).fit(X)

    with pytest.warns(FutureWarning, match=new):
        fitted_old = fit(old)
    fitted_new = fit(new)
    attribute = "scores_" if kind == "method" else "labels_"
    np.testing.assert_array_equal(getattr(fitted_old, attribute), getattr(fitted_new, attribute))


def test_current_bandwidth_rule_names_do_not_warn(X):
    import warnings

    from fsclust.graphs import BANDWIDTH_RULES, DEPRECATED_BANDWIDTH_RULES

    D2 = squared_distances(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for rule in set(BANDWIDTH_RULES) - set(DEPRECATED_BANDWIDTH_RULES):
            bandwidth(D2, rule)


def test_bandwidth_of_identical_points_is_harmless():
    assert bandwidth(np.zeros((3, 3)), "median") > 0


# --- affinities -------------------------------------------------------------------------------


def test_rbf_affinity_is_the_heat_kernel_with_zero_diagonal(X):
    W, t = rbf_affinity(X, t_rule="median", return_bandwidth=True)
    D2 = squared_distances(X)
    off = ~np.eye(len(X), dtype=bool)
    np.testing.assert_allclose(W[off], np.exp(-D2 / t)[off])
    assert np.all(np.diag(W) == 0)
    assert np.all(np.diag(rbf_affinity(X, t=1.0, keep_diagonal=True)) == 1)


def test_narrow_zeng2008_kernel_stays_positive_in_float64(X):
    # smallest weight is exp(-400), far above float64 underflow (spec methods-seed 0.1)
    W = rbf_affinity(X, t_rule="zeng2008")
    off = ~np.eye(len(X), dtype=bool)
    assert W.dtype == np.float64
    assert W[off].min() == pytest.approx(np.exp(-400.0), rel=1e-9)


@pytest.mark.parametrize("symmetrize", ["or", "and"])
@pytest.mark.parametrize("weight", ["heat", "binary"])
def test_knn_graph_is_symmetric_nonnegative_without_self_loops(X, symmetrize, weight):
    W = knn_graph(X, n_neighbors=6, weight=weight, symmetrize=symmetrize, allow_isolated=True)
    assert sp.issparse(W) and W.format == "csr"
    assert abs(W - W.T).max() == 0
    assert W.min() >= 0
    assert np.all(W.diagonal() == 0)


def test_knn_graph_contains_each_point_s_k_nearest_neighbours(X):
    k = 4
    W = knn_graph(X, n_neighbors=k, weight="binary").toarray()
    D2 = squared_distances(X)
    np.fill_diagonal(D2, np.inf)
    nearest = np.argsort(D2, axis=1)[:, :k]
    assert np.all(W[np.arange(len(X))[:, None], nearest] == 1)
    # "or" keeps exactly the union of both directions
    A = np.zeros_like(W)
    A[np.arange(len(X))[:, None], nearest] = 1
    assert np.array_equal(W, np.maximum(A, A.T))


def test_knn_heat_weights_and_mutual_graph_is_a_subgraph(X):
    W, t = knn_graph(X, n_neighbors=5, t_rule="cai", return_bandwidth=True)
    D2 = squared_distances(X)
    rows, cols = W.nonzero()
    np.testing.assert_allclose(W.data, np.exp(-D2[rows, cols] / t))
    W_and = knn_graph(X, n_neighbors=5, symmetrize="and", allow_isolated=True)
    assert np.all((W_and.toarray() > 0) <= (W.toarray() > 0))


def test_knn_self_loops_put_ones_on_the_diagonal(X):
    W = knn_graph(X, n_neighbors=3, self_loops=True)
    assert np.all(W.diagonal() == 1)


def test_isolated_nodes_raise_unless_allowed():
    # an outlier far from a tight group: nobody lists it as a mutual neighbour
    X = np.array([[0.0], [0.1], [0.25], [0.45], [100.0]])
    with pytest.raises(ValueError, match="isolated"):
        knn_graph(X, n_neighbors=1, symmetrize="and")
    W = knn_graph(X, n_neighbors=1, symmetrize="and", allow_isolated=True)
    assert W[4].nnz == 0


def test_knn_graph_rejects_too_many_neighbours():
    with pytest.raises(ValueError, match="n_neighbors"):
        knn_graph(np.arange(5.0)[:, None], n_neighbors=5)


def _sklearn_graph(X, k):
    from sklearn.neighbors import kneighbors_graph

    return sp.csr_matrix(kneighbors_graph(X, k, mode="distance", include_self=False))


@pytest.mark.parametrize("k", [1, 5, 38, 39])
def test_dense_neighbour_search_gives_scikit_learns_lists(k, monkeypatch):
    # the kNN graph's search from one X X^T (in row blocks: 7 rows at a time here) keeps
    # scikit-learn's neighbour lists and their order, distances to round-off; k = 39 = n - 1
    # lists every other sample, k = 38 leaves one out
    from fsclust import graphs

    rng = np.random.RandomState(k)
    X = rng.normal(size=(40, 300)) * rng.uniform(0.5, 3.0, size=300)
    X -= X.mean(axis=0)
    monkeypatch.setattr(graphs, "_KNN_BLOCK_ENTRIES", 7 * 40)
    ours = graphs._kneighbors_distance_graph(X, k)
    theirs = _sklearn_graph(X, k)
    assert graphs._kneighbors_dense(X, k) is not None  # the dense search decided every list
    np.testing.assert_array_equal(ours.indptr, theirs.indptr)
    np.testing.assert_array_equal(ours.indices, theirs.indices)
    np.testing.assert_allclose(ours.data, theirs.data, rtol=1e-12)
    with_D2 = graphs._kneighbors_distance_graph(X, k, D2=squared_distances(X))
    np.testing.assert_array_equal(with_D2.indices, theirs.indices)


def test_dense_neighbour_search_leaves_ties_and_narrow_kernels_to_scikit_learn():
    # duplicates (Iris has some), a tie at the k-th neighbour and distances far out on a narrow
    # heat kernel are decided by scikit-learn's search itself, so the graph is its own exactly
    from sklearn.datasets import load_iris

    from fsclust import graphs

    iris = load_iris().data - load_iris().data.mean(axis=0)
    assert graphs._kneighbors_dense(iris, 5) is None
    np.testing.assert_array_equal(graphs._kneighbors_distance_graph(iris, 5).toarray(),
                                  _sklearn_graph(iris, 5).toarray())
    square = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [5.0, 5.0]])
    assert graphs._kneighbors_dense(square - square.mean(axis=0), 1) is None  # equidistant
    X = np.random.RandomState(3).normal(size=(30, 20))
    X -= X.mean(axis=0)
    far = graphs._kneighbors_distance_graph(X, 4, max_sq_distance=1e-3)
    np.testing.assert_array_equal(far.toarray(), _sklearn_graph(X, 4).toarray())


# --- Laplacians -------------------------------------------------------------------------------


@pytest.mark.parametrize("to_sparse", [False, True])
def test_laplacian_null_vectors(X, to_sparse):
    W = rbf_affinity(X, t_rule="median")
    W = sp.csr_matrix(W) if to_sparse else W
    L, d = laplacian(W, "unnormalized")
    L_sym, d_sym = laplacian(W, "sym")
    L_rw, _ = laplacian(W, "rw")
    dense = (lambda A: A.toarray()) if to_sparse else (lambda A: A)
    assert sp.issparse(L) == to_sparse
    np.testing.assert_allclose(d, np.asarray(W.sum(axis=1)).ravel())
    np.testing.assert_allclose(d_sym, d)
    n = len(d)
    assert np.abs(dense(L) @ np.ones(n)).max() < 1e-12
    assert np.abs(dense(L_sym) @ np.sqrt(d)).max() < 1e-12
    assert np.abs(dense(L_rw) @ np.ones(n)).max() < 1e-12
    np.testing.assert_allclose(dense(L_rw), np.diag(1 / d) @ dense(L), atol=1e-14)


def test_zero_eigenvalue_multiplicity_counts_connected_components():
    rng = np.random.RandomState(3)
    W = sp.block_diag([_two_blocks(rng, (4, 5)), _two_blocks(rng, (6,))]).toarray()
    n_components = connected_components(W, directed=False)[0]
    assert n_components == 3
    for kind in ("unnormalized", "sym"):
        L, _ = laplacian(W, kind)
        eigenvalues = np.linalg.eigvalsh(L)
        assert np.sum(eigenvalues < 1e-10) == n_components


def test_symmetric_laplacian_spectrum_is_in_0_2(X):
    W = knn_graph(X, n_neighbors=5)
    L_sym, _ = laplacian(W, "sym")
    eigenvalues = np.linalg.eigvalsh(L_sym.toarray())
    assert eigenvalues.min() > -1e-12
    assert eigenvalues.max() < 2 + 1e-12


def test_bipartite_graph_reaches_2_in_the_symmetric_spectrum():
    # lambda_max(L_sym) = 2 exactly for a bipartite graph: the upper bound is attained
    W = np.zeros((4, 4))
    W[:2, 2:] = 1.0
    W[2:, :2] = 1.0
    L_sym, _ = laplacian(W, "sym")
    assert np.linalg.eigvalsh(L_sym).max() == pytest.approx(2.0)


def test_random_walk_eigenvectors_are_scaled_symmetric_eigenvectors(X):
    W = rbf_affinity(X, t_rule="median")
    L_sym, d = laplacian(W, "sym")
    L_rw, _ = laplacian(W, "rw")
    eigenvalues, V = smallest_eigenvectors(L_sym, 4)
    U = V / np.sqrt(d)[:, None]
    np.testing.assert_allclose(L_rw @ U, U * eigenvalues, atol=1e-10)


def test_self_loops_change_only_the_normalised_laplacians():
    rng = np.random.RandomState(4)
    W = _two_blocks(rng)
    W_loops = W + np.eye(len(W))
    L, _ = laplacian(W, "unnormalized")
    L_loops, d_loops = laplacian(W_loops, "unnormalized")
    np.testing.assert_allclose(L, L_loops)
    np.testing.assert_allclose(d_loops, W.sum(1) + 1)
    L_sym_loops, _ = laplacian(W_loops, "sym")
    expected = np.eye(len(W)) - W_loops / np.sqrt(np.outer(d_loops, d_loops))
    np.testing.assert_allclose(L_sym_loops, expected, atol=1e-14)


def test_normalised_laplacian_refuses_zero_degree():
    W = np.zeros((3, 3))
    W[0, 1] = W[1, 0] = 1.0
    with pytest.raises(ValueError, match="degree 0"):
        laplacian(W, "sym")
    with pytest.raises(ValueError, match="degree 0"):
        laplacian(W, "rw")
    L, d = laplacian(W, "unnormalized")
    assert d[2] == 0


# --- eigen-solvers ----------------------------------------------------------------------------


def test_eigenpairs_are_the_extreme_ones_with_deterministic_signs():
    rng = np.random.RandomState(5)
    A = rng.normal(size=(30, 30))
    A = A + A.T
    all_values = np.linalg.eigvalsh(A)
    values, vectors = smallest_eigenvectors(A, 3)
    np.testing.assert_allclose(values, all_values[:3])
    np.testing.assert_allclose(A @ vectors, vectors * values, atol=1e-10)
    values_top, vectors_top = largest_eigenvectors(A, 3)
    np.testing.assert_allclose(values_top, all_values[::-1][:3])
    for V in (vectors, vectors_top):
        np.testing.assert_allclose(V.T @ V, np.eye(3), atol=1e-12)
        largest_entry = V[np.argmax(np.abs(V), axis=0), np.arange(3)]
        assert np.all(largest_entry > 0)
    # the same input gives bit-identical vectors, signs included
    _, again = smallest_eigenvectors(A.copy(), 3)
    np.testing.assert_array_equal(again, vectors)


def test_canonical_sign_is_the_same_whatever_sign_the_solver_gave():
    rng = np.random.RandomState(7)
    V = np.linalg.qr(rng.normal(size=(20, 4)))[0]
    canonical = canonical_sign_flip(V)
    for signs in ([1, 1, 1, 1], [-1, 1, -1, 1], [-1, -1, -1, -1]):
        np.testing.assert_array_equal(canonical_sign_flip(V * np.array(signs)), canonical)
    largest_entry = canonical[np.argmax(np.abs(canonical), axis=0), np.arange(4)]
    assert np.all(largest_entry > 0)
    assert np.all(np.abs(canonical) == np.abs(V))  # flipped, never rescaled
    np.testing.assert_array_equal(canonical_sign_flip(V[:, 0]), canonical[:, 0])


def test_the_subspace_basis_is_the_same_whatever_basis_the_solver_gave():
    # a repeated eigenvalue's eigenvectors are any orthonormal basis of the eigenspace: the
    # subspace's basis must not depend on which one (rotations and reflections alike)
    from scipy.stats import ortho_group

    rng = np.random.RandomState(3)
    V = np.linalg.qr(rng.normal(size=(30, 4)))[0]
    basis = subspace_basis(V)
    np.testing.assert_allclose(basis.T @ basis, np.eye(4), atol=1e-12)  # orthonormal
    np.testing.assert_allclose(basis @ basis.T, V @ V.T, atol=1e-12)  # the same span
    for seed in range(5):
        R = ortho_group.rvs(4, random_state=seed)
        np.testing.assert_allclose(subspace_basis(V @ R), basis, atol=1e-12)


def test_the_subspace_basis_is_positive_definite_on_its_pivot_rows():
    # Damle, Minden & Ying's polar factor: on the c rows the pivoted QR picks, the basis is
    # symmetric positive definite, which fixes every sign and rotation
    import scipy.linalg

    V = np.linalg.qr(np.random.RandomState(4).normal(size=(25, 3)))[0]
    pivots = scipy.linalg.qr(V.T, mode="r", pivoting=True)[1][:3]
    block = subspace_basis(V)[pivots]
    np.testing.assert_allclose(block, block.T, atol=1e-12)
    assert np.all(np.linalg.eigvalsh(block) > 0)


def test_a_tie_for_the_largest_entry_is_decided_by_index_not_by_round_off():
    # two entries of equal magnitude and opposite signs (a path graph's Fiedler vector): which
    # one a solver rounds larger must not decide the sign
    for bump in (0.0, 4 * np.finfo(float).eps, -4 * np.finfo(float).eps):
        v = np.array([0.6 * (1.0 + bump), 0.1, -0.6, 0.2])
        assert canonical_sign_flip(v)[0] > 0
        assert canonical_sign_flip(-v)[0] > 0
    # beyond the tolerance the largest entry decides
    v = np.array([0.6, 0.1, -0.6 * (1.0 + 10 * SIGN_TIE_RTOL)])
    assert canonical_sign_flip(v)[2] > 0


def test_canonical_signs_of_an_svd_keep_the_product():
    rng = np.random.RandomState(8)
    A = rng.normal(size=(7, 5))
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    Uc, Vtc = canonical_sign_flip(-U, -Vt)
    np.testing.assert_allclose(Uc * s @ Vtc, A, atol=1e-12)
    np.testing.assert_array_equal(Uc, canonical_sign_flip(U))
    assert np.all(np.abs(canonical_sign_flip(np.zeros((3, 2)))) == 0)  # no NaN from a zero column


@pytest.mark.parametrize("largest", [False, True])
def test_arpack_and_dense_solvers_agree_on_a_sparse_laplacian(largest):
    X = np.random.RandomState(6).normal(size=(300, 2))
    L_sym, _ = laplacian(knn_graph(X, n_neighbors=8), "sym")
    solve = largest_eigenvectors if largest else smallest_eigenvectors
    values_dense, V_dense = solve(L_sym, 4, solver="dense")
    values_arpack, V_arpack = solve(L_sym, 4, solver="arpack", random_state=0)
    np.testing.assert_allclose(values_arpack, values_dense, atol=1e-9)
    # simple eigenvalues: the same vectors, signs included (both canonical)
    np.testing.assert_allclose(V_arpack.T @ V_dense, np.eye(4), atol=1e-6)


def test_eigen_solver_rejects_bad_k():
    with pytest.raises(ValueError, match="eigenpairs"):
        smallest_eigenvectors(np.eye(3), 4)
