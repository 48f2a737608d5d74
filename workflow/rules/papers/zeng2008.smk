# Zeng & Cheung 2008: the helpers of its rules (workflow/rules/paper_zeng2008.smk).


# the roles of the experiments of its curves
ZENG2008_CURVES = ("pie", "genes")


def zeng2008_sidecars(wildcards):
    """The kernel weighting's rank sidecars: its iterations and "integrated" clustering."""
    block = PAPERS[wildcards.paper]
    return [
        ranking_file(exp, ds, block["weighting"], seed, "json")
        for exp in (block["experiments"][role] for role in ZENG2008_CURVES)
        for ds in exp_datasets(exp)
        for seed in EXPERIMENTS[exp]["seeds"]
    ]
