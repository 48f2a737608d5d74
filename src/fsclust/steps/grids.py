"""Parameter grids of a method or clusterer, declared in the configuration and expanded into
named variants.

A method (or clusterer) spec of an experiment may carry ``grid:``, a mapping of parameter names to lists of
values or a list of such mappings (scikit-learn's :class:`~sklearn.model_selection.ParameterGrid`:
the union of the products of each mapping), as benchopt's ``parameters`` do. The spec stands
for one method per point of the grid: the point's values over the spec's ``params``, every
other field (``method``, ``seed_key``, ``sweep``, ``clusterers``, ...) copied, and a key made
from ``name`` (a :meth:`str.format` pattern over the grid's parameters) or, without ``name``,
``{key}-{parameter}{value}-...`` in the grid's (sorted) parameter order.
"""

from __future__ import annotations

from sklearn.model_selection import ParameterGrid

__all__ = ["expand_grids", "variant_key"]

#: Fields of a method spec that describe its grid, not a method.
GRID_FIELDS = ("grid", "name")


def variant_key(key, point, name=None):
    """The key of the variant of method ``key`` at grid ``point``.

    Examples
    --------
    >>> variant_key("llcfs", {"lam": 0.5, "n_neighbors": 30})
    'llcfs-lam0.5-n_neighbors30'
    >>> variant_key("llcfs", {"lam": 0.5, "n_neighbors": 30}, name="llcfs_k{n_neighbors}")
    'llcfs_k30'
    """
    if name is not None:
        return name.format(**point)
    return "-".join([key, *(f"{p}{point[p]}" for p in sorted(point))])


def expand_grids(methods, kind="method"):
    """``methods`` (an experiment's ``{key: spec}`` of methods, or of clusterers with
    ``kind="clusterer"``) with every spec that has a ``grid`` replaced by its variants, in
    order; specs without a grid are returned unchanged.

    Raises ValueError, in one line naming the method (or clusterer), when a grid is empty, two
    points get the same key, or a variant's key is already a key of the experiment.

    Examples
    --------
    >>> methods = {"kp": {"method": "kpkmeans", "params": {"step": "fixed", "lam": 1.0},
    ...                   "grid": [{"lam": [0.5, 2.0]}, {"gamma": [4.0]}]}}
    >>> for key, spec in expand_grids(methods).items():
    ...     print(key, spec["params"])
    kp-lam0.5 {'step': 'fixed', 'lam': 0.5}
    kp-lam2.0 {'step': 'fixed', 'lam': 2.0}
    kp-gamma4.0 {'step': 'fixed', 'lam': 1.0, 'gamma': 4.0}
    >>> list(expand_grids({"llc": {"method": "llc", "name": "llc-k{n_neighbors}",
    ...                            "grid": {"n_neighbors": [10, 20]}}}, kind="clusterer"))
    ['llc-k10', 'llc-k20']
    """
    out = {}
    for key, spec in methods.items():
        if "grid" not in spec:
            if key in out:
                raise ValueError(f"{kind} {key!r}: a grid variant of another {kind} has this key")
            out[key] = spec
            continue
        points = list(ParameterGrid(spec["grid"]))
        if not points or points == [{}]:
            raise ValueError(f"{kind} {key!r}: its grid has no point; give each parameter a "
                             "non-empty list of values")
        base = {f: v for f, v in spec.items() if f not in GRID_FIELDS}
        for point in points:
            variant = variant_key(key, point, spec.get("name"))
            if variant in out or (variant != key and variant in methods):
                raise ValueError(f"{kind} {key!r}: grid variant {variant!r} is already a {kind} "
                                 "of the experiment; give the grid a `name` pattern that tells "
                                 "its points apart")
            out[variant] = {**base, "params": {**(spec.get("params") or {}), **point}}
    return out
