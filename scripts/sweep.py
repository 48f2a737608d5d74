"""Rules sweep and sweep_all_features: cluster on the top-m features for every m, evaluate."""
from fsclust import steps

w = snakemake.wildcards
with steps.logged(snakemake.log[0]):
    steps.sweep(snakemake.input.data, snakemake.output[0], dataset=w.dataset,
                method=w.get("method", "nofs"), clusterer=w.clusterer, spec=snakemake.params.spec,
                grid_spec=snakemake.params.get("grid"), seed=int(w.seed),
                metrics=snakemake.params.metrics, ranking_path=snakemake.input.get("ranking"))
