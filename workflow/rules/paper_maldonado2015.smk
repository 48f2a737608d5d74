# Maldonado, Carrizosa & Weber 2015: Tables 1, 3, 4, Figure 2 and the comparison
# table, from the three experiments of a `papers:` block (config/experiments/maldonado2015.yaml):
# bench (rank + kernel k-means sweep, each filter also at the n KP-Kmeans keeps: sweep grid
# entry {selected_by: kpkmeans}), toy (rankings of the unlabelled toy sets) and table4 (one
# KP-Kmeans method per (lambda, gamma) on MLL). The generic evaluate step does all the work;
# one job here tabulates and plots (fsclust.papers.maldonado2015.tables) under results/{paper}/,
# and the bench experiment's compare rule appends the comparison table to its paper_vs_ours.tsv.
MALDONADO2015 = papers_of("maldonado2015")
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

# (lambdas, not functions: the linter wants functions in common.smk, which is shared)
# the experiments of a paper target: (bench, toy, table4)
maldonado2015_roles = lambda paper: tuple(
    paper_experiment(paper, role) for role in ("bench", "toy", "table4")
)
# the ranking directories of ``methods`` (default: all) of an experiment
maldonado2015_rankings = lambda experiment, methods=None: sorted(
    {
        rankings_output(experiment, ds, method)
        for ds in exp_datasets(experiment)
        for method in (methods or EXPERIMENTS[experiment]["methods"])
    }
)
maldonado2015_inputs = lambda wildcards: {
    "paper": config["paper_results"],
    "sweeps": sweep_files(maldonado2015_roles(wildcards.paper)[0]),
    "summary": f"results/{maldonado2015_roles(wildcards.paper)[0]}/tables/summary.tsv",
    "bench_rankings": maldonado2015_rankings(
        maldonado2015_roles(wildcards.paper)[0], [MALDONADO2015_REFERENCE]
    ),
    "toy_rankings": maldonado2015_rankings(maldonado2015_roles(wildcards.paper)[1]),
    "table4_rankings": maldonado2015_rankings(maldonado2015_roles(wildcards.paper)[2]),
}
# everything fsclust.papers.maldonado2015.tables needs besides its named inputs: the paper
# block's settings and the explicit paths of the rankings and sidecars it reads
_maldonado2015_settings = lambda wildcards, bench, toy, table4: {
    **paper_settings(wildcards),
    "toy_methods": EXPERIMENTS[toy]["methods"],
    "toy_rankings": [
        {
            "dataset": ds,
            "method": method,
            "seed": seed,
            "ranking": ranking_file(toy, ds, method, seed, "tsv"),
            "sidecar": ranking_file(toy, ds, method, seed, "json"),
        }
        for ds in exp_datasets(toy)
        for seed in EXPERIMENTS[toy]["seeds"]
        for method in EXPERIMENTS[toy]["methods"]
    ],
    "kp_params": EXPERIMENTS[bench]["methods"][MALDONADO2015_REFERENCE].get(
        "params", {}
    ),
    "kp_sidecars": [
        {
            "dataset": ds,
            "seed": seed,
            "sidecar": ranking_file(bench, ds, MALDONADO2015_REFERENCE, seed, "json"),
        }
        for ds in exp_datasets(bench)
        for seed in EXPERIMENTS[bench]["seeds"]
    ],
    "table4_dataset": EXPERIMENTS[table4]["datasets"][0],
    "table4_runs": [
        {
            "method": method,
            "lam": spec.get("params", {}).get("lam", 0.5),
            "gamma": spec.get("params", {}).get("gamma", 1.0),
            "gradient": spec.get("params", {}).get("gradient", "correct"),
            "seed": seed,
            "sidecar": ranking_file(table4, ds, method, seed, "json"),
        }
        for ds in exp_datasets(table4)
        for method, spec in EXPERIMENTS[table4]["methods"].items()
        for seed in EXPERIMENTS[table4]["seeds"]
    ],
    "substitutes": sorted(
        ds
        for ds in {*EXPERIMENTS[bench]["datasets"], *EXPERIMENTS[table4]["datasets"]}
        if CATALOG[ds].substitute
    ),
}
maldonado2015_settings = lambda wildcards: _maldonado2015_settings(
    wildcards, *maldonado2015_roles(wildcards.paper)
)


rule maldonado2015_tables:
    input:
        unpack(maldonado2015_inputs),
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
        "benchmarks/{paper}/maldonado2015_tables.tsv"
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
