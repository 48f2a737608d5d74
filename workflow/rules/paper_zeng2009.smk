# Zeng & Cheung 2009 (LLC-fs), paper blocks `zeng2009` (USPS, gene sets, 10 runs)
# and `zeng2009-small` of config/experiments/zeng2009.yaml, module fsclust.papers.zeng2009.
# The experiment (role `main`) ranks with LLC-fs (k = 30, lambda = 1) and Q-alpha, keeps their
# own clusterings of each run in the rank sidecars and runs k-means on all features; the grid
# experiments (roles `grid_digits`, `grid_genes`) rank with LLC-fs at every (k, lambda), and
# the LLC grid experiments (roles `llc_grid_digits`, `llc_grid_genes`) cluster all features
# with LLC at the same points (a clusterer grid); the optional stopping experiment (role
# `stopping`, zeng2009 only) ranks with LLC-fs under several stopping rules, one method each.
# This rule only tabulates and plots: Table 2, Figures 1-3, the checked claims, appended to the
# experiment's paper_vs_ours.tsv, and the same claims under each stopping rule (without the
# role, under the experiment's LLC-fs alone: zeng2009-small runs no extra experiment).
ZENG2009 = papers_of("zeng2009")
# the roles of the experiments of LLC-fs's grid points, and of LLC's
ZENG2009_GRIDS = ("grid_digits", "grid_genes")
ZENG2009_LLC_GRIDS = ("llc_grid_digits", "llc_grid_genes")


# tables and figures take seconds: on the submitting host (see experiments.smk)
localrules:
    zeng2009_report,


rule zeng2009_report:
    input:
        # LLC at every grid point: the sweep rows of the LLC grid experiments
        llc_sweeps=lambda wildcards: [
            f"results/{paper_experiment(wildcards.paper, role)}/tables/sweeps.tsv"
            for role in ZENG2009_LLC_GRIDS
        ],
        sweeps=lambda wildcards: (
            f"results/{main_experiment(wildcards.paper)}/tables/sweeps.tsv"
        ),
        rankings=lambda wildcards: sorted(
            {
                rankings_output(main_experiment(wildcards.paper), ds, key)
                for ds in paper_datasets(wildcards.paper, "digits")
                + paper_datasets(wildcards.paper, "genes")
                for key in [
                    PAPERS[wildcards.paper]["llcfs"],
                    PAPERS[wildcards.paper]["qalpha"],
                    *PAPERS[wildcards.paper]["variants"],
                ]
            }
        ),
        grid_rankings=lambda wildcards: sorted(
            {
                rankings_output(experiment, ds, key)
                for role in ZENG2009_GRIDS
                for experiment in [paper_experiment(wildcards.paper, role)]
                for ds in exp_datasets(experiment)
                for key in EXPERIMENTS[experiment]["methods"]
            }
        ),
        # LLC-fs under each stopping rule, if the paper block has the role
        stopping_rankings=lambda wildcards: sorted(
            {
                rankings_output(experiment, ds, key)
                for role, experiment in PAPERS[wildcards.paper]["experiments"].items()
                if role == "stopping"
                for ds in exp_datasets(experiment)
                for key in EXPERIMENTS[experiment]["methods"]
            }
        ),
        data=lambda wildcards: expand(
            "data/prepared/{dataset}.npz",
            dataset=paper_datasets(wildcards.paper, "digits"),
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
        claims_by_rule=report(
            "results/{paper}/paper/claims_by_rule.tsv",
            caption="../report/zeng2009_claims_by_rule.rst",
            category="{paper}",
            subcategory="tables",
        ),
        claims_by_rule_md="results/{paper}/paper/claims_by_rule.md",
    log:
        "logs/{paper}/zeng2009_report.log",
    benchmark:
        "logs/timings/{paper}/zeng2009_report.tsv"
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
        settings=lambda wildcards: {
            # the rule LLC-fs ran under is its parameters over LLCFS's defaults
            "llcfs_params": EXPERIMENTS[main_experiment(wildcards.paper)]["methods"][
                PAPERS[wildcards.paper]["llcfs"]
            ].get("params", {}),
            # each run's own clustering of LLC-fs, Q-alpha and the variants, scored
            "llcfs_sidecars": run_files(
                main_experiment(wildcards.paper),
                paper_datasets(wildcards.paper, "digits")
                + paper_datasets(wildcards.paper, "genes"),
                PAPERS[wildcards.paper]["llcfs"],
                "json",
            ),
            "qalpha_sidecars": run_files(
                main_experiment(wildcards.paper),
                paper_datasets(wildcards.paper, "digits")
                + paper_datasets(wildcards.paper, "genes"),
                PAPERS[wildcards.paper]["qalpha"],
                "json",
            ),
            "variant_sidecars": {
                label: run_files(
                    main_experiment(wildcards.paper),
                    paper_datasets(wildcards.paper, "digits")
                    + paper_datasets(wildcards.paper, "genes"),
                    key,
                    "json",
                )
                for key, label in PAPERS[wildcards.paper]["variants"].items()
            },
            # LLC-fs is fitted once for all runs: the first run's ranking holds tau
            "tau_files": {
                ds: ranking_file(
                    main_experiment(wildcards.paper),
                    ds,
                    PAPERS[wildcards.paper]["llcfs"],
                    EXPERIMENTS[main_experiment(wildcards.paper)]["seeds"][0],
                    "tsv",
                )
                for ds in paper_datasets(wildcards.paper, "digits")
                + paper_datasets(wildcards.paper, "genes")
            },
            "data_files": {
                ds: f"data/prepared/{ds}.npz"
                for ds in paper_datasets(wildcards.paper, "digits")
            },
            # LLC-fs at every grid point: its tau and each run's sidecar
            "llcfs_grid": {
                ds: {
                    key: {
                        **{p: spec["params"][p] for p in ("n_neighbors", "lam")},
                        "ranking": ranking_file(
                            experiment,
                            ds,
                            key,
                            EXPERIMENTS[experiment]["seeds"][0],
                            "tsv",
                        ),
                        "sidecars": run_files(experiment, [ds], key, "json")[ds],
                    }
                    for key, spec in EXPERIMENTS[experiment]["methods"].items()
                }
                for role in ZENG2009_GRIDS
                for experiment in [paper_experiment(wildcards.paper, role)]
                for ds in exp_datasets(experiment)
            },
            "llcfs_grid_params": [
                spec["params"]
                for role in ZENG2009_GRIDS
                for spec in EXPERIMENTS[paper_experiment(wildcards.paper, role)][
                    "methods"
                ].values()
            ],
            # LLC-fs under each stopping rule: its parameters, each run's sidecar and tau
            "rules": {
                key: {
                    "params": spec.get("params", {}),
                    "sidecars": run_files(experiment, datasets, key, "json"),
                    "tau_files": {
                        ds: ranking_file(
                            experiment,
                            ds,
                            key,
                            EXPERIMENTS[experiment]["seeds"][0],
                            "tsv",
                        )
                        for ds in datasets
                    },
                }
                for role, experiment in PAPERS[wildcards.paper]["experiments"].items()
                if role == "stopping"
                for datasets in [
                    paper_datasets(wildcards.paper, "digits", role)
                    + paper_datasets(wildcards.paper, "genes", role)
                ]
                for key, spec in EXPERIMENTS[experiment]["methods"].items()
            },
            # LLC's clusterer keys -> their (k, lambda)
            "llc_grid": {
                key: {p: spec["params"][p] for p in ("n_neighbors", "lam")}
                for role in ZENG2009_LLC_GRIDS
                for key, spec in EXPERIMENTS[paper_experiment(wildcards.paper, role)][
                    "clusterers"
                ].items()
            },
            "digits": paper_datasets(wildcards.paper, "digits"),
            "genes": paper_datasets(wildcards.paper, "genes"),
            **{
                key: PAPERS[wildcards.paper][key]
                for key in ("llcfs", "candidates", "kmeans", "default", "top_pixels")
            },
        },
    script:
        PAPER_SCRIPT


for _paper in ZENG2009:
    PAPER_OUTPUTS[_paper] = [
        f"results/{_paper}/paper/table2.md",
        f"results/{_paper}/paper/grid.tsv",
        f"results/{_paper}/paper/fig1_usps_tau.png",
        f"results/{_paper}/paper/fig2_genes_tau.png",
        f"results/{_paper}/paper/fig3_sensitivity.png",
        f"results/{_paper}/paper/claims_by_rule.md",
    ]
    # the claims are the paper's comparison: appended to the experiment's paper_vs_ours.tsv
    EXTRA_COMPARISONS.setdefault(main_experiment(_paper), []).append(
        f"results/{_paper}/paper/claims.tsv"
    )
