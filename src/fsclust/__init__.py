"""fsclust: unsupervised feature selection for clustering.

Reference implementations of feature rankers, clusterers and evaluation metrics used by five
papers on feature selection for clustering, plus the data layer the Snakemake workflow uses.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("fsclust")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
