"""Rule maldonado2015_tables: Tables 1, 3, 4 and paper_vs_ours.tsv of Maldonado et al. 2015."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.report.maldonado2015 import build_tables

p = snakemake.params
with steps.logged(snakemake.log[0]):
    build_tables(p.results, paper=p.paper, seeds=p.seeds, datasets=p.datasets,
                 runs4=p.table4_runs, paper_results_path=snakemake.input.paper,
                 sheet=snakemake.input.sheet, kp_params=p.params, out=dict(snakemake.output))
