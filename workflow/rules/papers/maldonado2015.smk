# Maldonado, Carrizosa & Weber 2015 (seed 002): Tables 1, 3, 4, Figure 2 and paper_vs_ours.tsv
# (config/experiments/maldonado2015.yaml). The generic rules rank the nine benchmark sets and
# sweep kernel k-means over the number of features; the rules below add the unlabelled toy
# sets, the evaluation at the n KP-Kmeans selects, and the lambda/gamma runs on MLL.
MALDONADO2015 = [name for name in EXPERIMENTS if name.split("-")[0] == "maldonado2015"]
# ENV is relative to workflow/rules/; rule paths resolve from this file's directory
MALDONADO2015_ENV = "../../../envs/fsclust.yaml"


# Table 1 rankings: the unlabelled toy sets with the paper's toy settings.
rule maldonado2015_toy_rank:
    input:
        data="data/prepared/{dataset}.npz",
    output:
        ranking="results/{experiment}/toy/{dataset}/{method}/seed{seed}.tsv",
        info="results/{experiment}/toy/{dataset}/{method}/seed{seed}.json",
    log:
        "logs/{experiment}/toy/{dataset}/{method}/seed{seed}.log",
    benchmark:
        "benchmarks/{experiment}/toy/{dataset}/{method}/seed{seed}.tsv"
    wildcard_constraints:
        experiment="maldonado2015[A-Za-z0-9_.-]*",
    conda:
        MALDONADO2015_ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        spec=lambda wildcards: m15_paper(wildcards)["toy_methods"][wildcards.method],
        metrics=lambda wildcards: EXPERIMENTS[wildcards.experiment]["metrics"],
    script:
        "../../../scripts/maldonado2015_rank.py"


# MCFS with lasso cardinality n = the number of features KP-Kmeans selected (spec Appendix A).
rule maldonado2015_mcfs_at_n:
    input:
        data="data/prepared/{dataset}.npz",
        kpkmeans=lambda wildcards: m15_kp_sidecar(
            wildcards.experiment, wildcards.dataset, wildcards.seed
        ),
    output:
        ranking="results/{experiment}/mcfs_at_n/{dataset}/seed{seed}.tsv",
        info="results/{experiment}/mcfs_at_n/{dataset}/seed{seed}.json",
    log:
        "logs/{experiment}/mcfs_at_n/{dataset}/seed{seed}.log",
    benchmark:
        "benchmarks/{experiment}/mcfs_at_n/{dataset}/seed{seed}.tsv"
    wildcard_constraints:
        experiment="maldonado2015[A-Za-z0-9_.-]*",
    conda:
        MALDONADO2015_ENV
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        params=lambda wildcards: m15_paper(wildcards).get("mcfs_params", {}),
        metrics=lambda wildcards: EXPERIMENTS[wildcards.experiment]["metrics"],
    script:
        "../../../scripts/maldonado2015_mcfs_at_n.py"


# Table 3: kernel k-means (the experiment's clusterer) on each filter's top-n features.
rule maldonado2015_at_n:
    input:
        data="data/prepared/{dataset}.npz",
        ranking=lambda wildcards: (
            f"results/{wildcards.experiment}/mcfs_at_n/{wildcards.dataset}/seed{wildcards.seed}.tsv"
            if wildcards.method == "mcfs"
            else f"results/{wildcards.experiment}/rankings/{wildcards.dataset}/{wildcards.method}/seed{wildcards.seed}.tsv"
        ),
        kpkmeans="results/{experiment}/rankings/{dataset}/kpkmeans/seed{seed}.json",
    output:
        "results/{experiment}/at_n/{dataset}/{method}/seed{seed}.tsv",
    log:
        "logs/{experiment}/at_n/{dataset}/{method}/seed{seed}.log",
    benchmark:
        "benchmarks/{experiment}/at_n/{dataset}/{method}/seed{seed}.tsv"
    wildcard_constraints:
        experiment="maldonado2015[A-Za-z0-9_.-]*",
    conda:
        MALDONADO2015_ENV
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        spec=lambda wildcards: EXPERIMENTS[wildcards.experiment]["clusterers"][
            "kernel_kmeans"
        ],
        metrics=lambda wildcards: EXPERIMENTS[wildcards.experiment]["metrics"],
    script:
        "../../../scripts/maldonado2015_at_n.py"


# Table 4: KP-Kmeans on MLL for one (lambda, gamma) = (2^lam, 2^gamma).
rule maldonado2015_table4_run:
    input:
        data=lambda wildcards: f"data/prepared/{m15_paper(wildcards)['table4']['dataset']}.npz",
    output:
        ranking="results/{experiment}/table4/lam{lam}_gamma{gamma}/seed{seed}.tsv",
        info="results/{experiment}/table4/lam{lam}_gamma{gamma}/seed{seed}.json",
    log:
        "logs/{experiment}/table4/lam{lam}_gamma{gamma}/seed{seed}.log",
    benchmark:
        "benchmarks/{experiment}/table4/lam{lam}_gamma{gamma}/seed{seed}.tsv"
    wildcard_constraints:
        experiment="maldonado2015[A-Za-z0-9_.-]*",
    conda:
        MALDONADO2015_ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        dataset=lambda wildcards: m15_paper(wildcards)["table4"]["dataset"],
        spec=lambda wildcards: EXPERIMENTS[wildcards.experiment]["methods"]["kpkmeans"],
        metrics=lambda wildcards: EXPERIMENTS[wildcards.experiment]["metrics"],
    script:
        "../../../scripts/maldonado2015_table4_run.py"


# Tables 1, 3, 4 and their comparison with the paper (every number of the three tables, in the
# columns of paper_vs_ours.tsv; the generic compare rule appends it to paper_vs_ours.tsv).
rule maldonado2015_tables:
    input:
        unpack(m15_inputs),
    output:
        table1=report(
            "results/{experiment}/tables/table1.md",
            caption="../../report/maldonado2015_table1.rst",
            category="{experiment}",
            subcategory="tables",
        ),
        table1_tsv="results/{experiment}/tables/table1.tsv",
        table3=report(
            "results/{experiment}/tables/table3.md",
            caption="../../report/maldonado2015_table3.rst",
            category="{experiment}",
            subcategory="tables",
        ),
        table3_tsv="results/{experiment}/tables/table3.tsv",
        table4=report(
            "results/{experiment}/tables/table4.md",
            caption="../../report/maldonado2015_table4.rst",
            category="{experiment}",
            subcategory="tables",
        ),
        table4_tsv="results/{experiment}/tables/table4.tsv",
        paper_vs_ours="results/{experiment}/tables/tables_vs_paper.tsv",
        paper_vs_ours_md="results/{experiment}/tables/tables_vs_paper.md",
    log:
        "logs/{experiment}/maldonado2015_tables.log",
    benchmark:
        "benchmarks/{experiment}/maldonado2015_tables.tsv"
    wildcard_constraints:
        experiment="maldonado2015[A-Za-z0-9_.-]*",
    conda:
        MALDONADO2015_ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        results=lambda wildcards: f"results/{wildcards.experiment}",
        paper=m15_paper,
        seeds=lambda wildcards: EXPERIMENTS[wildcards.experiment]["seeds"],
        datasets=lambda wildcards: exp_datasets(wildcards.experiment),
        table4_runs=lambda wildcards: m15_table4_runs(wildcards.experiment),
        params=lambda wildcards: EXPERIMENTS[wildcards.experiment]["methods"][
            "kpkmeans"
        ].get("params", {}),
    script:
        "../../../scripts/maldonado2015_tables.py"


rule maldonado2015_figure2:
    input:
        summary="results/{experiment}/tables/summary.tsv",
        sidecars=lambda wildcards: [
            f"results/{wildcards.experiment}/rankings/{m15_paper(wildcards)['figure2_dataset']}/kpkmeans/seed{s}.json"
            for s in EXPERIMENTS[wildcards.experiment]["seeds"]
        ],
    output:
        report(
            "results/{experiment}/figure2_lung.png",
            caption="../../report/maldonado2015_figure2.rst",
            category="{experiment}",
            subcategory="figures",
        ),
    log:
        "logs/{experiment}/maldonado2015_figure2.log",
    benchmark:
        "benchmarks/{experiment}/maldonado2015_figure2.tsv"
    wildcard_constraints:
        experiment="maldonado2015[A-Za-z0-9_.-]*",
    conda:
        MALDONADO2015_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        dataset=lambda wildcards: m15_paper(wildcards)["figure2_dataset"],
    script:
        "../../../scripts/maldonado2015_figure2.py"


for _exp in MALDONADO2015:
    EXTRA_OUTPUTS[_exp] = [
        f"results/{_exp}/tables/table1.md",
        f"results/{_exp}/tables/table3.md",
        f"results/{_exp}/tables/table4.md",
        f"results/{_exp}/figure2_lung.png",
    ]
    EXTRA_COMPARISONS[_exp] = [f"results/{_exp}/tables/tables_vs_paper.tsv"]
