"""Rule maldonado2015_at_n: kernel k-means on a filter's top-n features, n from KP-Kmeans."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.report.maldonado2015 import selected_count

w = snakemake.wildcards
with steps.logged(snakemake.log[0]):
    n = max(selected_count(snakemake.input.kpkmeans), 1)  # filters need at least one feature
    steps.sweep(snakemake.input.data, snakemake.output[0], dataset=w.dataset, method=w.method,
                clusterer="kernel_kmeans", spec=snakemake.params.spec, grid_spec=[n],
                seed=int(w.seed), metrics=snakemake.params.metrics,
                ranking_path=snakemake.input.ranking)
