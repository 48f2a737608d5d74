# Zeng & Cheung 2008: the paper's Figures 2 and 3, the best/mean table, the
# iteration counts and the checked claims, from the two experiments of its curves (roles pie
# and genes of a `papers:` block, config/experiments/zeng2008.yaml: 20 PIE draws, 10 runs per
# gene set), and the Ncut graph table from the experiment of role ncut_graph. Everything is
# tabulated and drawn in one job (fsclust.papers.zeng2008.report) under results/{paper}/.
ZENG2008 = papers_of("zeng2008")


# tables and figures take seconds: on the submitting host (see experiments.smk)
localrules:
    zeng2008_report,


rule zeng2008_report:
    input:
        summaries=lambda wildcards: [
            f"results/{paper_experiment(wildcards.paper, role)}/tables/summary.tsv"
            for role in ZENG2008_CURVES
        ],
        rankings=lambda wildcards: sorted(
            {
                rankings_output(exp, ds, PAPERS[wildcards.paper]["weighting"])
                for exp in (
                    paper_experiment(wildcards.paper, role) for role in ZENG2008_CURVES
                )
                for ds in exp_datasets(exp)
            }
        ),
        # the Ncut readings on all features of the gene sets, with the graph's diagnostics
        ncut_sweeps=lambda wildcards: (
            f"results/{paper_experiment(wildcards.paper, 'ncut_graph')}/tables/sweeps.tsv"
        ),
    output:
        curves="results/{paper}/tables/curves.tsv",
        runs="results/{paper}/tables/wrank_runs.tsv",
        fig2=report(
            "results/{paper}/fig2_pie.png",
            caption="../report/zeng2008_fig2.rst",
            category="{paper}",
            subcategory="figures",
        ),
        fig3=report(
            "results/{paper}/fig3_genes.png",
            caption="../report/zeng2008_fig3.rst",
            category="{paper}",
            subcategory="figures",
        ),
        best=report(
            "results/{paper}/tables/best_mean.tsv",
            caption="../report/zeng2008_best.rst",
            category="{paper}",
            subcategory="tables",
        ),
        best_md="results/{paper}/tables/best_mean.md",
        iterations=report(
            "results/{paper}/tables/iterations.tsv",
            caption="../report/zeng2008_iterations.rst",
            category="{paper}",
            subcategory="tables",
        ),
        iterations_md="results/{paper}/tables/iterations.md",
        ncut_graph=report(
            "results/{paper}/tables/ncut_graph.tsv",
            caption="../report/zeng2008_ncut_graph.rst",
            category="{paper}",
            subcategory="tables",
        ),
        ncut_graph_md="results/{paper}/tables/ncut_graph.md",
        # The paper reports figures only: its claims, checked on our numbers, are the
        # paper-vs-ours table of the whole paper.
        claims=report(
            "results/{paper}/paper_vs_ours.tsv",
            caption="../report/zeng2008_claims.rst",
            category="{paper}",
            subcategory="tables",
        ),
        claims_md="results/{paper}/paper_vs_ours.md",
    log:
        "logs/{paper}/zeng2008_report.log",
    benchmark:
        "logs/timings/{paper}/zeng2008_report.tsv"
    wildcard_constraints:
        paper=names_pattern(ZENG2008),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        module="zeng2008",
        step="report",
        settings=lambda wildcards: {
            "sidecars": zeng2008_sidecars(wildcards),
            "metrics": PAPERS[wildcards.paper]["metrics"],
            "variants": PAPERS[wildcards.paper].get("variants", {}),
            "ncut_readings": PAPERS[wildcards.paper]["ncut_readings"],
        },
    script:
        PAPER_SCRIPT


for _paper in ZENG2008:
    PAPER_OUTPUTS[_paper] = [
        f"results/{_paper}/fig2_pie.png",
        f"results/{_paper}/fig3_genes.png",
        f"results/{_paper}/tables/best_mean.md",
        f"results/{_paper}/tables/iterations.md",
        f"results/{_paper}/tables/ncut_graph.md",
        f"results/{_paper}/paper_vs_ours.tsv",
    ]
