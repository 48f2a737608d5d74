"""The benchmark's label-free m and K (fsclust.studies.benchmark.label_free): label-free means no
label reaches the choice, m-hat at the true K is the selector's own rule on that K's rows, and
the true K, scored beside the label-free range, never becomes K-hat nor changes the others."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_blobs
from threadpoolctl import threadpool_limits

from fsclust.studies.benchmark import label_free as lf
from fsclust.datasets import Dataset, save_dataset
from fsclust.selection import LabelFreeSelector, choose

EXPERIMENT = {
    "methods": {"laplacian": {"method": "laplacian"}, "spec": {"method": "spec"}},
    "clusterers": {"kmeans": {"method": "kmeans", "params": {"n_init": 2}}},
    "seeds": [0, 1],
    "metrics": ["acc", "nmi"],
    "sweep": {"n_features": [{"fraction": 0.1}, {"fraction": 0.25}, {"fraction": 0.5}]},
    "label_free": {"n_resamples": 4, "n_clusters_range": [2, 3], "seed": 0,
                   "time_limit_s": 60},
}


def _four_groups(seed=0):
    """Four well separated groups in 4 of 20 features, the 16 others noise: K = 4 is the
    structure, so a selector free to choose it would."""
    X, y = make_blobs(n_samples=80, centers=4, n_features=4, cluster_std=0.5,
                      random_state=seed)
    noise = np.random.RandomState(seed).normal(size=(80, 16))
    return np.hstack([X * 3, noise]), y


def _save(path, X, y):
    d = X.shape[1]
    save_dataset(Dataset(X=X, y=y, feature_names=[f"f{j}" for j in range(d)],
                         sample_names=[f"s{i}" for i in range(len(y))],
                         class_names=[f"c{k}" for k in np.unique(y)]), path)
    return path


def _run(tmp_path, data, method, experiment=EXPERIMENT):
    out = tmp_path / method
    out.mkdir(parents=True, exist_ok=True)
    # one BLAS and OpenMP thread, as a workflow job has (fsclust.steps.logged): a fork after
    # this process ran k-means on an OpenMP pool would hang in the child's first k-means
    with threadpool_limits(limits=1):
        lf.run(str(data), out / "rows.tsv", out / "choice.json", out / "criteria.tsv",
               dataset="groups", method=method,
               experiment=lf.job_settings(experiment, method))
    return (json.loads((out / "choice.json").read_text()),
            pd.read_csv(out / "rows.tsv", sep="\t"))


@pytest.mark.parametrize("method", ["laplacian", "spec", lf.ALL_FEATURES])
def test_permuting_the_labels_changes_no_choice(tmp_path, method):
    X, y = _four_groups()
    permuted = np.random.RandomState(1).permutation(y)
    choices = [_run(tmp_path / name, _save(tmp_path / f"{name}.npz", X, labels), method)[0]
               for name, labels in (("true", y), ("permuted", permuted))]
    keys = ["n_features_true_k", "n_features", "n_clusters", "status"]
    assert [{k: c.get(k) for k in keys} for c in choices][0] == \
        [{k: c.get(k) for k in keys} for c in choices][1]
    assert choices[0]["status"] == "ok"


@pytest.mark.parametrize("method", ["laplacian", "spec"])
def test_the_true_k_is_scored_never_chosen_and_changes_no_other_row(method):
    X, _ = _four_groups()
    common = dict(method=method, n_features_grid=[2, 5, 10], n_resamples=5, random_state=3)
    with_true = lf.fit_selector(X, n_clusters_range=[2, 3], true_n_clusters=4, **common)
    alone = lf.fit_selector(X, n_clusters_range=[2, 3], **common)
    # free to choose K = 4, the selector would: the restriction is what keeps it out
    free = LabelFreeSelector(method, n_features_grid=[2, 5, 10], n_clusters_range=[2, 3, 4],
                             n_resamples=5, n_jobs=1, random_state=3).fit(X)
    assert free.n_clusters_ == 4
    assert with_true.n_clusters in (2, 3)
    assert set(with_true.criteria["n_clusters"]) == {2, 3, 4}
    # each K's criteria come from its own clusterings: the rows at K = 2, 3 are the same
    # with or without the extra K, and so is the choice
    rows = with_true.criteria[with_true.criteria["n_clusters"] != 4].reset_index(drop=True)
    pd.testing.assert_frame_equal(rows.drop(columns=["silhouette", "silhouette_se"]),
                                  alone.criteria.drop(columns=["silhouette", "silhouette_se"]))
    # the silhouettes of a subsample's partitions share one matrix product: equal to round-off
    np.testing.assert_allclose(rows[["silhouette", "silhouette_se"]],
                               alone.criteria[["silhouette", "silhouette_se"]], rtol=1e-12)
    assert (with_true.n_features, with_true.n_clusters) == (alone.n_features, alone.n_clusters)
    # m-hat at the true K: the selector's own rule on the rows at that K
    at_true = with_true.criteria[with_true.criteria["n_clusters"] == 4]
    assert with_true.n_features_true_k == choose(at_true, "stability", "one-se")[0]


def test_the_label_free_k_rows_cluster_the_chosen_features_into_k_hat(tmp_path):
    X, y = _four_groups()
    choice, rows = _run(tmp_path, _save(tmp_path / "g.npz", X, y), "laplacian")
    assert choice["n_clusters"] in EXPERIMENT["label_free"]["n_clusters_range"]
    assert choice["n_features"] in lf.fraction_counts([0.1, 0.25, 0.5], X.shape[1])
    assert (rows["n_clusters"] == choice["n_clusters"]).all()
    assert (rows["n_features"] == choice["n_features"]).all()
    assert len(rows) == len(EXPERIMENT["seeds"]) * len(EXPERIMENT["clusterers"])
    assert (rows["status"] == "ok").all() and rows[["acc", "nmi"]].notna().all().all()


def test_label_free_scores_take_the_fixed_rows_at_m_hat():
    sweep = pd.DataFrame({"dataset": "d", "family": "image", "method": "lap",
                          "ranker_seed": 0, "clusterer": "kmeans", "seed": [0, 0, 1, 1],
                          "m_rule": ["10%", "50%", "10%", "50%"], "n_features": [2, 10, 2, 10],
                          "k_rule": "true", "n_clusters": 4, "acc": [0.5, 0.7, 0.6, 0.8],
                          "status": "ok"})
    job_rows = pd.DataFrame({"clusterer": "kmeans", "seed": [0, 1], "n_features": 2,
                             "n_clusters": 3, "acc": [0.4, 0.45], "status": "ok"})
    choice = {"method": "lap", "n_features_true_k": 10, "status": "ok"}
    rows = lf.label_free_scores(sweep, choice, job_rows)
    true_k = rows[rows["k_rule"] == "true"]
    assert (true_k["m_rule"] == "label-free").all()
    pd.testing.assert_frame_equal(
        true_k.drop(columns="m_rule").reset_index(drop=True),
        sweep[sweep["n_features"] == 10].drop(columns="m_rule").reset_index(drop=True))
    free = rows[rows["k_rule"] == "label-free"]
    assert (free["n_clusters"] == 3).all() and list(free["acc"]) == [0.4, 0.45]
    # a selector without result: empty metrics, its status, every clustering seed
    failed = lf.label_free_scores(sweep, {"method": "lap", "status": "timeout"},
                                  job_rows.assign(acc=np.nan, status="timeout"))
    assert failed["acc"].isna().all() and (failed["status"] == "timeout").all()
    assert len(failed[failed["k_rule"] == "true"]) == 2


def test_planned_jobs_here_is_a_subset_of_all():
    exp = {**EXPERIMENT, "all_features": True,
           "label_free": {**EXPERIMENT["label_free"], "here": [{"methods": ["laplacian"]}]}}
    every = lf.planned_jobs(exp, ["a", "b"], "all")
    here = lf.planned_jobs(exp, ["a", "b"], "here")
    assert set(here) < set(every) and here == [("a", "laplacian"), ("b", "laplacian")]
    assert len(every) == 2 * 3 and lf.planned_jobs(exp, ["a"], "none") == []
    # an experiment without a label_free block has no label-free job
    without = {k: v for k, v in EXPERIMENT.items() if k != "label_free"}
    assert lf.planned_jobs(without, ["a"]) == []


def test_the_table_vocabulary_is_the_reports():
    """The label-free job writes the names the report reads (the report may not import the
    steps, tests/test_report.py): the rule name, the all-features control, the cost suffix."""
    from fsclust.studies.benchmark import report as report

    assert lf.LABEL_FREE == report.LABEL_FREE
    assert lf.ALL_FEATURES == report.ALL_FEATURES
    assert lf.COST_SUFFIX == report.SELECTOR_COST_SUFFIX
