"""Rules singlecell_rank and singlecell_rank_set_*: methods' rankings of one set's genes, each
fit timed and its peak memory measured in its own process
(fsclust.studies.singlecell.protocol.rank_job)."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.studies.singlecell.protocol import rank_job

with steps.logged(snakemake.log[0], snakemake.threads):
    for job in snakemake.params.jobs:
        rank_job(snakemake.input.data, job["rankings"], job["costs"],
                 dataset=snakemake.wildcards.dataset, method=job["method"],
                 settings=job["settings"])
