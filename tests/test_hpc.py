"""The SLURM profile (workflow/profiles/slurm): what each job of a paper target would request,
which rules run on the submitting host, and the pins shared by pyproject.toml and envs/."""

import importlib.util
import json
import re
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from _workflow import copy_workflow, snakemake_in_process  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
PROFILE = "workflow/profiles/slurm"
TARGET = "zeng2009-small"

needs_slurm_plugin = pytest.mark.skipif(
    importlib.util.find_spec("snakemake_executor_plugin_slurm") is None,
    reason="snakemake-executor-plugin-slurm is not installed (pip install -e '.[hpc]'); "
    "the profile's `executor: slurm` needs it even for a dry run",
)

# Downloads, tables and figures: seconds of work on many small files, run on the submitting host.
LOCAL_RULES = [
    "download",
    "aggregate",
    "compare",
    "provenance",
    "zeng2008_report",
    "maldonado2015_tables",
    "zhang2012_table2_figures12",
    "zhang2012_figures34",
    "zeng2009_report",
    "jiang2011_figures",
]
# The scientific work, submitted as SLURM jobs.
SUBMITTED_RULES = [
    "prepare",
    "evaluate",
    "evaluate_all_features",
    "evaluate_dataset",
    "chunked_genes",  # the Dask client job (issue 42); its workers are the cluster's
]


def _workdir(tmp_path):
    """A copy of the workflow (not data/ or results/), so that the dry run lists every job."""
    work = tmp_path / "wf"
    work.mkdir()
    copy_workflow(work)
    return work


def _dry_run(work, mirror, *args):
    # in this process: the tests read the plan (a subprocess: ~5 s of CPU more, its imports)
    proc = snakemake_in_process(work, "-n", *args, "--config", f"mirror={mirror}")
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout + proc.stderr


_RULE = re.compile(r"^(?P<indent> *)(?:local)?rule (?P<rule>[^\s:]+):$")
_FIELD = re.compile(r"^ +(?P<key>wildcards|resources): (?P<value>.*)$")


def _jobs(output):
    """(rule, wildcards) -> {"grouped": bool, "resources": {name: value}} of a dry run's jobs."""
    jobs, current = {}, None
    for line in output.splitlines():
        if m := _RULE.match(line):
            current = {"rule": m["rule"], "grouped": bool(m["indent"]), "wildcards": ""}
        elif current is not None and (m := _FIELD.match(line)):
            if m["key"] == "wildcards":
                current["wildcards"] = m["value"]
            else:
                resources = dict(item.split("=", 1) for item in m["value"].split(", "))
                key = (current["rule"], current["wildcards"])
                assert key not in jobs, f"two jobs {key} in the dry run"
                jobs[key] = {"grouped": current["grouped"], "resources": resources}
                current = None
    return jobs


@pytest.fixture(scope="module")
def slurm_dry_runs(tmp_path_factory):
    """The paper target dry-run with the profile at attempts 1 and 2, and without the profile."""
    from _mirror import HAS_MIRROR, MIRROR, SKIP_REASON

    if not HAS_MIRROR:
        pytest.skip(SKIP_REASON)
    work = _workdir(tmp_path_factory.mktemp("hpc"))
    profile = ["--profile", PROFILE, TARGET]
    return {
        "attempt1": _jobs(_dry_run(work, MIRROR, *profile)),
        "attempt2": _jobs(_dry_run(work, MIRROR, "--attempt", "2", *profile)),
        "rules": _jobs(_dry_run(work, MIRROR, TARGET)),
    }


@needs_slurm_plugin
@pytest.mark.slow  # Snakemake dry runs (the workflow parsed)
def test_dry_run_requests_each_rules_memory_and_runtime_and_no_partition(slurm_dry_runs):
    jobs = slurm_dry_runs["attempt1"]
    rules = {rule for rule, _ in jobs}
    assert {"prepare", "evaluate_dataset", "evaluate_all_features", "zeng2009_report"} <= rules
    for (rule, wildcards), job in jobs.items():
        res = job["resources"]
        assert int(res["mem_mb"]) > 0 and int(res["runtime"]) > 0, (rule, res)
        # the cluster's partition and account are the user's to set, never the workflow's
        assert "slurm_partition" not in res and "slurm_account" not in res, (rule, res)
    # at the first attempt the profile asks what the rule files declare (its set-resources
    # repeat the rules' fixed mem_mb: this catches a value changed on one side only)
    for key, job in slurm_dry_runs["rules"].items():
        own, profiled = job["resources"], jobs[key]["resources"]
        if "mem_mb" not in own:  # a target rule: nothing to run
            continue
        assert (profiled["mem_mb"], profiled["runtime"]) == (own["mem_mb"], own["runtime"]), key


@needs_slurm_plugin
@pytest.mark.slow  # Snakemake dry runs (the workflow parsed)
def test_memory_request_doubles_at_the_second_attempt_and_runtime_stays(slurm_dry_runs):
    first, second = slurm_dry_runs["attempt1"], slurm_dry_runs["attempt2"]
    assert first.keys() == second.keys()
    fixed = {
        rule
        for (rule, wildcards), job in first.items()
        if int(second[rule, wildcards]["resources"]["mem_mb"])
        != 2 * int(job["resources"]["mem_mb"])
    }
    assert not fixed, (
        f"rules {sorted(fixed)} ask the same memory at every attempt: give each a line "
        f"`<rule>: {{mem_mb: <its mem_mb>*attempt}}` under set-resources in {PROFILE}/config.yaml"
    )
    for key, job in first.items():
        assert second[key]["resources"]["runtime"] == job["resources"]["runtime"], key



@needs_slurm_plugin
@pytest.mark.slow  # Snakemake dry runs (the workflow parsed)
def test_no_job_asks_for_snakemakes_50_gb_disk_default(slurm_dry_runs):
    # Snakemake's default disk request is 50 GB for a job without input files (a dataset built
    # into the package); "<TBD>" is a request computed once the inputs exist. Local rules (the
    # downloads) ask SLURM nothing.
    for key, job in slurm_dry_runs["attempt1"].items():
        if key[0] not in SUBMITTED_RULES:
            continue
        disk = job["resources"].get("disk_mb", "<TBD>")
        assert disk == "<TBD>" or int(disk) < 50_000, (key, job["resources"])

def test_profile_retries_and_leaves_partition_and_account_to_the_user():
    profile = yaml.safe_load((REPO / PROFILE / "config.yaml").read_text())
    assert profile["executor"] == "slurm"
    assert profile["retries"] >= 1
    assert not {"slurm_partition", "slurm_account"} & set(profile["default-resources"])
    for rule, resources in profile.get("set-resources", {}).items():
        assert not {"slurm_partition", "slurm_account"} & set(resources), rule
        assert "attempt" in str(resources["mem_mb"]), rule


_PROBE = '''
include: "Snakefile"


from unittest import mock
import json


def _locality(wildcards):
    # Snakemake's own choice (Workflow.is_local) as a cluster executor makes it: a dry run
    # executes "locally", so ask with local execution switched off.
    with mock.patch.object(
        type(workflow), "local_exec", new_callable=mock.PropertyMock, return_value=False
    ):
        found = {{r.name: [workflow.is_local(r), r.group] for r in workflow.rules}}
    Path({out!r}).write_text(json.dumps(found))
    return []


rule hpc_probe:
    input:
        _locality,
'''


@pytest.fixture(scope="module")
def locality(tmp_path_factory):
    """rule -> (runs on the submitting host under the profile, its group)."""
    from _mirror import HAS_MIRROR, MIRROR, SKIP_REASON

    if not HAS_MIRROR:
        pytest.skip(SKIP_REASON)
    work = _workdir(tmp_path_factory.mktemp("hpc"))
    out = work / "locality.json"
    (work / "probe.smk").write_text(_PROBE.format(out=str(out)))
    _dry_run(work, MIRROR, "-s", "probe.smk", "--profile", PROFILE, "hpc_probe")
    return json.loads(out.read_text())


@needs_slurm_plugin
@pytest.mark.parametrize("rule", LOCAL_RULES)
@pytest.mark.slow  # Snakemake dry runs (the workflow parsed)
def test_download_and_tables_and_figures_are_not_submitted(locality, rule):
    is_local, group = locality[rule]
    if not is_local and group is not None:
        pytest.xfail(
            f"{rule} is a localrule but also in group {group!r}: Snakemake submits every "
            "grouped rule (Workflow.is_local); drop its `group:` to run it on the submitting host"
        )
    assert is_local


@needs_slurm_plugin
@pytest.mark.parametrize("rule", SUBMITTED_RULES)
@pytest.mark.slow  # Snakemake dry runs (the workflow parsed)
def test_compute_rules_are_submitted(locality, rule):
    assert locality[rule][0] is False


# conda names of the envs/ file that differ from the PyPI names of pyproject.toml
_CONDA_TO_PYPI = {"matplotlib-base": "matplotlib"}
_CONDA_SPEC = re.compile(r"^(?P<name>[A-Za-z0-9_.-]+)\s*(?P<spec>.*)$")


def _env_pins():
    """name -> specifier of envs/fsclust.yaml (conda and pip entries)."""
    env = yaml.safe_load((REPO / "envs" / "fsclust.yaml").read_text())
    pins = {}
    for dep in env["dependencies"]:
        for entry in dep["pip"] if isinstance(dep, dict) else [dep]:
            m = _CONDA_SPEC.match(entry)
            name = canonicalize_name(_CONDA_TO_PYPI.get(m["name"].lower(), m["name"]))
            # conda's "=3.11" is PyPI's "==3.11.*"
            spec = re.sub(r"(?<![<>=!~])=(?!=)([^,]+)", r"==\1.*", m["spec"].replace(" ", ""))
            pins[name] = SpecifierSet(spec)
    return pins


def test_envs_pin_the_same_versions_as_pyproject():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    env = _env_pins()
    drift = []
    for dep in project["dependencies"]:
        req = Requirement(dep)
        name = canonicalize_name(req.name)
        if name not in env:
            drift.append(f"{req.name}: in pyproject.toml, not in envs/fsclust.yaml")
        elif env[name] != req.specifier:
            drift.append(f"{req.name}: pyproject.toml {req.specifier}, envs {env[name]}")
    declared = {canonicalize_name(Requirement(d).name) for d in project["dependencies"]}
    for name in sorted(set(env) - declared - {"python", "pip"}):
        drift.append(f"{name}: in envs/fsclust.yaml, not in pyproject.toml")
    assert not drift, "\n".join(drift)
    # the env's Python is one that pyproject.toml accepts
    python = next(iter(env["python"]))
    assert SpecifierSet(project["requires-python"]).contains(python.version.rstrip(".*"))
