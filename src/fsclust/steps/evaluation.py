"""The evaluation step (:func:`evaluate`): rank a dataset with each method for every seed and
cluster the top-m features with every clusterer for every m of the sweep.

What a job writes: one sweep TSV (every method, seed, clusterer and m; :data:`SWEEP_KEYS`, the
metrics, ``in_grid`` and ``selected_by``) and, per method and seed, ``seed{S}.tsv`` (the
ranking), ``seed{S}.json`` (its sidecar: run time, iterations, the method's own clustering
scored against the classes) and, for methods whose arrays later steps read, ``seed{S}.npz``.
Rankings are written in a temporary directory renamed into place after the sweep TSV is
written: a killed job leaves neither.

One ranking for every seed: a method with no random choice is fitted once and its ranking
serves every seed (:class:`_Rankers`), unless each seed draws its own classes.

A time limit (``time_limit_s``): each fit runs in a child process killed at the limit
(:func:`fsclust.steps.process.within_time_limit`), and a fit that times out, raises or gives a
degenerate ranking does not fail the job: its status and message go in its sidecar, and its
sweep rows (a ``status`` column, :data:`FIT_STATUSES`) have empty metrics. A method that
timed out at one seed is not fitted again at the later ones (recorded "timeout" too). A
method whose subsets are not nested and that fits again for an m (UDFS and SOGFS at their
defaults: ``c = max(K, m)`` components) makes each of those fits in a child under the same
limit: an m whose fit times out or raises has rows with that status and empty metrics, the
other m are clustered, and once an m times out neither it nor a larger m is fitted again in
the job. A clusterer that raises on one selection does not fail the job either: that row has empty
metrics, status "failed" and the error in a ``message`` column (there only when some
clusterer failed). Without a limit, the fits run in the job's process and any error fails
the job.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from typing import NamedTuple

import numpy as np
import pandas as pd

from fsclust._io import atomic_dir, write_table_atomic, write_text_atomic
from fsclust.registry import ALL_FEATURES
from fsclust.steps.data import load_view
from fsclust.steps.planning import (_dependency_order, _shares_ranking, method_grid,
                                    method_time_limit, sweep_grid)
from fsclust.steps.process import FitFailure, within_time_limit
from fsclust.steps.rankings import _write_ranking_files, rank_sidecar, resolve_references
from fsclust.steps.seeds import derive_seed

log = logging.getLogger("fsclust")

#: How the sidecar of a seed not fitted begins (its method timed out at an earlier seed of the
#: same dataset): it records no time of its own, so a mean cost leaves it out.
NOT_FITTED = "not fitted"


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


def _ranker_random_state(seed, dataset, method, spec):
    """The random state of ``method``'s fit at ``seed``. ``seed_key`` lets a variant share a
    method's random stream (Maldonado's Table 4 runs start from the same first clustering as
    the main KP-Kmeans run)."""
    return derive_seed(seed, dataset, spec.get("seed_key", method))


class Fit(NamedTuple):
    """A fitted ranker, its random state, the fit's wall time and, for a fit in a child
    process (:func:`_rank_within`), its peak memory above the job's (MB; None otherwise)."""

    ranker: object
    random_state: int
    seconds: float
    max_rss_mb: float | None = None


def _rank_one(ds, *, dataset, method, spec, seed, references=None):
    """Fit ``spec``'s ranker on one repeat's view; return its :class:`Fit`."""
    from fsclust.ranking import rank_features

    # unlabelled sets (the Zelnik-Manor & Perona toys) carry their number of clusters
    n_clusters = ds.n_classes if ds.y is not None else ds.provenance.get("n_clusters")
    random_state = _ranker_random_state(seed, dataset, method, spec)
    params = _resolve_dataset_params(spec.get("params"), ds, dataset)
    params = resolve_references(params, seed, references or {})
    start = time.perf_counter()
    ranker = rank_features(ds.X, spec["method"], params, n_clusters=n_clusters,
                           random_state=random_state)
    return Fit(ranker, random_state, time.perf_counter() - start)


def _rank_within(time_limit_s, ds, **kwargs):
    """:func:`_rank_one` in a child process killed after ``time_limit_s`` seconds
    (:func:`within_time_limit`)."""
    return within_time_limit(time_limit_s, _rank_one, ds, **kwargs)


def degenerate_reason(method, ranker):
    """Why a fitted ranking is not the method's own, or None: the fit's ``status_`` says so
    (its class's ``statuses``, e.g. LLC-fs on a graph split from the start), or every score of
    a varying feature is tied (the ranking is the column order; e.g. the variance of z-scored
    data)."""
    from fsclust.rankers.base import all_scores_tied, status_warnings

    messages, degenerate = status_warnings(method, ranker)
    if degenerate:
        return messages[0]
    if all_scores_tied(ranker.scores_, ranker.constant_mask_):
        n_ranked = int((~ranker.constant_mask_).sum())
        return (f"{method}: all {n_ranked} scores are equal; the ranking is the column "
                "order, not the method's")
    return None


#: Columns of a job's sweep TSV (the metrics go between ``n_features`` and ``in_grid``).
SWEEP_KEYS = ("dataset", "method", "seed", "clusterer", "n_features")


class _Run(NamedTuple):
    """What the sweep of one ranking of one repeat needs: the method key, the selection (the
    ranking, or ``{m: subset}`` for a method whose subsets are not nested), every m to
    cluster on, the plain grid (the curves), the data-dependent marks and the clusterer keys
    the method is restricted to (None: all); and, in an experiment with a time limit, the
    fit's status (:data:`FIT_STATUSES`): a run not "ok" is not clustered."""

    key: str
    selection: object
    points: list
    grid: set
    marks: dict
    clusterers: object = None
    status: str = "ok"
    #: ``{m: FitFailure}``: the points whose own fit (a method whose subsets are not nested)
    #: did not end within the time limit or raised; their rows say so, with empty metrics
    failed: dict | None = None


#: Status of a method's fit, recorded in its sidecar and its sweep rows by an experiment with a
#: time limit (``time_limit_s``): "ok", "degenerate" (:func:`degenerate_reason`), "timeout"
#: or "failed" (:class:`FitFailure`). A run not "ok" has rows with empty metrics. A sweep row
#: is "failed" too, with empty metrics, when its clusterer raised on that selection.
FIT_STATUSES = ("ok", "degenerate", "timeout", "failed")


def _all_features_run(d):
    """The papers' "nofs": clustering on all ``d`` features, as a run of its own."""
    return _Run(ALL_FEATURES, np.arange(d), [d], {d}, {})


def evaluate(data_path, sweep_path, *, dataset, methods, rankings_dir, seeds, clusterers,
             grid_spec, metrics, baseline=False, nested=False, class_draw=None,
             references=None, time_limit_s=None):
    """One unit of work: rank ``dataset`` with each of ``methods`` at every seed and cluster
    the top-m features with every clusterer at every m of the sweep; with ``baseline``, on all
    features too (:data:`fsclust.registry.ALL_FEATURES`). What it writes, which rankings serve
    every seed and what a time limit changes: the module docstring.

    Parameters
    ----------
    data_path, sweep_path : str
        The prepared ``.npz``; the job's one sweep TSV (every method, seed, clusterer, m).
    methods, clusterers : dict
        ``{key: spec}`` of the experiment's methods (may be empty: the baseline alone) and
        clusterers.
    rankings_dir : str or None
        Where the rankings go; in ``rankings_dir/{key}/`` when ``nested`` (one job for all
        methods of a dataset), else directly (one method).
    seeds, grid_spec, metrics
        The experiment's repeats, sweep grid and metrics.
    class_draw : int, optional
        Classes drawn per repeat (each seed its own draw).
    references : dict, optional
        ``{key: rankings directory}`` of other jobs' methods that a spec refers to.
    time_limit_s : float, optional
        Seconds one fit may take; None: the fits run in this process, any error fails the job.
    """
    order = _dependency_order(methods, grid_spec)
    references = dict(references or {})
    limited = time_limit_s is not None
    with _rankings_folder(rankings_dir if methods else None) as folder:
        method_dirs = {key: (folder / key if nested else folder) for key in order}
        references.update(method_dirs)  # later methods of this job read earlier ones there
        rankers = _Rankers(methods, order, class_draw, references, time_limit_s)
        # relabelling clusterers: one fit serves every seed of a ranking shared by all seeds
        fitted = None if class_draw else {}
        frames = []
        for seed, ds in _repeats(data_path, dataset, seeds, class_draw):
            runs = [_record_ranking(ds, dataset, seed, key, methods[key], grid_spec,
                                    rankers.fitted(ds, dataset, seed, key), references,
                                    method_dirs[key], metrics, record_status=limited,
                                    rankers=rankers)
                    for key in order]
            runs += [_all_features_run(ds.X.shape[1])] if baseline else []
            if ds.y is not None and clusterers:  # unlabelled toy sets: rankings only
                frames += [_sweep_run(ds, dataset, seed, run, clusterers, metrics,
                                      fitted if rankers.recurs(run.key) else None,
                                      record_failures=limited) for run in runs]
        table = _sweep_table(frames, metrics, with_status=limited)
        write_table_atomic(table, sweep_path, float_format="%.10g")


@contextlib.contextmanager
def _rankings_folder(rankings_dir):
    """The job's rankings folder, written whole or not at all (:func:`fsclust._io.atomic_dir`);
    None for a job with no method."""
    if rankings_dir is None:
        yield None
        return
    with atomic_dir(rankings_dir) as folder:
        yield folder


def _repeats(data_path, dataset, seeds, class_draw):
    """``(seed, view)`` for every repeat: the prepared data loaded once, or each seed's own
    class draw."""
    full = None if class_draw else load_view(data_path, dataset, seeds[0])
    for seed in seeds:
        yield seed, (full if full is not None else load_view(data_path, dataset, seed,
                                                             class_draw))


class _Rankers:
    """The fitted ranker of each method and repeat: a method whose scores make no random
    choice (:func:`_shares_ranking`) is fitted at the first seed and serves every later one,
    its own clustering re-drawn with that seed's stream (LLC-fs, Q-alpha from a uniform
    start: the same labels as a fit with it)."""

    def __init__(self, methods, order, class_draw, references, time_limit_s=None):
        self.methods, self.references = methods, references
        self.shares = {key: _shares_ranking(methods[key], class_draw) for key in order}
        self.shared = {}
        self.time_limit_s = time_limit_s
        self.timed_out = {}  # key -> the seed at which its fit hit the time limit
        # key -> (seed, m): the smallest m whose own fit (subsets not nested) hit the limit
        self.subset_timed_out = {}

    def recurs(self, key):
        """Whether the run of ``key`` selects the same features at every seed: a shared
        ranking, or all features."""
        return key == ALL_FEATURES or self.shares.get(key, False)

    def fitted(self, ds, dataset, seed, key):
        """``(fit, shared)`` of method ``key`` at ``seed``: its :class:`Fit`, whose ranker is
        a :class:`FitFailure` when a fit under the time limit gave none."""
        spec = self.methods[key]
        if key not in self.shared:
            fit = self._fit(ds, dataset, seed, key, spec)
            if self.shares[key]:
                self.shared[key] = fit
            return fit, self.shares[key]
        ranker, random_state, seconds, max_rss_mb = self.shared[key]
        if (not isinstance(ranker, FitFailure) and hasattr(ranker, "labels_")
                and "random_state" in ranker.get_params()):
            random_state = _ranker_random_state(seed, dataset, key, spec)
            ranker.labels_ = ranker.relabel(random_state)
        return Fit(ranker, random_state, seconds, max_rss_mb), True

    def _fit(self, ds, dataset, seed, key, spec):
        kwargs = dict(dataset=dataset, method=key, spec=spec, seed=seed,
                      references=self.references)
        if self.time_limit_s is None:
            return _rank_one(ds, **kwargs)
        limit = method_time_limit(spec, self.time_limit_s)
        random_state = _ranker_random_state(seed, dataset, key, spec)
        if key in self.timed_out:
            # a fit that did not end within the limit at one seed would cost the limit again
            # at every later seed (the same data, another random start)
            return Fit(FitFailure("timeout", f"{NOT_FITTED}: the fit at seed "
                                  f"{self.timed_out[key]} exceeded the time limit of "
                                  f"{limit} s", 0.0), random_state, 0.0)
        fit = _rank_within(limit, ds, **kwargs)
        if not isinstance(fit, FitFailure):
            return fit
        if fit.status == "timeout":
            self.timed_out[key] = seed
        log.warning("%s on %s (seed %d): %s: %s", key, dataset, seed, fit.status, fit.message)
        return Fit(fit, random_state, fit.seconds, fit.max_rss_mb)


def _record_ranking(ds, dataset, seed, key, spec, grid_spec, fitted, references, out, metrics,
                    record_status=False, rankers=None):
    """Write one repeat's ranking of method ``key`` (ranking, sidecar, arrays) and return its
    :class:`_Run`: the sweep's points, and the selection at each (the top of the ranking, or
    each m's own subset for a method whose subsets are not nested). With ``record_status``
    (an experiment with a time limit) the sidecar and the run carry the fit's status; a
    :class:`FitFailure` writes its sidecar alone."""
    from fsclust.rankers.base import nested_selection, selected_features, tied_cuts

    (ranker, random_state, seconds, max_rss_mb), shared = fitted
    # a fit in a child process (the time limit) measured its own memory
    memory = {} if max_rss_mb is None else {"max_rss_mb": max_rss_mb}
    if isinstance(ranker, FitFailure):
        info = {"dataset": dataset, "method": key, "seed": seed, "random_state": random_state,
                "seconds": round(seconds, 3), "n_samples": int(ds.X.shape[0]),
                "n_features": int(ds.X.shape[1]), "status": ranker.status,
                "message": ranker.message, **memory}
        if shared:
            info["shared_by_seeds"] = True
        write_text_atomic(out / f"seed{seed}.json", json.dumps(info, indent=1) + "\n")
        points, grid, marks = sweep_grid(method_grid(spec, grid_spec), ds.X.shape[1], seed,
                                         references, method=key)
        return _Run(key, None, points, grid, marks, spec.get("clusterers"), ranker.status)
    log.info("%s on %s (seed %d -> random_state %d): %.2f s%s", key, dataset, seed,
             random_state, seconds, " (one ranking for every seed)" if shared else "")
    info = rank_sidecar(ranker, ds, dataset=dataset, method=key, seed=seed,
                        random_state=random_state, seconds=seconds, metrics=metrics)
    info.update(memory)
    if shared:
        info["shared_by_seeds"] = True
    points, grid, marks = sweep_grid(method_grid(spec, grid_spec), ds.X.shape[1], seed,
                                     references, ranker=ranker, X=ds.X, method=key)
    # a top-m set decided by a tie is decided by round-off or index order, not by the method
    info["tied_cuts"] = tied_cuts(ranker.scores_, ranker.feature_order_, points,
                                  ranker.constant_mask_)
    if info["tied_cuts"]:
        log.warning("%s on %s (seed %d): the top-m set is decided by a tie (scores within "
                    "1e-12) at m = %s", key, dataset, seed, ", ".join(map(str, info["tied_cuts"])))
    selection, failed = None, None
    if not nested_selection(ranker):
        # one subset of exactly m features per m, kept in the sidecar (the ranking file
        # cannot say them); a method that fits again for an m does so under the time limit
        limit = (method_time_limit(spec, rankers.time_limit_s)
                 if rankers is not None and rankers.time_limit_s is not None else None)
        if limit is None:
            selection = {m: selected_features(ranker, m) for m in points}
        else:
            selection, failed, seconds_by_m = _subsets_within(
                limit, ranker, points, key=key, dataset=dataset, seed=seed,
                timed_out=rankers.subset_timed_out)
            if seconds_by_m:
                info["subset_seconds"] = {str(m): round(t, 3) for m, t in seconds_by_m.items()}
            if failed:
                info["subset_failures"] = {str(m): f"{f.status}: {f.message}"
                                           for m, f in failed.items()}
        info["subsets"] = {str(m): v.tolist() for m, v in selection.items()}
    status = "ok"
    if record_status:
        reason = degenerate_reason(key, ranker)
        if reason is not None:
            status = "degenerate"
            info["message"] = reason
            log.warning("%s on %s (seed %d): degenerate: %s", key, dataset, seed, reason)
        info["status"] = status
    table = _write_ranking_files(out, seed, ranker, ds, info, keep=spec.get("keep"))
    if selection is None:
        selection = table["index"].to_numpy()
    return _Run(key, selection, points, grid, marks, spec.get("clusterers"), status,
                failed or None)


class Subset(NamedTuple):
    """The ``m`` features of a ranker whose subsets are not nested, the wall time of the fit
    that gave them and (in a child process) its peak memory above the job's (MB)."""

    features: np.ndarray
    seconds: float
    max_rss_mb: float | None = None


def _subset_of(ranker, m):
    """:func:`~fsclust.rankers.base.selected_features` of ``ranker`` at ``m``, timed."""
    from fsclust.rankers.base import selected_features

    start = time.perf_counter()
    features = selected_features(ranker, m)
    return Subset(features, time.perf_counter() - start)


def _subsets_within(limit, ranker, points, *, key, dataset, seed, timed_out):
    """The subset of every m of ``points`` for a ranker whose subsets are not nested, each m
    that needs a fit of its own (``subset_needs_fit``, e.g. UDFS and SOGFS at their defaults:
    ``c = max(K, m)`` components for m) fitted in a child process under ``limit`` seconds,
    as the ranking's own fit is: a fit for m is a fit.

    Returns ``(selection, failed, seconds)``: ``{m: features}`` of the m that have a subset,
    ``{m: FitFailure}`` of those that do not, ``{m: wall seconds}`` of the fits made. Once an
    m times out (``timed_out[key]``, kept across the job's seeds), it and every larger m are
    recorded "timeout" without a fit: their fits have more components, never fewer, so they
    would cost the limit again for nothing.
    """
    needs_fit = getattr(ranker, "subset_needs_fit", None)
    selection, failed, seconds = {}, {}, {}
    for m in sorted(points):
        stopped = timed_out.get(key)
        if stopped is not None and m >= stopped[1]:
            failed[m] = FitFailure("timeout", f"{NOT_FITTED}: the fit for m = {stopped[1]} at "
                                   f"seed {stopped[0]} exceeded the time limit of {limit} s, "
                                   "and a larger m fits more components", 0.0)
            continue
        if needs_fit is None or not needs_fit(m):
            selection[m] = _subset_of(ranker, m).features
            continue
        outcome = within_time_limit(limit, _subset_of, ranker, m)
        if isinstance(outcome, FitFailure):
            failed[m] = outcome
            if outcome.status == "timeout":
                timed_out[key] = (seed, m)
            log.warning("%s on %s (seed %d), its fit for m = %d: %s: %s", key, dataset, seed,
                        m, outcome.status, outcome.message)
            continue
        selection[m], seconds[m] = outcome.features, outcome.seconds
    return selection, failed, seconds


def _sweep_run(ds, dataset, seed, run, clusterers, metrics, fitted=None,
               record_failures=False):
    """Cluster one run's selections with its clusterers; the rows of the sweep TSV.

    Every method's clusterer draws the same seed (the curves of different methods are
    paired); a clusterer's ``seed_key`` makes it draw another key's stream (every point of a
    clusterer grid the stream of one clusterer). ``fitted``, ``record_failures``: see
    :func:`fsclust.steps.sweep.run_sweep`."""
    from fsclust.steps.sweep import run_sweep

    start = time.perf_counter()
    used = {k: clusterers[k] for k in (run.clusterers or clusterers)}
    if run.status != "ok":
        # no ranking of the method's to cluster: the rows say so, with empty metrics
        result = pd.DataFrame([(k, m) for k in used for m in run.points],
                              columns=["clusterer", "n_features"])
        result[list(metrics)] = np.nan
        result["status"] = run.status
    else:
        states = {k: derive_seed(seed, dataset, spec.get("seed_key", k))
                  for k, spec in used.items()}
        failed = run.failed or {}
        points = [m for m in run.points if m not in failed]
        result = (run_sweep(ds.X, ds.y, run.selection, points, used,
                            n_clusters=ds.n_classes, random_states=states, metrics=metrics,
                            fitted=fitted, record_failures=record_failures) if points
                  else None)
        if result is not None and "message" in result:
            for row in result[result["status"] == "failed"].itertuples():
                log.warning("%s / %s seed %d: %s on the top %d failed: %s", dataset, run.key,
                            seed, row.clusterer, row.n_features, row.message)
        if failed:
            # the m whose own fit did not end: no subset to cluster
            rows = pd.DataFrame([(k, m, failed[m].status, failed[m].message)
                                 for k in used for m in run.points if m in failed],
                                columns=["clusterer", "n_features", "status", "message"])
            rows[list(metrics)] = np.nan
            if result is None:
                result = rows
            else:
                if "status" not in result:
                    result["status"] = "ok"
                result = pd.concat([result, rows], ignore_index=True)
            order = {m: i for i, m in enumerate(run.points)}
            clusterer_order = {k: i for i, k in enumerate(used)}
            result = result.sort_values(
                ["clusterer", "n_features"], kind="stable",
                key=lambda c: c.map(clusterer_order if c.name == "clusterer" else order),
            ).reset_index(drop=True)
    log.info("%s / %s seed %d: %d clusterer(s) x %d points in %.2f s", dataset, run.key, seed,
             len(used), len(run.points), time.perf_counter() - start)
    for name, value in (("seed", seed), ("method", run.key), ("dataset", dataset)):
        result.insert(0, name, value)
    # in_grid: a point of the curves; selected_by: a data-dependent m of this seed
    # (Maldonado's Table 3, Zhang's Table 2), left out of the curves unless on the grid
    result["in_grid"] = [int(m in run.grid) for m in result["n_features"]]
    result["selected_by"] = [",".join(run.marks.get(m, [])) for m in result["n_features"]]
    return result


def _sweep_table(frames, metrics, with_status=False):
    """The job's sweep TSV: every run's rows, in the fixed column order, then the attributes
    the clusterers report (:func:`fsclust.steps.sweep.reported_values`), if any; with
    ``with_status`` (an experiment with a time limit), every row's status (:data:`FIT_STATUSES`,
    "ok" where nothing said otherwise)."""
    columns = [*SWEEP_KEYS, *metrics, "in_grid", "selected_by"]
    if not frames:
        table = pd.DataFrame(columns=columns)
    else:
        table = pd.concat(frames, ignore_index=True)
        table = table[columns + [c for c in table.columns if c not in columns]]
    if with_status:
        table["status"] = table["status"].fillna("ok") if "status" in table else "ok"
    return table
