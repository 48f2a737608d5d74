"""The label-free selector of m and K: what it chooses, how, and that labels never enter."""

import numpy as np
import pandas as pd
import pytest
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score, silhouette_score

from fsclust.selection import stability
from fsclust.graphs import squared_distances
from fsclust.selection import (
    CRITERIA,
    LabelFreeSelector,
    choose,
    cluster_space,
    default_feature_grid,
    mean_silhouette,
    most_stable_set,
)


def _blocks(n=90, informative=6, noise=30, k=3, seed=0):
    """``k`` well separated groups on the first ``informative`` features, noise elsewhere."""
    rng = np.random.RandomState(seed)
    y = np.repeat(np.arange(k), n // k)
    centres = rng.normal(scale=4.0, size=(k, informative))
    X = np.hstack([centres[y] + rng.normal(size=(n, informative)),
                   rng.normal(size=(n, noise))])
    return X, y


SMALL = dict(method="variance", n_features_grid=[2, 6, 18, 36], n_clusters_range=[2, 3, 4, 5],
             n_resamples=8, random_state=0)


@pytest.fixture(scope="module")
def fitted():
    X, y = _blocks()
    return X, y, LabelFreeSelector(**SMALL).fit(X)


def test_a_block_of_informative_features_and_its_groups_are_recovered(fitted):
    X, y, selector = fitted
    assert selector.n_clusters_ == 3
    # the informative block is the variance ranking's top 6 (centres of scale 4 vs noise 1)
    assert set(np.flatnonzero(selector.get_support())) <= set(range(6))
    assert selector.n_features_ == selector.get_support().sum() <= 6
    assert adjusted_rand_score(y, selector.labels_) == 1.0
    assert selector.transform(X).shape == (X.shape[0], selector.n_features_)


def test_the_criteria_table_holds_every_m_and_k_with_an_error(fitted):
    _, _, selector = fitted
    table = selector.criteria_
    assert len(table) == 4 * 4
    assert sorted(table["n_features"].unique()) == [2, 6, 18, 36]
    for criterion in CRITERIA:
        if criterion != "excess":  # computed only when it chooses
            assert table[criterion].notna().all() and (table[f"{criterion}_se"] >= 0).all()
    assert "excess" not in table
    # a feature set of all features is perfectly stable; Nogueira's interval holds Phi
    phi = table.drop_duplicates("n_features").set_index("n_features")
    assert phi.loc[36, "feature_stability"] == 1.0
    assert (phi["feature_stability_lower"] <= phi["feature_stability"]).all()
    assert (phi["feature_stability"] <= phi["feature_stability_upper"]).all()


def test_the_choice_is_what_choose_reads_from_the_table(fitted):
    _, _, selector = fitted
    assert choose(selector.criteria_, selector.criterion, selector.rule) == (
        selector.n_features_, selector.n_clusters_)


def test_labels_never_enter_the_choice(fitted):
    X, y, plain = fitted  # fitted without labels
    given = LabelFreeSelector(**SMALL).fit(X, np.random.RandomState(0).permutation(y))
    assert (plain.n_features_, plain.n_clusters_) == (given.n_features_, given.n_clusters_)
    np.testing.assert_array_equal(plain.labels_, given.labels_)
    pd.testing.assert_frame_equal(plain.criteria_, given.criteria_)


@pytest.mark.slow  # worker processes: n_jobs=2 starts two interpreters
def test_the_result_is_the_same_whatever_n_jobs():
    X, _ = _blocks(seed=2)
    one = LabelFreeSelector(**SMALL, n_jobs=1).fit(X)
    two = LabelFreeSelector(**SMALL, n_jobs=2).fit(X)
    pd.testing.assert_frame_equal(one.criteria_, two.criteria_)
    np.testing.assert_array_equal(one.labels_, two.labels_)


def test_a_ranker_that_takes_k_is_fitted_for_each_k():
    X, _ = _blocks(n=60, noise=10, seed=3)
    selector = LabelFreeSelector(method="mcfs", n_features_grid=[3, 8], n_clusters_range=[2, 3],
                                 n_resamples=4, random_state=0).fit(X)
    assert selector.ranker_.n_clusters == selector.n_clusters_
    assert len(selector.criteria_) == 4


def test_integers_skip_the_search():
    X, _ = _blocks(seed=4)
    selector = LabelFreeSelector(method="variance", n_features=6, n_clusters=3,
                                 random_state=0).fit(X)
    assert (selector.n_features_, selector.n_clusters_) == (6, 3)
    assert len(selector.criteria_) == 1
    # one of the two searched: only that one varies in the table
    searched = LabelFreeSelector(method="variance", n_features=6, n_clusters_range=[2, 3, 4],
                                 n_resamples=4, random_state=0).fit(X)
    assert searched.criteria_["n_features"].unique().tolist() == [6]
    assert searched.criteria_["n_clusters"].tolist() == [2, 3, 4]


@pytest.mark.parametrize("params, message", [
    ({"n_features": 100}, "exceeds the 36 features"),
    ({"n_features_grid": [0, 5]}, "between 1 and the 36 features"),
    ({"n_clusters_range": [1, 2]}, "must lie between 2"),
    ({"n_clusters_range": [2, 80]}, "must lie between 2"),
    ({"subsample": 0.02}, "change subsample"),
    ({"criterion": "gap"}, "'criterion'"),
    ({"method": "nope"}, "unknown method 'nope'"),
])
def test_bad_parameters_are_one_clear_error(params, message):
    X, _ = _blocks()
    with pytest.raises(ValueError, match=message):
        LabelFreeSelector(**{**SMALL, **params}).fit(X)


def test_choose_one_se_prefers_the_smallest_m_then_the_largest_k_within_reach():
    table = pd.DataFrame({"n_features": [5, 5, 50, 50, 500, 500],
                          "n_clusters": [2, 3, 2, 3, 2, 3],
                          "pac": [0.50, 0.91, 0.90, 0.97, 0.95, 0.96],
                          "pac_se": [0.02, 0.02, 0.02, 0.05, 0.02, 0.02]})
    assert choose(table, "pac", "best") == (50, 3)
    # reach: 0.97 - 0.05 = 0.92, which (5, 3) at 0.91 misses and (50, 2) at 0.90 too
    assert choose(table, "pac", "one-se") == (50, 3)
    table.loc[1, "pac"] = 0.93
    assert choose(table, "pac", "one-se") == (5, 3)
    # the row order of the table does not matter
    assert choose(table.iloc[::-1], "pac", "one-se") == (5, 3)
    # two K within reach at the smallest m: the finer partition
    table.loc[0, "pac"] = 0.96
    assert choose(table, "pac", "one-se") == (5, 3)
    table.loc[[0, 1], "n_clusters"] = [4, 3]
    assert choose(table, "pac", "one-se") == (5, 4)


def _two_groups(n=80, informative=12, noise=60, shift=1.5, seed=0):
    """Two groups at -shift and +shift on each of the first ``informative`` features: every
    informative feature has the same variance, so the subsamples disagree on their order."""
    rng = np.random.RandomState(seed)
    y = np.repeat([0, 1], n // 2)
    X = np.hstack([np.where(y[:, None] == 0, -shift, shift) + rng.normal(size=(n, informative)),
                   rng.normal(size=(n, noise))])
    return X, y


STABLE = dict(method="variance", n_features_grid=[3, 6, 12, 24, 48],
              n_clusters_range=[2, 3, 4], n_resamples=8, random_state=0)


def test_the_most_stable_set_is_the_planted_block_where_one_se_keeps_fewer():
    # issue 40, item 6: one-se returns the sparsest sufficient set (3 or 6 of the 12 planted
    # features cluster the two groups perfectly); the set every subsample agrees on is the
    # planted block itself: fewer features are ordered by noise, more add noise features
    X, y = _two_groups()
    # one fit: the criteria do not depend on the rule, so the one-se choice is read from them
    stable = LabelFreeSelector(**STABLE, rule="stable-set").fit(X)
    one_se_m, one_se_k = choose(stable.criteria_, "stability", "one-se")
    assert one_se_k == 2 and one_se_m < 12
    assert stable.stable_n_features_ == 12 and stable.stable_feature_stability_ == 1.0
    table = stable.criteria_[stable.criteria_["n_clusters"] == 2].set_index("n_features")
    assert table.loc[12, "feature_stability"] > table.drop(12)["feature_stability"].max()
    assert (stable.n_features_, stable.n_clusters_) == (12, 2)
    assert set(np.flatnonzero(stable.get_support())) == set(range(12))
    assert adjusted_rand_score(y, stable.labels_) == 1.0


def test_the_most_stable_set_is_among_the_sufficient_m_and_never_all_features():
    table = pd.DataFrame({"n_features": [5, 10, 20, 40, 80], "n_clusters": [3] * 5,
                          "stability": [0.97, 1.0, 0.80, 1.0, 1.0],
                          "stability_se": [0.01, 0.0, 0.05, 0.0, 0.0],
                          "feature_stability": [0.80, 0.90, 0.99, 0.95, 1.0]})
    # m = 20 is the most stable set but its clusterings are not sufficient; 80 is all features
    assert most_stable_set(table, "stability", 3, 80) == (40, 0.95)
    assert choose(table, "stability", "stable-set", n_features_in=80) == (40, 3)
    assert choose(table, "stability", "one-se") == (10, 3)
    # the largest sufficient m of an agreed set (Phi >= 0.8), not the most stable one
    table.loc[3, "feature_stability"] = 0.85
    assert most_stable_set(table, "stability", 3, 80) == (40, 0.85)
    # no agreed set: the most stable, ties to the smallest m
    table["feature_stability"] = [0.5, 0.6, 0.9, 0.6, 1.0]
    assert most_stable_set(table, "stability", 3, 80) == (10, 0.60)
    # no m below all features: none, and stable-set falls back to one-se's m
    only_all = table[table["n_features"] == 80]
    assert most_stable_set(only_all, "stability", 3, 80)[0] is None
    assert choose(only_all, "stability", "stable-set", n_features_in=80) == (80, 3)
    with pytest.raises(ValueError, match="needs n_features_in"):
        choose(table, "stability", "stable-set")


def test_the_silhouette_is_scikit_learns():
    rng = np.random.RandomState(5)
    X = rng.normal(size=(40, 3))
    D = np.sqrt(squared_distances(X))
    for k in (2, 3, 7):
        labels = rng.randint(0, k, size=40)
        labels[:k] = np.arange(k)
        assert mean_silhouette(D, labels) == pytest.approx(
            silhouette_score(D, labels, metric="precomputed"), abs=1e-12)
    # one cluster, or every sample alone: no silhouette, 0 (as the selector scores it)
    assert mean_silhouette(D, np.zeros(40, dtype=int)) == 0.0


def test_the_cluster_space_keeps_every_distance_and_the_k_means_partition():
    rng = np.random.RandomState(6)
    X = rng.normal(size=(30, 200))
    Z = cluster_space(X)
    assert Z.shape[1] <= 30
    np.testing.assert_allclose(squared_distances(Z), squared_distances(X), atol=1e-9)
    on_x = KMeans(4, n_init=10, random_state=0).fit_predict(X)
    on_z = KMeans(4, n_init=10, random_state=0).fit_predict(Z)
    assert adjusted_rand_score(on_x, on_z) == 1.0
    narrow = rng.normal(size=(30, 5))
    assert cluster_space(narrow) is narrow


def test_the_jackknife_pac_is_the_pac_of_each_leave_one_out_consensus():
    rng = np.random.RandomState(7)
    subsamples = [np.sort(rng.choice(20, 15, replace=False)) for _ in range(6)]
    labels = [rng.randint(0, 3, size=15) for _ in range(6)]
    pac, se = stability.jackknife_pac(subsamples, labels, 20)
    consensus, _ = stability.resampled_consensus_matrix(subsamples, labels, 20)
    assert pac == stability.proportion_ambiguous_clustering(consensus)
    left_out = []
    for out in range(6):
        keep = [r for r in range(6) if r != out]
        c, _ = stability.resampled_consensus_matrix([subsamples[r] for r in keep],
                                                    [labels[r] for r in keep], 20)
        left_out.append(stability.proportion_ambiguous_clustering(c))
    left_out = np.array(left_out)
    assert se == pytest.approx(np.sqrt(5 / 6 * np.sum((left_out - left_out.mean()) ** 2)))


def test_the_pac_on_sampled_pairs_estimates_the_pac_on_all_pairs():
    # 400 samples, 79 800 pairs: 20 000 drawn pairs estimate the PAC within a few of the
    # sampling's standard errors (at most 0.5 / sqrt(20 000) = 0.0035), always the same ones
    rng = np.random.RandomState(3)
    truth = np.repeat([0, 1, 2, 3], 100)
    subsamples = [np.sort(rng.choice(400, 320, replace=False)) for _ in range(8)]
    labels = []
    for rows in subsamples:
        noisy = truth[rows].copy()
        flip = rng.rand(rows.size) < 0.2
        noisy[flip] = rng.randint(0, 4, size=flip.sum())
        labels.append(noisy)
    exact, exact_se = stability.jackknife_pac(subsamples, labels, 400)
    estimate, se = stability.jackknife_pac(subsamples, labels, 400, max_pairs=20_000,
                                           random_state=0)
    assert 0.05 < exact < 0.95
    assert abs(estimate - exact) < 4 * 0.5 / np.sqrt(20_000)
    assert se == pytest.approx(exact_se, rel=0.25)
    assert (estimate, se) == stability.jackknife_pac(subsamples, labels, 400,
                                                     max_pairs=20_000, random_state=0)
    # no more pairs asked for than there are: every pair, exactly
    assert stability.jackknife_pac(subsamples, labels, 400, max_pairs=79_800,
                                   random_state=1) == (exact, exact_se)


def test_the_default_grid_runs_geometrically_to_all_features():
    grid = default_feature_grid(5000)
    assert grid[0] == 5 and grid[-1] == 5000
    ratios = grid[1:] / grid[:-1]
    assert np.all(ratios > 1.5) and np.all(ratios < 2.5)
    assert default_feature_grid(4).tolist() == [4]


def test_the_excess_over_null_data_is_the_stability_minus_that_of_permuted_features(fitted):
    X, y = _blocks(seed=8)
    # 12 subsamples, not SMALL's 8: with 8 (and 3 k-means restarts per subsample) the null
    # stability's error is wide enough (0.13) that the one-SE rule's largest K takes K = 4
    selector = LabelFreeSelector(**{**SMALL, "criterion": "excess", "n_resamples": 12}).fit(X)
    table = selector.criteria_
    np.testing.assert_allclose(table["excess"], table["stability"] - table["null_stability"],
                               atol=1e-12)
    assert (table["excess_se"] >= table["stability_se"]).all()
    # the informative block's groups are structure the null data lack; noise alone is not
    assert selector.n_clusters_ == 3
    assert set(np.flatnonzero(selector.get_support())) <= set(range(6))
    # a selector of another criterion computes no excess (the module's, of the same SMALL)
    with pytest.raises(ValueError, match="no 'excess' column"):
        choose(fitted[2].criteria_, "excess")


def test_null_data_keep_each_feature_and_lose_their_joint_structure():
    from fsclust.selection import null_data

    X, y = _blocks(seed=9)
    X0 = null_data(X, 0)
    np.testing.assert_array_equal(np.sort(X0, axis=0), np.sort(X, axis=0))
    labels = KMeans(3, n_init=10, random_state=0).fit_predict(X0[:, :6])
    assert adjusted_rand_score(y, labels) < 0.2
