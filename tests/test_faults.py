"""Faults: a run killed with SIGKILL resumes with the command of docs/running.md ("If a run is killed");
a full disk or an output folder that cannot be written is a one-line error naming the path and
the fix, and leaves no temporary file."""

import contextlib
import errno
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from fsclust import _io
from fsclust._io import OutputError, atomic_path, write_table_atomic, write_text_atomic
from _workflow import copy_workflow, snakemake_in_process  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

# Three evaluate jobs of a few seconds each (mostly Python's start-up) on 2 cores: when the
# first has finished, another is running.
FAULTS = {
    "run": ["faults"],
    "experiments": {
        "faults": {
            "datasets": ["iris"],
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


def _workdir(tmp_path, name):
    """A copy of the workflow (not data/ or results/) to run in isolation (as test_workflow)."""
    work = tmp_path / name
    work.mkdir()
    copy_workflow(work)
    (work / "faults.yaml").write_text(yaml.safe_dump(FAULTS))
    return work


def _snakemake_cmd(*args):
    return [sys.executable, "-m", "snakemake", "--configfile", "faults.yaml", *args]


def _recover(work):
    """docs/running.md's recovery command (`snakemake --unlock && snakemake --cores 2
    --rerun-incomplete`, with the killed run's --configfile)."""
    # in this process (Snakemake's command line; a subprocess cost ~5 s of CPU more for its
    # imports), the rerun too: its jobs are processes of their own
    unlock = snakemake_in_process(work, "--configfile", "faults.yaml", "--unlock")
    assert unlock.returncode == 0, unlock.stderr[-4000:]
    return snakemake_in_process(work, "--configfile", "faults.yaml", "--cores", "2",
                                "--rerun-incomplete")


def _jobs(log_text):
    """{jobid: (rule, outputs)} of the jobs Snakemake started, and the ids it reported finished."""
    started = {}
    for block in re.split(r"\n(?=\[[A-Z][a-z]{2} )", log_text):
        rule = re.search(r"^(?:local)?rule (\w+):", block, re.M)
        job = re.search(r"jobid: (\d+)", block)
        out = re.search(r"^\s+output: (.+)$", block, re.M)
        if rule and job:
            outputs = [p.strip() for p in out.group(1).split(",")] if out else []
            started[job.group(1)] = (rule.group(1), outputs)
    return started, set(re.findall(r"Finished jobid: (\d+)", log_text))


def _mtimes(work, outputs):
    """{path: mtime} of the files of ``outputs`` (files or folders) in ``work``."""
    found = {}
    for out in map(Path, outputs):
        for p in [work / out, *(work / out).rglob("*")]:
            if p.is_file():
                found[p.relative_to(work).as_posix()] = p.stat().st_mtime_ns
    return found


def _files(root):
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


def _final_outputs(work):
    """Rankings, sweeps and tables, not the JSON sidecars (run times) or the figures."""
    res = work / "results" / "faults"
    return {name: p.read_bytes() for name, p in _files(res).items()
            if p.suffix in (".tsv", ".md") and not p.name.startswith(".")}


@pytest.mark.workflow
def test_sigkill_mid_run_resumes_with_one_command(tmp_path):
    start = time.monotonic()
    killed = _workdir(tmp_path, "killed")
    log_path = killed / "killed-run.log"
    with open(log_path, "w") as log:
        run = subprocess.Popen(_snakemake_cmd("--cores", "2"), cwd=killed, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
        try:
            # kill when an evaluate job has finished (and Snakemake recorded it) and another
            # job is running
            while True:
                assert run.poll() is None, "the run ended before it could be killed"
                assert time.monotonic() - start < 120, "no evaluate job finished in 120 s"
                started, done = _jobs(log_path.read_text())
                if (any(started[j][0] == "evaluate" for j in done if j in started)
                        and set(started) - done):
                    break
                time.sleep(0.02)
        finally:
            with contextlib.suppress(ProcessLookupError):  # the whole group: Snakemake, jobs
                os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    finished = [p for j in done if j in started for p in started[j][1]]
    assert any("/sweeps/" in p for p in finished) and set(started) - done
    before = _mtimes(killed, finished)
    assert before

    # a plain rerun stops: on the stale lock (the killed Snakemake never removed it) or, when
    # a killed job had written an output that Snakemake had not yet recorded, on that output
    # (in this process: it stops before any job, as a dry run would; ~5 s of CPU less)
    plain = snakemake_in_process(killed, "--configfile", "faults.yaml", "--cores", "2")
    said = plain.stdout + plain.stderr
    assert plain.returncode != 0
    assert ("LockException" in said and "--unlock" in said) or (
        "IncompleteFilesException" in said and "--rerun-incomplete" in said), said[-3000:]

    proc = _recover(killed)
    assert proc.returncode == 0, proc.stderr[-4000:]
    redone, _ = _jobs(proc.stdout + proc.stderr)
    assert any(rule.startswith("evaluate") for rule, _ in redone.values())
    # (a) what had finished is not redone
    assert _mtimes(killed, finished) == before
    # (b) nothing half-written survives: no temporary file or folder, every TSV parses
    leftovers = [p for p in (killed / "results").rglob(".*") if p.name != ".snakemake_timestamp"]
    assert leftovers == []
    for name, p in _files(killed / "results").items():
        if p.suffix == ".tsv":
            assert len(pd.read_csv(p, sep="\t").columns) > 1, name

    # (c) the same files, byte for byte, as a run that was never interrupted
    clean = _workdir(tmp_path, "clean")
    proc = snakemake_in_process(clean, "--configfile", "faults.yaml", "--cores", "2")
    assert proc.returncode == 0, proc.stderr[-4000:]
    ours, theirs = _final_outputs(killed), _final_outputs(clean)
    # rankings of 2 methods x 2 seeds, 3 sweeps, 4 tables and paper_vs_ours (.tsv, .md)
    assert len(theirs) >= 2 * 2 + 3 + 4 + 2
    assert ours.keys() == theirs.keys()
    for name in theirs:
        assert ours[name] == theirs[name], name


# ---- a full disk, an output folder that cannot be written

# Injected into the rule scripts' Python (PYTHONPATH): the disk is full for the sweep tables.
FULL_DISK_HOOK = """
import errno, os, tempfile
_mkstemp = tempfile.mkstemp
def mkstemp(*args, **kwargs):
    if "sweeps" in str(kwargs.get("dir", "")):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return _mkstemp(*args, **kwargs)
tempfile.mkstemp = mkstemp
"""


@pytest.mark.workflow
def test_full_disk_in_a_job_is_one_line_in_snakemakes_output(tmp_path):
    work = _workdir(tmp_path, "full")
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(FULL_DISK_HOOK)
    sweep = "results/faults/sweeps/iris/variance.tsv"
    proc = subprocess.run(_snakemake_cmd("--cores", "1", sweep), cwd=work, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(hook)})
    assert proc.returncode != 0
    lines = (proc.stdout + proc.stderr).splitlines()
    message = (f"Error: no space left on device writing {sweep}: free space on that disk "
               "(df -h results/faults/sweeps/iris) or move the folder to a larger disk and "
               "leave a symlink in its place, then rerun the same command")
    assert message in lines
    assert not any(line.startswith("Traceback") for line in lines)
    # the traceback is in the job's log; no sweep table, whole or partial
    log = (work / "logs/faults/evaluate/iris/variance.log").read_text()
    assert log.rstrip().endswith(message.removeprefix("Error: "))
    sweeps = work / "results/faults/sweeps"
    assert not sweeps.exists() or not any(p.is_file() for p in sweeps.rglob("*"))


# unit tests of fsclust._io


def _no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_full_disk_mid_write_is_one_line_naming_the_path_and_leaves_no_temp_file(
        tmp_path, monkeypatch):
    out = tmp_path / "results" / "sweeps.tsv"
    out.parent.mkdir()
    out.write_text("previous\tversion\n")

    def half_then_full(self, path, **kwargs):  # half a table written, then the disk is full
        Path(path).write_text("dataset\tmethod\niris\tvar")
        _no_space()

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_full)
    with pytest.raises(OutputError) as info:
        write_table_atomic(pd.DataFrame({"a": [1]}), out)
    assert str(info.value) == (
        f"no space left on device writing {out}: free space on that disk (df -h {out.parent}) "
        "or move the folder to a larger disk and leave a symlink in its place, then rerun the "
        "same command")
    assert info.value.errno == errno.ENOSPC and isinstance(info.value, OSError)
    assert "\n" not in str(info.value)
    # the previous version is intact and no temporary file is left
    assert [p.name for p in out.parent.iterdir()] == ["sweeps.tsv"]
    assert out.read_text() == "previous\tversion\n"


def test_full_disk_when_creating_the_temporary_file(tmp_path, monkeypatch):
    monkeypatch.setattr(_io.tempfile, "mkstemp", _no_space)
    with pytest.raises(OutputError, match=r"^no space left on device writing .*a\.txt: free"):
        write_text_atomic(tmp_path / "a.txt", "x")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("code, expected", [
    (errno.EACCES, "cannot write {path}: no write permission in {folder}; make it writable "
                   "(chmod -R u+w {folder}) or run from a copy of the workflow in a folder "
                   "you own"),
    (errno.EROFS, "cannot write {path}: {folder} is on a read-only file system; run from a "
                  "writable copy of the workflow, or make the folder a symlink to a writable "
                  "disk"),
])
def test_unwritable_folder_names_the_folder_and_the_fix(tmp_path, monkeypatch, code, expected):
    def refuse(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(_io.tempfile, "mkstemp", refuse)
    path = tmp_path / "results" / "best.md"
    with pytest.raises(OutputError) as info:
        write_text_atomic(path, "x")
    assert str(info.value) == expected.format(path=path, folder=path.parent)
    assert info.value.errno == code


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="root writes into read-only folders")
def test_read_only_results_folder_really(tmp_path):
    results = tmp_path / "results"
    results.mkdir(mode=0o555)
    try:
        expected = rf"no write permission in {re.escape(str(results))};"
        with pytest.raises(OutputError, match=expected):
            write_text_atomic(results / "tiny" / "best.md", "x")
    finally:
        results.chmod(0o755)
    assert list(results.iterdir()) == []


@pytest.mark.parametrize("inside", ["best.md", "tiny/tables/best.md"])
def test_a_file_where_the_results_folder_should_be(tmp_path, inside):
    # real, not simulated (root cannot be denied a write, but cannot mkdir through a file)
    results = tmp_path / "results"
    results.write_text("not a folder")
    with pytest.raises(OutputError) as info:
        write_text_atomic(results / inside, "x")
    assert str(info.value) == (f"cannot write {results / inside}: {results} is a file where a "
                               "folder should be; move or delete it, then rerun the same command")
    assert results.read_text() == "not a folder"


def test_other_errors_pass_unchanged_and_leave_no_temp_file(tmp_path):
    with pytest.raises(ZeroDivisionError):
        with atomic_path(tmp_path / "a.tsv") as tmp:
            tmp.write_text("half")
            1 / 0
    with pytest.raises(OSError) as info:
        with atomic_path(tmp_path / "b.tsv"):
            raise OSError(errno.EIO, "Input/output error")
    assert type(info.value) is OSError and info.value.errno == errno.EIO
    # inside the block a permission error may be an input's: not blamed on the output
    with pytest.raises(PermissionError):
        with atomic_path(tmp_path / "c.tsv"):
            raise PermissionError(errno.EACCES, "Permission denied", "data/raw/x")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow  # a Snakemake dry run (the workflow parsed)
def test_a_file_where_the_results_folder_should_be_is_a_one_line_error(tmp_path):
    work = tmp_path / "wf"
    work.mkdir()
    copy_workflow(work)
    (work / "results").write_text("not a folder\n")
    # in this process: the test reads the dry run's error (a subprocess: ~5 s of CPU more)
    proc = snakemake_in_process(work, "--cores", "1", "--dry-run")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "results is a file where the workflow's results/ folder should be" in out
    assert "NotADirectoryError" not in out
