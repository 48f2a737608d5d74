"""Rule zhang2012_sweep_figures: the paper's Figures 1 (UCI) and 2 (gene sets)."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.report import zhang2012

p, out = snakemake.params, snakemake.output
with steps.logged(snakemake.log[0]):
    zhang2012.sweep_figure(snakemake.input[0], p.uci, p.metrics, out.fig1, "Fig. 1: UCI data sets")
    zhang2012.sweep_figure(snakemake.input[0], p.genes, p.metrics, out.fig2, "Fig. 2: gene sets")
