"""Rules evaluate, evaluate_all_features and evaluate_dataset: rank one dataset with its
methods for every seed, then cluster the top-m features with every clusterer for every m."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps

p, out = snakemake.params, snakemake.output
# read here, not a rule param: a new param would rerun every finished job of every experiment
time_limit_s = snakemake.config["experiments"][snakemake.wildcards.experiment].get("time_limit_s")
with steps.logged(snakemake.log[0], snakemake.threads):
    steps.evaluate(snakemake.input.data, out.sweep, dataset=snakemake.wildcards.dataset,
                   methods=p.methods, rankings_dir=out.get("rankings"), seeds=p.seeds,
                   clusterers=p.clusterers, grid_spec=p.grid, metrics=p.metrics,
                   baseline=p.baseline, nested=p.nested, class_draw=p.class_draw,
                   references=p.references, time_limit_s=time_limit_s)
