"""Rule benchmark_tables: every evaluate job of a cross-dataset benchmark into the report's long
tables (fsclust.studies.benchmark.tables)."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.studies.benchmark.tables import write_benchmark_tables

with steps.logged(snakemake.log[0], snakemake.threads):
    p = snakemake.params
    write_benchmark_tables(snakemake.input.sweeps, snakemake.input.rankings,
                           snakemake.input.label_free, snakemake.output, families=p.families,
                           n_classes=p.n_classes, fractions=p.fractions,
                           time_limits=p.time_limits, label_free_planned=p.label_free_planned)
