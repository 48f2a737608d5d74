"""Rule aggregate: all sweep files of an experiment into summary tables."""
from fsclust import steps

with steps.logged(snakemake.log[0]):
    steps.aggregate(list(snakemake.input), snakemake.params.metrics, snakemake.output)
