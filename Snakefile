# fsclust: unsupervised feature selection for clustering, reproduced end to end.
# Quick start: see README.md. Experiments are blocks of config/config.yaml and of one file per
# paper under config/experiments/.
from pathlib import Path

from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


# The first page of `snakemake --report`: what the reader is looking at.
report: "workflow/report/workflow.rst"


# Each paper's experiments and paper block live in a file of their own, config/experiments/
# {paper}.yaml, merged here in name order rather than with more `configfile:` lines, each of
# which would print "Config file ... is extended by additional config specified via the command
# line" on every call; the command line (--config, --configfile) still wins, applied last as
# Snakemake does.
from snakemake.common.configfile import load_configfile
from snakemake.utils import update_config

for _paper_config in sorted(
    Path(workflow.basedir, "config/experiments").glob("*.yaml")
):
    update_config(config, load_configfile(str(_paper_config)))
update_config(config, workflow.config_settings.overwrite_config or {})


include: "workflow/rules/common.smk"
# checked early: a bad `chunked:` block fails before the benchmarks' checks
include: "workflow/rules/chunked_common.smk"
include: "workflow/rules/chunked.smk"
include: "workflow/rules/download.smk"
include: "workflow/rules/prepare.smk"
include: "workflow/rules/evaluate.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/papers.smk"


# A paper's own helpers, workflow/rules/papers/{paper}.smk, then its rules (below).
for _paper_helpers in sorted(
    Path(workflow.basedir, "workflow/rules/papers").glob("*.smk")
):

    include: str(_paper_helpers)


# A paper's own rules, workflow/rules/paper_{paper}.smk (found here, named nowhere), only
# tabulate and plot what the generic steps wrote; experiments.smk makes one target rule per
# paper block of the config (`snakemake --cores 2 {paper}`).
for _paper_rules in sorted(
    Path(workflow.basedir, "workflow/rules").glob("paper_*.smk")
):

    include: str(_paper_rules)


include: "workflow/rules/provenance.smk"
include: "workflow/rules/reproduction.smk"
include: "workflow/rules/speed.smk"
include: "workflow/rules/benchmark.smk"
include: "workflow/rules/experiments.smk"
include: "workflow/rules/selection_common.smk"
include: "workflow/rules/selection.smk"
include: "workflow/rules/singlecell_common.smk"
include: "workflow/rules/singlecell.smk"


rule all:
    default_target: True
    input:
        all_outputs(),
