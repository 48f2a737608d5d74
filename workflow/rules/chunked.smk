# Issue 42, past one machine's memory: `snakemake chunked` ranks the genes of the chunked store
# of the config's `chunked:` block (an .h5ad file or a zarr store, read lazily in blocks of
# cells) on a Dask cluster. The job is the cluster's client: it holds what is not chunked (the
# embedding, the kNN search, the graph: its mem_mb, ~7 GB at 10^7 cells); the workers are a
# LocalCluster on its node, a dask-jobqueue SLURMCluster it starts, or a running scheduler
# (docs/singlecell.md, "On a SLURM cluster"). No store configured: nothing is planned.


rule chunked_genes:
    input:
        store=lambda wildcards: CHUNKED["store"],
    output:
        genes="results/chunked/{store}/{method}.tsv",
        info="results/chunked/{store}/{method}.json",
    log:
        "logs/chunked/{store}/{method}.log",
    benchmark:
        "logs/timings/chunked/{store}/{method}.tsv"
    wildcard_constraints:
        store=chunked_constraint("store"),
        method=chunked_constraint("method"),
    conda:
        "../../envs/chunked.yaml"
    threads: chunked_threads
    resources:
        mem_mb=chunked_mem_mb,
        runtime=lambda wildcards: CHUNKED["runtime"],
    params:
        settings=chunked_settings,
    script:
        "../../scripts/chunked_genes.py"


# `snakemake chunked`: the configured store's table and record.
rule chunked:
    default_target: False
    input:
        chunked_outputs(),
    localrule: True
