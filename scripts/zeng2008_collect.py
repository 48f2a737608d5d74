"""Rule zeng2008_collect: merge the sweep summaries with the kernel weighting's own clustering."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.report import zeng2008

with steps.logged(snakemake.log[0]):
    zeng2008.collect(snakemake.input.summaries, snakemake.input.sidecars,
                     snakemake.params.metrics, snakemake.output.summary, snakemake.output.runs)
