"""EVSFSC (Jiang & Ren 2011): the first-order eigenvector perturbations against finite
differences, the all-features-at-once form against the per-feature formula, invariances
(spec methods-seed 4.5)."""

import numpy as np
import pytest

from fsclust.graphs import bandwidth, squared_distances
from fsclust.rankers.evsfsc import (
    EVSFSC,
    LAPLACIANS,
    eigenvector_sensitivities,
    evsfsc_scores,
    spectral_system,
)


def _data(n=14, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[: n // 2, 0] += 2.0
    X[::3, 1] -= 1.5
    return X


def _system(X, laplacian):
    Xc = X - X.mean(axis=0)
    t = bandwidth(squared_distances(Xc), "jiang2011")
    return Xc, t, spectral_system(Xc, t, laplacian)


def _embedding_vector(X, t, laplacian, r):
    """Eigenvector r as the method defines it: unit norm (L, L_sym) or D-normalised (L_rw)."""
    S, g, values, vectors = spectral_system(X, t, laplacian)
    v = vectors[:, r]
    return np.sqrt(g) * v if laplacian == "sym" else v


@pytest.mark.parametrize("laplacian", LAPLACIANS)
def test_perturbation_matches_finite_differences_of_the_eigenvectors(laplacian):
    X = _data()
    Xc, t, (S, g, values, vectors) = _system(X, laplacian)
    xi = 1e-6
    for r in (1, 2, 3):
        base = _embedding_vector(Xc, t, laplacian, r)
        for feature in range(X.shape[1]):
            P, dropped = eigenvector_sensitivities(Xc, S, g, values, vectors, r, laplacian,
                                                   t / 2, np.array([feature]))
            assert dropped == 0
            moved = Xc.copy()
            moved[:, feature] *= 1 + xi
            # the same delta: the derivative is taken at a fixed bandwidth
            other = _embedding_vector(moved, t, laplacian, r)
            other *= np.sign(other @ base)
            fd = (other - base) / xi
            assert np.linalg.norm(fd - P[:, 0]) <= 1e-3 * np.linalg.norm(fd), (r, feature)


def _naive(Xc, t, laplacian, r, feature):
    """Per-feature formula of spec 4.2 with the explicit n x n L1_t."""
    S, g, values, vectors = spectral_system(Xc, t, laplacian)
    delta2 = t / 2
    x = Xc[:, feature]
    S1 = S * (x[:, None] - x[None, :]) ** 2 / delta2
    D1 = np.diag(S1.sum(axis=1))
    L1 = D1 - S1
    q = vectors[:, r]
    n = len(q)
    if laplacian == "unnormalized":
        return -sum((vectors[:, h] @ L1 @ q) / (values[r] - values[h]) * vectors[:, h]
                    for h in range(n) if h != r)
    p = sum((vectors[:, h] @ (values[r] * D1 - L1) @ q) / (values[r] - values[h])
            * vectors[:, h] for h in range(n) if h != r) + (q @ D1 @ q) / 2 * q
    if laplacian == "sym":
        p = np.sqrt(g) * p - 0.5 * (D1 @ q) / np.sqrt(g)
    return p


@pytest.mark.parametrize("laplacian", LAPLACIANS)
def test_all_features_at_once_equals_the_per_feature_formula(laplacian):
    X = _data(d=6)
    Xc, t, (S, g, values, vectors) = _system(X, laplacian)
    for r in (1, 2):
        P, _ = eigenvector_sensitivities(Xc, S, g, values, vectors, r, laplacian, t / 2,
                                         np.arange(6))
        for feature in range(6):
            expected = _naive(Xc, t, laplacian, r, feature)
            np.testing.assert_allclose(P[:, feature], expected, rtol=1e-10,
                                       atol=1e-10 * np.abs(expected).max())


def test_trivial_eigenvector_of_L_does_not_move():
    X = _data()
    Xc, t, (S, g, values, vectors) = _system(X, "unnormalized")
    P, _ = eigenvector_sensitivities(Xc, S, g, values, vectors, 0, "unnormalized", t / 2,
                                     np.arange(X.shape[1]))
    assert np.abs(P).max() < 1e-10


@pytest.mark.parametrize("laplacian", LAPLACIANS)
def test_scores_are_invariant_to_sample_order_and_feature_shifts(laplacian):
    X = _data(n=20, d=6, seed=3)
    scores = EVSFSC(n_clusters=3, laplacian=laplacian).fit(X).scores_
    order = np.random.default_rng(0).permutation(20)
    np.testing.assert_allclose(EVSFSC(n_clusters=3, laplacian=laplacian).fit(X[order]).scores_,
                               scores, rtol=1e-9)
    shifted = X + np.arange(6) * 10.0
    np.testing.assert_allclose(EVSFSC(n_clusters=3, laplacian=laplacian).fit(shifted).scores_,
                               scores, rtol=1e-8)


@pytest.mark.parametrize("laplacian", LAPLACIANS)
def test_constant_feature_scores_zero_and_twins_tie(laplacian):
    X = _data(d=4)
    X = np.column_stack([X, np.full(X.shape[0], 7.0), X[:, 1]])
    scores = evsfsc_scores(X, 2, laplacian)[0]
    assert scores[4] == 0.0
    np.testing.assert_allclose(scores[5], scores[1], rtol=1e-12)


@pytest.mark.parametrize("laplacian", LAPLACIANS)
def test_common_scaling_with_scaled_bandwidth_changes_nothing(laplacian):
    X = _data()
    t = 3.0
    a = evsfsc_scores(X, 2, laplacian, t=t)[0]
    b = evsfsc_scores(5.0 * X, 2, laplacian, t=25.0 * t)[0]
    np.testing.assert_allclose(a, b, rtol=1e-9)


def test_blocks_of_features_change_nothing():
    X = _data(n=30, d=9, seed=1)
    whole = evsfsc_scores(X, 2, "sym")[0]
    np.testing.assert_allclose(evsfsc_scores(X, 2, "sym", block_size=2)[0], whole, rtol=1e-12)


def test_bandwidth_scale_is_the_delta_grid():
    X = _data()
    model = EVSFSC(n_clusters=2, bandwidth_scale=2.0).fit(X)
    base = EVSFSC(n_clusters=2).fit(X)
    assert model.t_ == pytest.approx(4.0 * base.t_)
    np.testing.assert_allclose(model.scores_, evsfsc_scores(X, 2, t=4.0 * base.t_)[0])


@pytest.mark.parametrize("params, message", [
    ({"laplacian": "lsym"}, "laplacian"), ({"n_clusters": 13}, "n_clusters"),
    ({"bandwidth_scale": 0.0}, "bandwidth_scale"),
])
def test_bad_parameters_are_clear_errors(params, message):
    with pytest.raises(ValueError, match=message):
        EVSFSC(**params).fit(_data())
