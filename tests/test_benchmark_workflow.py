"""Issue 27's cross-dataset benchmark: its config covers the registry, a method that is too slow,
fails or ties every score is recorded instead of failing its job, and `benchmark-small` runs end
to end into the tables of the report (byte-identical whatever --cores)."""

import json
import re
import shutil
import time

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.datasets import make_blobs

from fsclust import registry, steps
from fsclust.datasets import Dataset, save_dataset
from fsclust.rankers.base import FeatureRanker

from _mirror import MIRROR, needs_mirror
from _workflow import REPO, copy_workflow, snakemake_in_process
from test_hpc import PROFILE, _jobs, needs_slurm_plugin

CONFIG = REPO / "config/experiments/benchmark.yaml"
CLUSTERERS = {"kmeans": {"method": "kmeans", "params": {"n_init": 2}}}
GRID = [{"fraction": 0.25}, {"fraction": 0.5}]


def _benchmark():
    return yaml.safe_load(CONFIG.read_text())["experiments"]["benchmark"]


def test_config_names_every_registered_method_at_its_defaults():
    exp = _benchmark()
    excluded = exp["excluded_methods"]
    named = {spec["method"] for spec in exp["methods"].values()}
    assert named | set(excluded) >= set(registry.method_names_by_role("method"))
    assert not named & set(excluded)
    assert all(reason.strip() for reason in excluded.values())
    # no hyper-parameter chosen with the labels: every method at its class's defaults
    assert all(not spec.get("params") for spec in exp["methods"].values())
    assert "random" in named and exp["all_features"] is True


def test_config_sweeps_fractions_of_d_and_records_the_families():
    exp = _benchmark()
    assert [point["fraction"] for point in exp["sweep"]["n_features"]] == [
        0.01, 0.02, 0.05, 0.1, 0.2, 0.5]
    assert set(exp["families"]) == {"expression", "image"}
    family_sets = [set(v) for v in exp["families"].values()]
    assert set.union(*family_sets) == set(exp["datasets"])
    assert not set.intersection(*family_sets)
    assert len(exp["seeds"]) == 10 and exp["time_limit_s"] > 0


# --- the time limit: a tiny test-only ranker that sleeps, raises or ties ------------------

ALLOCATE_MB = 200

class _TestRanker(FeatureRanker):
    """Scores the column index (ascending: a ranking decided by nothing random); ``behaviour``
    "sleep" sleeps first, "raise" raises, "tie" scores every feature 1, "allocate" first
    fills ALLOCATE_MB of new memory."""

    def __init__(self, behaviour="ok", n_clusters=None, n_features_to_select=None):
        self.behaviour = behaviour
        self.n_clusters = n_clusters
        self.n_features_to_select = n_features_to_select

    def _score(self, X, rng):
        if self.behaviour == "sleep":
            time.sleep(30)
        if self.behaviour == "raise":
            raise FloatingPointError("the test ranker's deliberate failure")
        if self.behaviour == "tie":
            return np.ones(X.shape[1])
        if self.behaviour == "allocate":
            np.ones(ALLOCATE_MB * 2**20 // 8)
        return np.arange(X.shape[1], 0, -1, dtype=float)


@pytest.fixture
def test_ranker(monkeypatch):
    # the forked child of a fit under a time limit inherits the patched registry
    monkeypatch.setitem(registry.RANKERS, "test_ranker",
                        registry.Entry(f"{__name__}:_TestRanker"))
    return "test_ranker"


def _save_blobs(path, n_zeros_first_feature=0):
    """Two blobs of 40 samples in 4 features, the first feature set to 0 on the first
    ``n_zeros_first_feature`` samples."""
    X, y = make_blobs(n_samples=40, centers=2, n_features=4, random_state=0)
    X[:n_zeros_first_feature, 0] = 0.0
    save_dataset(Dataset(X=X, y=y, feature_names=[f"f{j}" for j in range(4)],
                         sample_names=[f"s{i}" for i in range(40)], class_names=["a", "b"]),
                 path)
    return path


@pytest.fixture
def blobs(tmp_path):
    return _save_blobs(tmp_path / "blobs.npz")


def _evaluate(data, out, methods, time_limit_s):
    steps.evaluate(str(data), str(out / "sweep.tsv"), dataset="blobs", methods=methods,
                   rankings_dir=str(out / "rankings"), seeds=[0, 1], clusterers=CLUSTERERS,
                   grid_spec=GRID, metrics=["acc", "nmi"], nested=True,
                   time_limit_s=time_limit_s)
    return pd.read_csv(out / "sweep.tsv", sep="\t")


def test_slow_failing_and_tied_fits_are_recorded_and_the_job_succeeds(blobs, tmp_path,
                                                                     test_ranker):
    methods = {behaviour: {"method": test_ranker, "params": {"behaviour": behaviour}}
               for behaviour in ("ok", "sleep", "raise", "tie")}
    start = time.perf_counter()
    sweep = _evaluate(blobs, tmp_path, methods, time_limit_s=2)
    # the 30 s sleep was stopped at the limit, and not tried again at the second seed
    assert time.perf_counter() - start < 20
    status = sweep.groupby("method")["status"].unique().map(list).to_dict()
    assert status == {"ok": ["ok"], "sleep": ["timeout"], "raise": ["failed"],
                      "tie": ["degenerate"]}
    # every method has its rows (both seeds, both fractions), the failures with no metrics
    assert (sweep.groupby("method").size() == 4).all()
    failed = sweep["status"] != "ok"
    assert sweep.loc[failed, ["acc", "nmi"]].isna().all().all()
    assert sweep.loc[~failed, ["acc", "nmi"]].notna().all().all()
    sidecars = {m: json.loads((tmp_path / "rankings" / m / "seed1.json").read_text())
                for m in methods}
    assert {m: info["status"] for m, info in sidecars.items()} == {
        "ok": "ok", "sleep": "timeout", "raise": "failed", "tie": "degenerate"}
    assert "deliberate failure" in sidecars["raise"]["message"]
    assert "time limit" in sidecars["sleep"]["message"]
    # each fit measured its own peak memory above its start, the killed one too
    assert all(info["max_rss_mb"] >= 0 for info in sidecars.values())


def test_a_methods_own_time_limit_wins_over_the_experiments(blobs, tmp_path, test_ranker):
    # the experiment's 60 s would let the 30 s sleep finish; its own 1 s stops it
    methods = {"ok": {"method": test_ranker, "params": {"behaviour": "ok"}},
               "sleep": {"method": test_ranker, "params": {"behaviour": "sleep"},
                         "time_limit_s": 1}}
    sweep = _evaluate(blobs, tmp_path, methods, time_limit_s=60)
    status = sweep.groupby("method")["status"].unique().map(list).to_dict()
    assert status == {"ok": ["ok"], "sleep": ["timeout"]}
    sidecar = json.loads((tmp_path / "rankings" / "sleep" / "seed0.json").read_text())
    assert "time limit of 1 s" in sidecar["message"]


def test_a_fit_records_the_memory_it_allocated_not_the_jobs(blobs, tmp_path, test_ranker):
    import resource

    methods = {behaviour: {"method": test_ranker, "params": {"behaviour": behaviour}}
               for behaviour in ("ok", "allocate")}
    _evaluate(blobs, tmp_path, methods, time_limit_s=60)
    memory = {m: json.loads((tmp_path / "rankings" / m / "seed0.json").read_text())["max_rss_mb"]
              for m in methods}
    assert memory["allocate"] >= ALLOCATE_MB
    # the forked child starts with this process's resident pages (the imports, the data):
    # they are not the fit's
    job_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    assert memory["ok"] < min(job_mb, ALLOCATE_MB) <= memory["allocate"] - memory["ok"] + 1


def test_a_fit_under_the_limit_gives_the_same_sweep_as_in_process(blobs, tmp_path):
    methods = {"laplacian": {"method": "laplacian"}, "random": {"method": "random"}}
    within = _evaluate(blobs, tmp_path / "within", methods, time_limit_s=60)
    plain = _evaluate(blobs, tmp_path / "plain", methods, time_limit_s=None)
    assert "status" not in plain and (within["status"] == "ok").all()
    pd.testing.assert_frame_equal(within.drop(columns="status"), plain)
    for method in methods:
        for seed in (0, 1):
            name = f"{method}/seed{seed}.tsv"
            assert ((tmp_path / "within/rankings" / name).read_bytes()
                    == (tmp_path / "plain/rankings" / name).read_bytes())


class _OneFitPerSizeRanker(_TestRanker):
    """Subsets not nested (as UDFS and SOGFS at their defaults): the top m of a fit made for
    m; the fit for m >= 2 sleeps 30 s with ``behaviour="slow_subset"`` (the ranking's own fit
    does not)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.ranker_tags.nested_selection = False
        return tags

    def subset_needs_fit(self, m):
        return m >= 2

    def subset(self, m):
        if m >= 2 and self.behaviour == "slow_subset":
            time.sleep(30)
        return self.feature_order_[::-1][:m].copy()


def test_a_fit_for_one_m_is_under_the_time_limit_too(blobs, tmp_path, monkeypatch):
    # the fraction 0.25 of 4 features is m = 1, answered by the ranking's own fit; m = 2 needs
    # a fit of its own, which sleeps: that m times out (rows with no metrics, the sidecar says
    # why), m = 1 is clustered, the job succeeds, and the second seed does not try m = 2 again
    monkeypatch.setitem(registry.RANKERS, "per_size",
                        registry.Entry(f"{__name__}:_OneFitPerSizeRanker"))
    methods = {key: {"method": "per_size", "params": {"behaviour": key}}
               for key in ("ok", "slow_subset")}
    start = time.perf_counter()
    sweep = _evaluate(blobs, tmp_path, methods, time_limit_s=1)
    assert time.perf_counter() - start < 20
    status = sweep.groupby(["method", "n_features"])["status"].unique().map(list).to_dict()
    assert status == {("ok", 1): ["ok"], ("ok", 2): ["ok"], ("slow_subset", 1): ["ok"],
                      ("slow_subset", 2): ["timeout"]}
    timed_out = sweep["status"] == "timeout"
    assert sweep.loc[timed_out, ["acc", "nmi"]].isna().all().all()
    assert sweep.loc[~timed_out, ["acc", "nmi"]].notna().all().all()
    assert len(sweep) == 2 * 2 * len(CLUSTERERS) * 2  # methods x seeds x clusterers x m
    for seed, words in ((0, "exceeded the time limit of 1 s"), (1, "not fitted: the fit for "
                                                                   "m = 2 at seed 0")):
        sidecar = json.loads((tmp_path / "rankings/slow_subset" / f"seed{seed}.json")
                             .read_text())
        assert sidecar["status"] == "ok" and list(sidecar["subsets"]) == ["1"]
        assert words in sidecar["subset_failures"]["2"]
    ok = json.loads((tmp_path / "rankings/ok/seed0.json").read_text())
    # the subsets are subset()'s (the ranking reversed), not the top of the ranking
    assert ok["subsets"] == {"1": [3], "2": [3, 2]} and list(ok["subset_seconds"]) == ["2"]


def test_udfs_fits_for_each_m_under_the_limit_give_the_in_process_sweep(tmp_path):
    # UDFS at its defaults keeps c = max(K, m) rows: m = 3 and 6 of 12 features each need a
    # fit of their own, made in a child under the limit; the same subsets and sweep as in the
    # job's process
    from fsclust.rankers import UDFS

    X, y = make_blobs(n_samples=40, centers=2, n_features=12, random_state=0)
    data = tmp_path / "wide.npz"
    save_dataset(Dataset(X=X, y=y, feature_names=[f"f{j}" for j in range(12)],
                         sample_names=[f"s{i}" for i in range(40)], class_names=["a", "b"]),
                 data)
    fitted = UDFS(n_clusters=2).fit(X)
    assert [fitted.subset_needs_fit(m) for m in (2, 3, 6)] == [False, True, True]
    methods = {"udfs": {"method": "udfs"}}
    within = _evaluate(data, tmp_path / "within", methods, time_limit_s=60)
    plain = _evaluate(data, tmp_path / "plain", methods, time_limit_s=None)
    assert (within["status"] == "ok").all() and sorted(set(within["n_features"])) == [3, 6]
    pd.testing.assert_frame_equal(within.drop(columns="status"), plain)
    sidecars = [json.loads((tmp_path / run / "rankings/udfs/seed0.json").read_text())
                for run in ("within", "plain")]
    assert sidecars[0]["subsets"] == sidecars[1]["subsets"]
    assert set(sidecars[0]["subset_seconds"]) == {"3", "6"}


@pytest.fixture
def mostly_equal_top_feature(tmp_path):
    """Blobs whose first feature is 0 on 30 of the 40 samples: on it alone most pairs of
    samples coincide, the median squared distance is 0 and NJW's heat kernel with the median
    bandwidth is undefined (the case of UDFS's top 1 % on COIL20: background pixels)."""
    return _save_blobs(tmp_path / "mostly_equal.npz", n_zeros_first_feature=30)


def _evaluate_njw(data, out, method, time_limit_s):
    """The column-order test ranker (feature 0 first: the top 25 % is feature 0 alone) swept
    with k-means and NJW."""
    clusterers = {**CLUSTERERS, "njw": {"method": "njw"}}
    steps.evaluate(str(data), str(out / "sweep.tsv"), dataset="mostly_equal",
                   methods={"ok": {"method": method}}, rankings_dir=str(out / "rankings"),
                   seeds=[0, 1], clusterers=clusterers, grid_spec=GRID, metrics=["acc", "nmi"],
                   nested=True, time_limit_s=time_limit_s)
    return pd.read_csv(out / "sweep.tsv", sep="\t")


def test_a_clusterer_failure_is_a_failed_row_and_the_job_succeeds(mostly_equal_top_feature,
                                                                  tmp_path, test_ranker):
    sweep = _evaluate_njw(mostly_equal_top_feature, tmp_path, test_ranker, time_limit_s=60)
    failed = sweep["status"] == "failed"
    # NJW on feature 0 alone, at both seeds; every other row (k-means there, NJW on two
    # features) clustered
    assert set(map(tuple, sweep.loc[failed, ["clusterer", "n_features", "seed"]].to_numpy())) \
        == {("njw", 1, 0), ("njw", 1, 1)}
    assert sweep.loc[failed, ["acc", "nmi"]].isna().all().all()
    assert sweep.loc[~failed, ["acc", "nmi"]].notna().all().all()
    assert (sweep.loc[~failed, "status"] == "ok").all()
    assert sweep.loc[failed, "message"].str.contains("median").all()
    assert sweep.loc[~failed, "message"].isna().all()
    # the fit itself was fine: its sidecar says so
    sidecar = json.loads((tmp_path / "rankings/ok/seed0.json").read_text())
    assert sidecar["status"] == "ok"


def test_a_clusterer_failure_still_fails_a_job_without_time_limit(mostly_equal_top_feature,
                                                                  tmp_path, test_ranker):
    with pytest.raises(ValueError, match="median"):
        _evaluate_njw(mostly_equal_top_feature, tmp_path, test_ranker, time_limit_s=None)
    assert not (tmp_path / "sweep.tsv").exists() and not (tmp_path / "rankings").exists()

def test_a_slow_label_free_selector_is_a_timeout_row_and_the_job_succeeds(blobs, tmp_path,
                                                                        test_ranker):
    from fsclust.studies.benchmark import label_free as label_free

    experiment = {"methods": {"sleep": {"method": test_ranker,
                                        "params": {"behaviour": "sleep"}}},
                  "clusterers": CLUSTERERS, "seeds": [0, 1], "metrics": ["acc", "nmi"],
                  "sweep": {"n_features": GRID},
                  "label_free": {"n_resamples": 3, "n_clusters_range": [2, 3],
                                 "time_limit_s": 1}}
    start = time.perf_counter()
    label_free.run(str(blobs), tmp_path / "rows.tsv", tmp_path / "choice.json",
                   tmp_path / "criteria.tsv", dataset="blobs", method="sleep",
                   experiment=label_free.job_settings(experiment, "sleep"))
    # the 30 s sleep of the first subsample's fit was stopped at the 1 s limit
    assert time.perf_counter() - start < 20
    choice = json.loads((tmp_path / "choice.json").read_text())
    assert choice["status"] == "timeout" and "time limit of 1 s" in choice["message"]
    rows = pd.read_csv(tmp_path / "rows.tsv", sep="\t")
    # a row per clusterer and seed, with empty metrics
    assert len(rows) == 2 and (rows["status"] == "timeout").all()
    assert rows[["acc", "nmi"]].isna().all().all()


# --- benchmark-small end to end -----------------------------------------------------------

SCORES = ["dataset", "family", "method", "ranker_seed", "clusterer", "seed", "m_rule",
          "n_features", "k_rule", "n_clusters", "acc", "nmi", "ari", "status"]
COSTS = ["dataset", "family", "method", "seconds", "max_rss_mb", "status", "note"]


def _has_report_module():
    try:
        import fsclust.studies.benchmark.report  # noqa: F401
    except ImportError:
        return False
    return True


def _run_small(work, cores, targets):
    # the label-free jobs benchmark-small declares `here` (one set's): CI time. In this
    # process (its jobs are processes of their own; a subprocess: ~2 s of CPU more, its imports)
    proc = snakemake_in_process(work, "--cores", str(cores), *targets, "--config",
                                f"mirror={MIRROR}", "label_free_jobs=here")
    assert proc.returncode == 0, proc.stderr[-4000:]


@pytest.fixture(scope="module")
def small_runs(tmp_path_factory):
    """benchmark-small run twice, under --cores 1 and 2 (the second on the first's prepared
    data): the first through the three tables the comparison reads, the second through its
    report too when the report module is here (the report is read from the second alone)."""
    tables = [f"results/benchmark-small/tables/{name}.tsv"
              for name in ("scores", "costs", "label_free")]
    runs = {}
    for cores in (1, 2):
        work = copy_workflow(tmp_path_factory.mktemp(f"cores{cores}"))
        if runs:
            shutil.copytree(runs[1] / "data", work / "data")
        report = cores == 2 and _has_report_module()
        _run_small(work, cores, ["benchmark-small"] if report else tables)
        runs[cores] = work
    return runs


@needs_mirror
@pytest.mark.workflow
def test_benchmark_small_tables_have_the_interface_columns(small_runs):
    exp = yaml.safe_load(CONFIG.read_text())["experiments"]["benchmark-small"]
    tables = small_runs[2] / "results/benchmark-small/tables"
    every = pd.read_csv(tables / "scores.tsv", sep="\t", dtype={"k_rule": str})
    assert list(every.columns) == SCORES
    # the fixed-fraction part (the label-free rows: test_benchmark_small_label_free_rows)
    scores = every[(every["m_rule"] != "label-free") & (every["k_rule"] == "true")]
    methods = [*exp["methods"], "all-features"]
    assert set(scores["method"]) == set(methods)
    assert set(scores["dataset"]) == set(exp["datasets"])
    families = {d: f for f, members in exp["families"].items() for d in members}
    assert (scores["family"] == scores["dataset"].map(families)).all()
    assert set(scores["m_rule"]) == {"1%", "2%", "5%", "10%", "20%", "50%", "100%"}
    assert set(scores.loc[scores["method"] == "all-features", "m_rule"]) == {"100%"}
    assert set(scores["k_rule"]) == {"true"} and set(scores["clusterer"]) == {"kmeans", "njw"}
    # a row per (dataset, method, clusterer, seed, m rule): 6 fractions, 1 for all features
    per_method = scores.groupby(["dataset", "method"]).size()
    expected = len(exp["seeds"]) * len(exp["clusterers"])
    assert (per_method.xs("all-features", level="method") == expected).all()
    assert (per_method.drop("all-features", level="method") == 6 * expected).all()
    # the random control draws a ranking per seed, the deterministic methods one for all
    random = scores[scores["method"] == "random"]
    assert (random["ranker_seed"] == random["seed"]).all()
    assert (scores.loc[scores["method"] == "laplacian", "ranker_seed"] == 0).all()
    # m = max(1, round(f d)), no larger than d, and the true K of every dataset
    d = scores[scores["method"] == "all-features"].groupby("dataset")["n_features"].first()
    fractions = {"1%": 0.01, "2%": 0.02, "5%": 0.05, "10%": 0.1, "20%": 0.2, "50%": 0.5}
    ranked = scores[scores["method"] != "all-features"]
    want = [max(1, round(fractions[r] * d[ds])) for r, ds in zip(ranked["m_rule"],
                                                                  ranked["dataset"])]
    assert (ranked["n_features"].to_numpy() == want).all()
    ok = scores["status"] == "ok"
    assert scores.loc[ok, ["acc", "nmi", "ari"]].apply(lambda v: v.between(-1, 1)).all().all()
    assert scores.loc[~ok, ["acc", "nmi", "ari"]].isna().all().all()
    costs = pd.read_csv(tables / "costs.tsv", sep="\t", keep_default_na=False)
    assert list(costs.columns) == COSTS
    costs = costs[~costs["method"].str.endswith("+label-free")]
    assert len(costs) == len(exp["datasets"]) * len(methods)
    # every path of a fit under the time limit: ok, a degenerate ranking, a timeout
    assert {"ok", "degenerate", "timeout"} <= set(costs["status"])
    assert set(costs["status"]) <= {"ok", "timeout", "failed", "degenerate"}
    # the fits' own peak memory above the job's (none for all features): measured for every
    # fit that ended by itself
    memory = pd.to_numeric(costs["max_rss_mb"], errors="coerce")
    assert (memory[costs["status"] != "timeout"] >= 0).all()
    assert (memory[costs["method"] == "all-features"] == 0).all()
    # a method that timed out costs at least its limit: the seeds not fitted after the
    # timeout (0 s, nothing ran) do not count in its mean
    limits = {key: spec.get("time_limit_s", exp["time_limit_s"])
              for key, spec in exp["methods"].items()}
    timeout = costs[costs["status"] == "timeout"]
    assert (timeout["seconds"].astype(float) >= timeout["method"].map(limits)).all()
    assert timeout["note"].str.contains("a lower bound").all()
    # a method that never stopped is noted as near its limit exactly when its slowest fit
    # (from the sidecars) took over half of it
    rankings = small_runs[2] / "results/benchmark-small/rankings"
    for row in costs[(costs["status"] != "timeout")
                     & costs["method"].isin(list(limits))].itertuples():
        slowest = max(json.loads(p.read_text())["seconds"]
                      for p in (rankings / row.dataset / row.method).glob("seed*.json"))
        assert ("over half the" in row.note) == (slowest > limits[row.method] / 2), row
    # KP-Kmeans timed out at the first seed and was not fitted at the second: its cost is the
    # first fit's time alone
    for row in timeout[timeout["method"] == "kpkmeans"].itertuples():
        first, second = (json.loads((rankings / row.dataset / "kpkmeans" / f"seed{s}.json")
                                    .read_text()) for s in exp["seeds"])
        assert second["seconds"] == 0 and second["message"].startswith("not fitted")
        assert float(row.seconds) == pytest.approx(first["seconds"])


@needs_mirror
@pytest.mark.workflow
def test_benchmark_small_tables_are_the_same_bytes_whatever_cores(small_runs):
    for name in ("scores.tsv", "costs.tsv", "label_free.tsv"):
        one, two = (small_runs[c] / "results/benchmark-small/tables" / name for c in (1, 2))
        if name != "scores.tsv":
            # seconds and peak memory are measurements; everything else is the same
            read = (lambda p: pd.read_csv(p, sep="\t", keep_default_na=False).drop(
                columns=["seconds", "max_rss_mb"]))
            pd.testing.assert_frame_equal(read(one), read(two))
        else:
            assert one.read_bytes() == two.read_bytes()


@needs_mirror
@pytest.mark.workflow
def test_benchmark_small_report(small_runs):
    if not _has_report_module():
        pytest.skip("fsclust.studies.benchmark.report (write_benchmark_report, issue 27's other part) "
                    "is not in this checkout: the run stopped at the tables")
    results = small_runs[2] / "results/benchmark-small"
    assert (results / "summary.md").read_text().strip()
    # `diagrams: headline`: the headline setting's critical-difference diagram per family
    drawn = sorted(p.name for p in (results / "figures").glob("cd_*.png"))
    from fsclust.studies.benchmark.report import diagram_name

    assert drawn == sorted(diagram_name(family, "kmeans", "acc", "10%", "true")
                           for family in ("all", "expression", "image"))
    assert (results / "figures/quality_vs_cost.png").stat().st_size > 0


@needs_mirror
@pytest.mark.workflow
def test_benchmark_small_label_free_rows(small_runs):
    """Built with `label_free_jobs=here` (one set's jobs): on that set every method and both
    controls have label-free rows at the true K and at the label-free K; the other sets' jobs
    are marked "not run here" and have no label-free row; the label-free K rows are the
    selector's choices; the costs say which part a selector fit is."""
    exp = yaml.safe_load(CONFIG.read_text())["experiments"]["benchmark-small"]
    tables = small_runs[2] / "results/benchmark-small/tables"
    scores = pd.read_csv(tables / "scores.tsv", sep="\t", dtype={"k_rule": str})
    choices = pd.read_csv(tables / "label_free.tsv", sep="\t")
    methods = [*exp["methods"], "all-features"]
    (here,) = exp["label_free"]["here"]
    assert set(here["methods"]) == set(methods)
    run_here = set(here["datasets"])
    assert len(choices) == len(exp["datasets"]) * len(methods)
    not_run = choices["status"] == "not run here"
    assert set(choices.loc[not_run, "dataset"]) == set(exp["datasets"]) - run_here
    assert set(choices.loc[~not_run, "dataset"]) == run_here
    free_m = scores[scores["m_rule"] == "label-free"]
    for k_rule in ("true", "label-free"):
        rows = free_m[free_m["k_rule"] == k_rule]
        # all features has its one m (100 %), not a label-free m: below
        assert set(rows["method"]) == set(exp["methods"]), k_rule
        assert set(rows["dataset"]) == run_here
    control = scores[(scores["method"] == "all-features") & (scores["k_rule"] == "label-free")]
    assert set(control["dataset"]) == run_here
    assert set(control["m_rule"]) == {"100%"}
    # the label-free K rows cluster the selector's (m-hat, K-hat), K-hat in the range
    ok = choices[choices["status"] == "ok"]
    assert ok["n_clusters"].between(*exp["label_free"]["n_clusters_range"][::2]).all()
    free_k = scores[scores["k_rule"] == "label-free"].merge(
        ok[["dataset", "method", "n_features", "n_clusters"]], on=["dataset", "method"],
        suffixes=("", "_chosen"))
    assert (free_k["n_clusters"] == free_k["n_clusters_chosen"]).all()
    assert (free_k["n_features"] == free_k["n_features_chosen"]).all()
    # at the true K: the fixed-fraction rows at m-hat, the true K
    true_k = free_m[free_m["k_rule"] == "true"].merge(
        ok[["dataset", "method", "n_features_true_k", "true_n_clusters"]],
        on=["dataset", "method"])
    assert (true_k["n_features"] == true_k["n_features_true_k"]).all()
    assert (true_k["n_clusters"] == true_k["true_n_clusters"]).all()
    # KP-Kmeans's own 1 ms limit stopped its selector too; z-scored genes tie the variance
    status = choices[~not_run].set_index(["dataset", "method"])["status"]
    assert (status.xs("kpkmeans", level="method") == "timeout").all()
    assert status["desouto-bredel-2005", "variance"] == "degenerate"
    failed = free_m["status"] != "ok"
    assert free_m.loc[failed, ["acc", "nmi", "ari"]].isna().all().all()
    costs = pd.read_csv(tables / "costs.tsv", sep="\t", keep_default_na=False)
    selector_costs = costs[costs["method"].str.endswith("+label-free")]
    assert len(selector_costs) == (~not_run).sum()
    assert (pd.to_numeric(selector_costs["seconds"]) >= 0).all()


def _slurm_dry_run(work, *config):
    # in this process: the test reads the plan (a subprocess: ~5 s of CPU more, its imports)
    proc = snakemake_in_process(work, "-n", "--profile", PROFILE, "benchmark-small",
                                "--config", f"mirror={MIRROR}", *config)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout + proc.stderr


@needs_slurm_plugin
@needs_mirror
@pytest.mark.slow  # two Snakemake dry runs (the workflow parsed twice)
def test_slurm_dry_run_plans_every_label_free_job_with_its_resources(tmp_path):
    from fsclust.studies.benchmark import label_free as label_free

    exp = yaml.safe_load(CONFIG.read_text())["experiments"]["benchmark-small"]
    work = copy_workflow(tmp_path)
    jobs = _jobs(_slurm_dry_run(work))
    planned = {k: v for k, v in jobs.items() if k[0] == "benchmark_label_free"}
    assert len(planned) == len(exp["datasets"]) * (len(exp["methods"]) + 1)
    for (_, wildcards), job in planned.items():
        method = re.search(r"method=([^,\s]+)", wildcards)[1]
        resources = job["resources"]
        assert int(resources["mem_mb"]) == exp["label_free"]["mem_mb"]
        # the runtime covers the selector's limit (the method's own, if any)
        limit = exp["methods"].get(method, {}).get("time_limit_s",
                                                   exp["label_free"]["time_limit_s"])
        assert int(resources["runtime"]) * 60 >= limit + label_free.MARGIN_MIN * 60
    # `label_free_jobs=none` plans none of them
    jobs = _jobs(_slurm_dry_run(work, "label_free_jobs=none"))
    assert not [k for k in jobs if k[0] == "benchmark_label_free"]
