"""Rule singlecell_synthetic: synthetic counts with planted types and markers as a sparse
.h5ad (fsclust.studies.singlecell.data.make_synthetic)."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.studies.singlecell.data import make_synthetic

# the model's keys of the set's spec (the others are its jobs' resources and where they run)
MODEL = ("n_cells", "n_genes", "n_types", "markers_per_type", "density", "seed")

with steps.logged(snakemake.log[0], snakemake.threads):
    make_synthetic(snakemake.output[0], **{k: snakemake.params.spec[k] for k in MODEL})
