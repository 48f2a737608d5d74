# Zeng & Cheung 2008 (seed 000): the paper's Figures 2 and 3, the best/mean table, the iteration
# counts and the checked claims. The protocol runs as two experiments (20 PIE draws, 10 runs per
# gene set; config/experiments/zeng2008.yaml); `snakemake --cores 2 zeng2008` builds both and
# everything below under results/zeng2008/.
ZENG2008 = ["zeng2008-pie", "zeng2008-genes"]
# ENV is relative to workflow/rules/; rule paths resolve from this file's directory
ZENG2008_ENV = "../../../envs/fsclust.yaml"
ZENG2008_OUTPUTS = [
    "results/zeng2008/fig2_pie.png",
    "results/zeng2008/fig3_genes.png",
    "results/zeng2008/tables/best_mean.md",
    "results/zeng2008/tables/iterations.md",
    "results/zeng2008/paper_vs_ours.tsv",
]


rule zeng2008_collect:
    input:
        summaries=expand("results/{experiment}/tables/summary.tsv", experiment=ZENG2008),
        # the kernel weighting's rank sidecars: its iterations and "integrated" clustering
        sidecars=lambda wildcards: [
            f"results/{exp}/rankings/{ds}/wrank/seed{seed}.json"
            for exp in ZENG2008
            for ds in exp_datasets(exp)
            for seed in EXPERIMENTS[exp]["seeds"]
        ],
    output:
        summary="results/zeng2008/tables/curves.tsv",
        runs="results/zeng2008/tables/wrank_runs.tsv",
    log:
        "logs/zeng2008/collect.log",
    benchmark:
        "benchmarks/zeng2008/collect.tsv"
    conda:
        ZENG2008_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        metrics=lambda wildcards: EXPERIMENTS["zeng2008-genes"]["metrics"],
    script:
        "../../../scripts/zeng2008_collect.py"


rule zeng2008_figures:
    input:
        "results/zeng2008/tables/curves.tsv",
    output:
        fig2=report(
            "results/zeng2008/fig2_pie.png",
            caption="../../report/zeng2008_fig2.rst",
            category="zeng2008",
            subcategory="figures",
        ),
        fig3=report(
            "results/zeng2008/fig3_genes.png",
            caption="../../report/zeng2008_fig3.rst",
            category="zeng2008",
            subcategory="figures",
        ),
    log:
        "logs/zeng2008/figures.log",
    benchmark:
        "benchmarks/zeng2008/figures.tsv"
    conda:
        ZENG2008_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../../../scripts/zeng2008_figures.py"


rule zeng2008_tables:
    input:
        summary="results/zeng2008/tables/curves.tsv",
        runs="results/zeng2008/tables/wrank_runs.tsv",
    output:
        best=report(
            "results/zeng2008/tables/best_mean.tsv",
            caption="../../report/zeng2008_best.rst",
            category="zeng2008",
            subcategory="tables",
        ),
        best_md="results/zeng2008/tables/best_mean.md",
        iterations=report(
            "results/zeng2008/tables/iterations.tsv",
            caption="../../report/zeng2008_iterations.rst",
            category="zeng2008",
            subcategory="tables",
        ),
        iterations_md="results/zeng2008/tables/iterations.md",
    log:
        "logs/zeng2008/tables.log",
    benchmark:
        "benchmarks/zeng2008/tables.tsv"
    conda:
        ZENG2008_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../../../scripts/zeng2008_tables.py"


# The paper reports figures only: its claims, checked on our numbers, are the paper-vs-ours
# table of the whole paper (zeng2008 is not an experiment, so the generic `compare` rule, whose
# experiment wildcard only takes configured experiment names, does not claim this path).
rule zeng2008_claims:
    input:
        summary="results/zeng2008/tables/curves.tsv",
        runs="results/zeng2008/tables/wrank_runs.tsv",
    output:
        tsv=report(
            "results/zeng2008/paper_vs_ours.tsv",
            caption="../../report/zeng2008_claims.rst",
            category="zeng2008",
            subcategory="tables",
        ),
        md="results/zeng2008/paper_vs_ours.md",
    log:
        "logs/zeng2008/claims.log",
    benchmark:
        "benchmarks/zeng2008/claims.tsv"
    conda:
        ZENG2008_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../../../scripts/zeng2008_claims.py"


# The target of the whole paper: both experiments (generic tables, per-dataset figures) and the
# paper's own outputs above. Not an experiment itself, hence a rule of its own.
rule zeng2008:
    default_target: False
    input:
        lambda wildcards: [
            *experiment_outputs("zeng2008-pie"),
            *experiment_outputs("zeng2008-genes"),
            *ZENG2008_OUTPUTS,
        ],
    localrule: True
