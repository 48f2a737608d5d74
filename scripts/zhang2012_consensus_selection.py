"""Rule zhang2012_consensus_selection: Figure 3 data for one gene set."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.report import zhang2012

p = snakemake.params
with steps.logged(snakemake.log[0]):
    zhang2012.consensus_selection(snakemake.input.data, snakemake.wildcards.dataset, p.rankings,
                                  p.frcm, p.clusterer, p.seeds, snakemake.output[0])
