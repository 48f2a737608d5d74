"""Properties of the rankers and of the Laplacian Score (spec methods-baselines 0.2, 0.3, 2)."""

import warnings

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp
from sklearn.utils import get_tags

from fsclust.graphs import knn_graph, laplacian
from fsclust.registry import make_ranker, method_names, small_test_params
from fsclust.rankers import (
    LaplacianScore,
    VarianceScore,
    constant_features,
    laplacian_score,
    ranking_from_scores,
)


@pytest.fixture(scope="module")
def data():
    """Columns 1 and 4 carry a 3-group structure; 0, 2, 3 are noise; 5 is constant."""
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(3), 20)
    relevant = np.column_stack([groups * 4.0, groups * -3.0]) + 0.3 * rng.normal(size=(60, 2))
    noise = rng.normal(size=(60, 3)) * [1.0, 2.0, 3.0]
    constant = np.full((60, 1), 7.0)
    return np.hstack([noise[:, :1], relevant[:, :1], noise[:, 1:], relevant[:, 1:], constant])


def _brute_force_laplacian_score(X, W):
    """He et al. eqs. (1)-(4), one feature and one pair at a time."""
    W = W.toarray() if sp.issparse(W) else W
    d = W.sum(axis=1)
    scores = []
    for f in X.T:
        f_tilde = f - (f @ d) / d.sum()
        num = 0.5 * sum(
            W[i, j] * (f[i] - f[j]) ** 2 for i in range(len(f)) for j in range(len(f))
        )
        scores.append(num / np.sum(d * f_tilde**2))
    return np.array(scores)


# --- ranking machinery ------------------------------------------------------------------------


def test_ranking_orients_scores_and_puts_nan_and_constants_last():
    scores = np.array([0.3, np.nan, 0.1, 0.3, 0.9])
    assert list(ranking_from_scores(scores, higher_is_better=False)) == [2, 0, 3, 4, 1]
    assert list(ranking_from_scores(scores, higher_is_better=True)) == [4, 0, 3, 2, 1]
    constant = np.array([False, False, True, False, False])
    assert list(ranking_from_scores(scores, False, constant)) == [0, 3, 4, 1, 2]


def test_constant_feature_rule_is_relative_to_magnitude():
    X = np.array([[1e6, 0.0, 5.0], [1e6 + 1e-7, 1e-13, 5.0], [1e6, 0.0, 5.0 + 1e-3]])
    # ptp <= 1e-12 * max(1, max|f|)
    assert list(constant_features(X)) == [True, True, False]


def test_variance_score_ranks_by_variance(data):
    selector = VarianceScore().fit(data)
    np.testing.assert_allclose(selector.scores_, data.var(axis=0))
    order = np.argsort(-data.var(axis=0), kind="stable")
    assert list(selector.feature_order_) == list(order)
    assert selector.feature_order_[-1] == data.shape[1] - 1  # the constant feature


def _skip_counts_rankers(ranker):
    """The rankers of raw counts (RankerTags.counts_input) refuse these real-valued data;
    tests/test_hvg.py and tests/test_deviance.py state these properties on counts."""
    if get_tags(ranker).ranker_tags.counts_input:
        pytest.skip(f"{type(ranker).__name__} models raw counts")


def _every_ranker():
    # from the registry, so a new method is tested here without a line in this file
    return [make_ranker(name, small_test_params("method", name), n_clusters=3, random_state=0)
            for name in method_names()]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("ranker", _every_ranker(), ids=lambda r: type(r).__name__)
def test_ranking_is_the_rank_of_each_feature_in_the_feature_order(data, ranker):
    # scikit-learn's RFE.ranking_ convention: ranking_[j] is feature j's rank, 1 = best
    _skip_counts_rankers(ranker)
    ranker.fit(data)
    d = data.shape[1]
    assert np.issubdtype(ranker.ranking_.dtype, np.integer)
    assert np.array_equal(np.sort(ranker.feature_order_), np.arange(d))
    assert np.array_equal(ranker.ranking_[ranker.feature_order_], np.arange(1, d + 1))
    assert ranker.ranking_[d - 1] == d  # the constant feature is last


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("ranker", _every_ranker(), ids=lambda r: type(r).__name__)
def test_every_reported_kind_of_fitted_attribute_is_declared(data, ranker):
    # the workflow's sidecar reports what the class declares (reported_attributes) and keeps
    # what it stores (stored_arrays): a method's iteration count, histories and paths must be
    # declared there, or a new method's would be silently dropped
    _skip_counts_rankers(ranker)
    ranker.fit(data)
    fitted = {name for name in vars(ranker) if name.endswith("_") and not name.startswith("_")}
    reported = {name for name in fitted
                if name == "n_iter_" or name.endswith(("_history_", "_path_"))}
    reported -= {"labels_path_"}  # a partition per size: scored by the workflow, not stored
    assert reported <= set(type(ranker).reported_attributes)
    assert set(type(ranker).stored_arrays) <= fitted


@pytest.mark.parametrize("ranker", [VarianceScore(), LaplacianScore()])
def test_sweep_over_m_needs_no_refit(data, ranker):
    ranker.fit(data)
    scores = ranker.scores_
    assert ranker.transform(data).shape == data.shape  # None keeps every feature
    for m in range(1, data.shape[1] + 1):
        Xm = ranker.set_params(n_features_to_select=m).transform(data)
        top = np.sort(ranker.feature_order_[:m])
        np.testing.assert_array_equal(Xm, data[:, top])
        np.testing.assert_array_equal(ranker.get_support(indices=True), top)
    assert ranker.scores_ is scores  # nothing was refitted


@pytest.mark.parametrize("m", [0, 7, 2.5])
def test_bad_number_of_selected_features_is_refused(data, m):
    with pytest.raises((ValueError, TypeError)):
        VarianceScore(n_features_to_select=m).fit(data)
    fitted = VarianceScore().fit(data)
    with pytest.raises((ValueError, TypeError)):
        fitted.set_params(n_features_to_select=m).transform(data)


def test_rankers_do_not_modify_their_input(data):
    X = data.copy()
    LaplacianScore(self_loops=True).fit(X)
    VarianceScore().fit(X)
    np.testing.assert_array_equal(X, data)


# --- Laplacian Score: the math ----------------------------------------------------------------


def test_vectorised_score_matches_the_paper_s_pairwise_formula(data):
    W = knn_graph(data, n_neighbors=5)
    expected = _brute_force_laplacian_score(data[:, :5], W)
    np.testing.assert_allclose(laplacian_score(data[:, :5], W), expected, rtol=1e-10)


def test_estimator_scores_on_its_own_graph(data):
    selector = LaplacianScore(n_neighbors=5).fit(data)
    W = knn_graph(data, n_neighbors=5, t=selector.t_)
    np.testing.assert_allclose(selector.scores_, laplacian_score(data, W))


def test_score_is_affine_invariant(data):
    W = knn_graph(data, n_neighbors=5)
    f = data[:, 1]
    X = np.column_stack([f, 3.0 * f + 10.0, -0.01 * f - 4.0, 1e4 * f])
    scores = laplacian_score(X, W)
    np.testing.assert_allclose(scores, scores[0], rtol=1e-9)


def test_constant_feature_scores_inf_and_comes_last(data):
    selector = LaplacianScore().fit(data)
    constant = data.shape[1] - 1
    assert selector.scores_[constant] == np.inf
    assert selector.feature_order_[-1] == constant
    assert selector.constant_mask_[constant]


def test_scores_lie_between_0_and_the_largest_generalised_eigenvalue(data):
    W = knn_graph(data, n_neighbors=5)
    L, d = laplacian(W, "unnormalized")
    generalised = scipy.linalg.eigh(L.toarray(), np.diag(d), eigvals_only=True)
    scores = laplacian_score(data[:, :5], W)
    assert np.all(scores >= 0)
    assert np.all(scores <= generalised.max() + 1e-12)
    assert generalised.max() <= 2 + 1e-12
    # the minimum over all features is the Fiedler value, attained by the Fiedler vector
    values, vectors = scipy.linalg.eigh(L.toarray(), np.diag(d), subset_by_index=[0, 1])
    fiedler = vectors[:, [1]]
    assert laplacian_score(fiedler, W)[0] == pytest.approx(values[1], rel=1e-9)
    assert np.all(scores >= values[1] - 1e-12)


def test_block_indicator_feature_scores_zero():
    rng = np.random.RandomState(1)
    blocks = []
    for m in (5, 7):
        B = rng.uniform(0.1, 1.0, (m, m))
        B = B + B.T
        np.fill_diagonal(B, 0)
        blocks.append(B)
    W = sp.block_diag(blocks).toarray()
    indicator = np.r_[np.ones(5), np.zeros(7)]
    X = np.column_stack([indicator, rng.normal(size=12)])
    scores = laplacian_score(X, W)
    assert scores[0] == pytest.approx(0.0, abs=1e-12)
    assert scores[1] > 0.1


@pytest.mark.parametrize(
    "self_loops, expected", [(True, lambda n: 1.0), (False, lambda n: n / (n - 1))]
)
def test_complete_uniform_graph_values(self_loops, expected):
    # W = 1 1^T gives L_r = 1; W = 1 1^T - I gives n / (n - 1) (spec 2.1 item 5)
    n = 9
    X = np.random.RandomState(2).normal(size=(n, 4))
    W = np.ones((n, n)) - (0 if self_loops else np.eye(n))
    np.testing.assert_allclose(laplacian_score(X, W), expected(n), rtol=1e-12)
    selector = LaplacianScore(n_neighbors=None, weight="binary", self_loops=self_loops).fit(X)
    np.testing.assert_allclose(selector.scores_, expected(n), rtol=1e-12)


def test_relevant_features_rank_first(data):
    selector = LaplacianScore(n_features_to_select=2).fit(data)
    assert set(selector.feature_order_[:2]) == {1, 4}
    assert set(selector.get_support(indices=True)) == {1, 4}


def test_scores_invariant_to_sample_order(data):
    perm = np.random.RandomState(3).permutation(len(data))
    a = LaplacianScore().fit(data).scores_
    b = LaplacianScore().fit(data[perm]).scores_
    np.testing.assert_allclose(a, b, rtol=1e-10)


def test_full_graph_option_uses_the_heat_kernel_without_diagonal(data):
    from fsclust.graphs import rbf_affinity

    selector = LaplacianScore(n_neighbors=None, t_rule="zeng2008").fit(data)
    W = rbf_affinity(data, t_rule="zeng2008")
    np.testing.assert_allclose(selector.scores_, laplacian_score(data, W))
    assert selector.t_ == pytest.approx(0.0025 * ((data[:, None] - data[None]) ** 2).sum(-1).max())


def test_narrow_kernel_degrees_do_not_make_features_constant(data):
    # with weights ~1e-100 every degree is tiny; the scores must stay scale-free
    W = knn_graph(data, n_neighbors=5)
    np.testing.assert_allclose(laplacian_score(data, W * 1e-100), laplacian_score(data, W))


def test_numerator_variant_is_the_pairwise_sum_and_prefers_small_variance(data):
    W = knn_graph(data, n_neighbors=5)
    Wd = W.toarray()
    f = data[:, 0]
    expected = np.sum(Wd * (f[:, None] - f[None, :]) ** 2)
    assert laplacian_score(data[:, :1], W, variant="numerator")[0] == pytest.approx(expected)
    X = np.column_stack([f, 0.1 * f])
    numerator = laplacian_score(X, W, variant="numerator")
    assert numerator[1] == pytest.approx(0.01 * numerator[0])
    selector = LaplacianScore(variant="numerator").fit(data)
    assert selector.scores_[-1] == 0.0  # constant: raw 0 ...
    assert selector.feature_order_[-1] == data.shape[1] - 1  # ... but still ranked last


def test_unknown_variant_is_refused(data):
    with pytest.raises(ValueError, match="variant"):
        LaplacianScore(variant="half").fit(data)


def test_a_ranker_whose_scores_are_all_equal_warns():
    import warnings as _warnings

    from fsclust.rankers.base import FeatureRanker

    class Flat(FeatureRanker):
        def _score(self, X, rng):
            return np.zeros(X.shape[1])

    X = np.random.default_rng(0).normal(size=(10, 4))
    with pytest.warns(RuntimeWarning, match="all 4 scores are equal"):
        Flat().fit(X)
    with _warnings.catch_warnings():
        _warnings.simplefilter("error")
        from fsclust.rankers import VarianceScore

        VarianceScore().fit(X)  # distinct scores: no warning


_READ_ONLY_VARIANTS = [(name, {}) for name in method_names()] + [
    ("laplacian", {"metric": "cosine", "weight": "cosine", "self_loops": True}),
    ("laplacian", {"n_neighbors": None}),
    ("spec", {"style": "phi1"}),
    ("spec", {"style": "phi3"}),
    ("mcfs", {"solver": "skfeature", "score_rule": "signed_max"}),
    ("mcfs", {"ridge": 0.0}),
    ("pca", {"standardize": False}),
]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("name, params", _READ_ONLY_VARIANTS)
def test_rankers_never_write_into_x(name, params, order):
    # fit works on X itself (no protective copy of C-ordered input): a read-only X must fit,
    # and come out unchanged, for every method and the code paths of its options
    rng = np.random.RandomState(0)
    X = np.repeat(rng.randn(3, 12) * 3, 14, axis=0) + rng.randn(42, 12)
    X[:, 5] = 1.0
    X = np.array(X, order=order)
    before = X.copy()
    X.setflags(write=False)
    model = make_ranker(name, params, n_clusters=3, random_state=0)
    _skip_counts_rankers(model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X)
    assert model.scores_.shape == (12,)
    np.testing.assert_array_equal(X, before)


@pytest.mark.parametrize(("name", "label"), [("jelsr", "JELSR"), ("mcfs", "MCFS"),
                                             ("ndfs", "NDFS"), ("rufs", "RUFS"),
                                             ("udfs", "UDFS")])
def test_more_neighbours_than_other_samples_warns_and_uses_them_all(name, label):
    # a sample of 9 has 8 others: k = 12 is fitted as k = 8, and said so (it used to be silent)
    X = np.random.default_rng(3).normal(size=(9, 6))
    params = {**small_test_params("method", name), "n_neighbors": 12}
    with pytest.warns(UserWarning, match=f"{label}: n_neighbors=12 but only 9 samples, each "
                                         "with 8 others: using n_neighbors=8"):
        capped = make_ranker(name, params, n_clusters=2, random_state=0).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        exact = make_ranker(name, {**params, "n_neighbors": 8}, n_clusters=2,
                            random_state=0).fit(X)
    np.testing.assert_array_equal(capped.scores_, exact.scores_)


def test_jelsr_with_as_many_clusters_as_samples_warns_of_the_embedding_it_uses():
    X = np.random.default_rng(4).normal(size=(5, 4))
    with pytest.warns(UserWarning, match="JELSR: n_clusters=5 with 5 samples: embedding in 4"):
        make_ranker("jelsr", {"n_neighbors": 3, "max_iter": 10}, n_clusters=5,
                    random_state=0).fit(X)
