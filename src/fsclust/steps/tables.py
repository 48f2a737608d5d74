"""The experiment's tables and figures: every sweep row, the summary over seeds, the best and
mean over the sweep, one figure per dataset, and the paper-versus-ours comparison."""

from __future__ import annotations

import pandas as pd

from fsclust._io import atomic_dir, write_table_atomic


def aggregate(sweep_paths, metrics, out, skipped=None, figures_dir=None, datasets=(),
              experiment=None):
    """Write all sweep rows, the per-m summary over seeds and the best/mean table; with
    ``figures_dir``, one figure per dataset of ``datasets`` (``{dataset}.png``) as well.

    ``skipped`` maps a dataset the experiment lists but could not get to the reason; the
    Markdown table says so, so a gap is never silent. Figures are drawn in a temporary
    directory renamed into place, so a killed job leaves no partial set."""
    from fsclust.report import best_and_mean, collect_sweeps, summarise, write_tables

    sweeps = collect_sweeps(sweep_paths)
    summary = summarise(sweeps, metrics)
    best = best_and_mean(summary)
    write_table_atomic(sweeps, out["sweeps"], float_format="%.10g")
    write_table_atomic(summary, out["summary"], float_format="%.10g")
    note = ("Mean over seeds. best_mean: the best mean over the sweep, at best_n_features "
            "(an oracle choice of m, made with the labels); sweep_mean: mean over the sweep; "
            "all_features_mean: the clusterer on all features (nofs).")
    for dataset, reason in sorted((skipped or {}).items()):
        note += f"\n\n**Skipped dataset {dataset}**: {reason}"
    write_tables(best, out["best"], out["best_md"], title="Best and mean over the sweep",
                 note=note, float_format="%.10g")
    if figures_dir is not None:
        from fsclust.report import plot_sweeps

        with atomic_dir(figures_dir) as folder:
            for dataset in datasets:
                title = f"{experiment}: {dataset}" if experiment else dataset
                plot_sweeps(summary, dataset, metrics, folder / f"{dataset}.png", title=title)


def compare(summary_path, paper_results_path, comparisons, out_path, out_md=None, skipped=None,
            extra=()):
    """Write ``paper_vs_ours.tsv`` (and a Markdown copy) for an experiment: the rows the config's
    ``comparisons`` select, then the rows of ``extra`` tables made by a paper's own rules."""
    from fsclust.report import paper_vs_ours, write_tables
    from fsclust.report.paper import PAPER_VS_OURS_COLUMNS, read_paper_results

    summary = pd.read_csv(summary_path, sep="\t")
    table = paper_vs_ours(read_paper_results(paper_results_path), comparisons, summary)
    for path in extra:
        rows = pd.read_csv(path, sep="\t")
        if list(rows.columns) != PAPER_VS_OURS_COLUMNS:
            raise ValueError(f"{path}: columns {list(rows.columns)} are not those of "
                             f"paper_vs_ours.tsv ({PAPER_VS_OURS_COLUMNS})")
        table = pd.concat([table, rows], ignore_index=True) if len(table) else rows
    for dataset, reason in (skipped or {}).items():
        hit = [c.get("ours", {}).get("dataset") == dataset for c in comparisons]
        table.loc[hit, "note"] = (table.loc[hit, "note"] + f"; skipped: {reason}").str.strip("; ")
    note = ("This experiment compares against no paper." if table.empty else
            "diff = ours - paper; differing numbers are shown, never tuned away.")
    write_tables(table, out_path, out_md or None, title="Paper vs ours", note=note)
