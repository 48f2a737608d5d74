rule prepare:
    input:
        unpack(prepare_inputs),
    output:
        "data/prepared/{dataset}.npz",
    log:
        "logs/prepare/{dataset}.log",
    benchmark:
        "benchmarks/prepare/{dataset}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    script:
        "../../scripts/prepare.py"
