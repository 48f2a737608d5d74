"""FSFS (Mitra, Murthy & Pal 2002): the MICI, the algorithm's two implementations, exact sizes."""

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.exceptions import NotFittedError

from fsclust.rankers import fsfs as fsfs_module
from fsclust.rankers.base import constant_features
from fsclust.rankers.fsfs import (
    FSFS,
    feature_dissimilarity,
    fsfs_heap,
    fsfs_naive,
    mici,
    sorted_neighbours,
)


def _runs_equal(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def _digits(n_features=64):
    """Real data with ties (pixel counts 0..16) and constant pixels."""
    return load_digits().data[:120, :n_features]


# ------------------------------------------------------------------ the MICI lambda_2


@pytest.mark.parametrize("a, b", [(3.0, 1.0), (-0.01, 1000.0), (1e4, -7.0), (1.0, 0.0)])
def test_mici_of_an_affine_copy_is_zero(a, b):
    x = np.random.RandomState(0).randn(50)
    assert mici(x, a * x + b) == 0.0
    # without the clipping: round-off only, far below the variances
    assert abs(mici(x, a * x + b, zero_tol=0.0)) <= 1e-12 * (1 + a * a) * x.var()


def test_mici_of_uncorrelated_features_is_the_smaller_variance():
    x = np.array([1.0, -1.0, 1.0, -1.0])  # population variance 1
    y = np.array([2.0, 2.0, -2.0, -2.0])  # population variance 4, covariance with x 0
    assert mici(x, y) == 1.0
    # the same from random draws made exactly uncorrelated
    rng = np.random.RandomState(1)
    x, y = rng.randn(200), rng.randn(200)
    x = (x - x.mean()) / x.std()
    y = y - y.mean() - (y @ x / (x @ x)) * x
    y = 2.0 * y / y.std()
    assert mici(x, y) == pytest.approx(1.0, rel=1e-12)


def test_mici_is_the_smallest_eigenvalue_of_the_pair_covariance():
    rng = np.random.RandomState(2)
    X = rng.randn(40, 6) @ rng.randn(6, 6)
    dis = feature_dissimilarity(X)
    for i in range(6):
        for j in range(6):
            if i != j:
                cov = np.cov(X[:, [i, j]], rowvar=False, bias=True)
                assert dis[i, j] == pytest.approx(np.linalg.eigvalsh(cov)[0], rel=1e-9,
                                                  abs=1e-12)
    v = X.var(axis=0)
    assert np.all(dis >= 0)
    assert np.all(dis <= np.minimum.outer(v, v) * (1 + 1e-12))


def test_mici_symmetric_translation_and_rotation_invariant():
    rng = np.random.RandomState(3)
    X = rng.randn(30, 8) @ rng.randn(8, 8)
    dis = feature_dissimilarity(X)
    assert np.array_equal(dis, dis.T)  # exactly: one covariance per pair
    assert np.array_equal(np.diag(dis), np.zeros(8))
    assert mici(X[:, 0], X[:, 1]) == mici(X[:, 1], X[:, 0])
    shifted = feature_dissimilarity(X + rng.uniform(-100, 100, 8))
    assert np.allclose(shifted, dis, rtol=1e-9, atol=1e-12)
    theta = 0.7
    rot = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    x, y = (X[:, :2] @ rot).T
    assert mici(x, y) == pytest.approx(dis[0, 1], rel=1e-9)


def test_corr_and_regression_dissimilarities():
    rng = np.random.RandomState(4)
    X = rng.randn(25, 5) @ rng.randn(5, 5)
    rho = np.corrcoef(X, rowvar=False)
    assert np.allclose(feature_dissimilarity(X, "corr"), 1 - np.abs(rho), atol=1e-12)
    reg = feature_dissimilarity(X, "regression")
    for i in range(5):
        for j in range(5):
            if i != j:
                # least-squares residual of predicting feature j from feature i (and 1)
                A = np.column_stack([np.ones(25), X[:, i]])
                res = X[:, j] - A @ np.linalg.lstsq(A, X[:, j], rcond=None)[0]
                assert reg[i, j] == pytest.approx(np.mean(res**2), rel=1e-9)


def test_sorted_neighbours_is_a_stable_sort_with_self_last():
    X = np.round(np.random.RandomState(5).randn(10, 30))  # many exact ties
    for dtype in ("float64", "float32"):
        dis = feature_dissimilarity(X, dtype=dtype)
        order, sd = sorted_neighbours(dis)
        M = dis.copy()
        np.fill_diagonal(M, np.inf)
        assert np.array_equal(order, np.argsort(M, axis=1, kind="stable"))
        assert np.array_equal(sd, np.take_along_axis(M, order.astype(int), axis=1))
        assert np.array_equal(order[:, -1], np.arange(30))
        assert sd.dtype == dis.dtype


# ------------------------------------------------------------------ the algorithm


def _affine_groups(n_groups, size, n=40, seed=0):
    """``n_groups`` groups of ``size`` exact affine copies of one base feature, shuffled."""
    rng = np.random.RandomState(seed)
    base = rng.randn(n, n_groups)
    cols = np.repeat(np.arange(n_groups), size)
    X = base[:, cols] * rng.uniform(0.2, 5.0, cols.size) * rng.choice([-1, 1], cols.size)
    X += rng.uniform(-50, 50, cols.size)
    perm = rng.permutation(cols.size)
    return X[:, perm], cols[perm]


@pytest.mark.parametrize("k", [2, 3, 5, 8])
def test_groups_of_k_plus_one_affine_copies_keep_one_per_group(k):
    X, group = _affine_groups(n_groups=6, size=k + 1, seed=k)
    dis = feature_dissimilarity(X)
    run = fsfs_naive(dis, k)
    assert np.array_equal(np.sort(group[run.retained]), np.arange(6))
    assert _runs_equal(fsfs_heap(*sorted_neighbours(dis), k), run)
    fsfs = FSFS(k=k).fit(X)
    assert np.array_equal(np.sort(group[fsfs.subset_]), np.arange(6))
    assert np.all(fsfs.eps_trace_ == 0.0)  # every feature removed was an exact copy


def test_pairs_of_copies_at_k_1_lose_one_feature_only():
    # the run stops as soon as k reaches 1 (paper step 5): one step, whatever the copies
    X, group = _affine_groups(n_groups=6, size=2, seed=1)
    run = fsfs_naive(feature_dissimilarity(X), 1)
    assert run.retained.size == 11 and run.k_trace.tolist() == [1]
    assert group[run.removed[0]] == group[run.retained[0]]  # the copy of the kept feature


def _random_cases():
    rng = np.random.RandomState(6)
    cases = []
    for t in range(12):
        n, d = rng.randint(4, 15), rng.randint(2, 45)
        X = rng.randn(n, d)
        if t % 3 == 0:  # near and exact copies
            half = d // 2
            X[:, half:] = X[:, : d - half] * rng.uniform(0.5, 2, d - half) + 1.0
        if t % 2 == 0:
            X = np.round(X)  # ties
        cases.append(X)
    cases.append(_digits(40)[:, constant_features(_digits(40)) == 0])
    return cases


@pytest.mark.parametrize("similarity", ["mici", "corr", "regression"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_heap_and_naive_runs_are_identical(similarity, dtype):
    for X in _random_cases():
        dis = feature_dissimilarity(X, similarity, dtype=dtype)
        order, sd = sorted_neighbours(dis)
        d = X.shape[1]
        for k in sorted({1, 2, 3, 4, 7, d // 2, d - 2, d - 1, d + 5} - {0, -1}):
            heap, naive = fsfs_heap(order, sd, k), fsfs_naive(dis, k)
            assert _runs_equal(heap, naive), (X.shape, k)


def test_run_structure():
    X = _digits()
    X = X[:, ~constant_features(X)]
    dis = feature_dissimilarity(X)
    order, sd = sorted_neighbours(dis)
    d = X.shape[1]
    for k in (1, 2, 5, 12, d - 1):
        run = fsfs_heap(order, sd, k)
        # retained and removed partition the features
        both = np.concatenate([run.retained, run.removed])
        assert np.array_equal(np.sort(both), np.arange(d))
        assert run.removed.size == run.k_trace.sum()
        # k only decreases; eps too: the next feature kept has r^k' <= eps
        assert run.k_trace[0] == k and np.all(np.diff(run.k_trace) <= 0)
        assert np.all(np.diff(run.eps_trace) <= 0)
        # the first step keeps the feature whose k-th neighbour is nearest
        assert run.eps_trace[0] == np.partition(dis + np.diag(np.full(d, np.inf)),
                                                k - 1, axis=1)[:, k - 1].min()
    assert fsfs_heap(order, sd, 1).retained.size == d - 1
    assert fsfs_heap(order, sd, d - 1).retained.size == 1


def test_constant_features_are_left_out_and_ranked_last():
    X = _digits()
    constant = constant_features(X)
    assert constant.sum() >= 2
    fsfs = FSFS(k=3).fit(X)
    d_active = int((~constant).sum())
    assert set(fsfs.feature_order_[d_active:]) == set(np.flatnonzero(constant))
    assert not constant[fsfs.subset_].any()
    for m in (1, 10, d_active - 1):
        assert not constant[fsfs.subset(m)].any()
    # the run is the one on the varying features alone
    active = np.flatnonzero(~constant)
    run = fsfs_naive(feature_dissimilarity(X[:, active]), 3)
    assert np.array_equal(fsfs.retention_order_, active[run.retained])
    assert np.array_equal(fsfs.k_trace_, run.k_trace)
    assert np.array_equal(fsfs.eps_trace_, run.eps_trace)


# ------------------------------------------------------------------ the estimator


def test_subset_has_exactly_m_distinct_features_for_every_m():
    X = np.random.RandomState(7).randn(12, 30)
    X[:, 5] = 1.0  # one constant feature
    fsfs = FSFS().fit(X)
    for m in range(1, 31):
        s = fsfs.subset(m)
        assert s.shape == (m,) and np.unique(s).size == m
        assert s.dtype.kind == "i" and s.min() >= 0 and s.max() < 30
        k = fsfs.subset_k(m)
        run = fsfs._run(k)
        if m <= run.retained.size:
            # truncation of the bisection run, in retention order
            assert np.array_equal(s, fsfs._active[run.retained[:m]])
        # the bisection invariant: the run at k keeps >= m, the run at k + 1 fewer
        if m < 29:
            assert run.retained.size >= m
            if k < 28:
                assert fsfs._run(k + 1).retained.size < m


def test_subset_is_deterministic_and_independent_of_earlier_calls():
    X = _digits()
    a = FSFS().fit(X)
    first = {m: a.subset(m) for m in (40, 5, 20, 1)}
    b = FSFS().fit(X.copy())
    for m in (1, 20, 5, 40):
        assert np.array_equal(b.subset(m), first[m])
    c = FSFS().fit(X)
    assert np.array_equal(c.subset(20), first[20])  # a fresh cache


def test_transform_selects_subset_and_set_params_needs_no_refit():
    X = _digits()
    fsfs = FSFS(n_features_to_select=10).fit(X)
    assert np.array_equal(np.flatnonzero(fsfs.get_support()), np.sort(fsfs.subset(10)))
    assert fsfs.k_ == fsfs.subset_k(10)
    assert np.array_equal(fsfs.retention_order_[:10], fsfs.subset(10))
    fsfs.set_params(n_features_to_select=25)
    assert np.array_equal(fsfs.transform(X), X[:, np.sort(fsfs.subset(25))])
    fsfs.set_params(n_features_to_select=None)
    assert np.array_equal(np.flatnonzero(fsfs.get_support()), fsfs.subset_)


def test_ranking_and_scores():
    X = _digits()
    fsfs = FSFS(k=4).fit(X)
    d = X.shape[1]
    assert np.array_equal(np.sort(fsfs.feature_order_), np.arange(d))
    assert np.array_equal(fsfs.feature_order_[: fsfs.subset_.size], fsfs.retention_order_)
    assert np.array_equal(np.sort(fsfs.retention_order_), fsfs.subset_)
    assert np.array_equal(np.argsort(-fsfs.scores_, kind="stable"), fsfs.feature_order_)
    # the removed features, last removed first
    run = fsfs._run(fsfs.k_)
    n_kept = fsfs.subset_.size
    removed = fsfs.feature_order_[n_kept : n_kept + run.removed.size]
    assert np.array_equal(removed, fsfs._active[run.removed[::-1]])


def test_default_k_and_degenerate_inputs():
    X = np.random.RandomState(8).randn(10, 50)
    assert FSFS().fit(X).k_ == 5
    one = FSFS().fit(X[:, :1])
    assert one.k_ == 0 and np.array_equal(one.subset(1), [0])
    flat = FSFS(n_features_to_select=2).fit(np.ones((5, 3)))
    assert np.array_equal(flat.subset(3), [0, 1, 2])
    assert flat.transform(np.ones((5, 3))).shape == (5, 2)


@pytest.mark.parametrize("params, error", [
    ({"k": 0}, ValueError), ({"k": 2.5}, TypeError), ({"k": True}, TypeError),
    ({"k": 20}, ValueError), ({"similarity": "pearson"}, ValueError),
    ({"dtype": "float16"}, ValueError), ({"zero_tol": -1.0}, ValueError),
    ({"n_features_to_select": 0}, ValueError), ({"n_features_to_select": 21}, ValueError),
    ({"n_features_to_select": 2.0}, TypeError),
])
def test_bad_parameters_give_clear_errors(params, error):
    X = np.random.RandomState(9).randn(8, 20)
    with pytest.raises(error, match=next(iter(params))):
        FSFS(**params).fit(X)


def test_bad_subset_sizes():
    X = np.random.RandomState(10).randn(8, 20)
    with pytest.raises(NotFittedError):
        FSFS().subset(3)
    fsfs = FSFS().fit(X)
    for m, error in [(0, ValueError), (21, ValueError), (3.0, TypeError), (True, TypeError)]:
        with pytest.raises(error, match="m"):
            fsfs.subset(m)
    with pytest.raises(ValueError, match="k must be"):
        fsfs_naive(feature_dissimilarity(X), 0)


# ------------------------------------------------------------------ the truncated table


def _strip_matrix(X, similarity, dtype):
    """The matrix the truncated table reads: every canonical strip, self at +inf."""
    Xc, XcT, v = fsfs_module._centred_moments(X)
    return np.vstack([fsfs_module._strip_dissimilarity(XcT, Xc, v, a,
                                                       similarity, 1e-12, np.dtype(dtype))
                      for a in range(0, X.shape[1], fsfs_module._STRIP_ROWS)])


@pytest.mark.parametrize("similarity", ["mici", "corr", "regression"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_truncated_table_runs_equal_the_full_tables(monkeypatch, similarity, dtype):
    # rows kept to a width of 1..d/3 (so runs read past it: large k, rows whose kept
    # neighbours are all removed, counts bounded by d - 1), strips of 7 rows: the run is the
    # heap's and the naive one's on the same matrix, step for step
    monkeypatch.setattr(fsfs_module, "_STRIP_ROWS", 7)
    monkeypatch.setattr(fsfs_module, "_SKETCH_POINTS", 4)  # bounds, not the exact k-th
    recomputed = sketched = 0
    for X in _random_cases():
        d = X.shape[1]
        dis = _strip_matrix(X, similarity, dtype)
        order, sd = sorted_neighbours(dis)
        naive_dis = dis.copy()
        np.fill_diagonal(naive_dis, 0.0)
        for width in sorted({1, 2, max(1, d // 3)}):
            table = fsfs_module._TruncatedTable(X, similarity, 1e-12, dtype, width,
                                                   cache_bytes=3 * d * 12)
            np.testing.assert_array_equal(table.order, order[:, :table.width])
            np.testing.assert_array_equal(table.sorted_dis, sd[:, :table.width])
            for k in sorted({1, 2, 3, 4, 7, d // 2, d - 2, d - 1, d + 5} - {0, -1}):
                run = fsfs_module._fsfs_run(table, k)
                assert _runs_equal(run, fsfs_heap(order, sd, k)), (X.shape, width, k)
                assert _runs_equal(run, fsfs_naive(naive_dis, k)), (X.shape, width, k)
            recomputed += len(table._rows)
            sketched += table._sketch is not None
    assert recomputed > 0 and sketched > 0  # the cases do read past the kept widths


@pytest.mark.parametrize("width", [3, 5, 14])
def test_truncated_rows_are_the_sorted_rows_first_entries_ties_to_the_lower_column(width):
    # ties at the cut (2.0 at columns 2, 4, 5, 9, 12): the partial selection (width < d / 4)
    # must keep the lower columns, as the full sort (width >= d / 4) does
    S = np.array([[3.0, 1.0, 2.0, 1.0, 2.0, 2.0, 5.0, 4.0, 6.0, 2.0, 7.0, 8.0, 2.0, 9.0,
                   5.0, 6.0, 7.0, 8.0, 9.0, np.inf]] * 2)
    S[1] = S[1, ::-1]
    order, values = fsfs_module._smallest_sorted(S, width)
    expected = np.array([np.lexsort((np.arange(20), row))[:width] for row in S])
    np.testing.assert_array_equal(order, expected)
    np.testing.assert_array_equal(values, np.take_along_axis(S, expected, axis=1))
    assert order[0, :3].tolist() == [1, 3, 2]


def test_fsfs_under_a_memory_bound_selects_what_the_full_table_does():
    # integer data with zero column means: every covariance is exact, so the strips and the
    # full table hold the same matrix and the estimator must give the same subsets
    rng = np.random.RandomState(3)
    A = rng.randint(-5, 6, size=(20, 90)).astype(float)
    A[:, 45:] = A[:, :45] * 2 + rng.randint(-1, 2, size=(20, 45))  # near copies
    X = np.vstack([A, -A])
    full = FSFS(k=4).fit(X)
    bounded = FSFS(k=4, max_table_mb=90 * 11 * 12 / 2**20).fit(X)  # rows of 9 entries
    assert isinstance(bounded._table, fsfs_module._TruncatedTable)
    assert bounded._table.width == 9
    np.testing.assert_array_equal(bounded.subset_, full.subset_)
    np.testing.assert_array_equal(bounded.feature_order_, full.feature_order_)
    for m in (1, 5, 30, 60, 89):
        np.testing.assert_array_equal(bounded.subset(m), full.subset(m))


def test_fsfs_memory_stays_within_the_table_bound():
    import tracemalloc

    X = np.random.RandomState(0).randn(30, 3000)
    tracemalloc.start()
    FSFS(k=20, max_table_mb=8).fit(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # the full table would be 12 * 3000^2 = 108 MB; the bounded one holds 8 MiB plus a strip
    assert peak < 24 * 2**20
