# Issue 41, "Does any method beat highly variable genes?": the single-cell benchmark. A block
# under `singlecell:` of the config (config/experiments/singlecell.yaml) names its real sets
# (catalog rows of single-cell counts, read from the mirror), its synthetic sets (drawn here),
# its methods and protocol. One job per set prepares it as a sparse .h5ad, per (set, method)
# one job ranks the genes and one clusters the top m (fsclust.studies.singlecell.protocol), one
# job gathers the tables and one writes the report (fsclust.studies.singlecell.report). Each
# synthetic set's `here` says which of its jobs run on this machine; the others are planned:
# `snakemake -n --profile workflow/profiles/slurm singlecell --config mirror=DIR
# singlecell_jobs=all`.
wildcard_constraints:
    singlecell=names_pattern(SINGLECELL),


rule singlecell_prepare:
    input:
        raw=lambda wildcards: raw_files(wildcards.dataset),
    output:
        "data/singlecell/{dataset}.h5ad",
    log:
        "logs/singlecell_prepare/{dataset}.log",
    benchmark:
        "logs/timings/singlecell_prepare/{dataset}.tsv"
    wildcard_constraints:
        dataset=names_pattern(
            [ds for block in SINGLECELL.values() for ds in block["datasets"]]
        ),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=sc_set_resources("mem_mb"),
        runtime=sc_set_resources("runtime"),
    params:
        sheet=config["datasets_sheet"],
        row=catalog_row,
    script:
        "../../scripts/singlecell_prepare.py"


rule singlecell_synthetic:
    output:
        "data/singlecell/{dataset}.h5ad",
    log:
        "logs/singlecell_synthetic/{dataset}.log",
    benchmark:
        "logs/timings/singlecell_synthetic/{dataset}.tsv"
    wildcard_constraints:
        dataset=names_pattern(
            [s for block in SINGLECELL.values() for s in block["synthetic"]]
        ),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=sc_set_resources("mem_mb"),
        runtime=sc_set_resources("runtime"),
        disk_mb=sc_synthetic_disk_mb,
    params:
        spec=sc_synthetic_spec,
    script:
        "../../scripts/singlecell_synthetic.py"


rule singlecell_rank:
    input:
        data="data/singlecell/{dataset}.h5ad",
    output:
        rankings="results/{singlecell}/rankings/{dataset}/{method}.npz",
        costs="results/{singlecell}/rankings/{dataset}/{method}.json",
    log:
        "logs/{singlecell}/singlecell_rank/{dataset}/{method}.log",
    benchmark:
        "logs/timings/{singlecell}/singlecell_rank/{dataset}/{method}.tsv"
    wildcard_constraints:
        singlecell=names_pattern(sc_blocks("method")),
        method="[A-Za-z0-9][A-Za-z0-9_-]*",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=sc_set_resources("mem_mb"),
        runtime=sc_set_resources("runtime"),
    params:
        jobs=sc_rank_jobs(None),
    script:
        "../../scripts/singlecell_rank.py"


rule singlecell_cluster:
    input:
        unpack(sc_ranking_input),
        data="data/singlecell/{dataset}.h5ad",
    output:
        scores="results/{singlecell}/runs/{dataset}/{method}.tsv",
    log:
        "logs/{singlecell}/singlecell_cluster/{dataset}/{method}.log",
    benchmark:
        "logs/timings/{singlecell}/singlecell_cluster/{dataset}/{method}.tsv"
    wildcard_constraints:
        singlecell=names_pattern(sc_blocks("method")),
        method="[A-Za-z0-9][A-Za-z0-9_-]*",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=sc_set_resources("mem_mb"),
        runtime=sc_set_resources("runtime"),
    params:
        jobs=sc_cluster_jobs(None),
    script:
        "../../scripts/singlecell_cluster.py"


# A block of grain "set" (CI's tiny sets): one ranking job and one clustering job per set for
# all its methods, writing the same files as the jobs above.
for _name in sc_blocks("set"):
    _methods = list(SINGLECELL[_name]["methods"])

    rule:
        name:
            f"singlecell_rank_set_{_name}"
        input:
            data="data/singlecell/{dataset}.h5ad",
        output:
            rankings=expand(
                f"results/{_name}/rankings/{{{{dataset}}}}/{{method}}.npz",
                method=_methods,
            ),
            costs=expand(
                f"results/{_name}/rankings/{{{{dataset}}}}/{{method}}.json",
                method=_methods,
            ),
        log:
            f"logs/{_name}/singlecell_rank/{{dataset}}.log",
        benchmark:
            f"logs/timings/{_name}/singlecell_rank/{{dataset}}.tsv"
        conda:
            ENV
        threads: 1
        resources:
            mem_mb=sc_set_resources("mem_mb"),
            runtime=sc_set_resources("runtime"),
        params:
            jobs=sc_rank_jobs(_name, _methods),
        script:
            "../../scripts/singlecell_rank.py"

    rule:
        name:
            f"singlecell_cluster_set_{_name}"
        input:
            data="data/singlecell/{dataset}.h5ad",
            rankings=expand(
                f"results/{_name}/rankings/{{{{dataset}}}}/{{method}}.npz",
                method=_methods,
            ),
        output:
            scores=expand(
                f"results/{_name}/runs/{{{{dataset}}}}/{{method}}.tsv",
                method=sc_methods(_name),
            ),
        log:
            f"logs/{_name}/singlecell_cluster/{{dataset}}.log",
        benchmark:
            f"logs/timings/{_name}/singlecell_cluster/{{dataset}}.tsv"
        conda:
            ENV
        threads: 1
        resources:
            mem_mb=sc_set_resources("mem_mb"),
            runtime=sc_set_resources("runtime"),
        params:
            jobs=sc_cluster_jobs(_name, sc_methods(_name)),
        script:
            "../../scripts/singlecell_cluster.py"


rule singlecell_tables:
    input:
        scores=lambda wildcards: sc_cluster_files(wildcards.singlecell),
        costs=lambda wildcards: sc_rank_files(wildcards.singlecell),
        synthetic=lambda wildcards: list(
            sc_synthetic_data(wildcards.singlecell).values()
        ),
    output:
        scores="results/{singlecell}/tables/scores.tsv",
        costs="results/{singlecell}/tables/costs.tsv",
    log:
        "logs/{singlecell}/singlecell_tables.log",
    benchmark:
        "logs/timings/{singlecell}/singlecell_tables.tsv"
    localrule: True
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        families=lambda wildcards: sc_families(wildcards.singlecell),
        synthetic_data=lambda wildcards: sc_synthetic_data(wildcards.singlecell),
    script:
        "../../scripts/singlecell_tables.py"


rule singlecell_report:
    input:
        scores="results/{singlecell}/tables/scores.tsv",
        costs="results/{singlecell}/tables/costs.tsv",
    output:
        summary=report(
            "results/{singlecell}/summary.md",
            caption="../report/singlecell_summary.rst",
            category="{singlecell}",
            subcategory="summary",
        ),
        figures=report(
            directory("results/{singlecell}/figures"),
            patterns=["{name}.png"],
            caption="../report/singlecell_figure.rst",
            category="{singlecell}",
            subcategory="figures",
            labels={"figure": "{name}"},
        ),
    log:
        "logs/{singlecell}/singlecell_report.log",
    benchmark:
        "logs/timings/{singlecell}/singlecell_report.tsv"
    localrule: True
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        notes=lambda wildcards: sc_notes(wildcards.singlecell),
    script:
        "../../scripts/singlecell_report.py"


# `snakemake --cores 2 singlecell`: the block's tables, figures and summary.
for _name in SINGLECELL:

    rule:
        name:
            _name
        default_target: False
        input:
            sc_outputs(_name),
        localrule: True
