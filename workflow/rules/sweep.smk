mem_mb, runtime = exp_resources("sweep", 2000, 60)


# The ranked sweep: method is any name but the all-features baseline's.
rule sweep:
    input:
        data="data/prepared/{dataset}.npz",
        ranking="results/{experiment}/rankings/{dataset}/{method}/seed{seed}.tsv",
    output:
        "results/{experiment}/sweeps/{dataset}/{method}/{clusterer}/seed{seed}.tsv",
    log:
        "logs/{experiment}/sweep/{dataset}/{method}/{clusterer}/seed{seed}.log",
    benchmark:
        "benchmarks/{experiment}/sweep/{dataset}/{method}/{clusterer}/seed{seed}.tsv"
    wildcard_constraints:
        method="(?!nofs/)[A-Za-z0-9][A-Za-z0-9_.-]*",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=mem_mb,
        runtime=runtime,
    params:
        class_draw=class_draw,
        spec=lambda wildcards: EXPERIMENTS[wildcards.experiment]["clusterers"][
            wildcards.clusterer
        ],
        grid=lambda wildcards: EXPERIMENTS[wildcards.experiment]["sweep"]["n_features"],
        metrics=lambda wildcards: EXPERIMENTS[wildcards.experiment]["metrics"],
    script:
        "../../scripts/sweep.py"


# The all-features baseline ("nofs"): the clusterer on every feature.
rule sweep_all_features:
    input:
        data="data/prepared/{dataset}.npz",
    output:
        "results/{experiment}/sweeps/{dataset}/nofs/{clusterer}/seed{seed}.tsv",
    log:
        "logs/{experiment}/sweep/{dataset}/nofs/{clusterer}/seed{seed}.log",
    benchmark:
        "benchmarks/{experiment}/sweep/{dataset}/nofs/{clusterer}/seed{seed}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=mem_mb,
        runtime=runtime,
    params:
        class_draw=class_draw,
        spec=lambda wildcards: EXPERIMENTS[wildcards.experiment]["clusterers"][
            wildcards.clusterer
        ],
        metrics=lambda wildcards: EXPERIMENTS[wildcards.experiment]["metrics"],
    script:
        "../../scripts/sweep.py"
