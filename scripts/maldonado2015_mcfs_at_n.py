"""Rule maldonado2015_mcfs_at_n: MCFS with lasso cardinality = the n KP-Kmeans selected."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.report.maldonado2015 import selected_count

w = snakemake.wildcards
with steps.logged(snakemake.log[0]):
    n = max(selected_count(snakemake.input.kpkmeans), 1)  # n = 0 leaves nothing to fit
    spec = {"method": "mcfs", "params": {**snakemake.params.params, "n_nonzero_coefs": n}}
    steps.rank(snakemake.input.data, snakemake.output.ranking, dataset=w.dataset, method="mcfs",
               spec=spec, seed=int(w.seed), sidecar_path=snakemake.output.info,
               metrics=snakemake.params.metrics)
