"""Rule prepare: load a dataset and apply its preprocessing recipe into data/prepared/*.npz."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps

with steps.logged(snakemake.log[0], snakemake.threads):
    steps.prepare(snakemake.wildcards.dataset, snakemake.params.sheet, snakemake.output[0],
                  raw_path=list(snakemake.input.raw) if "raw" in snakemake.input.keys() else None)
