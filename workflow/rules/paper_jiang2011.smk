# Jiang & Ren 2011 (EVSFSC), paper blocks `jiang2011` and `jiang2011-small` of
# config/experiments/jiang2011.yaml, module fsclust.papers.jiang2011. The experiment (role
# `main`) ranks and clusters everything with the generic evaluate step; this rule only draws
# Figures 2-4 (one per Laplacian, a panel per dataset) from its summary and checks the paper's
# claims, appended to the experiment's paper_vs_ours.tsv.
JIANG2011 = papers_of("jiang2011")


# tables and figures take seconds: on the submitting host (see experiments.smk)
localrules:
    jiang2011_figures,


rule jiang2011_figures:
    input:
        summary=lambda wildcards: (
            f"results/{paper_experiment(wildcards.paper, 'main')}/tables/summary.tsv"
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
        "logs/timings/{paper}/jiang2011_figures.tsv"
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
        settings=lambda wildcards: {
            "figures": PAPERS[wildcards.paper]["figures"],
            "baselines": PAPERS[wildcards.paper]["baselines"],
            "datasets": paper_datasets(wildcards.paper, "datasets"),
            "skipped": skipped_datasets(paper_experiment(wildcards.paper, "main")),
            "n_seeds": len(
                EXPERIMENTS[paper_experiment(wildcards.paper, "main")]["seeds"]
            ),
        },
    script:
        PAPER_SCRIPT


for _paper in JIANG2011:
    PAPER_OUTPUTS[_paper] = [
        f"results/{_paper}/paper/fig2_L.png",
        f"results/{_paper}/paper/fig3_Lrw.png",
        f"results/{_paper}/paper/fig4_Lsym.png",
    ]
    # the claims are the paper's comparison: appended to the experiment's paper_vs_ours.tsv
    EXTRA_COMPARISONS.setdefault(paper_experiment(_paper, "main"), []).append(
        f"results/{_paper}/paper/claims.tsv"
    )
