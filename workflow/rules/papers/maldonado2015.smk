# Maldonado, Carrizosa & Weber 2015: the helpers of its rules
# (workflow/rules/paper_maldonado2015.smk).


def maldonado2015_settings(wildcards):
    """Everything fsclust.papers.maldonado2015.tables needs besides its named inputs: the
    paper block's settings and the explicit paths of the rankings and sidecars it reads.
    """
    bench, toy, table4 = (
        paper_experiment(wildcards.paper, role) for role in ("bench", "toy", "table4")
    )
    return {
        **paper_settings(wildcards),
        "toy_methods": EXPERIMENTS[toy]["methods"],
        "toy_rankings": [
            {
                "dataset": ds,
                "method": method,
                "seed": seed,
                "ranking": ranking_file(toy, ds, method, seed, "tsv"),
                "sidecar": ranking_file(toy, ds, method, seed, "json"),
            }
            for ds in exp_datasets(toy)
            for seed in EXPERIMENTS[toy]["seeds"]
            for method in EXPERIMENTS[toy]["methods"]
        ],
        "kp_params": EXPERIMENTS[bench]["methods"][MALDONADO2015_REFERENCE].get(
            "params", {}
        ),
        "kp_sidecars": [
            {
                "dataset": ds,
                "seed": seed,
                "sidecar": ranking_file(
                    bench, ds, MALDONADO2015_REFERENCE, seed, "json"
                ),
            }
            for ds in exp_datasets(bench)
            for seed in EXPERIMENTS[bench]["seeds"]
        ],
        "table4_dataset": EXPERIMENTS[table4]["datasets"][0],
        "table4_runs": [
            {
                "method": method,
                "lam": spec.get("params", {}).get("lam", 0.5),
                "gamma": spec.get("params", {}).get("gamma", 1.0),
                "gradient": spec.get("params", {}).get("gradient", "correct"),
                "seed": seed,
                "sidecar": ranking_file(table4, ds, method, seed, "json"),
            }
            for ds in exp_datasets(table4)
            for method, spec in EXPERIMENTS[table4]["methods"].items()
            for seed in EXPERIMENTS[table4]["seeds"]
        ],
        "substitutes": sorted(
            ds
            for ds in {
                *EXPERIMENTS[bench]["datasets"],
                *EXPERIMENTS[table4]["datasets"],
            }
            if CATALOG[ds].substitute
        ),
    }
