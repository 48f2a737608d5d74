"""Rule figure: metric vs number of selected features for one dataset."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps

with steps.logged(snakemake.log[0]):
    steps.figure(snakemake.input[0], snakemake.wildcards.dataset, snakemake.params.metrics,
                 snakemake.output[0], title=snakemake.params.title)
