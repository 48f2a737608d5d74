"""Docstrings and comments cite papers and equations, not our internal specification (issue 13).

A user of the installed package cannot open the project's spec documents, so a citation such as
"spec methods-seed 2.7" or "(spec 4.4)" tells them nothing: cite the paper (authors, year, title,
venue, equation or section), or state the decision and its reason inline.
"""

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

import fsclust

PACKAGE = Path(fsclust.__file__).parent
SOURCES = sorted(PACKAGE.rglob("*.py"))

# "(spec " is matched in lower case only: "(SPEC keeps ...)" names the SPEC method.
SPEC_CITATION = re.compile(r"(?i:spec methods-)|(?i:methods-(?:seed|baselines))|\(spec |\bspec \d")


def _docstrings(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text is not None:
                line = node.body[0].lineno
                yield line, text


def _comments(source):
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string


def _spec_citations(path):
    source = path.read_text(encoding="utf-8")
    found = []
    for line, text in [*_docstrings(ast.parse(source)), *_comments(source)]:
        for offset, part in enumerate(text.splitlines()):
            if SPEC_CITATION.search(part):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{line + offset}: {part.strip()}")
    return found


def test_sources_found():
    assert len(SOURCES) > 20


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_internal_spec_citations(path):
    found = _spec_citations(path)
    assert not found, "cite the paper or state the decision instead of the spec:\n" + "\n".join(
        found)


@pytest.mark.parametrize("text", ["(spec 4.4)", "spec methods-seed 2.7",
                                  "Spec methods-baselines 12.1", "see methods-seed.md 1.6",
                                  "the spec 3.4 guard"])
def test_pattern_catches_spec_citations(text):
    assert SPEC_CITATION.search(text)


@pytest.mark.parametrize("text", ["(SPEC keeps the kernel's unit diagonal)",
                                  "Zhao & Liu (2007), eqs. (4)-(6)", "def resolve_grid(spec, d)"])
def test_pattern_spares_other_text(text):
    assert not SPEC_CITATION.search(text)
