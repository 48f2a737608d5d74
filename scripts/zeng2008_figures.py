"""Rule zeng2008_figures: the paper's Fig. 2 (PIE C27) and Fig. 3 (gene expression sets)."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.report import zeng2008

with steps.logged(snakemake.log[0]):
    zeng2008.figures(snakemake.input[0], snakemake.output.fig2, snakemake.output.fig3)
