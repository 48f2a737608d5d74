# What every paper's rules share. A paper is a block under `papers:` of the config (its
# experiments by role, and its own settings, validated by workflow/schemas/papers/); its rules
# live in workflow/rules/paper_{paper}.smk and only tabulate and plot, each calling
# fsclust.papers.{paper}.{step}(inputs, outputs, **settings) through scripts/paper.py.

# paper target -> its own output files (tables, figures, paper_vs_ours), filled by each
# paper's rule file; the target rule of a paper builds them and its experiments' outputs.
PAPER_OUTPUTS = {}
PAPER_SCRIPT = "../../scripts/paper.py"


def paper_settings(wildcards):
    """The paper block's own settings (everything but `paper` and `experiments`)."""
    block = PAPERS[wildcards.paper]
    return {
        k: v
        for k, v in block.items()
        if k not in ("paper", "experiments", "description")
    }


def paper_outputs(paper):
    block = PAPERS[paper]
    return [
        *(
            path
            for experiment in dict.fromkeys(block["experiments"].values())
            for path in experiment_outputs(experiment)
        ),
        *PAPER_OUTPUTS.get(paper, []),
    ]


# Zeng & Cheung 2008 (paper_zeng2008.smk)
def zeng2008_sidecars(wildcards):
    """The kernel weighting's rank sidecars: its iterations and "integrated" clustering."""
    block = PAPERS[wildcards.paper]
    return [
        ranking_file(exp, ds, block["weighting"], seed, "json")
        for exp in block["experiments"].values()
        for ds in exp_datasets(exp)
        for seed in EXPERIMENTS[exp]["seeds"]
    ]
