"""Named preprocessing steps and the recipe language of the dataset catalog.

Every step is a pure function ``step(X, *params) -> X`` on a samples x features matrix: it never
modifies its input. A *recipe* chains steps; it is the ``preprocess`` column of
``config/datasets.tsv``.

Recipe syntax
-------------
``step;step(arg, arg);...``: step names separated by ``;``, applied left to right. A step takes
optional arguments in parentheses, matched in order to the step's parameters (see
:data:`STEPS`): numbers, or for a parameter with named choices (a step's ``choices``
attribute, e.g. ``haar1280(dataset)``) one of those words. Blanks are ignored and an empty recipe means "no preprocessing". Examples:

* ``standardize``
* ``threshold(1,16000);log10;standardize`` (Monti et al. 2003 LEUKEMIA: floor 1, ceiling 16000,
  log10, z-score each gene)
* ``threshold(,16000)`` (an empty argument keeps the default: here no floor, ceiling 16000)
* ``divide(16)``

Steps
-----
``standardize``
    z-score each feature over the samples, standard deviation with ddof=0. A constant feature
    (max == min) has no scale; it becomes a column of zeros rather than NaN, so it stays in the
    data and is simply uninformative.
``threshold(floor, ceiling)``
    clip values to ``[floor, ceiling]``; either bound may be omitted.
``log10``
    base-10 logarithm; every value must be > 0 (threshold with a positive floor first).
``log1p``
    natural logarithm of 1 + x, for counts; every value must be >= 0.
``divide(divisor)``
    divide every value by ``divisor`` (e.g. 8-bit or 0..16 pixels to [0, 1]).
``haar1280(normalizer)``
    rows are square images flattened row-major (32 x 32 = 1024 pixels); replaced by their
    two-level Haar wavelet features, 1280 for 32 x 32 (Zeng & Cheung 2008 PIE; see
    :mod:`fsclust.datasets.wavelets`). ``normalizer`` is ``per_image`` (the default, each
    level divided by each image's own mean ``|coefficient|``) or ``dataset`` (by the level's mean
    ``|coefficient|`` over the whole dataset): ``divide(255);haar1280`` or
    ``divide(255);haar1280(dataset)``.

A step that changes the number of features names the new columns with its ``feature_names``
attribute (a function of the input width), else ``<step>_<j>``.
"""

from __future__ import annotations

import dataclasses
import inspect
import re

import numpy as np

from fsclust.datasets.wavelets import haar1280

__all__ = [
    "standardize",
    "threshold",
    "log10",
    "log1p",
    "divide",
    "STEPS",
    "parse_recipe",
    "apply_recipe",
]


def standardize(X):
    """Z-score each feature (column) over the samples, ddof=0; constant features become 0.

    Examples
    --------
    >>> standardize([[1.0, 5.0], [3.0, 5.0]])
    array([[-1.,  0.],
           [ 1.,  0.]])
    """
    X = np.array(X, dtype=np.float64, copy=True)
    mean = X.mean(axis=0)
    X -= mean
    std = np.sqrt(np.mean(X * X, axis=0))
    # An exactly constant column is detected by its range, not by std == 0: rounding in the
    # mean can leave a constant column with a tiny non-zero std and blow it up to +-1.
    constant = np.ptp(X, axis=0) == 0 if X.shape[0] else np.ones(X.shape[1], dtype=bool)
    std[constant] = 1.0
    X /= std
    X[:, constant] = 0.0
    return X


def threshold(X, floor=None, ceiling=None):
    """Clip values to ``[floor, ceiling]`` (a None bound is not applied).

    Examples
    --------
    >>> threshold([[0.5, 20000.0, 50.0]], 1, 16000)
    array([[1.0e+00, 1.6e+04, 5.0e+01]])
    """
    if floor is not None and ceiling is not None and floor > ceiling:
        raise ValueError(f"threshold: floor {floor} is above ceiling {ceiling}")
    return np.clip(np.asarray(X, dtype=np.float64), floor, ceiling)


def log10(X):
    """Base-10 logarithm of every value; all values must be positive.

    Examples
    --------
    >>> log10([[1.0, 100.0]])
    array([[0., 2.]])
    """
    X = np.asarray(X, dtype=np.float64)
    if X.size and not np.all(X > 0):
        raise ValueError(
            f"log10: {int(np.sum(~(X > 0)))} values are <= 0 or NaN (min {np.nanmin(X)}); "
            "apply threshold with a positive floor first, e.g. 'threshold(1,16000);log10'"
        )
    return np.log10(X)


def log1p(X):
    """Natural logarithm of 1 + x (counts: 0 stays 0); all values must be non-negative.

    Examples
    --------
    >>> log1p([[0.0, np.e - 1]])
    array([[0., 1.]])
    """
    X = np.asarray(X, dtype=np.float64)
    # log1p is defined above -1, but a negative count or intensity means the data was
    # already transformed (centred or logged): taking the log again would be a mistake.
    if X.size and not np.all(X >= 0):
        raise ValueError(
            f"log1p: {int(np.sum(~(X >= 0)))} values are < 0 or NaN (min {np.nanmin(X)}); "
            "log1p is for counts and intensities, which are non-negative: is the data "
            "already transformed?"
        )
    return np.log1p(X)


def divide(X, divisor):
    """Divide every value by ``divisor``.

    Examples
    --------
    >>> divide([[0.0, 8.0, 16.0]], 16)
    array([[0. , 0.5, 1. ]])
    """
    if divisor is None or divisor == 0:
        raise ValueError("divide: the divisor must be a non-zero number, e.g. 'divide(16)'")
    return np.asarray(X, dtype=np.float64) / divisor


#: Step name -> function; the only list of recipe steps.
STEPS = {
    "standardize": standardize,
    "threshold": threshold,
    "log10": log10,
    "log1p": log1p,
    "divide": divide,
    "haar1280": haar1280,
}

_STEP_RE = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*(?:\((?P<args>[^()]*)\))?$")


def _step_params(name):
    return list(inspect.signature(STEPS[name]).parameters)[1:]


def parse_recipe(recipe):
    """Parse a recipe string into a list of ``(step_name, {param: value})``.

    Parameters
    ----------
    recipe : str or None
        ``;``-separated steps, see the module docstring. None or blank means no steps.

    Returns
    -------
    list of (str, dict)

    Examples
    --------
    >>> parse_recipe("threshold(1, 16000); log10;standardize")
    [('threshold', {'floor': 1.0, 'ceiling': 16000.0}), ('log10', {}), ('standardize', {})]
    >>> parse_recipe("")
    []
    """
    steps = []
    if recipe is None or not recipe.strip():
        return steps
    for part in recipe.split(";"):
        part = part.strip()
        if not part:
            raise ValueError(f"recipe {recipe!r}: empty step (two ';' in a row or a trailing ';')")
        match = _STEP_RE.match(part)
        if match is None:
            raise ValueError(
                f"recipe {recipe!r}: cannot parse step {part!r}; "
                "write 'name' or 'name(number, number)'"
            )
        name = match["name"]
        if name not in STEPS:
            raise ValueError(
                f"recipe {recipe!r}: unknown step {name!r}; valid steps: {', '.join(STEPS)}"
            )
        params = _step_params(name)
        kwargs = {}
        if match["args"] is not None and match["args"].strip():
            args = [a.strip() for a in match["args"].split(",")]
            if len(args) > len(params):
                raise ValueError(
                    f"recipe {recipe!r}: step {name!r} takes at most {len(params)} "
                    f"arguments ({', '.join(params) or 'none'}), got {len(args)}"
                )
            choices = getattr(STEPS[name], "choices", {})
            for param, arg in zip(params, args, strict=False):
                if arg == "":
                    continue
                if param in choices:
                    if arg not in choices[param]:
                        raise ValueError(
                            f"recipe {recipe!r}: argument {param}={arg!r} of step {name!r} "
                            f"must be one of {', '.join(choices[param])}, e.g. "
                            f"'{name}({choices[param][-1]})'"
                        )
                    kwargs[param] = arg
                    continue
                try:
                    kwargs[param] = float(arg)
                except ValueError:
                    raise ValueError(
                        f"recipe {recipe!r}: argument {param}={arg!r} of step {name!r} "
                        "is not a number"
                    ) from None
        steps.append((name, kwargs))
    return steps


def _describe(name, kwargs):
    if not kwargs:
        return name
    return f"{name}(" + ", ".join(
        f"{k}={v}" if isinstance(v, str) else f"{k}={v:g}" for k, v in kwargs.items()
    ) + ")"


def apply_recipe(ds, recipe, **params):
    """Apply a recipe to a dataset and record the applied steps in its provenance.

    Parameters
    ----------
    ds : Dataset
    recipe : str
        ``;``-separated steps (module docstring).
    **params : dict
        Per-step keyword arguments that override or complete the recipe's own, keyed by step
        name, e.g. ``threshold={"floor": 20}``. They apply to every occurrence of that step.

    Returns
    -------
    Dataset
        A new dataset; ``ds`` is unchanged. ``provenance["recipe"]`` is the recipe string and
        ``provenance["recipe_steps"]`` lists the applied steps with their arguments (appended
        to any steps already recorded).

    Examples
    --------
    >>> from fsclust.datasets.store import Dataset
    >>> ds = Dataset(X=[[1.0, 10.0], [3.0, 1000.0]], y=None, feature_names=["a", "b"],
    ...              sample_names=["s0", "s1"])
    >>> out = apply_recipe(ds, "log10;standardize")
    >>> out.X
    array([[-1., -1.],
           [ 1.,  1.]])
    >>> out.provenance["recipe_steps"]
    ['log10', 'standardize']
    """
    unknown = sorted(set(params) - set(STEPS))
    if unknown:
        raise ValueError(
            f"unknown step(s) {unknown} in parameters; valid steps: {', '.join(STEPS)}"
        )
    X = ds.X
    feature_names = list(ds.feature_names)
    relevant = ds.relevant_features
    applied = []
    for name, kwargs in parse_recipe(recipe):
        kwargs = {**kwargs, **params.get(name, {})}
        bad = sorted(set(kwargs) - set(_step_params(name)))
        if bad:
            raise ValueError(
                f"step {name!r} has no parameter(s) {bad}; it takes: "
                f"{', '.join(_step_params(name)) or 'no parameters'}"
            )
        width = X.shape[1]
        X = STEPS[name](X, **kwargs)
        if X.shape[1] != width:
            namer = getattr(STEPS[name], "feature_names", None)
            feature_names = (
                namer(width) if namer else [f"{name}_{j}" for j in range(X.shape[1])]
            )
            relevant = None  # the old columns are gone
        applied.append(_describe(name, kwargs))
    provenance = dict(ds.provenance)
    provenance["recipe"] = recipe or ""
    provenance["recipe_steps"] = list(provenance.get("recipe_steps", [])) + applied
    return dataclasses.replace(
        ds, X=X, feature_names=feature_names, provenance=provenance, relevant_features=relevant
    )
