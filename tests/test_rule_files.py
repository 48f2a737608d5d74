"""The rule files as static text: what the linters and CI's lint step check, in the fast tier
(the workflow's runs are in test_workflow.py, all slow)."""

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_no_rule_file_defines_a_module_level_lambda():
    # helpers are functions (common.smk, papers.smk: files without rules, as the linter wants)
    # or lambdas inside a rule, never `name = lambda ...` that the linter does not see
    files = [REPO / "Snakefile", *sorted((REPO / "workflow" / "rules").glob("*.smk"))]
    found = [f"{f.name}:{i}: {line}" for f in files
             for i, line in enumerate(f.read_text().splitlines(), 1)
             if re.match(r"[A-Za-z_]\w*\s*=\s*lambda\b", line)]
    assert found == []


def test_rule_files_are_as_snakefmt_writes_them():
    # CI runs `snakefmt --check Snakefile workflow/` before the tests; a long line in a rule
    # file failed CI once with every test passing, so the fast tier checks it too
    proc = subprocess.run([sys.executable, "-m", "snakefmt", "--check", "--diff",
                           "Snakefile", "workflow/"], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
