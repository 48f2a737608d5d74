"""Rule aggregate: all sweep files of an experiment into summary tables."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps

with steps.logged(snakemake.log[0]):
    steps.aggregate(list(snakemake.input), snakemake.params.metrics, snakemake.output,
                    skipped=snakemake.params.skipped)
