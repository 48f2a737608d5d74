"""Rule singlecell_synthetic: synthetic counts with planted types and markers as a sparse
.h5ad (fsclust.studies.singlecell.data.make_synthetic)."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.studies.singlecell.data import make_synthetic

with steps.logged(snakemake.log[0], snakemake.threads):
    make_synthetic(snakemake.output[0], **snakemake.params.spec)
