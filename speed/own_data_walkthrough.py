"""Four public expression sets in the layouts people have, run through `fsclust select` as a
newcomer would (issue 24's closing note): what the user sees, the exit code and the wall time
of every command, start-up included.

The sets are de Souto et al.'s (2008) copies in the offline mirror, each written in one of
the layouts expression data come in:

- Dyrskjot et al. 2003 (bladder, 40 x 1203): de Souto's file as published (genes in rows, the
  classes in a second row with an empty name);
- Gordon et al. 2002 (lung, 181 x 1626): a GEO series-matrix text file (``!Series_`` lines,
  ``ID_REF`` and genes in rows, no labels);
- Chowdary et al. 2006 (breast/colon, 104 x 182): samples in rows, a ``class`` column,
  gzip-compressed TSV;
- Laiho et al. 2007 (colorectal, 37 x 2202): AnnData ``.h5ad`` with the classes in ``obs``.

    python speed/own_data_walkthrough.py --mirror ../shared/data --out /tmp/walk > walk.md

Timings are wall clock of the whole command (Python start-up included), on whatever machine
runs it: run it on an idle machine to compare with the 1.5 s target.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd


def read_desouto(mirror, name):
    """A de Souto file: genes x samples, the first data row the classes."""
    path = next((Path(mirror) / f"desouto-{name}").glob("*_database.txt"))
    table = pd.read_csv(path, sep="\t", index_col=0, dtype=str)
    classes = table.iloc[0].to_numpy()
    genes = table.iloc[1:].astype(float)
    return path, genes, classes


def make_inputs(mirror, out):
    """The four files, one layout each; returns {set: path}."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    paths["dyrskjot"], _, _ = read_desouto(mirror, "dyrskjot-2003")

    _, genes, _ = read_desouto(mirror, "gordon-2002")
    geo = out / "GSE_gordon_series_matrix.txt"
    body = genes.to_csv(sep="\t", index_label="ID_REF")
    geo.write_text('!Series_title\t"Gordon et al. 2002, lung (de Souto copy)"\n'
                   "!series_matrix_table_begin\n" + body + "!series_matrix_table_end\n")
    paths["gordon"] = geo

    _, genes, classes = read_desouto(mirror, "chowdary-2006")
    samples = genes.T.assign(**{"class": classes})
    paths["chowdary"] = out / "chowdary.tsv.gz"
    samples.to_csv(paths["chowdary"], sep="\t", index_label="sample")

    import anndata

    _, genes, classes = read_desouto(mirror, "laiho-2007")
    # the classes as a categorical of plain (object) strings, as scanpy stores them: pandas 3's
    # own string dtype is not writable by anndata without an opt-in setting
    classes = pd.Categorical(classes, categories=pd.Index(sorted(set(classes)), dtype=object))
    obs = pd.DataFrame({"class": classes}, index=pd.Index(genes.columns, dtype=object))
    adata = anndata.AnnData(X=genes.T.to_numpy(dtype=np.float32), obs=obs,
                            var=pd.DataFrame(index=pd.Index(genes.index, dtype=object)))
    paths["laiho"] = out / "laiho.h5ad"
    adata.write_h5ad(paths["laiho"])
    return paths


def commands(paths, out):
    """(set, why, argv) in the order a newcomer meets them."""
    d, g, c, h = (str(paths[k]) for k in ("dyrskjot", "gordon", "chowdary", "laiho"))
    o = str(out)
    return [
        ("dyrskjot", "the file as published", ["select", "--input", d, "--method", "laplacian",
                                               "--n-features", "50", "--output-dir", f"{o}/d"]),
        ("dyrskjot", "genes in rows", ["select", "--input", d, "--features-in-rows",
                                       "--method", "laplacian", "--n-features", "50",
                                       "--output-dir", f"{o}/d"]),
        ("dyrskjot", "the class row", ["select", "--input", d, "--features-in-rows",
                                       "--label-column", "", "--method", "laplacian",
                                       "--n-features", "50", "--output-dir", f"{o}/d"]),
        ("dyrskjot", "logged; K searched, the labels only score it", [
            "select", "--input", d, "--features-in-rows", "--label-column", "", "--log10",
            "--floor", "20", "--standardize", "--method", "laplacian", "--n-features", "50",
            "--n-clusters", "search", "--output-dir", f"{o}/d"]),
        ("gordon", "GEO series matrix", ["select", "--input", g, "--method", "laplacian",
                                         "--output-dir", f"{o}/g"]),
        ("gordon", "three methods, m and K searched", [
            "select", "--input", g, "--features-in-rows", "--log10", "--floor", "10",
            "--standardize", "--method", "laplacian,spec,mcfs", "--output-dir", f"{o}/g"]),
        ("chowdary", "compressed, samples in rows", [
            "select", "--input", c, "--label-column", "class", "--standardize",
            "--method", "laplacian,llcfs", "--n-features", "50", "--strict",
            "--output-dir", f"{o}/c"]),
        ("laiho", "h5ad with a figure", [
            "select", "--input", h, "--label-column", "class", "--log10", "--floor", "10",
            "--standardize", "--method", "laplacian", "--top", "5", "--figure",
            "--output-dir", f"{o}/h"]),
    ]


def run(argv):
    start = time.perf_counter()
    done = subprocess.run(["fsclust", *argv], capture_output=True, text=True)
    return done.returncode, time.perf_counter() - start, done.stdout, done.stderr


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    paths = make_inputs(args.mirror, args.out / "inputs")
    (args.out / "results").mkdir(exist_ok=True)
    print("| set | step | exit | wall (s) |\n|---|---|---|---|")
    transcript = []
    for name, why, command in commands(paths, args.out / "results"):
        code, seconds, out, err = run(command)
        print(f"| {name} | {why} | {code} | {seconds:.2f} |", flush=True)
        shown = "fsclust " + " ".join(shlex.quote(a) for a in command)
        transcript.append(f"### {name}: {why}\n\n```\n$ {shown}\n{err}{out}```\n"
                          f"exit {code}, {seconds:.2f} s\n")
    print()
    print("\n".join(transcript))


if __name__ == "__main__":
    sys.exit(main())
