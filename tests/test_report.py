import numpy as np
import pandas as pd
import pytest

from fsclust.report import best_and_mean, paper_vs_ours, plot_sweeps, summarise, to_markdown
from fsclust.report.paper import PAPER_VS_OURS_COLUMNS


def _sweeps():
    rows = []
    for seed in (0, 1, 2):
        for m in (1, 2, 4):
            rows.append(dict(dataset="d", method="lap", clusterer="km", seed=seed, n_features=m,
                             acc=0.5 + 0.1 * m + 0.01 * seed, nmi=0.1 * m))
        rows.append(dict(dataset="d", method="all-features", clusterer="km", seed=seed, n_features=4,
                         acc=0.7, nmi=0.3))
    return pd.DataFrame(rows)


def test_summary_is_mean_and_sample_sd_over_seeds():
    s = summarise(_sweeps(), ["acc", "nmi"])
    row = s[(s.method == "lap") & (s.n_features == 2) & (s.metric == "acc")].iloc[0]
    assert row["mean"] == pytest.approx(np.mean([0.7, 0.71, 0.72]))
    assert row["sd"] == pytest.approx(np.std([0.7, 0.71, 0.72], ddof=1))
    assert row["n_runs"] == 3


def test_best_is_the_maximum_mean_and_carries_the_all_features_value():
    best = best_and_mean(summarise(_sweeps(), ["acc", "nmi"]))
    row = best[(best.method == "lap") & (best.metric == "acc")].iloc[0]
    assert row["best_n_features"] == 4
    assert row["best_mean"] == pytest.approx(0.91)
    assert row["sweep_mean"] == pytest.approx(np.mean([0.61, 0.71, 0.91]))
    assert row["all_features_mean"] == pytest.approx(0.7)


def test_figure_is_a_png(tmp_path):
    out = tmp_path / "fig.png"
    plot_sweeps(summarise(_sweeps(), ["acc", "nmi"]), "d", ["acc", "nmi"], out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the SVG beside it, and no temp file left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig.png", "fig.svg"]


def test_figure_of_unknown_dataset_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no results for dataset 'zzz'"):
        plot_sweeps(summarise(_sweeps(), ["acc"]), "zzz", ["acc"], tmp_path / "f.png")


def test_paper_vs_ours_puts_both_numbers_and_the_difference():
    paper = pd.DataFrame([dict(paper="p", table_or_figure="Table 2", dataset="D", method="LS",
                               n_features="2", metric="ACC_percent", value="80.0", sd="", notes="")])
    comp = [dict(paper="p", table_or_figure="Table 2", dataset="D", method="LS",
                 metric="ACC_percent", note="substitute dataset",
                 ours=dict(dataset="d", method="lap", clusterer="km", metric="acc",
                           n_features=2, scale=100))]
    out = paper_vs_ours(paper, comp, summarise(_sweeps(), ["acc"]))
    assert list(out.columns) == PAPER_VS_OURS_COLUMNS
    row = out.iloc[0]
    assert row["paper_value"] == 80.0
    assert row["ours_value"] == pytest.approx(71.0)
    assert row["diff"] == pytest.approx(-9.0)
    assert "substitute" in row["note"]


def test_paper_vs_ours_marks_a_best_m_as_chosen_with_labels():
    comp = [dict(paper="p", table_or_figure="T", dataset="D", method="LS", metric="ACC",
                 ours=dict(dataset="d", method="lap", clusterer="km", metric="acc"))]
    paper = pd.DataFrame(columns=["paper", "table_or_figure", "dataset", "method",
                                  "n_features", "metric", "value", "sd", "notes"])
    row = paper_vs_ours(paper, comp, summarise(_sweeps(), ["acc"])).iloc[0]
    assert "chosen with the labels" in row["note"]
    assert "no such row" in row["note"]
    assert np.isnan(row["paper_value"])


def test_markdown_has_a_row_per_record():
    md = to_markdown(pd.DataFrame({"a": [1, 2], "b": [0.25, np.nan]}))
    assert md.splitlines()[2:] == ["| 1 | 0.250 |", "| 2 |  |"]


def test_atomic_outputs_get_the_usual_permissions(tmp_path):
    import os
    import stat

    from fsclust._io import write_text_atomic

    write_text_atomic(tmp_path / "a.txt", "x")
    (tmp_path / "b.txt").write_text("x")
    mode = stat.S_IMODE(os.stat(tmp_path / "a.txt").st_mode)
    assert mode == stat.S_IMODE(os.stat(tmp_path / "b.txt").st_mode)


def test_report_imports_nothing_above_metrics():
    # report/ is what every experiment uses; paper-specific code lives in fsclust.papers, and
    # nothing here may rank or cluster (it only reads what the steps wrote)
    import ast
    from pathlib import Path

    import fsclust.report

    # the registry is names (ALL_FEATURES); it imports no method until one is asked for
    allowed = ("fsclust._io", "fsclust.report", "fsclust.metrics", "fsclust.graphs",
               "fsclust.registry")
    for path in Path(fsclust.report.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("fsclust"):
                assert node.module.startswith(allowed), (path.name, node.module)
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith("fsclust") or alias.name.startswith(allowed)


@pytest.mark.slow  # renders the figure
def test_sweep_figure_has_an_identical_svg_beside_its_png_and_fixed_metric_ranges(tmp_path,
                                                                                  monkeypatch):
    import matplotlib.pyplot as plt
    import pandas as pd

    from fsclust.report import figures

    rows = [{"dataset": "d", "method": meth, "clusterer": c, "n_features": m, "metric": metric,
             "mean": 0.5 + 0.1 * k, "sd": 0.01, "n_runs": 4}
            for k, meth in enumerate(["a", "b"]) for c in ("kmeans", "ncut")
            for m in (1, 2, 4) for metric in ("acc", "ari")]
    summary = pd.DataFrame(rows)
    seen = []
    monkeypatch.setattr(figures.plt, "close", lambda fig: seen.append(fig))
    figures.plot_sweeps(summary, "d", ["acc", "ari"], tmp_path / "d.png", title="t")
    fig = seen[-1]
    assert fig._suptitle.get_text() == "t (mean +- sd over 4 seeds)"
    axes = fig.axes
    assert {ax.get_ylim() for ax in axes[0::2]} == {figures.METRIC_LIMITS["acc"]}
    assert {ax.get_ylim() for ax in axes[1::2]} == {figures.METRIC_LIMITS["ari"]}
    lines = axes[0].get_lines()[:2]
    assert lines[0].get_linestyle() != lines[1].get_linestyle()
    assert lines[0].get_marker() != lines[1].get_marker()
    svg = (tmp_path / "d.svg").read_bytes()
    plt.close(fig)
    figures.plot_sweeps(summary, "d", ["acc", "ari"], tmp_path / "again.png", title="t")
    assert (tmp_path / "again.svg").read_bytes() == svg
