"""Command line: rank the features of your own data, list datasets and methods.

    fsclust rank --method laplacian --input expr.tsv --output ranking.tsv [--n-clusters K]
                 [--seed S] [--label-column COL] [--set n_neighbors=10 ...]
    fsclust datasets [--catalog config/datasets.tsv] [--mirror DIR] [--check]
    fsclust methods
    fsclust --version
"""

from __future__ import annotations

import argparse
import sys

import yaml

from fsclust import __version__


def _parse_set(pairs):
    """Parse ``PARAM=VALUE`` pairs; values are read as YAML scalars (10 -> int, 0.5 -> float)."""
    params = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"fsclust: --set expects PARAM=VALUE, got {pair!r}")
        params[key.strip()] = yaml.safe_load(value)
    return params


def _cmd_rank(args):
    from fsclust.datasets import read_table
    from fsclust.ranking import rank_features, ranking_table, write_ranking
    from fsclust.registry import make_ranker

    params = _parse_set(args.set)
    make_ranker(args.method, params)  # a wrong method or parameter fails before the data is read
    data = read_table(args.input, label_column=args.label_column)
    n_clusters = args.n_clusters
    if n_clusters is None and data.y is not None:
        n_clusters = data.n_classes
    ranker = rank_features(
        data.X, args.method, params, n_clusters=n_clusters, random_state=args.seed
    )
    table = ranking_table(ranker, data.feature_names)
    write_ranking(table, args.output)
    print(f"ranked {data.X.shape[1]} features of {data.X.shape[0]} samples with "
          f"{args.method}; wrote {args.output}", file=sys.stderr)
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


def build_parser():
    parser = argparse.ArgumentParser(
        prog="fsclust", description="Unsupervised feature selection for clustering."
    )
    parser.add_argument("--version", action="version", version=f"fsclust {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    rank = sub.add_parser("rank", help="rank the features of a TSV/CSV file (samples in rows)")
    rank.add_argument("--method", required=True, help="feature-ranking method (see 'fsclust methods')")
    rank.add_argument("--input", required=True, help="TSV or CSV: first column sample ids, header of feature names")
    rank.add_argument("--output", required=True, help="TSV written with columns feature, score, rank")
    rank.add_argument("--n-clusters", type=int, default=None, help="number of clusters, for methods that need it")
    rank.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    rank.add_argument("--label-column", default=None, help="column holding class labels, excluded from the features")
    rank.add_argument("--set", action="append", metavar="PARAM=VALUE", help="method parameter (repeatable)")
    rank.set_defaults(func=_cmd_rank)

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
    from fsclust.registry import UnknownNameError

    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (UnknownNameError, ValueError, KeyError, FileNotFoundError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"fsclust: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
