"""Feature rankers: one module per method, all following :class:`FeatureRanker`."""

from .base import FeatureRanker, constant_features, ranking_from_scores
from .laplacian import LaplacianScore, laplacian_score
from .variance import VarianceScore

__all__ = [
    "FeatureRanker",
    "LaplacianScore",
    "VarianceScore",
    "constant_features",
    "laplacian_score",
    "ranking_from_scores",
]
