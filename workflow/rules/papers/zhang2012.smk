# Zhang, Wong, Shen & Xie 2012 (seed 004, FRCM): Table 2 (the mean + sd informative subsets and
# PCA at FRCM's dimensionality) beside the paper's numbers, Figures 1-2 (from the generic
# sweep summary), Figure 3 (FRCM vs correlation with CSPA / HBGF / average-link consensus
# partitions) and Figure 4 (mean Borda values of the top FRCM genes). Protocol: spec
# methods-seed 5.6; config/experiments/zhang2012.yaml (zhang2012: 40 trials; zhang2012-small:
# 3). Note: FRMV's ensemble is drawn from its own seed (the generic rank rule seeds each
# method separately); the paper shares FRCM's 100 clusterings with FRMV. Figure 3 does use
# FRCM's own ensemble for the three consensus clusterers.
ZHANG2012 = ["zhang2012", "zhang2012-small"]
ZHANG2012_ENV = "../../../envs/fsclust.yaml"
ZHANG2012_UCI = [
    "uci-dermatology",
    "uci-segmentation-test",
    "uci-pendigits-test",
    "wine",
]
ZHANG2012_GENES = [
    "desouto-armstrong-2002-v2",
    "desouto-nutt-2003-v1",
    "desouto-tomlins-2006",
    "desouto-bredel-2005",
]


# (lambdas, not functions: the linter wants functions in common.smk, which is shared)
# the experiment's datasets that can be had here, optionally restricted to a subset
zhang2012_datasets = lambda experiment, subset=None: [
    ds for ds in exp_datasets(experiment) if subset is None or ds in subset
]
# (dataset, method key, seed) -> ranking TSV of the generic rank rule
zhang2012_rankings = lambda experiment, datasets, methods=None: {
    (ds, key, seed): f"results/{experiment}/rankings/{ds}/{key}/seed{seed}.tsv"
    for ds in datasets
    for key in (methods or EXPERIMENTS[experiment]["methods"])
    for seed in EXPERIMENTS[experiment]["seeds"]
}
# the evaluation clusterer {key, method, params} (the experiment's only one)
zhang2012_clusterer = lambda experiment: {
    "key": next(iter(EXPERIMENTS[experiment]["clusterers"])),
    **next(iter(EXPERIMENTS[experiment]["clusterers"].values())),
}


rule zhang2012_table2:
    input:
        data=lambda wildcards: [
            f"data/prepared/{ds}.npz"
            for ds in zhang2012_datasets(wildcards.experiment)
        ],
        rankings=lambda wildcards: list(
            zhang2012_rankings(
                wildcards.experiment, zhang2012_datasets(wildcards.experiment)
            ).values()
        ),
    output:
        tsv=report(
            "results/{experiment}/paper/table2.tsv",
            caption="../../report/zhang2012_table2.rst",
            category="{experiment}",
            subcategory="tables",
        ),
        md="results/{experiment}/paper/table2.md",
    log:
        "logs/{experiment}/paper/table2.log",
    benchmark:
        "benchmarks/{experiment}/paper/table2.tsv"
    wildcard_constraints:
        experiment="zhang2012(-small)?",
    conda:
        ZHANG2012_ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        datasets=lambda wildcards: zhang2012_datasets(wildcards.experiment),
        rankings=lambda wildcards: zhang2012_rankings(
            wildcards.experiment, zhang2012_datasets(wildcards.experiment)
        ),
        methods=lambda wildcards: EXPERIMENTS[wildcards.experiment]["methods"],
        clusterer=lambda wildcards: zhang2012_clusterer(wildcards.experiment),
        seeds=lambda wildcards: EXPERIMENTS[wildcards.experiment]["seeds"],
        metrics=lambda wildcards: EXPERIMENTS[wildcards.experiment]["metrics"],
    script:
        "../../../scripts/zhang2012_table2.py"


# Table 2's numbers sit at a data-dependent number of features, which the generic
# paper_vs_ours (selecting on the sweep grid) cannot express: this table has its columns.
rule zhang2012_table2_vs_paper:
    input:
        table2="results/{experiment}/paper/table2.tsv",
        paper=config["paper_results"],
    output:
        tsv=report(
            "results/{experiment}/table2_vs_paper.tsv",
            caption="../../report/zhang2012_table2_vs_paper.rst",
            category="{experiment}",
            subcategory="tables",
        ),
        md="results/{experiment}/table2_vs_paper.md",
    log:
        "logs/{experiment}/paper/table2_vs_paper.log",
    benchmark:
        "benchmarks/{experiment}/paper/table2_vs_paper.tsv"
    wildcard_constraints:
        experiment="zhang2012(-small)?",
    conda:
        ZHANG2012_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        metrics=lambda wildcards: EXPERIMENTS[wildcards.experiment]["metrics"],
    script:
        "../../../scripts/zhang2012_table2_vs_paper.py"


rule zhang2012_sweep_figures:
    input:
        "results/{experiment}/tables/summary.tsv",
    output:
        fig1=report(
            "results/{experiment}/paper/fig1_uci.png",
            caption="../../report/zhang2012_fig12.rst",
            category="{experiment}",
            subcategory="figures",
        ),
        fig2=report(
            "results/{experiment}/paper/fig2_genes.png",
            caption="../../report/zhang2012_fig12.rst",
            category="{experiment}",
            subcategory="figures",
        ),
    log:
        "logs/{experiment}/paper/sweep_figures.log",
    benchmark:
        "benchmarks/{experiment}/paper/sweep_figures.tsv"
    wildcard_constraints:
        experiment="zhang2012(-small)?",
    conda:
        ZHANG2012_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        uci=lambda wildcards: zhang2012_datasets(wildcards.experiment, ZHANG2012_UCI),
        genes=lambda wildcards: zhang2012_datasets(
            wildcards.experiment, ZHANG2012_GENES
        ),
        metrics=lambda wildcards: EXPERIMENTS[wildcards.experiment]["metrics"],
    script:
        "../../../scripts/zhang2012_sweep_figures.py"


# Figure 3 (one job per gene set): FRCM is refitted with the rank job's seed to recover its
# ensemble and consensus matrix (the ranking is checked against the rank job's file).
rule zhang2012_consensus_selection:
    input:
        data="data/prepared/{dataset}.npz",
        rankings=lambda wildcards: list(
            zhang2012_rankings(
                wildcards.experiment, [wildcards.dataset], ["frcm"]
            ).values()
        ),
    output:
        "results/{experiment}/paper/fig3/{dataset}.tsv",
    log:
        "logs/{experiment}/paper/fig3/{dataset}.log",
    benchmark:
        "benchmarks/{experiment}/paper/fig3/{dataset}.tsv"
    wildcard_constraints:
        experiment="zhang2012(-small)?",
    conda:
        ZHANG2012_ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        rankings=lambda wildcards: {
            seed: path
            for (_, _, seed), path in zhang2012_rankings(
                wildcards.experiment, [wildcards.dataset], ["frcm"]
            ).items()
        },
        frcm=lambda wildcards: {
            "key": "frcm",
            **EXPERIMENTS[wildcards.experiment]["methods"]["frcm"],
        },
        clusterer=lambda wildcards: zhang2012_clusterer(wildcards.experiment),
        seeds=lambda wildcards: EXPERIMENTS[wildcards.experiment]["seeds"],
    script:
        "../../../scripts/zhang2012_consensus_selection.py"


rule zhang2012_borda:
    input:
        data="data/prepared/{dataset}.npz",
        rankings=lambda wildcards: list(
            zhang2012_rankings(
                wildcards.experiment, [wildcards.dataset], ["frcm"]
            ).values()
        ),
    output:
        "results/{experiment}/paper/fig4/{dataset}.tsv",
    log:
        "logs/{experiment}/paper/fig4/{dataset}.log",
    benchmark:
        "benchmarks/{experiment}/paper/fig4/{dataset}.tsv"
    wildcard_constraints:
        experiment="zhang2012(-small)?",
    conda:
        ZHANG2012_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        rankings=lambda wildcards: {
            seed: path
            for (_, _, seed), path in zhang2012_rankings(
                wildcards.experiment, [wildcards.dataset], ["frcm"]
            ).items()
        },
        seeds=lambda wildcards: EXPERIMENTS[wildcards.experiment]["seeds"],
    script:
        "../../../scripts/zhang2012_borda.py"


rule zhang2012_fig34:
    input:
        fig3=lambda wildcards: expand(
            "results/{experiment}/paper/fig3/{dataset}.tsv",
            experiment=wildcards.experiment,
            dataset=zhang2012_datasets(wildcards.experiment, ZHANG2012_GENES),
        ),
        fig4=lambda wildcards: expand(
            "results/{experiment}/paper/fig4/{dataset}.tsv",
            experiment=wildcards.experiment,
            dataset=zhang2012_datasets(wildcards.experiment, ZHANG2012_GENES),
        ),
    output:
        fig3=report(
            "results/{experiment}/paper/fig3_consensus.png",
            caption="../../report/zhang2012_fig3.rst",
            category="{experiment}",
            subcategory="figures",
        ),
        fig3_tsv="results/{experiment}/paper/fig3_consensus.tsv",
        fig4=report(
            "results/{experiment}/paper/fig4_borda.png",
            caption="../../report/zhang2012_fig4.rst",
            category="{experiment}",
            subcategory="figures",
        ),
        fig4_tsv="results/{experiment}/paper/fig4_borda.tsv",
    log:
        "logs/{experiment}/paper/fig34.log",
    benchmark:
        "benchmarks/{experiment}/paper/fig34.tsv"
    wildcard_constraints:
        experiment="zhang2012(-small)?",
    conda:
        ZHANG2012_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../../../scripts/zhang2012_fig34.py"


for _exp in ZHANG2012:
    EXTRA_OUTPUTS[_exp] = [
        f"results/{_exp}/paper/table2.md",
        f"results/{_exp}/table2_vs_paper.tsv",
        f"results/{_exp}/paper/fig1_uci.png",
        f"results/{_exp}/paper/fig2_genes.png",
        f"results/{_exp}/paper/fig3_consensus.png",
        f"results/{_exp}/paper/fig4_borda.png",
    ]
    # Table 2's rows sit at a data-dependent number of features: built by the rule above and
    # appended to the experiment's paper_vs_ours.tsv by the generic compare rule
    EXTRA_COMPARISONS[_exp] = [f"results/{_exp}/table2_vs_paper.tsv"]
