"""Planning an evaluation job: each method's grid of m, its time limit, the order in which
methods that read each other's results run, and whether one ranking serves every seed."""

from __future__ import annotations

import logging

from fsclust.steps.rankings import reference_value

log = logging.getLogger("fsclust")


#: Grid entries that a method's own scores decide: ``{informative: mean_plus_std}`` is the
#: size of the subset whose score exceeds mean + sd (Varshavsky et al.'s rule, which Zhang et
#: al. 2012 apply to every method in their Table 2); that subset is the top of the ranking.
INFORMATIVE_RULES = ("mean_plus_std",)


def informative_count(ranker, X, rule="mean_plus_std"):
    """Size of a method's informative subset (constant features never count)."""
    from fsclust.rankers.base import constant_features, mean_plus_std_rule

    if rule not in INFORMATIVE_RULES:
        raise ValueError(f"unknown informative-subset rule {rule!r}; known: {INFORMATIVE_RULES}")
    keep = mean_plus_std_rule(ranker.scores_, type(ranker).higher_is_better,
                              constant_features(X))
    return int(keep.sum())


def sweep_grid(grid_spec, d, seed, references, ranker=None, X=None, method=None):
    """The m values of one repeat's sweep: :func:`fsclust.steps.sweep.resolve_grid` of the plain
    entries, plus the data-dependent ones: ``{selected_by: method}`` (the number of features
    that method kept for this seed; a method naming itself, ``method``, reads its own fitted
    ``n_features_selected_``, since its sidecar is written after its grid is known),
    ``{fraction: f}`` (the top ``max(1, round(f d))`` features, a grid point) and
    ``{informative: mean_plus_std}`` (the size of this method's own informative subset,
    :func:`informative_count`).

    Returns ``(points, grid, marks)``: every m to cluster on, the plain grid (the curves) and
    ``marks[m]``, the names of the entries whose m it is (a method key, or the rule)."""
    from fsclust.steps.sweep import resolve_grid

    if isinstance(grid_spec, list):
        plain = [v for v in grid_spec if not isinstance(v, dict)]
        refs = [v for v in grid_spec if isinstance(v, dict)]
    elif isinstance(grid_spec, dict) and ("selected_by" in grid_spec or "informative" in grid_spec):
        plain, refs = [], [grid_spec]
    else:
        plain, refs = grid_spec, []
    # {fraction: f}: the top max(1, round(f d)) features, a point of the curves (Zhang et al.
    # 2012's Figure 3: the top 10 %); it brings no m = d of its own
    shares = {max(1, int(round(v["fraction"] * d))) for v in refs if "fraction" in v}
    refs = [v for v in refs if "fraction" not in v]
    grid = resolve_grid(plain, d) if (plain or not (refs or shares)) else []
    grid = sorted(set(grid) | shares)
    if isinstance(plain, list):
        above = sorted({int(v) for v in plain if int(v) > d})
        if above:
            # resolve_grid drops them (every sweep ends at d): say so in the job's log
            log.warning("sweep n_features %s above d = %d: not used (the sweep ends at d)",
                        ", ".join(map(str, above)), d)
    marks = {}
    for ref in refs:
        if "informative" in ref:
            if ranker is None:
                continue  # the all-features baseline has no scores
            m, name = informative_count(ranker, X, ref["informative"]), ref["informative"]
            if m == 0:
                continue  # an empty subset: nothing to cluster (the table says so)
        elif (method is not None and ref["selected_by"] == method
              and hasattr(ranker, "n_features_selected_")):
            m, name = max(int(ranker.n_features_selected_), 1), method
        else:
            m, name = reference_value(ref, seed, references), ref["selected_by"]
        marks.setdefault(min(m, d), []).append(name)
    return sorted(set(grid) | set(marks)), set(grid), marks


def _shares_ranking(spec, class_draw):
    """Whether one ranking serves every seed: the method's scores make no random choice (its
    class takes no ``random_state``, or draws only to discretise its own clustering, which
    :meth:`~fsclust.rankers.base.FeatureRanker.relabel` re-draws per seed), each seed sees the
    same samples, and no parameter depends on another method's per-seed result."""
    from fsclust.registry import make_ranker

    if class_draw or referenced_methods(spec.get("params")):
        return False
    return not make_ranker(spec["method"], spec.get("params"))._scores_use_random_state()


def referenced_methods(value):
    """Method keys a spec refers to (``{selected_by: key}``, ``{from: key, ...}``)."""
    if isinstance(value, dict):
        found = [value[k] for k in ("selected_by", "from") if k in value]
        return found + [k for v in value.values() for k in referenced_methods(v)]
    if isinstance(value, list):
        return [k for v in value for k in referenced_methods(v)]
    return []


def method_time_limit(spec, experiment_limit):
    """Seconds a method's fits may take: its own ``time_limit_s`` wins over the experiment's
    (None: no limit).

    >>> method_time_limit({"method": "sogfs", "time_limit_s": 30}, 10)
    30
    >>> method_time_limit({"method": "pca"}, 10)
    10
    """
    return spec.get("time_limit_s", experiment_limit)


def method_grid(spec, grid_spec):
    """A method's own sweep grid (``sweep: {n_features: ...}``) or the experiment's."""
    return spec["sweep"]["n_features"] if "sweep" in spec else grid_spec


def _dependency_order(methods, grid_spec=None):
    """Method keys with every referenced method first (a method that reads KP-Kmeans' n or
    FRCM's ensemble runs after it in the same job)."""
    order, seen = [], set()

    def visit(key, path=()):
        if key in seen:
            return
        if key in path:
            raise ValueError(f"methods refer to each other in a cycle: {' -> '.join(path)}")
        spec = methods[key]
        refs = referenced_methods(spec.get("params"))
        for ref in refs + referenced_methods(method_grid(spec, grid_spec)):
            if ref in methods and ref != key:
                visit(ref, (*path, key))
        seen.add(key)
        order.append(key)

    for key in methods:
        visit(key)
    return order
