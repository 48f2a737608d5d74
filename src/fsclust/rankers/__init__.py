"""Feature rankers: one module per method, all following :class:`FeatureRanker`."""

from .base import FeatureRanker, constant_features, mean_plus_std_rule, ranking_from_scores
from .consensus_correlation import ConsensusCorrelation
from .evsfsc import EVSFSC
from .frcm import FRCM
from .fsfs import FSFS
from .frmv import FRMV
from .gha import GHA
from .kernel_weighting import KernelWeightingClustering
from .kpkmeans import KPKMeans
from .llcfs import LLCFS
from .laplacian import LaplacianScore, LaplacianScoreLargestFirst, laplacian_score
from .mcfs import MCFS
from .ndfs import NDFS
from .pca import PCARanking
from .qalpha import QAlpha
from .random_order import RandomRanking
from .spec import SPEC
from .udfs import UDFS
from .uff import UFF
from .variance import VarianceScore

__all__ = [
    "ConsensusCorrelation",
    "EVSFSC",
    "FRCM",
    "FSFS",
    "FRMV",
    "GHA",
    "MCFS",
    "NDFS",
    "SPEC",
    "UDFS",
    "UFF",
    "FeatureRanker",
    "KPKMeans",
    "LLCFS",
    "KernelWeightingClustering",
    "LaplacianScore",
    "LaplacianScoreLargestFirst",
    "PCARanking",
    "QAlpha",
    "RandomRanking",
    "VarianceScore",
    "constant_features",
    "laplacian_score",
    "mean_plus_std_rule",
    "ranking_from_scores",
]
