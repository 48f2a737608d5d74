"""The workflow's steps, one function per step, called by the thin scripts under ``scripts/``.

Each step reads its inputs, calls the package, and writes its outputs atomically, so a killed
job leaves no half-written file and a rerun resumes from what is complete.

- :mod:`~fsclust.steps.process`: a step's log and BLAS threads, a fit under a time limit;
- :mod:`~fsclust.steps.data`: fetch and prepare a dataset, one repeat's view of it;
- :mod:`~fsclust.steps.planning`: each method's grid of m, time limit and order;
- :mod:`~fsclust.steps.rankings`: the files of a ranking run and what later methods read;
- :mod:`~fsclust.steps.evaluation`: rank and cluster every method, seed and m of a dataset;
- :mod:`~fsclust.steps.sweep`: cluster the top-m features for every m;
- :mod:`~fsclust.steps.tables`: the experiment's tables, figures and paper-versus-ours;
- :mod:`~fsclust.steps.grids`, :mod:`~fsclust.steps.seeds`, :mod:`~fsclust.steps.provenance`:
  parameter grids, derived seeds and the run's provenance record.

The names below are imported from their module on first use (:mod:`fsclust._lazy`).
"""

from fsclust._lazy import lazy_exports

# public name -> the module that defines it
_EXPORTS = {
    "logged": "process",
    "within_time_limit": "process",
    "FitFailure": "process",
    "download": "data",
    "prepare": "data",
    "load_view": "data",
    "evaluate": "evaluation",
    "FIT_STATUSES": "evaluation",
    "SWEEP_KEYS": "evaluation",
    "degenerate_reason": "evaluation",
    "method_time_limit": "planning",
    "method_grid": "planning",
    "referenced_methods": "planning",
    "sweep_grid": "planning",
    "read_artifact": "rankings",
    "reference_value": "rankings",
    "resolve_references": "rankings",
    "informative_count": "planning",
    "NOT_FITTED": "evaluation",
    "aggregate": "tables",
    "compare": "tables",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)
