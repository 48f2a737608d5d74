# Helper functions of workflow/rules/papers/maldonado2015.smk (included before it: the paper
# rule files are included in sorted order).


def m15_paper(wildcards):
    return EXPERIMENTS[wildcards.experiment]["paper"]


def m15_kp_sidecar(experiment, dataset, seed):
    """The KP-Kmeans sidecar that fixes n: toy sets have their own rankings."""
    if dataset in EXPERIMENTS[experiment]["paper"]["toy_datasets"]:
        return f"results/{experiment}/toy/{dataset}/kpkmeans/seed{seed}.json"
    return f"results/{experiment}/rankings/{dataset}/kpkmeans/seed{seed}.json"


def m15_table4_runs(experiment):
    """(lambda exponent, gamma exponent) pairs: the paper's two sweeps or the full grid."""
    t4 = EXPERIMENTS[experiment]["paper"]["table4"]
    exps = t4["exponents"]
    if t4.get("grid", "sweeps") == "full":
        return [(a, b) for a in exps for b in exps]
    pairs = [(a, t4["gamma_fixed"]) for a in exps] + [
        (t4["lambda_fixed"], b) for b in exps
    ]
    return list(dict.fromkeys(pairs))


def m15_inputs(wildcards):
    exp = wildcards.experiment
    paper = EXPERIMENTS[exp]["paper"]
    seeds = EXPERIMENTS[exp]["seeds"]
    toy = paper["toy_datasets"]
    bench = exp_datasets(exp)
    t4 = paper["table4"]["dataset"]
    return {
        "toy": [
            f"results/{exp}/toy/{ds}/{m}/seed{s}.{ext}"
            for ds in toy
            for m in paper["toy_methods"]
            for s in seeds
            for ext in ("tsv", "json")
        ]
        + [f"results/{exp}/mcfs_at_n/{ds}/seed{s}.tsv" for ds in toy for s in seeds],
        "bench": [m15_kp_sidecar(exp, ds, s) for ds in bench for s in seeds]
        + [
            f"results/{exp}/at_n/{ds}/{m}/seed{s}.tsv"
            for ds in bench
            for m in ("pca", "gha", "spec", "mcfs")
            for s in seeds
        ],
        "table4": (
            [
                f"results/{exp}/table4/lam{a}_gamma{b}/seed{s}.json"
                for a, b in m15_table4_runs(exp)
                for s in seeds
            ]
            if t4 in bench
            else []
        ),
        "paper": config["paper_results"],
        "sheet": config["datasets_sheet"],
    }


wildcard_constraints:
    lam=r"-?\d+",
    gamma=r"-?\d+",
