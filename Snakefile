# fsclust: unsupervised feature selection for clustering, reproduced end to end.
# Quick start: see README.md. Experiments are blocks of config/config.yaml.
from glob import glob

from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


# Each paper's experiments live in a file of their own under config/experiments/.
for _path in sorted(glob("config/experiments/*.yaml")):

    configfile: _path


include: "workflow/rules/common.smk"
include: "workflow/rules/download.smk"
include: "workflow/rules/prepare.smk"
include: "workflow/rules/evaluate.smk"
include: "workflow/rules/report.smk"


# Paper-specific rules (tables and figures beyond the generic sweep); each registers its
# outputs in EXTRA_OUTPUTS[experiment] so that the experiment's target builds them.
for _path in sorted(glob(f"{workflow.basedir}/workflow/rules/papers/*.smk")):

    include: _path


include: "workflow/rules/experiments.smk"


rule all:
    default_target: True
    input:
        all_outputs(),
