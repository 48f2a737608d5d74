# The unit of scientific work: rank a dataset with a method for every seed (once, when the
# method has no random choice) and cluster the top-m features with every clusterer for every m
# of the sweep, in one process. An experiment's `grain` chooses the job: "method" (default; one
# job per dataset and method, one for the all-features baseline) or "dataset" (one job per
# dataset: all methods and the baseline, for sets where a method's work is shorter than Python's
# start-up). Rankings stay files of their own (rankings/{dataset}/{method}/seed{S}.tsv, .json)
# because users and later rules read them; a job's sweep results are one TSV.
mem_mb, runtime = exp_resources("evaluate", 2000, 120)


rule evaluate:
    input:
        unpack(evaluate_inputs),
    output:
        rankings=directory("results/{experiment}/rankings/{dataset}/{method}"),
        sweep="results/{experiment}/sweeps/{dataset}/{method}.tsv",
    log:
        "logs/{experiment}/evaluate/{dataset}/{method}.log",
    benchmark:
        "logs/timings/{experiment}/evaluate/{dataset}/{method}.tsv"
    wildcard_constraints:
        experiment=_experiments_pattern("method"),
        method=f"(?!{ALL_FEATURES}(?:[/.]|$))[A-Za-z0-9][A-Za-z0-9_.-]*",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=mem_mb,
        runtime=runtime,
    params:
        methods=lambda wildcards: {
            wildcards.method: EXPERIMENTS[wildcards.experiment]["methods"][
                wildcards.method
            ]
        },
        baseline=False,
        nested=False,
        seeds=lambda wildcards: EXPERIMENTS[wildcards.experiment]["seeds"],
        clusterers=lambda wildcards: EXPERIMENTS[wildcards.experiment]["clusterers"],
        grid=exp_grid,
        metrics=lambda wildcards: EXPERIMENTS[wildcards.experiment]["metrics"],
        class_draw=class_draw,
        references=method_references,
    script:
        "../../scripts/evaluate.py"


# The all-features baseline ("nofs"): every clusterer on every feature, for every seed. A
# small job: grouped with the dataset's preparation on a cluster.
rule evaluate_all_features:
    input:
        data="data/prepared/{dataset}.npz",
    output:
        sweep=f"results/{{experiment}}/sweeps/{{dataset}}/{ALL_FEATURES}.tsv",
    log:
        f"logs/{{experiment}}/evaluate/{{dataset}}/{ALL_FEATURES}.log",
    benchmark:
        f"logs/timings/{{experiment}}/evaluate/{{dataset}}/{ALL_FEATURES}.tsv"
    wildcard_constraints:
        experiment=_experiments_pattern("method"),
    group:
        "small"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=mem_mb,
        runtime=runtime,
    params:
        methods={},
        baseline=True,
        nested=False,
        seeds=lambda wildcards: EXPERIMENTS[wildcards.experiment]["seeds"],
        clusterers=lambda wildcards: EXPERIMENTS[wildcards.experiment]["clusterers"],
        grid=exp_grid,
        metrics=lambda wildcards: EXPERIMENTS[wildcards.experiment]["metrics"],
        class_draw=class_draw,
        references={},
    script:
        "../../scripts/evaluate.py"


# grain "dataset": every method of the experiment and the baseline in one job.
rule evaluate_dataset:
    input:
        data="data/prepared/{dataset}.npz",
    output:
        rankings=directory("results/{experiment}/rankings/{dataset}"),
        sweep="results/{experiment}/sweeps/{dataset}.tsv",
    log:
        "logs/{experiment}/evaluate/{dataset}.log",
    benchmark:
        "logs/timings/{experiment}/evaluate/{dataset}.tsv"
    wildcard_constraints:
        experiment=_experiments_pattern("dataset"),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=mem_mb,
        runtime=runtime,
    params:
        methods=lambda wildcards: EXPERIMENTS[wildcards.experiment]["methods"],
        baseline=lambda wildcards: EXPERIMENTS[wildcards.experiment].get(
            "all_features", True
        ),
        nested=True,
        seeds=lambda wildcards: EXPERIMENTS[wildcards.experiment]["seeds"],
        clusterers=lambda wildcards: EXPERIMENTS[wildcards.experiment]["clusterers"],
        grid=exp_grid,
        metrics=lambda wildcards: EXPERIMENTS[wildcards.experiment]["metrics"],
        class_draw=class_draw,
        references={},
    script:
        "../../scripts/evaluate.py"
