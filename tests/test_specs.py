"""specs/ stays in step with the code: every example in a spec names a golden case
(```` ```sql ```` block starting ``-- golden: <operator>/<case>``), repeats its SQL, and the
``plan`` and ``answer`` blocks that follow are what the engine gives for it today."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import prism_lineage
from prism_lineage.explain.text import render_text
from prism_lineage.lineage.graph_format import render_graph_text
from test_golden import GOLDEN, read_case

SPECS = Path(__file__).resolve().parent.parent / "specs"
FAMILIES = ["scan-and-values", "project", "filter", "join", "aggregate", "window", "sort-limit-distinct",
            "set-operations", "cte", "subqueries", "explain", "ids-and-origins"]
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def examples() -> list[tuple[str, str, dict[str, str]]]:
    """(spec, golden case, {block kind: text}) for every example of every spec."""
    out = []
    for spec in sorted(SPECS.glob("*.md")):
        current = None
        for kind, text in BLOCK.findall(spec.read_text(encoding="utf-8")):
            if kind == "sql" and text.startswith("-- golden: "):
                name, _, sql = text.partition("\n")
                current = {"sql": sql.strip()}
                out.append((spec.stem, name.removeprefix("-- golden: ").strip(), current))
            elif kind in ("plan", "answer") and current is not None:
                current[kind] = text.strip()
    return out


def sql_body(case) -> str:
    return "\n".join(line for line in case.sql.splitlines() if not line.startswith("-- ")).strip()


def test_every_family_has_a_spec() -> None:
    assert {p.stem for p in SPECS.glob("*.md")} >= set(FAMILIES)


@pytest.mark.parametrize("family", [f for f in FAMILIES if f not in ("explain", "ids-and-origins")])
def test_every_operator_spec_has_an_example(family: str) -> None:
    found = [blocks for spec, _, blocks in examples() if spec == family]
    assert found and all({"sql", "plan", "answer"} <= set(b) for b in found)


def engine_blocks(name: str) -> tuple[str, str, str]:
    """(sql, plan, answer) the engine gives today for a golden case."""
    case = read_case(GOLDEN / f"{name}.sql")
    body = sql_body(case)
    graph = render_graph_text(prism_lineage.lineage_graphs(body, case.schema, case.dialect))
    edges = graph.split("edges:\n", 1)[1]
    plan = "\n".join(line.strip() for line in edges.splitlines() if line.strip())
    answer = render_text(prism_lineage.explain(body, case.schema, case.dialect)).strip()
    return body, plan, answer


def rewrite_example(spec: str, name: str, plan: str, answer: str) -> None:
    """``--update-goldens``: put today's plan and answer into the spec's example (review the diff)."""
    path = SPECS / f"{spec}.md"
    text = path.read_text(encoding="utf-8")
    start = text.index(f"-- golden: {name}\n")
    for kind, fresh in (("plan", plan), ("answer", answer)):
        opening = text.find(f"```{kind}\n", start)
        if opening < 0:
            continue
        body_start = opening + len(kind) + 4
        closing = text.index("```", body_start)
        text = text[:body_start] + fresh + "\n" + text[closing:]
    path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("spec, name, blocks", examples(), ids=lambda v: v if isinstance(v, str) else "")
def test_spec_example_is_true(spec: str, name: str, blocks: dict[str, str], update_goldens: bool) -> None:
    body, plan, answer = engine_blocks(name)
    assert blocks["sql"] == body, f"specs/{spec}.md repeats {name} with other SQL"
    if update_goldens and (blocks.get("plan", plan) != plan or blocks.get("answer", answer) != answer):
        rewrite_example(spec, name, plan, answer)
        return
    if "plan" in blocks:
        assert blocks["plan"] == plan
    if "answer" in blocks:
        assert blocks["answer"] == answer
