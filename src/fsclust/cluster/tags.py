"""The tag fsclust's clusterers add to scikit-learn's, and the function that reads it."""

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
        scaling of :func:`~fsclust.cluster.kernel_kmeans.scale_features`, the features so
        scaled; None, ``fit`` needs the features themselves. :func:`fsclust.sweep.run_sweep`
        accumulates these distances over nested feature subsets.
    """

    sq_distance_space: str | None = None


def clusterer_tags(tags, *, sq_distance_space):
    """scikit-learn's ``tags`` (from ``super().__sklearn_tags__()``) with fsclust's tag added."""
    return ClustererTags(**{f.name: getattr(tags, f.name) for f in fields(Tags)},
                         sq_distance_space=sq_distance_space)


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
