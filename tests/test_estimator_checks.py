"""scikit-learn's API conformance checks on every estimator of fsclust.cluster and rankers."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from fsclust.cluster import LLC, KMeans, NormalizedCut, SpectralClustering
from fsclust.rankers import LaplacianScore, VarianceScore
from fsclust.rankers.frcm import FRCM
from fsclust.rankers.frmv import FRMV
from fsclust.rankers.uff import UFF
from fsclust.cluster.kernel_kmeans import KernelKMeans
from fsclust.rankers.gha import GHA
from fsclust.rankers.kpkmeans import KPKMeans
from fsclust.rankers.mcfs import MCFS
from fsclust.rankers.pca import PCARanking
from fsclust.rankers.spec import SPEC
from fsclust.rankers.llcfs import LLCFS
from fsclust.rankers.qalpha import QAlpha
from fsclust.rankers.evsfsc import EVSFSC
from fsclust.rankers.fsfs import FSFS
from fsclust.rankers.kernel_weighting import KernelWeightingClustering


@parametrize_with_checks(
    [KMeans(), SpectralClustering(), NormalizedCut(), VarianceScore(), LaplacianScore(),
     FRCM(n_partitions=5), UFF(), FRMV(n_partitions=5),
     KernelKMeans(), KPKMeans(n_clusters=3, max_inner=50), PCARanking(), GHA(n_epochs=5), SPEC(),
     MCFS(n_clusters=2),
     KernelWeightingClustering(), LLC(n_neighbors=5, neighborhood="knn"), LLCFS(n_neighbors=5, max_iter=5),
     QAlpha(n_clusters=2), EVSFSC(n_clusters=2),
     FSFS(n_features_to_select=2)]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
