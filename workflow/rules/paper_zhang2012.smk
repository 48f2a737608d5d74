# zhang2012: being ported to the paper layer (workflow/rules/papers.smk).
ZHANG2012 = papers_of("zhang2012")
