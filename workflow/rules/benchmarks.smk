# `snakemake --cores 1 benchmarks`: the benchmark suite (benchmarks/suite.py): every ranker and
# clusterer on synthetic sizes and on the mirrored TOX-171 and warpPIE10P, with peak memory,
# the fitted exponents of time against n and d, the ratio to each method's dominant dense
# kernel, and scikit-feature's Laplacian score, SPEC and MCFS beside ours (the [bench] extra).
# One BLAS thread; run it alone on the machine (--cores 1) for meaningful times. Quick smoke
# version: `snakemake --cores 1 benchmarks_quick`.


rule benchmarks:
    output:
        timings="results/benchmarks/suite_timings.tsv",
        exponents="results/benchmarks/suite_exponents.tsv",
        peers="results/benchmarks/suite_peers.tsv",
        plot_n="results/benchmarks/suite_loglog_n.png",
        plot_d="results/benchmarks/suite_loglog_d.png",
    log:
        "logs/benchmarks/suite.log",
    conda:
        "../../envs/fsclust.yaml"
    threads: 1
    params:
        suite=str(Path(workflow.basedir) / "benchmarks" / "suite.py"),
    shell:
        "python {params.suite} --out results/benchmarks > {log} 2>&1"


rule benchmarks_quick:
    output:
        timings="results/benchmarks-quick/suite_timings.tsv",
        exponents="results/benchmarks-quick/suite_exponents.tsv",
        plot_n="results/benchmarks-quick/suite_loglog_n.png",
    log:
        "logs/benchmarks/suite-quick.log",
    conda:
        "../../envs/fsclust.yaml"
    threads: 1
    params:
        suite=str(Path(workflow.basedir) / "benchmarks" / "suite.py"),
    shell:
        "python {params.suite} --quick --out results/benchmarks-quick > {log} 2>&1"
