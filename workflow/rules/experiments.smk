# Tables, figures, comparisons and provenance take seconds and read many small files: under a
# cluster executor they run on the submitting host, like the downloads (download.smk); each
# paper's rules file lists its own. Snakemake submits a rule of a `group:` even when it is
# listed here, so none of them is in a group.
localrules:
    aggregate,
    compare,
    provenance,
    reproduction,


# One target rule per experiment: `snakemake --cores 2 quick` runs (or reruns) that experiment.
# A paper target of the same name (workflow/rules/papers/) builds the experiment's outputs too.
for _name in EXPERIMENTS:
    if _name in PAPERS:
        continue

    rule:
        name:
            _name
        default_target: False
        input:
            experiment_outputs(_name),
        localrule: True


# `snakemake --cores 2 datasets [--config mirror=DIR]`: download and prepare every dataset of
# the sheet that can be had here (offline: those in the mirror; the others are named).
rule datasets:
    default_target: False
    input:
        lambda wildcards: all_prepared(),
    localrule: True


# One target rule per paper block: `snakemake --cores 2 zeng2008` builds the paper's
# experiments and its own tables and figures.
for _name in PAPERS:

    rule:
        name:
            _name
        default_target: False
        input:
            paper_outputs(_name),
        localrule: True
