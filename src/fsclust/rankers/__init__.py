"""Feature rankers: one module per method, all following :class:`FeatureRanker`.

The names below are imported from their module on first use (:mod:`fsclust._lazy`): running
one method imports that method only.
"""

from fsclust._lazy import lazy_exports

# public name -> the module that defines it
_EXPORTS = {
    "FeatureRanker": "base",
    "constant_features": "base",
    "mean_plus_std_rule": "base",
    "ranking_from_scores": "base",
    "BinomialDeviance": "deviance",
    "ConsensusCorrelation": "consensus_correlation",
    "EVSFSC": "evsfsc",
    "FRCM": "frcm",
    "FSFS": "fsfs",
    "FRMV": "frmv",
    "GHA": "gha",
    "HighlyVariableGenes": "hvg",
    "InfFS": "inffs",
    "JELSR": "jelsr",
    "KernelWeightingClustering": "kernel_weighting",
    "KPKMeans": "kpkmeans",
    "LLCFS": "llcfs",
    "LaplacianScore": "laplacian",
    "LaplacianScoreLargestFirst": "laplacian",
    "laplacian_score": "laplacian",
    "MCFS": "mcfs",
    "NDFS": "ndfs",
    "PCARanking": "pca",
    "QAlpha": "qalpha",
    "RUFS": "rufs",
    "RandomRanking": "random_order",
    "SOGFS": "sogfs",
    "SPEC": "spec",
    "UDFS": "udfs",
    "UFF": "uff",
    "VarianceScore": "variance",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)
