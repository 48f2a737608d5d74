"""Rule benchmark_label_free: one (dataset, method)'s label-free choice of m and K and its
clusterings (fsclust.studies.benchmark.label_free.run)."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.studies.benchmark import label_free as benchmark_label_free

with steps.logged(snakemake.log[0], snakemake.threads):
    benchmark_label_free.run(snakemake.input.data, snakemake.output.rows,
                              snakemake.output.choice, snakemake.output.criteria,
                              dataset=snakemake.wildcards.dataset,
                              method=snakemake.wildcards.method,
                              experiment=snakemake.params.settings)
