"""Rule compare: paper_vs_ours.tsv, the papers' numbers beside ours."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps

with steps.logged(snakemake.log[0], snakemake.threads):
    steps.compare(snakemake.input.summary, snakemake.input.paper, snakemake.params.comparisons,
                  snakemake.output.tsv, out_md=snakemake.output.md, skipped=snakemake.params.skipped,
                  extra=list(snakemake.input.extra))
