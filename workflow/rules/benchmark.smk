# Issue 27's cross-dataset benchmark (config/experiments/benchmark.yaml): the generic evaluate
# jobs (of the experiment's grain), gathered into the two long tables of the report, then the
# report (fsclust.studies.benchmark.report). An experiment is a cross-dataset benchmark when it
# declares `families`; its target builds these outputs instead of the generic tables and
# figures (OWN_OUTPUTS, workflow/rules/common.smk).
from fsclust.studies.benchmark import label_free as label_free

BENCHMARK_EXPERIMENTS = [name for name, exp in EXPERIMENTS.items() if "families" in exp]
# The label-free m and K (fsclust.studies.benchmark.label_free): one job per (dataset, method) of an
# experiment with a `label_free:` block. `--config label_free_jobs=here` builds only those
# declared to run on this machine (`label_free: here`), `none` none, `all` (default) every one;
# tables/label_free.tsv marks the jobs not run.
LABEL_FREE_SCOPE = config.get("label_free_jobs", "all")

for _name in BENCHMARK_EXPERIMENTS:
    OWN_OUTPUTS[_name] = [
        f"results/{_name}/tables/scores.tsv",
        f"results/{_name}/tables/costs.tsv",
        f"results/{_name}/tables/label_free.tsv",
        f"results/{_name}/summary.md",
    ]


rule benchmark_tables:
    input:
        sweeps=lambda wildcards: sweep_files(wildcards.experiment),
        rankings=lambda wildcards: rankings_outputs(wildcards.experiment),
        label_free=lambda wildcards: label_free.job_paths(
            wildcards.experiment,
            EXPERIMENTS[wildcards.experiment],
            exp_datasets(wildcards.experiment),
            LABEL_FREE_SCOPE,
            ".json",
        ),
        label_free_rows=lambda wildcards: label_free.job_paths(
            wildcards.experiment,
            EXPERIMENTS[wildcards.experiment],
            exp_datasets(wildcards.experiment),
            LABEL_FREE_SCOPE,
            ".tsv",
        ),
    output:
        scores="results/{experiment}/tables/scores.tsv",
        costs="results/{experiment}/tables/costs.tsv",
        label_free="results/{experiment}/tables/label_free.tsv",
    log:
        "logs/{experiment}/benchmark_tables.log",
    benchmark:
        "logs/timings/{experiment}/benchmark_tables.tsv"
    wildcard_constraints:
        experiment=names_pattern(BENCHMARK_EXPERIMENTS),
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
        # method -> its time limit in seconds (a method's own wins over the experiment's)
        time_limits=lambda wildcards: {
            key: method_time_limit(
                spec, EXPERIMENTS[wildcards.experiment].get("time_limit_s")
            )
            for key, spec in EXPERIMENTS[wildcards.experiment]["methods"].items()
        },
        # every label-free job of the experiment, to mark those this run did not build
        label_free_planned=lambda wildcards: label_free.planned_jobs(
            EXPERIMENTS[wildcards.experiment], exp_datasets(wildcards.experiment)
        ),
    script:
        "../../scripts/benchmark_tables.py"


# One label-free job per (dataset, method): the selector fits R subsamples (times each K for a
# ranker that takes a number of clusters), far more than a ranking, so it is a job of its own,
# under its own time limit (`label_free: time_limit_s`; a timeout or failure is a status row,
# not a failed job), with a runtime from that limit for a cluster.
rule benchmark_label_free:
    input:
        data="data/prepared/{dataset}.npz",
    output:
        choice="results/{experiment}/label_free/{dataset}/{method}.json",
        rows="results/{experiment}/label_free/{dataset}/{method}.tsv",
        criteria="results/{experiment}/label_free/{dataset}/{method}.criteria.tsv",
    log:
        "logs/{experiment}/benchmark_label_free/{dataset}/{method}.log",
    benchmark:
        "logs/timings/{experiment}/benchmark_label_free/{dataset}/{method}.tsv"
    wildcard_constraints:
        experiment=names_pattern(BENCHMARK_EXPERIMENTS),
        method="[A-Za-z0-9][A-Za-z0-9_-]*",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: label_free.settings_of(
            EXPERIMENTS[wildcards.experiment]
        )["mem_mb"]
        * attempt,
        runtime=lambda wildcards: label_free.runtime_minutes(
            EXPERIMENTS[wildcards.experiment], wildcards.method
        ),
    params:
        settings=lambda wildcards: label_free.job_settings(
            EXPERIMENTS[wildcards.experiment], wildcards.method
        ),
    script:
        "../../scripts/benchmark_label_free.py"


rule benchmark_report:
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
        "logs/{experiment}/benchmark_report.log",
    benchmark:
        "logs/timings/{experiment}/benchmark_report.tsv"
    wildcard_constraints:
        experiment=names_pattern(BENCHMARK_EXPERIMENTS),
    localrule: True
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        metrics=lambda wildcards: EXPERIMENTS[wildcards.experiment]["metrics"],
        diagrams=lambda wildcards: EXPERIMENTS[wildcards.experiment].get(
            "diagrams", "all"
        ),
    script:
        "../../scripts/benchmark_report.py"
