"""Rules singlecell_cluster and singlecell_cluster_set_*: the clusterings of the top m genes of
methods' rankings of one set, or of all its genes
(fsclust.studies.singlecell.protocol.cluster_job)."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.studies.singlecell.protocol import cluster_job

with steps.logged(snakemake.log[0], snakemake.threads):
    for job in snakemake.params.jobs:
        cluster_job(snakemake.input.data, job["ranking"], job["scores"],
                    dataset=snakemake.wildcards.dataset, method=job["method"],
                    settings=job["settings"])
