# `snakemake --cores 2 reproduction`: every number and claim of the papers listed under
# `reproduction:` in config/config.yaml, reproduced, explained by a named and tested cause
# (config/reproduction/{paper}.yaml) or not, in results/reproduction.md and .tsv
# (fsclust.report.reproduction). It builds each paper's target first.
REPRODUCTION = config.get("reproduction", {})


def reproduction_tables(paper):
    """The paper_vs_ours.tsv files of one paper target, in its outputs' order."""
    return [p for p in paper_outputs(paper) if p.endswith("/paper_vs_ours.tsv")]


def reproduction_causes(paper):
    """The cause file of a paper block (by its module key), or None when there is none."""
    path = Path(workflow.basedir) / "config" / "reproduction" / f"{PAPERS[paper]['paper']}.yaml"
    return str(path) if path.is_file() else None


def _check_reproduction():
    unknown = [
        p for p in REPRODUCTION.get("papers", []) + REPRODUCTION.get("target_papers", [])
        if p not in PAPERS
    ]
    if unknown:
        raise ValueError(
            f"reproduction: unknown paper(s) {', '.join(unknown)}; paper targets: "
            f"{', '.join(PAPERS)}"
        )


_check_reproduction()


rule reproduction:
    input:
        tables=[t for p in REPRODUCTION.get("papers", []) for t in reproduction_tables(p)],
        causes=[
            c
            for c in map(reproduction_causes, REPRODUCTION.get("papers", []))
            if c is not None
        ],
    output:
        md="results/reproduction.md",
        tsv="results/reproduction.tsv",
    log:
        "logs/reproduction.log",
    params:
        tables={p: reproduction_tables(p) for p in REPRODUCTION.get("papers", [])},
        causes={p: reproduction_causes(p) for p in REPRODUCTION.get("papers", [])},
        target_papers=REPRODUCTION.get("target_papers", []),
        target_share=REPRODUCTION.get("target_share", 0.8),
        max_unexplained=REPRODUCTION.get("max_unexplained", 0.15),
    localrule: True
    conda:
        "../../envs/fsclust.yaml"
    script:
        "../../scripts/reproduction.py"
