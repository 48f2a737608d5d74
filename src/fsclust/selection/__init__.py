"""The label-free choice of the number of selected features m and of clusters K.

- :mod:`~fsclust.selection.selector`: :class:`LabelFreeSelector`, which scores every (m, K)
  from resampled clusterings, and the rule that chooses among them;
- :mod:`~fsclust.selection.stability`: the criteria's measures (clustering stability,
  proportion of ambiguous clustering, feature-set stability, the eigengap);
- :mod:`~fsclust.selection.figure`: the one-page summary figure of ``fsclust select``.

The names below are imported from their module on first use (:mod:`fsclust._lazy`).
"""

from fsclust._lazy import lazy_exports

# public name -> the module that defines it
_EXPORTS = {name: "selector" for name in (
    "CRITERIA", "RULES", "N_RANDOM", "PAC_MAX_PAIRS", "LabelFreeSelector", "choose",
    "cluster_space", "default_feature_grid", "mean_silhouette", "mean_silhouettes",
    "most_stable_set", "null_data", "STABLE_SET_PHI", "resample_clusterer_params",
    "subsample_size")}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)
