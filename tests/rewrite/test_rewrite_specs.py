"""specs/rewrites.md stays in step with the code: each example (a ```sql block starting
``-- rewrite example: <rewrite>``, over ``rewrite_checks.SCHEMA``, dialect duckdb) is followed
by a ```rewritten block holding what ``prism-lineage graph --rewritten`` prints for it — the
rewrites that fired, the plan and the authored links (the edges are left out).  Each example
keeps every answer of ``explain`` and fires the rewrite it illustrates.  ``pytest
--update-goldens`` writes today's output into the spec (review the diff, check it by hand)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rewrite_checks import SCHEMA, rewritten

from prism_lineage.explain import lineage_graphs
from prism_lineage.functions import FunctionRegistry
from prism_lineage.rewrite import REWRITES
from prism_lineage.rewrite.view import render_rewritten_text, rewrite_graphs

SPEC = Path(__file__).resolve().parents[2] / "specs" / "rewrites.md"
EXAMPLE = re.compile(r"^```sql\n-- rewrite example: (\w+)\n(.*?)^```\n\n```rewritten\n(.*?)^```", re.S | re.M)


def examples() -> list[tuple[str, str, str]]:
    return EXAMPLE.findall(SPEC.read_text(encoding="utf-8"))


def shown(sql: str) -> str:
    """The ``graph --rewritten`` text of ``sql`` without its header and edges."""
    registry = FunctionRegistry.default()
    text = render_rewritten_text(rewrite_graphs(lineage_graphs(sql, SCHEMA, "duckdb", functions=registry), registry))
    lines = text.splitlines()[1:]
    edges = lines.index("edges:")
    authored = next(i for i, line in enumerate(lines) if line.startswith("authored"))
    return "\n".join(lines[:edges] + lines[authored:]).strip() + "\n"


def test_every_rewrite_has_an_example() -> None:
    illustrated = {name for name, _, _ in examples()}
    assert illustrated >= {r.name for r in REWRITES} - {"merge_projections"}


@pytest.mark.parametrize("name, sql, expected", examples(), ids=lambda v: v if re.fullmatch(r"\w+", str(v)) else "")
def test_spec_example_is_true(name: str, sql: str, expected: str, update_goldens: bool) -> None:
    [result] = rewritten(sql)
    assert name in result.fired
    actual = shown(sql)
    if update_goldens and actual != expected:
        text = SPEC.read_text(encoding="utf-8")
        SPEC.write_text(text.replace(f"{sql}```\n\n```rewritten\n{expected}", f"{sql}```\n\n```rewritten\n{actual}"),
                        encoding="utf-8")
        return
    assert actual == expected
