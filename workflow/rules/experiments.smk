# One target rule per experiment: `snakemake --cores 2 quick` runs (or reruns) that experiment.
for _name in EXPERIMENTS:

    rule:
        name:
            _name
        input:
            experiment_outputs(_name),
        localrule: True
        default_target: False
