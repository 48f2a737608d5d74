"""Rule zhang2012_fig34: the paper's Figures 3 and 4 from the per-dataset tables."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.report import zhang2012

out = snakemake.output
with steps.logged(snakemake.log[0]):
    zhang2012.consensus_figure(snakemake.input.fig3, out.fig3, out.fig3_tsv)
    zhang2012.borda_figure(snakemake.input.fig4, out.fig4, out.fig4_tsv)
