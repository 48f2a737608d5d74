"""The tags fsclust's clusterers add to scikit-learn's, and the functions that read them."""

from __future__ import annotations

from dataclasses import dataclass, fields

from sklearn.utils import Tags, get_tags


@dataclass(slots=True)
class ClustererTags(Tags):
    """scikit-learn's :class:`~sklearn.utils.Tags` plus what a feature sweep asks a clusterer.

    Parameters
    ----------
    sq_distance_space : str or None, default=None
        The features whose squared Euclidean distances ``fit`` accepts as ``sq_distances``,
        giving the same result as from those features: ``"none"``, the features as given; a
        scaling of :func:`~fsclust.graphs.scale_features`, the features so
        scaled; None, ``fit`` needs the features themselves. :func:`fsclust.steps.sweep.run_sweep`
        accumulates these distances over nested feature subsets.
    reported_attributes : tuple of str, default=()
        Fitted attributes a workflow reports beside the scores of the partition (the
        clusterer-side counterpart of a ranker's ``reported_attributes``): diagnostics such as
        an objective or the components of a graph, one column each in a sweep's rows.
    relabels : bool, default=False
        Whether ``random_state`` only seeds the discretisation of a deterministic embedding,
        so that ``relabel(random_state)`` of one fitted model gives the labels of a fit with
        that ``random_state``, and its reported attributes do not depend on it: a sweep then
        fits once for every repeat and only relabels.
    """

    sq_distance_space: str | None = None
    reported_attributes: tuple = ()
    relabels: bool = False


def clusterer_tags(tags, *, sq_distance_space=None, reported_attributes=(), relabels=False):
    """scikit-learn's ``tags`` (from ``super().__sklearn_tags__()``) with fsclust's tags added."""
    return ClustererTags(**{f.name: getattr(tags, f.name) for f in fields(Tags)},
                         sq_distance_space=sq_distance_space,
                         reported_attributes=tuple(reported_attributes), relabels=relabels)


def distance_space(model):
    """The squared distances ``model.fit`` accepts as ``sq_distances``, or None.

    Read from the model's tags (:class:`ClustererTags`); None for estimators without them.

    Examples
    --------
    >>> from fsclust.cluster import KernelKMeans, KMeans, NormalizedCut
    >>> distance_space(NormalizedCut()), distance_space(NormalizedCut(affinity="knn"))
    ('none', None)
    >>> distance_space(KernelKMeans(scale="zscore")), distance_space(KMeans())
    ('zscore', None)
    """
    return getattr(get_tags(model), "sq_distance_space", None)


def reported_attributes(model):
    """The fitted attributes ``model`` reports beside its partition (:class:`ClustererTags`).

    Examples
    --------
    >>> from fsclust.cluster import LLC, KMeans
    >>> reported_attributes(LLC()), reported_attributes(KMeans())
    (('objective_', 'n_isolated_', 'n_components_'), ())
    """
    return getattr(get_tags(model), "reported_attributes", ())


def relabels(model):
    """Whether one fit of ``model`` serves every seed through ``relabel`` (:class:`ClustererTags`).

    Examples
    --------
    >>> from fsclust.cluster import LLC, KMeans
    >>> relabels(LLC()), relabels(KMeans())
    (True, False)
    """
    return getattr(get_tags(model), "relabels", False)
