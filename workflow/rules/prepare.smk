rule prepare:
    input:
        unpack(prepare_inputs),
    output:
        "data/prepared/{dataset}.npz",
    log:
        "logs/prepare/{dataset}.log",
    benchmark:
        "logs/timings/prepare/{dataset}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        sheet=config["datasets_sheet"],
        row=catalog_row,
    script:
        "../../scripts/prepare.py"
