mem_mb, runtime = exp_resources("rank", 2000, 60)


rule rank:
    input:
        data="data/prepared/{dataset}.npz",
    output:
        "results/{experiment}/rankings/{dataset}/{method}/seed{seed}.tsv",
    params:
        spec=lambda wildcards: EXPERIMENTS[wildcards.experiment]["methods"][wildcards.method],
    log:
        "logs/{experiment}/rank/{dataset}/{method}/seed{seed}.log",
    benchmark:
        "benchmarks/{experiment}/rank/{dataset}/{method}/seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=mem_mb,
        runtime=runtime,
    conda:
        ENV
    script:
        "../../scripts/rank.py"
