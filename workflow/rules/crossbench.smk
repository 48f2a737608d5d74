# Issue 27's cross-dataset benchmark (config/experiments/benchmark.yaml): the generic evaluate
# jobs (of the experiment's grain), gathered into the two long tables of the report, then the
# report (fsclust.report.benchmark). An experiment is a cross-dataset benchmark when it
# declares `families`; its target builds these outputs instead of the generic tables and
# figures (OWN_OUTPUTS, workflow/rules/common.smk).
CROSSBENCH = [name for name, exp in EXPERIMENTS.items() if "families" in exp]

for _name in CROSSBENCH:
    OWN_OUTPUTS[_name] = [
        f"results/{_name}/tables/scores.tsv",
        f"results/{_name}/tables/costs.tsv",
        f"results/{_name}/summary.md",
    ]


rule crossbench_tables:
    input:
        sweeps=lambda wildcards: sweep_files(wildcards.experiment),
        rankings=lambda wildcards: rankings_outputs(wildcards.experiment),
    output:
        scores="results/{experiment}/tables/scores.tsv",
        costs="results/{experiment}/tables/costs.tsv",
    log:
        "logs/{experiment}/crossbench_tables.log",
    benchmark:
        "logs/benchmarks/{experiment}/crossbench_tables.tsv"
    wildcard_constraints:
        experiment=names_pattern(CROSSBENCH),
    localrule: True
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        # dataset -> family ("expression" or "image"), as the experiment declares them
        families=lambda wildcards: {
            ds: family
            for family, members in EXPERIMENTS[wildcards.experiment][
                "families"
            ].items()
            for ds in members
        },
        n_classes=lambda wildcards: {
            ds: CATALOG[ds].n_classes for ds in exp_datasets(wildcards.experiment)
        },
        fractions=lambda wildcards: [
            point["fraction"]
            for point in EXPERIMENTS[wildcards.experiment]["sweep"]["n_features"]
        ],
        all_features=ALL_FEATURES,
    script:
        "../../scripts/crossbench_tables.py"


rule crossbench_report:
    input:
        scores="results/{experiment}/tables/scores.tsv",
        costs="results/{experiment}/tables/costs.tsv",
    output:
        summary=report(
            "results/{experiment}/summary.md",
            caption="../report/benchmark_summary.rst",
            category="{experiment}",
            subcategory="summary",
        ),
    log:
        "logs/{experiment}/crossbench_report.log",
    benchmark:
        "logs/benchmarks/{experiment}/crossbench_report.tsv"
    wildcard_constraints:
        experiment=names_pattern(CROSSBENCH),
    localrule: True
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        metrics=lambda wildcards: EXPERIMENTS[wildcards.experiment]["metrics"],
    script:
        "../../scripts/crossbench_report.py"
