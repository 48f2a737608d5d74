"""fsclust: unsupervised feature selection for clustering.

Reference implementations of feature rankers, clusterers and evaluation metrics used by five
papers on feature selection for clustering, plus the data layer the Snakemake workflow uses.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("fsclust")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__", "select"]


def __getattr__(name):
    # fsclust.select pulls in scikit-learn and pandas: imported when first asked for, so that
    # `import fsclust` (and the command line's start-up) stays fast
    if name == "select":
        from fsclust.api import select

        return select
    raise AttributeError(f"module 'fsclust' has no attribute {name!r}")
