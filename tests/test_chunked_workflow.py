"""`snakemake chunked` (issue 42): the genes of a chunked store ranked on a Dask cluster, the
Snakemake job its client (workflow/rules/chunked.smk, fsclust.studies.singlecell.chunked).

The dry runs run in this process (about 2 s each, the workflow's parse): the SLURM profile
plans the client job with the config's memory and runtime, and an unknown scheduler fails in
one line (the fast tier); the second attempt doubles the memory, no store plans nothing, a
missing store or a method without a Dask path fails in one line (slow tier, with the real
run): the job on a tiny zarr store with a LocalCluster writes ``fsclust.pp.select_features``'s
ranks of the counts in memory."""

import importlib.util
import json

import numpy as np
import pandas as pd
import pytest
import yaml
from _workflow import copy_workflow, snakemake_in_process
from test_hpc import PROFILE, _jobs, needs_slurm_plugin

anndata = pytest.importorskip("anndata")

N_TOP = 20


def _counts():
    """600 cells x 200 genes, 3 planted types, named genes."""
    from fsclust.counts import synthetic_counts

    X, _, _ = synthetic_counts(600, 200, n_types=3, markers_per_type=10, random_state=0)
    adata = anndata.AnnData(X)
    adata.var_names = [f"gene{i}" for i in range(X.shape[1])]
    return adata


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """A copy of the workflow and a tiny .h5ad store beside it."""
    work = copy_workflow(tmp_path_factory.mktemp("chunked"))
    _counts().write_h5ad(work / "tiny.h5ad")
    return work


def _dry_run(work, chunked, *args):
    """`snakemake -n chunked` with the config's `chunked:` block updated by ``chunked``."""
    (work / "chunked.yaml").write_text(yaml.safe_dump({"chunked": chunked}))
    return snakemake_in_process(work, "-n", *args, "chunked", "--configfile", "chunked.yaml")


SLURM_JOB = {"store": "tiny.h5ad", "scheduler": "slurm", "mem_mb": 12000, "runtime": 300}
CLIENT = ("chunked_genes", "store=tiny, method=laplacian")


def _planned(work, attempt):
    """The SLURM profile's dry run of the client job at ``attempt``: its jobs' resources."""
    proc = _dry_run(work, SLURM_JOB, "--profile", PROFILE, "--attempt", attempt)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return _jobs(proc.stdout + proc.stderr)


@needs_slurm_plugin
@pytest.mark.slow  # Snakemake dry runs (the workflow parsed), as test_hpc's profile tests
def test_slurm_profile_plans_the_client_job_with_its_memory_and_runtime(work):
    proc = _dry_run(work, SLURM_JOB, "--profile", PROFILE)
    assert proc.returncode == 0, proc.stderr[-3000:]
    planned = _jobs(proc.stdout + proc.stderr)
    assert set(planned) == {CLIENT, ("chunked", "")}
    # the client's one core (Snakemake prints a job's threads above one): the work is the
    # workers', SLURM jobs of dask-jobqueue
    stanza = proc.stdout.split("rule chunked_genes:")[1].split("resources:")[0]
    assert "threads:" not in stanza
    resources = planned[CLIENT]["resources"]
    assert (resources["mem_mb"], resources["runtime"]) == ("12000", "300")
    assert "slurm_partition" not in resources and "slurm_account" not in resources


@needs_slurm_plugin
@pytest.mark.slow  # a second dry run of the workflow
def test_the_second_attempt_asks_twice_the_memory_and_the_same_runtime(work):
    # a client killed for its memory is resubmitted with twice as much (the profile's retries)
    resources = _planned(work, 2)[CLIENT]["resources"]
    assert (resources["mem_mb"], resources["runtime"]) == ("24000", "300")


@pytest.mark.slow  # a dry run of the workflow
def test_no_store_plans_nothing(work):
    proc = _dry_run(work, {"store": None})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "chunked_genes" not in proc.stdout + proc.stderr


# each case a dry run of the workflow (~2 s, after ~3 s of the first's imports): slow, as
# test_hpc's dry runs (the fast tier's two minutes)
@pytest.mark.parametrize("chunked, line", [
    pytest.param({"store": "tiny.h5ad", "scheduler": "pbs"},
                 "chunked.scheduler: 'pbs' is not 'local' (a LocalCluster on the job's node), "
                 "'slurm' ", marks=pytest.mark.slow),
    pytest.param({"store": "absent.h5ad"}, "chunked.store: absent.h5ad does not exist ",
                 marks=pytest.mark.slow),
    pytest.param({"store": "tiny.h5ad", "method": "spec"},
                 "chunked.method: spec does not take a Dask array; the methods that do: "
                 "deviance, laplacian, variance", marks=pytest.mark.slow),
], ids=["scheduler", "store", "method"])
def test_a_bad_config_fails_the_dry_run_in_one_line(work, chunked, line):
    proc = _dry_run(work, chunked)
    assert proc.returncode != 0
    found = [text for text in (proc.stdout + proc.stderr).splitlines() if text.startswith(line)]
    assert len(found) == 1, proc.stderr[-3000:]


@pytest.mark.slow  # a Snakemake run and its job's interpreter (dask, scanpy imports)
def test_a_tiny_run_writes_the_ranks_select_features_gives_in_memory(tmp_path):
    import fsclust.pp

    work = copy_workflow(tmp_path)
    adata = _counts()
    adata.write_zarr(work / "tiny.zarr")
    chunked = {"store": "tiny.zarr", "method": "laplacian", "n_top_genes": N_TOP,
               "block_cells": 250, "scheduler": "local",
               # threads of the job: worker processes would each import and compile again
               "local": {"workers": 2, "memory_limit": "1GB", "processes": False}}
    (work / "chunked.yaml").write_text(yaml.safe_dump({"chunked": chunked}))
    # in this process (its job is a process of its own; a subprocess: ~2 s of CPU more)
    proc = snakemake_in_process(work, "--cores", "1", "chunked", "--configfile", "chunked.yaml")
    assert proc.returncode == 0, proc.stderr[-4000:]
    table = pd.read_csv(work / "results/chunked/tiny/laplacian.tsv", sep="\t")
    fsclust.pp.select_features(adata, method="laplacian", n_top_genes=N_TOP)
    expected = adata.var
    assert table["gene"].tolist() == expected.index.tolist()
    np.testing.assert_array_equal(table["rank"], expected["fsclust_rank"])
    np.testing.assert_array_equal(table["selected"], expected["fsclust_selected"])
    np.testing.assert_allclose(table["score"], expected["fsclust_score"], rtol=1e-10)
    record = json.loads((work / "results/chunked/tiny/laplacian.json").read_text())
    assert record["n_blocks"] == 3 and record["scheduler"]["kind"] == "local"
    assert record["info"]["method"] == "laplacian"
    assert (work / "logs/timings/chunked/tiny/laplacian.tsv").exists()


def test_scheduler_slurm_without_dask_jobqueue_is_refused_in_one_line():
    pytest.importorskip("distributed")
    if importlib.util.find_spec("dask_jobqueue") is not None:
        pytest.skip("dask-jobqueue is installed")
    from fsclust.studies.singlecell.chunked import dask_client

    refusal = r"^scheduler 'slurm' needs dask-jobqueue: pip install dask-jobqueue$"
    with pytest.raises(ImportError, match=refusal), dask_client("slurm", slurm={"jobs": 2}):
        pass


@pytest.mark.slow  # a LocalCluster and a ranking in this process
def test_a_running_scheduler_is_used_by_its_address_and_left_running(tmp_path):
    from distributed import Client, LocalCluster

    import fsclust.pp
    from fsclust.studies.singlecell.chunked import rank_chunked_job

    adata = _counts()
    adata.write_h5ad(tmp_path / "tiny.h5ad")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=":0") as cluster:
        record = rank_chunked_job(tmp_path / "tiny.h5ad", tmp_path / "genes.tsv",
                                  tmp_path / "genes.json", method="variance",
                                  n_top_genes=N_TOP, block_cells=250,
                                  scheduler=cluster.scheduler_address)
        assert record["scheduler"] == {"kind": "address", "address": cluster.scheduler_address}
        with Client(cluster) as client:  # the job's client closed, the cluster still serves
            assert len(client.scheduler_info()["workers"]) == 2
    table = pd.read_csv(tmp_path / "genes.tsv", sep="\t")
    fsclust.pp.select_features(adata, method="variance", n_top_genes=N_TOP)
    np.testing.assert_array_equal(table["rank"], adata.var["fsclust_rank"])
