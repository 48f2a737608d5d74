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


# Zeng & Cheung 2008 (paper_zeng2008.smk): the roles of the experiments of its curves
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


# Maldonado et al. 2015 (paper_maldonado2015.smk)
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
