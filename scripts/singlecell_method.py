"""Rule singlecell_method: one method's ranking of one set's genes and the clusterings of its
top m genes (fsclust.studies.singlecell.protocol.run_job)."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.studies.singlecell.protocol import run_job

with steps.logged(snakemake.log[0], snakemake.threads):
    run_job(snakemake.input.data, snakemake.output.scores, snakemake.output.costs,
            snakemake.output.rankings, dataset=snakemake.wildcards.dataset,
            method=snakemake.wildcards.method, settings=snakemake.params.settings)
