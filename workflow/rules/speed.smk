# `snakemake --cores 1 speed`: the benchmark suite (speed/suite.py): every ranker and
# clusterer on synthetic sizes and on the mirrored TOX-171 and warpPIE10P, with peak memory,
# the fitted exponents of time against n and d, the ratio to each method's dominant dense
# kernel, and scikit-feature's Laplacian score, SPEC and MCFS beside ours (the [bench] extra).
# One BLAS thread; run it alone on the machine (--cores 1) for meaningful times. Quick smoke
# version: `snakemake --cores 1 speed_quick`.


rule speed:
    output:
        timings="results/speed/suite_timings.tsv",
        exponents="results/speed/suite_exponents.tsv",
        peers="results/speed/suite_peers.tsv",
        plot_n="results/speed/suite_loglog_n.png",
        plot_d="results/speed/suite_loglog_d.png",
    log:
        "logs/timings/suite.log",
    conda:
        "../../envs/fsclust.yaml"
    threads: 1
    params:
        suite=str(Path(workflow.basedir) / "speed" / "suite.py"),
    shell:
        "python {params.suite} --out results/speed > {log} 2>&1"


rule speed_quick:
    output:
        timings="results/speed-quick/suite_timings.tsv",
        exponents="results/speed-quick/suite_exponents.tsv",
        plot_n="results/speed-quick/suite_loglog_n.png",
    log:
        "logs/timings/suite-quick.log",
    conda:
        "../../envs/fsclust.yaml"
    threads: 1
    params:
        suite=str(Path(workflow.basedir) / "speed" / "suite.py"),
    shell:
        "python {params.suite} --quick --out results/speed-quick > {log} 2>&1"
