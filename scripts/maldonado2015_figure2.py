"""Rule maldonado2015_figure2: accuracy against the number of features on Lung (Fig. 2)."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.report.maldonado2015 import figure2

with steps.logged(snakemake.log[0]):
    figure2(snakemake.input.summary, snakemake.input.sidecars, snakemake.params.dataset,
            snakemake.output[0])
