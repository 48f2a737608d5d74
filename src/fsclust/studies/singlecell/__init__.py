"""The single-cell benchmark (issue 41, config/experiments/singlecell.yaml): does any method
beat scanpy's highly variable genes, with random genes as the control? The config's comments
and the modules below say how.

- :mod:`~fsclust.studies.singlecell.data`: the labelled count sets of the catalog and the
  synthetic ones as sparse ``.h5ad``, read back (with a seeded subsample);
- :mod:`~fsclust.studies.singlecell.protocol`: one (dataset, method) job: rank the genes
  (timed, its peak memory measured), then for each m the single-cell clustering (normalise,
  log1p, the top m genes, PCA, kNN graph, Leiden; k-means at the true K) and its scores;
- :mod:`~fsclust.studies.singlecell.tables`: the jobs gathered into ``scores.tsv`` and
  ``costs.tsv``;
- :mod:`~fsclust.studies.singlecell.report`: the statistics of the bulk benchmark
  (Friedman, Nemenyi, Wilcoxon-Holm against random genes and ``hvg_seurat_v3``), the time and
  memory ladder, the figures and ``summary.md``.
"""
