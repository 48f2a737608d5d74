"""The `selection` experiment (issue 23, "Measured"): its job, its regret table and the
`selection-small` workflow end to end."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.datasets import load_iris

from fsclust.datasets import load_catalog
from fsclust.selection import CRITERIA, RULES, choose
from fsclust.studies.selection.report import BASELINES, regret_table, summary_table
from fsclust.studies.selection.step import ALL_FEATURES, RANDOM, select_and_score

REPO = Path(__file__).resolve().parents[1]
# null_reference: the excess criterion too, so every criterion is in these tables
SMALL = {"n_resamples": 4, "n_clusters_range": [2, 3, 4], "null_reference": True}


def _block(name):
    return yaml.safe_load((REPO / "config/experiments/selection.yaml").read_text())[
        "selection"][name]


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return (X - X.mean(axis=0)) / X.std(axis=0), y


@pytest.fixture(scope="module")
def iris_job(iris):
    X, y = iris
    return select_and_score(X, y, dataset="iris", method="laplacian", **SMALL)


def test_labels_never_enter_the_choice(iris, iris_job):
    X, y = iris
    permuted = np.random.RandomState(0).permutation(y)
    criteria, _ = select_and_score(X, permuted, dataset="iris", method="laplacian", **SMALL)
    pd.testing.assert_frame_equal(criteria, iris_job[0])
    for criterion in CRITERIA:
        for rule in RULES:
            assert (choose(criteria, criterion, rule, n_features_in=X.shape[1])
                    == choose(iris_job[0], criterion, rule, n_features_in=X.shape[1]))


def test_every_choice_is_scored_and_so_is_the_true_k(iris_job):
    criteria, scores = iris_job
    for ranker in ("laplacian", RANDOM):
        scored = set(zip(*scores.loc[scores["ranker"] == ranker,
                                     ["n_features", "n_clusters"]].to_numpy().T))
        assert set(zip(criteria["n_features"], criteria["n_clusters"])) <= scored
        assert {k for _, k in scored} == {2, 3, 4}  # the true K (3) is in the range here
    everything = scores[scores["ranker"] == ALL_FEATURES]
    assert (everything["n_features"] == 4).all() and set(everything["n_clusters"]) == {2, 3, 4}


def test_a_true_k_outside_the_range_is_scored_and_counted_as_a_miss(iris):
    X, y = iris
    criteria, scores = select_and_score(X, y, dataset="iris", method="spec",
                                        n_resamples=4, n_clusters_range=[4, 5])
    assert "excess" not in criteria  # without null_reference
    assert 3 in set(scores["n_clusters"])
    regret = regret_table(criteria, scores, {"iris": "training"})
    assert not regret["true_k_in_range"].any() and not regret["k_found"].any()
    assert regret["acc_k_given"].isna().all()


def test_baselines_do_not_depend_on_the_method(iris, iris_job):
    X, y = iris
    _, other = select_and_score(X, y, dataset="iris", method="spec", **SMALL)
    columns = ["ranker", "n_features", "n_clusters", "acc", "nmi", "ari"]
    for ranker in (RANDOM, ALL_FEATURES):
        mine = iris_job[1].loc[iris_job[1]["ranker"] == ranker, columns]
        theirs = other.loc[other["ranker"] == ranker, columns]
        pd.testing.assert_frame_equal(mine.reset_index(drop=True),
                                      theirs.reset_index(drop=True))


def test_regret_is_the_best_minus_the_chosen(iris_job):
    regret = regret_table(*iris_job, {"iris": "training"})
    assert len(regret) == len(CRITERIA) * len(RULES)
    for metric in ("acc", "nmi", "ari"):
        np.testing.assert_allclose(regret[f"regret_{metric}"], regret[f"{metric}_best_with_labels"]
                                   - regret[f"{metric}_chosen"])
        for baseline in BASELINES:
            np.testing.assert_allclose(regret[f"regret_{metric}_{baseline}"],
                                       regret[f"{metric}_best_with_labels"]
                                       - regret[f"{metric}_{baseline}"])
    # the best m is the best at the true K: a choice at the true K, or with K given, cannot
    # beat it
    assert (regret.loc[regret["k_found"], "regret_acc"] >= 0).all()
    assert (regret["regret_acc_k_given"] >= 0).all()
    assert (regret["k_found"] == (regret["n_clusters_chosen"] == 3)).all()


def test_summary_counts_each_pair_once_per_criterion_and_rule(iris_job):
    regret = regret_table(*iris_job, {"iris": "training"})
    summary = summary_table(regret)
    assert len(summary) == len(CRITERIA) * len(RULES)
    assert (summary["pairs"] == 1).all()
    assert summary["within_0.02"].between(0, 1).all() and summary["k_found"].between(0, 1).all()


def test_training_sets_are_the_papers_real_sets_and_test_sets_share_no_file_with_them():
    import pkgutil

    import fsclust.papers

    block = _block("selection")
    # the five papers' experiments (config/experiments/<paper>*.yaml), not other experiments
    # such as `peers`, which compares methods on the test sets
    names = {m.name for m in pkgutil.iter_modules(fsclust.papers.__path__)}
    papers = []
    for path in sorted((REPO / "config/experiments").glob("*.yaml")):
        if path.stem.split("-")[0] not in names:
            continue
        for experiment in yaml.safe_load(path.read_text()).get("experiments", {}).values():
            papers += experiment["datasets"]
    assert set(block["groups"]["training"]) == {d for d in papers if not d.startswith("zp-toy")}
    catalog = load_catalog(REPO / "config/datasets.tsv")
    files = {f for d in block["groups"]["training"] for f in catalog[d].files}
    test = block["groups"]["test"]
    assert not {f for d in test for f in catalog[d].files} & files
    sources = [d for d in catalog if d.startswith(("desouto-", "skfeature-"))]
    assert set(test) == {d for d in sources if not set(catalog[d].files) & files}


@pytest.mark.workflow
def test_selection_small_runs_end_to_end(tmp_path):
    from _workflow import copy_workflow, snakemake_in_process

    work = copy_workflow(tmp_path)
    # in this process (its jobs are processes of their own; a subprocess: ~2 s of CPU more)
    proc = snakemake_in_process(work, "--cores", "2", "selection-small")
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = work / "results/selection-small"
    regret = pd.read_csv(results / "regret.tsv", sep="\t")
    block = _block("selection-small")
    datasets = block["groups"]["training"]
    assert set(regret["dataset"]) == set(datasets)
    assert set(regret["method"]) == set(block["methods"])
    criteria = [c for c in CRITERIA if c != "excess" or block.get("null_reference", False)]
    assert set(regret["criterion"]) == set(criteria)
    assert len(regret) == len(datasets) * len(block["methods"]) * len(criteria) * len(RULES)
    for column in ("group", "criterion", "rule", "n_features_chosen", "n_clusters_chosen",
                   "n_features_best_with_labels", "acc_chosen", "acc_best_with_labels",
                   "regret_acc", "regret_nmi", "regret_ari", "true_n_clusters", "k_found",
                   *(f"regret_acc_{b}" for b in BASELINES)):
        assert column in regret.columns, column
    summary = pd.read_csv(results / "summary.tsv", sep="\t")
    assert {"median_regret_acc", "within_0.02", "k_found"} <= set(summary.columns)
    assert (results / "summary.md").read_text().startswith("# selection-small")
    for dataset in datasets:
        assert {p.name for p in (results / "figures" / dataset).iterdir()} == {
            *(f"{m}.png" for m in block["methods"]), "stability.png"}
