"""The real workflow on a tiny config, with --cores 2 (the slowest test: about a minute)."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

import yaml
from _workflow import copy_workflow, snakemake_in_process  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.workflow

TINY = {
    "run": ["tiny"],
    "experiments": {
        "tiny": {
            "datasets": ["iris", "synthetic-blobs"],
            "methods": {"variance": {"method": "variance"},
                        "laplacian": {"method": "laplacian", "params": {"n_neighbors": 5}}},
            "clusterers": {"kmeans": {"method": "kmeans", "params": {"n_init": 3}},
                           "ncut": {"method": "ncut"}},
            "all_features": True,
            "sweep": {"n_features": [1, 2, 4]},
            "seeds": [0, 1],
            "metrics": ["acc", "nmi", "ari"],
            "comparisons": [],
        }
    },
}


def _workdir(tmp_path, name, prepared_from=None):
    """A copy of the workflow (not data/ or results/) to run in isolation; with
    ``prepared_from``, that run's prepared datasets too: a rerun that compares rankings and
    tables under another --cores or grain need not prepare them again (a prepare job takes
    one thread whatever --cores, and the grain groups evaluate jobs only)."""
    work = tmp_path / name
    work.mkdir()
    copy_workflow(work)
    (work / "tiny.yaml").write_text(yaml.safe_dump(TINY))
    if prepared_from is not None:
        shutil.copytree(prepared_from / "data" / "prepared", work / "data" / "prepared")
    return work


def _snakemake(work, *args):
    """`snakemake --configfile tiny.yaml *args`, in this process: its jobs are processes of
    their own, and no test here reads a job's output or is about Snakemake's process (a
    subprocess cost ~2 s of CPU more a run, its imports)."""
    return snakemake_in_process(work, "--configfile", "tiny.yaml", *args)


def _dry_run(work, *args):
    """`snakemake --configfile tiny.yaml --dry-run *args`, in this process: the tests of a dry
    run read its plan or its error, the same text a subprocess prints, without a new
    interpreter's imports (~5 s of CPU each)."""
    return snakemake_in_process(work, "--configfile", "tiny.yaml", "--dry-run", *args)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    work = _workdir(tmp_path_factory.mktemp("wf"), "run")
    proc = _snakemake(work, "--cores", "2")
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work


def test_workflow_writes_figures_and_tables(tiny_run):
    res = tiny_run / "results" / "tiny"
    for ds in ("iris", "synthetic-blobs"):
        assert (res / "figures" / f"{ds}.png").read_bytes()[:4] == b"\x89PNG"
    sweeps = pd.read_csv(res / "tables" / "sweeps.tsv", sep="\t")
    # iris has 4 features: grid 1, 2, 4; the synthetic set has 12: grid 1, 2, 4, 12
    ranked = sweeps[sweeps.method != "all-features"]
    assert len(ranked) == 2 * 2 * 2 * (3 + 4)
    assert len(sweeps[sweeps.method == "all-features"]) == 2 * 2 * 2
    assert sweeps[["acc", "nmi"]].ge(0).all().all() and sweeps[["acc", "nmi"]].le(1).all().all()
    best = pd.read_csv(res / "tables" / "best.tsv", sep="\t")
    assert set(best.method) == {"variance", "laplacian", "all-features"}
    assert (res / "tables" / "best.md").read_text().startswith("## Best and mean")
    compare = pd.read_csv(res / "paper_vs_ours.tsv", sep="\t")
    assert list(compare.columns)[:4] == ["paper", "table_or_figure", "dataset", "method"]
    # each ranking has a sidecar saying how it was made
    info = json.loads((res / "rankings" / "iris" / "laplacian" / "seed0.json").read_text())
    assert (info["dataset"], info["method"], info["seed"]) == ("iris", "laplacian", 0)
    assert (info["n_samples"], info["n_features"]) == (150, 4)
    # one evaluate job per dataset and method (plus the baseline): every seed's ranking in it
    jobs = sorted(p.relative_to(res / "sweeps").as_posix() for p in (res / "sweeps").rglob("*.tsv"))
    assert jobs == sorted(f"{ds}/{m}.tsv" for ds in ("iris", "synthetic-blobs")
                    for m in ("laplacian", "all-features", "variance"))
    for seed in (0, 1):
        assert (res / "rankings" / "synthetic-blobs" / "variance" / f"seed{seed}.tsv").exists()
    # the variance has no random choice: one ranking, shared by every seed (and said so)
    info1 = json.loads((res / "rankings" / "iris" / "variance" / "seed1.json").read_text())
    assert info1["shared_by_seeds"] is True
    # every rule logged and benchmarked
    assert any((tiny_run / "logs" / "tiny" / "evaluate").rglob("*.log"))
    assert any((tiny_run / "logs" / "timings" / "tiny" / "evaluate").rglob("*.tsv"))
    assert (tiny_run / "logs" / "timings" / "tiny" / "aggregate.tsv").exists()
    # and not in the speed suite's source folder
    assert not (tiny_run / "speed").exists()


def test_rerun_has_nothing_to_do(tiny_run):
    proc = _dry_run(tiny_run, "--cores", "2")
    assert proc.returncode == 0
    assert "Nothing to be done" in proc.stdout + proc.stderr


def _result_files(work):
    res = work / "results" / "tiny"
    return {p.relative_to(work): p.read_bytes()
            for sub in ("rankings", "tables") for p in (res / sub).rglob("*")
            if p.is_file() and p.suffix in (".tsv", ".md")}


def test_outputs_are_byte_identical_with_one_core(tiny_run, tmp_path):
    work = _workdir(tmp_path, "again", prepared_from=tiny_run)
    proc = _snakemake(work, "--cores", "1")
    assert proc.returncode == 0, proc.stderr[-4000:]
    ours, theirs = _result_files(work), _result_files(tiny_run)
    # the rankings of 2 datasets x 2 methods x 2 seeds and the 4 tables (the JSON sidecars
    # hold run times, so they are not compared)
    assert len(ours) == 2 * 2 * 2 + 4
    assert ours.keys() == theirs.keys()
    for path in ours:
        assert ours[path] == theirs[path], path


def test_job_grain_does_not_change_any_number(tiny_run, tmp_path):
    # grain "dataset": one job per dataset for both methods and the baseline
    work = _workdir(tmp_path, "grain", prepared_from=tiny_run)
    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    cfg["experiments"]["tiny"]["grain"] = "dataset"
    (work / "tiny.yaml").write_text(yaml.safe_dump(cfg))
    proc = _snakemake(work, "--cores", "2")
    assert proc.returncode == 0, proc.stderr[-4000:]
    res = work / "results" / "tiny"
    assert sorted(p.name for p in (res / "sweeps").iterdir()) == ["iris.tsv", "synthetic-blobs.tsv"]
    ours, theirs = _result_files(work), _result_files(tiny_run)
    for path, data in theirs.items():
        if path.parts[3] == "rankings" or path.name == "summary.tsv":
            assert ours[path] == data, path
    keys = ["dataset", "method", "clusterer", "seed", "n_features"]
    a = pd.read_csv(res / "tables" / "sweeps.tsv", sep="\t").sort_values(keys, ignore_index=True)
    b = pd.read_csv(tiny_run / "results/tiny/tables/sweeps.tsv", sep="\t").sort_values(
        keys, ignore_index=True)
    pd.testing.assert_frame_equal(a, b)


def _job_stats(output):
    """{rule: count} from the "Job stats" table of a dry run."""
    lines = output.split("Job stats:")[1].splitlines()[3:]
    stats = {}
    for line in lines:
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit():
            break
        stats[parts[0]] = int(parts[1])
    return stats


def test_forcerun_reruns_one_stage_and_what_follows_it(tiny_run):
    proc = _dry_run(tiny_run, "--cores", "2", "--forcerun", "aggregate")
    assert proc.returncode == 0, proc.stderr[-4000:]
    stats = _job_stats(proc.stdout + proc.stderr)
    assert stats["aggregate"] == 1 and stats["compare"] == 1
    assert not any(rule.startswith("evaluate") for rule in stats)
    proc = _dry_run(tiny_run, "--cores", "2", "--forcerun", "evaluate")
    stats = _job_stats(proc.stdout + proc.stderr)
    assert stats["evaluate"] == 2 * 2 and "evaluate_all_features" not in stats


@pytest.mark.parametrize(
    "patch, message",
    [
        ({"methods": {"x": {"method": "lapl"}}}, "unknown method 'lapl'; valid methods: "),
        ({"datasets": ["irs"]}, "unknown dataset 'irs'; valid datasets"),
        ({"seeds": "zero"}, "seeds"),
        # a misspelled parameter fails at `snakemake -n`, with the nearest valid name and the
        # list of the valid ones
        ({"methods": {"x": {"method": "laplacian", "params": {"n_neighbours": 5}}}},
         "method 'x' (laplacian): method 'laplacian' has no parameter 'n_neighbours'; "
         "did you mean 'n_neighbors'? valid parameters: "),
        ({"clusterers": {"k": {"method": "kmeans", "params": {"ninit": 3}}}},
         "clusterer 'k' (kmeans): clusterer 'kmeans' has no parameter 'ninit'; "
         "did you mean 'n_init'? valid parameters: "),
        # a misspelled key: the key and the nearest valid one, not a schema dump
        ({"metods": {}}, "unknown key 'metods'; did you mean 'methods'?"),
    ],
)
def test_bad_config_names_the_key(tmp_path, patch, message):
    work = _workdir(tmp_path, "bad")
    bad = yaml.safe_load(yaml.safe_dump(TINY))
    bad["experiments"]["tiny"].update(patch)
    (work / "tiny.yaml").write_text(yaml.safe_dump(bad))
    proc = _dry_run(work, "--cores", "1")
    assert proc.returncode != 0
    assert message in proc.stdout + proc.stderr
    listed = (proc.stdout + proc.stderr).split(message)[1].splitlines()[0]
    if "unknown method" in message:
        assert {"laplacian", "variance"} <= set(listed.split(", "))
    if "valid parameters" in message:
        assert {"n_neighbors"} <= set(listed.split(", ")) or {"n_init"} <= set(listed.split(", "))


# A wrong value, for a ranker and for a clusterer: out of range, not one of the choices, or of
# the wrong type; each fails the dry run with one line naming the experiment, the method or
# clusterer key and name, the parameter and what it may be.
_WRONG_VALUES = {
    "range": ("laplacian", "spectral-rw", {"n_neighbors": -3}, "n_neighbors", "range [1, inf)"),
    "choice": ("evsfsc", "spectral-rw", {"laplacian": "lrw"}, "laplacian", "must be a str among"),
    "type": ("laplacian", "spectral-rw", {"n_neighbors": "five"}, "n_neighbors", "must be an int"),
}


@pytest.mark.parametrize("kind", ["method", "clusterer"])
@pytest.mark.parametrize("wrong", sorted(_WRONG_VALUES))
def test_wrong_parameter_value_fails_the_dry_run_in_one_line(tmp_path, kind, wrong):
    ranker, clusterer, params, parameter, allowed = _WRONG_VALUES[wrong]
    work = _workdir(tmp_path, "bad-value")
    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    exp = cfg["experiments"]["tiny"]
    if kind == "method":
        exp["methods"]["bad"] = {"method": ranker, "params": params}
        name = ranker
    else:
        exp["clusterers"]["bad"] = {"method": clusterer, "params": params}
        name = clusterer
    line = _dry_run_error_line(work, cfg, f"experiment 'tiny', {kind} 'bad' ({name}): ")
    assert f"'{parameter}' parameter" in line and allowed in line
    assert repr(params[parameter]) in line or str(params[parameter]) in line


def _dry_run_error_line(work, cfg, prefix):
    """The one line starting with ``prefix`` of the failing dry run of ``cfg``."""
    (work / "tiny.yaml").write_text(yaml.safe_dump(cfg))
    proc = _dry_run(work, "--cores", "1")
    assert proc.returncode != 0
    lines = [line for line in (proc.stdout + proc.stderr).splitlines()
             if line.startswith(prefix)]
    assert len(lines) == 1, proc.stderr[-3000:]
    return lines[0]


@pytest.mark.parametrize("kind", ["method", "clusterer"])
def test_wrong_value_in_a_grid_fails_the_dry_run_in_one_line(tmp_path, kind):
    """A grid's points are checked as plain specs: the bad point's variant key is named."""
    ranker, clusterer, params, parameter, allowed = _WRONG_VALUES["range"]
    work = _workdir(tmp_path, "bad-grid")
    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    name = ranker if kind == "method" else clusterer
    cfg["experiments"]["tiny"][f"{kind}s"]["bad"] = {
        "method": name, "name": "bad-k{n_neighbors}", "grid": {parameter: [5, -3]}}
    line = _dry_run_error_line(work, cfg, f"experiment 'tiny', {kind} 'bad-k-3' ({name}): ")
    assert f"'{parameter}' parameter" in line and allowed in line


def test_a_clusterer_grid_is_planned_and_a_key_collision_named_in_one_line(tmp_path):
    work = _workdir(tmp_path, "clusterer-grid")
    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    cfg["experiments"]["tiny"]["clusterers"]["km"] = {
        "method": "kmeans", "seed_key": "kmeans", "name": "km{n_init}",
        "grid": {"n_init": [2, 3]}}
    (work / "tiny.yaml").write_text(yaml.safe_dump(cfg))
    assert _dry_run(work, "--cores", "1").returncode == 0
    # a variant named like another clusterer of the experiment
    cfg["experiments"]["tiny"]["clusterers"]["km"]["name"] = "ncut{n_init}"
    cfg["experiments"]["tiny"]["clusterers"]["ncut2"] = {"method": "ncut"}
    (work / "tiny.yaml").write_text(yaml.safe_dump(cfg))
    proc = _dry_run(work, "--cores", "1")
    assert proc.returncode != 0
    assert ("experiments.tiny.clusterers: clusterer 'km': grid variant 'ncut2' is already a "
            "clusterer of the experiment") in proc.stdout + proc.stderr


def test_every_shipped_experiment_passes_the_parameter_checks(tmp_path):
    # every experiment of the config is checked when the workflow is parsed, whatever the target
    work = _workdir(tmp_path, "shipped")
    proc = _dry_run(work, "--cores", "1", "reproduction")
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_run_may_name_a_paper_target(tmp_path):
    work = _workdir(tmp_path, "paper-run")
    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    cfg["run"] = ["zeng2009-small"]
    (work / "tiny.yaml").write_text(yaml.safe_dump(cfg))
    proc = _dry_run(work, "--cores", "1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "zeng2009_report" in proc.stdout + proc.stderr


def test_a_paper_is_its_own_files_and_named_nowhere_else(tmp_path):
    # the Snakefile names no paper: it finds their config and rules files
    papers = sorted(p.stem for p in (REPO / "config" / "experiments").glob("*.yaml")
                    if "papers" in yaml.safe_load(p.read_text()))  # not the selection block
    assert papers
    snakefile = (REPO / "Snakefile").read_text()
    assert [p for p in papers if p in snakefile] == []
    # a new paper is its config file and its rules file (with its own localrules), nothing else
    work = _workdir(tmp_path, "new-paper")
    new = {"experiments": {"newpaper2099": {**TINY["experiments"]["tiny"], "datasets": ["iris"]}}}
    (work / "config" / "experiments" / "newpaper2099.yaml").write_text(yaml.safe_dump(new))
    (work / "workflow" / "rules" / "paper_newpaper2099.smk").write_text(
        "localrules:\n    newpaper2099_table,\n\n\n"
        "rule newpaper2099_table:\n"
        '    input:\n        "results/newpaper2099/tables/best.md",\n'
        '    output:\n        "results/newpaper2099/paper/table.md",\n'
        '    shell:\n        "cp {input} {output}"\n')
    proc = _dry_run(work, "--cores", "1", "newpaper2099", "results/newpaper2099/paper/table.md")
    assert proc.returncode == 0, proc.stderr[-3000:]
    stats = _job_stats(proc.stdout + proc.stderr)
    assert stats["newpaper2099_table"] == 1 and stats["newpaper2099"] == 1
    assert stats["evaluate"] == 2


def test_url_dataset_is_fetched_from_the_mirror_verified_and_prepared(tmp_path, mirror):
    from fsclust.datasets import load_dataset

    work = _workdir(tmp_path, "mirror")
    target = "data/prepared/desouto-tomlins-2006.npz"
    proc = _snakemake(work, "--cores", "1", target, "--config", f"mirror={mirror}")
    assert proc.returncode == 0, proc.stderr[-4000:]
    raw = work / "data/raw/desouto-tomlins-2006/tomlins-2006_database.txt"
    assert raw.read_bytes() == (mirror / "desouto-tomlins-2006/tomlins-2006_database.txt").read_bytes()
    ds = load_dataset(work / target)
    assert ds.X.shape == (104, 2315) and ds.n_classes == 5


def test_corrupted_mirror_file_fails_naming_the_checksums_and_leaves_nothing(tmp_path, mirror):
    work = _workdir(tmp_path, "corrupt")
    bad = tmp_path / "badmirror" / "desouto-tomlins-2006"
    bad.mkdir(parents=True)
    data = bytearray((mirror / "desouto-tomlins-2006/tomlins-2006_database.txt").read_bytes())
    data[100] ^= 1
    (bad / "tomlins-2006_database.txt").write_bytes(bytes(data))
    proc = _snakemake(work, "--cores", "1", "data/prepared/desouto-tomlins-2006.npz",
                      "--config", f"mirror={tmp_path / 'badmirror'}")
    assert proc.returncode != 0
    log = (work / "logs/download/desouto-tomlins-2006/tomlins-2006_database.txt.log").read_text()
    assert "tomlins-2006_database.txt" in log and "expected" in log and "actual" in log
    raw_dir = work / "data/raw/desouto-tomlins-2006"
    assert not raw_dir.exists() or not any(raw_dir.iterdir())


@pytest.fixture(scope="module")
def offline_draws_run(tmp_path_factory):
    """One run for two tests, each of which ran its own: offline (an empty mirror), iris and
    the download-only skfeature-cll-sub-111 with a comparison on it, and wine with 2 of its 3
    classes drawn per seed (class_draws); k-means, seeds 0 and 1. Returns (work, output)."""
    tmp_path = tmp_path_factory.mktemp("offline-draws")
    work = _workdir(tmp_path, "offline-draws")
    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    exp = cfg["experiments"]["tiny"]
    exp.update(datasets=["iris", "skfeature-cll-sub-111", "wine"], seeds=[0, 1],
               class_draws={"wine": 2}, clusterers={"kmeans": {"method": "kmeans"}})
    exp["comparisons"] = [{
        "paper": "003_36a9d4b3820add06.txt", "table_or_figure": "Table 1",
        "dataset": "CLL-SUB-111", "method": "LS", "metric": "ACC",
        "ours": {"dataset": "skfeature-cll-sub-111", "method": "laplacian",
                 "clusterer": "kmeans", "metric": "acc"}}]
    (work / "tiny.yaml").write_text(yaml.safe_dump(cfg))
    empty_mirror = tmp_path / "empty-mirror"
    empty_mirror.mkdir()
    proc = _snakemake(work, "--cores", "2", "--config", f"mirror={empty_mirror}")
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work, proc.stdout + proc.stderr


def test_download_only_dataset_absent_offline_is_skipped_with_a_warning_and_a_note(
        offline_draws_run):
    work, out = offline_draws_run
    warning = "experiment tiny: skipping dataset skfeature-cll-sub-111"
    assert out.count(warning) == 1
    res = work / "results" / "tiny"
    assert "Skipped dataset skfeature-cll-sub-111" in (res / "tables" / "best.md").read_text()
    compare = pd.read_csv(res / "paper_vs_ours.tsv", sep="\t")
    assert "skipped" in compare["note"].iloc[0]
    assert (res / "figures" / "iris.png").exists()
    assert not (res / "figures" / "skfeature-cll-sub-111.png").exists()


def test_class_draws_give_every_method_the_same_classes_per_seed(offline_draws_run):
    work, _ = offline_draws_run
    drawn = {}
    for log in (work / "logs" / "tiny").rglob("*.log"):
        for line in log.read_text().splitlines():
            if "drew classes" in line:
                seed = int(line.split(" seed ")[1].split(":")[0])
                drawn.setdefault(seed, set()).add(line.split("drew classes ")[1])
    # ranks and sweeps of every method saw one draw per seed, of 2 classes
    assert sorted(drawn) == [0, 1]
    assert all(len(v) == 1 and len(next(iter(v)).split(", ")) == 2 for v in drawn.values())
    sweeps = pd.read_csv(work / "results/tiny/tables/sweeps.tsv", sep="\t")
    assert len(sweeps[sweeps["dataset"] == "wine"]) > 0  # the run shares wine with iris
