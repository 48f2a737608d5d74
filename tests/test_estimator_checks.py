"""scikit-learn's API conformance checks on every estimator of fsclust.cluster and rankers."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from fsclust.cluster import KMeans, NormalizedCut, SpectralClustering
from fsclust.rankers import LaplacianScore, VarianceScore


@parametrize_with_checks(
    [KMeans(), SpectralClustering(), NormalizedCut(), VarianceScore(), LaplacianScore()]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
