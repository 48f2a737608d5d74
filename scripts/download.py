"""Rule download: fetch a dataset file from its pinned URL (or the mirror) and verify it."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps

with steps.logged(snakemake.log[0], snakemake.threads):
    steps.download(snakemake.params.dataset, snakemake.params.sheet, snakemake.output[0],
                   mirror=snakemake.config.get("mirror"))  # not a param: switching
    # between the mirror and the network must not redownload verified files
