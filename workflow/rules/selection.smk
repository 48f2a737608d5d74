# Issue 23, "Measured": the label-free choice of m and K (fsclust.selection) against the best m
# with labels. A block under `selection:` of the config (config/experiments/selection.yaml)
# names datasets by group, methods and the resampling; one job per (dataset, method) fits the
# selector without labels and scores its grid with them (fsclust.studies.selection.step), one job
# per block condenses them (fsclust.studies.selection.report). Methods slower than the block's
# `max_seconds_per_resample` are only planned: `snakemake -n --profile
# workflow/profiles/slurm {name}-slow`.
wildcard_constraints:
    selection=names_pattern(SELECTIONS),


rule selection_fit:
    input:
        data="data/prepared/{dataset}.npz",
    output:
        criteria="results/{selection}/fits/{dataset}/{method}.criteria.tsv",
        scores="results/{selection}/fits/{dataset}/{method}.scores.tsv",
    log:
        "logs/{selection}/selection_fit/{dataset}/{method}.log",
    benchmark:
        "logs/timings/{selection}/selection_fit/{dataset}/{method}.tsv"
    wildcard_constraints:
        method=names_pattern(method_names()),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=selection_mem_mb,
        runtime=selection_runtime,
    params:
        block=lambda wildcards: SELECTIONS[wildcards.selection],
    script:
        "../../scripts/selection_fit.py"


rule selection_report:
    input:
        criteria=lambda wildcards: selection_fits(wildcards.selection, "criteria"),
        scores=lambda wildcards: selection_fits(wildcards.selection, "scores"),
    output:
        regret=report(
            "results/{selection}/regret.tsv",
            caption="../report/selection_regret.rst",
            category="{selection}",
            subcategory="tables",
        ),
        summary="results/{selection}/summary.tsv",
        markdown="results/{selection}/summary.md",
        figures=report(
            directory("results/{selection}/figures"),
            patterns=["{dataset}/{name}.png"],
            caption="../report/selection_figure.rst",
            category="{selection}",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "figure": "{name}"},
        ),
    log:
        "logs/{selection}/selection_report.log",
    benchmark:
        "logs/timings/{selection}/selection_report.tsv"
    localrule: True
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=30,
    params:
        groups=lambda wildcards: selection_groups(wildcards.selection),
        planned=lambda wildcards: {
            m: SELECTIONS[wildcards.selection]["seconds_per_resample"][m]
            for m in selection_methods(wildcards.selection, slow=True)
        },
        skipped=lambda wildcards: selection_skipped(wildcards.selection),
        metrics=lambda wildcards: SELECTIONS[wildcards.selection]["metrics"],
    script:
        "../../scripts/selection_report.py"


# `snakemake --cores 2 selection`: the block's tables and figures; `{name}-slow`: the jobs of
# its slow methods, to plan (or run) on a cluster.
for _name in SELECTIONS:

    rule:
        name:
            _name
        default_target: False
        input:
            selection_outputs(_name),
        localrule: True

    rule:
        name:
            f"{_name}-slow"
        default_target: False
        input:
            selection_fits(_name, "criteria", slow=True),
        localrule: True
