"""Rule selection_report: the regret and summary tables, the one-page summary, the figures."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.studies.selection import report as selection_report

p, out = snakemake.params, snakemake.output
with steps.logged(snakemake.log[0], snakemake.threads):
    selection_report.write_report(
        snakemake.input.criteria, snakemake.input.scores, groups=p.groups,
        name=snakemake.wildcards.selection, regret_path=out.regret,
        summary_path=out.summary, markdown_path=out.markdown, figures_dir=out.figures,
        planned=p.planned, skipped=p.skipped, metrics=p.metrics)
