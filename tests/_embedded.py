"""Data and checks shared by the tests of the l2,1 embedded methods (UDFS, NDFS, ...)."""

import numpy as np
from sklearn.datasets import make_blobs


def blobs_with_noise(n_noise, seed=0):
    """The synthetic recovery set: 4 blobs in 5 informative columns (the first five), then
    ``n_noise`` columns of N(0, 1), all z-scored; 200 samples."""
    informative, _ = make_blobs(n_samples=200, centers=4, n_features=5, cluster_std=1.0,
                                random_state=0)
    X = np.hstack([informative, np.random.RandomState(seed).randn(200, n_noise)])
    return (X - X.mean(0)) / X.std(0)


def objective_never_increases(model):
    """``J_{t+1} <= J_t + 1e-10 |J_t|`` over a fitted model's ``objective_history_``."""
    J = np.array(model.objective_history_)
    return bool(np.all(J[1:] <= J[:-1] + 1e-10 * np.abs(J[:-1])))


def check_each_m_is_selected_by_a_fit_for_that_m(cls, X):
    """UDFS and SOGFS at their defaults (issue 40): one fit keeps ``c = n_clusters`` active
    rows and ties the rest, so its top ``m > c`` come from a tie in column order; without
    ``n_features_to_select`` the ranker says its subsets are not nested and ``subset(m)``
    answers each m with the fit for m."""
    import pytest

    from fsclust.rankers.base import nested_selection, selected_features

    model = cls(n_clusters=3, random_state=0).fit(X)
    assert not nested_selection(model)
    for m in (7, 2, 3, 7, 9):
        expected = cls(n_clusters=3, n_features_to_select=m,
                       random_state=0).fit(X).feature_order_[:m]
        np.testing.assert_array_equal(selected_features(model, m), expected)
    # m <= n_clusters: the fit itself (c = 3 either way); each other c fitted once
    np.testing.assert_array_equal(model.subset(3), model.feature_order_[:3])
    assert sorted(model._fits_by_c) == [7, 9]
    # c fixed by a parameter: one fit answers every m
    for params in ({"n_components": 4}, {"n_features_to_select": 5}, {"inactive": "norm"}):
        fixed = cls(n_clusters=3, random_state=0, **params).fit(X)
        assert nested_selection(fixed)
        np.testing.assert_array_equal(fixed.subset(6), fixed.feature_order_[:6])
    with pytest.raises(ValueError, match="between 1 and n_features"):
        model.subset(0)
    with pytest.raises(TypeError, match="must be an int"):
        model.subset(2.0)


def planted_problem(n=80, d=200, p=10, groups=4, signal=2.0, seed=0):
    """speed/planted_suite.py's model, small: ``n`` samples in ``groups`` groups (sample ``i``
    in group ``i mod groups``), ``p`` planted features at random columns (the group's centre,
    N(0, signal^2), plus N(0, 1) noise), the other ``d - p`` N(0, 1). Returns ``(X, planted)``,
    ``planted`` a boolean mask."""
    rng = np.random.RandomState(seed)
    labels = np.arange(n) % groups
    X = rng.standard_normal((n, d))
    planted = np.zeros(d, dtype=bool)
    planted[rng.permutation(d)[:p]] = True
    X[:, planted] += signal * rng.standard_normal((groups, p))[labels]
    return X, planted
