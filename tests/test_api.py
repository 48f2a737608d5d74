"""fsclust.select: one call from a matrix to the selected features, the clusters, where K came
from, and the ties that decide a ranking."""

import json

import numpy as np
import pandas as pd
import pytest

from fsclust import api
from fsclust.datasets import make_blobs_with_irrelevant
from fsclust.registry import method_names_by_role
from fsclust.userdata import as_user_matrix

# Small selectors: the file runs in seconds.
FAST = dict(n_resamples=4, n_features_grid=[3, 6], n_clusters_range=[2, 3, 4])


@pytest.fixture(scope="module")
def blobs():
    """3 groups in the first 3 of 12 features."""
    return make_blobs_with_irrelevant(n_samples=45, n_relevant=3, n_irrelevant=9,
                                      random_state=0)


@pytest.fixture(scope="module")
def frame(blobs):
    names = [f"gene{j}" for j in range(blobs.X.shape[1])]
    return pd.DataFrame(blobs.X, columns=names, index=[f"cell{i}" for i in range(45)])


@pytest.fixture(scope="module")
def unlabelled(blobs):
    return api.select(blobs.X, "laplacian", **FAST)


def _same_choice(a, b):
    assert a.ranking[["score", "rank", "selected", "tied"]].equals(
        b.ranking[["score", "rank", "selected", "tied"]])
    assert (a.summary["n_features"], a.summary["n_clusters"]) == (
        b.summary["n_features"], b.summary["n_clusters"])
    assert np.array_equal(a.labels["cluster"], b.labels["cluster"])


def test_numpy_and_pandas_give_the_same_ranking_with_the_names_kept(unlabelled, frame):
    named = api.select(frame, "laplacian", **FAST)
    _same_choice(unlabelled, named)
    position = [int(f[1:]) for f in unlabelled.ranking["feature"]]
    assert named.ranking["feature"].tolist() == frame.columns[position].tolist()
    assert named.labels["sample"].tolist() == frame.index.tolist()


def test_the_informative_block_is_selected(unlabelled, blobs):
    ranking = unlabelled.ranking
    assert sorted(int(f[1:]) for f in ranking["feature"][ranking["selected"]]) == \
        blobs.relevant_features
    assert unlabelled.summary["n_clusters"] == blobs.n_classes


def test_k_comes_from_the_selector_the_labels_or_the_caller(unlabelled, blobs):
    assert unlabelled.summary["k_source"] == "selector"
    assert "acc" not in unlabelled.summary
    two = np.arange(45) % 2  # 2 classes: K = 2, whatever the selector would estimate
    from_labels = api.select(blobs.X, "laplacian", labels=two, **FAST)
    assert (from_labels.summary["k_source"], from_labels.summary["n_clusters"]) == ("labels", 2)
    assert set(from_labels.criterion["n_clusters"]) == {2}
    assert {"acc", "nmi", "ari"} <= set(from_labels.summary)
    given = api.select(blobs.X, "laplacian", labels=two, n_clusters=4, **FAST)
    assert (given.summary["k_source"], given.summary["n_clusters"]) == ("given", 4)


def test_labels_never_change_the_choice(blobs):
    shuffled = np.random.default_rng(1).permutation(blobs.y)
    a = api.select(blobs.X, "laplacian", labels=blobs.y, **FAST)
    b = api.select(blobs.X, "laplacian", labels=shuffled, **FAST)
    _same_choice(a, b)
    assert a.summary["ari"] > b.summary["ari"]  # they only score the result
    # with K fixed, labels or none: the same fit
    _same_choice(api.select(blobs.X, "laplacian", n_clusters=3, **FAST),
                 api.select(blobs.X, "laplacian", n_clusters=3, labels=shuffled, **FAST))


def test_a_matrix_already_read_is_taken_as_it_is(unlabelled, blobs):
    """As the command line gives it, read and preprocessed: labels given then become its y."""
    matrix = as_user_matrix(blobs.X)
    assert api.select(matrix, "laplacian", **FAST).matrix is matrix
    labelled = api.select(matrix, "laplacian", labels=blobs.y, **FAST)
    assert labelled.summary["k_source"] == "labels" and matrix.y is None
    with pytest.raises(ValueError, match="one label per sample"):
        api.select(matrix, "laplacian", labels=blobs.y[:-1], **FAST)


def test_a_label_column_is_not_a_feature(frame, blobs):
    labelled = frame.assign(group=np.array(["a", "b", "c"])[blobs.y])
    result = api.select(labelled, "laplacian", label_column="group", **FAST)
    assert "group" not in set(result.ranking["feature"])
    assert result.summary["k_source"] == "labels"
    assert result.summary["label_column"] == "group"


def test_constant_features_are_ranked_last_reported_and_never_selected(blobs):
    X = np.column_stack([np.full(45, 2.0), blobs.X, np.zeros(45)])
    result = api.select(X, "laplacian", **FAST)
    assert result.ranking["feature"].tail(2).tolist() == ["f0", "f13"]
    assert not result.ranking["selected"].tail(2).any()
    assert result.ranking["tied"].tail(2).all()  # scored like the worst, tied with each other
    assert "2 constant feature(s) ('f0', 'f13')" in result.summary["warnings"][0]
    assert result.summary["n_constant_features"] == 2


def test_identical_columns_are_reported_as_all_tied():
    column = np.random.default_rng(0).normal(size=(40, 1))
    result = api.select(np.repeat(column, 6, axis=1), "variance", **FAST)
    assert result.ranking["tied"].all()
    assert result.summary["degenerate"]
    assert any("all 6 scores are equal" in w for w in result.summary["warnings"])


def test_the_fix_for_llcfs_names_its_neighbourhood_option():
    column = np.random.default_rng(0).normal(size=(30, 1))
    result = api.select(np.repeat(column, 4, axis=1), "llcfs", n_features=2, n_clusters=2,
                        method_params={"n_neighbors": 5, "max_iter": 5,
                                       "min_neighborhood_size": 1})
    assert result.summary["degenerate"]
    assert any("neighborhood='knn'" in w for w in result.summary["warnings"])


def test_a_tie_across_the_top_m_boundary_is_reported():
    rng = np.random.default_rng(0)
    base = rng.normal(size=40)
    # variances 9, 1, 1, 1 (the same values, permuted), then smaller: m = 2 cuts the tie
    X = np.column_stack([3 * base, *(rng.permutation(base) for _ in range(3)),
                         0.5 * rng.normal(size=(40, 3))])
    result = api.select(X, "variance", n_features=2, **FAST)
    assert result.ranking["tied"].tolist() == [False, True, True, True, False, False, False]
    assert result.summary["degenerate"]
    (warning,) = result.summary["warnings"]
    assert "1 of them are selected" in warning and "n_features=1" in warning
    assert "n_features=4" in warning
    # the same ties outside the cut are marked, not reported
    whole = api.select(X, "variance", n_features=4, **FAST)
    assert whole.ranking["tied"].sum() == 3
    assert not whole.summary["degenerate"] and whole.summary["warnings"] == []


def test_distinct_scores_are_not_tied(unlabelled):
    assert not unlabelled.ranking["tied"].any()
    assert not unlabelled.summary["degenerate"]
    assert unlabelled.summary["warnings"] == []


def test_two_methods_agree_symmetrically(blobs):
    multi = api.select(blobs.X, ["laplacian", "variance"], **FAST)
    assert isinstance(multi, api.MultiSelection) and multi.methods == ["laplacian", "variance"]
    for measure in ("jaccard", "top_overlap"):
        table = multi.agreement_matrix(measure).to_numpy()
        assert np.allclose(table, table.T) and np.all(np.diag(table) == 1)
        assert np.all((table >= 0) & (table <= 1))
    # each method's selector is fitted as it would be alone
    _same_choice(multi["variance"], api.select(blobs.X, "variance", **FAST))


def test_a_list_of_one_method_is_a_multiselection_and_all_is_the_methods(blobs):
    assert isinstance(api.select(blobs.X, ["variance"], **FAST), api.MultiSelection)
    counts = {"deviance", "hvg_seurat_v3", "hvg_seurat", "hvg_cell_ranger",
              "hvg_pearson_residuals"}  # models of raw counts: they refuse a real table
    assert api.resolve_methods("all") == [name for name in method_names_by_role("method")
                                          if name not in counts]


@pytest.mark.slow  # worker processes (as n_jobs's tests in test_selection and test_cli_select)
def test_results_do_not_depend_on_n_jobs(unlabelled, blobs):
    one = unlabelled  # n_jobs=None: one job
    two = api.select(blobs.X, "laplacian", n_jobs=2, **FAST)
    assert one.ranking.equals(two.ranking) and one.labels.equals(two.labels)
    assert one.criterion.equals(two.criterion)
    assert one.summary == two.summary


def test_the_summary_is_json(unlabelled):
    assert json.loads(json.dumps(unlabelled.summary)) == unlabelled.summary


def test_reduced_keeps_the_names_and_values(frame):
    result = api.select(frame, "laplacian", **FAST)
    reduced = result.reduced()
    chosen = result.ranking.loc[result.ranking["selected"], "feature"]
    assert set(reduced.columns) == set(chosen)
    assert reduced.equals(frame[reduced.columns])


def test_to_anndata_writes_var_obs_and_uns_as_scanpy_does(frame, tmp_path):
    anndata = pytest.importorskip("anndata")
    adata = anndata.AnnData(frame.to_numpy(), obs=pd.DataFrame(index=frame.index),
                            var=pd.DataFrame(index=frame.columns))
    result = api.select(adata, "laplacian", **FAST)
    out = result.to_anndata()
    assert "fsclust_score" not in adata.var  # a copy
    ranking = result.ranking.set_index("feature").loc[out.var_names]
    assert np.array_equal(out.var["fsclust_rank"], ranking["rank"])
    assert out.var["fsclust_selected"].dtype == bool
    assert out.var["fsclust_selected"].sum() == result.summary["n_features"]
    assert isinstance(out.obs["fsclust_cluster"].dtype, pd.CategoricalDtype)
    assert out.uns["fsclust"]["k_source"] == "selector"
    # written as it is, whatever pandas holds text in (pandas 3's string dtype needs a flag)
    out.write_h5ad(tmp_path / "out.h5ad")
    back = anndata.read_h5ad(tmp_path / "out.h5ad")
    assert back.var["fsclust_selected"].tolist() == out.var["fsclust_selected"].tolist()
    assert back.obs_names.tolist() == out.obs_names.tolist()
    with pytest.raises(ValueError, match="reduced"):
        api.select(frame, "variance", **FAST).to_anndata()


@pytest.mark.parametrize("call, match", [
    (dict(method="laplacain"), "did you mean 'laplacian'"),
    (dict(method=["spec", "mfcs"]), "did you mean 'mcfs'"),
    (dict(n_resample=4), "did you mean 'n_resamples'"),
    (dict(method_params={"n_neighbours": 5}), "did you mean 'n_neighbors'"),
    (dict(method_params={"n_clusters": 3}), "use n_clusters=K"),
    (dict(n_features=13), r"n_features=13 is out of range: .* between 1 and the 12 features"),
    (dict(n_features=0), "n_features=0: give 'auto' or an integer of at least 1"),
    (dict(n_clusters=36), r"n_clusters=36 is out of range: .* minus one \(35"),
    (dict(labels=np.zeros(45)), r"1 class\(es\), so K = 1.*give n_clusters=K"),
    (dict(subsample=0.02), "subsample=0.02 of 45 samples gives 1"),
])
def test_bad_input_gets_one_message_naming_the_option(blobs, call, match):
    with pytest.raises(ValueError, match=match):
        api.select(blobs.X, **{"method": "laplacian", **call})


def test_all_constant_is_an_error():
    with pytest.raises(ValueError, match="all 3 feature.s. are constant"):
        api.select(np.ones((10, 3)), "laplacian")


def test_a_given_number_of_features_is_told_to_the_method():
    # UDFS keeps as many active rows as features to select (issue 40): told m, it finds the
    # 30 planted features of four groups among 1,000; at its class default it would keep
    # K = 4 rows and tie the rest
    rng = np.random.RandomState(0)
    groups = rng.randint(0, 4, 160)
    X = rng.randn(160, 1000)
    planted = rng.choice(1000, 30, replace=False)
    X[:, planted] += 2.0 * rng.randn(4, 30)[groups]
    result = api.select(X, "udfs", n_features=30, n_clusters=4, **FAST)
    ranker = result.selector.ranker_
    assert ranker.n_features_to_select == 30
    from fsclust.rankers.base import selected_features

    assert np.isin(selected_features(ranker, 30), planted).mean() >= 0.8
