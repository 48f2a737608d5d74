# zeng2008: being ported to the paper layer (workflow/rules/papers.smk).
ZENG2008 = papers_of("zeng2008")
