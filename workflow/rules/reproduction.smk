# `snakemake --cores 2 reproduction`: every number and claim of the papers listed under
# `reproduction:` in config/config.yaml, reproduced, explained by a named and tested cause
# (config/reproduction/{paper}.yaml) or not, in results/reproduction.md and .tsv
# (fsclust.report.reproduction). It builds each paper's target first; its helpers are in papers.smk.


rule reproduction:
    input:
        tables=[
            t for p in REPRODUCTION.get("papers", []) for t in reproduction_tables(p)
        ],
        causes=[
            c
            for c in map(reproduction_causes, REPRODUCTION.get("papers", []))
            if c is not None
        ],
    output:
        md="results/reproduction.md",
        tsv="results/reproduction.tsv",
    log:
        "logs/reproduction.log",
    localrule: True
    conda:
        "../../envs/fsclust.yaml"
    params:
        tables={p: reproduction_tables(p) for p in REPRODUCTION.get("papers", [])},
        causes={p: reproduction_causes(p) for p in REPRODUCTION.get("papers", [])},
        target_papers=REPRODUCTION.get("target_papers", []),
        target_share=REPRODUCTION.get("target_share", 0.8),
        max_unexplained=REPRODUCTION.get("max_unexplained", 0.15),
    script:
        "../../scripts/reproduction.py"
