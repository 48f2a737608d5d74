# One target rule per experiment: `snakemake --cores 2 quick` runs (or reruns) that experiment.
for _name in EXPERIMENTS:

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
