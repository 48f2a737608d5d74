"""Rule provenance: results/{experiment}/provenance.json (versions, config hash, git commit,
dataset checksums, seeds, times)."""
import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
from fsclust import steps
from fsclust.steps.provenance import write_provenance

p = snakemake.params
with steps.logged(snakemake.log[0], snakemake.threads):
    write_provenance(snakemake.output[0], snakemake.wildcards.experiment, p.config_block,
                     p.datasets, evaluate_outputs=list(snakemake.input.sweeps),
                     repo_dir=p.repo_dir)
