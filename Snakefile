# fsclust: unsupervised feature selection for clustering, reproduced end to end.
# Quick start: see README.md. Experiments are blocks of config/config.yaml and of one file per
# paper under config/experiments/.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"
# Each paper's experiments and paper block live in a file of their own.
configfile: "config/experiments/zeng2008.yaml"
configfile: "config/experiments/maldonado2015.yaml"
configfile: "config/experiments/zhang2012.yaml"
configfile: "config/experiments/zeng2009.yaml"
configfile: "config/experiments/jiang2011.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/download.smk"
include: "workflow/rules/prepare.smk"
include: "workflow/rules/evaluate.smk"
include: "workflow/rules/report.smk"
# Paper-specific rules: tables and figures from what the generic steps wrote, and one target
# rule per paper block of the config (e.g. `snakemake --cores 2 zeng2008`).
include: "workflow/rules/papers.smk"
include: "workflow/rules/paper_zeng2008.smk"
include: "workflow/rules/paper_maldonado2015.smk"
include: "workflow/rules/paper_zhang2012.smk"
include: "workflow/rules/paper_zeng2009.smk"
include: "workflow/rules/paper_jiang2011.smk"
include: "workflow/rules/provenance.smk"
include: "workflow/rules/experiments.smk"


rule all:
    default_target: True
    input:
        all_outputs(),
