"""Rule maldonado2015_table4_run: KP-Kmeans on MLL with lambda = 2^lam, gamma = 2^gamma."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps

w = snakemake.wildcards
spec = snakemake.params.spec
# Table 4 is about gamma, the size of the fixed step v <- v - gamma grad: always that step
params = {**spec.get("params", {}), "lam": 2.0 ** int(w.lam), "gamma": 2.0 ** int(w.gamma),
          "step": "fixed"}
with steps.logged(snakemake.log[0]):
    # method name "kpkmeans": the same seed, hence the same first clustering, as the main run
    steps.rank(snakemake.input.data, snakemake.output.ranking, dataset=snakemake.params.dataset,
               method="kpkmeans", spec={**spec, "params": params}, seed=int(w.seed),
               sidecar_path=snakemake.output.info, metrics=snakemake.params.metrics)
