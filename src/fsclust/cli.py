"""Command line: rank the features of your own data, list datasets and methods.

    fsclust rank --method laplacian --input expr.tsv --output ranking.tsv [--n-clusters K]
                 [--seed S] [--label-column COL] [--set n_neighbors=10 ...] [--impute median]
    fsclust select --method laplacian --input expr.tsv --output-dir DIR
                   [--n-features auto|M] [--n-clusters auto|K]
                   [--criterion stability|lange|pac|silhouette|excess] [--rule one-se|best]
                   [--n-resamples R] [--subsample F] [--n-jobs J] [--seed S]
                   [--label-column COL] [--set n_neighbors=10 ...] [--impute median]
    fsclust datasets [--catalog config/datasets.tsv] [--mirror DIR] [--check]
    fsclust methods
    fsclust --version

``select`` chooses the number of features m and of clusters K without labels
(:class:`fsclust.selection.LabelFreeSelector`) and writes ``ranking.tsv``, ``labels.tsv``,
``criterion.tsv`` and ``summary.json`` into DIR, all four or none.

Bad input ends with one line ``fsclust: error: ...`` on stderr and exit code 2, before anything
is written; outputs are written atomically, so a failed run leaves no file behind.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import warnings
from pathlib import Path

import numpy as np
import yaml

from fsclust import __version__

# How read_table's hints name its options on the command line.
_TABLE_FLAGS = {"label_column": "--label-column", "missing": "--impute median"}
# What `select` writes into --output-dir; an earlier run's are the only files it may replace.
_SELECT_FILES = ("ranking.tsv", "labels.tsv", "criterion.tsv", "summary.json")
_SHOW = 5  # names quoted in a message before "..."


def _quote_names(names, limit=_SHOW):
    names = list(names)
    shown = ", ".join(repr(n) for n in names[:limit])
    return shown + (", ..." if len(names) > limit else "")


def _warn(message):
    print(f"fsclust: warning: {message}", file=sys.stderr)


def _parse_set(pairs, method):
    """Parse ``--set PARAM=VALUE`` pairs for ``method``.

    Values are read as YAML scalars (10 -> int, 0.5 -> float, true -> bool) and must match the
    type of the parameter's default value when it is a number or a bool; then the registry
    checks the names and the values against the method's declared constraints.
    """
    from fsclust.registry import UnknownNameError, check_params, ranker_class

    defaults = {
        name: par.default
        for name, par in inspect.signature(ranker_class(method).__init__).parameters.items()
        if name != "self"
    }
    params = {}
    for pair in pairs or []:
        key, sep, text = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"--set expects PARAM=VALUE, got {pair!r} (e.g. --set n_neighbors=10)")
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError:
            value = text
        params[key] = (_check_set_type(key, text, value, defaults[key]) if key in defaults
                       else value)
    try:
        check_params("method", method, params)
    except UnknownNameError as exc:
        raise ValueError(f"--set {exc.name}: {exc}") from None
    except (ValueError, TypeError) as exc:
        raise ValueError(f"--set: {exc}") from None
    return params


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

    The folder is replaced as a whole (:func:`fsclust._io.atomic_dir`), so that the four files
    appear together or not at all; it must therefore be new, empty or an earlier output of
    ``select``, never a folder whose other files the replacement would delete.
    """
    flag = f"--output-dir {output_dir}"
    path = Path(output_dir)
    here = Path.cwd()
    if path.resolve() in (here, *here.parents):
        raise ValueError(f"{flag} is the current directory or above it; give a new directory")
    if path.exists() and not path.is_dir():
        raise ValueError(f"{flag} is a file; give a directory name")
    if path.is_dir():
        others = sorted(p.name for p in path.iterdir() if p.name not in _SELECT_FILES)
        if others:
            raise ValueError(f"{flag} holds other files ({_quote_names(others)}) that writing "
                             "would delete; give a new or empty directory")
        if not os.access(path, os.W_OK | os.X_OK):
            raise ValueError(f"{flag}: directory {path} is not writable")
    _check_parent(flag, path.parent)


def _read_input(path, label_column, impute=None):
    """Read the ``--input`` table (samples in rows) into a Dataset, checking it for ``rank``.

    :func:`fsclust.datasets.read_table` reads it, with unique feature names and sample ids
    required; empty, NaN or infinite cells are an error unless ``impute == "median"`` replaces
    each by its column's median (over the finite cells).
    """
    from fsclust.datasets import read_table

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"--input {path}: no such file" if not path.exists()
                         else f"--input {path} is not a file")
    data = read_table(path, label_column, missing="nan" if impute == "median" else "error",
                      unique=True, flags=_TABLE_FLAGS)
    X = data.X
    bad = np.isnan(X)
    if bad.any():
        names = data.feature_names
        i, k = np.argwhere(bad)[0]  # row-major: the first bad cell in reading order
        empty = [names[j] for j in np.flatnonzero(bad.all(axis=0))]
        if empty:
            raise ValueError(f"{path}: --impute median: feature(s) {_quote_names(empty)} have no "
                             "finite cell to take a median of; remove them")
        X[bad] = np.take(np.nanmedian(X, axis=0), np.nonzero(bad)[1])
        _warn(f"imputed {int(bad.sum())} empty, NaN or infinite cell(s) with their column's "
              f"median (--impute median); the first was sample {data.sample_names[i]!r}, "
              f"feature {names[k]!r}")
    data.provenance.update(loader="cli", impute=impute)
    return data


def _n_clusters(args, params, data, method):
    """The number of clusters K for ``method``, checked to lie in 2..n_samples before fitting."""
    from fsclust.registry import ranker_class

    n = data.X.shape[0]
    takes_k = "n_clusters" in inspect.signature(ranker_class(method).__init__).parameters
    if "n_clusters" in params:
        k, source = params["n_clusters"], f"--set n_clusters={params['n_clusters']}"
    elif args.n_clusters is not None:
        k, source = args.n_clusters, f"--n-clusters {args.n_clusters}"
    elif data.y is not None and takes_k:
        k = data.n_classes
        source = (f"--label-column {args.label_column!r} has {k} class(es), so K = {k}, "
                  "which")
    else:
        return None
    if not isinstance(k, int) or not 2 <= k <= n:
        hint = "; give --n-clusters K" if source.startswith("--label-column") else ""
        raise ValueError(f"{source} is out of range: the number of clusters must be between 2 "
                         f"and the number of samples ({n}){hint}")
    return k


def _with_flag_hint(message, method):
    """Append the flag that sets each ``name=`` parameter an estimator's message complains of."""
    from fsclust.registry import ranker_class

    flags = {"n_clusters": "--n-clusters K", "random_state": "--seed S"}
    named = [name for name in inspect.signature(ranker_class(method).__init__).parameters
             if name != "self" and f"{name}=" in message]
    hints = [flags.get(name, f"--set {name}=VALUE") for name in named]
    return message.rstrip(". ") + (f"; change it with {', '.join(hints)}" if hints else "")


def _constant_features(data, path):
    """The mask of constant columns, which are not ranked; an error when every one is."""
    # A constant column carries no cluster structure and gives 0/0 in several scores (Laplacian,
    # SPEC, standardised PCA); rank the others and put the constants last, tied with the worst.
    constant = np.ptp(data.X, axis=0) == 0
    if constant.all():
        raise ValueError(f"{path}: all {constant.size} feature(s) are constant; nothing to rank")
    return constant


def _ranking_with_constants(ranker, feature_names, constant):
    """The ranking table of ``ranker``, fitted on the non-constant columns, with the constant
    columns appended last, scored like the worst, and a warning naming them."""
    import pandas as pd

    from fsclust.ranking import ranking_table

    names = np.asarray(feature_names, dtype=object)
    table = ranking_table(ranker, names[~constant])
    if constant.any():
        finite = table["score"][np.isfinite(table["score"])]
        worst = float(finite.iloc[-1]) if len(finite) else 0.0
        tail = pd.DataFrame({"feature": names[constant], "score": worst,
                             "rank": np.arange(len(table) + 1, constant.size + 1)})
        table = pd.concat([table, tail], ignore_index=True)
        _warn(f"{int(constant.sum())} constant feature(s) ({_quote_names(names[constant])}) "
              f"ranked last with score {worst:.6g}")
    return table


def _cmd_rank(args):
    from fsclust.ranking import rank_features, write_ranking
    from fsclust.registry import ranker_class

    ranker_class(args.method)  # an unknown method fails first, listing the valid ones
    params = _parse_set(args.set, args.method)
    _check_output(args.output)
    data = _read_input(args.input, args.label_column, impute=args.impute)
    n_clusters = _n_clusters(args, params, data, args.method)
    constant = _constant_features(data, args.input)
    try:
        ranker = rank_features(data.X[:, ~constant], args.method, params,
                               n_clusters=n_clusters, random_state=args.seed)
    except ValueError as exc:
        raise ValueError(_with_flag_hint(str(exc), args.method)) from None
    write_ranking(_ranking_with_constants(ranker, data.feature_names, constant), args.output)
    print(f"ranked {data.X.shape[1]} features of {data.X.shape[0]} samples with "
          f"{args.method}; wrote {args.output}", file=sys.stderr)
    return 0


# Selector parameters whose defaults --help shows: LabelFreeSelector declares them, once.
_SELECTOR_DEFAULTS = ("n_features", "n_clusters", "criterion", "rule", "n_resamples",
                      "subsample")


def _auto_or_int(text):
    """``auto`` or an integer (its range is checked against the data)."""
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expects auto or an integer, got {text!r}") from None


def _selector_options(args, params):
    """The LabelFreeSelector parameters of the command line, checked before reading the data:
    flags left out take the selector's own defaults."""
    from fsclust.selection import CRITERIA, RULES

    for key, flag in (("n_clusters", "--n-clusters K"), ("random_state", "--seed S"),
                      ("n_features_to_select", "--n-features M")):
        if key in params:
            raise ValueError(f"--set {key}: select sets it; use {flag}")
    given = {name: getattr(args, name) for name in (*_SELECTOR_DEFAULTS, "n_jobs")}
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


def _check_selector_sizes(selector, args, n, d, d_ranked):
    """Check m and K against the data before fitting, in the words of the flags; return the
    subsample size."""
    m, k = selector.n_features, selector.n_clusters
    if m != "auto" and not 1 <= m <= d_ranked:
        constants = f" ({d - d_ranked} of the {d} are constant)" if d_ranked < d else ""
        raise ValueError(f"--n-features {m} is out of range: the number of features to keep "
                         f"must be between 1 and the {d_ranked} features of {args.input}"
                         f"{constants}")
    from fsclust.selection import subsample_size

    size = subsample_size(selector.subsample, n)
    if not 3 <= size < n:
        raise ValueError(f"--subsample {selector.subsample} of {n} samples gives {size}; it "
                         "must leave at least 3 samples and fewer than all")
    if k != "auto" and not 2 <= k < size:
        raise ValueError(f"--n-clusters {k} is out of range: the number of clusters must be "
                         f"between 2 and the subsample size minus one ({size - 1}: "
                         f"--subsample {selector.subsample} of {n} samples)")
    return size


def _select_report(selector, table):
    """The stderr line's account of the choice, and warnings for a degenerate result."""
    m, k = selector.n_features_, selector.n_clusters_
    criterion, rule = selector.criterion, selector.rule
    searched = [name for name in ("n_features", "n_clusters")
                if selector.get_params()[name] == "auto"]
    if not searched:
        how = "m and K given, no search"
    else:
        row = table[(table["n_features"] == m) & (table["n_clusters"] == k)].iloc[0]
        value, se = row[criterion], row[f"{criterion}_se"]
        how = f"criterion {criterion} = {value:.3f} ± {se:.3f}, rule {rule}"
        undefined = int(table[criterion].isna().sum())
        if undefined:
            _warn(f"criterion {criterion} is undefined at {undefined} of {len(table)} (m, K) "
                  "(a subsample clustered into one group?); they were not candidates")
        if criterion == "stability" and value <= 0:
            _warn(f"stability {value:.3f} at the chosen (m, K): no more stable than random "
                  "labellings of the same cluster sizes; the data may hold no clusters")
    n_found = len(np.unique(selector.labels_))
    if n_found < k:
        _warn(f"the clustering of all samples has {n_found} non-empty cluster(s), fewer than "
              f"K = {k}")
    if searched == ["n_features"]:
        how += "; K given"
    elif searched == ["n_clusters"]:
        how += "; m given"
    return how


def _select_summary(args, params, selector, data, d_ranked):
    """summary.json: the choice, how it was searched, and scores only when labels were given."""
    from fsclust.metrics import evaluate

    (n, d), table = data.X.shape, selector.criteria_
    summary = {
        "method": args.method,
        "parameters": params,
        "input": str(args.input),
        "n_samples": n,
        "n_features_in": d,
        "n_constant_features": d - d_ranked,
        "n_features": selector.n_features_,
        "n_clusters": selector.n_clusters_,
        "criterion": selector.criterion,
        "rule": selector.rule,
        "search": {
            "n_features": selector.n_features,
            "n_clusters": selector.n_clusters,
            "n_features_grid": sorted(int(v) for v in table["n_features"].unique()),
            "n_clusters_range": sorted(int(v) for v in table["n_clusters"].unique()),
            "n_resamples": selector.n_resamples,
            "subsample": selector.subsample,
            "clusterer": selector.clusterer,
        },
        "eigengap_n_clusters": selector.eigengap_n_clusters_,
        "seed": args.seed,
        "fsclust_version": __version__,
    }
    if data.y is not None:
        summary.update(label_column=args.label_column, n_classes=data.n_classes,
                       **evaluate(data.y, selector.labels_))
    return summary


def _cmd_select(args):
    import json

    import pandas as pd

    from fsclust._io import atomic_dir
    from fsclust.ranking import write_ranking
    from fsclust.registry import ranker_class
    from fsclust.selection import LabelFreeSelector

    ranker_class(args.method)  # an unknown method fails first, listing the valid ones
    params = _parse_set(args.set, args.method)
    selector = LabelFreeSelector(args.method, params or None,
                                 **_selector_options(args, params),
                                 random_state=args.seed)
    _check_output_dir(args.output_dir)
    data = _read_input(args.input, args.label_column, impute=args.impute)
    constant = _constant_features(data, args.input)
    (n, d), d_ranked = data.X.shape, int((~constant).sum())
    size = _check_selector_sizes(selector, args, n, d, d_ranked)
    try:
        selector.fit(data.X[:, ~constant])  # never the labels: they only score the result
    except ValueError as exc:
        message = _with_flag_hint(str(exc), args.method)
        if "n_samples" in message:  # the method met a subsample, not the user's n samples
            message += (f" (select ranks subsamples of {size} of the {n} samples, "
                        "--subsample)")
        raise ValueError(message) from None

    ranking = _ranking_with_constants(selector.ranker_, data.feature_names, constant)
    chosen = set(np.asarray(data.feature_names, dtype=object)[~constant][selector.support_])
    ranking["selected"] = ranking["feature"].isin(chosen)
    labels = pd.DataFrame({"sample": data.sample_names, "cluster": selector.labels_})
    table = selector.criteria_
    how = _select_report(selector, table)
    summary = _select_summary(args, params, selector, data, d_ranked)
    out = Path(args.output_dir)
    with atomic_dir(out) as tmp:
        write_ranking(ranking, tmp / "ranking.tsv")
        labels.to_csv(tmp / "labels.tsv", sep="\t", index=False)
        table.to_csv(tmp / "criterion.tsv", sep="\t", index=False, float_format="%.17g")
        (tmp / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(f"kept {selector.n_features_} of {d} features, K = {selector.n_clusters_} clusters "
          f"({how}); wrote {out}/ ({', '.join(_SELECT_FILES)})",
          file=sys.stderr)
    return 0


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

    print("feature-ranking methods: " + ", ".join(method_names()))
    print("clusterers: " + ", ".join(clusterer_names()))
    return 0


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
    """Usage errors as one line, like every other bad input."""

    def error(self, message):
        self.exit(2, f"fsclust: error: {message} (see '{self.prog} --help')\n")


def _add_input_flags(command):
    """--method and --input, which rank and select share."""
    command.add_argument("--method", required=True,
                         help="feature-ranking method (see 'fsclust methods')")
    command.add_argument("--input", required=True,
                         help="TSV or CSV: first column sample ids, header of feature names")


def _add_method_flags(command):
    """--set and --impute, which rank and select share."""
    command.add_argument("--set", action="append", metavar="PARAM=VALUE",
                         help="method parameter, e.g. --set n_neighbors=10 (repeatable)")
    command.add_argument("--impute", choices=["median"], default=None,
                         help="replace empty, NaN or infinite cells by their column's median "
                              "(default: such cells are an error)")


def build_parser():
    parser = _Parser(
        prog="fsclust", description="Unsupervised feature selection for clustering."
    )
    parser.add_argument("--version", action="version", version=f"fsclust {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    rank = sub.add_parser("rank", help="rank the features of a TSV/CSV file (samples in rows)")
    _add_input_flags(rank)
    rank.add_argument("--output", required=True, help="TSV written with columns feature, score, rank")
    rank.add_argument("--n-clusters", type=int, default=None, metavar="K",
                      help="number of clusters K, between 2 and the number of samples, for methods "
                           "that need it (default: the number of classes in --label-column, "
                           "else the method's own default)")
    rank.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    rank.add_argument("--label-column", default=None, metavar="COL",
                      help="column holding class labels: excluded from the features, and its "
                           "number of classes is K when --n-clusters is not given")
    _add_method_flags(rank)
    rank.set_defaults(func=_cmd_rank)

    select = sub.add_parser(
        "select", add_help=False,
        help="choose m features and K clusters without labels, and cluster",
        description="Rank the features with --method, choose how many to keep (m) and how "
                    "many clusters (K) by the stability of resampled clusterings, without "
                    "labels, and cluster all samples on the chosen features. Writes "
                    "ranking.tsv (feature, score, rank, selected), labels.tsv (sample, "
                    "cluster), criterion.tsv (every criterion with its standard error for "
                    "every (m, K), and the feature-set stability with its 95 % interval) and "
                    "summary.json into DIR, all four or none.")
    select.add_argument("-h", "--help", action=_SelectHelp, nargs=0,
                        help="show this help message and exit")
    _add_input_flags(select)
    select.add_argument("--output-dir", required=True, metavar="DIR",
                        help="directory written with the four files; new, empty, or an earlier "
                             "output of select (it is replaced as a whole)")
    select.add_argument("--n-features", type=_auto_or_int, metavar="auto|M",
                        help="number of features to keep, 1..d; an integer skips the search for "
                             "m (default: %(default)s)")
    select.add_argument("--n-clusters", type=_auto_or_int, metavar="auto|K",
                        help="number of clusters, from 2 to the subsample size minus one; an "
                             "integer skips the search for K (default: %(default)s)")
    select.add_argument("--criterion", metavar="stability|lange|pac|silhouette|excess",
                        help="what chooses (m, K): stability of the clusterings of subsamples "
                             "against random labellings (adjusted Rand index, or Lange et al.'s "
                             "matched disagreement), 1 - PAC of their consensus, their "
                             "silhouette on all features, or the stability's excess over "
                             "that of null data (each feature permuted; computed only when it "
                             "chooses: it doubles the clusterings); every criterion is "
                             "written to criterion.tsv (default: %(default)s)")
    select.add_argument("--rule", metavar="one-se|best",
                        help="one-se: the smallest m within one standard error of the best "
                             "value, and at that m the largest K within it; best: the best value "
                             "(default: %(default)s)")
    select.add_argument("--n-resamples", type=int, metavar="R",
                        help="number of subsamples, at least 2 (default: %(default)s)")
    select.add_argument("--subsample", type=float, metavar="F",
                        help="fraction of the samples in each subsample, in (0, 1) "
                             "(default: %(default)s)")
    select.add_argument("--n-jobs", type=int, metavar="J",
                        help="subsamples run in parallel (-1: all cores); the result does not "
                             "depend on it (default: 1)")
    select.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    select.add_argument("--label-column", default=None, metavar="COL",
                        help="column holding class labels: excluded from the features, never "
                             "used to choose; summary.json gets ACC, NMI and ARI of labels.tsv "
                             "against it")
    _add_method_flags(select)
    select.set_defaults(func=_cmd_select)

    datasets = sub.add_parser("datasets", help="list the dataset registry")
    datasets.add_argument("--catalog", default=None, help="dataset sheet (default config/datasets.tsv)")
    datasets.add_argument("--mirror", default=None, help="offline data mirror (default $FSCLUST_MIRROR)")
    datasets.add_argument("--check", action="store_true",
                          help="verify present files against their checksums (exit 1 on a mismatch)")
    datasets.set_defaults(func=_cmd_datasets)

    methods = sub.add_parser("methods", help="list the registered methods and clusterers")
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
