"""Rule singlecell_prepare: a catalog set of single-cell counts, from its verified raw files,
as a sparse .h5ad (fsclust.studies.singlecell.data.prepare_counts)."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.datasets import get_entry, load_catalog
from fsclust.studies.singlecell.data import prepare_counts

with steps.logged(snakemake.log[0], snakemake.threads):
    entry = get_entry(load_catalog(snakemake.params.sheet), snakemake.wildcards.dataset)
    prepare_counts(entry, list(snakemake.input.raw), snakemake.output[0])
