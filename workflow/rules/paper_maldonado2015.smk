# maldonado2015: being ported to the paper layer (workflow/rules/papers.smk).
MALDONADO2015 = papers_of("maldonado2015")
