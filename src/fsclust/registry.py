"""The one list of method and clusterer names.

A name maps to ``"module:Class"``, the default parameters of that preset and small test
parameters (as scikit-learn's ``_test_common/instance_generator.py``: what makes the estimator
fast on the tests' tiny data). Classes are imported lazily, so a new method is one module under
``fsclust.rankers`` (or ``fsclust.cluster``), one line here and its own tests: the tests'
estimator lists come from this table.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
from typing import NamedTuple


#: What a registered ranker is for: ``"method"``, a method every comparison runs;
#: ``"control"``, a reference point without a method (the random order); ``"paper-error"``, a
#: paper's reading error kept only to reproduce that paper's tables.
ROLES = ("method", "control", "paper-error")

#: The method name of the all-features control in every table, job and file name: clustering
#: on all ``d`` features (the papers' "nofs"). Reserved: no ranker may be registered under it.
ALL_FEATURES = "all-features"


class Entry(NamedTuple):
    """One registered estimator: ``"module:Class"``, preset parameters, test parameters and
    its role (one of :data:`ROLES`)."""

    path: str
    defaults: dict = {}
    test_params: dict = {}
    role: str = "method"


RANKERS = {
    "variance": Entry("fsclust.rankers.variance:VarianceScore"),
    "random": Entry("fsclust.rankers.random_order:RandomRanking", role="control"),
    "laplacian": Entry("fsclust.rankers.laplacian:LaplacianScore"),
    # Zhang et al. 2012 as run (its probable error): the same scores, the largest first
    "laplacian_largest_first": Entry("fsclust.rankers.laplacian:LaplacianScoreLargestFirst",
                                     role="paper-error"),
    "frcm": Entry("fsclust.rankers.frcm:FRCM", test_params={"n_partitions": 5}),
    "uff": Entry("fsclust.rankers.uff:UFF"),
    "frmv": Entry("fsclust.rankers.frmv:FRMV", test_params={"n_partitions": 5}),
    # Zhang et al. 2012's Figure 3: eta^2 with a consensus partition (CSPA, HBGF, average link)
    "consensus_correlation": Entry("fsclust.rankers.consensus_correlation:ConsensusCorrelation",
                                   test_params={"n_partitions": 5}),
    "kernel_weighting": Entry("fsclust.rankers.kernel_weighting:KernelWeightingClustering"),
    "kpkmeans": Entry("fsclust.rankers.kpkmeans:KPKMeans",
                      test_params={"n_clusters": 3, "max_inner": 50}),
    "pca": Entry("fsclust.rankers.pca:PCARanking"),
    "gha": Entry("fsclust.rankers.gha:GHA", test_params={"n_epochs": 5}),
    "spec": Entry("fsclust.rankers.spec:SPEC"),
    "mcfs": Entry("fsclust.rankers.mcfs:MCFS", test_params={"n_clusters": 2}),
    # Zeng & Cheung 2009: feature weights tau learned with a local learning clustering
    "llcfs": Entry("fsclust.rankers.llcfs:LLCFS", test_params={"n_neighbors": 5, "max_iter": 5}),
    # Wolf & Shashua 2005, the global counterpart LLC-fs is compared with
    "qalpha": Entry("fsclust.rankers.qalpha:QAlpha"),
    # Jiang & Ren 2011: eigenvector sensitivity for the spectral clustering of one Laplacian
    "evsfsc": Entry("fsclust.rankers.evsfsc:EVSFSC"),
    # Mitra, Murthy & Pal 2002: feature similarity (MICI), exact subsets per size
    "fsfs": Entry("fsclust.rankers.fsfs:FSFS", test_params={"n_features_to_select": 2}),
    # Roffo et al. 2015/2020: energy of all paths through a feature in a feature graph
    "inffs": Entry("fsclust.rankers.inffs:InfFS"),
    # Qian & Zhai 2013: robust (l2,1) orthogonal NMF labels and l2,1 regression, jointly
    "rufs": Entry("fsclust.rankers.rufs:RUFS", test_params={"n_clusters": 2, "max_iter": 3}),
    # Yang et al. 2011: l2,1-regularised local discriminative projection
    "udfs": Entry("fsclust.rankers.udfs:UDFS", test_params={"n_clusters": 2}),
    # Li et al. 2012: nonnegative spectral indicator and l2,1-sparse regression, jointly
    "ndfs": Entry("fsclust.rankers.ndfs:NDFS", test_params={"n_clusters": 2, "max_iter": 20}),
    # Hou et al. 2011/2014: LLE embedding and l2,1-sparse regression, jointly
    "jelsr": Entry("fsclust.rankers.jelsr:JELSR", test_params={"n_clusters": 2, "max_iter": 10}),
    # Nie et al. 2016: projection and an adaptive graph with exactly c components, jointly
    "sogfs": Entry("fsclust.rankers.sogfs:SOGFS",
                   test_params={"n_clusters": 2, "max_iter": 5, "inner_max_iter": 10}),
    # single-cell counts: scanpy's highly variable genes, one name per flavor. The estimator
    # checks take a class once, with its first name's parameters: seurat, on the checks'
    # non-integer values (check_values=False); seurat_v3's loess needs 14 genes or more and
    # cell_ranger's percentile bins distinct means, which the checks' 1 to 5 features are not
    # (tests/test_hvg.py tests those flavors)
    "hvg_seurat": Entry("fsclust.rankers.hvg:HighlyVariableGenes", {"flavor": "seurat"},
                        test_params={"check_values": False}),
    "hvg_seurat_v3": Entry("fsclust.rankers.hvg:HighlyVariableGenes", {"flavor": "seurat_v3"},
                           test_params={"check_values": False}),
    "hvg_cell_ranger": Entry("fsclust.rankers.hvg:HighlyVariableGenes",
                             {"flavor": "cell_ranger"}, test_params={"check_values": False}),
    "hvg_pearson_residuals": Entry("fsclust.rankers.hvg:HighlyVariableGenes",
                                   {"flavor": "pearson_residuals"},
                                   test_params={"check_values": False}),
    # Townes et al. 2019: binomial deviance of the raw counts (scry)
    "deviance": Entry("fsclust.rankers.deviance:BinomialDeviance",
                      test_params={"check_values": False}),
}

CLUSTERERS = {
    "kmeans": Entry("fsclust.cluster.kmeans:KMeans"),
    "ncut": Entry("fsclust.cluster.ncut:NormalizedCut"),
    # von Luxburg's three spectral clusterings; "njw" is Ng-Jordan-Weiss (L_sym, rows normalised)
    "spectral-unnormalized": Entry("fsclust.cluster.spectral:SpectralClustering",
                                   {"laplacian": "unnormalized"}),
    "spectral-rw": Entry("fsclust.cluster.spectral:SpectralClustering", {"laplacian": "rw"}),
    "njw": Entry("fsclust.cluster.spectral:SpectralClustering", {"laplacian": "sym"}),
    # kernel k-means (hand-written), Gaussian sigma = 1 on Maldonado et al.'s (2015) "normalized data"
    "kernel_kmeans": Entry("fsclust.cluster.kernel_kmeans:KernelKMeans"),
    # local learning based clustering (Wu & Schölkopf), linear kernel, mutual neighbours
    "llc": Entry("fsclust.cluster.llc:LLC", test_params={"n_neighbors": 5, "neighborhood": "knn"}),
}

_TABLES = {"method": RANKERS, "clusterer": CLUSTERERS}


class UnknownNameError(ValueError):
    """A method, clusterer or parameter name that the registry does not know (``name``)."""

    def __init__(self, message, name=None):
        super().__init__(message)
        self.name = name


def _import(path):
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def _lookup(kind, name):
    table = _TABLES[kind]
    try:
        return table[name]
    except KeyError:
        valid = ", ".join(sorted(table))
        raise UnknownNameError(f"unknown {kind} {name!r}; valid {kind}s: {valid}",
                               name) from None


def ranker_class(name):
    """Return the class registered as ranker ``name``."""
    return _import(_lookup("method", name).path)


def clusterer_class(name):
    """Return the class registered as clusterer ``name``."""
    return _import(_lookup("clusterer", name).path)


def _resolved_per_job(name, value):
    """Whether the workflow replaces ``value`` in each job, so that only then can it be checked:
    another method's result (``{selected_by: ...}``, ``{from: ..., attribute: ...}``) or the
    dataset's recorded relevant features (``init_features: relevant``)."""
    if isinstance(value, dict):
        return "selected_by" in value or "from" in value
    return name == "init_features" and value == "relevant"


def check_params(kind, name, params):
    """Check a registered name, its parameters' names and their values, without fitting.

    Values are checked against the class's ``_parameter_constraints`` (scikit-learn's
    declaration; a class without one gets its parameter names checked only). Values the
    workflow resolves per job (:func:`_resolved_per_job`) are left to the job.

    Parameters
    ----------
    kind : {"method", "clusterer"}
    name : str
        A registered name (its preset parameters are checked too).
    params : dict or None

    Returns
    -------
    cls : type
        The registered class.

    Raises
    ------
    UnknownNameError
        For an unknown name or parameter name; the message lists the valid ones.
    ValueError, TypeError
        scikit-learn's ``InvalidParameterError`` (both), one line naming the parameter, the
        allowed range or choices and the value.

    Examples
    --------
    >>> check_params("method", "laplacian", {"n_neighbors": 7}).__name__
    'LaplacianScore'
    >>> check_params("method", "laplacian", {"n_neighbors": -3})
    Traceback (most recent call last):
    ...
    sklearn.utils._param_validation.InvalidParameterError: The 'n_neighbors' parameter of \
LaplacianScore must be an int in the range [1, inf) or None. Got -3 instead.
    """
    entry = _lookup(kind, name)
    cls = _import(entry.path)
    params = {**entry.defaults, **(params or {})}
    accepted = set(inspect.signature(cls.__init__).parameters) - {"self"}
    unknown = sorted(set(params) - accepted)
    if unknown:
        close = difflib.get_close_matches(unknown[0], sorted(accepted), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise UnknownNameError(
            f"{kind} {name!r} has no parameter {unknown[0]!r}; {hint}"
            f"valid parameters: {', '.join(sorted(accepted))}", unknown[0])
    constraints = getattr(cls, "_parameter_constraints", None)
    if constraints is not None:
        # imported here: naming and listing methods needs no scikit-learn (2 s of start-up)
        from sklearn.utils._param_validation import validate_parameter_constraints

        validate_parameter_constraints(
            constraints,
            {key: value for key, value in params.items() if not _resolved_per_job(key, value)},
            caller_name=cls.__name__,
        )
    return cls


def _build(kind, name, params, n_clusters, random_state):
    cls = check_params(kind, name, params)
    accepted = set(inspect.signature(cls.__init__).parameters) - {"self"}
    kwargs = {**_lookup(kind, name).defaults, **(params or {})}
    # The workflow knows k and the seed; pass them only to estimators that take them.
    if n_clusters is not None and "n_clusters" in accepted:
        kwargs.setdefault("n_clusters", int(n_clusters))
    if random_state is not None and "random_state" in accepted:
        kwargs.setdefault("random_state", int(random_state))
    return cls(**kwargs)


def make_ranker(name, params=None, *, n_clusters=None, random_state=None):
    """Instantiate ranker ``name`` with ``params``, k and a seed where the class takes them.

    Examples
    --------
    >>> make_ranker("laplacian", {"n_neighbors": 7}).n_neighbors
    7
    >>> make_ranker("nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fsclust.registry.UnknownNameError: unknown method 'nope'; valid methods: ..., laplacian, ...
    """
    return _build("method", name, params, n_clusters, random_state)


def make_clusterer(name, params=None, *, n_clusters=None, random_state=None):
    """Instantiate clusterer ``name`` with ``params``, k and a seed."""
    return _build("clusterer", name, params, n_clusters, random_state)


def method_names():
    """Names of the registered feature-ranking methods."""
    return sorted(RANKERS)


def table_method_names():
    """The methods (role ``"method"``) that rank a table of real values: all but the models of
    raw single-cell counts (their class's ``RankerTags.counts_input``: scanpy's flavors, the
    deviance), which refuse real values and run through :mod:`fsclust.pp` on counts. What
    "all" means for a table (``fsclust.select``, the workflow's ``methods: all``).

    Examples
    --------
    >>> "laplacian" in table_method_names(), "hvg_seurat_v3" in table_method_names()
    (True, False)
    """
    from sklearn.utils import get_tags

    return [name for name in method_names_by_role("method")
            if not get_tags(ranker_class(name)()).ranker_tags.counts_input]


def method_names_by_role(role="method"):
    """Names of the registered rankers with ``role`` (one of :data:`ROLES`).

    A benchmark of "every method" takes ``method_names_by_role("method")``: it leaves out the
    random control, which it adds as a baseline, and the paper errors.

    Examples
    --------
    >>> method_names_by_role("control")
    ['random']
    >>> method_names_by_role("paper-error")
    ['laplacian_largest_first']
    """
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; valid roles: {', '.join(ROLES)}")
    return sorted(name for name, entry in RANKERS.items() if entry.role == role)


def clusterer_names():
    """Names of the registered clusterers."""
    return sorted(CLUSTERERS)


def small_test_params(kind, name):
    """The small parameters that make registered ``name`` fast on the tests' tiny data."""
    return dict(_lookup(kind, name).test_params)


#: The packaged results of the planted-structure suite (``speed/planted_suite.py --package``).
PLANTED_SUITE = "data/planted_suite.tsv"


class PlantedSuiteResult(NamedTuple):
    """A ranker's precision on the planted-structure suite at its defaults (issue 40)."""

    precision: float  # mean over the cases it ran: planted features among its top p
    random: float  # the random control's mean over the same cases
    cases: int  # the cases it ran (the count models run on the counts case only)
    worst_case: str
    worst: float


def planted_suite():
    """Each registered ranker's :class:`PlantedSuiteResult`, from the packaged table.

    The suite (``speed/planted_suite.py``) plants ``p`` features of ``d`` that separate ``K``
    groups, from wide to tall, raw and z-scored, and single-cell-like counts, and scores the
    top ``p`` of every ranker at its defaults; ``random`` is the random order's score on the
    same cases. A ranker missing from the table maps to None.

    Examples
    --------
    >>> suite = planted_suite()
    >>> suite["laplacian"].precision > suite["laplacian"].random
    True
    """
    from importlib.resources import files

    import pandas as pd

    with files("fsclust").joinpath(PLANTED_SUITE).open() as handle:
        table = pd.read_csv(handle, sep="\t", comment="#")
    table = table[table["status"] == "ok"]
    floor = table[table["method"] == "random"].set_index("case")["precision"]
    result = dict.fromkeys(method_names())
    for name, rows in table.groupby("method", sort=True):
        if name not in result:
            continue
        worst = rows.loc[rows["precision"].idxmin()]
        result[name] = PlantedSuiteResult(
            float(rows["precision"].mean()), float(floor.reindex(rows["case"]).mean()),
            int(len(rows)), str(worst["case"]), float(worst["precision"]))
    return result


#: The packaged record of the benchmark against random features
#: (``python -m fsclust.studies.benchmark.report --package``).
BENCHMARK_VS_RANDOM = "data/benchmark_vs_random.tsv"


class BenchmarkRecord(NamedTuple):
    """A method's record against random features in one family of the benchmark (issue 40).

    Over ``settings`` settings (2 clusterers x 3 metrics x 6 fixed fractions of d, at the true
    K), the Holm-adjusted Wilcoxon test over the family's ``n_datasets`` datasets finds it
    significantly ``better`` or ``worse`` than random features; ``m_better`` and ``m_worse``
    are the fractions of d where some setting is ("-" for none); ``comparisons`` is the
    number of methods tested against random features in the family (Holm's adjustment is over
    them); ``no_result`` is the most datasets of a setting where the method has no result (a
    time-out, a failure or a degenerate ranking, scored below every result) and
    ``m_no_result`` the fractions where that is more than half of them ("-" for none).
    """

    settings: int
    better: int
    worse: int
    m_better: str
    m_worse: str
    n_datasets: int
    comparisons: int
    no_result: int = 0
    m_no_result: str = "-"

    def smallest_p(self):
        """The smallest p-value the exact two-sided Wilcoxon signed-rank test over the family's
        ``n_datasets`` pairs can give, ``2 / 2**n`` (zero differences, dropped, only raise it)."""
        return 2.0 / 2.0 ** self.n_datasets

    def smallest_adjusted_p(self):
        """The smallest Holm-adjusted p-value the family's test can give: the exact two-sided
        Wilcoxon signed-rank test over ``n_datasets`` pairs is at least ``2 / 2**n``, and Holm's
        adjustment multiplies the smallest of ``comparisons`` p-values by their number. At or
        above 0.05, no method can be significantly better or worse than random features there.

        Examples
        --------
        >>> BenchmarkRecord(36, 0, 0, "-", "-", 8, 23).smallest_adjusted_p()
        0.1796875
        """
        return min(1.0, self.comparisons * self.smallest_p())


def benchmark_versus_random():
    """The packaged benchmark run's source and each method's :class:`BenchmarkRecord` per family.

    Returns
    -------
    source : str
        The run the table comes from (its date, commit and command), the table's first line.
    records : dict
        ``{method: {family: BenchmarkRecord}}`` for every registered ranker (``"expression"``,
        ``"image"`` and ``"all"`` families); a ranker the run did not include maps to None.

    Examples
    --------
    >>> source, records = benchmark_versus_random()
    >>> "commit" in source, sorted(records["laplacian"])
    (True, ['all', 'expression', 'image'])
    """
    from importlib.resources import files

    import pandas as pd

    with files("fsclust").joinpath(BENCHMARK_VS_RANDOM).open() as handle:
        first = handle.readline()
        table = pd.read_csv(handle, sep="\t", keep_default_na=False)
    source = first.lstrip("# ").split("; per family and method")[0].strip()
    comparisons = table.groupby("family")["method"].nunique()
    records = dict.fromkeys(method_names())
    for row in table.itertuples(index=False):
        if row.method in records:
            records[row.method] = records[row.method] or {}
            records[row.method][row.family] = BenchmarkRecord(
                int(row.settings), int(row.better), int(row.worse), str(row.m_better),
                str(row.m_worse), int(row.n_datasets), int(comparisons[row.family]),
                int(row.no_result), str(row.m_no_result))
    return source, records
