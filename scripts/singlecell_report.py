"""Rule singlecell_report: the single-cell benchmark's summary.md, tables/ and figures/
(fsclust.studies.singlecell.report)."""
from pathlib import Path

import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
import pandas as pd
from fsclust import steps
from fsclust.studies.singlecell.report import write_singlecell_report

with steps.logged(snakemake.log[0], snakemake.threads):
    scores = pd.read_csv(snakemake.input.scores, sep="\t", dtype={"m_rule": str})
    costs = pd.read_csv(snakemake.input.costs, sep="\t", keep_default_na=False,
                        na_values={"seconds": [""], "max_rss_mb": [""]})
    write_singlecell_report(scores, costs, Path(snakemake.output.summary).parent,
                            notes=snakemake.params.notes)
