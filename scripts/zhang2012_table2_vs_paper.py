"""Rule zhang2012_table2_vs_paper: every number of the paper's Table 2 beside ours."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.report import zhang2012

with steps.logged(snakemake.log[0]):
    zhang2012.table2_vs_paper(snakemake.input.table2, snakemake.input.paper,
                              snakemake.output.tsv, snakemake.output.md,
                              metrics=snakemake.params.metrics)
