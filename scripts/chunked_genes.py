"""Rule chunked_genes: the genes of a chunked store ranked on a Dask cluster, this job its
client (fsclust.studies.singlecell.chunked.rank_chunked_job)."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.studies.singlecell.chunked import rank_chunked_job

with steps.logged(snakemake.log[0], snakemake.threads):
    rank_chunked_job(
        snakemake.input.store,
        snakemake.output.genes,
        snakemake.output.info,
        **snakemake.params.settings,
    )
