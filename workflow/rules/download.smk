# Downloads touch the network (or the mirror) and nothing else: local rules, checksum verified.


localrules:
    download,


rule download:
    output:
        "data/raw/{path}",
    params:
        dataset=lambda wildcards: entry_for_file(wildcards.path),
        sheet=config["datasets_sheet"],
        mirror=config.get("mirror"),
    log:
        "logs/download/{path}.log",
    benchmark:
        "benchmarks/download/{path}.tsv"
    threads: 1
    resources:
        mem_mb=500,
        runtime=30,
    conda:
        ENV
    script:
        "../../scripts/download.py"
