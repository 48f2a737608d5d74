# Maldonado, Carrizosa & Weber 2015: Tables 1, 3, 4, Figure 2 and the comparison
# table, from the three experiments of a `papers:` block (config/experiments/maldonado2015.yaml):
# bench (rank + kernel k-means sweep, each filter also at the n KP-Kmeans keeps: sweep grid
# entry {selected_by: kpkmeans}), toy (rankings of the unlabelled toy sets) and table4 (one
# KP-Kmeans method per (lambda, gamma) on MLL). The generic evaluate step does all the work;
# one job here tabulates and plots (fsclust.papers.maldonado2015.tables) under results/{paper}/,
# and the bench experiment's compare rule appends the comparison table to its paper_vs_ours.tsv.
MALDONADO2015 = papers_of("maldonado2015")


# tables and figures take seconds: on the submitting host (see experiments.smk)
localrules:
    maldonado2015_tables,


# the method whose n cuts every other method (its sidecar's n_features_selected)
MALDONADO2015_REFERENCE = "kpkmeans"


# Errors at parse time, naming the key, for what the schema cannot see across blocks.
for _paper in MALDONADO2015:
    _bench = paper_experiment(_paper, "bench")
    for _role in ("bench", "toy"):
        if (
            MALDONADO2015_REFERENCE
            not in EXPERIMENTS[paper_experiment(_paper, _role)]["methods"]
        ):
            raise ValueError(
                f"papers.{_paper}.experiments.{_role}: experiment "
                f"{paper_experiment(_paper, _role)} has no method "
                f"{MALDONADO2015_REFERENCE!r} (KP-Kmeans, whose n cuts the other methods)"
            )
    if PAPERS[_paper]["table3"]["clusterer"] not in EXPERIMENTS[_bench]["clusterers"]:
        raise ValueError(
            f"papers.{_paper}.table3.clusterer: "
            f"{PAPERS[_paper]['table3']['clusterer']!r} is not a clusterer of {_bench} "
            f"({', '.join(EXPERIMENTS[_bench]['clusterers'])})"
        )
    for _column, _method in {
        **{("filters", k): m for k, m in PAPERS[_paper]["table3"]["filters"].items()},
        **{
            ("filters_at_paper_n", k): m
            for k, m in PAPERS[_paper]["table3"].get("filters_at_paper_n", {}).items()
        },
    }.items():
        if _method not in EXPERIMENTS[_bench]["methods"]:
            raise ValueError(
                f"papers.{_paper}.table3.{'.'.join(_column)}: {_method!r} is not a method of "
                f"{_bench} ({', '.join(EXPERIMENTS[_bench]['methods'])})"
            )
    if PAPERS[_paper]["figure2_dataset"] not in EXPERIMENTS[_bench]["datasets"]:
        raise ValueError(
            f"papers.{_paper}.figure2_dataset: {PAPERS[_paper]['figure2_dataset']!r} is "
            f"not a dataset of {_bench}"
        )
    if len(EXPERIMENTS[paper_experiment(_paper, "table4")]["datasets"]) != 1:
        raise ValueError(
            f"experiments.{paper_experiment(_paper, 'table4')}.datasets: Table 4 is one "
            f"dataset (MLL); got {EXPERIMENTS[paper_experiment(_paper, 'table4')]['datasets']}"
        )


rule maldonado2015_tables:
    input:
        paper=config["paper_results"],
        sweeps=lambda wildcards: sweep_files(paper_experiment(wildcards.paper, "bench")),
        summary=lambda wildcards: (
            f"results/{paper_experiment(wildcards.paper, 'bench')}/tables/summary.tsv"
        ),
        bench_rankings=lambda wildcards: rankings_outputs(
            paper_experiment(wildcards.paper, "bench"), [MALDONADO2015_REFERENCE]
        ),
        toy_rankings=lambda wildcards: rankings_outputs(
            paper_experiment(wildcards.paper, "toy")
        ),
        table4_rankings=lambda wildcards: rankings_outputs(
            paper_experiment(wildcards.paper, "table4")
        ),
    output:
        table1=report(
            "results/{paper}/tables/table1.md",
            caption="../report/maldonado2015_table1.rst",
            category="{paper}",
            subcategory="tables",
        ),
        table1_tsv="results/{paper}/tables/table1.tsv",
        table3=report(
            "results/{paper}/tables/table3.md",
            caption="../report/maldonado2015_table3.rst",
            category="{paper}",
            subcategory="tables",
        ),
        table3_tsv="results/{paper}/tables/table3.tsv",
        table4=report(
            "results/{paper}/tables/table4.md",
            caption="../report/maldonado2015_table4.rst",
            category="{paper}",
            subcategory="tables",
        ),
        table4_tsv="results/{paper}/tables/table4.tsv",
        figure2=report(
            "results/{paper}/figure2_lung.png",
            caption="../report/maldonado2015_figure2.rst",
            category="{paper}",
            subcategory="figures",
        ),
        # every number of Tables 1, 3 and 4 beside the paper's; appended to the bench
        # experiment's paper_vs_ours.tsv (EXTRA_COMPARISONS)
        paper_vs_ours=report(
            "results/{paper}/tables/tables_vs_paper.tsv",
            caption="../report/maldonado2015_tables_vs_paper.rst",
            category="{paper}",
            subcategory="tables",
        ),
        paper_vs_ours_md="results/{paper}/tables/tables_vs_paper.md",
    log:
        "logs/{paper}/maldonado2015_tables.log",
    benchmark:
        "logs/timings/{paper}/maldonado2015_tables.tsv"
    wildcard_constraints:
        paper=names_pattern(MALDONADO2015),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        module="maldonado2015",
        step="tables",
        settings=maldonado2015_settings,
    script:
        PAPER_SCRIPT


for _paper in MALDONADO2015:
    PAPER_OUTPUTS[_paper] = [
        f"results/{_paper}/tables/table1.md",
        f"results/{_paper}/tables/table3.md",
        f"results/{_paper}/tables/table4.md",
        f"results/{_paper}/figure2_lung.png",
        f"results/{_paper}/tables/tables_vs_paper.tsv",
    ]
    EXTRA_COMPARISONS.setdefault(paper_experiment(_paper, "bench"), []).append(
        f"results/{_paper}/tables/tables_vs_paper.tsv"
    )
