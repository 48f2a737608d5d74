"""Rule zhang2012_borda: Figure 4 data (mean Borda values of the top FRCM genes)."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.report import zhang2012

p = snakemake.params
with steps.logged(snakemake.log[0]):
    zhang2012.borda_curve(snakemake.input.data, snakemake.wildcards.dataset, p.rankings, p.seeds,
                          snakemake.output[0])
