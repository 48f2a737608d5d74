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
    log:
        "logs/{experiment}/aggregate.log",
    benchmark:
        "benchmarks/{experiment}/aggregate.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        metrics=lambda wildcards: EXPERIMENTS[wildcards.experiment]["metrics"],
        skipped=lambda wildcards: skipped_datasets(wildcards.experiment),
    script:
        "../../scripts/aggregate.py"


rule figure:
    input:
        "results/{experiment}/tables/summary.tsv",
    output:
        report(
            "results/{experiment}/figures/{dataset}.png",
            caption="../report/figure.rst",
            category="{experiment}",
            subcategory="figures",
            labels={"dataset": "{dataset}"},
        ),
    log:
        "logs/{experiment}/figure/{dataset}.log",
    benchmark:
        "benchmarks/{experiment}/figure/{dataset}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        metrics=lambda wildcards: EXPERIMENTS[wildcards.experiment]["metrics"],
        title=lambda wildcards: f"{wildcards.experiment}: {wildcards.dataset}",
    script:
        "../../scripts/figure.py"


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
        "benchmarks/{experiment}/compare.tsv"
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
