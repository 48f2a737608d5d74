# fsclust: unsupervised feature selection for clustering, reproduced end to end.
# Quick start: see README.md. Experiments are blocks of config/config.yaml and of one file per
# paper under config/experiments/.
from pathlib import Path

from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


# Each paper's experiments and paper block live in a file of their own. They are merged here
# rather than with more `configfile:` lines, each of which would print "Config file ... is
# extended by additional config specified via the command line" on every call; the command
# line (--config, --configfile) still wins, applied last as Snakemake does.
from snakemake.common.configfile import load_configfile
from snakemake.utils import update_config

for _paper_config in [
    "config/experiments/zeng2008.yaml",
    "config/experiments/maldonado2015.yaml",
    "config/experiments/zhang2012.yaml",
    "config/experiments/zeng2009.yaml",
    "config/experiments/jiang2011.yaml",
]:
    update_config(config, load_configfile(str(Path(workflow.basedir) / _paper_config)))
update_config(config, workflow.config_settings.overwrite_config or {})


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
include: "workflow/rules/reproduction.smk"
include: "workflow/rules/benchmarks.smk"
include: "workflow/rules/experiments.smk"


rule all:
    default_target: True
    input:
        all_outputs(),
