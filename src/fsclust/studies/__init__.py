"""One package per study: the experiments that ask a question across many datasets and
methods, run by the workflow, and tabulate the answer.

- :mod:`fsclust.studies.benchmark`: every method against random and all features on 52 sets;
- :mod:`fsclust.studies.selection`: how well the label-free choice of m and K does against
  the labels;
- :mod:`fsclust.studies.singlecell`: the gene selections of single-cell counts against scanpy's
  highly variable genes and random genes (issue 41).
"""
