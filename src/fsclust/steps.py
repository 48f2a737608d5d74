"""One function per workflow step, called by the thin scripts under ``scripts/``.

Each step reads its inputs, calls the package, and writes its outputs atomically, so a killed
job leaves no half-written file and a rerun resumes from what is complete.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from fsclust._io import write_table_atomic, write_text_atomic
from fsclust.seeds import derive_seed

log = logging.getLogger("fsclust")


@contextlib.contextmanager
def logged(log_path):
    """Send logging and stderr of a step to ``log_path``; log the exception if the step fails."""
    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w") as handle:
        old_stderr = sys.stderr
        sys.stderr = handle
        logging.basicConfig(stream=handle, level=logging.INFO, force=True,
                            format="%(asctime)s %(levelname)s %(message)s")
        try:
            yield log
        except BaseException:
            log.exception("step failed")
            raise
        finally:
            sys.stderr = old_stderr


def download(entry_id, sheet, out_path, mirror=None):
    """Fetch dataset ``entry_id``'s file (pinned URL or mirror), verify its checksum."""
    from fsclust.datasets import fetch, get_entry, load_catalog

    entry = get_entry(load_catalog(sheet), entry_id)
    log.info("fetching %s (%s) from %s", out_path, entry.id, mirror or "its pinned URL")
    fetch(entry, out_path, mirror=mirror)
    log.info("verified %s (%s %s)", out_path, entry.checksum_type, entry.checksum)


def prepare(dataset, sheet, out_path, raw_path=None):
    """Load and preprocess ``dataset`` (from one file or a list, in the entry's file order)
    into the standard ``.npz`` file."""
    from fsclust.datasets import get_entry, load_catalog, prepare as prepare_entry, save_dataset

    entry = get_entry(load_catalog(sheet), dataset)
    ds = prepare_entry(entry, raw_path)
    log.info("%s: %d samples x %d features, %s classes", dataset, ds.X.shape[0], ds.X.shape[1],
             ds.n_classes if ds.y is not None else "no")
    save_dataset(ds, out_path)


def load_view(data_path, dataset, seed, class_draw=None):
    """The prepared dataset as one repeat sees it: all of it, or ``class_draw`` classes drawn
    with the repeat's seed (the same draw for every method and clusterer of that repeat)."""
    from fsclust.datasets import draw_classes, load_dataset

    ds = load_dataset(data_path)
    if class_draw:
        ds = draw_classes(ds, class_draw, derive_seed(seed, dataset, "class_draw"))
        log.info("%s seed %d: drew classes %s", dataset, seed, ", ".join(ds.class_names))
    return ds


# Fitted attributes a method may expose beyond scores_/ranking_, kept in the ranking's sidecar
# JSON: iteration counts, objective histories, the number of features a method selects itself
# (n_features_selected_), and its own clustering (labels_, evaluated against the classes).
SIDECAR_ATTRIBUTES = ("n_iter_", "objective_history_", "n_features_selected_", "t_",
                      "selected_features_", "accuracy_path_", "n_features_path_")


def _jsonable(value):
    value = np.asarray(value)
    return value.item() if value.ndim == 0 else value.tolist()


def rank_sidecar(ranker, ds, *, dataset, method, seed, random_state, seconds, metrics):
    """What a ranking run reports besides the ranking (see ``SIDECAR_ATTRIBUTES``)."""
    from fsclust.metrics import evaluate

    info = {"dataset": dataset, "method": method, "seed": seed, "random_state": random_state,
            "seconds": round(seconds, 3), "n_samples": int(ds.X.shape[0]),
            "n_features": int(ds.X.shape[1]),
            "classes": list(ds.class_names) if ds.class_names else None}
    for name in SIDECAR_ATTRIBUTES:
        if hasattr(ranker, name):
            info[name.rstrip("_")] = _jsonable(getattr(ranker, name))
    if hasattr(ranker, "labels_") and ds.y is not None:
        info["labels_metrics"] = evaluate(ds.y, ranker.labels_, metrics)
    if hasattr(ranker, "labels_path_") and ds.y is not None:
        # a method that re-clusters as it drops features (KP-Kmeans): its own partition at
        # each size, evaluated here, so the method itself never sees the labels
        info["path_metrics"] = [evaluate(ds.y, labels, metrics) for labels in ranker.labels_path_]
    return info


def _resolve_dataset_params(params, ds, dataset):
    """Parameters that name a property of the dataset: ``init_features: relevant`` becomes the
    dataset's recorded relevant features (the toy sets' two coordinates)."""
    params = dict(params or {})
    if params.get("init_features") == "relevant":
        if ds.relevant_features is None:
            raise ValueError(f"init_features: relevant, but dataset {dataset!r} records no "
                             "relevant features; give column indices or drop the parameter")
        params["init_features"] = [int(j) for j in ds.relevant_features]
    return params


def rank(data_path, out_path, *, dataset, method, spec, seed, class_draw=None, sidecar_path=None,
         metrics=("acc", "nmi", "ari")):
    """Rank the features of a prepared dataset with one method and one seed.

    Writes the ranking TSV and, if ``sidecar_path`` is given, a JSON of what else the method
    reports (iterations, objective, its own clustering's ACC/NMI/ARI, timing)."""
    from fsclust.ranking import rank_features, ranking_table, write_ranking

    ds = load_view(data_path, dataset, seed, class_draw)
    # unlabelled sets (the Zelnik-Manor & Perona toys) carry their number of clusters
    n_clusters = ds.n_classes if ds.y is not None else ds.provenance.get("n_clusters")
    random_state = derive_seed(seed, dataset, method)
    start = time.perf_counter()
    params = _resolve_dataset_params(spec.get("params"), ds, dataset)
    ranker = rank_features(ds.X, spec["method"], params, n_clusters=n_clusters,
                           random_state=random_state)
    seconds = time.perf_counter() - start
    log.info("%s on %s (seed %d -> random_state %d): %.2f s", method, dataset, seed,
             random_state, seconds)
    write_ranking(ranking_table(ranker, ds.feature_names, with_index=True), out_path)
    if sidecar_path is not None:
        info = rank_sidecar(ranker, ds, dataset=dataset, method=method, seed=seed,
                            random_state=random_state, seconds=seconds, metrics=metrics)
        write_text_atomic(sidecar_path, json.dumps(info, indent=1) + "\n")


def sweep(data_path, out_path, *, dataset, method, clusterer, spec, grid_spec, seed, metrics,
          ranking_path=None, class_draw=None):
    """Cluster on the top-m features of a ranking (or on all features) for every m; evaluate."""
    from fsclust.ranking import read_ranking
    from fsclust.sweep import resolve_grid, run_sweep

    ds = load_view(data_path, dataset, seed, class_draw)
    if ds.y is None:
        raise ValueError(f"dataset {dataset!r} has no class labels: it cannot be evaluated by a sweep")
    d = ds.X.shape[1]
    if ranking_path is None:  # the all-features baseline ("nofs")
        ranking, grid = np.arange(d), [d]
    else:
        ranking, grid = read_ranking(ranking_path)["index"].to_numpy(), resolve_grid(grid_spec, d)
    # Same clusterer seed for every method: curves of different methods are paired.
    random_state = derive_seed(seed, dataset, clusterer)
    start = time.perf_counter()
    result = run_sweep(ds.X, ds.y, ranking, grid, spec["method"], spec.get("params"),
                       n_clusters=ds.n_classes, random_state=random_state, metrics=metrics)
    log.info("%s / %s / %s seed %d: %d points in %.2f s", dataset, method, clusterer, seed,
             len(grid), time.perf_counter() - start)
    result.insert(0, "seed", seed)
    result.insert(0, "clusterer", clusterer)
    result.insert(0, "method", method)
    result.insert(0, "dataset", dataset)
    write_table_atomic(result, out_path, float_format="%.10g")


def aggregate(sweep_paths, metrics, out, skipped=None):
    """Write all sweep rows, the per-m summary over seeds and the best/mean table.

    ``skipped`` maps a dataset the experiment lists but could not get to the reason; the
    Markdown table says so, so a gap is never silent."""
    from fsclust.report import best_and_mean, collect_sweeps, summarise, to_markdown

    sweeps = collect_sweeps(sweep_paths)
    summary = summarise(sweeps, metrics)
    best = best_and_mean(summary)
    write_table_atomic(sweeps, out["sweeps"], float_format="%.10g")
    write_table_atomic(summary, out["summary"], float_format="%.10g")
    write_table_atomic(best, out["best"], float_format="%.10g")
    note = ("Mean over seeds. best_mean: the best mean over the sweep, at best_n_features "
            "(an oracle choice of m, made with the labels); sweep_mean: mean over the sweep; "
            "all_features_mean: the clusterer on all features (nofs).")
    for dataset, reason in sorted((skipped or {}).items()):
        note += f"\n\n**Skipped dataset {dataset}**: {reason}"
    write_text_atomic(out["best_md"], to_markdown(best, title="Best and mean over the sweep", note=note) + "\n")


def figure(summary_path, dataset, metrics, out_path, title=None):
    """Plot one dataset's sweep curves."""
    from fsclust.report import plot_sweeps

    summary = pd.read_csv(summary_path, sep="\t")
    plot_sweeps(summary, dataset, metrics, out_path, title=title)


def compare(summary_path, paper_results_path, comparisons, out_path, out_md=None, skipped=None,
            extra=()):
    """Write ``paper_vs_ours.tsv`` (and a Markdown copy) for an experiment: the rows the config's
    ``comparisons`` select, then the rows of ``extra`` tables made by a paper's own rules."""
    from fsclust.report.paper import PAPER_VS_OURS_COLUMNS
    from fsclust.report import paper_vs_ours, to_markdown
    from fsclust.report.paper import read_paper_results

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
    write_table_atomic(table, out_path, float_format="%.6g")
    if out_md:
        note = ("This experiment compares against no paper." if table.empty else
                "diff = ours - paper; differing numbers are shown, never tuned away.")
        write_text_atomic(out_md, to_markdown(table, title="Paper vs ours", note=note) + "\n")
