rule aggregate:
    input:
        lambda wildcards: sweep_files(wildcards.experiment),
    output:
        sweeps="results/{experiment}/tables/sweeps.tsv",
        summary="results/{experiment}/tables/summary.tsv",
        best=report(
            "results/{experiment}/tables/best.tsv",
            caption="../report/best.rst",
            category="{experiment}",
            subcategory="tables",
        ),
        best_md="results/{experiment}/tables/best.md",
        # one figure per dataset, drawn in the same job (a matplotlib start-up per figure
        # would cost more than the drawing)
        figures=report(
            directory("results/{experiment}/figures"),
            patterns=["{dataset}.png"],
            caption="../report/figure.rst",
            category="{experiment}",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}"},
        ),
    log:
        "logs/{experiment}/aggregate.log",
    benchmark:
        "logs/timings/{experiment}/aggregate.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        metrics=lambda wildcards: EXPERIMENTS[wildcards.experiment]["metrics"],
        skipped=lambda wildcards: skipped_datasets(wildcards.experiment),
        datasets=lambda wildcards: exp_datasets(wildcards.experiment),
    script:
        "../../scripts/aggregate.py"


rule compare:
    input:
        summary="results/{experiment}/tables/summary.tsv",
        paper=config["paper_results"],
        extra=lambda wildcards: EXTRA_COMPARISONS.get(wildcards.experiment, []),
    output:
        tsv=report(
            "results/{experiment}/paper_vs_ours.tsv",
            caption="../report/paper_vs_ours.rst",
            category="{experiment}",
            subcategory="tables",
        ),
        md="results/{experiment}/paper_vs_ours.md",
    log:
        "logs/{experiment}/compare.log",
    benchmark:
        "logs/timings/{experiment}/compare.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        comparisons=lambda wildcards: EXPERIMENTS[wildcards.experiment].get(
            "comparisons", []
        ),
        skipped=lambda wildcards: skipped_datasets(wildcards.experiment),
    script:
        "../../scripts/compare.py"
