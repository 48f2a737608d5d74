"""Rule singlecell_rank: one method's rankings of one set's genes, each fit timed and its peak
memory measured in its own process (fsclust.studies.singlecell.protocol.rank_job)."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.studies.singlecell.protocol import rank_job

with steps.logged(snakemake.log[0], snakemake.threads):
    rank_job(snakemake.input.data, snakemake.output.rankings, snakemake.output.costs,
             dataset=snakemake.wildcards.dataset, method=snakemake.wildcards.method,
             settings=snakemake.params.settings)
