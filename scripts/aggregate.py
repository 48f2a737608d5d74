"""Rule aggregate: all sweep files of an experiment into summary tables and figures."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps

p = snakemake.params
with steps.logged(snakemake.log[0], snakemake.threads):
    steps.aggregate(list(snakemake.input), p.metrics, snakemake.output, skipped=p.skipped,
                    figures_dir=snakemake.output.figures, datasets=p.datasets,
                    experiment=snakemake.wildcards.experiment)
