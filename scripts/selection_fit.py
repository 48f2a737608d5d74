"""Rule selection_fit: the label-free selector on one dataset and method, and its scores."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.studies.selection import step as selection_step

b, w, out = snakemake.params.block, snakemake.wildcards, snakemake.output
# the block's settings; one left out takes select_and_score's default
settings = {k: b[k] for k in selection_step.SETTINGS if k in b}
with steps.logged(snakemake.log[0], snakemake.threads):
    selection_step.run(snakemake.input.data, out.criteria, out.scores, dataset=w.dataset,
                       method=w.method, **settings)
