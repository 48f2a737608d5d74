# Zeng & Cheung 2009 (LLC-fs), paper blocks `zeng2009` (USPS, gene sets, 10 runs)
# and `zeng2009-small` of config/experiments/zeng2009.yaml, module fsclust.papers.zeng2009.
# The experiment (role `main`) ranks with LLC-fs (k = 30, lambda = 1) and Q-alpha, keeps their
# own clusterings of each run in the rank sidecars and runs k-means on all features. These
# rules add the (k, lambda) grids of LLC and LLC-fs (one job per dataset: the only computation
# of the paper layer) and build Table 2, Figures 1-3 and the checked claims, appended to the
# experiment's paper_vs_ours.tsv.
ZENG2009 = papers_of("zeng2009")


# tables and figures take seconds: on the submitting host (see experiments.smk)
localrules:
    zeng2009_report,


# (lambdas, not functions: the linter wants functions in common.smk, which is shared)
zeng2009_experiment = lambda paper: paper_experiment(paper, "main")
# a dataset list of the paper block, restricted to those the experiment could get
zeng2009_datasets = lambda paper, key: [
    ds for ds in PAPERS[paper][key] if ds in exp_datasets(zeng2009_experiment(paper))
]
zeng2009_all_datasets = lambda paper: zeng2009_datasets(
    paper, "digits"
) + zeng2009_datasets(paper, "genes")
zeng2009_grid_settings = lambda wildcards: {
    "dataset": wildcards.dataset,
    "grid": PAPERS[wildcards.paper]["grids"][
        "digits" if wildcards.dataset in PAPERS[wildcards.paper]["digits"] else "genes"
    ],
    "seeds": EXPERIMENTS[zeng2009_experiment(wildcards.paper)]["seeds"],
    "llcfs_key": PAPERS[wildcards.paper]["llcfs"],
    "metrics": EXPERIMENTS[zeng2009_experiment(wildcards.paper)]["metrics"],
}
zeng2009_sidecars = lambda paper, key: {
    ds: {
        seed: ranking_file(zeng2009_experiment(paper), ds, key, seed, "json")
        for seed in EXPERIMENTS[zeng2009_experiment(paper)]["seeds"]
    }
    for ds in zeng2009_all_datasets(paper)
}
zeng2009_report_settings = lambda wildcards: {
    "llcfs_sidecars": zeng2009_sidecars(
        wildcards.paper, PAPERS[wildcards.paper]["llcfs"]
    ),
    "qalpha_sidecars": zeng2009_sidecars(
        wildcards.paper, PAPERS[wildcards.paper]["qalpha"]
    ),
    "variant_sidecars": {
        label: zeng2009_sidecars(wildcards.paper, key)
        for key, label in PAPERS[wildcards.paper]["variants"].items()
    },
    # LLC-fs is fitted once for all runs: the first run's ranking holds tau
    "tau_files": {
        ds: ranking_file(
            zeng2009_experiment(wildcards.paper),
            ds,
            PAPERS[wildcards.paper]["llcfs"],
            EXPERIMENTS[zeng2009_experiment(wildcards.paper)]["seeds"][0],
            "tsv",
        )
        for ds in zeng2009_all_datasets(wildcards.paper)
    },
    "data_files": {
        ds: f"data/prepared/{ds}.npz"
        for ds in zeng2009_datasets(wildcards.paper, "digits")
    },
    "digits": zeng2009_datasets(wildcards.paper, "digits"),
    "genes": zeng2009_datasets(wildcards.paper, "genes"),
    "candidates": PAPERS[wildcards.paper]["candidates"],
    "kmeans": PAPERS[wildcards.paper]["kmeans"],
    "default": PAPERS[wildcards.paper]["default"],
    "top_pixels": PAPERS[wildcards.paper]["top_pixels"],
}


# LLC and LLC-fs over the (k, lambda) grid of one dataset, 10 runs each (one fit per grid
# point: only the final k-means differs between runs).
rule zeng2009_grid:
    input:
        data="data/prepared/{dataset}.npz",
    output:
        runs="results/{paper}/grid/{dataset}.tsv",
    log:
        "logs/{paper}/zeng2009_grid/{dataset}.log",
    benchmark:
        "logs/benchmarks/{paper}/zeng2009_grid/{dataset}.tsv"
    wildcard_constraints:
        paper=names_pattern(ZENG2009),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=120,
    params:
        module="zeng2009",
        step="grid",
        settings=zeng2009_grid_settings,
    script:
        PAPER_SCRIPT


rule zeng2009_report:
    input:
        grids=lambda wildcards: expand(
            "results/{paper}/grid/{dataset}.tsv",
            paper=wildcards.paper,
            dataset=zeng2009_all_datasets(wildcards.paper),
        ),
        sweeps=lambda wildcards: (
            f"results/{zeng2009_experiment(wildcards.paper)}/tables/sweeps.tsv"
        ),
        rankings=lambda wildcards: sorted(
            {
                rankings_output(zeng2009_experiment(wildcards.paper), ds, key)
                for ds in zeng2009_all_datasets(wildcards.paper)
                for key in [
                    PAPERS[wildcards.paper]["llcfs"],
                    PAPERS[wildcards.paper]["qalpha"],
                    *PAPERS[wildcards.paper]["variants"],
                ]
            }
        ),
        data=lambda wildcards: expand(
            "data/prepared/{dataset}.npz",
            dataset=zeng2009_datasets(wildcards.paper, "digits"),
        ),
    output:
        table2=report(
            "results/{paper}/paper/table2.tsv",
            caption="../report/zeng2009_table2.rst",
            category="{paper}",
            subcategory="tables",
        ),
        table2_md="results/{paper}/paper/table2.md",
        grid=report(
            "results/{paper}/paper/grid.tsv",
            caption="../report/zeng2009_grid.rst",
            category="{paper}",
            subcategory="tables",
        ),
        fig1=report(
            "results/{paper}/paper/fig1_usps_tau.png",
            caption="../report/zeng2009_fig1.rst",
            category="{paper}",
            subcategory="figures",
        ),
        fig2=report(
            "results/{paper}/paper/fig2_genes_tau.png",
            caption="../report/zeng2009_fig2.rst",
            category="{paper}",
            subcategory="figures",
        ),
        fig3=report(
            "results/{paper}/paper/fig3_sensitivity.png",
            caption="../report/zeng2009_fig3.rst",
            category="{paper}",
            subcategory="figures",
        ),
        claims="results/{paper}/paper/claims.tsv",
        claims_md="results/{paper}/paper/claims.md",
    log:
        "logs/{paper}/zeng2009_report.log",
    benchmark:
        "logs/benchmarks/{paper}/zeng2009_report.tsv"
    wildcard_constraints:
        paper=names_pattern(ZENG2009),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        module="zeng2009",
        step="report",
        settings=zeng2009_report_settings,
    script:
        PAPER_SCRIPT


for _paper in ZENG2009:
    PAPER_OUTPUTS[_paper] = [
        f"results/{_paper}/paper/table2.md",
        f"results/{_paper}/paper/grid.tsv",
        f"results/{_paper}/paper/fig1_usps_tau.png",
        f"results/{_paper}/paper/fig2_genes_tau.png",
        f"results/{_paper}/paper/fig3_sensitivity.png",
    ]
    # the claims are the paper's comparison: appended to the experiment's paper_vs_ours.tsv
    EXTRA_COMPARISONS.setdefault(zeng2009_experiment(_paper), []).append(
        f"results/{_paper}/paper/claims.tsv"
    )
