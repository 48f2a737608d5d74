# Zhang, Wong, Shen & Xie 2012 (FRCM), paper blocks `zhang2012` (40 trials) and
# `zhang2012-small` (3) of config/experiments/zhang2012.yaml, module fsclust.papers.zhang2012.
# The experiment (role `main`) ranks and clusters everything with the generic evaluate step:
# FRMV on FRCM's ensemble of each trial, each method's informative subset (score > mean + sd,
# the sweep rows marked mean_plus_std) clustered like a grid point, FRCM's ensemble and
# consensus matrix kept in rankings/{dataset}/frcm/seed{S}.npz. The experiment of role
# `consensus` ranks the gene sets with FRCM and the consensus rankers (eta^2 with a consensus
# partition of FRCM's ensemble; a grid over CSPA / HBGF / average link, the partitioner and k)
# and clusters each at the top 10 % of the genes. These rules only tabulate and plot: Table 2
# (+ PCA at FRCM's subset size), its comparison (appended to the experiment's
# paper_vs_ours.tsv) and Figures 1-2 in one job; Figure 3 from the consensus experiment's
# sweeps and Figure 4 from FRCM's rankings in another.
ZHANG2012 = papers_of("zhang2012")


# tables and figures take seconds: on the submitting host (see experiments.smk)
localrules:
    zhang2012_table2_figures12,
    zhang2012_figures34,


# the method key of FRCM in both experiments (Figure 3 reads its sweep rows, Figure 4 its
# rankings)
ZHANG2012_FRCM = "frcm"


# Table 2 (each method's informative subset from the sweep TSVs; PCA at FRCM's subset size of
# the trial, the one computation of this job), Table 2 vs the paper, Figures 1-2.
rule zhang2012_table2_figures12:
    input:
        sweeps=lambda wildcards: sweep_files(main_experiment(wildcards.paper)),
        data=lambda wildcards: expand(
            "data/prepared/{dataset}.npz",
            dataset=exp_datasets(main_experiment(wildcards.paper)),
        ),
        summary=lambda wildcards: (
            f"results/{main_experiment(wildcards.paper)}/tables/summary.tsv"
        ),
        paper=config["paper_results"],
    output:
        table2=report(
            "results/{paper}/paper/table2.tsv",
            caption="../report/zhang2012_table2.rst",
            category="{paper}",
            subcategory="tables",
        ),
        table2_md="results/{paper}/paper/table2.md",
        table2_trials=report(
            "results/{paper}/paper/table2_trials.tsv",
            caption="../report/zhang2012_table2.rst",
            category="{paper}",
            subcategory="tables",
        ),
        vs_paper=report(
            "results/{paper}/table2_vs_paper.tsv",
            caption="../report/zhang2012_table2_vs_paper.rst",
            category="{paper}",
            subcategory="tables",
        ),
        vs_paper_md="results/{paper}/table2_vs_paper.md",
        fig1=report(
            "results/{paper}/paper/fig1_uci.png",
            caption="../report/zhang2012_fig12.rst",
            category="{paper}",
            subcategory="figures",
        ),
        fig2=report(
            "results/{paper}/paper/fig2_genes.png",
            caption="../report/zhang2012_fig12.rst",
            category="{paper}",
            subcategory="figures",
        ),
    log:
        "logs/{paper}/paper/table2_figures12.log",
    benchmark:
        "logs/timings/{paper}/paper/table2_figures12.tsv"
    wildcard_constraints:
        paper=names_pattern(ZHANG2012),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        module="zhang2012",
        step="table2_figures12",
        settings=lambda wildcards: {
            "datasets": exp_datasets(main_experiment(wildcards.paper)),
            "methods": list(EXPERIMENTS[main_experiment(wildcards.paper)]["methods"]),
            "clusterer": first_clusterer(main_experiment(wildcards.paper)),
            "metrics": EXPERIMENTS[main_experiment(wildcards.paper)]["metrics"],
            "uci_datasets": paper_datasets(wildcards.paper, "uci_datasets"),
            "gene_datasets": paper_datasets(wildcards.paper, "gene_datasets"),
            "pca_size_of": PAPERS[wildcards.paper]["pca_size_of"],
            # the method key of Table 2's paper-as-run rows; None: no such rows
            "laplacian_as_run": PAPERS[wildcards.paper].get("laplacian_as_run"),
        },
    script:
        PAPER_SCRIPT


# Figure 3 (the consensus experiment's sweep rows) and Figure 4 (Borda values along FRCM's
# rankings), gene sets, every trial.
rule zhang2012_figures34:
    input:
        consensus_sweeps=lambda wildcards: sweep_files(
            paper_experiment(wildcards.paper, "consensus")
        ),
        data=lambda wildcards: expand(
            "data/prepared/{dataset}.npz",
            dataset=paper_datasets(wildcards.paper, "gene_datasets"),
        ),
        rankings=lambda wildcards: [
            rankings_output(main_experiment(wildcards.paper), ds, ZHANG2012_FRCM)
            for ds in paper_datasets(wildcards.paper, "gene_datasets")
        ],
    output:
        fig3=report(
            "results/{paper}/paper/fig3_consensus.png",
            caption="../report/zhang2012_fig3.rst",
            category="{paper}",
            subcategory="figures",
        ),
        fig3_tsv=report(
            "results/{paper}/paper/fig3_consensus.tsv",
            caption="../report/zhang2012_fig3.rst",
            category="{paper}",
            subcategory="tables",
        ),
        fig3_trials=report(
            "results/{paper}/paper/fig3_trials.tsv",
            caption="../report/zhang2012_fig3.rst",
            category="{paper}",
            subcategory="tables",
        ),
        fig4=report(
            "results/{paper}/paper/fig4_borda.png",
            caption="../report/zhang2012_fig4.rst",
            category="{paper}",
            subcategory="figures",
        ),
        fig4_tsv=report(
            "results/{paper}/paper/fig4_borda.tsv",
            caption="../report/zhang2012_fig4.rst",
            category="{paper}",
            subcategory="tables",
        ),
        fig4_trials=report(
            "results/{paper}/paper/fig4_trials.tsv",
            caption="../report/zhang2012_fig4.rst",
            category="{paper}",
            subcategory="tables",
        ),
    log:
        "logs/{paper}/paper/figures34.log",
    benchmark:
        "logs/timings/{paper}/paper/figures34.tsv"
    wildcard_constraints:
        paper=names_pattern(ZHANG2012),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        module="zhang2012",
        step="figures34",
        settings=lambda wildcards: {
            "datasets": paper_datasets(wildcards.paper, "gene_datasets"),
            "seeds": EXPERIMENTS[main_experiment(wildcards.paper)]["seeds"],
            # FRCM's ranking of every trial
            "frcm_rankings": run_files(
                main_experiment(wildcards.paper),
                paper_datasets(wildcards.paper, "gene_datasets"),
                ZHANG2012_FRCM,
                "tsv",
            ),
            "consensus_methods": EXPERIMENTS[
                paper_experiment(wildcards.paper, "consensus")
            ]["methods"],
            "clusterer": first_clusterer(
                paper_experiment(wildcards.paper, "consensus")
            )["key"],
            "frcm": ZHANG2012_FRCM,
        },
    script:
        PAPER_SCRIPT


for _paper in ZHANG2012:
    PAPER_OUTPUTS[_paper] = [
        f"results/{_paper}/paper/table2.md",
        f"results/{_paper}/table2_vs_paper.tsv",
        f"results/{_paper}/paper/fig1_uci.png",
        f"results/{_paper}/paper/fig2_genes.png",
        f"results/{_paper}/paper/fig3_consensus.png",
        f"results/{_paper}/paper/fig4_borda.png",
    ]
    # Table 2's rows sit at a data-dependent number of features: appended to the main
    # experiment's paper_vs_ours.tsv by the generic compare rule
    EXTRA_COMPARISONS.setdefault(main_experiment(_paper), []).append(
        f"results/{_paper}/table2_vs_paper.tsv"
    )
