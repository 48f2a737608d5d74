"""results/{experiment}/provenance.json: the record and the workflow job that writes it."""

import copy
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fsclust.steps.provenance import (PACKAGES, config_sha256, git_state, provenance_record,
                                write_provenance)
from _workflow import copy_workflow, snakemake_in_process  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

BLOCK = {
    "datasets": ["iris"],
    "methods": {"laplacian": {"method": "laplacian", "params": {"n_neighbors": 5}}},
    "clusterers": {"kmeans": {"method": "kmeans"}},
    "sweep": {"n_features": [1, 2]},
    "seeds": [0, 1, 2],
    "metrics": ["acc"],
}


@pytest.fixture
def prepared(tmp_path):
    path = tmp_path / "iris.npz"
    np.savez(path, X=np.arange(12.0).reshape(4, 3))
    return path


def _record(block, prepared, tmp_path, sweeps=()):
    datasets = {"iris": {"source": "sklearn", "checksum_type": "", "checksums": [],
                         "files": [], "prepared": prepared}}
    return provenance_record("tiny", block, datasets, evaluate_outputs=sweeps,
                             repo_dir=tmp_path)


def test_record_has_every_key_and_is_json(prepared, tmp_path):
    record = _record(BLOCK, prepared, tmp_path)
    assert {"experiment", "python", "packages", "config", "config_sha256", "git", "datasets",
            "seeds", "times"} <= set(record)
    assert set(record["packages"]) == set(PACKAGES)
    assert record["packages"]["numpy"] == np.__version__
    assert record["python"] == "{}.{}.{}".format(*sys.version_info[:3])
    assert record["seeds"] == [0, 1, 2]
    assert record["config"] == BLOCK
    ds = record["datasets"]["iris"]
    assert ds["prepared_sha256"] == hashlib.sha256(prepared.read_bytes()).hexdigest()
    json.loads(json.dumps(record))


def test_config_hash_is_stable_and_follows_the_config(prepared, tmp_path):
    a = _record(BLOCK, prepared, tmp_path)["config_sha256"]
    # the same config with its keys in another order: the same hash
    reordered = dict(reversed(list(copy.deepcopy(BLOCK).items())))
    assert _record(reordered, prepared, tmp_path)["config_sha256"] == a
    changed = copy.deepcopy(BLOCK)
    changed["seeds"] = [0, 1]
    assert _record(changed, prepared, tmp_path)["config_sha256"] != a
    changed = copy.deepcopy(BLOCK)
    changed["methods"]["laplacian"]["params"]["n_neighbors"] = 6
    assert config_sha256(changed) != a


def test_times_are_those_of_the_evaluate_outputs(prepared, tmp_path):
    first, last = tmp_path / "a.tsv", tmp_path / "b.tsv"
    for path, when in ((first, 1_700_000_000), (last, 1_700_000_100)):
        path.write_text("x\n")
        os.utime(path, (when, when))
    times = _record(BLOCK, prepared, tmp_path, sweeps=[last, first])["times"]
    assert times["start"] == "2023-11-14T22:13:20+00:00"
    assert times["end"] == "2023-11-14T22:15:00+00:00"
    assert times["recorded"] > times["end"]


def test_git_commit_outside_and_inside_a_checkout(tmp_path):
    assert git_state(tmp_path) == {"commit": None, "dirty": None}
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    run = dict(cwd=tmp_path, check=True, capture_output=True)
    subprocess.run(["git", "init", "-q"], **run)
    (tmp_path / "f.txt").write_text("a\n")
    subprocess.run(["git", "add", "f.txt"], **run)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
                   **run)
    head = subprocess.run(["git", "rev-parse", "HEAD"], text=True, **run).stdout.strip()
    assert git_state(tmp_path) == {"commit": head, "dirty": False}
    (tmp_path / "f.txt").write_text("b\n")
    assert git_state(tmp_path) == {"commit": head, "dirty": True}
    # a directory inside the checkout is not the checkout
    (tmp_path / "sub").mkdir()
    assert git_state(tmp_path / "sub")["commit"] is None


def test_written_atomically_as_json(prepared, tmp_path):
    out = tmp_path / "results" / "tiny" / "provenance.json"
    datasets = {"iris": {"prepared": prepared}}
    record = write_provenance(out, "tiny", BLOCK, datasets, repo_dir=tmp_path)
    assert json.loads(out.read_text()) == json.loads(json.dumps(record))
    assert [p.name for p in out.parent.iterdir()] == ["provenance.json"]


@pytest.mark.slow  # a Snakemake dry run (the workflow parsed)
def test_dry_run_of_the_quick_target_lists_the_provenance_job(tmp_path):
    work = tmp_path / "wf"
    work.mkdir()
    copy_workflow(work)
    # in this process: the test reads the plan (a subprocess: ~5 s of CPU more, its imports)
    proc = snakemake_in_process(work, "-n", "quick")
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = proc.stdout + proc.stderr
    assert "rule provenance:" in out or "localrule provenance:" in out
    assert "results/quick/provenance.json" in out


def test_catalog_entries_carry_the_sheets_checksums():
    from fsclust.datasets import load_catalog
    from fsclust.steps.provenance import catalog_entries

    catalog = load_catalog(REPO / "config" / "datasets.tsv")
    url = next(e.id for e in catalog.values() if e.source == "url")
    entries = catalog_entries(catalog, [url, "iris"])
    assert entries[url]["checksums"] == catalog[url].checksums
    assert len(entries[url]["files"]) == len(entries[url]["checksums"]) >= 1
    assert entries[url]["prepared"] == f"data/prepared/{url}.npz"
    assert entries["iris"]["checksums"] == [] and entries["iris"]["source"] == "sklearn"
