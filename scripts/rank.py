"""Rule rank: rank the features of one dataset with one method and one seed."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps

w = snakemake.wildcards
with steps.logged(snakemake.log[0]):
    steps.rank(snakemake.input.data, snakemake.output.ranking, dataset=w.dataset, method=w.method,
               spec=snakemake.params.spec, seed=int(w.seed),
               class_draw=snakemake.params.class_draw,
               sidecar_path=snakemake.output.info, metrics=snakemake.params.metrics)
