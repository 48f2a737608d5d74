# Jiang & Ren 2011 (EVSFSC), paper blocks `jiang2011` and `jiang2011-small` of
# config/experiments/jiang2011.yaml, module fsclust.papers.jiang2011. The experiment (role
# `main`) ranks and clusters everything with the generic evaluate step; this rule only draws
# Figures 2-4 (one per Laplacian, a panel per dataset) from its summary and checks the paper's
# claims, appended to the experiment's paper_vs_ours.tsv.
JIANG2011 = papers_of("jiang2011")

# (lambdas, not functions: the linter wants functions in common.smk, which is shared)
jiang2011_experiment = lambda paper: paper_experiment(paper, "main")
jiang2011_settings = lambda wildcards: {
    "figures": PAPERS[wildcards.paper]["figures"],
    "baselines": PAPERS[wildcards.paper]["baselines"],
    "datasets": [
        ds
        for ds in PAPERS[wildcards.paper]["datasets"]
        if ds in exp_datasets(jiang2011_experiment(wildcards.paper))
    ],
    "skipped": skipped_datasets(jiang2011_experiment(wildcards.paper)),
    "n_seeds": len(EXPERIMENTS[jiang2011_experiment(wildcards.paper)]["seeds"]),
}


rule jiang2011_figures:
    input:
        summary=lambda wildcards: (
            f"results/{jiang2011_experiment(wildcards.paper)}/tables/summary.tsv"
        ),
    output:
        fig2=report(
            "results/{paper}/paper/fig2_L.png",
            caption="../report/jiang2011_fig.rst",
            category="{paper}",
            subcategory="figures",
        ),
        fig3=report(
            "results/{paper}/paper/fig3_Lrw.png",
            caption="../report/jiang2011_fig.rst",
            category="{paper}",
            subcategory="figures",
        ),
        fig4=report(
            "results/{paper}/paper/fig4_Lsym.png",
            caption="../report/jiang2011_fig.rst",
            category="{paper}",
            subcategory="figures",
        ),
        claims="results/{paper}/paper/claims.tsv",
        claims_md="results/{paper}/paper/claims.md",
    log:
        "logs/{paper}/jiang2011_figures.log",
    benchmark:
        "benchmarks/{paper}/jiang2011_figures.tsv"
    wildcard_constraints:
        paper=names_pattern(JIANG2011),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        module="jiang2011",
        step="report",
        settings=jiang2011_settings,
    script:
        PAPER_SCRIPT


for _paper in JIANG2011:
    PAPER_OUTPUTS[_paper] = [
        f"results/{_paper}/paper/fig2_L.png",
        f"results/{_paper}/paper/fig3_Lrw.png",
        f"results/{_paper}/paper/fig4_Lsym.png",
    ]
    # the claims are the paper's comparison: appended to the experiment's paper_vs_ours.tsv
    EXTRA_COMPARISONS.setdefault(jiang2011_experiment(_paper), []).append(
        f"results/{_paper}/paper/claims.tsv"
    )
