"""Rule zeng2008_claims: each claim of the paper as a row checked on our numbers."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.report import zeng2008

with steps.logged(snakemake.log[0]):
    zeng2008.claims(snakemake.input.summary, snakemake.input.runs, snakemake.output.tsv,
                    snakemake.output.md)
