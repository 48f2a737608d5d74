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


# The reproduction summary (workflow/rules/reproduction.smk)
REPRODUCTION = config.get("reproduction", {})


def reproduction_tables(paper):
    """The paper_vs_ours.tsv files of one paper target, in its outputs' order."""
    return [p for p in paper_outputs(paper) if Path(p).name == "paper_vs_ours.tsv"]


def reproduction_causes(paper):
    """The cause file of a paper block (by its module key), or None when there is none."""
    path = (
        Path(workflow.basedir)
        / "config"
        / "reproduction"
        / f"{PAPERS[paper]['paper']}.yaml"
    )
    return str(path) if path.is_file() else None


def _check_reproduction():
    unknown = [
        p
        for p in REPRODUCTION.get("papers", []) + REPRODUCTION.get("target_papers", [])
        if p not in PAPERS
    ]
    if unknown:
        raise ValueError(
            f"reproduction: unknown paper(s) {', '.join(unknown)}; paper targets: "
            f"{', '.join(PAPERS)}"
        )


_check_reproduction()
