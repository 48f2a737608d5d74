"""Rule benchmark_report: the cross-dataset benchmark's report (issue 27) from its two tables:
results/{experiment}/summary.md, tables/*.tsv and figures/*.png."""
from pathlib import Path

import _srcpath  # noqa: F401  (src/ on sys.path when fsclust is not installed)
import pandas as pd
from fsclust import steps
from fsclust.studies.benchmark.report import write_benchmark_report

with steps.logged(snakemake.log[0], snakemake.threads):
    scores = pd.read_csv(snakemake.input.scores, sep="\t", dtype={"m_rule": str, "k_rule": str})
    costs = pd.read_csv(snakemake.input.costs, sep="\t", keep_default_na=False,
                        na_values={"seconds": [""], "max_rss_mb": [""]})
    out_dir = Path(snakemake.output.summary).parent
    write_benchmark_report(scores, costs, out_dir, metrics=tuple(snakemake.params.metrics),
                           diagrams=snakemake.params.diagrams)
