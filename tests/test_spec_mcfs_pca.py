"""SPEC, MCFS, PCA loading and GHA: identities and properties (spec methods-baselines 3-6)."""

import warnings

import numpy as np
import pytest
from sklearn.linear_model import lars_path_gram

from fsclust.graphs import knn_graph, rbf_affinity
from fsclust.rankers.gha import GHA
from fsclust.rankers.laplacian import laplacian_score
from fsclust.rankers import mcfs
from fsclust.rankers.mcfs import MCFS, lasso_coefficients, spectral_embedding_targets
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
    assert SPEC(style="phi2").fit(X2).feature_order_[0] == 1


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
    assert SPEC(style="phi1", power=2).fit(Xc).feature_order_[-1] == 4


def test_spec_phi1_phi2_rayleigh_form_equals_eigen_form():
    # power 1 runs on f^T L f / f^T D f without Lsym; the eigen form is the definition
    X, _ = _data(5, n=30)
    X = np.column_stack([X, X[:, 0] + 10.0])  # shifted: phi1 small, phi2 not
    W = rbf_affinity(X, keep_diagonal=True)
    d = W.sum(1)
    lam, Xi = np.linalg.eigh(np.eye(30) - W / np.sqrt(np.outer(d, d)))
    Fh = np.sqrt(d)[:, None] * X
    Fh /= np.linalg.norm(Fh, axis=0)
    alpha = Xi.T @ Fh
    phi1 = (lam[:, None] * alpha**2).sum(0)
    np.testing.assert_allclose(spec_scores(X, W, "phi1"), phi1, rtol=1e-12, atol=1e-14)
    xi0 = np.sqrt(d) / np.linalg.norm(np.sqrt(d))
    np.testing.assert_allclose(spec_scores(X, W, "phi2"), phi1 / (1 - (xi0 @ Fh) ** 2),
                               rtol=1e-10, atol=0)


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


def _cai_column(coefs, d):
    """The column of a whole lasso path (D, steps) Cai's code reads: the path cut at its first
    point with d + 5 non-zeros (Sjostrand's lars with stop = -(d + 5): the number of active
    variables, each point's non-zeros), then its last column with d non-zeros; else the first
    of the most non-zeros."""
    counts = np.count_nonzero(coefs, axis=0)
    over = np.flatnonzero(counts >= d + 5)
    if over.size:
        counts = counts[:over[0] + 1]
    hit = np.flatnonzero(counts == d)
    return hit[-1] if hit.size else int(np.argmax(counts))


def _lasso_coefficients_per_eigenvector(X, y, n_nonzero, ridge=1e-3):
    """The lasso step of MCFS before the Gram matrix was shared across eigenvectors: a fresh
    ``X^T X + ridge I`` (copied again by lars_path_gram) for each ``y``, scikit-learn's whole
    path of 4 d + 50 steps read as Cai's code reads it. The reference."""
    D = X.shape[1]
    gram = X.T @ X
    gram[np.diag_indices(D)] += ridge
    _, _, coefs = lars_path_gram(Xy=X.T @ y, Gram=gram, n_samples=X.shape[0], method="lasso",
                                 max_iter=4 * int(n_nonzero) + 50)
    j = _cai_column(coefs, n_nonzero)
    if np.count_nonzero(coefs[:, j]) != n_nonzero:
        warnings.warn(f"lasso path never reached {n_nonzero} non-zero coefficients "
                      f"(largest: {np.count_nonzero(coefs[:, j])}); using the largest",
                      RuntimeWarning, stacklevel=2)
    a = coefs[:, j]
    norm = np.linalg.norm(a)
    return a / norm if norm > 0 else a


def _wide_data(seed=0, n=40, D=120, c=4):
    """More features than samples; 4 clusters carried by the first 8 features."""
    rng = np.random.RandomState(seed)
    labels = np.arange(n) % c
    X = rng.randn(n, D)
    X[:, :8] += 3.0 * rng.randn(c, 8)[labels]
    return X


def _mcfs_targets(X, K):
    """The eigenvectors MCFS regresses on, from the graph its fit builds."""
    return spectral_embedding_targets(knn_graph(X, n_neighbors=5, t_rule="cai",
                                                allow_isolated=True), K)


@pytest.mark.parametrize("path", ["whole Gram", "Gram-free"])
@pytest.mark.parametrize("d", [5, 30, 60])
def test_mcfs_paths_equal_scikit_learns_on_a_fresh_gram_per_eigenvector(monkeypatch, path, d):
    # Up to _WHOLE_GRAM_BYTES the K paths read one Gram matrix, above they run on X. Where a
    # path can hold as many active features as samples (d = 60: up to d + 5 >= n = 40)
    # the paths run one by one, on the Gram matrix bit for bit scikit-learn's path on a fresh
    # Gram matrix per eigenvector; below (d = 5, 30) together, their products summed in
    # another order. Together or on X: at d = 5 and 30 within 1e-12; at d = 60 > n the active sets pass n
    # and X_A^T X_A + 1e-3 I is ill-conditioned, so that scikit-learn's own path moves by
    # 2-5e-11 when its Gram matrix is merely summed in another order: ours must stay within 4
    # times the largest such move (measured 2.6e-11 here, 8.9e-11 under OpenBLAS's
    # SandyBridge kernels). The spread is taken over three orders (einsum, the rows reversed,
    # two halves): one order alone can coincide with the reference's sum on some kernels
    # (einsum does under SandyBridge), which would leave no measure of the sensitivity.
    # d = 60 also ends one path of four before 60 non-zeros (the largest-cardinality rule)
    if path == "Gram-free":
        monkeypatch.setattr(mcfs, "_WHOLE_GRAM_BYTES", 0)
    X = _wide_data()
    Y = _mcfs_targets(X, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        reference = np.column_stack([_lasso_coefficients_per_eigenvector(X, y, d) for y in Y.T])
    half = X.shape[0] // 2
    spread = 0.0
    for gram in (np.einsum("ki,kj->ij", X, X), np.einsum("ki,kj->ij", X[::-1], X[::-1]),
                 X[:half].T @ X[:half] + X[half:].T @ X[half:]):
        gram[np.diag_indices(X.shape[1])] += 1e-3
        other = []
        for y in Y.T:
            coefs = lars_path_gram(Xy=X.T @ y, Gram=gram.copy(), n_samples=X.shape[0],
                                   method="lasso", max_iter=4 * d + 50)[2]
            a = coefs[:, _cai_column(coefs, d)]
            other.append(a / np.linalg.norm(a))
        other = np.column_stack(other)
        spread = max(spread, np.abs(other - reference).max())
    tol = max(1e-12, 4 * spread)
    if d < 60:
        assert tol == 1e-12
    together = mcfs._paths_together(X.shape[0], X.shape[1], d, 4 * d + 50)
    assert together == (d + 5 < X.shape[0])
    if path == "whole Gram" and not together:
        tol = 0.0
    A, cardinality, ridge_used = lasso_coefficients(X, Y, d)
    np.testing.assert_allclose(A, reference, rtol=0, atol=tol)
    np.testing.assert_array_equal(cardinality, np.count_nonzero(reference, axis=0))
    assert ridge_used == 1e-3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        model = MCFS(n_clusters=4, n_nonzero_coefs=d).fit(X)
    np.testing.assert_allclose(model.scores_, np.abs(reference).max(axis=1), rtol=0, atol=tol)


def _path_problem(case):
    rng = np.random.RandomState(["gaussian", "correlated", "wide", "tall"].index(case))
    n, D = {"wide": (30, 700), "tall": (80, 40)}.get(case, (40, 300))
    X = rng.randn(n, D)
    if case == "correlated":
        X[:, :30] = X[:, :1] + 0.05 * rng.randn(n, 30)
    return X, rng.randn(n)


@pytest.mark.parametrize("solver", ["gram_lasso_path", "ridge_lasso_path"])
@pytest.mark.parametrize("case", ["gaussian", "correlated", "wide", "tall"])
def test_lasso_paths_equal_lars_path_gram_on_the_whole_gram(solver, case):
    # both paths against scikit-learn's on X^T X + ridge I: every breakpoint, the lasso drop
    # steps (correlated columns drop and re-enter) and the stop at max_iter; the Gram matrix
    # is read, never written, and the path on it is scikit-learn's exactly
    X, y = _path_problem(case)
    n, D = X.shape
    gram = X.T @ X + 1e-3 * np.eye(D)
    alphas, active, reference = lars_path_gram(Xy=X.T @ y, Gram=gram.copy(), n_samples=n,
                                               method="lasso", max_iter=150)
    if solver == "gram_lasso_path":  # scikit-learn's own computation, bit for bit
        before = gram.copy()
        ours_alphas, ours_active, ours = mcfs.gram_lasso_path(gram, X.T @ y, n, 150)
        np.testing.assert_array_equal(gram, before)
        np.testing.assert_array_equal(ours, reference)
        np.testing.assert_array_equal(ours_alphas, alphas)
    else:
        ours_alphas, ours_active, ours = mcfs.ridge_lasso_path(X, y, 1e-3, 150)
    assert ours.shape == reference.shape
    np.testing.assert_allclose(ours, reference, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ours_alphas, alphas, rtol=1e-8, atol=1e-12)
    assert ours_active == list(active)
    if case == "correlated":  # the case exercises drop steps
        assert np.any(np.diff(np.count_nonzero(reference, axis=0)) < 0)


@pytest.mark.parametrize("solver", ["gram_lasso_path", "ridge_lasso_path"])
@pytest.mark.parametrize("d", [3, 10, 25])
def test_lasso_path_stop_cardinality_keeps_the_point_mcfs_reads(solver, d):
    # the early stop is exact: the stopped path is a prefix of the full one, shorter, and its
    # last point with d non-zeros (MCFS' a_k) is the full path's, bit for bit
    rng = np.random.RandomState(d)
    X = rng.randn(30, 400)
    X[:, :40] = X[:, :1] + 0.05 * rng.randn(30, 40)  # drop steps
    y = rng.randn(30)
    if solver == "gram_lasso_path":
        gram = X.T @ X + 1e-3 * np.eye(400)
        def path(**stop):
            return mcfs.gram_lasso_path(gram, X.T @ y, 30, 4 * d + 50, **stop)[2]
    else:
        def path(**stop):
            return mcfs.ridge_lasso_path(X, y, 1e-3, 4 * d + 50, **stop)[2]
    full = path()
    stopped = path(stop_cardinality=d)
    assert stopped.shape[1] < full.shape[1]
    np.testing.assert_array_equal(stopped, full[:, :stopped.shape[1]])
    a_full, card_full = mcfs._path_point(full, d)
    a_stopped, card_stopped = mcfs._path_point(stopped, d)
    np.testing.assert_array_equal(a_stopped, a_full)
    assert card_stopped == card_full == d


def _dropping_problem():
    """60 x 200, features 0-39 near copies of feature 0: the lasso drops and re-enters them.
    The path of the first target drops a variable before its first point with 6 non-zeros
    (step 10) and has points with 4 non-zeros at steps 4, 7 and 8."""
    rng = np.random.RandomState(4)
    X = rng.randn(60, 200)
    X[:, :40] = X[:, :1] + 0.05 * rng.randn(60, 40)
    Y = rng.randn(60, 3)
    Y[:, 0] += 3 * X[:, 0]
    return X, Y


def _literal_point(coefs, d):
    """The point MCFS reads, from a whole path: Cai's column (:func:`_cai_column`),
    L2-normalised."""
    a = coefs[:, _cai_column(coefs, d)]
    return a / np.linalg.norm(a)


@pytest.mark.parametrize("on, ridge", [("Gram", 1e-3), ("X", 1e-3), ("X", 0.0)])
@pytest.mark.parametrize("d", [4, 6])
def test_paths_together_read_the_point_of_the_whole_path(monkeypatch, on, ridge, d):
    # the fast path (the K paths together, each stopped at d + 5 active, only the point it is
    # read at kept) against the literal slow one: scikit-learn's whole path of 4 d + 50 steps
    # on X^T X + ridge I (lars_path_gram) or on X (lars_path, no ridge), cut at its first
    # point with d + 5 non-zeros, then its last point with d non-zeros
    X, Y = _dropping_problem()
    n, D = X.shape
    if on == "X":
        monkeypatch.setattr(mcfs, "_WHOLE_GRAM_BYTES", 0)
    else:  # three paths on 200 features run on X unless told (_gram_is_cheaper)
        monkeypatch.setattr(mcfs, "_gram_is_cheaper", lambda *args: True)
    assert mcfs._paths_together(n, D, d, 4 * d + 50)
    paths = []
    for y in Y.T:
        if ridge:
            paths.append(lars_path_gram(Xy=X.T @ y, Gram=X.T @ X + ridge * np.eye(D),
                                        n_samples=n, method="lasso", max_iter=4 * d + 50)[2])
        else:
            from sklearn.linear_model import lars_path
            paths.append(lars_path(X, y, method="lasso", max_iter=4 * d + 50)[2])
    counts = np.count_nonzero(paths[0], axis=0)
    hits = np.flatnonzero(counts == d)
    if d == 6:  # a drop before the first point with d non-zeros
        assert np.any(np.diff(counts[:hits[0] + 1]) < 0)
    else:  # several points with d non-zeros: the steps past the first change the read
        assert hits.size > 1 and not np.array_equal(paths[0][:, hits[0]], paths[0][:, hits[-1]])
    reference = np.column_stack([_literal_point(coefs, d) for coefs in paths])
    A, cardinality, ridge_used, steps = lasso_coefficients(X, Y, d, ridge=ridge,
                                                           return_steps=True)
    assert ridge_used == ridge
    np.testing.assert_array_equal(A != 0, reference != 0)
    np.testing.assert_allclose(A, reference, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(cardinality, d)
    assert np.all(steps < [coefs.shape[1] - 1 for coefs in paths])


def test_paths_together_run_on_x_unless_the_gram_matrix_costs_fewer_products(monkeypatch):
    # the defaults' five paths on warpPIE10P's 2,420 features: forming X^T X (n D^2) costs
    # more than the paths' products with X; on pie-c27's 1,280 features it does not, nor
    # for 68 paths of d = 300
    assert not mcfs._gram_is_cheaper(210, 2420, 5, 50)
    assert mcfs._gram_is_cheaper(1428, 1280, 5, 50)
    assert mcfs._gram_is_cheaper(1428, 1280, 68, 300)
    assert mcfs._gram_is_cheaper(1428, 3000, 68, 50)
    # and the route taken is the one the rule names: no D x D product on X
    X = _wide_data(5, n=60, D=300)
    Y = _mcfs_targets(X, 3)
    formed = []
    original = mcfs._ActiveRowProducts
    monkeypatch.setattr(mcfs, "_ActiveRowProducts",
                        lambda gram: formed.append(gram.shape) or original(gram))
    on_x = lasso_coefficients(X, Y, 6)[0]
    assert formed == [] and not mcfs._gram_is_cheaper(60, 300, 3, 6)
    monkeypatch.setattr(mcfs, "_gram_is_cheaper", lambda *args: True)
    on_gram = lasso_coefficients(X, Y, 6)[0]
    assert formed and formed[0] == (300, 300)
    np.testing.assert_allclose(on_x, on_gram, rtol=0, atol=1e-12)


def test_mcfs_never_forms_a_d_by_d_matrix(monkeypatch):
    # D = 3000: a D x D Gram matrix is 72 MB; the whole fit's allocations stay far below
    import tracemalloc

    X = _wide_data(7, n=40, D=3000)
    monkeypatch.setattr(mcfs, "_WHOLE_GRAM_BYTES", 0)  # the X path, as for D > 4096
    tracemalloc.start()
    MCFS(n_clusters=4, n_nonzero_coefs=10).fit(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 8 * 3000**2 / 4


@pytest.mark.parametrize("case", ["gaussian", "correlated", "wide", "tall"])
def test_ridge_lasso_path_without_ridge_equals_lars_path_on_x(case):
    # ridge = 0 (and D above the ridge's bound) runs the Gram-free path on X itself: the same
    # path as scikit-learn's lars_path on X, up to the point MCFS reads
    from sklearn.linear_model import lars_path

    X, y = _path_problem(case)
    _, active, reference = lars_path(X, y, Gram=None, method="lasso", max_iter=60)
    _, ours_active, ours = mcfs.ridge_lasso_path(X, y, 0.0, 60)
    assert ours.shape == reference.shape and ours_active == list(active)
    np.testing.assert_allclose(ours, reference, rtol=1e-8, atol=1e-10)


def test_mcfs_above_the_gram_bound_drops_the_ridge(monkeypatch):
    X = _wide_data(2)
    kept = MCFS(n_clusters=4, n_nonzero_coefs=10, ridge=0.0).fit(X)
    assert kept.ridge_ == 0.0
    # ridge 0 runs on X, with the same path as a Gram matrix without ridge
    Y = _mcfs_targets(X, 4)
    reference = np.column_stack([_lasso_coefficients_per_eigenvector(X, y, 10, ridge=0.0)
                                 for y in Y.T])
    np.testing.assert_allclose(kept.coef_, reference, rtol=0, atol=1e-10)
    monkeypatch.setattr(mcfs, "_GRAM_MAX_BYTES", 8 * 119**2)
    dropped = MCFS(n_clusters=4, n_nonzero_coefs=10).fit(X)
    assert dropped.ridge_ == 0.0
    np.testing.assert_array_equal(dropped.scores_, kept.scores_)


def test_mcfs_unreachable_cardinality_warns_once_per_fit():
    # without the ridge a path has at most rank(X) = n = 20 non-zeros: none reaches 25
    X = _wide_data(3, n=20, D=40)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = MCFS(n_clusters=3, n_nonzero_coefs=25, ridge=0.0).fit(X)
    ours = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(ours) == 1
    assert "for 3 of 3 eigenvectors" in str(ours[0].message)
    assert np.all(np.count_nonzero(model.coef_, axis=0) <= 20)


def test_pca_loadings_unit_norm_sign_invariant_and_equal_eigh():
    X, _ = _data(5)
    scores = PCARanking().fit(X).scores_
    assert np.sum(scores**2) == pytest.approx(1.0)
    np.testing.assert_allclose(PCARanking().fit(-X).scores_, scores)
    Xs = (X - X.mean(0)) / X.std(0)
    _, vecs = np.linalg.eigh(np.cov(Xs.T))
    np.testing.assert_allclose(scores, np.abs(vecs[:, -1]), atol=1e-8)
    assert pca_projection(X, 2).shape == (60, 2)


@pytest.mark.parametrize("shape", [(60, 20), (30, 400)])
@pytest.mark.parametrize("standardize", [True, False])
def test_first_principal_axis_equals_the_svds_on_both_sides_of_n_equal_d(shape, standardize):
    # the axis comes from X^T X when D < n and from X X^T when D >= n: both equal the first
    # right singular vector of the centred (standardised) data, with the sign rule
    rng = np.random.RandomState(shape[1])
    X = rng.randn(*shape) @ np.diag(rng.uniform(0.2, 3.0, shape[1])) + 5.0
    Xc = X - X.mean(axis=0)
    if standardize:
        Xc /= Xc.std(axis=0)
    v = np.linalg.svd(Xc, full_matrices=False)[2][0]
    v *= np.sign(v[np.argmax(np.abs(v))])
    np.testing.assert_allclose(first_principal_axis(X, standardize), v, atol=1e-12)


def test_gha_converges_to_first_principal_axis():
    rng = np.random.RandomState(0)
    f = rng.randn(300)
    X = np.column_stack([f + 0.3 * rng.randn(300) for _ in range(5)] + [rng.randn(300) for _ in range(15)])
    model = GHA(random_state=0).fit(X)
    w = model.components_[0]
    axis = first_principal_axis(X)
    assert abs(w @ axis) / np.linalg.norm(w) > 0.99
    np.testing.assert_array_equal(GHA(random_state=0).fit(X).scores_, model.scores_)
