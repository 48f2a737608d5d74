"""Rules sweep and sweep_all_features: cluster on the top-m features for every m, evaluate."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps

w = snakemake.wildcards
with steps.logged(snakemake.log[0]):
    steps.sweep(snakemake.input.data, snakemake.output[0], dataset=w.dataset,
                method=w.get("method", "nofs"), clusterer=w.clusterer, spec=snakemake.params.spec,
                grid_spec=snakemake.params.get("grid"), seed=int(w.seed),
                metrics=snakemake.params.metrics, ranking_path=snakemake.input.get("ranking"),
                class_draw=snakemake.params.class_draw)
