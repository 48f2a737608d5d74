"""Rule reproduction: every paper's paper_vs_ours rows into results/reproduction.md and .tsv."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.report.reproduction import write_reproduction

p = snakemake.params
with steps.logged(snakemake.log[0], snakemake.threads):
    write_reproduction(dict(p.tables), dict(p.causes), snakemake.output.md, snakemake.output.tsv,
                       target_papers=list(p.target_papers), target_share=p.target_share,
                       max_unexplained=p.max_unexplained)
