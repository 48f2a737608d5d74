"""The one-page summary of a selection (issue 24, "Out"): files, determinism, and what each
panel says, on fake results with the contract's attributes and clusters known by construction."""

import struct
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from fsclust.selection.figure import (HEATMAP_MAX_FEATURES, _embedding, heatmap_samples,
                                          plot_selection_summary, selection_summary_figure)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def fake_result(*, k=3, n_per=15, d=12, m=3, labelled=True, searched=True, tied=(),
                k_source="selector", seed=0):
    """A SelectionResult-like object: ``k`` groups of ``n_per`` samples separated along the
    first ``k`` features (the rest noise), the clusters those groups, the top ``m`` features by
    variance selected; ``searched``: a criteria table over a grid of m and K, else the one row
    of m and K given."""
    rng = np.random.RandomState(seed)
    groups = np.repeat(np.arange(k), n_per)
    informative = min(k, d)
    X = rng.normal(size=(k * n_per, d))
    X[:, :informative] += 6 * np.eye(k)[groups][:, :informative]
    names = [f"gene{j}" for j in range(d)]
    order = np.argsort(-X.var(axis=0), kind="stable")
    ranking = pd.DataFrame({"feature": np.array(names)[order], "score": X.var(axis=0)[order],
                            "rank": np.arange(1, d + 1), "selected": np.arange(d) < m,
                            "tied": np.isin(np.arange(d), tied)})
    if searched:
        grid = sorted({1, 2, m, d})
        criteria = pd.DataFrame([{"n_features": g, "n_clusters": c,
                                  "stability": 1.0 - abs(g - m) / d - abs(c - k) / 10,
                                  "stability_se": 0.02}
                                 for g in grid for c in (2, 3, 4)])
    else:
        criteria = pd.DataFrame({"n_features": [m], "n_clusters": [k]})
    summary = {"method": "variance", "n_features": m, "n_clusters": k, "k_source": k_source,
               "criterion": "stability", "rule": "one-se", "warnings": []}
    if labelled:
        summary.update(acc=1.0, nmi=1.0, ari=1.0)
    samples = [f"s{i}" for i in range(k * n_per)]
    matrix = SimpleNamespace(X=X, y=groups.copy() if labelled else None, feature_names=names,
                             sample_names=samples)
    return SimpleNamespace(criterion=criteria, ranking=ranking, summary=summary, matrix=matrix,
                           labels=pd.DataFrame({"sample": samples, "cluster": groups}))


def texts(fig):
    """Every text the figure shows (titles, labels, legends, notes)."""
    return " | ".join(t.get_text() for t in fig.findobj(matplotlib.text.Text))


@pytest.fixture
def figure():
    """Draw a fake result's figure and close it afterwards."""
    drawn = []

    def draw(**kwargs):
        drawn.append(selection_summary_figure(fake_result(**kwargs)))
        return drawn[-1]

    yield draw
    for fig in drawn:
        plt.close(fig)


@pytest.mark.slow  # renders the whole figure
def test_writes_a_valid_png_and_svg_and_nothing_else(tmp_path):
    paths = plot_selection_summary(fake_result(), tmp_path / "summary")
    assert paths == [tmp_path / "summary.png", tmp_path / "summary.svg"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.png", "summary.svg"]
    png = paths[0].read_bytes()
    assert png[:8] == PNG_MAGIC
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
    assert width >= 1000 and height >= 800  # a readable page, not a thumbnail
    assert ET.parse(paths[1]).getroot().tag.endswith("svg")


@pytest.mark.slow  # renders the whole figure
def test_formats_choose_the_files(tmp_path):
    plot_selection_summary(fake_result(), tmp_path / "only", formats=("svg",))
    assert [p.name for p in tmp_path.iterdir()] == ["only.svg"]
    with pytest.raises(ValueError, match="formats are"):
        plot_selection_summary(fake_result(), tmp_path / "bad", formats=("png", "bmp"))


@pytest.mark.slow  # draws the figure twice
def test_same_input_same_bytes(tmp_path):
    for stem in ("first", "second"):
        plot_selection_summary(fake_result(), tmp_path / stem)
    for suffix in (".png", ".svg"):
        assert ((tmp_path / f"first{suffix}").read_bytes()
                == (tmp_path / f"second{suffix}").read_bytes())


def test_embedding_does_not_depend_on_the_sign_of_a_feature():
    X = fake_result(d=6, m=6).matrix.X
    flipped = X * np.array([-1, 1, -1, 1, 1, -1])
    np.testing.assert_allclose(_embedding(flipped)[0], _embedding(X)[0], atol=1e-10)


def test_embedding_separates_clusters_known_by_construction():
    result = fake_result(k=2, d=8, m=2)
    coordinates = _embedding(result.matrix.X[:, :2])[0]
    groups = result.labels["cluster"].to_numpy()
    first, second = (coordinates[groups == g, 0] for g in (0, 1))
    assert first.max() < second.min() or second.max() < first.min()


def test_criterion_against_m_at_the_chosen_k(figure):
    fig = figure(m=3, k=3)
    panel = fig.axes[0]
    assert panel.get_xlabel() == "m"
    assert "stability at K = 3" in panel.get_title(loc="left")
    assert "chosen m = 3" in texts(fig)
    assert "no search" not in texts(fig)


def test_criterion_against_k_when_only_k_was_searched(figure):
    result = fake_result(m=3, k=3)
    result.criterion = result.criterion[result.criterion["n_features"] == 3]
    fig = selection_summary_figure(result)
    try:
        assert fig.axes[0].get_xlabel() == "K"
        assert "chosen K = 3" in texts(fig)
    finally:
        plt.close(fig)


def test_no_search_when_m_and_k_were_given(figure):
    fig = figure(searched=False, k_source="given")
    assert "no search: m = 3 and K = 3" in texts(fig)
    assert not fig.axes[0].lines  # no curve


@pytest.mark.slow  # renders the whole figure
def test_one_feature_two_clusters_no_labels(tmp_path):
    result = fake_result(k=2, m=1, labelled=False)
    paths = plot_selection_summary(result, tmp_path / "one")
    assert all(p.stat().st_size > 0 for p in paths)
    fig = selection_summary_figure(result)
    try:
        assert "label" not in " ".join(t.get_text() for t in fig.axes[2].get_legend().texts)
        assert "against the labels" not in fig.get_suptitle()
        assert fig.axes[3].images[0].get_array().shape == (1, result.matrix.X.shape[0])
    finally:
        plt.close(fig)


def test_title_names_method_m_of_d_k_and_how_k_was_chosen(figure):
    title = figure(m=3, d=12, k=3, k_source="labels").get_suptitle()
    for part in ("variance", "m = 3 of 12 features", "K = 3", "the number of label classes",
                 "ACC 1.000"):
        assert part in title


def test_ties_and_selection_are_marked(figure):
    fig = figure(m=3, tied=(1, 2))
    legend = " ".join(t.get_text() for t in fig.axes[1].get_legend().texts)
    assert "selected (3)" in legend and "tied (2)" in legend


def test_all_equal_scores_are_said(figure):
    result = fake_result()
    result.ranking["score"] = 1.0
    fig = selection_summary_figure(result)
    try:
        assert "all scores equal" in texts(fig)
    finally:
        plt.close(fig)


def test_heatmap_caps_the_features_and_orders_samples_by_cluster():
    n_selected = HEATMAP_MAX_FEATURES + 30
    result = fake_result(d=120, m=n_selected, k=3)
    fig = selection_summary_figure(result)
    try:
        heatmap = fig.axes[3]
        assert heatmap.images[0].get_array().shape == (HEATMAP_MAX_FEATURES, 45)
        assert (f"the {HEATMAP_MAX_FEATURES} best of the {n_selected}"
                in heatmap.get_title(loc="left"))
        # rows: the best selected features, best first, named
        best = result.ranking["feature"][result.ranking["selected"]][:HEATMAP_MAX_FEATURES]
        assert [t.get_text() for t in heatmap.get_yticklabels()] == list(best)
        # 3 clusters of 15 samples: two boundaries between them
        assert [line.get_xdata()[0] for line in heatmap.lines] == [14.5, 29.5]
    finally:
        plt.close(fig)


def test_heatmap_samples_small_input_is_every_sample_by_cluster():
    clusters = np.array([2, 0, 1, 0, 2, 1])
    order = heatmap_samples(clusters)
    assert sorted(order) == list(range(6))
    assert list(clusters[order]) == sorted(clusters)
    for c in (0, 1, 2):  # within a cluster, the matrix's order
        members = order[clusters[order] == c]
        assert list(members) == sorted(members)


def test_heatmap_samples_large_input_is_bounded_deterministic_and_keeps_every_cluster():
    rng = np.random.RandomState(0)
    clusters = np.r_[rng.randint(4, size=9_997), [7, 7, 7]]  # one cluster of 3 samples
    shown = heatmap_samples(clusters, max_samples=2000)
    assert shown.size <= 2000 + 5
    assert len(set(shown)) == shown.size and shown.max() < clusters.size
    assert set(clusters[shown]) == set(clusters)
    assert list(clusters[shown]) == sorted(clusters[shown])
    np.testing.assert_array_equal(shown, heatmap_samples(clusters, max_samples=2000))


def test_heatmap_says_when_it_shows_a_subsample(figure):
    fig = figure(k=2, n_per=1100, d=5, m=2)
    shown = fig.axes[3].images[0].get_array().shape[1]
    assert shown < 2200
    assert f"{shown} of 2200 samples shown" in fig.axes[3].get_xlabel()


def test_labels_of_another_matrix_are_refused():
    result = fake_result()
    result.labels = result.labels.iloc[:-1]
    with pytest.raises(ValueError, match="cluster labels for the 45 samples"):
        selection_summary_figure(result)


@pytest.mark.slow  # renders the whole figure
def test_a_fitted_selector_on_iris_draws(tmp_path):
    # the real criteria_ table (every criterion, NaN where undefined) rather than a fake one
    from sklearn.datasets import load_iris

    from fsclust.selection import LabelFreeSelector

    X, y = load_iris(return_X_y=True)
    names = ["sepal length", "sepal width", "petal length", "petal width"]
    selector = LabelFreeSelector(method="variance", n_features_grid=[1, 2, 4],
                                 n_clusters_range=[2, 3], n_resamples=4, random_state=0).fit(X)
    order = selector.feature_order_
    samples = [f"flower{i}" for i in range(len(y))]
    result = SimpleNamespace(
        criterion=selector.criteria_,
        ranking=pd.DataFrame({"feature": np.array(names)[order],
                              "score": selector.ranker_.scores_[order],
                              "rank": np.arange(1, 5), "selected": selector.support_[order]}),
        labels=pd.DataFrame({"sample": samples, "cluster": selector.labels_}),
        summary={"method": "variance", "n_features": selector.n_features_,
                 "n_clusters": selector.n_clusters_, "k_source": "selector",
                 "criterion": selector.criterion, "rule": selector.rule},
        matrix=SimpleNamespace(X=X, y=y, feature_names=names, sample_names=samples))
    png, svg = plot_selection_summary(result, tmp_path / "iris")
    assert png.read_bytes()[:8] == PNG_MAGIC
    assert ET.parse(svg).getroot().tag.endswith("svg")
