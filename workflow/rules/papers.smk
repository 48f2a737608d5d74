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


def paper_datasets(paper, key, role="main"):
    """The datasets the paper block lists under ``key``, in its order, restricted to those its
    experiment ``role`` can get (exp_datasets)."""
    available = exp_datasets(paper_experiment(paper, role))
    return [ds for ds in PAPERS[paper][key] if ds in available]


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


# --- used by the zeng2008, zeng2009 and zhang2012 rules
def main_experiment(paper):
    """The experiment of role `main` of paper target ``paper``."""
    return paper_experiment(paper, "main")


def first_clusterer(experiment):
    """``{key, method, params}`` of the experiment's first clusterer (its evaluation one)."""
    key, spec = next(iter(EXPERIMENTS[experiment]["clusterers"].items()))
    return {"key": key, **spec}


def run_files(experiment, datasets, method, ext):
    """``{dataset: {seed: file}}``: one ranking file (ext tsv, json or npz) of ``method`` per
    dataset and run of the experiment."""
    return {
        ds: {
            seed: ranking_file(experiment, ds, method, seed, ext)
            for seed in EXPERIMENTS[experiment]["seeds"]
        }
        for ds in datasets
    }
