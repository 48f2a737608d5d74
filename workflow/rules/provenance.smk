# results/{experiment}/provenance.json: what made an experiment's results (package versions,
# the config block and its hash, the git commit, dataset checksums, seeds, times). The rerun
# tests do not compare it: it holds times and the commit.
from fsclust.steps.provenance import catalog_entries


rule provenance:
    input:
        sweeps=lambda wildcards: sweep_files(wildcards.experiment),
        prepared=lambda wildcards: expand(
            "data/prepared/{dataset}.npz", dataset=exp_datasets(wildcards.experiment)
        ),
    output:
        report(
            "results/{experiment}/provenance.json",
            caption="../report/provenance.rst",
            category="{experiment}",
            subcategory="provenance",
        ),
    log:
        "logs/{experiment}/provenance.log",
    benchmark:
        "logs/timings/{experiment}/provenance.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        config_block=lambda wildcards: EXPERIMENTS[wildcards.experiment],
        # the catalog's checksums of the raw files and the prepared files' paths
        datasets=lambda wildcards: catalog_entries(
            CATALOG, exp_datasets(wildcards.experiment)
        ),
        repo_dir=workflow.basedir,
    script:
        "../../scripts/provenance.py"
