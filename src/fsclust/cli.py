"""Command line: select the features of your own matrix, rank them, list datasets and methods.

    fsclust select --method NAME[,NAME...]|all --input FILE|- --output-dir DIR|-
                   [--features-in-rows] [--label-column COL] [--impute median]
                   [--log1p | --log10 [--floor F] [--ceiling C]] [--top-variable N]
                   [--standardize] [--n-features auto|M] [--n-clusters auto|K]
                   [--criterion ...] [--rule ...] [--n-resamples R] [--subsample F]
                   [--n-jobs J] [--seed S] [--set PARAM=VALUE ...] [--top N]
                   [--write-matrix] [--figure] [--strict] [--quiet | --verbose]
    fsclust rank --method NAME --input FILE|- --output FILE|- [the input flags above]
                 [--n-clusters K] [--seed S] [--set PARAM=VALUE ...] [--strict]
    fsclust datasets [--catalog config/datasets.tsv] [--mirror DIR] [--check]
    fsclust methods [NAME | --markdown]
    fsclust --version

Both ``select`` and ``rank`` read the matrix with :func:`fsclust.userdata.read_user_matrix`
(every format it knows, ``-`` for stdin) and preprocess it with
:func:`fsclust.userdata.preprocess`; ``select`` then calls :func:`fsclust.api.select`, which
chooses the number of features m and of clusters K without labels, and writes its tables:
``ranking.tsv``, ``labels.tsv``, ``criterion.tsv`` and ``summary.json`` in DIR (with several
methods, in ``DIR/<method>/``, and ``DIR/agreement.tsv``), all or none.

Bad input ends with one line ``fsclust: error: ...`` on stderr and exit code 2, before anything
is written; outputs are written atomically, so a failed run leaves no file behind. With
``--strict``, a degenerate ranking (decided by ties, or a fit whose ``status_`` says it has no
ranking) ends with exit code 3 after writing.
"""

from __future__ import annotations

import argparse
import inspect
import os
import re
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import yaml

from fsclust import __version__

# What `select` writes into --output-dir (or into DIR/<method>/ with several methods); an
# earlier run's files are the only ones it may replace.
_SELECT_FILES = ("ranking.tsv", "labels.tsv", "criterion.tsv", "summary.json")
_OPTIONAL_FILES = ("reduced.tsv", "result.h5ad", "summary.png", "summary.svg")
_AGREEMENT_FILE = "agreement.tsv"
_FLOAT_FORMAT = "%.17g"  # every float written back exactly
_SHOW = 5  # names quoted in a message before "..."
# A fit shows its start line once it has run this long (at once with --verbose): short fits
# stay quiet, long ones (KP-Kmeans: about a minute) say what is going on.
_PROGRESS_AFTER = 2.0
# The keyword arguments of fsclust.select as the flags that set them, so that the API's
# messages reach the command line in its own words.
_API_FLAGS = {"method": "--method", "n_features": "--n-features", "n_clusters": "--n-clusters",
              "subsample": "--subsample", "random_state": "--seed", "n_jobs": "--n-jobs",
              "n_resamples": "--n-resamples", "criterion": "--criterion", "rule": "--rule"}


def _quote_names(names, limit=_SHOW):
    names = list(names)
    shown = ", ".join(repr(n) for n in names[:limit])
    return shown + (", ..." if len(names) > limit else "")


def _warn(message):
    print(f"fsclust: warning: {message}", file=sys.stderr)


class _Log:
    """The stderr lines other than warnings and errors: none with ``--quiet``, more with
    ``--verbose``."""

    def __init__(self, args):
        self.level = 0 if getattr(args, "quiet", False) else 2 if getattr(args, "verbose",
                                                                          False) else 1

    def info(self, message):
        if self.level >= 1:
            print(message, file=sys.stderr)

    def detail(self, message):
        if self.level >= 2:
            print(message, file=sys.stderr)


class _Progress:
    """``laplacian: fitting 30 subsamples...`` once a fit has run :data:`_PROGRESS_AFTER`
    seconds (at once with ``--verbose``), and then its done line with the seconds it took."""

    def __init__(self, log, method, what):
        self.log, self.method, self.what = log, method, what
        self.shown = False

    def _show(self):
        self.shown = True
        print(f"{self.method}: fitting {self.what}...", file=sys.stderr, flush=True)

    def __enter__(self):
        self.start = time.perf_counter()
        self.timer = None
        if self.log.level >= 2:
            self._show()
        elif self.log.level == 1:
            self.timer = threading.Timer(_PROGRESS_AFTER, self._show)
            self.timer.daemon = True
            self.timer.start()
        return self

    def __exit__(self, kind, *_):
        if self.timer is not None:
            self.timer.cancel()
            self.timer.join()
        if self.shown and kind is None:
            print(f"{self.method}: done in {time.perf_counter() - self.start:.1f} s",
                  file=sys.stderr)
        return False


def _in_flag_words(message):
    """An API message with its keyword arguments named as the command line's flags."""
    message = re.sub(r"\bmethod_params\b", "--set", message)
    for name, flag in _API_FLAGS.items():
        # name=VALUE (a quoted string loses its quotes), and "change name" / ": name)"
        message = re.sub(rf"(?<![\w-]){name}=(?:'([^']*)'|(\S+?))(?=[\s,;:)]|$)",
                         lambda m, flag=flag: f"{flag} {m.group(1) or m.group(2)}", message)
        message = re.sub(rf"(change|: ){name}\b(?!=)", rf"\1{flag}", message)
    return message


def _unknown_method(name, valid, flag="--method"):
    """The one-line error for a method name the registry does not know."""
    from fsclust.api import did_you_mean

    return ValueError(f"{flag} {name}: unknown method {name!r}; {did_you_mean(name, valid)}"
                      f"valid methods: {', '.join(valid)} (see 'fsclust methods')")


def _parse_pairs(pairs):
    """``--set PARAM=VALUE`` pairs as (key, text, value), values read as YAML scalars
    (10 -> int, 0.5 -> float, true -> bool)."""
    parsed = []
    for pair in pairs or []:
        key, sep, text = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"--set expects PARAM=VALUE, got {pair!r} (e.g. --set n_neighbors=10)")
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError:
            value = text
        parsed.append((key, text, value))
    return parsed


def _method_defaults(method):
    from fsclust.registry import ranker_class

    return {name: par.default
            for name, par in inspect.signature(ranker_class(method).__init__).parameters.items()
            if name != "self"}


def _parse_set(pairs, methods):
    """Parse ``--set PARAM=VALUE`` pairs into each method's parameters.

    Values must match the type of the parameter's default value when it is a number or a
    bool; then the registry checks the names and the values against the method's declared
    constraints. With several methods a pair goes to every method that has the parameter, and
    a parameter none of them has is an error.
    """
    from fsclust.registry import check_params

    parsed = _parse_pairs(pairs)
    defaults = {method: _method_defaults(method) for method in methods}
    if len(methods) > 1:
        for key, _, _ in parsed:
            if not any(key in d for d in defaults.values()):
                raise ValueError(f"--set {key}: none of the methods ({', '.join(methods)}) has "
                                 f"a parameter {key!r}; see 'fsclust methods NAME'")
    out = {}
    for method in methods:
        params = {}
        for key, text, value in parsed:
            if key in defaults[method]:
                params[key] = _check_set_type(key, text, value, defaults[method][key])
            elif len(methods) == 1:
                params[key] = value  # the registry names the unknown parameter below
        try:
            check_params("method", method, params)
        except (ValueError, TypeError) as exc:  # an UnknownNameError names the parameter
            name = getattr(exc, "name", None)
            raise ValueError(f"--set {name}: {exc}" if name else f"--set: {exc}") from None
        out[method] = params
    return out


def _check_set_type(key, text, value, default):
    """Return ``value`` converted to the type of ``default``, or raise naming the expected type."""
    if value is None or default is None or default is inspect.Parameter.empty:
        return value  # no default to learn the type from: the estimator validates in fit
    if isinstance(default, bool):
        expected, ok = "true or false", isinstance(value, bool)
    elif isinstance(default, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        expected, ok = "an integer", isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, float):
        expected = "a number"
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        value = float(value) if ok else value
    else:
        return value  # strings and the rest: the estimator knows its choices
    if not ok:
        raise ValueError(
            f"--set {key}={text}: {key} expects {expected} (default {default!r}), got {text!r}"
        )
    return value


def _check_output(output):
    """Fail before any work when ``--output`` cannot be written."""
    path = Path(output)
    if path.is_dir():
        raise ValueError(f"--output {output} is a directory; give a file name, e.g. "
                         f"{path / 'ranking.tsv'}")
    _check_parent(f"--output {output}", path.parent)


def _check_parent(flag, parent):
    """Fail when the folder ``parent`` an output goes into is missing or not writable."""
    if not parent.exists():
        raise ValueError(f"{flag}: directory {parent} does not exist")
    if not parent.is_dir():
        raise ValueError(f"{flag}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{flag}: directory {parent} is not writable")


def _check_output_dir(output_dir):
    """Fail before any work when ``--output-dir`` cannot be written or holds other files.

    The folder is replaced as a whole (:func:`fsclust._io.atomic_dir`), so that the files
    appear together or not at all; it must therefore be new, empty or an earlier output of
    ``select``, never a folder whose other files the replacement would delete.
    """
    from fsclust.registry import method_names

    flag = f"--output-dir {output_dir}"
    path = Path(output_dir)
    here = Path.cwd()
    if path.resolve() in (here, *here.parents):
        raise ValueError(f"{flag} is the current directory or above it; give a new directory")
    if path.exists() and not path.is_dir():
        raise ValueError(f"{flag} is a file; give a directory name")
    if path.is_dir():
        ours = {*_SELECT_FILES, *_OPTIONAL_FILES}

        def earlier_output(p):
            if p.is_dir():  # DIR/<method>/ of an earlier run with several methods
                return p.name in method_names() and all(q.name in ours for q in p.iterdir())
            return p.name in ours or p.name == _AGREEMENT_FILE

        others = sorted(p.name for p in path.iterdir() if not earlier_output(p))
        if others:
            raise ValueError(f"{flag} holds other files ({_quote_names(others)}) that writing "
                             "would delete; give a new or empty directory")
        if not os.access(path, os.W_OK | os.X_OK):
            raise ValueError(f"{flag}: directory {path} is not writable")
    _check_parent(flag, path.parent)


def _read_matrix(args, log):
    """The ``--input`` matrix, read and preprocessed as the flags ask; its warnings printed.

    Returns the :class:`fsclust.userdata.UserMatrix` and the warnings about it (imputed cells,
    raw-looking values), which the summary records.
    """
    from fsclust.userdata import CLI_FLAGS, preprocess, raw_count_warning, read_user_matrix

    matrix = read_user_matrix(args.input, label_column=args.label_column,
                              features_in_rows=args.features_in_rows, impute=args.impute,
                              flags=CLI_FLAGS)
    matrix = preprocess(matrix, log1p=args.log1p, log10=args.log10, floor=args.floor,
                        ceiling=args.ceiling, standardize=args.standardize,
                        top_variable=args.top_variable, flags=CLI_FLAGS)
    raw = raw_count_warning(matrix, CLI_FLAGS)
    found = [*matrix.warnings, *([raw] if raw else [])]
    for message in found:
        _warn(message)
    n, d = matrix.X.shape
    log.detail(f"read {n} samples x {d} features from {matrix.source} ({matrix.format}); "
               f"preprocessing: {', '.join(matrix.preprocessing) or 'none'}")
    return matrix, found


def _n_classes(matrix):
    return int(np.unique(matrix.y).size)


def _rank_n_clusters(args, params, matrix, method):
    """K for ``rank`` and the words saying where it came from; checked to lie in
    2..n_samples before fitting. None for a method that takes no K."""
    n = matrix.X.shape[0]
    defaults = _method_defaults(method)
    if "n_clusters" in params:
        k, source = params["n_clusters"], f"--set n_clusters={params['n_clusters']}"
    elif args.n_clusters is not None:
        k, source = args.n_clusters, f"--n-clusters {args.n_clusters}"
    elif matrix.y is not None and "n_clusters" in defaults:
        k = _n_classes(matrix)
        source = (f"--label-column {args.label_column!r} has {k} class(es), so K = {k}, "
                  "which")
    elif "n_clusters" in defaults:
        k = defaults["n_clusters"]
        return k, (f"K = {k}: {method}'s default, not estimated from the data; give "
                   "--n-clusters K, or let 'fsclust select' estimate it")
    else:
        return None, "it takes no K"
    if not isinstance(k, int) or not 2 <= k <= n:
        hint = "; give --n-clusters K" if source.startswith("--label-column") else ""
        raise ValueError(f"{source} is out of range: the number of clusters must be between 2 "
                         f"and the number of samples ({n}){hint}")
    if "n_clusters" not in defaults:
        return None, "it takes no K"
    if source.startswith("--label-column"):
        source = f"the number of classes of --label-column {args.label_column!r}"
    return k, f"K = {k}: {source}"


def _with_flag_hint(message, method):
    """Append the flag that sets each ``name=`` parameter an estimator's message complains of."""
    flags = {"n_clusters": "--n-clusters K", "random_state": "--seed S"}
    named = [name for name in _method_defaults(method) if f"{name}=" in message]
    hints = [flags.get(name, f"--set {name}=VALUE") for name in named]
    return message.rstrip(". ") + (f"; change it with {', '.join(hints)}" if hints else "")


def _write_stdout(table):
    table.to_csv(sys.stdout, sep="\t", index=False, float_format=_FLOAT_FORMAT)


def _cmd_rank(args):
    from types import SimpleNamespace

    from fsclust import api
    from fsclust.rankers.base import status_warnings
    from fsclust.ranking import RANKING_COLUMNS, rank_features, write_ranking
    from fsclust.registry import method_names

    log = _Log(args)
    if args.method not in method_names():  # an unknown method fails first
        raise _unknown_method(args.method, method_names())
    params = _parse_set(args.set, [args.method])[args.method]
    if args.output != "-":
        _check_output(args.output)
    matrix, _ = _read_matrix(args, log)
    n_clusters, k_words = _rank_n_clusters(args, params, matrix, args.method)
    constant = api.constant_features(matrix)
    try:
        ranker = rank_features(matrix.X[:, ~constant], args.method, params,
                               n_clusters=n_clusters, random_state=args.seed)
    except ValueError as exc:
        raise ValueError(_with_flag_hint(str(exc), args.method)) from None
    # the ranking table of select(), constants last; rank selects nothing
    nothing = SimpleNamespace(ranker_=ranker, support_=np.zeros(int((~constant).sum()), bool))
    table, _ = api.ranking_with_ties(nothing, matrix.feature_names, constant)
    if constant.any():
        _warn(f"{int(constant.sum())} constant feature(s) "
              f"({_quote_names(np.asarray(matrix.feature_names, dtype=object)[constant])}) "
              "ranked last with "
              f"score {table['score'].iat[-1]:.6g}")
    status, no_ranking = status_warnings(args.method, ranker)
    ties, tied = api.tie_warnings(args.method, table, constant)
    for message in status + ties:
        _warn(message)
    table = table[RANKING_COLUMNS]
    if args.output == "-":
        _write_stdout(table)
    else:
        write_ranking(table, args.output)
    n, d = matrix.X.shape
    log.info(f"ranked {d} features of {n} samples with {args.method} ({k_words}); wrote "
             f"{'the ranking to stdout' if args.output == '-' else args.output}")
    if args.strict and (tied or no_ranking):
        print(f"fsclust: error: {args.method}: the ranking is not the method's (see the "
              "warnings above); --strict makes that exit code 3", file=sys.stderr)
        return 3
    return 0


# Selector parameters whose defaults --help shows: LabelFreeSelector declares them, once.
_SELECTOR_DEFAULTS = ("n_features", "n_clusters", "criterion", "rule", "n_resamples",
                      "subsample")


def _auto_or_int(text, words=("auto",)):
    """``auto`` (or another of ``words``) or an integer (its range is checked against the
    data)."""
    if text in words:
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expects {' or '.join(words)} or an integer, got "
                                         f"{text!r}") from None


def _positive_int(text):
    """An integer of at least 1 (a count of features)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expects a positive integer, got {text!r}")
    return value


def _selector_options(args):
    """The LabelFreeSelector parameters of the command line, checked before reading the data:
    flags left out take the selector's own defaults."""
    from fsclust.selection import CRITERIA, RULES

    # m and K are select()'s own arguments; the others pass through to the selector
    given = {name: getattr(args, name) for name in (*_SELECTOR_DEFAULTS, "n_jobs")
             if name not in ("n_features", "n_clusters")}
    options = {name: value for name, value in given.items() if value is not None}
    for name, valid in (("criterion", CRITERIA), ("rule", RULES)):
        if name in options and options[name] not in valid:
            raise ValueError(f"--{name} {options[name]}: choose one of {', '.join(valid)}")
    if "subsample" in options and not 0 < options["subsample"] < 1:
        raise ValueError(f"--subsample {options['subsample']} is out of range: the fraction of "
                         "the samples in each subsample lies strictly between 0 and 1 (e.g. 0.8)")
    if "n_resamples" in options and options["n_resamples"] < 2:
        raise ValueError(f"--n-resamples {options['n_resamples']} is out of range: stability "
                         "compares subsamples, so at least 2")
    if options.get("n_jobs") == 0:
        raise ValueError("--n-jobs 0: give a number of parallel jobs (-1: all cores)")
    return options


def _auto(value):
    """A flag left out is "auto" (the selector searches it)."""
    return "auto" if value is None else value


def _select_methods(text):
    """The method names of ``--method a,b,c`` or ``all``, checked against the registry."""
    from fsclust.api import resolve_methods

    names = [name.strip() for name in text.split(",")]
    return resolve_methods("all" if names == ["all"] else names)


def _k_words(summary):
    """Where K came from, in the command line's words."""
    source = summary["k_source"]
    if source == "given":
        return "K given by --n-clusters"
    if source == "labels":
        return (f"K from the {summary['n_classes']} classes of --label-column "
                f"{summary['label_column']!r}")
    return f"K estimated by the selector ({summary['criterion']}, rule {summary['rule']})"


def _fit_each(matrix, names, args, options, params, log):
    """One SelectionResult per method, each fit announced when it takes a while."""
    from fsclust.api import select
    from fsclust.selection import LabelFreeSelector

    n_resamples = options.get("n_resamples", LabelFreeSelector().n_resamples)
    searched = (args.n_features in (None, "auto") or args.n_clusters == "search"
                or (args.n_clusters in (None, "auto") and matrix.y is None))
    # with m and K given nothing is resampled: one fit
    what = f"{n_resamples} subsamples" if searched else "the method"
    results = {}
    for name in names:
        with _Progress(log, name, what):
            results[name] = select(matrix, name, n_features=_auto(args.n_features),
                                   n_clusters=_auto(args.n_clusters), random_state=args.seed,
                                   method_params=params[name], **options)
    return results


def _report(results, input_warnings, log):
    """Print every warning once and the choice of each method, K's source included; record
    the input's warnings in each summary."""
    several = len(results) > 1
    printed = set(input_warnings)
    for name, result in results.items():
        summary = result.summary
        own = [w if not several or w.startswith(f"{name}:") else f"{name}: {w}"
               for w in summary["warnings"]]
        summary["warnings"] = list(dict.fromkeys([*input_warnings, *summary["warnings"]]))
        for message in own:
            if message not in printed:
                printed.add(message)
                _warn(message)
        prefix = f"{name}: " if several else ""
        log.info(f"{prefix}kept {summary['n_features']} of {summary['n_features_in']} features, "
                 f"K = {summary['n_clusters']} clusters ({summary['choice']}); "
                 f"{_k_words(summary)}")
        stable = summary.get("stable_n_features")
        if stable is not None and stable != summary["n_features"]:
            log.info(f"{prefix}the most stable set at K = {summary['n_clusters']} is m = "
                     f"{stable} (feature-set stability {summary['stable_feature_stability']:.2f},"
                     f" its clusterings as stable; --rule stable-set keeps it)")


def _write_result(result, folder, args):
    """A method's files in ``folder``."""
    import json

    from fsclust.ranking import write_ranking

    write_ranking(result.ranking, folder / "ranking.tsv")
    result.labels.to_csv(folder / "labels.tsv", sep="\t", index=False)
    result.criterion.to_csv(folder / "criterion.tsv", sep="\t", index=False,
                            float_format=_FLOAT_FORMAT)
    (folder / "summary.json").write_text(json.dumps(result.summary, indent=2) + "\n")
    if args.write_matrix:
        result.reduced().to_csv(folder / "reduced.tsv", sep="\t", index_label="sample",
                                float_format=_FLOAT_FORMAT)
    if result.matrix.adata is not None:
        _write_h5ad(result.to_anndata(), folder / "result.h5ad")
    if args.figure:
        # matplotlib costs about 2 s: imported only when a figure is drawn
        from fsclust.selection.figure import plot_selection_summary

        plot_selection_summary(result, folder / "summary")


def _write_h5ad(adata, path):
    """Write ``adata`` (from :meth:`fsclust.api.SelectionResult.to_anndata`, whose names and
    text columns are plain strings, writable whatever the pandas and anndata versions)."""
    adata.write_h5ad(path)


def _print_top(results, n):
    """The ``--top N`` features of each method, as TSV on stdout."""
    import pandas as pd

    tables = []
    for name, result in results.items():
        top = result.ranking.head(n)
        tables.append(top.assign(method=name)[["method", *top.columns]] if len(results) > 1
                      else top)
    _write_stdout(pd.concat(tables, ignore_index=True))


def _single_cell_input(args):
    """Whether ``select`` reads ``--input`` as single-cell counts: asked (``--counts``,
    ``--layer``), a 10x folder or ``.h5``, Matrix Market, or an ``.h5ad`` whose ``X`` is stored
    sparse and holds non-negative integers (its first stored values, read alone); any other
    ``.h5ad`` stays a table of features, as before."""
    if args.counts or args.layer:
        return True
    if args.input == "-":
        return False
    path = Path(args.input)
    name = path.name.lower()
    if path.is_dir() or name.endswith((".h5", ".mtx", ".mtx.gz")):
        return True
    if name.endswith(".h5ad") and path.is_file():
        import h5py

        try:
            with h5py.File(path, "r") as handle:
                X = handle.get("X")
                if not isinstance(X, h5py.Group) or "data" not in X:  # sparse: a group
                    return False
                head = X["data"][:100_000]
                return bool(head.size and np.all(head >= 0) and np.all(head == np.rint(head)))
        except OSError:
            return False  # the table reader names what is wrong with the file
    return False


#: flags of the table path that single-cell counts do not take, with why
_NOT_FOR_COUNTS = {"features_in_rows": "--features-in-rows", "impute": "--impute",
                   "log1p": "--log1p", "log10": "--log10", "floor": "--floor",
                   "ceiling": "--ceiling", "top_variable": "--top-variable",
                   "standardize": "--standardize", "write_matrix": "--write-matrix",
                   "figure": "--figure"}

_COUNT_FLAGS = {"layer": "--layer", "empty": "--empty", "make_unique": "--make-unique",
                "source": "--input"}


def _cmd_select_counts(args, names, params, log):
    """``select`` on single-cell counts (issue 39): read sparse, rank every gene with each
    method (:func:`fsclust.pp.select_features`), keep ``--n-features``, cluster the cells on
    the kept genes (Leiden on their kNN graph, or k-means on their principal components with
    ``--n-clusters K``), write ranking.tsv, labels.tsv and summary.json, all or none."""
    import json

    import pandas as pd

    from fsclust import pp
    from fsclust._io import atomic_dir
    from fsclust.counts import read_counts

    for key, flag in _NOT_FOR_COUNTS.items():
        if getattr(args, key, None) not in (None, False):
            raise ValueError(f"{flag} is for tables of features; single-cell counts are "
                             "normalised and log-transformed by select itself (--normalized "
                             "if they already are)")
    if args.n_features in (None, "auto"):
        raise ValueError("--n-features auto is not available for single-cell counts (the "
                         "label-free choice of m runs on dense tables); give --n-features M, "
                         "for example 2000")
    if args.output_dir == "-":
        raise ValueError("--output-dir - is for tables of features; give a directory for "
                         "single-cell counts")
    _check_output_dir(args.output_dir)
    started = time.perf_counter()
    adata = read_counts(args.input, layer=args.layer, empty=args.empty,
                        make_unique=args.make_unique, flags=_COUNT_FLAGS)
    m = int(args.n_features)
    if m > adata.n_vars:
        raise ValueError(f"--n-features {m} is more than the {adata.n_vars} genes")
    labels_true = None
    if args.label_column:
        if args.label_column not in adata.obs:
            raise ValueError(f"--label-column {args.label_column!r} is not an obs column of "
                             f"{args.input}")
        labels_true = adata.obs[args.label_column].astype(str).to_numpy()
    read_s = time.perf_counter() - started
    log.info(f"read {adata.n_obs:,} cells x {adata.n_vars:,} genes ({adata.X.nnz:,} counts "
             f"stored) from {args.input} in {read_s:.1f} s")
    outputs = {}
    for name in names:
        with _Progress(log, name, "a ranking of every gene"):
            t0 = time.perf_counter()
            pp.select_features(adata, name, n_top_genes=m, batch_key=args.batch_key,
                               normalize=not args.normalized, min_cells=args.min_cells,
                               method_params=params.get(name), random_state=args.seed)
            rank_s = time.perf_counter() - t0
        var, info = adata.var, dict(adata.uns["fsclust"])
        ranking = pd.DataFrame({"feature": adata.var_names.astype(str),
                                "score": var["fsclust_score"].to_numpy(),
                                "rank": var["fsclust_rank"].to_numpy(),
                                "selected": var["fsclust_selected"].to_numpy()})
        if "fsclust_n_batches" in var:
            ranking["n_batches"] = var["fsclust_n_batches"].to_numpy()
        ranking = ranking.sort_values("rank", kind="stable")
        t0 = time.perf_counter()
        labels, k, how = _cluster_cells(adata, var["fsclust_selected"].to_numpy(), args)
        cluster_s = time.perf_counter() - t0
        summary = {"method": name, "input": str(args.input), "n_cells": int(adata.n_obs),
                   "n_genes": int(adata.n_vars), "n_features": m, "n_clusters": int(k),
                   "clustering": how, "read": adata.uns.get("fsclust_read", {}),
                   "ranking": info, "seconds": {"read": round(read_s, 2),
                                                "rank": round(rank_s, 2),
                                                "cluster": round(cluster_s, 2)}}
        if labels_true is not None:
            from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

            summary["ari"] = float(adjusted_rand_score(labels_true, labels))
            summary["nmi"] = float(normalized_mutual_info_score(labels_true, labels))
        prefix = f"{name}: " if len(names) > 1 else ""
        log.info(f"{prefix}kept {m} of {adata.n_vars} genes, K = {k} clusters ({how}); "
                 f"ranked in {rank_s:.1f} s, clustered in {cluster_s:.1f} s")
        outputs[name] = (ranking, pd.DataFrame({"sample": adata.obs_names.astype(str),
                                                "cluster": labels}), summary)
    out = Path(args.output_dir)
    with atomic_dir(out) as tmp:
        for name, (ranking, labels, summary) in outputs.items():
            folder = tmp / name if len(names) > 1 else tmp
            folder.mkdir(exist_ok=True)
            ranking.to_csv(folder / "ranking.tsv", sep="\t", index=False,
                           float_format=_FLOAT_FORMAT)
            labels.to_csv(folder / "labels.tsv", sep="\t", index=False)
            (folder / "summary.json").write_text(json.dumps(summary, indent=2,
                                                            default=_json_default) + "\n")
    log.info(f"wrote {out}/ (ranking.tsv, labels.tsv, summary.json)")
    if args.top:
        _write_stdout(pd.concat([r.head(args.top).assign(method=n) for n, (r, _, _) in
                                 outputs.items()], ignore_index=True))
    return 0


def _json_default(value):
    """numpy scalars and arrays in summary.json."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


def _cluster_cells(adata, selected, args):
    """The cells' clusters on the selected genes: Leiden on the kNN graph of their principal
    components (K is the partition's), or k-means into ``--n-clusters K`` on those components."""
    from fsclust.counts import normalize_log1p
    from fsclust.graphs import pca_embedding, pca_knn_graph

    X = adata.X[:, np.flatnonzero(selected)]
    if not args.normalized:
        X = normalize_log1p(X)
    n_pcs = int(min(50, X.shape[1] - 1, X.shape[0] - 1))
    if isinstance(args.n_clusters, int):
        from sklearn.cluster import KMeans

        E, _ = pca_embedding(X, n_pcs, random_state=args.seed)
        labels = KMeans(args.n_clusters, n_init=10, random_state=args.seed).fit_predict(E)
        return labels, args.n_clusters, f"k-means on {n_pcs} principal components"
    from fsclust.cluster.leiden import leiden_labels

    W = pca_knn_graph(X, n_neighbors=15, n_pcs=n_pcs, random_state=args.seed)
    labels = leiden_labels(W, resolution=args.resolution, random_state=args.seed)
    return labels, int(labels.max()) + 1, (f"Leiden, resolution {args.resolution}, on the "
                                           f"15-nearest-neighbour graph of {n_pcs} principal "
                                           "components")


def _cmd_select(args):
    from fsclust._io import atomic_dir

    log = _Log(args)
    to_stdout = args.output_dir == "-"
    try:
        names = _select_methods(args.method)
    except ValueError as exc:
        raise ValueError(_in_flag_words(str(exc))) from None
    params = _parse_set(args.set, names)
    if _single_cell_input(args):
        return _cmd_select_counts(args, names, params, log)
    options = _selector_options(args)
    if to_stdout and len(names) > 1:
        raise ValueError(f"--output-dir - writes one method's ranking to stdout; with "
                         f"{len(names)} methods give a directory")
    if to_stdout and (args.top or args.write_matrix or args.figure):
        flag = "--top" if args.top else "--write-matrix" if args.write_matrix else "--figure"
        raise ValueError(f"--output-dir - writes only the ranking to stdout; {flag} needs a "
                         "directory")
    if not to_stdout:
        _check_output_dir(args.output_dir)
    matrix, input_warnings = _read_matrix(args, log)
    try:
        results = _fit_each(matrix, names, args, options, params, log)
    except ValueError as exc:
        message = str(exc)
        name = message.split(":", 1)[0]
        if name in names:  # a method's own complaint: name the flag that changes it
            message = _with_flag_hint(message, name)
        raise ValueError(_in_flag_words(message)) from None
    _report(results, input_warnings, log)

    if to_stdout:
        _write_stdout(results[names[0]].ranking)
    else:
        out = Path(args.output_dir)
        with atomic_dir(out) as tmp:
            for name, result in results.items():
                folder = tmp / name if len(names) > 1 else tmp
                folder.mkdir(exist_ok=True)
                _write_result(result, folder, args)
            if len(names) > 1:
                _agreement(results, args).to_csv(tmp / _AGREEMENT_FILE, sep="\t", index=False)
        where = f"{out}/<method>/ and {out}/{_AGREEMENT_FILE}" if len(names) > 1 else f"{out}/"
        written = sorted(p.name for p in (out / names[0] if len(names) > 1 else out).iterdir())
        log.info(f"wrote {where} ({', '.join(written)})")
    if args.top:
        _print_top(results, args.top)
    degenerate = [name for name, result in results.items() if result.summary["degenerate"]]
    if args.strict and degenerate:
        print(f"fsclust: error: {', '.join(degenerate)}: the ranking is decided by ties (see "
              "the warnings above); --strict makes that exit code 3", file=sys.stderr)
        return 3
    return 0


def _agreement(results, args):
    """The agreement table of :class:`fsclust.api.MultiSelection` over ``results``."""
    from fsclust import api

    matrix = next(iter(results.values())).matrix
    return api.agreement_table(results, _auto(args.n_features), api.constant_features(matrix))


def _cmd_datasets(args):
    from pathlib import Path

    from fsclust.datasets import catalog_status, default_mirror, load_catalog

    catalog = load_catalog(args.catalog)
    mirror = getattr(args, "mirror", None) or default_mirror()
    check = getattr(args, "check", False)
    status = catalog_status(catalog, Path("data") / "raw", mirror, check=check)
    by_dataset = {}
    for st in status:
        by_dataset.setdefault(st.dataset, []).append(st)

    def size(entry):
        cells = [entry.n_samples, entry.n_features, entry.n_classes]
        return " x ".join("?" if c is None else str(c) for c in cells)

    def local(entry):
        files = by_dataset.get(entry.id, [])
        if not files:
            return "built-in"
        present = [f for f in files if f.status != "absent"]
        if not present:
            return "absent"
        where = "+".join(sorted({f.location for f in present}))
        return where if len(present) == len(files) else f"partial ({where})"

    rows = [("id", "n x d x k", "source", "substitute", "local", "papers")]
    for entry in catalog.values():
        rows.append((entry.id, size(entry), f"{entry.source}/{entry.format}",
                     "yes" if entry.substitute else "no", local(entry), entry.papers or ""))
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]) - 1)]
    for r in rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(r, widths)) + "  " + str(r[-1]))
    if not check:
        return 0
    print()
    mismatch = 0
    for st in status:
        where = f" ({st.location}: {st.path})" if st.path else ""
        detail = f"; {st.detail}" if st.detail else ""
        print(f"{st.status:<8} {st.dataset}  {st.file}{where}{detail}")
        mismatch += st.status == "MISMATCH"
    counts = {s: sum(st.status == s for st in status) for s in ("OK", "MISMATCH", "absent")}
    print(f"checked {len(status)} files: {counts['OK']} OK, {counts['MISMATCH']} MISMATCH, "
          f"{counts['absent']} absent", file=sys.stderr)
    return 1 if mismatch else 0


def _cmd_methods(args):
    from fsclust.registry import clusterer_names, method_names

    if args.markdown:
        if args.name is not None:
            raise ValueError(f"fsclust methods --markdown prints the whole page and takes no "
                             f"NAME (got {args.name!r})")
        print(methods_markdown(), end="")
        return 0
    if args.name is None:
        print("feature-ranking methods: " + ", ".join(method_names()))
        print("clusterers: " + ", ".join(clusterer_names()))
        return 0
    if args.name not in method_names():
        raise _unknown_method(args.name, method_names(), flag="fsclust methods")
    print(_describe_method(args.name))
    return 0


def _docstring_section(doc, title):
    """The body of numpydoc section ``title`` in ``doc`` (up to the next section), or ""."""
    lines = doc.splitlines()
    for i in range(len(lines) - 1):
        if lines[i].strip() == title and set(lines[i + 1].strip()) == {"-"}:
            body = []
            for j in range(i + 2, len(lines)):
                if j + 1 < len(lines) and lines[j].strip() and set(lines[j + 1].strip()) == {"-"}:
                    break
                body.append(lines[j])
            return "\n".join(body).strip()
    return ""


def _summary(doc):
    """A numpydoc docstring's summary (its first paragraph) on one line, or ""."""
    return " ".join(doc.split("\n\n")[0].split()) if doc else ""


# The first citation of a References section: "Authors (year)" before the title.
_CITATION = re.compile(r"(?P<authors>[^()\"]+?)\s*\((?P<year>\d{4})\)")


def _short_reference(doc):
    """The first reference of ``doc``'s References section as "Authors year" (initials
    dropped), else that section's first line, else ""."""
    section = _docstring_section(doc, "References")
    match = _CITATION.match(" ".join(section.split()))
    if match is None:
        return section.splitlines()[0].strip() if section else ""
    authors = re.sub(r",(?: [A-Z]\.)+(?= &|,|$)", "", match["authors"])
    return f"{authors} {match['year']}"


def _allowed(constraints):
    """A parameter's ``_parameter_constraints`` entry in words."""
    return " or ".join(c.__name__ if isinstance(c, type) else str(c) for c in constraints)


def _describe_method(name):
    """``fsclust methods NAME``: the method's summary, reference, parameters and whether it
    takes K, all read from its class (docstring, signature, ``_parameter_constraints``)."""
    from fsclust.registry import ranker_class

    cls = ranker_class(name)
    doc = inspect.getdoc(cls) or ""
    constraints = getattr(cls, "_parameter_constraints", {})
    lines = [f"{name}: {_summary(doc) or cls.__name__}",
             f"class: {cls.__module__}.{cls.__name__}"]
    reference = _docstring_section(doc, "References")
    if reference:
        lines += ["reference:", *(f"  {line}" for line in reference.splitlines())]
    lines.append("parameters (set with --set NAME=VALUE):")
    for param, default in _method_defaults(name).items():
        allowed = f"; allowed: {_allowed(constraints[param])}" if param in constraints else ""
        lines.append(f"  {param} = {default!r}{allowed}")
    takes_k = "n_clusters" in _method_defaults(name)
    lines.append("takes K: " + ("yes (n_clusters: --n-clusters K, or estimated by fsclust "
                                "select)" if takes_k else "no"))
    lines.append("planted suite: " + _planted_words(name))
    from fsclust.registry import benchmark_versus_random

    source, records = benchmark_versus_random()
    lines.append("benchmark vs random: " + _benchmark_words(name, records[name]))
    losing = _loses_to_random(records[name])
    if losing:
        note = getattr(cls, "benchmark_note", None)
        lines.append("  it loses to random features at its defaults on "
                     + " and ".join(_FAMILY_WORDS[family] for family in losing)
                     + (f": {note}" if note else ""))
    if records[name] is not None:
        lines.append(f"  (the packaged run: {source})")
    return "\n".join(lines)


#: The benchmark's families in words, in the order shown.
_FAMILY_WORDS = {"expression": "expression data", "image": "images", "all": "all sets"}


def _fractions_words(fractions):
    """A record's fractions of d ("1% 5%") in words ("at 1%, 5% of d"), "" for none."""
    return "" if fractions == "-" else f" (at {', '.join(fractions.split())} of d)"


def _family_words(family, record):
    """One family's record against random features in words."""
    return (f"on {_FAMILY_WORDS[family]} ({record.n_datasets} sets), better in {record.better} "
            f"of {record.settings} settings{_fractions_words(record.m_better)}, worse in "
            f"{record.worse}{_fractions_words(record.m_worse)}"
            + (" (too few sets for any to be significant)"
               if record.smallest_adjusted_p() >= 0.05 else "")
            + (f", with no result (a time-out, a failure or a degenerate ranking) on more than "
               f"half of the sets{_fractions_words(record.m_no_result)}"
               if record.m_no_result != "-" else ""))


def _benchmark_words(name, record, families=("expression", "image", "all")):
    """A ranker's benchmark record against random features in words
    (:func:`fsclust.registry.benchmark_versus_random`), or why it has none."""
    if record is None:
        from fsclust.registry import RANKERS, table_method_names

        if RANKERS[name].role == "paper-error":
            return "not in the benchmark (a paper's reading error, kept for its tables)"
        if RANKERS[name].role == "method" and name not in table_method_names():
            return ("not in the benchmark (it models raw single-cell counts; the benchmark's "
                    "sets are microarrays and images)")
        if RANKERS[name].role == "control":
            return "the benchmark's floor: every method is tested against it"
        return "not in the packaged run"
    return "; ".join(_family_words(family, record[family]) for family in families
                     if family in record)


def _loses_to_random(record):
    """The families where a method is significantly worse than random features in more
    settings than it is better (the benchmark's "loses to random at its defaults")."""
    if record is None:
        return []
    return [family for family in ("expression", "image") if family in record
            and record[family].worse > record[family].better]


def _planted_words(name, suite=None):
    """A ranker's planted-suite result in words (:func:`fsclust.registry.planted_suite`)."""
    from fsclust.registry import planted_suite

    result = (planted_suite() if suite is None else suite).get(name)
    if result is None:
        return "not run"
    text = (f"{result.precision:.2f} of the planted features in its top p, mean of "
            f"{result.cases} case{'s' if result.cases > 1 else ''} (random features "
            f"{result.random:.2f}")
    if result.cases > 1:
        text += f"; worst {result.worst:.2f} on {result.worst_case}"
    text += ")"
    if name != "random" and result.precision <= result.random:
        from fsclust.registry import ranker_class

        text += ": no better than random features at its defaults"
        note = getattr(ranker_class(name), "planted_suite_note", None)
        if note:
            text += f", {note}"
    return text


_METHODS_INTRO = """\
<!-- Generated by `fsclust methods --markdown > docs/methods.md`: do not edit by hand. -->

# Methods

A feature ranker in fsclust is a scikit-learn estimator (a subclass of
`fsclust.rankers.base.FeatureRanker`). `fit(X)` sets `scores_`, one raw score per feature as
its paper defines it; `ranking_`, the rank of each feature with 1 = best (the convention of
scikit-learn's `RFE.ranking_`); and `feature_order_`, the feature indices, best first.
`transform(X)` keeps the top `n_features_to_select` features; changing that number with
`set_params` needs no refit, so a sweep over the number m of selected features is
`set_params(n_features_to_select=m).transform(X)`.

Each ranker is listed under the name that `fsclust methods`, `fsclust rank --method`,
`fsclust select --method` and an experiment's `methods: {{key: {{method: NAME}}}}` use. Its
role says what it is for: a *method* is run by every comparison; the *control* is a reference
point without a method, which a benchmark adds as a baseline; a *paper error* is a paper's
reading error, kept only to reproduce that paper's tables. "Takes K" says whether it has a
number of clusters `n_clusters` (`--n-clusters K`, or estimated by `fsclust select`). The
results' `{all_features}` is not a ranker: it clusters on all the features.

This page is built from `src/fsclust/registry.py` and each class's docstring;
`fsclust methods NAME` prints a ranker's parameters with their allowed values and its full
references.
"""

_PLANTED_WORDS = """\
"Planted suite" is what a ranker finds at its defaults where the answer is known
(`speed/planted_suite.py`, read from `src/fsclust/data/planted_suite.tsv`): p features of d
planted to separate K groups, from wide (80 x 2,000) to tall (800 x 200), weak and strong,
2 to 8 groups, raw and z-scored features, and single-cell-like counts; the share of the planted
features among the ranker's top p, the mean over the cases it ran, beside random features'
share on the same cases. The count models run on the counts case only."""

_BENCHMARK_WORDS = """\
"Benchmark vs random" is each method against random features in the benchmark
([benchmark.md](benchmark.md)): the settings (2 clusterers x 3 metrics x 6 fixed fractions of d,
at the true K; 36 in all) where the Holm-adjusted Wilcoxon test over the datasets finds it
significantly better, then worse, on the expression sets, then the images; "no result at"
names the fractions of d where the method has no result on more than half of the sets (its
fits stopped at the benchmark's time limit, failed or gave a degenerate ranking, each scored
below every result): there the record is of its cost, not of its features; "—" for a ranker
the benchmark does not run. `fsclust methods NAME` gives the fractions of d. The packaged
run: {source}."""


def _powerless_families(records):
    """A paragraph (and its blank line) for each family where the benchmark's test cannot
    find any method significantly better or worse than random features: too few datasets for
    the number of methods compared
    (:meth:`~fsclust.registry.BenchmarkRecord.smallest_adjusted_p`)."""
    lines = []
    for family in ("expression", "image"):
        record = next((r[family] for r in records.values() if r and family in r), None)
        if record is not None and record.smallest_adjusted_p() >= 0.05:
            lines += [f"On {_FAMILY_WORDS[family]} ({record.n_datasets} sets) no method can be "
                      f"significantly better or worse than random features: the exact Wilcoxon "
                      f"test over {record.n_datasets} sets gives at least p = 2 / "
                      f"2^{record.n_datasets} = {record.smallest_p():.4f}, "
                      f"{record.smallest_adjusted_p():.2f} after Holm's adjustment over the "
                      f"{record.comparisons} methods compared; their 0 / 0 says nothing either "
                      "way.", ""]
    return lines


def _benchmark_cell(record):
    """A ranker's benchmark column: "expression better/worse; images better/worse" of 36."""
    if record is None:
        return "—"
    return "; ".join(f"{_FAMILY_WORDS[family].split()[0]} {record[family].better} / "
                     f"{record[family].worse} of {record[family].settings}"
                     + (f" (no result at {', '.join(record[family].m_no_result.split())})"
                        if record[family].m_no_result != "-" else "")
                     for family in ("expression", "image") if family in record)


_ROLE_WORDS = {"method": "method", "control": "control", "paper-error": "paper error"}


def _cell(text):
    """``text`` as one Markdown table cell: one line, its ``|`` escaped (also in code)."""
    return " ".join(str(text).split()).replace("|", r"\|") or "—"


def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(_cell(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def methods_markdown():
    """The methods page, ``docs/methods.md``, in Markdown, from the registry alone.

    Every registered ranker, grouped by role (:data:`fsclust.registry.ROLES`), with its
    summary, first reference and whether it takes K, read from its class as
    ``fsclust methods NAME`` reads them; then every clusterer. ``fsclust methods --markdown``
    prints it.

    Examples
    --------
    >>> page = methods_markdown()
    >>> page.splitlines()[2]
    '# Methods'
    >>> "| `laplacian` | method |" in page
    True
    """
    from fsclust.registry import (ALL_FEATURES, CLUSTERERS, ROLES, benchmark_versus_random,
                                  clusterer_class, clusterer_names, method_names_by_role,
                                  planted_suite, ranker_class)

    suite = planted_suite()
    source, records = benchmark_versus_random()
    rankers, below, loses = [], [], []
    for role in ROLES:
        for name in method_names_by_role(role):
            doc = inspect.getdoc(ranker_class(name)) or ""
            takes_k = "yes" if "n_clusters" in _method_defaults(name) else "no"
            result = suite.get(name)
            planted = "—" if result is None else (
                f"{result.precision:.2f} ({result.random:.2f})" if result.cases > 1 else
                f"{result.precision:.2f} ({result.random:.2f}), {result.worst_case} only")
            rankers.append((f"`{name}`", _ROLE_WORDS[role], _summary(doc),
                            _short_reference(doc), takes_k, planted,
                            _benchmark_cell(records[name])))
            if (result is not None and name != "random"
                    and result.precision <= result.random):
                below.append(f"- `{name}`: {_planted_words(name, suite)}.")
            losing = _loses_to_random(records[name])
            if losing:
                note = getattr(ranker_class(name), "benchmark_note", None)
                loses.append(f"- `{name}`: loses to random features in the benchmark at its "
                             "defaults: " + "; ".join(_family_words(f, records[name][f])
                                                      for f in losing)
                             + (f": {note}" if note else "") + ".")
    clusterers = []
    for name in clusterer_names():
        preset = ", ".join(f"`{key}={value!r}`"
                           for key, value in CLUSTERERS[name].defaults.items())
        clusterers.append((f"`{name}`", _summary(inspect.getdoc(clusterer_class(name)) or ""),
                           preset))
    return "\n".join([
        _METHODS_INTRO.format(all_features=ALL_FEATURES),
        "## Feature rankers",
        "",
        _PLANTED_WORDS,
        "",
        _table(("name", "role", "what it is", "reference", "takes K",
                "planted suite (random)", "benchmark vs random: better / worse"), rankers),
        "",
        *(["At its defaults, on the planted suite:", "", *below, ""] if below else []),
        _BENCHMARK_WORDS.format(source=source),
        "",
        *_powerless_families(records),
        *(["At its defaults, in the benchmark:", "", *loses, ""] if loses else []),
        "## Clusterers",
        "",
        "An experiment clusters the selected features with these (`clusterers:`, "
        "`{method: NAME, params: {...}}`).\nA name with preset parameters is its class with "
        "those parameters.",
        "",
        _table(("name", "what it is", "preset parameters"), clusterers),
        "",
    ])


class _SelectHelp(argparse.Action):
    """``select --help``: shows LabelFreeSelector's defaults, read only then, so that other
    commands do not pay for importing it."""

    def __call__(self, parser, namespace, values, option_string=None):
        from fsclust.selection import LabelFreeSelector

        signature = inspect.signature(LabelFreeSelector).parameters
        parser.set_defaults(**{name: signature[name].default for name in _SELECTOR_DEFAULTS})
        parser.print_help()
        parser.exit()


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line, like every other bad input; no abbreviated flags (rank's
    ``--top`` would silently be ``--top-variable``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, allow_abbrev=False, **kwargs)

    def error(self, message):
        self.exit(2, f"fsclust: error: {message} (see '{self.prog} --help')\n")


def _add_input_flags(command, method_help):
    """--method, --input and how to read and preprocess it, which rank and select share; the
    names are those of :data:`fsclust.userdata.CLI_FLAGS`."""
    command.add_argument("--method", required=True, help=method_help)
    command.add_argument("--input", required=True, metavar="FILE|-",
                         help="the matrix: TSV, CSV or TXT (also .gz, .bz2, .xz, .zip), "
                              ".parquet or .h5ad; - reads a text table from stdin. Samples in "
                              "rows, first column sample ids, header of feature names (see "
                              "--features-in-rows)")
    command.add_argument("--features-in-rows", action="store_true",
                         help="the table has features (genes) in rows and samples in columns, "
                              "as most expression files: it is transposed")
    command.add_argument("--label-column", default=None, metavar="COL",
                         help="column holding class labels (with --features-in-rows: the row; "
                              "for .h5ad: the obs column), excluded from the features and never "
                              "used to choose; its number of classes is K when --n-clusters is "
                              "not given")
    command.add_argument("--impute", choices=["median"], default=None,
                         help="replace empty, NaN or infinite cells by their column's median "
                              "(default: such cells are an error)")
    steps = command.add_argument_group(
        "preprocessing", "applied in this order: --floor/--ceiling, --log1p or --log10, "
                         "--top-variable, --standardize; recorded in summary.json")
    log = steps.add_mutually_exclusive_group()
    log.add_argument("--log1p", action="store_true", help="log(1 + x): for counts")
    log.add_argument("--log10", action="store_true",
                     help="log10(x): for intensities; every value must be > 0 (give --floor)")
    steps.add_argument("--floor", type=float, metavar="F",
                       help="clip values below F to F (before the log)")
    steps.add_argument("--ceiling", type=float, metavar="C",
                       help="clip values above C to C (before the log)")
    steps.add_argument("--top-variable", type=_positive_int, metavar="N",
                       help="keep the N features of largest variance (after the log)")
    steps.add_argument("--standardize", action="store_true",
                       help="z-score each feature (last)")
    command.add_argument("--set", action="append", metavar="PARAM=VALUE",
                         help="method parameter, e.g. --set n_neighbors=10 (repeatable; with "
                              "several methods, for each method that has it)")
    command.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    talk = command.add_mutually_exclusive_group()
    talk.add_argument("--quiet", action="store_true", help="print warnings and errors only")
    talk.add_argument("--verbose", action="store_true",
                      help="print what was read and every fit's progress")


def build_parser():
    parser = _Parser(
        prog="fsclust", description="Unsupervised feature selection for clustering."
    )
    parser.add_argument("--version", action="version", version=f"fsclust {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    rank = sub.add_parser("rank", help="rank the features of a matrix with one method")
    _add_input_flags(rank, "feature-ranking method (see 'fsclust methods')")
    rank.add_argument("--output", required=True, metavar="FILE|-",
                      help="TSV written with columns feature, score, rank; - writes it to "
                           "stdout")
    rank.add_argument("--n-clusters", type=int, default=None, metavar="K",
                      help="number of clusters K, between 2 and the number of samples, for methods "
                           "that need it (default: the number of classes in --label-column, "
                           "else the method's own default, which is printed)")
    rank.add_argument("--strict", action="store_true",
                      help="exit with code 3 when the ranking is not the method's (all scores "
                           "equal, or a fit whose status says so)")
    rank.set_defaults(func=_cmd_rank)

    select = sub.add_parser(
        "select", add_help=False,
        help="choose m features and K clusters without labels, and cluster",
        description="Rank the features with --method, choose how many to keep (m) and how "
                    "many clusters (K) by the stability of resampled clusterings, without "
                    "labels, and cluster all samples on the chosen features. Writes "
                    "ranking.tsv (feature, score, rank, selected, tied), labels.tsv (sample, "
                    "cluster), criterion.tsv (every criterion with its standard error for "
                    "every (m, K), and the feature-set stability with its 95 % interval) and "
                    "summary.json (m, K and where K came from, the preprocessing, every "
                    "warning) into DIR, all or none; with several methods, into DIR/<method>/, "
                    "with DIR/agreement.tsv. Exit codes: 0 done, 2 bad input, 3 a degenerate "
                    "ranking with --strict.")
    select.add_argument("-h", "--help", action=_SelectHelp, nargs=0,
                        help="show this help message and exit")
    _add_input_flags(select, "feature-ranking method, several separated by commas "
                             "(laplacian,spec,mcfs), or all (see 'fsclust methods')")
    select.add_argument("--output-dir", required=True, metavar="DIR|-",
                        help="directory written with the files; new, empty, or an earlier "
                             "output of select (it is replaced as a whole); - writes only "
                             "ranking.tsv, to stdout (one method)")
    select.add_argument("--n-features", type=_auto_or_int, metavar="auto|M",
                        help="number of features to keep, 1..d; an integer skips the search for "
                             "m (default: %(default)s)")
    select.add_argument("--n-clusters", type=lambda text: _auto_or_int(text, ("auto", "search")),
                        metavar="auto|search|K",
                        help="number of clusters, from 2 to the subsample size minus one; an "
                             "integer skips the search for K (default: %(default)s: the number "
                             "of classes of --label-column, else the selector's estimate; "
                             "search: the selector's estimate even with --label-column, which "
                             "then only scores it)")
    select.add_argument("--criterion", metavar="stability|lange|pac|silhouette|excess",
                        help="what chooses (m, K): stability of the clusterings of subsamples "
                             "against random labellings (adjusted Rand index, or Lange et al.'s "
                             "matched disagreement), 1 - PAC of their consensus, their "
                             "silhouette on all features, or the stability's excess over "
                             "that of null data (each feature permuted; computed only when it "
                             "chooses: it doubles the clusterings); every criterion is "
                             "written to criterion.tsv (default: %(default)s)")
    select.add_argument("--rule", metavar="one-se|best|stable-set",
                        help="one-se: the smallest m within one standard error of the best "
                             "value (the sparsest sufficient set), and at that m the largest K "
                             "within it; best: the best value; stable-set: one-se's K and, among "
                             "the m within one standard error at that K, the one whose top-m "
                             "sets the subsamples agree on most (the features that carry the "
                             "structure) (default: %(default)s)")
    select.add_argument("--n-resamples", type=int, metavar="R",
                        help="number of subsamples, at least 2 (default: %(default)s)")
    select.add_argument("--subsample", type=float, metavar="F",
                        help="fraction of the samples in each subsample, in (0, 1) "
                             "(default: %(default)s)")
    select.add_argument("--n-jobs", type=int, metavar="J",
                        help="subsamples run in parallel (-1: all cores); the result does not "
                             "depend on it (default: 1)")
    select.add_argument("--top", type=_positive_int, metavar="N",
                        help="also print the N best-ranked features of each method to stdout "
                             "(TSV; it does not change m: that is --n-features)")
    select.add_argument("--write-matrix", action="store_true",
                        help="also write reduced.tsv: the samples x the selected features")
    select.add_argument("--figure", action=argparse.BooleanOptionalAction, default=False,
                        help="also draw summary.png and summary.svg: the criterion against m, "
                             "the scores, a 2-D embedding coloured by cluster and a heatmap "
                             "(about 2 s more)")
    cells = select.add_argument_group(
        "single-cell counts", "an .h5ad whose matrix is sparse, a 10x folder "
        "(matrix.mtx.gz, features.tsv.gz, barcodes.tsv.gz), a 10x .h5 or a Matrix Market .mtx "
        "(cells in rows) is read as counts and kept sparse: genes ranked on the log of the "
        "per-cell normalised counts (the methods that model counts get the counts), the graph "
        "methods on a kNN graph of principal components, the cells clustered by Leiden on the "
        "selected genes (or k-means with --n-clusters K); --n-features M is required")
    cells.add_argument("--counts", action="store_true",
                       help="read --input as single-cell counts even when it would not be "
                            "(a dense .h5ad)")
    cells.add_argument("--layer", metavar="NAME",
                       help="the .h5ad layer holding the counts (e.g. counts); implies --counts")
    cells.add_argument("--normalized", action="store_true",
                       help="the values are already log-normalised: ranked as they are")
    cells.add_argument("--min-cells", type=_positive_int, default=3, metavar="N",
                       help="genes seen in fewer cells are not ranked (default: %(default)s)")
    cells.add_argument("--empty", choices=["drop", "refuse"], default="drop",
                       help="cells and genes with no counts: dropped and counted, or refused "
                            "(default: %(default)s)")
    cells.add_argument("--make-unique", action="store_true",
                       help="make duplicated gene (or cell) names unique instead of refusing")
    cells.add_argument("--batch-key", metavar="COL",
                       help="an obs column of batches: genes ranked within each batch and the "
                            "ranks combined (scanpy's seurat_v3 rule)")
    cells.add_argument("--resolution", type=float, default=1.0, metavar="R",
                       help="Leiden's resolution: larger, more clusters (default: %(default)s)")
    select.add_argument("--strict", action="store_true",
                        help="exit with code 3 when a ranking is decided by ties (all scores "
                             "equal, or a tie across the top-m boundary) or a fit's status "
                             "says it has no ranking")
    select.set_defaults(func=_cmd_select)

    datasets = sub.add_parser("datasets", help="list the dataset registry")
    datasets.add_argument("--catalog", default=None, help="dataset sheet (default config/datasets.tsv)")
    datasets.add_argument("--mirror", default=None, help="offline data mirror (default $FSCLUST_MIRROR)")
    datasets.add_argument("--check", action="store_true",
                          help="verify present files against their checksums (exit 1 on a mismatch)")
    datasets.set_defaults(func=_cmd_datasets)

    methods = sub.add_parser("methods", help="list the registered methods and clusterers, or "
                                             "describe one")
    methods.add_argument("name", nargs="?", metavar="NAME",
                         help="a method: its summary, reference, parameters with their allowed "
                              "values, and whether it takes K")
    methods.add_argument("--markdown", action="store_true",
                         help="print the methods page (docs/methods.md) built from the registry")
    methods.set_defaults(func=_cmd_methods)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings():
            # A method's warning is a line for the user, not a Python source location.
            warnings.showwarning = lambda message, *_args, **_kwargs: _warn(message)
            code = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
    except BrokenPipeError:
        # The reader (e.g. `| head -1`) has gone: point stdout at devnull so the final flush at
        # exit is silent, and end like a process killed by SIGPIPE.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 141
    except (ValueError, KeyError, OSError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        message = " ".join(str(message).split())  # one line, whatever the source wrote
        parser.exit(2, f"fsclust: error: {message}\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
