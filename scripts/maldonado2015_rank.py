"""Rule maldonado2015_toy_rank: rank an unlabelled toy set with the paper's toy settings."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps

w = snakemake.wildcards
with steps.logged(snakemake.log[0]):
    steps.rank(snakemake.input.data, snakemake.output.ranking, dataset=w.dataset, method=w.method,
               spec=snakemake.params.spec, seed=int(w.seed), sidecar_path=snakemake.output.info,
               metrics=snakemake.params.metrics)
