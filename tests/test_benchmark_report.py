"""The benchmark's statistics and report (fsclust.studies.benchmark.report) on small synthetic tables
whose answers are known by construction."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import wilcoxon

from fsclust.studies.benchmark import report as benchmark
from fsclust.studies.benchmark.report import (ALL_FEATURES, RANDOM, benchmark_statistics,
                                      dataset_scores, holm, label_free_loss, rank_methods,
                                      signed_rank_tests, write_benchmark_report)

#: A method's expected quality; every dataset shifts all methods alike and seeds add noise
#: far smaller than the gaps, so the order of the methods is the same on every dataset.
QUALITY = {"best": 0.90, "mid": 0.75, "worse": 0.65, ALL_FEATURES: 0.55, RANDOM: 0.45}


def _scores(n_expression=12, n_image=12, quality=QUALITY, m_rules=("10%",), k_rules=("true",),
            seeds=3, ranker_seeds=2, clusterers=("kmeans",), rng=0):
    """A scores table: every method on every dataset, seed and rule, status ok."""
    rng = np.random.default_rng(rng)
    rows = []
    datasets = [(f"e{i:02d}", "expression") for i in range(n_expression)]
    datasets += [(f"i{i:02d}", "image") for i in range(n_image)]
    for dataset, family in datasets:
        shift = rng.uniform(-0.05, 0.05)
        for method, q in quality.items():
            rules = ["100%"] if method == ALL_FEATURES else m_rules
            for ranker_seed in range(ranker_seeds if method == RANDOM else 1):
                for clusterer in clusterers:
                    for m_rule in rules:
                        for k_rule in k_rules:
                            for seed in range(seeds):
                                acc = q + shift + rng.uniform(-0.01, 0.01)
                                rows.append(dict(
                                    dataset=dataset, family=family, method=method,
                                    ranker_seed=ranker_seed, clusterer=clusterer, seed=seed,
                                    m_rule=m_rule, n_features=10, k_rule=k_rule, n_clusters=3,
                                    acc=acc, nmi=acc - 0.3, ari=acc - 0.4, status="ok"))
    return pd.DataFrame(rows)


def _costs(scores):
    pairs = scores.drop_duplicates(["dataset", "method"])[["dataset", "family", "method"]]
    seconds = {method: 10.0 ** j for j, method in enumerate(sorted(pairs["method"].unique()))}
    return pairs.assign(seconds=pairs["method"].map(seconds), max_rss_mb=200.0, status="ok",
                        note="").reset_index(drop=True)


def _setting(table, **where):
    where = {"clusterer": "kmeans", "metric": "acc", "m_rule": "10%", "k_rule": "true",
             "family": "all", **where}
    mask = np.logical_and.reduce([table[c] == v for c, v in where.items()])
    return table[mask]


def test_a_method_best_on_every_dataset_has_mean_rank_one_and_a_small_friedman_p():
    stats = benchmark_statistics(dataset_scores(_scores(), ["acc"]))
    ranks = _setting(stats["mean_ranks"]).set_index("method")["mean_rank"]
    assert ranks["best"] == 1.0
    # the order built in is the order found, controls included
    assert list(ranks.sort_values().index) == sorted(QUALITY, key=QUALITY.get, reverse=True)
    friedman = _setting(stats["friedman"]).iloc[0]
    assert friedman["n_datasets"] == 24 and friedman["n_methods"] == len(QUALITY)
    assert friedman["p_value"] < 1e-6
    # and best beats random significantly, on every dataset
    versus = _setting(stats["vs_controls"], control=RANDOM, method="best").iloc[0]
    assert (versus["wins"], versus["ties"], versus["losses"]) == (24, 0, 0)
    assert versus["significant"]


def test_a_method_equal_to_random_everywhere_is_not_significant():
    scores = _scores(ranker_seeds=3)
    random = scores[scores["method"] == RANDOM]
    # its clustering of seed s scores the mean of random's ranker seeds at s: the same cell
    # value as random's mean of means, summed in another order
    twin = random.groupby(["dataset", "family", "clusterer", "seed", "m_rule", "k_rule"],
                          as_index=False)[["acc", "nmi", "ari"]].mean()
    twin = twin.assign(method="twin", ranker_seed=0, n_features=10, n_clusters=3, status="ok")
    stats = benchmark_statistics(dataset_scores(pd.concat([scores, twin]), ["acc"]))
    versus = _setting(stats["vs_controls"], control=RANDOM, method="twin").iloc[0]
    assert (versus["wins"], versus["ties"], versus["losses"]) == (0, 24, 0)
    assert versus["p_value"] == 1.0 and not versus["significant"]
    ranks = _setting(stats["mean_ranks"]).set_index("method")["mean_rank"]
    assert ranks["twin"] == ranks[RANDOM]


def _holm_by_the_book(p):
    """Holm (1979) step by step: reject in the order of p while p_(i) <= alpha / (n - i + 1);
    the adjusted p-value is the smallest alpha at which p_(i) is rejected."""
    n = len(p)
    order = sorted(range(n), key=lambda i: p[i])
    adjusted, running = [0.0] * n, 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (n - step) * p[i]))
        adjusted[i] = running
    return adjusted


def test_holm_matches_the_step_down_procedure_and_is_monotone():
    p = [0.04, 0.001, 0.03, 0.2, 0.012, 0.5, 0.011]
    adjusted = holm(p)
    assert adjusted == pytest.approx(_holm_by_the_book(p))
    order = np.argsort(p)
    assert np.all(np.diff(adjusted[order]) >= 0)  # the order of the raw p-values is kept
    assert np.all(adjusted >= p) and np.all(adjusted <= 1)
    assert np.isnan(holm([0.01, np.nan])[1]) and holm([0.01, np.nan])[0] == 0.01


def test_batched_signed_rank_tests_equal_one_call_per_comparison():
    rng = np.random.default_rng(3)
    # 6 and 8 pairs: scipy's exhaustive permutations for rows with ties or zeros (up to 13
    # pairs; 8 costs a quarter of 10's 2^10 sign flips, and its rows are as varied: plain, tied
    # and with zeros), 24: its normal approximation
    for n in (6, 8, 24):
        # 12 comparisons of each size: rounded, so some with zeros and ties, some without
        d = np.round(rng.normal(0.01, 0.05, (12, n)), 2)
        d[0] = 0.0
        d[1] = rng.normal(size=n)
        statistic, p = signed_rank_tests(d)
        assert p[0] == 1.0
        for row, w, pv in zip(d[1:], statistic[1:], p[1:]):
            alone = wilcoxon(row, zero_method="wilcox")
            assert (w, pv) == pytest.approx((alone.statistic, alone.pvalue), rel=1e-12)


# "failed": a fit that raised, or the clusterer on the method's selection (same rows)
@pytest.mark.parametrize("status", ["timeout", "failed"])
def test_a_timeout_or_failure_takes_the_worst_rank_on_its_dataset(status):
    scores = _scores()
    hit = (scores["method"] == "best") & (scores["dataset"] == "e03")
    scores.loc[hit, ["acc", "nmi", "ari"]] = np.nan
    scores.loc[hit, "status"] = status
    cells = dataset_scores(scores, ["acc"])
    cell = cells[(cells["method"] == "best") & (cells["dataset"] == "e03")].iloc[0]
    assert cell["status"] == status and np.isnan(cell["value"])
    stats = benchmark_statistics(cells)
    row = _setting(stats["mean_ranks"]).set_index("method").loc["best"]
    k, n = len(QUALITY), 24
    assert row["mean_rank"] == pytest.approx((1 * (n - 1) + k) / n)
    assert row["no_result"] == 1
    # against random it lost that dataset
    versus = _setting(stats["vs_controls"], control=RANDOM, method="best").iloc[0]
    assert (versus["wins"], versus["losses"]) == (23, 1)


def test_methods_without_result_share_the_last_places():
    values = pd.DataFrame({"a": [0.5], "b": [np.nan], "c": [0.7], "d": [np.nan]})
    assert rank_methods(values).iloc[0].tolist() == [2.0, 3.5, 1.0, 3.5]


def test_a_method_not_run_on_most_datasets_is_left_out_and_listed():
    scores = _scores()
    scores = scores[~((scores["method"] == "mid") & (scores["dataset"] != "e00"))]
    stats = benchmark_statistics(dataset_scores(scores, ["acc"]))
    friedman = _setting(stats["friedman"]).iloc[0]
    assert friedman["left_out_methods"] == "mid" and friedman["n_datasets"] == 24
    assert "mid" not in set(_setting(stats["mean_ranks"])["method"])


def test_label_free_loss_on_a_hand_example():
    rows = [  # dataset, m rule, value; best fraction 0.8 on d, 0.6 on e; f has no result
        ("d", "1%", 0.5), ("d", "10%", 0.8), ("d", "label-free", 0.7),
        ("e", "1%", 0.6), ("e", "10%", 0.4), ("e", "label-free", 0.3),
        ("f", "1%", 0.9), ("f", "label-free", np.nan),
        ("g", "1%", 0.9)]  # no label-free cell: not counted
    cells = pd.DataFrame(rows, columns=["dataset", "m_rule", "value"]).assign(
        family="expression", clusterer="kmeans", k_rule="true", method="lap", metric="acc")
    loss = label_free_loss(cells).iloc[0]
    assert loss["n_datasets"] == 2 and loss["no_result"] == 1
    assert loss["median_loss"] == pytest.approx(np.median([0.8 - 0.7, 0.6 - 0.3]))


@pytest.fixture(scope="module")
def small_tables():
    """Expression sets where alpha is best, image sets where beta is; a label-free m."""
    expression = _scores(n_image=0, quality={"alpha": 0.9, "beta": 0.7, ALL_FEATURES: 0.6,
                                             RANDOM: 0.5}, m_rules=("10%", "label-free"))
    image = _scores(n_expression=0, quality={"alpha": 0.7, "beta": 0.9, ALL_FEATURES: 0.6,
                                             RANDOM: 0.5}, m_rules=("10%", "label-free"), rng=1)
    scores = pd.concat([expression, image], ignore_index=True)
    return scores, _costs(scores)


@pytest.mark.slow  # a whole report
def test_summary_names_the_best_method_of_each_family(small_tables, tmp_path):
    scores, costs = small_tables
    write_benchmark_report(scores, costs, tmp_path, metrics=("acc",))
    lines = (tmp_path / "summary.md").read_text().splitlines()
    expression = next(line for line in lines if line.startswith("- **Expression data**"))
    images = next(line for line in lines if line.startswith("- **Images**"))
    assert "**alpha**" in expression and "significantly better than random" in expression
    assert "**beta**" in images and "significantly better than random" in images
    # the slowest method is the one with the largest time (alphabetically last here)
    assert "slowest method random" in "\n".join(lines)


def test_missing_parts_are_stated_not_dropped(tmp_path):
    scores = _scores(n_image=0)
    write_benchmark_report(scores, _costs(scores), tmp_path, metrics=("acc",))
    summary = (tmp_path / "summary.md").read_text()
    assert "no image datasets" in summary
    assert "no label-free m rows" in summary and "no label-free K rows" in summary
    assert "Not measured" in summary


def _digests(folder):
    import hashlib

    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(Path(folder).rglob("*")) if p.is_file()}


@pytest.mark.slow  # three whole reports, one in a subprocess
def test_report_is_byte_identical_twice_shuffled_and_under_another_hash_seed(small_tables,
                                                                            tmp_path):
    scores, costs = small_tables
    written = write_benchmark_report(scores, costs, tmp_path / "a", metrics=("acc",))
    assert {p.relative_to(tmp_path / "a").as_posix() for p in written} == set(
        _digests(tmp_path / "a"))
    write_benchmark_report(scores, costs, tmp_path / "b", metrics=("acc",))
    assert _digests(tmp_path / "a") == _digests(tmp_path / "b")
    # rows shuffled, in a process whose string hashes (set orders) differ
    scores.sample(frac=1, random_state=1).to_csv(tmp_path / "scores.tsv", sep="\t", index=False)
    costs.sample(frac=1, random_state=2).to_csv(tmp_path / "costs.tsv", sep="\t", index=False)
    script = textwrap.dedent(f"""
        import pandas as pd
        from fsclust.studies.benchmark.report import write_benchmark_report
        scores = pd.read_csv({str(tmp_path / "scores.tsv")!r}, sep="\\t")
        costs = pd.read_csv({str(tmp_path / "costs.tsv")!r}, sep="\\t", dtype={{"note": str}},
                            keep_default_na=False)
        write_benchmark_report(scores, costs, {str(tmp_path / "c")!r}, metrics=("acc",))
    """)
    env = {**os.environ, "PYTHONHASHSEED": "12345",
           "PYTHONPATH": os.pathsep.join([str(Path(benchmark.__file__).parents[2]),
                                          os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-c", script], check=True, env=env)
    assert _digests(tmp_path / "a") == _digests(tmp_path / "c")


@pytest.mark.slow  # a whole report
def test_the_scores_table_has_one_row_per_cell_and_keeps_failures(tmp_path):
    scores = _scores(n_image=2, n_expression=2, m_rules=("1%", "10%"))
    hit = (scores["method"] == "mid") & (scores["dataset"] == "e01")
    scores.loc[hit, ["acc", "nmi", "ari"]] = np.nan
    scores.loc[hit, "status"] = "failed"
    write_benchmark_report(scores, _costs(scores), tmp_path, metrics=("acc", "nmi"))
    table = pd.read_csv(tmp_path / "tables" / "dataset_scores.tsv", sep="\t")
    keys = ["dataset", "method", "m_rule"]
    assert len(table) == len(scores.drop_duplicates(keys))
    assert not table.duplicated(keys).any()
    failed = table[(table["method"] == "mid") & (table["dataset"] == "e01")]
    assert set(failed["status"]) == {"failed"} and failed["acc"].isna().all()


def test_versus_random_by_method_counts_the_significant_settings_and_their_fractions():
    # "best" and "mid" above random on every dataset, at two fractions and three metrics:
    # significant in each of the 2 x 3 settings; "worse" too (0.65 > 0.45); a method equal to
    # random is never significant; the label-free m is not a fixed fraction, not counted
    quality = {**QUALITY, "twin": QUALITY[RANDOM], "low": 0.30}
    scores = _scores(quality=quality, m_rules=("1%", "5%", "label-free"), ranker_seeds=1)
    cells = dataset_scores(scores, ["acc", "nmi", "ari"])
    stats = benchmark_statistics(cells)
    table = benchmark.versus_random_by_method(stats["vs_controls"]).set_index(
        ["family", "method"])
    assert list(table.index.get_level_values("family").unique()) == ["expression", "image",
                                                                        "all"]
    best = table.loc[("all", "best")]
    assert (best["settings"], best["better"], best["worse"]) == (6, 6, 0)
    assert best["m_better"] == "1% 5%" and best["m_worse"] == "-"
    assert best["n_datasets"] == 24 and table.loc[("expression", "best"), "n_datasets"] == 12
    low = table.loc[("all", "low")]
    assert (low["better"], low["worse"], low["m_worse"]) == (0, 6, "1% 5%")
    twin = table.loc[("all", "twin")]
    assert (twin["better"], twin["worse"]) == (0, 0)
    assert RANDOM not in table.index.get_level_values("method")
    assert (table["no_result"] == 0).all() and (table["m_no_result"] == "-").all()


def test_versus_random_by_method_names_the_fractions_where_most_sets_have_no_result():
    # a method without result on most datasets at one fraction (a time-out at large m) is
    # named there: its record at that fraction is of its cost
    rows = []
    for m_rule, no_result in (("1%", 0), ("5%", 7), ("10%", 5)):
        rows.append({"clusterer": "kmeans", "metric": "acc", "m_rule": m_rule, "k_rule": "true",
                     "family": "expression", "control": RANDOM, "method": "slow",
                     "n_datasets": 12, "no_result": no_result, "median_difference": -0.1,
                     "significant": no_result > 0})
    table = benchmark.versus_random_by_method(pd.DataFrame(rows)).iloc[0]
    assert (table["no_result"], table["m_no_result"], table["m_worse"]) == (7, "5%", "5% 10%")


def test_the_packaged_record_is_the_runs_table_under_its_source_line(tmp_path):
    # computed from the run's vs_controls.tsv as written, so a run packages with today's code
    scores = _scores(quality={**QUALITY, "low": 0.30}, m_rules=("1%", "5%"), ranker_seeds=1)
    stats = benchmark_statistics(dataset_scores(scores, ["acc", "nmi", "ari"]))
    write_benchmark_report(scores, _costs(scores), tmp_path, diagrams="headline")
    out = benchmark.package_versus_random(tmp_path / "tables", tmp_path / "packaged.tsv",
                                          source="run of today")
    first, rest = out.read_text().split("\n", 1)
    assert first.startswith("# run of today; ")
    packaged = pd.read_csv(out, sep="\t", comment="#", keep_default_na=False)
    expected = benchmark.versus_random_by_method(stats["vs_controls"])
    pd.testing.assert_frame_equal(packaged, expected, check_dtype=False)
    assert (packaged["no_result"] == 0).all() and (packaged["m_no_result"] == "-").all()


@pytest.mark.slow  # two reports, 9 diagrams: 6 s
def test_headline_diagrams_are_the_summarys_and_no_others(tmp_path):
    # benchmark-small's report draws the headline setting's diagram in each family alone; every
    # diagram the summary links is drawn, and the tables are those of diagrams="all"
    import re

    scores = _scores(m_rules=("10%", "20%"))
    costs = _costs(scores)
    headline = write_benchmark_report(scores, costs, tmp_path / "h", metrics=("acc",),
                                      diagrams="headline")
    drawn = sorted(p.name for p in (tmp_path / "h/figures").glob("cd_*.png"))
    assert drawn == [benchmark.diagram_name(family, "kmeans", "acc", "10%", "true")
                     for family in ("all", "expression", "image")]
    linked = set(re.findall(r"figures/(cd_[^)\s]+\.png)", (tmp_path / "h/summary.md").read_text()))
    assert linked and linked <= set(drawn)
    write_benchmark_report(scores, costs, tmp_path / "a", metrics=("acc",))
    assert len(list((tmp_path / "a/figures").glob("cd_*.png"))) == 3 * 2  # families x m rules
    for path in (p for p in headline if p.suffix == ".tsv"):
        assert path.read_bytes() == (tmp_path / "a" / path.relative_to(tmp_path / "h")).read_bytes()
    with pytest.raises(ValueError, match="diagrams must be"):
        write_benchmark_report(scores, costs, tmp_path / "x", metrics=("acc",), diagrams="some")
