"""The one-page summary of a label-free selection on the user's own matrix.

:func:`plot_selection_summary` draws what ``fsclust select`` and :func:`fsclust.select` found,
on one page of four panels: (a) the selector's criterion against m at the chosen K, (b) the
score profile of the ranking, (c) a 2-D embedding of the selected features coloured by
cluster, (d) a heatmap of the best selected features over the samples ordered by cluster.

Its cost stays bounded on large inputs (10 000 samples x 20 000 features): the heatmap draws at
most :data:`HEATMAP_MAX_FEATURES` features and, past :data:`HEATMAP_MAX_SAMPLES` samples, an
evenly spaced subset of each cluster; the embedding's PCA is randomised on large selections.
matplotlib and scikit-learn are imported only when a figure is drawn; the package
``fsclust.report`` itself loads matplotlib, so the command line imports this module only when
it draws.
"""

from __future__ import annotations

import numpy as np

#: The heatmap's rows: at most this many of the selected features, best first.
HEATMAP_MAX_FEATURES = 50
#: Past this many samples the heatmap shows about this many, evenly spaced within each cluster
#: (every cluster keeps at least one column), and says so.
HEATMAP_MAX_SAMPLES = 2000
#: Past this many points the scatter and score markers are rasterised, so the SVG stays small.
RASTERIZE_ABOVE = 2000
#: The embedding's legend lists at most this many clusters and labels.
LEGEND_ENTRIES = 24
#: The heatmap names its columns (samples) when there are at most this many.
NAMED_SAMPLES = 60
#: Smallest font (points) of the heatmap's feature names; smaller would not be legible, so
#: the names are left out instead.
SMALLEST_NAME_FONT = 4.0
#: How each value of ``summary["k_source"]`` reads in the title.
K_SOURCES = {"given": "given", "labels": "the number of label classes",
             "selector": "chosen by {criterion}, rule {rule}"}


def plot_selection_summary(result, path_stem, *, formats=("png", "svg")):
    """Draw the one-page summary of a selection and write it as ``<path_stem>.png`` and
    ``.svg``, each atomically.

    Parameters
    ----------
    result : SelectionResult
        Read only through ``criterion`` (the selector's ``criteria_``), ``ranking`` (columns
        ``feature``, ``score``, ``rank``, ``selected``, optionally ``tied``), ``labels``
        (``sample``, ``cluster``; one row per sample, in the matrix's order), ``summary``
        (``method``, ``n_features``, ``n_clusters``, ``k_source``, ``criterion``, ``rule``, and
        ``acc``/``nmi``/``ari`` when labels were given), ``matrix.X``, ``matrix.y``,
        ``matrix.feature_names`` and ``matrix.sample_names``.
    path_stem : str or Path
        The files' path without suffix.
    formats : sequence of {"png", "svg"}

    Returns
    -------
    list of Path
        The files written.

    Notes
    -----
    (a) The criterion against m at the chosen K, +- its standard error, the chosen m marked
    (against K when only K was searched; "no search" when m and K were both given). (b) The
    scores in rank order, the selected features and the tied ones marked. (c) The first two
    principal components of the z-scored selected features, with signs fixed by
    :func:`fsclust.graphs.canonical_sign_flip` (so a feature multiplied by -1 gives the same
    picture), coloured by cluster and shaped by true label when there is one. (d) The best
    selected features (at most :data:`HEATMAP_MAX_FEATURES`), z-scored per feature, over the
    samples ordered by cluster, the clusters' boundaries drawn.
    """
    from pathlib import Path

    from fsclust.report.figures import save_figure

    save_figure(selection_summary_figure(result), f"{path_stem}.png", formats=tuple(formats))
    return [Path(f"{path_stem}.{fmt}") for fmt in formats]


def selection_summary_figure(result):
    """The figure :func:`plot_selection_summary` writes, open (to show it in a notebook or
    change it before saving)."""
    import matplotlib.pyplot as plt

    matrix, summary = result.matrix, result.summary
    X = np.asarray(matrix.X, dtype=np.float64)
    clusters = np.asarray(result.labels["cluster"])
    if clusters.shape[0] != X.shape[0]:
        raise ValueError(f"{clusters.shape[0]} cluster labels for the {X.shape[0]} samples of "
                         "the matrix")
    ranking = result.ranking.sort_values("rank", kind="stable")
    columns = _selected_columns(ranking, matrix.feature_names)
    fig, axes = plt.subplots(2, 2, figsize=(13.0, 11.0), layout="constrained")
    _criterion_panel(axes[0, 0], result.criterion, summary)
    _score_panel(axes[0, 1], ranking)
    _embedding_panel(axes[1, 0], X[:, columns], clusters, matrix.y)
    _heatmap_panel(axes[1, 1], X[:, columns[:HEATMAP_MAX_FEATURES]],
                   np.asarray(matrix.feature_names, dtype=object)[columns], clusters,
                   matrix.sample_names)
    fig.suptitle(_title(summary, result.criterion, len(columns), X.shape[1]))
    return fig


def _selected_columns(ranking, feature_names):
    """The matrix's column indices of the selected features, best first."""
    index = {name: j for j, name in enumerate(feature_names)}
    chosen = ranking.loc[ranking["selected"].astype(bool), "feature"]
    columns = np.array([index[name] for name in chosen], dtype=np.intp)
    if columns.size == 0:
        raise ValueError("the ranking selects no feature: nothing to draw")
    return columns


def _searched(criteria):
    """Which of m and K the selector searched (took more than one value of)."""
    return criteria["n_features"].nunique() > 1, criteria["n_clusters"].nunique() > 1


def _k_source(summary):
    """How K was chosen, in words."""
    source = summary.get("k_source")
    return K_SOURCES[source].format(**summary) if source in K_SOURCES else str(source)


def _title(summary, criteria, m, d):
    searched_m, _ = _searched(criteria)
    how_m = (f"chosen by {summary['criterion']}, rule {summary['rule']}" if searched_m
             else "given")
    title = (f"{summary['method']}: m = {m} of {d} features ({how_m}), "
             f"K = {summary['n_clusters']} ({_k_source(summary)})")
    scores = [f"{key.upper()} {float(value):.3f}" for key, value in summary.items()
              if key.lower() in ("acc", "nmi", "ari")]
    if scores:
        title += "\nagainst the labels: " + ", ".join(scores)
    return title


def _criterion_panel(ax, criteria, summary):
    """(a) The criterion that chose, against what was searched; "no search" otherwise."""
    from fsclust.report.figures import plot_criterion_curve

    m, k, criterion = summary["n_features"], summary["n_clusters"], summary.get("criterion")
    searched_m, searched_k = _searched(criteria)
    ax.set_title("(a) label-free criterion", loc="left")
    if not (searched_m or searched_k) or criterion not in criteria.columns:
        ax.text(0.5, 0.5, f"no search: m = {m} and K = {k} ({_k_source(summary)}) were "
                "given,\nso no criterion was computed", ha="center", va="center",
                transform=ax.transAxes)
        ax.set_axis_off()
        return
    plot_criterion_curve(ax, criteria, criterion, m, k,
                         along="n_features" if searched_m else "n_clusters")
    ax.set_title("(a) " + ax.get_title(loc="center"), loc="left")
    ax.set_title("")
    ax.set_ylabel(f"{criterion} (+- SE)")
    ax.grid(alpha=0.3)


def _score_panel(ax, ranking):
    """(b) The scores in rank order, the selected and the tied features marked."""
    from matplotlib.ticker import ScalarFormatter

    rank = ranking["rank"].to_numpy()
    score = ranking["score"].to_numpy(dtype=float)
    selected = ranking["selected"].to_numpy(dtype=bool)
    tied = (ranking["tied"].to_numpy(dtype=bool) if "tied" in ranking.columns
            else np.zeros_like(selected))
    many = rank.size > RASTERIZE_ABOVE
    ax.plot(rank, score, color="0.55", lw=1, label=f"all {rank.size} features")
    ax.scatter(rank[selected], score[selected], s=12, color="C3", zorder=3,
               rasterized=many, label=f"selected ({int(selected.sum())})")
    if tied.any():
        ax.scatter(rank[tied], score[tied], s=18, marker="x", color="k", zorder=4,
                   rasterized=many, label=f"tied ({int(tied.sum())})")
    finite = score[np.isfinite(score)]
    if finite.size and np.ptp(finite) == 0:
        ax.text(0.5, 0.5, "all scores equal: the ranking orders nothing", ha="center",
                transform=ax.transAxes)
    if rank.max() > 30 * rank.min():
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.set(xlabel="rank (1 = best)", ylabel="score")
    ax.set_title("(b) score profile", loc="left")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)


def _embedding(X_selected):
    """The first two principal components of the z-scored columns (one when only one feature
    is selected), signs canonical; and the share of variance of each."""
    from sklearn.decomposition import PCA
    from sklearn.preprocessing import scale

    from fsclust.graphs import canonical_sign_flip

    Z = scale(X_selected)  # a constant feature becomes 0
    n, m = Z.shape
    # "auto": the exact SVD on small inputs, a randomised one (seeded) on large selections,
    # so 10 000 samples x thousands of selected features stay fast
    pca = PCA(n_components=max(1, min(2, n - 1, m)), svd_solver="auto", random_state=0)
    with np.errstate(invalid="ignore", divide="ignore"):  # every selected feature constant
        coordinates = canonical_sign_flip(pca.fit_transform(Z))
    return coordinates, np.nan_to_num(pca.explained_variance_ratio_)


def _embedding_panel(ax, X_selected, clusters, y):
    """(c) The selected features' PCA, coloured by cluster, shaped by true label."""
    from matplotlib.lines import Line2D

    from fsclust.report.figures import MARKERS

    coordinates, share = _embedding(X_selected)
    if coordinates.shape[1] == 1:  # one feature: its values along a line
        coordinates = np.column_stack([coordinates[:, 0], np.zeros(coordinates.shape[0])])
    cluster_ids, cluster_of = np.unique(clusters, return_inverse=True)
    colors = np.array(_cluster_colors(len(cluster_ids)))
    shown_y = np.asarray(y).astype(str) if y is not None else np.full(clusters.shape, "")
    classes = np.unique(shown_y)
    n = clusters.shape[0]
    size = 24 if n <= 300 else 8 if n <= RASTERIZE_ABOVE else 3
    # one scatter per true label, its points in the samples' order: no cluster is drawn on
    # top of all the others
    for j, label in enumerate(classes):
        points = shown_y == label
        ax.scatter(*coordinates[points].T, s=size, c=colors[cluster_of[points]],
                   marker=MARKERS[j % len(MARKERS)], alpha=0.8, linewidths=0.5,
                   rasterized=n > RASTERIZE_ABOVE)
    handles = [Line2D([], [], ls="", marker="o", color=colors[c], label=f"cluster {cluster}")
               for c, cluster in enumerate(cluster_ids)]
    if y is not None:
        handles += [Line2D([], [], ls="", marker=MARKERS[j % len(MARKERS)], color="0.3",
                           mfc="none", label=f"label {label}") for j, label in enumerate(classes)]
    cut = len(handles) > LEGEND_ENTRIES
    # "best" tests every point against every place: slow past a few thousand points
    ax.legend(handles=handles[:LEGEND_ENTRIES], fontsize=7, ncol=2 if len(handles) > 8 else 1,
              loc="best" if n <= RASTERIZE_ABOVE else "upper right",
              title=f"(first {LEGEND_ENTRIES} shown)" if cut else None)
    ax.set(xlabel=f"PC1 ({share[0]:.1%} of variance)",
           ylabel=f"PC2 ({share[1]:.1%} of variance)" if share.size > 1 else "")
    ax.set_title(f"(c) PCA of the {X_selected.shape[1]} selected features (z-scored)",
                 loc="left")
    ax.grid(alpha=0.3)


def _cluster_colors(k):
    import matplotlib.pyplot as plt

    palette = plt.cm.tab10.colors if k <= 10 else plt.cm.tab20.colors
    return [palette[c % len(palette)] for c in range(k)]


def heatmap_samples(clusters, max_samples=HEATMAP_MAX_SAMPLES):
    """The samples the heatmap shows, ordered by cluster (then by their order in the matrix).

    Past ``max_samples`` samples, each cluster keeps its share of ``max_samples`` (at least
    one), evenly spaced over its members: deterministic, and every cluster stays visible.

    Examples
    --------
    >>> heatmap_samples(np.array([1, 0, 1, 0]))
    array([1, 3, 0, 2])
    >>> heatmap_samples(np.array([0] * 6 + [1] * 2), max_samples=4)
    array([0, 2, 5, 6])
    """
    order = np.argsort(clusters, kind="stable")
    n = order.size
    if n <= max_samples:
        return order
    keep = []
    for cluster in np.unique(clusters):
        members = order[clusters[order] == cluster]
        share = max(1, int(max_samples * members.size // n))
        keep.append(members[np.unique(np.linspace(0, members.size - 1, share).round()
                                      .astype(np.intp))])
    return np.concatenate(keep)


def _heatmap_panel(ax, X_top, feature_names, clusters, sample_names):
    """(d) The best selected features, z-scored per feature, over the samples by cluster."""
    from sklearn.preprocessing import scale

    rows = heatmap_samples(clusters)
    n, n_top = clusters.shape[0], X_top.shape[1]
    image = ax.imshow(scale(X_top)[rows].T, aspect="auto", interpolation="nearest",
                      cmap="RdBu_r", vmin=-3, vmax=3)
    ax.figure.colorbar(image, ax=ax, label="z-score per feature (clipped at +-3)",
                       fraction=0.05, pad=0.01)
    shown = clusters[rows]
    starts = np.flatnonzero(np.r_[True, shown[1:] != shown[:-1]])
    for start in starts[1:]:
        ax.axvline(start - 0.5, color="k", lw=1)
    middles = (starts + np.r_[starts[1:], shown.size]) / 2 - 0.5
    top = ax.secondary_xaxis("top")
    top.set_xticks(middles, labels=[str(c) for c in shown[starts]], fontsize=7)
    top.set_xlabel("cluster", fontsize=8)
    if rows.size <= NAMED_SAMPLES:
        ax.set_xticks(np.arange(rows.size),
                      labels=np.asarray(sample_names, dtype=object)[rows], rotation=90,
                      fontsize=6)
    else:
        ax.set_xticks([])
    # the names fit when the axes' height leaves each row a legible font
    font = min(8.0, 0.8 * ax.get_position().height * ax.figure.get_figheight() * 72 / n_top)
    if font >= SMALLEST_NAME_FONT:
        ax.set_yticks(np.arange(n_top), labels=[_short(name) for name in
                                                feature_names[:n_top]], fontsize=font)
    else:
        ax.set_yticks([])
    sampled = (f"; {rows.size} of {n} samples shown, evenly spaced within each cluster"
               if rows.size < n else "")
    ax.set_xlabel(f"samples ordered by cluster{sampled}", fontsize=8)
    ax.set_title(f"(d) the {n_top} best of the {len(feature_names)} selected features",
                 loc="left")


def _short(name, width=24):
    name = str(name)
    return name if len(name) <= width else name[:width - 1] + "\u2026"
