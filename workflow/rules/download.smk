# Downloads touch the network (or the mirror) and nothing else: local rules, checksum verified.


localrules:
    download,


rule download:
    output:
        "data/raw/{path}",
    log:
        "logs/download/{path}.log",
    benchmark:
        "logs/timings/download/{path}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=30,
    params:
        dataset=lambda wildcards: entry_for_file(wildcards.path),
        sheet=config["datasets_sheet"],
    script:
        "../../scripts/download.py"
