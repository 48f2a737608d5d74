"""Rule zeng2008_tables: best and mean over the sweep per method; iteration counts."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.report import zeng2008

out = snakemake.output
with steps.logged(snakemake.log[0]):
    zeng2008.tables(snakemake.input.summary, snakemake.input.runs, out.best, out.best_md,
                    out.iterations, out.iterations_md)
