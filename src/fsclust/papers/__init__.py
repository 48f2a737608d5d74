"""The paper-specific layer: one module per reproduced paper, tabulation and figures only.

Each module's public steps take the rule's explicit input and output paths
(``step(inputs, outputs, **settings)``, called by ``scripts/paper.py``) and read what the
generic steps wrote (rankings, their sidecars and arrays, sweep summaries); none ranks or
clusters again. ``fsclust.report`` keeps what every experiment uses.
"""
