mem_mb, runtime = exp_resources("rank", 2000, 60)


rule rank:
    input:
        data="data/prepared/{dataset}.npz",
    output:
        ranking="results/{experiment}/rankings/{dataset}/{method}/seed{seed}.tsv",
        info="results/{experiment}/rankings/{dataset}/{method}/seed{seed}.json",
    log:
        "logs/{experiment}/rank/{dataset}/{method}/seed{seed}.log",
    benchmark:
        "benchmarks/{experiment}/rank/{dataset}/{method}/seed{seed}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=mem_mb,
        runtime=runtime,
    params:
        metrics=lambda wildcards: EXPERIMENTS[wildcards.experiment]["metrics"],
        class_draw=class_draw,
        spec=lambda wildcards: EXPERIMENTS[wildcards.experiment]["methods"][
            wildcards.method
        ],
    script:
        "../../scripts/rank.py"
