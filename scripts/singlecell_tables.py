"""Rule singlecell_tables: every job of a single-cell block into scores.tsv and costs.tsv
(fsclust.studies.singlecell.tables)."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.studies.singlecell.tables import gather_tables

with steps.logged(snakemake.log[0], snakemake.threads):
    gather_tables(snakemake.input.scores, snakemake.input.costs, snakemake.output.scores,
                  snakemake.output.costs, families=snakemake.params.families,
                  synthetic_data=snakemake.params.synthetic_data)
