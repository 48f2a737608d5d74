# fsclust: unsupervised feature selection for clustering, reproduced end to end.
# Quick start: see README.md. Experiments are blocks of config/config.yaml.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/download.smk"
include: "workflow/rules/prepare.smk"
include: "workflow/rules/rank.smk"
include: "workflow/rules/sweep.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/experiments.smk"


rule all:
    input:
        all_outputs(),
    default_target: True
