"""KP-Kmeans: gradient, objective and elimination (spec methods-seed 3.6)."""

import numpy as np
import pytest

from fsclust.metrics import clustering_accuracy
from fsclust.rankers.kpkmeans import (
    KPKMeans, anisotropic_kernel, centroid_distance_matrix, kpkmeans_gradient,
    kpkmeans_objective, printed_energy_ratio_gradient,
)


def _problem(seed=0, n=36, d=6, c=3):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d) / np.sqrt(d)
    labels = np.arange(n) % c
    v = rng.uniform(0.3, 1.5, d)
    return X, labels, v, c


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradient_equals_central_differences(seed):
    X, labels, v, c = _problem(seed)
    grad, F = kpkmeans_gradient(X, v, labels, c, lam=0.5, beta=5.0)
    assert F == pytest.approx(kpkmeans_objective(X, v, labels, c, 0.5, 5.0))
    h = 1e-6
    fd = np.array([
        (kpkmeans_objective(X, v + h * e, labels, c, 0.5) - kpkmeans_objective(X, v - h * e, labels, c, 0.5))
        / (2 * h) for e in np.eye(X.shape[1])
    ])
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-8)


def test_H_matches_explicit_sums_and_is_non_negative():
    X, labels, v, c = _problem(3, n=12, d=3)
    K = anisotropic_kernel(X, v)
    H, _, _ = centroid_distance_matrix(K, labels, c)
    for i in range(12):
        for k in range(c):
            members = np.flatnonzero(labels == k)
            explicit = 1 - 2 * K[i, members].mean() + K[np.ix_(members, members)].mean()
            assert H[i, k] == pytest.approx(explicit)
    assert H.min() >= -1e-12


def test_penalty_gradient_and_zero_factors():
    X, labels, v, c = _problem(4)
    v[2] = 0.0
    grad, F = kpkmeans_gradient(X, v, labels, c, lam=0.7, beta=5.0)
    g0, _ = kpkmeans_gradient(X, v, labels, c, lam=0.0, beta=5.0)
    np.testing.assert_allclose(grad - g0, 0.7 * 5.0 * np.exp(-5.0 * v))
    assert np.isfinite(F) and g0[2] == 0.0  # v_j multiplies the energy-ratio part


def test_printed_eq24_is_minus_v_times_true_gradient():
    X, labels, v, c = _problem(5)
    true, _ = kpkmeans_gradient(X, v, labels, c, lam=0.0)
    np.testing.assert_allclose(printed_energy_ratio_gradient(X, v, labels, c), -v * true)


def _toy(seed=0, n_noise=4):
    # KP-Kmeans keeps the structure of its first clustering (the paper's own caveat): with
    # many noise features kernel k-means on all of them misses the blobs, so few here.
    rng = np.random.RandomState(seed)
    centres = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    y = np.repeat([0, 1, 2], 40)
    X = np.hstack([centres[y] + 0.4 * rng.randn(120, 2), rng.randn(120, n_noise)])
    return X, y


def test_toy_relevant_features_survive_and_rank_first():
    X, y = _toy()
    model = KPKMeans(n_clusters=3, step="normalized", random_state=0).fit(X)
    assert sorted(model.feature_order_[:2].tolist()) == [0, 1]
    assert {0, 1} <= set(model.selected_features_.tolist())
    assert model.labels_path_.shape == (model.n_features_path_.size, X.shape[0])


def test_elimination_is_nested_ranking_total_and_objective_decreases_in_a_round():
    X, y = _toy(1)
    model = KPKMeans(n_clusters=3, step="normalized", max_step=0.02, random_state=1).fit(X)
    assert np.all(np.diff(model.n_features_path_) < 0)  # the alive set shrinks
    assert sorted(model.feature_order_.tolist()) == list(range(X.shape[1]))
    eliminated = [entry[2] for entry in model.elimination_log_]
    assert np.all(model.v_[eliminated] == 0) and np.all(model.v_[model.selected_features_] > 0)
    # last eliminated first after the kept ones
    n_sel = model.n_features_selected_
    assert model.feature_order_[n_sel] == eliminated[-1]
    # within the first round (fixed partition) small steps decrease F
    first_round = [r for r, *_ in model.elimination_log_].count(1)
    steps_round1 = model.elimination_log_[0][1] if first_round else 0
    h = np.asarray(model.objective_history_[: max(steps_round1 - 1, 2)])
    assert np.all(np.diff(h) <= 1e-9 * np.abs(h[:-1]))


def test_subsample_labels_cover_all_samples():
    X, y = _toy(2)
    model = KPKMeans(n_clusters=3, step="normalized", max_samples=60, random_state=0).fit(X)
    assert model.labels_.shape == (120,) and model.sample_indices_.shape == (60,)


def _correlated_noise_toy(seed=0, n_noise=40):
    """3 blobs in 2 coordinates + equicorrelated (0.3) N(0,1) noise: the shared factor
    dominates the distances, so kernel k-means on all features does not find the blobs."""
    rng = np.random.RandomState(seed)
    y = np.repeat(np.arange(3), 40)
    centres = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    shared = rng.randn(120, 1)
    noise = np.sqrt(0.7) * rng.randn(120, n_noise) + np.sqrt(0.3) * shared
    return np.hstack([centres[y] + 0.4 * rng.randn(120, 2), noise]), y


def test_partition_from_relevant_features_keeps_exactly_them_at_a_fixed_point():
    # Given C built on the relevant coordinates, the energy ratio holds their factors against
    # the penalty while the rest are removed; the last round then runs max_inner steps
    # without an elimination (the convergence of Algorithm 2), with both features kept.
    X, y = _correlated_noise_toy()
    model = KPKMeans(n_clusters=3, step="normalized", init_features=[0, 1], max_inner=300,
                     random_state=0).fit(X)
    assert sorted(model.selected_features_.tolist()) == [0, 1]
    assert np.all(model.v_[[0, 1]] > 0.1)  # far above eps = 1e-4: a fixed point, not a crawl
    assert model.elimination_log_[-1][0] < model.n_rounds_  # last round eliminated nothing
    # the labels score the method's last partition from outside, as the workflow does
    assert clustering_accuracy(y, model.labels_path_[-1]) > 0.95


def test_init_features_on_all_columns_equals_the_default():
    X, _ = _toy(3)
    a = KPKMeans(n_clusters=3, step="normalized", random_state=4).fit(X)
    b = KPKMeans(n_clusters=3, step="normalized", init_features=list(range(X.shape[1])),
                 random_state=4).fit(X)
    np.testing.assert_array_equal(a.v_, b.v_)
    np.testing.assert_array_equal(a.labels_path_, b.labels_path_)


@pytest.mark.parametrize("bad", [[], [-1], [99]])
def test_init_features_out_of_range_is_a_clear_error(bad):
    X, _ = _toy()
    with pytest.raises(ValueError, match="init_features must be column indices"):
        KPKMeans(n_clusters=3, init_features=bad).fit(X)


def test_init_features_relevant_resolves_to_the_datasets_relevant_features():
    from types import SimpleNamespace

    from fsclust.steps.evaluation import _resolve_dataset_params

    toy = SimpleNamespace(relevant_features=[0, 1])
    params = {"lam": 0.5, "init_features": "relevant"}
    assert _resolve_dataset_params(params, toy, "zp-toy1-10u") == {"lam": 0.5, "init_features": [0, 1]}
    assert params["init_features"] == "relevant"  # the config dict is not modified
    with pytest.raises(ValueError, match="records no relevant features"):
        _resolve_dataset_params(params, SimpleNamespace(relevant_features=None), "iris")


def test_normalised_step_reaches_a_fixed_point_on_iris_where_gamma_one_overshoots():
    # Why Table 3 uses the normalised step (config/experiments/maldonado2015.yaml): with the
    # fixed gamma = 1 the very first gradient step removes several of Iris' 4 features at once,
    # so the step size decides n; the normalised step ends with max_inner steps without an
    # elimination, features still kept.
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    fixed = KPKMeans(n_clusters=3, lam=0.5, gamma=1.0, step="fixed", random_state=0).fit(X)
    first = [entry for entry in fixed.elimination_log_ if entry[:2] == (1, 1)]
    assert len(first) >= 2
    normalised = KPKMeans(n_clusters=3, lam=0.5, step="normalized", max_inner=1000,
                          random_state=0).fit(X)
    assert normalised.n_features_selected_ >= 2
    assert normalised.elimination_log_[-1][0] < normalised.n_rounds_
