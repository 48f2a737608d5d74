"""Tables, figures and the paper-versus-ours comparison built from sweep results."""

from fsclust.report.figures import plot_sweeps
from fsclust.report.paper import PAPER_VS_OURS_COLUMNS, paper_vs_ours
from fsclust.report.tables import (best_and_mean, collect_sweeps, summarise, to_markdown,
                                   write_tables)

__all__ = [
    "PAPER_VS_OURS_COLUMNS",
    "best_and_mean",
    "collect_sweeps",
    "paper_vs_ours",
    "plot_sweeps",
    "summarise",
    "to_markdown",
    "write_tables",
]
