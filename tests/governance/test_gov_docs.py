"""docs/governance.md runs as shown: every ```console block's command prints exactly its output."""

from __future__ import annotations

import re
import shlex
import shutil

import pytest

from gov_helpers import ROOT
from prism_lineage.cli import main

PAGE = ROOT / "docs" / "governance.md"
CONSOLE = re.compile(r"^```console\n\$ (.*?)\n(.*?)^```", re.S | re.M)


def blocks():
    return CONSOLE.findall(PAGE.read_text(encoding="utf-8"))


def test_the_page_has_console_examples():
    assert len(blocks()) >= 3


@pytest.mark.parametrize("command, expected", blocks(), ids=lambda v: v[:60] if isinstance(v, str) else None)
def test_console_example(command, expected, capsys, monkeypatch):
    argv = shlex.split(command)
    assert argv[0] == "prism-lineage"
    if "--base-rev" in argv and (shutil.which("git") is None or not (ROOT / ".git").exists()):
        pytest.skip("needs a git checkout")
    monkeypatch.chdir(ROOT)
    code = main(argv[1:])
    assert code == 0
    assert capsys.readouterr().out == expected
