"""Rule singlecell_cluster: the clusterings of the top m genes of one method's rankings of one
set, or of all its genes (fsclust.studies.singlecell.protocol.cluster_job)."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.studies.singlecell.protocol import cluster_job

with steps.logged(snakemake.log[0], snakemake.threads):
    cluster_job(snakemake.input.data, snakemake.input.get("ranking"),
                snakemake.output.scores, dataset=snakemake.wildcards.dataset,
                method=snakemake.wildcards.method, settings=snakemake.params.settings)
